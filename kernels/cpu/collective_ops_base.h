// The collective kernels' classes, shared by the CPU kernels
// (collective_ops.cc, which describes them) and the GPU ones
// (kernels/gpu/collective_kernels_gpu.cc): the request each member builds
// (keys, attrs, the kernel device type and device that pick the backend),
// submitting with phases, output allocation and the fused all-reduce's
// pack/unpack. Outputs come from the kernel's device allocator, so on a
// GPU they are device memory; the only device-specific part is how the
// fused op copies bytes (FusedAllReduceOp::CopyBytes).
#ifndef DFLOW_KERNELS_CPU_COLLECTIVE_OPS_BASE_H_
#define DFLOW_KERNELS_CPU_COLLECTIVE_OPS_BASE_H_

#include <algorithm>
#include <cstring>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "graph/ops/collective_ops.h"
#include "graph/tensor.h"
#include "graph/types.h"
#include "runtime/collective_context.h"
#include "runtime/collective_executor.h"
#include "runtime/collective_registry.h"
#include "runtime/collective_roster.h"
#include "runtime/device.h"
#include "runtime/op_kernel.h"

namespace dflow {
namespace collective_kernels {

// The phase a member's share of the work is reported as.
inline const char* WorkPhase(CollectiveKind kind) {
  switch (kind) {
    case CollectiveKind::kAllReduce:
      return "reduce";
    case CollectiveKind::kAllGather:
      return "gather";
    case CollectiveKind::kBroadcastSend:
    case CollectiveKind::kBroadcastRecv:
      return "broadcast";
  }
  return "collective";
}

// What every collective kernel shares: the attrs read once when built, the
// executor found at run time, and submitting with phases.
class CollectiveKernel : public AsyncOpKernel {
 public:
  CollectiveKernel(OpKernelConstruction* ctx, CollectiveKind kind)
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
    // The schema's shape function checked it at import; kernels built from
    // graphs that skipped shape inference check again, since an invalid
    // value (NaN, 1e-30) used to mean a wait without end.
    if (absl::Status s = CheckCollectiveTimeout(timeout_seconds); !s.ok()) {
      ctx->SetStatus(s);
      return;
    }
    timeout_ = absl::Seconds(timeout_seconds);
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
    // In a cluster, the master names every member's device and its session
    // (runtime/cross_process_collectives.h); absent in one process.
    if (ctx->node().FindAttr("_group_devices") != nullptr) {
      for (absl::Status s : {ctx->GetAttr("_group_devices", &group_devices_),
                             ctx->GetAttr("_group_session", &group_session_)}) {
        if (!s.ok()) {
          ctx->SetStatus(s);
          return;
        }
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

  ~CollectiveKernel() override {
    if (declared_) {
      CollectiveRoster::Global()->Withdraw(group_key_, instance_key_, device_,
                                           node_);
    }
  }

  // Submitting is cheap; the collective's own work is spread over the pool
  // by the executor.
  bool IsExpensive() const override { return false; }

 protected:
  using MemberDone = std::function<void(const absl::Status&)>;

  // The step's context when the session gives one; otherwise the session's
  // executor through its variables (the same executor: the session builds
  // the context from the registry too). Null, with the status set, when
  // there is none.
  static std::shared_ptr<CollectiveExecutor> ExecutorFor(OpKernelContext* ctx) {
    std::shared_ptr<CollectiveExecutor> executor =
        ctx->collective_context() != nullptr
            ? ctx->collective_context()->shared_executor()
            : CollectiveExecutorForStore(ctx->variables(), ctx->thread_pool());
    if (executor == nullptr) {
      ctx->SetStatus(absl::FailedPreconditionError(
          "collectives run only inside a session: this kernel was given no "
          "session state (variables) to find the session's collective "
          "executor through"));
    }
    return executor;
  }

  // This member's request, keys and attrs filled in.
  CollectiveRequest NewRequest(OpKernelContext* ctx) const {
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
    // Where the tensors live, which picks the backend running the group
    // (runtime/collective_backend.h): host memory for CPUs and fake GPUs,
    // device memory for the kernels of real GPUs.
    r.kernel_device_type = ctx->device()->kernel_device_type();
    r.device_object = ctx->device();
    r.group_devices = group_devices_;
    r.group_session = group_session_;
    return r;
  }

  // Submits `r`; `then` runs with the outcome once the collective is done.
  // In steps recording stats, the "wait" and work phases are recorded
  // first (the executor writes the times before calling back).
  void Submit(OpKernelContext* ctx, CollectiveExecutor* executor,
              CollectiveRequest r, MemberDone then) const {
    if (!ctx->records_phases()) {
      r.done = std::move(then);
      executor->Submit(std::move(r));
      return;
    }
    auto timing = std::make_shared<CollectiveTiming>();
    r.timing = timing.get();
    const absl::Time submit = absl::Now();
    r.done = [ctx, timing, submit, work = WorkPhase(kind_),
              then = std::move(then)](const absl::Status& s) {
      if (s.ok()) {
        // Clamped, so the phases stay in order should the clock step back.
        const absl::Time complete = std::max(submit, timing->group_complete);
        ctx->RecordPhase("wait", submit, complete);
        ctx->RecordPhase(work, complete, std::max(complete, timing->work_end));
      }
      then(s);
    };
    executor->Submit(std::move(r));
  }

  CollectiveKind kind() const { return kind_; }
  int64_t group_size() const { return group_size_; }

 private:
  const CollectiveKind kind_;
  const std::string device_;
  std::string node_;
  int64_t group_size_ = 1;
  int64_t group_key_ = 0;
  std::vector<std::string> group_devices_;
  std::string group_session_;
  int64_t instance_key_ = 0;
  absl::Duration timeout_ = absl::InfiniteDuration();
  Reduction reduction_ = Reduction::kSum;
  bool declared_ = false;
};

// CollectiveAllReduce, CollectiveAllGather, CollectiveBroadcastSend and
// CollectiveBroadcastRecv: one tensor per member.
class CollectiveOp : public CollectiveKernel {
 public:
  CollectiveOp(OpKernelConstruction* ctx, CollectiveKind kind)
      : CollectiveKernel(ctx, kind) {
    if (!ctx->status().ok() || kind != CollectiveKind::kBroadcastRecv) return;
    if (absl::Status s = ctx->GetAttr("shape", &recv_shape_); !s.ok()) {
      ctx->SetStatus(s);
      return;
    }
    if (!recv_shape_.IsFullyDefined()) {
      ctx->SetStatus(absl::InvalidArgumentError(absl::StrCat(
          "attr 'shape' ", recv_shape_.ToString(),
          " must be fully defined: a receiver allocates its output "
          "before the sender's tensor arrives")));
    }
  }

  void ComputeAsync(OpKernelContext* ctx, DoneCallback done) override {
    std::shared_ptr<CollectiveExecutor> executor = ExecutorFor(ctx);
    if (executor == nullptr) {
      done();
      return;
    }
    CollectiveRequest r = NewRequest(ctx);
    if (kind() != CollectiveKind::kBroadcastRecv) r.input = ctx->input(0);
    TensorShape out_shape;
    switch (kind()) {
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
        out_shape.set_dim(0, out_shape.dim(0) * group_size());
        break;
      case CollectiveKind::kBroadcastSend:
        // The sender's result is what it sent: no copy.
        ctx->set_output(0, r.input);
        break;
      case CollectiveKind::kBroadcastRecv:
        out_shape = recv_shape_;
        break;
    }
    if (kind() != CollectiveKind::kBroadcastSend) {
      Tensor* out = nullptr;
      if (!ctx->allocate_output(0, out_shape, &out).ok()) {
        done();
        return;
      }
      r.output = *out;  // shares the buffer the executor writes into
    }
    // The context lives until `done` runs (the executor owns it until then).
    Submit(ctx, executor.get(), std::move(r),
           [ctx, done = std::move(done)](const absl::Status& s) {
             ctx->SetStatus(s);
             done();
           });
  }

 private:
  TensorShape recv_shape_;
};

// _FusedCollectiveAllReduce (compiler/tensor_fusion.h): N tensors packed
// into one buffer, one all-reduce of it, the result copied back out. Only
// the packed buffer's parts (their shapes) tell members apart from an
// all-reduce of one tensor of that size, so the request carries them and
// members that packed differently fail instead of mixing their tensors.
class FusedAllReduceOp : public CollectiveKernel {
 public:
  explicit FusedAllReduceOp(OpKernelConstruction* ctx)
      : CollectiveKernel(ctx, CollectiveKind::kAllReduce) {
    if (!ctx->status().ok()) return;
    StatsDetails details = stats_details();
    details.emplace_back("tensors", absl::StrCat(num_inputs()));
    set_stats_details(std::move(details));
  }

  void ComputeAsync(OpKernelContext* ctx, DoneCallback done) override {
    std::shared_ptr<CollectiveExecutor> executor = ExecutorFor(ctx);
    if (executor == nullptr) {
      done();
      return;
    }
    const bool timed = ctx->records_phases();
    const absl::Time pack_start = timed ? absl::Now() : absl::Time();
    const int n = num_inputs();
    const DataType dtype = input_type(0);
    const size_t element_bytes = DataTypeSize(dtype);
    CollectiveRequest r = NewRequest(ctx);
    r.parts.reserve(n);
    int64_t total = 0;
    for (int i = 0; i < n; ++i) {
      r.parts.push_back(ctx->input(i).shape());
      total += ctx->input(i).NumElements();
    }
    Tensor packed;
    Tensor result;
    if (!ctx->allocate_temp(dtype, TensorShape({total}), &packed).ok() ||
        !ctx->allocate_temp(dtype, TensorShape({total}), &result).ok()) {
      done();
      return;
    }
    char* dst = static_cast<char*>(packed.raw_data());
    for (int i = 0; i < n; ++i) {
      const Tensor& in = ctx->input(i);
      if (in.NumElements() == 0) continue;
      const size_t bytes = in.NumElements() * element_bytes;
      if (absl::Status s = CopyBytes(ctx, dst, in.raw_data(), bytes); !s.ok()) {
        ctx->SetStatus(s);
        done();
        return;
      }
      dst += bytes;
    }
    if (timed) {
      ctx->RecordPhase("pack", pack_start, absl::Now());
      ctx->RecordStatsDetail("bytes", absl::StrCat(packed.TotalBytes()));
    }
    r.input = std::move(packed);
    r.output = result;  // shares the buffer the executor writes into
    Submit(ctx, executor.get(), std::move(r),
           [this, ctx, timed, element_bytes, result,
            done = std::move(done)](const absl::Status& s) {
             if (!s.ok()) {
               ctx->SetStatus(s);
               done();
               return;
             }
             Unpack(ctx, result, element_bytes, timed);
             done();
           });
  }

 protected:
  // Copies `bytes` from `src` to `dst`, both in the memory of the kernel's
  // device: a memcpy on the host; GPU kernels enqueue a device-to-device
  // copy on the compute stream (kernels/gpu/collective_kernels_gpu.cc).
  virtual absl::Status CopyBytes(OpKernelContext* /*ctx*/, void* dst,
                                 const void* src, size_t bytes) const {
    std::memcpy(dst, src, bytes);
    return absl::OkStatus();
  }

 private:
  // Copies the parts of `result` into the outputs, shaped as the inputs.
  void Unpack(OpKernelContext* ctx, const Tensor& result, size_t element_bytes,
              bool timed) const {
    const absl::Time start = timed ? absl::Now() : absl::Time();
    const char* src = static_cast<const char*>(result.raw_data());
    for (int k = 0; k < ctx->num_outputs(); ++k) {
      Tensor* out = nullptr;
      if (!ctx->allocate_output(k, ctx->input(k).shape(), &out).ok()) return;
      const size_t bytes = out->NumElements() * element_bytes;
      if (bytes == 0) continue;
      if (absl::Status s = CopyBytes(ctx, out->raw_data(), src, bytes);
          !s.ok()) {
        ctx->SetStatus(s);
        return;
      }
      src += bytes;
    }
    if (timed) ctx->RecordPhase("unpack", start, absl::Now());
  }
};

template <CollectiveKind kKind>
class CollectiveOpOf : public CollectiveOp {
 public:
  explicit CollectiveOpOf(OpKernelConstruction* ctx)
      : CollectiveOp(ctx, kKind) {}
};

}  // namespace collective_kernels
}  // namespace dflow

#endif  // DFLOW_KERNELS_CPU_COLLECTIVE_OPS_BASE_H_
