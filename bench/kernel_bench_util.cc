#include "bench/kernel_bench_util.h"

#include <functional>
#include <map>
#include <memory>
#include <random>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "graph/device_spec.h"
#include "runtime/kernel_registry.h"
#include "runtime/thread_pool.h"

namespace dflow {
namespace bench {

Tensor RandomTensor(const TensorShape& shape, uint32_t seed) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> dist(-1, 1);
  std::vector<float> v(shape.num_elements());
  for (float& x : v) x = dist(gen);
  return Tensor::FromVector<float>(v, shape);
}

Tensor ShapeTensor(const TensorShape& shape) {
  std::vector<int32_t> v;
  for (int64_t d : shape.dims()) v.push_back(static_cast<int32_t>(d));
  return Tensor::FromVector<int32_t>(v);
}

Device* DeviceWithThreads(int threads) {
  static auto* devices = new std::map<int, Device*>();
  Device*& d = (*devices)[threads];
  if (d == nullptr) {
    d = new Device(DeviceSpec::LocalDevice("CPU", 0), ProcessAllocator("CPU:0"),
                   new ThreadPool(threads));
  }
  return d;
}

namespace {

// Runs `node`'s kernel on `inputs` until `each`, called with every run's
// context, returns false.
absl::Status RunKernel(const Node& node, Device* device,
                       std::vector<TensorValue>& inputs,
                       const std::function<bool(OpKernelContext&)>& each) {
  absl::StatusOr<std::unique_ptr<OpKernel>> kernel =
      KernelRegistry::Global()->CreateKernel(node, device);
  if (!kernel.ok()) return kernel.status();
  VariableStore store;
  OpKernelContext::Params params;
  params.kernel = kernel->get();
  params.device = device;
  params.variables = &store;
  params.inputs = inputs.data();
  for (;;) {
    OpKernelContext ctx(params);
    (*kernel)->Compute(&ctx);
    if (!ctx.status().ok()) return ctx.status();
    if (!each(ctx)) return absl::OkStatus();
  }
}

}  // namespace

void TimeKernel(benchmark::State& state, const Node& node, Device* device,
                std::vector<TensorValue>& inputs) {
  if (!state.KeepRunning()) return;
  absl::Status s = RunKernel(node, device, inputs, [&](OpKernelContext& ctx) {
    benchmark::DoNotOptimize((*ctx.outputs())[0].tensor.raw_data());
    return state.KeepRunning();
  });
  if (!s.ok()) state.SkipWithError(std::string(s.message()).c_str());
}

bool ComputeOnce(const Node& node, Device* device,
                 std::vector<TensorValue>& inputs, Tensor* out) {
  return RunKernel(node, device, inputs,
                   [&](OpKernelContext& ctx) {
                     *out = (*ctx.outputs())[0].tensor;
                     return false;
                   })
      .ok();
}

}  // namespace bench
}  // namespace dflow
