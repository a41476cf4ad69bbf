// The key image upload's page-locked host buffers (16 workers x 2 x 48 MiB,
// 1.5 GB a GPU) are charged to the prover's budget while they exist: the
// spares that PrepareKeyImageBuffers makes at start until the GPU's first
// load frees them, and a later load's own buffers for that load only
// (ProofRunner::KeyImageBufferBytes), and a load refused before it streams
// leaves the spare and its charge. Needs a CUDA device; skipped without.
#include <gtest/gtest.h>

#include <memory>

#include <string>

#include "cuda/groth16/cuda_backend.hpp"
#include "engine/groth16/key_image.hpp"
#include "memory/budget.hpp"
#include "prover/proof_runner.hpp"
#include "tests/gpu/gpu_skip.hpp"
#include "tests/gpu/keyed_circuit.hpp"
#include "tests/support/temp_files.hpp"

namespace cuzk::prover {
namespace {

constexpr uint64_t kSource = 0x6b657932;

class NoObserver final : public JobObserver {
 public:
  void OnJobStarted(const std::string&) override {}
  void OnPartitionStage(const std::string&, uint32_t, const PartitionStatus&) override {}
  void OnJobFinished(const std::string&, JobResult) override {}
};

TEST(KeyImageBudgetGpuTest, UploadBuffersAreChargedWhileTheyExist) {
  CUZK_REQUIRE_GPU();
  memory::Budget budget(uint64_t(64) << 30);
  NoObserver observer;
  RunnerOptions o;
  o.synthesis_threads = 1;
  o.engine_threads = 4;  // 4 reading threads on one GPU
  o.gpu_devices = {0};
  o.workers_per_device = 1;
  o.budget = &budget;
  // The loads below end with every section on the GPU: with early proving
  // the buffers' charge would go when the witness sections land, later.
  o.early_proving = false;
  ProofRunner runner(o, &observer);
  const uint64_t idle = budget.reserved();
  const uint64_t buffers = runner.KeyImageBufferBytes();
  EXPECT_EQ(buffers, uint64_t(4) * 2 * groth16::KeyImageStream::BufferBytes());

  runner.PrepareKeyImageBuffers();
  EXPECT_EQ(budget.reserved(), idle + buffers) << "the spare buffers are charged from the start";
  runner.PrepareKeyImageBuffers();
  EXPECT_EQ(budget.reserved(), idle + buffers) << "made once, charged once";

  const test::Keyed k = test::MakeKeyed(10);
  test::TempDir dir("cuzk-key-image-budget-");
  const std::string path = dir.File("k.key-image");
  groth16::WriteKeyImage(k.pk, path, kSource);
  const auto image = std::make_shared<const groth16::KeyImageStream>(path, kSource);
  groth16::ProvingKey first = image->Shell(), second = image->Shell();
  groth16::BindCircuit(first, k.circuit);
  groth16::BindCircuit(second, k.circuit);

  uint64_t grants = budget.Stats().grants;
  ASSERT_TRUE(runner.LoadKeyImage(first, image, 0));
  EXPECT_EQ(budget.Stats().grants, grants) << "the first load uses the spare's charge, no new one";
  EXPECT_EQ(budget.reserved(), idle) << "the first load took the spare and freed it, and its charge";

  // No spare left: the second load charges its own buffers, and gives the
  // charge back when they are freed.
  grants = budget.Stats().grants;
  ASSERT_TRUE(runner.LoadKeyImage(second, image, 0));
  EXPECT_EQ(budget.Stats().grants, grants + 1) << "one charge for the load's buffers";
  EXPECT_EQ(budget.reserved(), idle);
}

// The backend's side of that accounting: the spare is held from
// PrepareKeyImageBuffers until a load streams (which frees it); a load
// refused before streaming (here: no device memory allowed for bases) leaves
// it held, so its charge must stay.
TEST(KeyImageBudgetGpuTest, OnlyALoadThatStreamsFreesTheSpare) {
  CUZK_REQUIRE_GPU();
  const test::Keyed k = test::MakeKeyed(10);
  test::TempDir dir("cuzk-key-image-spare-");
  const std::string path = dir.File("k.key-image");
  groth16::WriteKeyImage(k.pk, path, kSource);
  const auto image = std::make_shared<const groth16::KeyImageStream>(path, kSource);
  groth16::ProvingKey shell = image->Shell();
  groth16::BindCircuit(shell, k.circuit);
  {
    cuda::CudaBackend refusing({.resident_bases_bytes = 0});
    EXPECT_FALSE(refusing.HoldsKeyImageSpare());
    refusing.PrepareKeyImageBuffers(2);
    EXPECT_TRUE(refusing.HoldsKeyImageSpare());
    EXPECT_FALSE(refusing.LoadKeyImage(shell, image, 0, 2)) << "no room for the bases";
    EXPECT_TRUE(refusing.HoldsKeyImageSpare()) << "a refused load leaves the spare";
  }
  cuda::CudaBackend gpu;
  gpu.PrepareKeyImageBuffers(2);
  ASSERT_TRUE(gpu.LoadKeyImage(shell, image, 0, 2));
  EXPECT_FALSE(gpu.HoldsKeyImageSpare()) << "the load took the spare and freed it";
  EXPECT_TRUE(gpu.HoldsOnDevice(shell, nullptr));
}

}  // namespace
}  // namespace cuzk::prover
