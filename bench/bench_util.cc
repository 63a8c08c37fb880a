// See bench_util.h.
#include "bench/bench_util.h"

#include <chrono>
#include <cstdint>
#include <utility>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace dflow {
namespace bench {
namespace {

void Skip(benchmark::State& state, const absl::Status& s) {
  state.SkipWithError(std::string(s.message()).c_str());
}

}  // namespace

std::unique_ptr<Session> MakeSessionOrSkip(benchmark::State& state,
                                           const Scope& root,
                                           const SessionOptions& options) {
  GraphDef def;
  if (absl::Status s = root.ToGraphDef(&def); !s.ok()) {
    Skip(state, s);
    return nullptr;
  }
  absl::StatusOr<std::unique_ptr<Session>> session = Session::Create(def, options);
  if (!session.ok()) {
    Skip(state, session.status());
    return nullptr;
  }
  return *std::move(session);
}

bool RunOnceOrSkip(benchmark::State& state, Session* session,
                   const std::vector<std::string>& targets) {
  if (session == nullptr) return false;
  if (absl::Status s = session->Run({}, {}, targets, nullptr); !s.ok()) {
    Skip(state, s);
    return false;
  }
  return true;
}

double RunSteps(benchmark::State& state, Session* session,
                const FeedList& feeds, const std::vector<std::string>& fetches,
                const std::vector<std::string>& targets) {
  if (session == nullptr) return 0;  // MakeSessionOrSkip said why
  std::vector<Tensor> out;
  absl::Status s;
  for (int warm = 0; warm < 10 && s.ok(); ++warm) {
    s = session->Run(feeds, fetches, targets, &out);
  }
  if (!s.ok()) {
    Skip(state, s);
    return 0;
  }
  const auto start = std::chrono::steady_clock::now();
  for (auto _ : state) {
    s = session->Run(feeds, fetches, targets, &out);
    if (!s.ok()) {
      Skip(state, s);
      break;  // Google Benchmark's rule after SkipWithError in the loop
    }
    benchmark::DoNotOptimize(out);
  }
  const std::chrono::duration<double, std::micro> elapsed =
      std::chrono::steady_clock::now() - start;
  return state.iterations() > 0 ? elapsed.count() / state.iterations() : 0;
}

void FillTrainingBatch(Tensor* images, Tensor* labels) {
  int64_t i = 0;
  for (float& f : images->flat<float>()) {
    f = static_cast<float>((i++ * 7919) % 1000) / 1000.0f;
  }
  i = 0;
  for (int32_t& l : labels->flat<int32_t>()) l = static_cast<int32_t>(i++ % 10);
}

}  // namespace bench
}  // namespace dflow
