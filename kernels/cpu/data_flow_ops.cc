// CPU kernels of the queue ops (graph/ops/data_flow_ops.cc) over the
// Queue of data_flow_ops_queue.h. The queue ops make a handle: the queue
// lives in the session's VariableStore under container/shared_name (or the
// node's name), made on first run. Enqueue and dequeue are AsyncOpKernels:
// a request the queue cannot serve yet waits without a thread.
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "kernels/cpu/data_flow_ops_queue.h"
#include "kernels/cpu/kernel_util_resource.h"
#include "kernels/cpu/kernel_util_state.h"
#include "runtime/kernel_registry.h"
#include "runtime/op_kernel.h"
#include "runtime/variables.h"

namespace dflow {
namespace {

// FIFOQueueV2, RandomShuffleQueueV2, PaddingFIFOQueueV2.
class QueueOp : public OpKernel {
 public:
  QueueOp(OpKernelConstruction* ctx, Queue::Kind kind) : OpKernel(ctx) {
    options_.kind = kind;
    options_.name = ctx->name();
    ctx->SetStatus(ctx->GetAttr("component_types", &options_.component_types));
    ctx->SetStatus(ctx->GetAttr("shapes", &options_.shapes));
    ctx->SetStatus(ctx->GetAttr("capacity", &options_.capacity));
    if (kind == Queue::Kind::kRandomShuffle) {
      ctx->SetStatus(
          ctx->GetAttr("min_after_dequeue", &options_.min_after_dequeue));
      ctx->SetStatus(ctx->GetAttr("seed", &options_.seed));
      ctx->SetStatus(ctx->GetAttr("seed2", &options_.seed2));
    }
    if (!options_.shapes.empty() &&
        options_.shapes.size() != options_.component_types.size()) {
      ctx->SetStatus(absl::InvalidArgumentError(absl::StrCat(
          "queue '", ctx->name(), "' has ", options_.component_types.size(),
          " component types but ", options_.shapes.size(), " shapes")));
    }
    key_ = ResourceKey(ctx);
  }

  void Compute(OpKernelContext* ctx) override {
    absl::StatusOr<Var*> var = LookupOrCreateResource<Queue>(
        ctx, key_, "queue",
        [this] { return std::make_unique<Queue>(options_); });
    OP_REQUIRES_OK(ctx, var.status());
    ctx->set_output_var(0, *var);
  }
  bool IsExpensive() const override { return false; }

 private:
  Queue::Options options_;
  std::string key_;
};

class FifoQueueOp : public QueueOp {
 public:
  explicit FifoQueueOp(OpKernelConstruction* ctx)
      : QueueOp(ctx, Queue::Kind::kFifo) {}
};
class RandomShuffleQueueOp : public QueueOp {
 public:
  explicit RandomShuffleQueueOp(OpKernelConstruction* ctx)
      : QueueOp(ctx, Queue::Kind::kRandomShuffle) {}
};
class PaddingFifoQueueOp : public QueueOp {
 public:
  explicit PaddingFifoQueueOp(OpKernelConstruction* ctx)
      : QueueOp(ctx, Queue::Kind::kPaddingFifo) {}
};

// The queue input 0's handle names, or an error for the kernel.
absl::StatusOr<Queue*> QueueOf(OpKernelContext* ctx) {
  Queue* queue = ResourceOfInput<Queue>(ctx, 0);
  if (queue == nullptr) {
    return absl::InvalidArgumentError(
        "input 0 is not the handle of a queue (connect it to a FIFOQueueV2, "
        "RandomShuffleQueueV2 or PaddingFIFOQueueV2)");
  }
  return queue;
}

// QueueEnqueueV2 (one element) and QueueEnqueueManyV2 (slices along the
// components' 0th dimension).
class EnqueueOp : public AsyncOpKernel {
 public:
  EnqueueOp(OpKernelConstruction* ctx, bool many)
      : AsyncOpKernel(ctx), many_(many) {}

