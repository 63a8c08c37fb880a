// CPU kernels of TensorFlow's staging area ops (graph/ops/
// data_flow_ops_staging.cc) over the StagingArea of
// data_flow_ops_staging_area.h. Every op of an area names it by
// container/shared_name (its node's name when empty, as TensorFlow's): the
// area lives in the session's VariableStore, made by whichever of its ops
// runs first, with that op's capacity and memory_limit. Stage, Unstage and
// StagePeek are AsyncOpKernels: a request the area cannot serve yet waits
// without a thread.
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "kernels/cpu/data_flow_ops_staging_area.h"
#include "kernels/cpu/kernel_util_resource.h"
#include "kernels/cpu/kernel_util_state.h"
#include "runtime/kernel_registry.h"
#include "runtime/op_kernel.h"
#include "runtime/variables.h"

namespace dflow {
namespace {

// What every staging area op shares: finding (or making) its area.
class StagingAreaOpBase {
 protected:
  explicit StagingAreaOpBase(OpKernelConstruction* ctx) {
    ctx->SetStatus(ctx->GetAttr("capacity", &capacity_));
    ctx->SetStatus(ctx->GetAttr("memory_limit", &memory_limit_));
    ctx->SetStatus(ctx->GetAttr("dtypes", &dtypes_));
    std::string shared_name;
    ctx->GetAttr("shared_name", &shared_name).IgnoreError();
    name_ = shared_name.empty() ? ctx->name() : shared_name;
    key_ = ResourceKey(ctx);
  }

  absl::StatusOr<StagingArea*> Area(OpKernelContext* ctx) const {
    absl::StatusOr<Var*> var = LookupOrCreateResource<StagingArea>(
        ctx, key_, "staging area", [this] {
          return std::make_unique<StagingArea>(name_, capacity_,
                                               memory_limit_);
        });
    if (!var.ok()) return var.status();
    return static_cast<StagingArea*>((*var)->resource());
  }

  // Checks an element taken from the area against this op's dtypes (ops of
  // one area that disagree are a graph TensorFlow's Python never writes).
  absl::Status CheckElement(const StagingArea& area,
                            const StagingArea::Tuple& element) const {
    bool same = element.size() == dtypes_.size();
    for (size_t i = 0; same && i < element.size(); ++i) {
      same = element[i].dtype() == dtypes_[i];
    }
    if (same) return absl::OkStatus();
    std::vector<std::string> held, wanted;
    for (const Tensor& t : element) held.push_back(DataTypeName(t.dtype()));
    for (DataType d : dtypes_) wanted.push_back(DataTypeName(d));
    return absl::InvalidArgumentError(absl::StrCat(
        area.DebugString(), " holds an element of (",
        absl::StrJoin(held, ", "), ") but this op's dtypes are (",
        absl::StrJoin(wanted, ", "),
        "); give every op of the area the same dtypes"));
  }

  int64_t capacity_ = 0, memory_limit_ = 0;
  std::vector<DataType> dtypes_;
  std::string name_, key_;
};

class StageOp : public AsyncOpKernel, StagingAreaOpBase {
 public:
  explicit StageOp(OpKernelConstruction* ctx)
      : AsyncOpKernel(ctx), StagingAreaOpBase(ctx) {}

  void ComputeAsync(OpKernelContext* ctx, DoneCallback done) override {
    absl::StatusOr<StagingArea*> area = Area(ctx);
    if (!area.ok()) {
      ctx->SetStatus(area.status());
      done();
      return;
    }
    StagingArea::Tuple element;
    for (int i = 0; i < ctx->num_inputs(); ++i) {
      element.push_back(state_kernels::ValueToKeep(ctx->input(i)));
    }
    (*area)->Put(std::move(element),
                 [ctx, done = std::move(done)](const absl::Status& s) {
                   if (!s.ok()) ctx->SetStatus(s);
                   done();
                 });
  }
  bool IsExpensive() const override { return false; }
};

// Unstage (remove = true) and StagePeek.
class TakeOp : public AsyncOpKernel, StagingAreaOpBase {
 public:
  TakeOp(OpKernelConstruction* ctx, bool remove)
      : AsyncOpKernel(ctx), StagingAreaOpBase(ctx), remove_(remove) {}

