// Helpers for the benchmarks that time one kernel as the executor runs it
// (conv_bench, cnn_ops_bench): random inputs, a CPU device with a pool of
// a given size, and the timing loop (outputs allocated every run), turning
// any error into a skipped benchmark with the kernel's message.
#ifndef DFLOW_BENCH_KERNEL_BENCH_UTIL_H_
#define DFLOW_BENCH_KERNEL_BENCH_UTIL_H_

#include <cstdint>
#include <vector>

#include "benchmark/benchmark.h"
#include "graph/graph.h"
#include "graph/tensor.h"
#include "runtime/device.h"
#include "runtime/op_kernel.h"

namespace dflow {
namespace bench {

// Floats uniform in [-1, 1) from `seed`.
Tensor RandomTensor(const TensorShape& shape, uint32_t seed);

// The int32 vector of `shape`'s dimensions (a Conv2DBackprop* size input).
Tensor ShapeTensor(const TensorShape& shape);

// A CPU device computing on a pool of `threads` threads (kept for the
// process's lifetime, like the shared pool).
Device* DeviceWithThreads(int threads);

// Creates `node`'s kernel on `device` and runs it with `inputs` as often
// as the benchmark asks; on error marks `state` skipped with the message.
void TimeKernel(benchmark::State& state, const Node& node, Device* device,
                std::vector<TensorValue>& inputs);

// Runs `node`'s kernel once on `inputs` and keeps its first output in
// `*out` (a benchmark's input computed by another op); false on error.
bool ComputeOnce(const Node& node, Device* device,
                 std::vector<TensorValue>& inputs, Tensor* out);

}  // namespace bench
}  // namespace dflow

#endif  // DFLOW_BENCH_KERNEL_BENCH_UTIL_H_
