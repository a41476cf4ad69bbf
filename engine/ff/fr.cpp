#include "engine/ff/fr.hpp"

#include <stdexcept>

namespace cuzk::ff {

Fr FrRootOfUnity(unsigned log_n) {
  if (log_n > kFrTwoAdicity) throw std::invalid_argument("FrRootOfUnity: domain larger than 2^32");
  // (r - 1) >> log_n
  Limbs<4> e = SubSmall(Fr::kModulus, 1);
  for (unsigned i = 0; i < log_n; ++i) e = ShiftRight1(e);
  return Fr::FromUint64(kFrMultiplicativeGenerator).Pow(e);
}

}  // namespace cuzk::ff
