#include "kernels/cpu/data_flow_ops_conditional_accumulator.h"

#include <cstring>
#include <utility>

#include "absl/strings/str_cat.h"

namespace dflow {
namespace {

template <typename T>
void AddInto(const Tensor& gradient, Tensor* sum) {
  const T* g = gradient.data<T>();
  T* s = sum->data<T>();
  const int64_t n = sum->NumElements();
  for (int64_t i = 0; i < n; ++i) s[i] += g[i];
}

template <typename T>
void DivideBy(int32_t count, Tensor* sum) {
  T* s = sum->data<T>();
  const T divisor = static_cast<T>(count);
  const int64_t n = sum->NumElements();
  for (int64_t i = 0; i < n; ++i) s[i] /= divisor;
}

void RunAll(std::vector<std::function<void()>>& callbacks) {
  for (auto& callback : callbacks) callback();
}

}  // namespace

ConditionalAccumulator::ConditionalAccumulator(Options options)
    : options_(std::move(options)) {}

ConditionalAccumulator::~ConditionalAccumulator() {
  Callbacks callbacks;
  {
    std::lock_guard<std::mutex> lock(mu_);
    const absl::Status gone = absl::CancelledError(
        absl::StrCat(DebugString(), " was destroyed (its session closed)"));
    for (PendingTake& t : takes_) {
      callbacks.push_back(
          [done = std::move(t.done), gone] { done(gone, Tensor()); });
    }
    takes_.clear();
  }
  RunAll(callbacks);
}

std::string ConditionalAccumulator::DebugString() const {
  return absl::StrCat("ConditionalAccumulator '", options_.name, "'");
}

absl::Status ConditionalAccumulator::Apply(int64_t local_step,
                                           const Tensor& gradient) {
  if (gradient.dtype() != options_.dtype) {
    return absl::InvalidArgumentError(absl::StrCat(
        DebugString(), " accumulates ", DataTypeName(options_.dtype),
        " gradients, got a ", DataTypeName(gradient.dtype()), " one"));
  }
  Callbacks callbacks;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (local_step < global_step_) return absl::OkStatus();  // stale
    const TensorShape& expected = count_ > 0 ? sum_.shape() : options_.shape;
    if (!expected.IsCompatibleWith(gradient.shape())) {
      return absl::InvalidArgumentError(absl::StrCat(
          "Shape mismatch: expected ", expected.ToString(), ", got ",
          gradient.shape().ToString(), " (", DebugString(),
          "; every gradient applied to it needs one shape)"));
    }
    if (count_ == 0) {
      sum_ = Tensor(gradient.dtype(), gradient.shape());  // a copy to own
      std::memcpy(sum_.raw_data(), gradient.raw_data(), gradient.TotalBytes());
    } else if (options_.dtype == DT_FLOAT) {
      AddInto<float>(gradient, &sum_);
    } else {
      AddInto<double>(gradient, &sum_);
    }
    ++count_;
    ServeTakes(&callbacks);
  }
  RunAll(callbacks);
  return absl::OkStatus();
}

void ConditionalAccumulator::Take(int32_t num_required, TakeDone done) {
  Callbacks callbacks;
  {
    std::lock_guard<std::mutex> lock(mu_);
    takes_.push_back(PendingTake{num_required, std::move(done)});
    ServeTakes(&callbacks);
  }
  RunAll(callbacks);
}

int32_t ConditionalAccumulator::NumAccumulated() {
  std::lock_guard<std::mutex> lock(mu_);
  return count_;
}

void ConditionalAccumulator::SetGlobalStep(int64_t step) {
  std::lock_guard<std::mutex> lock(mu_);
  global_step_ = step;
}

void ConditionalAccumulator::ServeTakes(Callbacks* callbacks) {
  while (!takes_.empty() && count_ >= takes_.front().num_required) {
    Tensor result = TakeResult();
    callbacks->push_back(
        [done = std::move(takes_.front().done), result = std::move(result)] {
          done(absl::OkStatus(), result);
        });
    takes_.pop_front();
  }
}

Tensor ConditionalAccumulator::TakeResult() {
  if (options_.mean) {
    if (options_.dtype == DT_FLOAT) {
      DivideBy<float>(count_, &sum_);
    } else {
      DivideBy<double>(count_, &sum_);
    }
  }
  Tensor result = std::move(sum_);
  sum_ = Tensor();
  count_ = 0;
  ++global_step_;
  return result;
}

}  // namespace dflow
