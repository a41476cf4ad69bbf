#pragma once
// snarkjs's Groth16 .zkey (src/zkey_utils.js, zkey_new.js; binfile "zkey"
// version 1) as a ProvingKey.
//
// Sections (any order in the file; zkey_new writes 1 2 4 3 9 8 5 6 7 10):
//   1  protocol:u32 = 1 (Groth16)
//   2  n8q:u32 q[n8q] n8r:u32 r[n8r] nVars:u32 nPublic:u32 domainSize:u32
//      alpha1 beta1 beta2 gamma2 delta1 delta2        (points, Montgomery LE)
//   3  IC: nPublic + 1 G1 points                        (vk.ic)
//   4  coefs: n:u32, n x (matrix:u32 constraint:u32 signal:u32 value[n8r]):
//      the A (matrix 0) and B (matrix 1) entries row by row, then one A entry
//      (constraint nConstraints + s, signal s, value 1) per public signal s,
//      ONE included. The value is stored as the integer v R^2 mod r
//      (R = 2^256): snarkjs's prover multiplies it by a canonical witness
//      value in Montgomery arithmetic (x y / R), which lands on v w in
//      Montgomery form. We store v.
//   5  A:  nVars G1 points;   6 B1: nVars G1;   7 B2: nVars G2
//      (the point at infinity for a variable absent from that matrix)
//   8  C:  nVars - nPublic - 1 G1 points, the aux variables (our L query)
//   9  H:  domainSize G1 points (HQueryForm::kSnarkjsOddCoset)
//   10 contributions (ignored)
//
// The ProvingKey keeps only the non-infinity A/B points; a_density/b_density
// say which variables they belong to (B1 and B2 must agree). Points are
// checked to be reduced and on the curve; the verifying-key points
// (alpha..delta, IC) also to be in the subgroup, the large sections only
// with ZkeyReadOptions::check_subgroup.
//
//   ZkeyFile zkey = ReadZkey("circuit.zkey");
//   CheckZkeyMatchesR1cs(zkey, ReadR1cs("circuit.r1cs"));   // throws on mismatch
//   const groth16::ProvingKey& pk = zkey.pk;
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "engine/ff/fr.hpp"
#include "engine/groth16/types.hpp"

namespace cuzk::snarkjs {

struct R1csFile;

struct ZkeyReadOptions {
  // Subgroup checks of the A/B/C/H sections: the verifying-key points are
  // always checked; the big sections are written by the ceremony tooling and
  // their check costs one endomorphism test per point (as bellperson, off).
  bool check_subgroup = false;
  unsigned threads = 0;  // point decoding threads, 0 = all
};

struct ZkeyCoefficient {
  uint32_t matrix = 0;  // 0 = A, 1 = B
  uint32_t constraint = 0;
  uint32_t signal = 0;
  ff::Fr value;  // the coefficient itself (R^2 factor removed)
};

struct ZkeyFile {
  groth16::ProvingKey pk;  // h_form = kSnarkjsOddCoset
  uint32_t n_vars = 0;
  uint32_t n_public = 0;  // public signals after ONE
  uint32_t domain_size = 0;
  std::vector<ZkeyCoefficient> coefficients;  // section 4, in file order
};

ZkeyFile ParseZkey(std::span<const uint8_t> bytes, const std::string& name, const ZkeyReadOptions& options = {});
ZkeyFile ReadZkey(const std::string& path, const ZkeyReadOptions& options = {});

// Throws FormatError unless the zkey was made for this r1cs: same nVars and
// nPublic, a domain that holds the constraints plus one row per public signal
// (ONE included), the same A and B entries as the r1cs (compared as sets per
// row), and A/B densities that agree with the matrices.
void CheckZkeyMatchesR1cs(const ZkeyFile& zkey, const R1csFile& r1cs);

}  // namespace cuzk::snarkjs