  void ComputeAsync(OpKernelContext* ctx, DoneCallback done) override {
    absl::StatusOr<Queue*> queue = QueueOf(ctx);
    if (!queue.ok()) {
      ctx->SetStatus(queue.status());
      done();
      return;
    }
    std::vector<Queue::Tuple> elements;
    if (absl::Status s = Elements(ctx, **queue, &elements); !s.ok()) {
      ctx->SetStatus(s);
      done();
      return;
    }
    (*queue)->Enqueue(std::move(elements),
                      [ctx, done = std::move(done)](const absl::Status& s) {
                        if (!s.ok()) ctx->SetStatus(s);
                        done();
                      });
  }
  bool IsExpensive() const override { return false; }

 private:
  absl::Status Elements(OpKernelContext* ctx, const Queue& queue,
                        std::vector<Queue::Tuple>* elements) const {
    const int n = ctx->num_inputs() - 1;
    Queue::Tuple components;
    for (int i = 0; i < n; ++i) {
      components.push_back(state_kernels::ValueToKeep(ctx->input(i + 1)));
    }
    if (!many_) {
      if (absl::Status s = queue.CheckElement(components); !s.ok()) return s;
      elements->push_back(std::move(components));
      return absl::OkStatus();
    }
    int64_t count = -1;
    for (int i = 0; i < n; ++i) {
      const Tensor& t = components[i];
      if (t.shape().rank() < 1) {
        return absl::InvalidArgumentError(absl::StrCat(
            "QueueEnqueueManyV2 into ", queue.DebugString(), ": component ", i,
            " is a scalar; each needs a 0th dimension of elements"));
      }
      if (count >= 0 && t.shape().dim(0) != count) {
        return absl::InvalidArgumentError(
            absl::StrCat("QueueEnqueueManyV2 into ", queue.DebugString(),
                         ": components hold different numbers of elements (",
                         count, " and ", t.shape().dim(0), ")"));
      }
      count = t.shape().dim(0);
    }
    for (int64_t j = 0; j < count; ++j) {
      Queue::Tuple element;
      for (int i = 0; i < n; ++i) {
        absl::StatusOr<Tensor> slice = components[i].SliceChecked(j, j + 1);
        if (!slice.ok()) return slice.status();
        TensorShape shape = components[i].shape();
        shape.RemoveDim(0);
        absl::StatusOr<Tensor> item = slice->Reshaped(shape);
        if (!item.ok()) return item.status();
        element.push_back(*std::move(item));
      }
      if (absl::Status s = queue.CheckElement(element); !s.ok()) return s;
      elements->push_back(std::move(element));
    }
    return absl::OkStatus();
  }

  const bool many_;
};

class EnqueueOneOp : public EnqueueOp {
 public:
  explicit EnqueueOneOp(OpKernelConstruction* ctx) : EnqueueOp(ctx, false) {}
};
class EnqueueManyOp : public EnqueueOp {
 public:
  explicit EnqueueManyOp(OpKernelConstruction* ctx) : EnqueueOp(ctx, true) {}
};

// QueueDequeueV2, QueueDequeueManyV2, QueueDequeueUpToV2.
class DequeueOp : public AsyncOpKernel {
 public:
  enum class Mode { kOne, kMany, kUpTo };
  DequeueOp(OpKernelConstruction* ctx, Mode mode)
      : AsyncOpKernel(ctx), mode_(mode) {}

  void ComputeAsync(OpKernelContext* ctx, DoneCallback done) override {
    absl::StatusOr<Queue*> queue = QueueOf(ctx);
    if (!queue.ok()) {
      ctx->SetStatus(queue.status());
      done();
      return;
    }
    int64_t n = 1;
    if (mode_ != Mode::kOne) {
      const Tensor& count = ctx->input(1);
      if (count.NumElements() != 1 || count.dtype() != DT_INT32 ||
          count.data<int32_t>()[0] < 0) {
        ctx->SetStatus(absl::InvalidArgumentError(absl::StrCat(
            "the number of elements to dequeue from ", (*queue)->DebugString(),
            " must be a non-negative int32 scalar, got ",
            count.DebugString())));
        done();
        return;
      }
      n = count.data<int32_t>()[0];
    }
    (*queue)->Dequeue(
        n, mode_ != Mode::kOne, mode_ == Mode::kUpTo,
        [this, ctx, done = std::move(done)](const absl::Status& s,
                                            std::vector<Tensor> components) {
          if (!s.ok()) {
            ctx->SetStatus(s);
          } else if (static_cast<int>(components.size()) != num_outputs()) {
            ctx->SetStatus(absl::InvalidArgumentError(absl::StrCat(
                "the queue's elements have ", components.size(),
                " components but this op has ", num_outputs(), " outputs")));
          } else {
            for (int i = 0; i < num_outputs(); ++i) {
              ctx->set_output(i, std::move(components[i]));
            }
          }
          done();
        });
  }
  bool IsExpensive() const override { return false; }

