#pragma once
// The pointwise step of Groth16's H on the device (bellperson form): on the
// coset g w^i, h_i = (a_i b_i - c_i) / Z(g w^i), where Z(x) = x^m - 1 takes
// the single value g^m - 1 on the whole coset, so the division is one
// multiplication by z_inv = (g^m - 1)^-1. In place into a.
#include <cuda_runtime_api.h>

#include <cstddef>

#include "engine/ff/fr.hpp"

namespace cuzk::cuda {

// a, b, c: n device elements (ff::Fr layout, Montgomery form).
void LaunchHPointwise(ff::Fr* a, const ff::Fr* b, const ff::Fr* c, const ff::Fr& z_inv, size_t n, cudaStream_t stream);

}  // namespace cuzk::cuda
