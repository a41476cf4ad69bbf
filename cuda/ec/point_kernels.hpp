#pragma once
// Element-wise G1 XYZZ operations on the GPU for host vectors: the device
// side of point_gpu_test (checks the PTX build of cuda/ec/point.hpp against
// engine/ec). Not a production path: each call copies in and out and waits.
#include <span>

#include "engine/ec/g1.hpp"

namespace cuzk::cuda {

enum class G1Op { kAddMixed, kAdd, kDouble };

// out[i] = acc[i].AddMixed(points[i]) / acc[i] + XYZZ(points[i]) / acc[i].Double().
void G1ElementwiseOnDevice(G1Op op, std::span<const ec::G1Xyzz> acc, std::span<const ec::G1Affine> points,
                           std::span<ec::G1Xyzz> out);

}  // namespace cuzk::cuda
