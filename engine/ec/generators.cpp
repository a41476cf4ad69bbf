// The standard generators of BLS12-381 (as in the IETF pairing-friendly curves
// draft, zkcrypto/bls12_381 and blst). Checked on the curve and in the
// subgroup by tests, and against @noble/curves.
#include "engine/ec/g1.hpp"
#include "engine/ec/g2.hpp"

namespace cuzk::ec {

using ff::Fp;

AffinePoint<G1Curve> G1Curve::Generator() {
  static const G1Affine g = G1Affine::FromXY(
      Fp::FromHex("0x17f1d3a73197d7942695638c4fa9ac0fc3688c4f9774b905a14e3a3f171bac586c55e83ff97a1aeffb3af00adb22c6bb"),
      Fp::FromHex(
          "0x08b3f481e3aaa0f1a09e30ed741d8ae4fcf5e095d5d00af600db18cb2c04b3edd03cc744a2888ae40caa232946c5e7e1"));
  return g;
}

AffinePoint<G2Curve> G2Curve::Generator() {
  static const G2Affine g = G2Affine::FromXY(
      {Fp::FromHex(
           "0x024aa2b2f08f0a91260805272dc51051c6e47ad4fa403b02b4510b647ae3d1770bac0326a805bbefd48056c8c121bdb8"),
       Fp::FromHex(
           "0x13e02b6052719f607dacd3a088274f65596bd0d09920b61ab5da61bbdc7f5049334cf11213945d57e5ac7d055d042b7e")},
      {Fp::FromHex(
           "0x0ce5d527727d6e118cc9cdc6da2e351aadfd9baa8cbdd3a76d429a695160d12c923ac9cc3baca289e193548608b82801"),
       Fp::FromHex(
           "0x0606c4a02ea734cc32acd2b02bc28b99cb3e287e85a763af267492ab572e99ab3f370d275cec1da1aaa9075ff05f79be")});
  return g;
}

}  // namespace cuzk::ec
