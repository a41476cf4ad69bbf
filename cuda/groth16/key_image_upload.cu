#include "cuda/groth16/key_image_upload.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <exception>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "cuda/ec/g1_compressed.hpp"
#include "cuda/runtime/cuda_check.hpp"
#include "cuda/runtime/device_buffer.hpp"
#include "cuda/runtime/registered_buffer.hpp"
#include "engine/util/cache_file.hpp"

namespace cuzk::cuda {
namespace {

// Record r's first out_words words of in_words: the flag word and padding
// dropped. One thread per output word (coalesced writes; the reads skip one
// word in 13 (G1) or 25 (G2)). The flag byte (the low byte of word
// out_words: right after x and y) must be zero: the smallest index
// (first + r) of a record whose flag is set goes to *bad. The host does not
// read the bytes for that (KeyImageStream::FlagCheck::kByCaller).
__global__ void RepackRecords(const uint64_t* __restrict__ in, uint64_t* __restrict__ out, size_t records,
                              unsigned in_words, unsigned out_words, uint64_t first, unsigned long long* bad) {
  const size_t total = records * out_words;
  for (size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < total; i += size_t(gridDim.x) * blockDim.x) {
    const size_t r = i / out_words, w = i - r * out_words;
    out[i] = in[r * in_words + w];
    if (w == 0 && (in[r * in_words + out_words] & 0xff) != 0) atomicMin(bad, (unsigned long long)(first + r));
  }
}

}  // namespace

struct KeyImageUploader::Impl {
  struct Slot {
    RegisteredBuffer host;  // page-locked huge pages: made in a third of cudaHostAlloc's time
    DeviceBuffer<uint8_t> device;
    Event done;
    bool used = false;
  };
  struct Worker {
    Stream stream;
    Slot slots[2];
    int current = 1;
    std::once_flag made;  // the slots' buffers (MakeSlots)
  };
  std::vector<std::unique_ptr<Worker>> workers;
  int device = 0;                           // the device the buffers and streams belong to
  DeviceBuffer<unsigned long long> bad{1};  // RepackRecords' first record with its flag set, ~0 if none

  // The worker's two pairs of buffers, once, on whichever thread asks first
  // (a throw leaves them to be made by the next call).
  void MakeSlots(Worker& w, std::atomic<uint64_t>& alloc_us) const {
    std::call_once(w.made, [&] {
      const auto t0 = std::chrono::steady_clock::now();
      CUZK_CUDA_CHECK(cudaSetDevice(device));
      const size_t bytes = groth16::KeyImageStream::BufferBytes();
      for (auto& slot : w.slots) {
        slot.host = RegisteredBuffer(bytes);
        slot.device = DeviceBuffer<uint8_t>(bytes);
      }
      alloc_us += uint64_t(
          std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now() - t0).count());
    });
  }
};

KeyImageUploader::KeyImageUploader(unsigned workers) : impl_(std::make_unique<Impl>()) {
  if (workers == 0 || workers > 64) throw std::invalid_argument("KeyImageUploader: 1..64 workers");
  CUZK_CUDA_CHECK(cudaGetDevice(&impl_->device));
  for (unsigned w = 0; w < workers; ++w) impl_->workers.push_back(std::make_unique<Impl::Worker>());
}

KeyImageUploader::~KeyImageUploader() = default;

unsigned KeyImageUploader::workers() const { return unsigned(impl_->workers.size()); }

void KeyImageUploader::Warm() {
  // A few threads at once: most of the cost is faulting the pages in (CPU
  // work that scales), the registrations are short (RegisteredBuffer).
  auto& workers = impl_->workers;
  std::atomic<size_t> next{0};
  std::atomic<bool> failed{false};
  auto make = [&] {
    for (size_t i = next++; i < workers.size() && !stop_warming_ && !failed; i = next++) {
      try {
        impl_->MakeSlots(*workers[i], alloc_us_);
      } catch (...) {
        cudaGetLastError();  // out of memory is not sticky; the worker that needs them reports it
        failed = true;
      }
    }
  };
  std::vector<std::thread> threads;
  // Every helper that started is joined, whatever happens below.
  struct JoinAll {
    std::vector<std::thread>& threads;
    ~JoinAll() {
      for (auto& t : threads) t.join();
    }
  } join_all{threads};
  try {
    const size_t helpers = std::min<size_t>(workers.size(), 8) - 1;
    threads.reserve(helpers);
    for (size_t t = 0; t < helpers; ++t) threads.emplace_back(make);
  } catch (const std::exception&) {
    // No more threads to be had (std::system_error): fewer helpers, or none.
  }
  make();
}

