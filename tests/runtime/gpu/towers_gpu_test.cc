// The towers model (examples/mnist_towers_model.h) on two virtual GPUs of
// GPU 0 trains as on two logical CPUs: after a few steps on fixed synthetic
// data, every variable agrees with the CPU run within 1e-4 (relative), for
// both strategies (variables on /cpu:0, and mirrored variables all-reduced
// by CollectiveAllReduce, which on virtual GPUs sharing one physical GPU
// takes the GPU backend's device ring). The mirrored variables, which live
// in GPU memory, save to a checkpoint and restore into a fresh session.
// Skips without a GPU.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "examples/mnist_towers_model.h"
#include "gtest/gtest.h"
#include "runtime/saver.h"
#include "runtime/session.h"
#include "tests/runtime/gpu/gpu_test_util.h"

namespace dflow {
namespace {

constexpr int kTowers = 2;
constexpr int kPerTower = 8;
constexpr int kInput = 784;
constexpr int kSteps = 3;

// Deterministic images in [0, 1) and labels 0..9.
void FillBatch(Tensor* images, Tensor* labels) {
  int64_t i = 0;
  for (float& f : images->flat<float>()) {
    f = static_cast<float>((i++ * 7919) % 1000) / 1000.0f;
  }
  i = 0;
  for (int32_t& l : labels->flat<int32_t>()) {
    l = static_cast<int32_t>((i++ * 3) % 10);
  }
}

// The model's variables, by name.
std::vector<std::string> VariablesOf(const GraphDef& graph) {
  std::vector<std::string> names;
  for (const NodeDef& n : graph.node()) {
    if (n.op() == "VariableV2" || n.op() == "Variable") {
      names.push_back(n.name());
    }
  }
  std::sort(names.begin(), names.end());
  return names;
}

// Trains `kSteps` steps on towers of `device_type`; the variables' values
// (in VariablesOf order) afterwards.
absl::StatusOr<std::vector<Tensor>> Train(const std::string& device_type,
                                          bool all_reduce,
                                          std::vector<std::string>* names) {
  mnist::TowersModelOptions options;
  options.towers = kTowers;
  options.tower_device_type = device_type;
  options.all_reduce = all_reduce;
  absl::StatusOr<mnist::TowersModel> model = mnist::BuildTowersModel(options);
  if (!model.ok()) return model.status();
  SessionOptions session_options;
  session_options.allow_soft_placement = true;
  if (device_type == "GPU") {
    session_options.gpu_virtual_devices = kTowers;  // both on GPU 0
  } else {
    // No real GPUs in the reference run, where the machine has some.
    session_options.device_count = {{"CPU", kTowers}, {"GPU", 0}};
  }
  absl::StatusOr<std::unique_ptr<Session>> session =
      Session::Create(model->graph, session_options);
  if (!session.ok()) return session.status();
  std::vector<Tensor> out;
  if (absl::Status s = (*session)->Run({}, {}, {"init"}, &out); !s.ok()) {
    return s;
  }
  Tensor images(DT_FLOAT, TensorShape({kTowers * kPerTower, kInput}));
  Tensor labels(DT_INT32, TensorShape({kTowers * kPerTower}));
  FillBatch(&images, &labels);
  for (int step = 0; step < kSteps; ++step) {
    if (absl::Status s = (*session)->Run({{"x", images}, {"labels", labels}},
                                         {}, {model->train_op}, &out);
        !s.ok()) {
      return s;
    }
  }
  *names = VariablesOf(model->graph);
  if (absl::Status s = (*session)->Run({}, *names, {}, &out); !s.ok()) {
    return s;
  }
  return out;
}

void ExpectGpuTrainsAsCpu(bool all_reduce) {
  std::vector<std::string> cpu_names, gpu_names;
  absl::StatusOr<std::vector<Tensor>> cpu =
      Train("CPU", all_reduce, &cpu_names);
  ASSERT_TRUE(cpu.ok()) << cpu.status();
  absl::StatusOr<std::vector<Tensor>> gpu =
      Train("GPU", all_reduce, &gpu_names);
  ASSERT_TRUE(gpu.ok()) << gpu.status();
  ASSERT_EQ(cpu_names, gpu_names);
  ASSERT_FALSE(cpu_names.empty());
  ASSERT_EQ(cpu->size(), gpu->size());
  for (size_t v = 0; v < cpu->size(); ++v) {
    const Tensor& c = (*cpu)[v];
    const Tensor& g = (*gpu)[v];
    ASSERT_EQ(c.shape(), g.shape()) << cpu_names[v];
    ASSERT_EQ(c.dtype(), g.dtype()) << cpu_names[v];
    if (c.dtype() == DT_INT64) {  // the global step: exact
      for (int64_t i = 0; i < c.NumElements(); ++i) {
        EXPECT_EQ(c.flat<int64_t>()[i], g.flat<int64_t>()[i]) << cpu_names[v];
      }
      continue;
    }
    if (c.dtype() != DT_FLOAT) continue;
    auto cf = c.flat<float>();
    auto gf = g.flat<float>();
    int64_t reported = 0;
    for (int64_t i = 0; i < c.NumElements(); ++i) {
      // Relative; absolute for values below 1 (weights near zero).
      const float tol = 1e-4f * std::max(1.0f, std::fabs(cf[i]));
      if (std::fabs(cf[i] - gf[i]) > tol && reported++ < 5) {
        ADD_FAILURE() << cpu_names[v] << "[" << i << "]: CPU " << cf[i]
                      << ", GPU " << gf[i];
      }
    }
  }
}

TEST(TowersGpuTest, VariablesOnTheCpuTrainAsOnTwoCpus) {
  DFLOW_SKIP_WITHOUT_GPU();
  ExpectGpuTrainsAsCpu(/*all_reduce=*/false);
}

TEST(TowersGpuTest, AllReducedReplicasTrainAsOnTwoCpus) {
  DFLOW_SKIP_WITHOUT_GPU();
  ExpectGpuTrainsAsCpu(/*all_reduce=*/true);
}

}  // namespace
}  // namespace dflow

