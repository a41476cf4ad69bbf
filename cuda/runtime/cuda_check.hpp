#pragma once
// Every CUDA runtime call goes through CUZK_CUDA_CHECK: a failure throws
// CudaError naming the call, the file:line and the runtime's message.
#include <cuda_runtime_api.h>

#include <stdexcept>
#include <string>

namespace cuzk::cuda {

class CudaError : public std::runtime_error {
 public:
  CudaError(cudaError_t code, const char* call, const char* file, int line)
      : std::runtime_error(std::string(call) + " failed at " + file + ":" + std::to_string(line) + ": " +
                           cudaGetErrorName(code) + " (" + cudaGetErrorString(code) + ")"),
        code_(code) {}
  cudaError_t code() const { return code_; }

 private:
  cudaError_t code_;
};

}  // namespace cuzk::cuda

#define CUZK_CUDA_CHECK(call)                                                      \
  do {                                                                             \
    cudaError_t cuzk_cuda_status_ = (call);                                        \
    if (cuzk_cuda_status_ != cudaSuccess) {                                        \
      throw ::cuzk::cuda::CudaError(cuzk_cuda_status_, #call, __FILE__, __LINE__); \
    }                                                                              \
  } while (0)
