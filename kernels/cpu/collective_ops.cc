// CPU kernels of the collective ops (graph/ops/collective_ops.h): each
// member allocates its output, submits its part to the session's
// CollectiveExecutor and returns; the executor calls it back when the group
// is complete (runtime/collective_executor.h). Asynchronous, so a member
// waiting for its peers holds no thread.
//
// The kernels find the executor through the step's CollectiveContext
// (OpKernelContext::collective_context), or, when a caller runs them without
// one, through the session's VariableStore (runtime/collective_registry.h).
#include <memory>
#include <string>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "graph/tensor.h"
#include "graph/types.h"
#include "runtime/collective_context.h"
#include "runtime/collective_executor.h"
#include "runtime/collective_registry.h"
#include "runtime/collective_roster.h"
#include "runtime/kernel_registry.h"
#include "runtime/op_kernel.h"

namespace dflow {
namespace {

class CollectiveOp : public AsyncOpKernel {
 public:
  CollectiveOp(OpKernelConstruction* ctx, CollectiveKind kind)
      : AsyncOpKernel(ctx), kind_(kind), device_(ctx->device()->name()) {
    float timeout_seconds = 0;
    std::string hint;
    for (absl::Status s : {ctx->GetAttr("group_size", &group_size_),
                           ctx->GetAttr("group_key", &group_key_),
                           ctx->GetAttr("instance_key", &instance_key_),
                           ctx->GetAttr("timeout_seconds", &timeout_seconds),
                           ctx->GetAttr("communication_hint", &hint)}) {
      if (!s.ok()) {
        ctx->SetStatus(s);
        return;
      }
    }
    // NaN and values <= 0 mean no limit (NaN > 0 is false).
    if (timeout_seconds > 0) timeout_ = absl::Seconds(timeout_seconds);
    if (kind == CollectiveKind::kAllReduce) {
      std::string reduction;
      if (absl::Status s = ctx->GetAttr("reduction", &reduction); !s.ok()) {
        ctx->SetStatus(s);
        return;
      }
      absl::StatusOr<Reduction> r = ParseReduction(reduction);
      if (!r.ok()) {
        ctx->SetStatus(r.status());
        return;
      }
      reduction_ = *r;
    }
    if (kind == CollectiveKind::kBroadcastRecv) {
      if (absl::Status s = ctx->GetAttr("shape", &recv_shape_); !s.ok()) {
        ctx->SetStatus(s);
        return;
      }
      if (!recv_shape_.IsFullyDefined()) {
        ctx->SetStatus(absl::InvalidArgumentError(absl::StrCat(
            "attr 'shape' ", recv_shape_.ToString(),
            " must be fully defined: a receiver allocates its output "
            "before the sender's tensor arrives")));
        return;
      }
    }
    node_ = ctx->name();
    StatsDetails details = {{"group_key", absl::StrCat(group_key_)},
                            {"instance_key", absl::StrCat(instance_key_)},
                            {"group_size", absl::StrCat(group_size_)}};
    if (kind == CollectiveKind::kAllReduce) {
      details.emplace_back("reduction", ReductionName(reduction_));
    }
    set_stats_details(std::move(details));
    CollectiveRoster::Global()->Declare(group_key_, instance_key_, device_,
                                        node_);
    declared_ = true;
  }

  ~CollectiveOp() override {
    if (declared_) {
      CollectiveRoster::Global()->Withdraw(group_key_, instance_key_, device_,
                                           node_);
    }
  }

  // Submitting is cheap; the collective's own work is spread over the pool
  // by the executor.
  bool IsExpensive() const override { return false; }

