// The accumulator behind TensorFlow's ResourceConditionalAccumulator ops
// (what SyncReplicasOptimizer aggregates replicas' gradients in), with
// TensorFlow's semantics as TensorFlow 2.21 runs them
// (tools/tf_reference/make_accumulator_reference.py):
//  - a gradient computed at a local step below the global step is stale and
//    silently dropped; the others are summed, in the order they arrive;
//  - a take waits until num_required gradients are summed, returns their
//    mean (reduction MEAN: the sum divided by the count) or sum, empties
//    the accumulator and advances the global step by one;
//  - setting the global step takes any value (also a lower one) and keeps
//    what was accumulated.
// A take that has to wait is a pending request, completed by a later
// apply's call (the kernels are AsyncOpKernels), so a waiting take never
// holds a thread an apply needs.
#ifndef DFLOW_KERNELS_CPU_DATA_FLOW_OPS_CONDITIONAL_ACCUMULATOR_H_
#define DFLOW_KERNELS_CPU_DATA_FLOW_OPS_CONDITIONAL_ACCUMULATOR_H_

#include <cstdint>
#include <functional>
#include <list>
#include <mutex>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "graph/tensor.h"
#include "graph/tensor_shape.h"
#include "graph/types.h"
#include "runtime/variables.h"

namespace dflow {

class ConditionalAccumulator : public ResourceBase {
 public:
  struct Options {
    std::string name;  // the handle op's node, for errors
    DataType dtype = DT_FLOAT;  // DT_FLOAT or DT_DOUBLE
    TensorShape shape;          // possibly partial
    bool mean = true;           // reduction_type MEAN (else SUM)
  };
  using TakeDone = std::function<void(const absl::Status&, Tensor)>;

  explicit ConditionalAccumulator(Options options);
  // Fails every take still pending (Cancelled).
  ~ConditionalAccumulator() override;

  std::string DebugString() const override;
  const Options& options() const { return options_; }

  // Adds `gradient` unless local_step is below the global step.
  // InvalidArgument for another dtype, or a shape that is not the
  // accumulator's (its `shape` attr, and the shape of what it holds).
  absl::Status Apply(int64_t local_step, const Tensor& gradient);
  // num_required >= 1 (the kernel checks).
  void Take(int32_t num_required, TakeDone done);
  int32_t NumAccumulated();
  void SetGlobalStep(int64_t step);

 private:
  struct PendingTake {
    int32_t num_required = 1;
    TakeDone done;
  };
  using Callbacks = std::vector<std::function<void()>>;
  // Completes the pending takes the count allows, in arrival order. mu_ held.
  void ServeTakes(Callbacks* callbacks);
  // The mean or sum of what is accumulated; then empties it. mu_ held.
  Tensor TakeResult();

  const Options options_;
  std::mutex mu_;
  int64_t global_step_ = 0;      // mu_
  int32_t count_ = 0;            // mu_
  Tensor sum_;                   // mu_: valid when count_ > 0
  std::list<PendingTake> takes_;  // mu_
};

}  // namespace dflow

#endif  // DFLOW_KERNELS_CPU_DATA_FLOW_OPS_CONDITIONAL_ACCUMULATOR_H_
