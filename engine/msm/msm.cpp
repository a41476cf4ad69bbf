#include "engine/msm/msm.hpp"

#include <algorithm>
#include <bit>
#include <stdexcept>
#include <string>
#include <vector>

#include "engine/msm/pippenger.hpp"
#include "engine/msm/signed_digits.hpp"
#include "engine/util/parallel.hpp"

namespace cuzk::msm {
namespace {

using internal::Scalar;

// Scalars are converted out of Montgomery form once (one Fr multiplication each) and every window
// reads its digits from the canonical copy.
std::vector<Scalar> CanonicalScalars(std::span<const ff::Fr> scalars, unsigned threads) {
  std::vector<Scalar> out(scalars.size());
  util::ParallelForChunks(scalars.size(), threads, [&](size_t begin, size_t end, size_t) {
    for (size_t i = begin; i < end; ++i) out[i] = scalars[i].ToCanonical();
  });
  return out;
}

// The scalars whose density bit is set, canonical, in order (one per base).
std::vector<Scalar> DenseCanonicalScalars(std::span<const ff::Fr> scalars, const DensityBitmap& density, size_t count,
                                          unsigned threads) {
  std::vector<Scalar> out(count);
  const auto& words = density.words();
  // Output offset of each 64-variable word, so that word ranges convert independently.
  std::vector<size_t> offset(words.size() + 1, 0);
  for (size_t w = 0; w < words.size(); ++w) offset[w + 1] = offset[w] + size_t(std::popcount(words[w]));
  util::ParallelForChunks(words.size(), threads, [&](size_t begin, size_t end, size_t) {
    for (size_t w = begin; w < end; ++w) {
      size_t o = offset[w];
      for (uint64_t bits = words[w]; bits; bits &= bits - 1) {
        out[o++] = scalars[w * 64 + size_t(std::countr_zero(bits))].ToCanonical();
      }
    }
  });
  return out;
}

internal::PippengerPlan Plan(const char* name, size_t n, unsigned scalar_bits, const MsmOptions& options) {
  if (options.window_bits > internal::kMaxWindowBits) {
    throw std::invalid_argument(std::string(name) + ": window_bits " + std::to_string(options.window_bits) +
                                " is above the maximum " + std::to_string(internal::kMaxWindowBits));
  }
  return internal::PlanPippenger(n, scalar_bits, util::ResolveThreads(options.threads), options.window_bits);
}

template <class C>
ec::JacobianPoint<C> MsmCanonical(const char* name, std::span<const ec::AffinePoint<C>> bases,
                                  std::span<const Scalar> scalars, const MsmOptions& options) {
  auto plan = Plan(name, bases.size(), internal::MaxScalarBits(scalars), options);
  return internal::Pippenger<C>(bases, scalars, plan);
}

template <class C>
ec::JacobianPoint<C> Msm(const char* name, std::span<const ec::AffinePoint<C>> bases, std::span<const ff::Fr> scalars,
                         const MsmOptions& options) {
  if (bases.size() != scalars.size()) {
    throw std::invalid_argument(std::string(name) + ": " + std::to_string(bases.size()) + " bases but " +
                                std::to_string(scalars.size()) + " scalars");
  }
  auto canonical = CanonicalScalars(scalars, util::ResolveThreads(options.threads));
  return MsmCanonical<C>(name, bases, canonical, options);
}

template <class C>
ec::JacobianPoint<C> MsmDensity(const char* name, std::span<const ec::AffinePoint<C>> bases,
                                std::span<const ff::Fr> scalars, const DensityBitmap& density,
                                const MsmOptions& options) {
  if (scalars.size() != density.size()) {
    throw std::invalid_argument(std::string(name) + ": " + std::to_string(scalars.size()) +
                                " scalars but the density bitmap has " + std::to_string(density.size()) + " variables");
  }
  size_t count = density.Count();
  if (bases.size() != count) {
    throw std::invalid_argument(std::string(name) + ": " + std::to_string(bases.size()) +
                                " bases but the density bitmap has " + std::to_string(count) + " set bits");
  }
  auto canonical = DenseCanonicalScalars(scalars, density, count, util::ResolveThreads(options.threads));
  return MsmCanonical<C>(name, bases, canonical, options);
}

template <class C>
ec::JacobianPoint<C> NaiveMsm(const char* name, std::span<const ec::AffinePoint<C>> bases,
                              std::span<const ff::Fr> scalars) {
  if (bases.size() != scalars.size()) {
    throw std::invalid_argument(std::string(name) + ": " + std::to_string(bases.size()) + " bases but " +
                                std::to_string(scalars.size()) + " scalars");
  }
  using Jacobian = ec::JacobianPoint<C>;
  Jacobian acc = Jacobian::Infinity();
  for (size_t i = 0; i < bases.size(); ++i) acc += Jacobian::FromAffine(bases[i]).MulLimbs(scalars[i].ToCanonical());
  return acc;
}

}  // namespace

ec::G1Jacobian MsmG1(std::span<const ec::G1Affine> bases, std::span<const ff::Fr> scalars, const MsmOptions& options) {
  return Msm<ec::G1Curve>("MsmG1", bases, scalars, options);
}

ec::G2Jacobian MsmG2(std::span<const ec::G2Affine> bases, std::span<const ff::Fr> scalars, const MsmOptions& options) {
  return Msm<ec::G2Curve>("MsmG2", bases, scalars, options);
}

ec::G1Jacobian MsmG1Density(std::span<const ec::G1Affine> bases, std::span<const ff::Fr> scalars,
                            const DensityBitmap& density, const MsmOptions& options) {
  return MsmDensity<ec::G1Curve>("MsmG1Density", bases, scalars, density, options);
}

ec::G2Jacobian MsmG2Density(std::span<const ec::G2Affine> bases, std::span<const ff::Fr> scalars,
                            const DensityBitmap& density, const MsmOptions& options) {
  return MsmDensity<ec::G2Curve>("MsmG2Density", bases, scalars, density, options);
}

unsigned MsmWindowBits(size_t n, const MsmOptions& options) {
  return Plan("MsmWindowBits", std::max<size_t>(n, 1), 255, options).window_bits;
}

ec::G1Jacobian NaiveMsmG1(std::span<const ec::G1Affine> bases, std::span<const ff::Fr> scalars) {
  return NaiveMsm<ec::G1Curve>("NaiveMsmG1", bases, scalars);
}

ec::G2Jacobian NaiveMsmG2(std::span<const ec::G2Affine> bases, std::span<const ff::Fr> scalars) {
  return NaiveMsm<ec::G2Curve>("NaiveMsmG2", bases, scalars);
}

}  // namespace cuzk::msm
