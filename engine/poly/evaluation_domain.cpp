#include "engine/poly/evaluation_domain.hpp"

#include <stdexcept>
#include <string>

#include "engine/poly/ntt_internal.hpp"
#include "engine/util/parallel.hpp"

namespace cuzk::poly {

using ff::Fr;
using internal::Direction;
using internal::Geometric;

namespace {

// Pointwise loops: below this size one thread is faster than starting others.
constexpr size_t kMinParallelPointwise = size_t(1) << 14;

unsigned PointwiseThreads(size_t n, const NttOptions& options) {
  return n >= kMinParallelPointwise ? options.threads : 1;
}

}  // namespace

EvaluationDomain EvaluationDomain::ForSize(size_t min_size) {
  unsigned log_size = 0;
  while ((size_t(1) << log_size) < min_size) {
    if (++log_size > internal::kMaxLogSize) {
      throw std::invalid_argument("EvaluationDomain: " + std::to_string(min_size) + " elements exceed 2^" +
                                  std::to_string(internal::kMaxLogSize));
    }
  }
  return EvaluationDomain(log_size);
}

EvaluationDomain::EvaluationDomain(unsigned log_size) : log_size_(log_size), size_(size_t(1) << (log_size & 63)) {
  if (log_size > internal::kMaxLogSize) {
    throw std::invalid_argument("EvaluationDomain: log size " + std::to_string(log_size) + " exceeds " +
                                std::to_string(internal::kMaxLogSize));
  }
  omega_ = ff::FrRootOfUnity(log_size);
  omega_inv_ = omega_.Inverse();
  size_inv_ = Fr::FromUint64(size_).Inverse();
  coset_generator_ = Fr::FromUint64(ff::kFrMultiplicativeGenerator);
  coset_generator_inv_ = coset_generator_.Inverse();
  z_on_coset_ = EvaluateVanishing(coset_generator_);
  z_on_coset_inv_ = z_on_coset_.Inverse();  // g has order r - 1 > m: never zero
}

Fr EvaluationDomain::EvaluateVanishing(const Fr& tau) const { return tau.Pow(size_) - Fr::One(); }

void EvaluationDomain::CheckSpan(size_t n, const char* fn) const {
  if (n != size_) {
    throw std::invalid_argument(std::string("EvaluationDomain::") + fn + ": " + std::to_string(n) +
                                " elements for a domain of size " + std::to_string(size_));
  }
}

void EvaluationDomain::Fft(std::span<Fr> a, const NttOptions& options) const {
  CheckSpan(a.size(), "Fft");
  internal::Transform(a, Direction::kForward, nullptr, nullptr, options.threads);
}

void EvaluationDomain::Ifft(std::span<Fr> a, const NttOptions& options) const {
  CheckSpan(a.size(), "Ifft");
  const Geometric post{size_inv_, Fr::One(), true};
  internal::Transform(a, Direction::kInverse, nullptr, &post, options.threads);
}

void EvaluationDomain::CosetFft(std::span<Fr> a, const NttOptions& options) const {
  CheckSpan(a.size(), "CosetFft");
  const Geometric pre{Fr::One(), coset_generator_, false};
  internal::Transform(a, Direction::kForward, &pre, nullptr, options.threads);
}

void EvaluationDomain::IcosetFft(std::span<Fr> a, const NttOptions& options) const {
  CheckSpan(a.size(), "IcosetFft");
  const Geometric post{size_inv_, coset_generator_inv_, false};
  internal::Transform(a, Direction::kInverse, nullptr, &post, options.threads);
}

void EvaluationDomain::DivideByZOnCoset(std::span<Fr> a, const NttOptions& options) const {
  CheckSpan(a.size(), "DivideByZOnCoset");
  internal::ScaleGeometric(a, Geometric{z_on_coset_inv_, Fr::One(), true}, PointwiseThreads(a.size(), options));
}

void EvaluationDomain::ComputeGroth16H(std::span<Fr> a, std::span<Fr> b, std::span<Fr> c,
                                       const NttOptions& options) const {
  CheckSpan(a.size(), "ComputeGroth16H");
  CheckSpan(b.size(), "ComputeGroth16H");
  CheckSpan(c.size(), "ComputeGroth16H");
  // ifft then coset_fft: coefficient i is scaled by (1/m) * g^i once, as the
  // post-scaling of the inverse transform.
  const Geometric to_coset{size_inv_, coset_generator_, false};
  for (std::span<Fr> v : {a, b, c}) {
    internal::Transform(v, Direction::kInverse, nullptr, &to_coset, options.threads);
    internal::Transform(v, Direction::kForward, nullptr, nullptr, options.threads);
  }
  util::ParallelForChunks(a.size(), PointwiseThreads(a.size(), options), [&](size_t begin, size_t end, size_t) {
    for (size_t i = begin; i < end; ++i) a[i] = a[i] * b[i] - c[i];
  });
  // divide_by_z_on_coset then icoset_fft: coefficient i is scaled by
  // (1/m) * (g^m - 1)^-1 * g^-i.
  const Geometric from_coset{size_inv_ * z_on_coset_inv_, coset_generator_inv_, false};
  internal::Transform(a, Direction::kInverse, nullptr, &from_coset, options.threads);
}

}  // namespace cuzk::poly
