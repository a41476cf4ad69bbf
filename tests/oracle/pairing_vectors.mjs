// Pairing test vectors from @noble/curves 1.9.7 (independent of our code).
//
//   node pairing_vectors.mjs <seed> <count>
//
// Prints one JSON object:
//   seed, count
//   r, p                     - the group order and base field modulus (hex)
//   final_exponent           - (p^12 - 1) / r as hex, computed with BigInt
//   generator                - { e } = e(G1, G2)
//   pairs[count]             - { a, b, p: {x, y}, q: {x: [c0, c1], y: [c0, c1]}, e }
//                              with p = a*G1, q = b*G2, e = e(p, q)
//   product                  - { p1, q1, p2, q2, e } with e = e(p1, q1) * e(p2, q2)
//                              computed by noble's pairingBatch (one shared Miller loop)
// Scalars are SHA-256(label || seed || index) mod r (never 0), so the same seed
// always gives the same vectors. Every number is a plain big-endian hex integer
// with a 0x prefix; no point encoding of ours is involved.
//
// Fp12 values ("e") are noble's Fp12.toBytes as hex: the 12 Fp coefficients in
// the order c0.c0.c0, c0.c0.c1, c0.c1.c0, c0.c1.c1, c0.c2.c0, c0.c2.c1,
// c1.c0.c0, ..., c1.c2.c1, each 48 bytes big-endian (576 bytes), where
// Fp12 = Fp6[w]/(w^2 - v), Fp6 = Fp2[v]/(v^3 - (1 + u)), Fp2 = Fp[u]/(u^2 + 1).
import { createHash } from 'node:crypto';
import { bls12_381 } from '@noble/curves/bls12-381';

const [seedArg, countArg] = process.argv.slice(2);
if (seedArg === undefined || countArg === undefined || !/^\d+$/.test(seedArg) || !/^\d+$/.test(countArg)) {
  console.error('usage: node pairing_vectors.mjs <seed> <count>');
  process.exit(2);
}
const seed = BigInt(seedArg);
const count = Number(countArg);

const { G1, G2, fields } = bls12_381;
const { Fp12 } = fields;
const r = G1.CURVE.n;
const p = G1.CURVE.p;

const hex = (n) => '0x' + n.toString(16);

function scalar(label, index) {
  const h = createHash('sha256').update(`${label}/${seed}/${index}`).digest('hex');
  const s = BigInt('0x' + h) % r;
  return s === 0n ? 1n : s;
}

function g1Json(point) {
  const { x, y } = point.toAffine();
  return { x: hex(x), y: hex(y) };
}

function g2Json(point) {
  const { x, y } = point.toAffine();
  return { x: [hex(x.c0), hex(x.c1)], y: [hex(y.c0), hex(y.c1)] };
}

const fp12Hex = (f) => Buffer.from(Fp12.toBytes(f)).toString('hex');

const pairs = [];
for (let i = 0; i < count; ++i) {
  const a = scalar('a', i);
  const b = scalar('b', i);
  const P = G1.Point.BASE.multiply(a);
  const Q = G2.Point.BASE.multiply(b);
  pairs.push({ a: hex(a), b: hex(b), p: g1Json(P), q: g2Json(Q), e: fp12Hex(bls12_381.pairing(P, Q)) });
}

const P1 = G1.Point.BASE.multiply(scalar('p1', 0));
const Q1 = G2.Point.BASE.multiply(scalar('q1', 0));
const P2 = G1.Point.BASE.multiply(scalar('p2', 0));
const Q2 = G2.Point.BASE.multiply(scalar('q2', 0));
const product = {
  p1: g1Json(P1),
  q1: g2Json(Q1),
  p2: g1Json(P2),
  q2: g2Json(Q2),
  e: fp12Hex(bls12_381.pairingBatch([{ g1: P1, g2: Q1 }, { g1: P2, g2: Q2 }])),
};

const p12 = p ** 12n;
if ((p12 - 1n) % r !== 0n) throw new Error('r does not divide p^12 - 1');

console.log(JSON.stringify({
  seed: seed.toString(),
  count,
  r: hex(r),
  p: hex(p),
  final_exponent: hex((p12 - 1n) / r),
  generator: { e: fp12Hex(bls12_381.pairing(G1.Point.BASE, G2.Point.BASE)) },
  pairs,
  product,
}));
