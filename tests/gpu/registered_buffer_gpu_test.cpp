// cuda::RegisteredBuffer (huge-page anonymous memory registered with CUDA,
// the key image upload's staging): sizes that are and are not multiples of
// the 2 MiB huge page, bytes that survive a round trip through the device,
// moves, and the time to make one beside cudaHostAlloc's (printed, not
// asserted). Needs a CUDA device; skipped without.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <random>
#include <utility>
#include <vector>

#include "cuda/runtime/device_buffer.hpp"
#include "cuda/runtime/registered_buffer.hpp"
#include "tests/gpu/gpu_skip.hpp"
#include "tests/support/test_seed.hpp"

namespace cuzk::cuda {
namespace {

TEST(RegisteredBufferGpuTest, BytesRoundTripThroughTheDevice) {
  CUZK_REQUIRE_GPU();
  auto rng = test::SeededRng();
  for (size_t bytes :
       {size_t(1), size_t(4096) + 3, RegisteredBuffer::kHugePage, size_t(48) << 20, (size_t(5) << 20) + 12345}) {
    RegisteredBuffer in(bytes), out(bytes);
    ASSERT_NE(in.data(), nullptr);
    EXPECT_EQ(in.size(), bytes);
    EXPECT_EQ(reinterpret_cast<uintptr_t>(in.data()) % RegisteredBuffer::kHugePage, 0u) << "2 MiB-aligned";
    for (size_t i = 0; i < bytes; ++i) in.data()[i] = uint8_t(rng());
    DeviceBuffer<uint8_t> dev(bytes);
    Stream stream;
    ASSERT_EQ(cudaMemcpyAsync(dev.data(), in.data(), bytes, cudaMemcpyHostToDevice, stream.get()), cudaSuccess);
    ASSERT_EQ(cudaMemcpyAsync(out.data(), dev.data(), bytes, cudaMemcpyDeviceToHost, stream.get()), cudaSuccess);
    stream.Synchronize();
    size_t differ = 0;
    for (size_t i = 0; i < bytes; ++i) differ += in.data()[i] != out.data()[i];
    EXPECT_EQ(differ, 0u) << bytes << " bytes";
    // Registered memory is page-locked: the runtime reports it as host memory it knows.
    cudaPointerAttributes attr{};
    ASSERT_EQ(cudaPointerGetAttributes(&attr, in.data()), cudaSuccess);
    EXPECT_EQ(attr.type, cudaMemoryTypeHost) << bytes << " bytes";
  }
}

TEST(RegisteredBufferGpuTest, MovesHandOverAndResetUnregisters) {
  CUZK_REQUIRE_GPU();
  RegisteredBuffer a(size_t(3) << 20);
  uint8_t* p = a.data();
  RegisteredBuffer b(std::move(a));
  EXPECT_EQ(a.data(), nullptr);
  EXPECT_EQ(a.size(), 0u);
  EXPECT_EQ(b.data(), p);
  RegisteredBuffer c;
  c = std::move(b);
  EXPECT_EQ(c.data(), p);
  c.Reset();
  EXPECT_EQ(c.data(), nullptr);
  cudaPointerAttributes attr{};
  const cudaError_t st = cudaPointerGetAttributes(&attr, p);
  cudaGetLastError();
  EXPECT_TRUE(st != cudaSuccess || attr.type == cudaMemoryTypeUnregistered) << "no longer registered";
}

TEST(RegisteredBufferGpuTest, MakingIsTimedBesideCudaHostAlloc) {
  CUZK_REQUIRE_GPU();
  constexpr size_t kBytes = size_t(48) << 20, kCount = 8;
  using Clock = std::chrono::steady_clock;
  auto ms = [](Clock::time_point t0) { return std::chrono::duration<double, std::milli>(Clock::now() - t0).count(); };
  auto t0 = Clock::now();
  {
    std::vector<PinnedBuffer<uint8_t>> pinned;
    for (size_t i = 0; i < kCount; ++i) pinned.emplace_back(kBytes);
    std::printf("  cudaHostAlloc %zu x 48 MiB: %.1f ms\n", kCount, ms(t0));
  }
  t0 = Clock::now();
  std::vector<RegisteredBuffer> registered;
  for (size_t i = 0; i < kCount; ++i) registered.emplace_back(kBytes);
  std::printf("  RegisteredBuffer %zu x 48 MiB: %.1f ms\n", kCount, ms(t0));
  for (const auto& r : registered) EXPECT_EQ(r.size(), kBytes);
}

}  // namespace
}  // namespace cuzk::cuda
