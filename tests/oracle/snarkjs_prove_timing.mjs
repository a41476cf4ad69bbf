// Times snarkjs's Groth16 prover in-process: groth16.prove(zkey, wtns), the
// function `snarkjs groth16 prove` runs, RUNS times in one Node.js process.
// The first run also builds the curve (WASM and worker threads); later runs
// are warm. Used by `cuzk-bench snarkjs-compare`.
//
//   node snarkjs_prove_timing.mjs ZKEY WTNS RUNS
//
// Prints {"times_ms": [...], "threads": N, "public_signals": [...]}.
import os from "node:os";
import * as snarkjs from "snarkjs";

const [zkey, wtns, runsText] = process.argv.slice(2);
const runs = Number(runsText || "3");
if (!zkey || !wtns || !(runs >= 1)) {
  console.error("usage: snarkjs_prove_timing.mjs ZKEY WTNS RUNS");
  process.exit(2);
}
const times = [];
let publicSignals = [];
for (let i = 0; i < runs; i++) {
  const t0 = performance.now();
  const res = await snarkjs.groth16.prove(zkey, wtns);
  times.push(performance.now() - t0);
  publicSignals = res.publicSignals;
}
console.log(JSON.stringify({ times_ms: times, threads: os.cpus().length, public_signals: publicSignals }));
process.exit(0);
