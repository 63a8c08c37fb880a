#include "runtime/loop_path_tuner.h"

#include <algorithm>

namespace dflow {

const char* LoopPathName(LoopPath path) {
  switch (path) {
    case LoopPath::kUsual:
      return "usual";
    case LoopPath::kSerial:
      return "serial";
    case LoopPath::kSerialOneThread:
      return "serial on one thread";
    case LoopPath::kOneThread:
      return "one thread";
  }
  return "?";
}

LoopPath LoopPathTuner::Next(bool* timed) {
  std::lock_guard<std::mutex> lock(mu_);
  *timed = false;
  if (decided_) return chosen_;
  const int n = handed_out_++;
  if (n < kWarmups) return LoopPath::kUsual;
  // Trials go round the paths; one whose step failed (or whose tuned loops
  // all turned out dead) never reports, and its path is tried again.
  *timed = true;
  return static_cast<LoopPath>((n - kWarmups) % kPaths);
}

void LoopPathTuner::Record(LoopPath path, int64_t nanos, int64_t iterations) {
  std::lock_guard<std::mutex> lock(mu_);
  if (decided_) return;
  const double per_iteration =
      static_cast<double>(nanos) / std::max<int64_t>(1, iterations);
  double& best = best_[static_cast<int>(path)];
  if (best < 0 || per_iteration < best) best = per_iteration;
  ++recorded_;
  if (recorded_ < kPaths * kTrialsPerPath) return;
  for (double b : best_) {
    if (b < 0) return;  // a path still untried
  }
  decided_ = true;
  // Ties keep the earlier path: the usual one, then the one that keeps
  // the pool's threads available to the kernels.
  int fastest = 0;
  for (int p = 1; p < kPaths; ++p) {
    if (best_[p] < best_[fastest]) fastest = p;
  }
  chosen_ = static_cast<LoopPath>(fastest);
}

bool LoopPathTuner::decided() const {
  std::lock_guard<std::mutex> lock(mu_);
  return decided_;
}

LoopPath LoopPathTuner::chosen() const {
  std::lock_guard<std::mutex> lock(mu_);
  return chosen_;
}

}  // namespace dflow
