#include "cuda/ec/point_kernels.hpp"

#include <stdexcept>
#include <vector>

#include "cuda/ec/point.hpp"
#include "cuda/runtime/cuda_check.hpp"
#include "cuda/runtime/device_buffer.hpp"

namespace cuzk::cuda {
namespace {

static_assert(sizeof(G1Xyzz) == sizeof(ec::G1Xyzz), "XYZZ layouts must match for raw copies");

__global__ void G1ElementwiseKernel(G1Op op, const G1Xyzz* acc, const G1Affine* points, G1Xyzz* out, size_t n) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x) {
    switch (op) {
      case G1Op::kAddMixed: out[i] = acc[i].AddMixed(points[i]); break;
      case G1Op::kAdd: out[i] = acc[i] + G1Xyzz::FromAffine(points[i]); break;
      default: out[i] = acc[i].Double(); break;
    }
  }
}

}  // namespace

void G1ElementwiseOnDevice(G1Op op, std::span<const ec::G1Xyzz> acc, std::span<const ec::G1Affine> points,
                           std::span<ec::G1Xyzz> out) {
  if (acc.size() != points.size() || out.size() != acc.size()) {
    throw std::invalid_argument("G1ElementwiseOnDevice: spans must have the same length");
  }
  if (acc.empty()) return;
  std::vector<G1Affine> dev_points(points.size());
  for (size_t i = 0; i < points.size(); ++i) dev_points[i] = G1AffineFromHost(points[i]);
  Stream stream;
  DeviceBuffer<ec::G1Xyzz> dacc(acc.size()), dout(acc.size());
  DeviceBuffer<G1Affine> dpoints(points.size());
  dacc.CopyFromHost(acc, stream);
  dpoints.CopyFromHost(dev_points, stream);
  const unsigned blocks = unsigned((acc.size() + 127) / 128);
  G1ElementwiseKernel<<<blocks, 128, 0, stream>>>(op, reinterpret_cast<const G1Xyzz*>(dacc.data()), dpoints.data(),
                                                  reinterpret_cast<G1Xyzz*>(dout.data()), acc.size());
  CUZK_CUDA_CHECK(cudaGetLastError());
  dout.CopyToHost(out, stream);
  stream.Synchronize();
}

}  // namespace cuzk::cuda
