#pragma once
// GPU tests call CUZK_REQUIRE_GPU() first: on a machine without a CUDA device
// (CI) the test is skipped with the runtime's reason instead of failing.
#include <gtest/gtest.h>

#include <string>

#include "cuda/runtime/device_info.hpp"

#define CUZK_REQUIRE_GPU()                                                        \
  do {                                                                            \
    std::string cuzk_why_no_gpu_;                                                 \
    if (::cuzk::cuda::ListDevices(&cuzk_why_no_gpu_).empty()) {                   \
      GTEST_SKIP() << "no CUDA GPU on this machine (" << cuzk_why_no_gpu_ << ")"; \
    }                                                                             \
  } while (0)
