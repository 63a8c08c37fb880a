// Helpers shared by the benchmarks that time whole steps through
// Session::Run (executor_bench, training_bench): build a session from a
// builder Scope and time a step, turning any error into a skipped
// benchmark with the session's message instead of a crash or a silently
// fast figure. The thread count is the process-wide pool's: set
// DFLOW_NUM_THREADS before the binary starts.
#ifndef DFLOW_BENCH_BENCH_UTIL_H_
#define DFLOW_BENCH_BENCH_UTIL_H_

#include <memory>
#include <string>
#include <vector>

#include "benchmark/benchmark.h"
#include "graph/scope.h"
#include "graph/tensor.h"
#include "runtime/session.h"

namespace dflow {
namespace bench {

// A session over `root`'s graph; on error marks `state` skipped with the
// message and returns nullptr (RunSteps then does nothing).
std::unique_ptr<Session> MakeSessionOrSkip(
    benchmark::State& state, const Scope& root,
    const SessionOptions& options = SessionOptions());

// Runs `targets` once (e.g. the variables' initializer) before timing;
// false (and `state` skipped) on error.
bool RunOnceOrSkip(benchmark::State& state, Session* session,
                   const std::vector<std::string>& targets);

// Runs the step (feeds, fetches, targets) as often as the benchmark asks
// and returns the mean wall-clock microseconds per step (0 when skipped).
// Ten untimed steps come first: they compile the plan and let the executor
// measure its nodes (it times them in its first 8 steps).
double RunSteps(benchmark::State& state, Session* session,
                const FeedList& feeds, const std::vector<std::string>& fetches,
                const std::vector<std::string>& targets = {});

// The fixed training batch of the MLP benchmarks, the same values as
// torch_peer.py's mlp_train: pixels ((i * 7919) mod 1000) / 1000 in [0, 1),
// labels i mod 10.
void FillTrainingBatch(Tensor* images, Tensor* labels);

}  // namespace bench
}  // namespace dflow

#endif  // DFLOW_BENCH_BENCH_UTIL_H_