  void ComputeAsync(OpKernelContext* ctx, DoneCallback done) override {
    absl::StatusOr<StagingArea*> area = Area(ctx);
    if (!area.ok()) {
      ctx->SetStatus(area.status());
      done();
      return;
    }
    StagingArea* a = *area;
    auto deliver = [this, ctx, a, done = std::move(done)](
                       const absl::Status& s, StagingArea::Tuple element) {
      absl::Status status = s.ok() ? CheckElement(*a, element) : s;
      if (!status.ok()) {
        ctx->SetStatus(status);
      } else {
        for (size_t i = 0; i < element.size(); ++i) {
          ctx->set_output(static_cast<int>(i), std::move(element[i]));
        }
      }
      done();
    };
    if (remove_) {
      a->Get(std::move(deliver));
      return;
    }
    const Tensor& index = ctx->input(0);
    if (index.dtype() != DT_INT32 || index.NumElements() != 1 ||
        index.shape().rank() != 0 || index.data<int32_t>()[0] < 0) {
      deliver(absl::InvalidArgumentError(absl::StrCat(
                  "StagePeek of ", a->DebugString(),
                  " needs a non-negative int32 scalar index (0: the oldest "
                  "element), got ",
                  index.DebugString())),
              {});
      return;
    }
    a->Peek(index.data<int32_t>()[0], std::move(deliver));
  }
  bool IsExpensive() const override { return false; }

 private:
  const bool remove_;
};

class UnstageOp : public TakeOp {
 public:
  explicit UnstageOp(OpKernelConstruction* ctx) : TakeOp(ctx, true) {}
};
class StagePeekOp : public TakeOp {
 public:
  explicit StagePeekOp(OpKernelConstruction* ctx) : TakeOp(ctx, false) {}
};

class StageSizeOp : public OpKernel, StagingAreaOpBase {
 public:
  explicit StageSizeOp(OpKernelConstruction* ctx)
      : OpKernel(ctx), StagingAreaOpBase(ctx) {}
  void Compute(OpKernelContext* ctx) override {
    absl::StatusOr<StagingArea*> area = Area(ctx);
    OP_REQUIRES_OK(ctx, area.status());
    ctx->set_output(0,
                    Tensor::Scalar(static_cast<int32_t>((*area)->Size())));
  }
  bool IsExpensive() const override { return false; }
};

class StageClearOp : public OpKernel, StagingAreaOpBase {
 public:
  explicit StageClearOp(OpKernelConstruction* ctx)
      : OpKernel(ctx), StagingAreaOpBase(ctx) {}
  void Compute(OpKernelContext* ctx) override {
    absl::StatusOr<StagingArea*> area = Area(ctx);
    OP_REQUIRES_OK(ctx, area.status());
    (*area)->Clear();
  }
  bool IsExpensive() const override { return false; }
};

DFLOW_REGISTER_KERNEL(KernelDefBuilder("Stage").Device(kDeviceCpu), StageOp);
DFLOW_REGISTER_KERNEL(KernelDefBuilder("Unstage").Device(kDeviceCpu),
                      UnstageOp);
DFLOW_REGISTER_KERNEL(KernelDefBuilder("StagePeek").Device(kDeviceCpu),
                      StagePeekOp);
DFLOW_REGISTER_KERNEL(KernelDefBuilder("StageSize").Device(kDeviceCpu),
                      StageSizeOp);
DFLOW_REGISTER_KERNEL(KernelDefBuilder("StageClear").Device(kDeviceCpu),
                      StageClearOp);

}  // namespace
}  // namespace dflow