 private:
  const Mode mode_;
};

class DequeueOneOp : public DequeueOp {
 public:
  explicit DequeueOneOp(OpKernelConstruction* ctx)
      : DequeueOp(ctx, Mode::kOne) {}
};
class DequeueManyOp : public DequeueOp {
 public:
  explicit DequeueManyOp(OpKernelConstruction* ctx)
      : DequeueOp(ctx, Mode::kMany) {}
};
class DequeueUpToOp : public DequeueOp {
 public:
  explicit DequeueUpToOp(OpKernelConstruction* ctx)
      : DequeueOp(ctx, Mode::kUpTo) {}
};

class QueueCloseOp : public OpKernel {
 public:
  explicit QueueCloseOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    ctx->SetStatus(ctx->GetAttr("cancel_pending_enqueues", &cancel_));
  }
  void Compute(OpKernelContext* ctx) override {
    absl::StatusOr<Queue*> queue = QueueOf(ctx);
    OP_REQUIRES_OK(ctx, queue.status());
    (*queue)->Close(cancel_);
  }
  bool IsExpensive() const override { return false; }

 private:
  bool cancel_ = false;
};

class QueueSizeOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    absl::StatusOr<Queue*> queue = QueueOf(ctx);
    OP_REQUIRES_OK(ctx, queue.status());
    ctx->set_output(0, Tensor::Scalar(static_cast<int32_t>((*queue)->Size())));
  }
  bool IsExpensive() const override { return false; }
};

class QueueIsClosedOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    absl::StatusOr<Queue*> queue = QueueOf(ctx);
    OP_REQUIRES_OK(ctx, queue.status());
    ctx->set_output(0, Tensor::Scalar((*queue)->IsClosed()));
  }
  bool IsExpensive() const override { return false; }
};

DFLOW_REGISTER_KERNEL(KernelDefBuilder("FIFOQueueV2").Device(kDeviceCpu),
                      FifoQueueOp);
DFLOW_REGISTER_KERNEL(
    KernelDefBuilder("RandomShuffleQueueV2").Device(kDeviceCpu),
    RandomShuffleQueueOp);
DFLOW_REGISTER_KERNEL(KernelDefBuilder("PaddingFIFOQueueV2").Device(kDeviceCpu),
                      PaddingFifoQueueOp);
DFLOW_REGISTER_KERNEL(KernelDefBuilder("QueueEnqueueV2").Device(kDeviceCpu),
                      EnqueueOneOp);
DFLOW_REGISTER_KERNEL(KernelDefBuilder("QueueEnqueueManyV2").Device(kDeviceCpu),
                      EnqueueManyOp);
DFLOW_REGISTER_KERNEL(KernelDefBuilder("QueueDequeueV2").Device(kDeviceCpu),
                      DequeueOneOp);
DFLOW_REGISTER_KERNEL(KernelDefBuilder("QueueDequeueManyV2").Device(kDeviceCpu),
                      DequeueManyOp);
DFLOW_REGISTER_KERNEL(KernelDefBuilder("QueueDequeueUpToV2").Device(kDeviceCpu),
                      DequeueUpToOp);
DFLOW_REGISTER_KERNEL(KernelDefBuilder("QueueCloseV2").Device(kDeviceCpu),
                      QueueCloseOp);
DFLOW_REGISTER_KERNEL(KernelDefBuilder("QueueSizeV2").Device(kDeviceCpu),
                      QueueSizeOp);
DFLOW_REGISTER_KERNEL(KernelDefBuilder("QueueIsClosedV2").Device(kDeviceCpu),
                      QueueIsClosedOp);

}  // namespace
}  // namespace dflow
