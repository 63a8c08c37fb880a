// The kernels of the transfers partitioning adds (compiler/partition.h):
// _Send leaves its input in the step's rendezvous under its key, _Recv
// picks it up in the destination partition. Every device of this process
// computes on host memory, so the value crosses as the same Tensor, sharing
// its buffer (runtime/rendezvous.h). _Recv is asynchronous: while its value
// has not arrived it holds no thread, so partitions waiting on each other
// can never starve the pool.
//
// A reference variable's own buffer (graph/tensor.h) is copied when it
// leaves for a GPU, fake GPUs included: a real GPU receives a copy in its
// memory at the transfer, so a reader there that runs after the variable's
// in-place update still sees the value sent (a tower's L2Loss of the
// weights, which nothing orders before the update). Between CPU devices the
// buffer is shared, as between TensorFlow's.
//
// Both kernels build their key once, from their node's attrs, with the
// partition pass's RendezvousKey, so the two sides always agree. A step's
// rendezvous is fresh, so the key carries no step id.
//
// Also the copies partitioning inserts between host and device memory on
// one device (_HostToDevice, _DeviceToHost). Devices running CPU kernels
// compute on host memory, fake GPUs included, so there the copy is the
// same buffer: the kernel forwards its input. On a real GPU the copies are
// the CUDA implementations registered under the definitions in
// kernels/gpu/kernel_defs_transfer.cc (the GPU backend's work).
#include <string>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "compiler/partition.h"
#include "graph/tensor.h"
#include "graph/types.h"
#include "runtime/kernel_registry.h"
#include "runtime/op_kernel.h"
#include "runtime/rendezvous.h"

namespace dflow {
namespace {

// The rendezvous key of a _Send or _Recv node, from its attrs, and the
// parts step stats show (tools/timeline.h pairs transfers by them).
absl::Status KeyOf(OpKernelConstruction* ctx, std::string* key,
                   OpKernel::StatsDetails* details) {
  std::string send_device, recv_device, tensor_name, key_prefix;
  for (auto [attr, value] : {std::pair{"send_device", &send_device},
                             std::pair{"recv_device", &recv_device},
                             std::pair{"tensor_name", &tensor_name}}) {
    if (absl::Status s = ctx->GetAttr(attr, value); !s.ok()) return s;
  }
  // Optional: graphs written before the attr existed have none.
  if (!ctx->GetAttr("key_prefix", &key_prefix).ok()) key_prefix.clear();
  *key = RendezvousKey(send_device, recv_device, tensor_name, key_prefix);
  *details = {{"tensor_name", tensor_name},
              {"send_device", send_device},
              {"recv_device", recv_device}};
  return absl::OkStatus();
}

absl::Status NoRendezvous(const OpKernel& kernel) {
  return absl::FailedPreconditionError(absl::StrCat(
      "this ", kernel.type_string(),
      " ran in a step without a rendezvous; transfers are added by "
      "partitioning and run through a Session, which gives every "
      "partitioned step one"));
}

class SendOp : public OpKernel {
 public:
  explicit SendOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    StatsDetails details;
    ctx->SetStatus(KeyOf(ctx, &key_, &details));
    for (const auto& [name, value] : details) {
      if (name == "recv_device") {
        to_gpu_ = absl::StrContains(absl::AsciiStrToUpper(value), "GPU:");
      }
    }
    set_stats_details(std::move(details));
  }

