// The TensorFlow-written corpus (tests/testdata/tf_corpus) on a real GPU:
// every graph initializes and trains its steps with soft placement on GPU 0
// (two virtual GPUs of it for the two-tower graphs, which name /gpu:0 and
// /gpu:1), with TensorFlow's losses within 1e-4 relative (the GPU kernels
// sum in other orders than the CPU ones TensorFlow's reference ran on), and
// the graph's math runs on the GPU: each graph's last step ran nodes there.
// Reads the corpus from tests/testdata/tf_corpus relative to the working
// directory (Bazel's runfiles root, or the repository root where
// tools/gpu_device_check.sh runs the bundle). Skips without a GPU.
#include <algorithm>
#include <cmath>
#include <iostream>
#include <map>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "gtest/gtest.h"
#include "runtime/session.h"
#include "tests/runtime/gpu/gpu_test_util.h"
#include "tests/tf_corpus/corpus_reference.h"
#include "tests/tf_corpus/corpus_training.h"

namespace dflow {
namespace {

constexpr double kRelativeTolerance = 1e-4;

TEST(TfCorpusGpuTest, TrainsEveryGraphWithTensorFlowsLossesOnTheGpu) {
  DFLOW_SKIP_WITHOUT_GPU();
  absl::StatusOr<std::vector<CorpusReference>> corpus = ReadCorpus();
  ASSERT_TRUE(corpus.ok()) << corpus.status();
  ASSERT_GE(corpus->size(), 20u);
  int trained = 0;
  for (const CorpusReference& ref : *corpus) {
    SCOPED_TRACE(ref.name);
    SessionOptions options;
    options.allow_soft_placement = true;
    options.gpu_allow_growth = true;
    if (ref.towers > 1) options.gpu_virtual_devices = ref.towers;
    CorpusStepStats stats;
    absl::StatusOr<std::vector<double>> losses =
        TrainCorpusGraph(ref, options, &stats);
    EXPECT_TRUE(losses.ok()) << losses.status();
    if (!losses.ok()) continue;
    ASSERT_EQ(losses->size(), static_cast<size_t>(ref.steps));
    double worst = 0;
    for (int i = 0; i < ref.steps; ++i) {
      const double relative =
          std::abs((*losses)[i] - ref.losses[i]) /
          std::max(std::abs(ref.losses[i]), 1e-30);
      worst = std::max(worst, relative);
      EXPECT_LE(relative, kRelativeTolerance)
          << "step " << i + 1 << ": dflow " << (*losses)[i] << ", TensorFlow "
          << ref.losses[i];
    }
    if (ref.steps == 0) continue;
    ++trained;
    std::map<std::string, int> nodes_per_device;
    for (const NodeExecStats& s : stats.last_step.step_stats) {
      const size_t at = s.device.rfind("device:");
      ++nodes_per_device[at == std::string::npos ? s.device
                                                 : s.device.substr(at + 7)];
    }
    int on_gpus = 0;
    std::vector<std::string> counts;
    for (const auto& [device, n] : nodes_per_device) {
      if (absl::StartsWith(device, "GPU")) on_gpus += n;
      counts.push_back(absl::StrCat(device, " ", n));
    }
    std::cout << ref.name << ": " << ref.steps
              << " steps, worst loss difference " << worst
              << " (relative); last step's nodes: "
              << absl::StrJoin(counts, ", ") << "\n";
    EXPECT_GT(on_gpus, 0) << "nothing of the training step ran on a GPU";
  }
  std::cout << trained << " of " << corpus->size()
            << " graphs trained on the GPU with TensorFlow's losses\n";
  EXPECT_GT(trained, 0);
}

}  // namespace
}  // namespace dflow