void KeyImageUploader::Upload(const groth16::KeyImageStream& image, groth16::KeySection section, void* dest,
                              size_t device_record_bytes, const std::atomic<bool>* cancel) {
  const size_t in_bytes = groth16::KeyImageStream::RecordBytes(section);
  if (section == groth16::KeySection::kHCompressed || device_record_bytes % 8 != 0 || device_record_bytes >= in_bytes ||
      in_bytes % 8 != 0) {
    throw std::invalid_argument("KeyImageUploader: device records must be a multiple of 8 below the image's");
  }
  if (groth16::KeyImageStream::FlagOffset(section) != device_record_bytes) {
    throw std::invalid_argument("KeyImageUploader: device records must end where the image's flag byte lies");
  }
  const unsigned in_words = unsigned(in_bytes / 8), out_words = unsigned(device_record_bytes / 8);
  auto* out = static_cast<uint64_t*>(dest);
  unsigned long long* bad = impl_->bad.data();
  const unsigned long long first_bad = StreamChunks(
      image, section, groth16::KeyImageStream::FlagCheck::kByCaller, cancel,
      [&](cudaStream_t stream, const uint8_t* records, size_t n, uint64_t first) {
        const unsigned threads = 256;
        const size_t blocks = std::min<size_t>((n * out_words + threads - 1) / threads, 4096);
        RepackRecords<<<unsigned(blocks), threads, 0, stream>>>(
            reinterpret_cast<const uint64_t*>(records), out + first * out_words, n, in_words, out_words, first, bad);
        CUZK_CUDA_CHECK(cudaGetLastError());
      });
  if (first_bad != kNoBadRecord) groth16::KeyImageStream::ThrowFlagSet(image.path(), section, first_bad);
}

void KeyImageUploader::UploadCompressedH(const groth16::KeyImageStream& image, AffinePoint<Fp>* dest,
                                         const std::atomic<bool>* cancel) {
  using groth16::KeySection;
  unsigned long long* bad = impl_->bad.data();
  // The host checks each record's infinity bit (a byte in 48, beside the
  // reads), which the decompression would take as a point.
  const unsigned long long first_bad = StreamChunks(
      image, KeySection::kHCompressed, groth16::KeyImageStream::FlagCheck::kHere, cancel,
      [&](cudaStream_t stream, const uint8_t* records, size_t n, uint64_t first) {
        LaunchDecompressG1(n, reinterpret_cast<const CompressedG1*>(records), dest + first, bad, stream, first);
      });
  if (first_bad != kNoBadRecord) {
    throw util::CacheError(image.path() + ": section " + groth16::KeyImageStream::Name(KeySection::kHCompressed) +
                           " point " + std::to_string(first_bad) + " is not a point of G1");
  }
}

unsigned long long KeyImageUploader::StreamChunks(const groth16::KeyImageStream& image, groth16::KeySection section,
                                                  groth16::KeyImageStream::FlagCheck flags,
                                                  const std::atomic<bool>* cancel, const ChunkKernel& kernel) {
  const size_t in_bytes = groth16::KeyImageStream::RecordBytes(section);
  auto& workers = impl_->workers;
  // The bad-record word reset on a worker's own stream and waited for: the
  // legacy stream would wait for (and be waited on by) other threads'
  // copies, such as the compact circuit's upload beside the stream.
  CUZK_CUDA_CHECK(cudaSetDevice(impl_->device));
  CUZK_CUDA_CHECK(cudaMemsetAsync(impl_->bad.data(), 0xff, sizeof(unsigned long long), workers[0]->stream.get()));
  workers[0]->stream.Synchronize();
  for (auto& w : workers) w->current = 1, w->slots[0].used = w->slots[1].used = false;
  const auto buffer = [&](unsigned id) -> std::span<uint8_t> {
    if (cancel && cancel->load()) throw std::runtime_error(image.path() + ": key image stream cancelled");
    Impl::Worker& w = *workers.at(id);
    impl_->MakeSlots(w, alloc_us_);
    w.current ^= 1;
    Impl::Slot& slot = w.slots[w.current];
    if (slot.used) slot.done.Synchronize();  // its last chunk has reached the device
    return {slot.host.data(), slot.host.size()};
  };
  const int device = impl_->device;
  const auto records = [&](unsigned id, uint64_t first, std::span<const uint8_t> bytes) {
    // The reading threads are the engine's (util::ParallelForChunks): their
    // current device is not necessarily this one, and a launch into another
    // device's stream fails.
    CUZK_CUDA_CHECK(cudaSetDevice(device));
    Impl::Worker& w = *workers.at(id);
    Impl::Slot& slot = w.slots[w.current];
    CUZK_CUDA_CHECK(
        cudaMemcpyAsync(slot.device.data(), bytes.data(), bytes.size(), cudaMemcpyHostToDevice, w.stream.get()));
    kernel(w.stream.get(), slot.device.data(), bytes.size() / in_bytes, first);
    slot.done.Record(w.stream.get());
    slot.used = true;
  };
  std::exception_ptr failed;
  try {
    image.Stream(section, unsigned(workers.size()), buffer, records, flags);
  } catch (...) {
    failed = std::current_exception();
  }
  // Every copy done before the buffers are reused or freed, failed or not.
  for (auto& w : workers) w->stream.Synchronize();
  if (failed) std::rethrow_exception(failed);
  unsigned long long bad = kNoBadRecord;
  CUZK_CUDA_CHECK(
      cudaMemcpyAsync(&bad, impl_->bad.data(), sizeof bad, cudaMemcpyDeviceToHost, workers[0]->stream.get()));
  workers[0]->stream.Synchronize();
  return bad;
}

}  // namespace cuzk::cuda