  void Compute(OpKernelContext* ctx) override {
    Rendezvous* rendezvous = ctx->rendezvous();
    OP_REQUIRES(ctx, rendezvous != nullptr, NoRendezvous(*this));
    // The executor runs a _Send with a dead input as one without a value:
    // the receiver's outputs are dead too.
    std::string scratch;
    const std::string& key =
        FrameRendezvousKey(key_, ctx->frame(), ctx->iteration(), &scratch);
    if (ctx->input_var(0) == nullptr && ctx->input(0).dtype() == DT_INVALID) {
      OP_REQUIRES_OK(ctx, rendezvous->Send(key, Tensor(), /*is_dead=*/true));
      return;
    }
    OP_REQUIRES(
        ctx, input_type(0) != DT_RESOURCE,
        absl::InvalidArgumentError(
            "a resource handle cannot cross devices; colocate its users "
            "with the variable (the placer does this for resource edges)"));
    const Tensor& value = ctx->input(0);
    if (to_gpu_ && value.IsReferenceVariableValue()) {
      Tensor copy = value.DeepCopy();
      OP_REQUIRES(ctx, copy.IsInitialized() || !value.IsInitialized(),
                  absl::ResourceExhaustedError(absl::StrCat(
                      "cannot allocate ", value.TotalBytes(),
                      " bytes to copy a variable's value for its transfer to "
                      "a GPU")));
      OP_REQUIRES_OK(ctx, rendezvous->Send(key, copy));
      return;
    }
    // The receiver usually runs its next nodes on this thread, inside Send.
    OP_REQUIRES_OK(ctx, rendezvous->Send(key, value));
  }
  bool IsExpensive() const override { return false; }

 private:
  std::string key_;
  bool to_gpu_ = false;  // the receiver is a GPU (or a fake one)
};

class RecvOp : public AsyncOpKernel {
 public:
  explicit RecvOp(OpKernelConstruction* ctx) : AsyncOpKernel(ctx) {
    StatsDetails details;
    ctx->SetStatus(KeyOf(ctx, &key_, &details));
    set_stats_details(std::move(details));
  }

  void ComputeAsync(OpKernelContext* ctx, DoneCallback done) override {
    Rendezvous* rendezvous = ctx->rendezvous();
    if (rendezvous == nullptr) {
      ctx->SetStatus(NoRendezvous(*this));
      done();
      return;
    }
    std::string scratch;
    rendezvous->RecvAsync(
        FrameRendezvousKey(key_, ctx->frame(), ctx->iteration(), &scratch),
        [this, ctx, done = std::move(done)](const absl::Status& status,
                                            const Tensor& value, bool is_dead) {
          if (!status.ok()) {
            ctx->SetStatus(status);
          } else if (is_dead) {
            // No output: the executor makes this _Recv's outputs dead.
          } else if (value.dtype() != output_type(0)) {
            ctx->SetStatus(absl::InternalError(absl::StrCat(
                "rendezvous key '", key_, "' delivered a ",
                DataTypeName(value.dtype()), " tensor but this ", type_string(),
                " expects ", DataTypeName(output_type(0)))));
          } else {
            ctx->set_output(0, value);
          }
          done();
        });
  }
  // Waiting costs no thread, so never worth a hand-off to the pool.
  bool IsExpensive() const override { return false; }

 private:
  std::string key_;
};

// Host and device memory are one here: the output is the input's buffer.
// (A reference read as a value arrives as the variable's value.)
class MemoryCopyOp : public OpKernel {
 public:
  explicit MemoryCopyOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    // What was copied, for step stats and timelines (the partition pass
    // names the tensor in `_src`).
    std::string src;
    if (ctx->GetAttr("_src", &src).ok()) {
      set_stats_details({{"tensor_name", src}});
    }
  }
  void Compute(OpKernelContext* ctx) override {
    ctx->set_output(0, ctx->input(0));
  }
  bool IsExpensive() const override { return false; }
};

// No type constraints: a transfer moves a tensor of any type.
DFLOW_REGISTER_KERNEL(KernelDefBuilder(kSendOp).Device(kDeviceCpu), SendOp);
DFLOW_REGISTER_KERNEL(KernelDefBuilder(kRecvOp).Device(kDeviceCpu), RecvOp);
DFLOW_REGISTER_KERNEL(KernelDefBuilder(kHostToDeviceOp).Device(kDeviceCpu),
                      MemoryCopyOp);
DFLOW_REGISTER_KERNEL(KernelDefBuilder(kDeviceToHostOp).Device(kDeviceCpu),
                      MemoryCopyOp);

}  // namespace
}  // namespace dflow