  void ComputeAsync(OpKernelContext* ctx, DoneCallback done) override {
    // The step's context when the session gives one; otherwise the
    // session's executor through its variables (the same executor: the
    // session builds the context from the registry too).
    std::shared_ptr<CollectiveExecutor> executor =
        ctx->collective_context() != nullptr
            ? ctx->collective_context()->shared_executor()
            : CollectiveExecutorForStore(ctx->variables(), ctx->thread_pool());
    if (executor == nullptr) {
      ctx->SetStatus(absl::FailedPreconditionError(
          "collectives run only inside a session: this kernel was given no "
          "session state (variables) to find the session's collective "
          "executor through"));
      done();
      return;
    }
    CollectiveRequest r;
    r.kind = kind_;
    r.reduction = reduction_;
    r.group_size = group_size_;
    r.group_key = group_key_;
    r.instance_key = instance_key_;
    r.step_id = ctx->step_id();
    r.timeout = timeout_;
    r.device = device_;
    r.node = node_;
    if (kind_ != CollectiveKind::kBroadcastRecv) r.input = ctx->input(0);
    TensorShape out_shape;
    switch (kind_) {
      case CollectiveKind::kAllReduce:
        out_shape = r.input.shape();
        break;
      case CollectiveKind::kAllGather:
        if (r.input.shape().rank() < 1) {
          ctx->SetStatus(absl::InvalidArgumentError(
              "all-gather concatenates along dimension 0, but the input is a "
              "scalar; reshape it to [1] first"));
          done();
          return;
        }
        out_shape = r.input.shape();
        out_shape.set_dim(0, out_shape.dim(0) * group_size_);
        break;
      case CollectiveKind::kBroadcastSend:
        // The sender's result is what it sent: no copy.
        ctx->set_output(0, r.input);
        break;
      case CollectiveKind::kBroadcastRecv:
        out_shape = recv_shape_;
        break;
    }
    if (kind_ != CollectiveKind::kBroadcastSend) {
      Tensor* out = nullptr;
      if (!ctx->allocate_output(0, out_shape, &out).ok()) {
        done();
        return;
      }
      r.output = *out;  // shares the buffer the executor writes into
    }
    // The context lives until `done` runs (the executor owns it until then).
    r.done = [ctx, done = std::move(done)](const absl::Status& s) {
      ctx->SetStatus(s);
      done();
    };
    executor->Submit(std::move(r));
  }

 private:
  const CollectiveKind kind_;
  const std::string device_;
  std::string node_;
  int64_t group_size_ = 1;
  int64_t group_key_ = 0;
  int64_t instance_key_ = 0;
  absl::Duration timeout_ = absl::InfiniteDuration();
  Reduction reduction_ = Reduction::kSum;
  TensorShape recv_shape_;
  bool declared_ = false;
};

template <CollectiveKind kKind>
class CollectiveOpOf : public CollectiveOp {
 public:
  explicit CollectiveOpOf(OpKernelConstruction* ctx)
      : CollectiveOp(ctx, kKind) {}
};

const std::vector<DataType>& Types() {
  static const auto* types =
      new std::vector<DataType>{DT_FLOAT, DT_DOUBLE, DT_INT32, DT_INT64};
  return *types;
}

DFLOW_REGISTER_KERNEL(KernelDefBuilder("CollectiveAllReduce")
                          .Device(kDeviceCpu)
                          .TypeConstraint("T", Types()),
                      CollectiveOpOf<CollectiveKind::kAllReduce>);
DFLOW_REGISTER_KERNEL(KernelDefBuilder("CollectiveAllGather")
                          .Device(kDeviceCpu)
                          .TypeConstraint("T", Types()),
                      CollectiveOpOf<CollectiveKind::kAllGather>);
DFLOW_REGISTER_KERNEL(KernelDefBuilder("CollectiveBroadcastSend")
                          .Device(kDeviceCpu)
                          .TypeConstraint("T", Types()),
                      CollectiveOpOf<CollectiveKind::kBroadcastSend>);
DFLOW_REGISTER_KERNEL(KernelDefBuilder("CollectiveBroadcastRecv")
                          .Device(kDeviceCpu)
                          .TypeConstraint("T", Types()),
                      CollectiveOpOf<CollectiveKind::kBroadcastRecv>);

}  // namespace
}  // namespace dflow