namespace dflow {
namespace {

// Bitwise equality of two lists of tensors of one graph's variables.
void ExpectSameValues(const std::vector<Tensor>& want,
                      const std::vector<Tensor>& got,
                      const std::vector<std::string>& names) {
  ASSERT_EQ(want.size(), got.size());
  for (size_t v = 0; v < want.size(); ++v) {
    ASSERT_EQ(want[v].shape(), got[v].shape()) << names[v];
    ASSERT_EQ(want[v].TotalBytes(), got[v].TotalBytes()) << names[v];
    EXPECT_EQ(std::memcmp(want[v].raw_data(), got[v].raw_data(),
                          want[v].TotalBytes()),
              0)
        << names[v];
  }
}

TEST(TowersGpuTest, ReplicasInGpuMemorySaveAndRestore) {
  DFLOW_SKIP_WITHOUT_GPU();
  mnist::TowersModelOptions options;
  options.towers = kTowers;
  options.tower_device_type = "GPU";
  options.all_reduce = true;
  absl::StatusOr<mnist::TowersModel> model = mnist::BuildTowersModel(options);
  ASSERT_TRUE(model.ok()) << model.status();
  SessionOptions session_options;
  session_options.allow_soft_placement = true;
  session_options.gpu_virtual_devices = kTowers;
  Tensor images(DT_FLOAT, TensorShape({kTowers * kPerTower, kInput}));
  Tensor labels(DT_INT32, TensorShape({kTowers * kPerTower}));
  FillBatch(&images, &labels);
  const std::vector<std::string> names = VariablesOf(model->graph);
  absl::StatusOr<Saver> saver = Saver::Create(model->graph);
  ASSERT_TRUE(saver.ok()) << saver.status();

  absl::StatusOr<std::unique_ptr<Session>> trained =
      Session::Create(model->graph, session_options);
  ASSERT_TRUE(trained.ok()) << trained.status();
  std::vector<Tensor> out;
  ASSERT_TRUE((*trained)->Run({}, {}, {"init"}, &out).ok());
  ASSERT_TRUE((*trained)
                  ->Run({{"x", images}, {"labels", labels}}, {},
                        {model->train_op}, &out)
                  .ok());
  std::vector<Tensor> want;
  ASSERT_TRUE((*trained)->Run({}, names, {}, &want).ok());
  absl::StatusOr<std::string> path =
      saver->Save(trained->get(),
                  absl::StrCat(::testing::TempDir(), "/towers_gpu/model"), 1);
  ASSERT_TRUE(path.ok()) << path.status();

  // Restored before any initializer: the values reach the variables as host
  // tensors, and the GPU variable ops move them into GPU memory.
  absl::StatusOr<std::unique_ptr<Session>> restored =
      Session::Create(model->graph, session_options);
  ASSERT_TRUE(restored.ok()) << restored.status();
  absl::Status s = saver->Restore(restored->get(), *path);
  ASSERT_TRUE(s.ok()) << s;
  std::vector<Tensor> got;
  ASSERT_TRUE((*restored)->Run({}, names, {}, &got).ok());
  ExpectSameValues(want, got, names);

  // Both sessions take the same next step (to rounding: GPU reductions
  // need not sum in the same order twice).
  for (Session* session : {trained->get(), restored->get()}) {
    s = session->Run({{"x", images}, {"labels", labels}}, {}, {model->train_op},
                     &out);
    ASSERT_TRUE(s.ok()) << s;
  }
  ASSERT_TRUE((*trained)->Run({}, names, {}, &want).ok());
  ASSERT_TRUE((*restored)->Run({}, names, {}, &got).ok());
  ASSERT_EQ(want.size(), got.size());
  for (size_t v = 0; v < want.size(); ++v) {
    if (want[v].dtype() != DT_FLOAT) continue;
    auto w = want[v].flat<float>();
    auto g = got[v].flat<float>();
    ASSERT_EQ(w.size(), g.size()) << names[v];
    int64_t reported = 0;
    for (size_t i = 0; i < w.size(); ++i) {
      const float tol = 1e-5f * std::max(1.0f, std::fabs(w[i]));
      if (std::fabs(w[i] - g[i]) > tol && reported++ < 5) {
        ADD_FAILURE() << names[v] << "[" << i << "]: " << w[i] << " vs "
                      << g[i];
      }
    }
  }
}

}  // namespace
}  // namespace dflow
