// Reference BLS12-381 point encodings from @noble/curves (an implementation
// independent of ours) for tests/engine/ec_oracle_test.cpp.
//
//   node point_vectors.mjs <seed> <count>
//
// Prints JSON:
//   { "g1_infinity": {compressed, uncompressed}, "g2_infinity": {...},
//     "points": [ { "k": hex, "g1": {compressed, uncompressed}, "g2": {...} } ],
//     "sums":   [ { "i": a, "j": b, "g1": {...}, "g2": {...} } ] }   // points[a] + points[b]
// Scalars: 1, 2, r-1 (so that G + (-G) = O and G + G are covered), then
// `count` scalars SHA-256(seed ":" i) mod r. Hex is lower case, no prefix;
// k is the canonical big-endian scalar.
import { createHash } from 'node:crypto';
import { bls12_381 } from '@noble/curves/bls12-381';

const [seedArg, countArg] = process.argv.slice(2);
if (seedArg === undefined || countArg === undefined || !/^\d+$/.test(seedArg) || !/^\d+$/.test(countArg)) {
  process.stderr.write('usage: node point_vectors.mjs <seed> <count>\n');
  process.exit(2);
}
const count = Number(countArg);

const G1 = bls12_381.G1.ProjectivePoint;
const G2 = bls12_381.G2.ProjectivePoint;
const r = bls12_381.fields.Fr.ORDER;

const hex = (bytes) => Buffer.from(bytes).toString('hex');
const encode = (p) => ({ compressed: hex(p.toRawBytes(true)), uncompressed: hex(p.toRawBytes(false)) });

// multiply() rejects 0 and r; our scalars are in [1, r) by construction.
function scalarFor(i) {
  const digest = createHash('sha256').update(`${seedArg}:${i}`).digest('hex');
  const k = BigInt('0x' + digest) % r;
  return k === 0n ? 1n : k;
}

const scalars = [1n, 2n, r - 1n];
for (let i = 0; i < count; ++i) scalars.push(scalarFor(i));

const g1s = scalars.map((k) => G1.BASE.multiply(k));
const g2s = scalars.map((k) => G2.BASE.multiply(k));

const points = scalars.map((k, i) => ({
  k: k.toString(16).padStart(64, '0'),
  g1: encode(g1s[i]),
  g2: encode(g2s[i]),
}));

// Consecutive pairs, one doubling through add, and G + (-G) = O.
const pairs = [[0, 2], [3, 3]];
for (let i = 0; i < scalars.length; ++i) pairs.push([i, (i + 1) % scalars.length]);
const sums = pairs
  .filter(([a, b]) => a < scalars.length && b < scalars.length)
  .map(([a, b]) => ({ i: a, j: b, g1: encode(g1s[a].add(g1s[b])), g2: encode(g2s[a].add(g2s[b])) }));

process.stdout.write(
  JSON.stringify({
    g1_infinity: encode(G1.ZERO),
    g2_infinity: encode(G2.ZERO),
    points,
    sums,
  }) + '\n',
);
