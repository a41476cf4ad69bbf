// Verifies several snarkjs Groth16 proofs in one Node.js process with
// snarkjs's own groth16.verify (the function `snarkjs groth16 verify` calls
// after JSON.parse of the three files), saving a process start and a curve
// initialisation per proof.
//
//   node snarkjs_verify.mjs VKEY PUBLIC PROOF [VKEY PUBLIC PROOF ...]
//
// Prints a JSON array with one boolean per triple.
import fs from "node:fs";
import * as snarkjs from "snarkjs";

const args = process.argv.slice(2);
if (args.length === 0 || args.length % 3 !== 0) {
  console.error("usage: snarkjs_verify.mjs VKEY PUBLIC PROOF [VKEY PUBLIC PROOF ...]");
  process.exit(2);
}
const read = (f) => JSON.parse(fs.readFileSync(f, "utf8"));
const results = [];
for (let i = 0; i < args.length; i += 3) {
  results.push(await snarkjs.groth16.verify(read(args[i]), read(args[i + 1]), read(args[i + 2])));
}
console.log(JSON.stringify(results));
// ffjavascript's worker threads would keep the process alive.
process.exit(0);
