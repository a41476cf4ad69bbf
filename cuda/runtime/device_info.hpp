#pragma once
// What the CUDA runtime says about this host's GPUs (for status reports and
// for tests that skip without a GPU).
#include <cstdint>
#include <string>
#include <vector>

namespace cuzk::cuda {

struct DeviceInfo {
  int ordinal = 0;
  std::string name;
  int compute_major = 0, compute_minor = 0;
  int multiprocessors = 0;
  uint64_t total_memory_bytes = 0;
  uint64_t free_memory_bytes = 0;
};

// Empty when there is no driver or no device (never throws for that case);
// *why_empty, if given, receives the runtime's reason.
std::vector<DeviceInfo> ListDevices(std::string* why_empty = nullptr);

}  // namespace cuzk::cuda
