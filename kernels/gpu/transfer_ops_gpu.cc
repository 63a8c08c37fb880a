// The GPU implementations of the transfers partitioning adds
// (compiler/partition.h), registered under kernels/gpu/
// kernel_defs_transfer.cc's definitions, and of Const (which partitioning
// adds on every device that sends a control edge, and which keeps graph
// constants on the GPU).
//
//   _HostToDevice  host input -> a new tensor of the device's allocator,
//                  copied on the host-to-device stream (pinned staging for
//                  pageable memory: GpuStreams).
//   _DeviceToHost  device input -> a new host tensor (the output is
//                  declared in host memory), on the device-to-host stream.
//   _Send          device memory -> the rendezvous. To a CPU: copied into
//                  a host tensor of the CPU's allocator first, so the CPU
//                  _Recv hands its consumers host memory. To a GPU: the
//                  device tensor itself, once the compute stream has
//                  produced it (the receiver copies it).
//   _Recv          the rendezvous -> this device's memory: from a CPU
//                  (host memory), a host-to-device copy; from another
//                  device of this physical GPU (virtual devices), a
//                  device-to-device copy; from another GPU, a peer copy on
//                  this GPU's device-to-device stream. When every consumer
//                  reads the value in host memory (a shape), it is handed
//                  over in host memory instead.
// Values a GPU kernel keeps in host memory (int32 shapes) cross as they
// are. Every copy goes into memory allocated with the destination device's
// allocator; copies wait for the compute stream's earlier work (a buffer
// the BfcAllocator just handed out may still be read by a queued kernel),
// and the source tensor is held until the copy is done.
//
// The kernels are asynchronous: they enqueue the copy and return, and
// `done` runs when the copy is complete (so consumers on any stream, and
// the host, see the data). GpuStreams reports completion on its callback
// thread; the kernels hand `done` on to the device's thread pool from
// there, since the executor may run the next nodes (or, when a session was
// deleted while its step finished, destroy the devices and with them the
// very GpuStreams whose thread that is) inside `done`.
//
// Only built with CUDA (DFLOW_HAVE_CUDA); in other builds this file
// registers nothing and the definitions stay unimplemented.
#include "third_party/cuda/cuda_config.h"

#if DFLOW_HAVE_CUDA

#include <cuda_runtime.h>

#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/notification.h"
#include "compiler/partition.h"
#include "graph/device_spec.h"
#include "graph/tensor.h"
#include "kernels/gpu/gpu_kernel_util.h"
#include "kernels/gpu/kernel_defs_util.h"
#include "runtime/gpu/cuda_status.h"
#include "runtime/gpu/gpu_device.h"
#include "runtime/kernel_registry.h"
#include "runtime/op_kernel.h"
#include "runtime/rendezvous.h"

namespace dflow {
namespace {

// Runs `fn` on the kernel's thread pool (see the file comment).
void OnPool(OpKernelContext* ctx, std::function<void()> fn) {
  ctx->thread_pool()->Schedule(std::move(fn));
}

// The rendezvous key of a _Send or _Recv from its attrs (as the CPU
// kernels build it: compiler/partition.h's RendezvousKey) and the parts
// step stats show.
absl::Status KeyOf(OpKernelConstruction* ctx, std::string* key,
                   std::string* send_device, std::string* recv_device,
                   OpKernel::StatsDetails* details) {
  std::string tensor_name, key_prefix;
  for (auto [attr, value] : {std::pair{"send_device", send_device},
                             std::pair{"recv_device", recv_device},
                             std::pair{"tensor_name", &tensor_name}}) {
    if (absl::Status s = ctx->GetAttr(attr, value); !s.ok()) return s;
  }
  if (!ctx->GetAttr("key_prefix", &key_prefix).ok()) key_prefix.clear();
  *key = RendezvousKey(*send_device, *recv_device, tensor_name, key_prefix);
  *details = {{"tensor_name", tensor_name},
              {"send_device", *send_device},
              {"recv_device", *recv_device}};
  return absl::OkStatus();
}

absl::Status NoRendezvous(const OpKernel& kernel) {
  return absl::FailedPreconditionError(absl::StrCat(
      "this ", kernel.type_string(),
      " ran in a step without a rendezvous; transfers are added by "
      "partitioning and run through a Session, which gives every "
      "partitioned step one"));
}

// Values that never live in device memory: they cross as they are.
bool HostOnlyType(DataType t) {
  t = BaseType(t);
  return t == DT_STRING || t == DT_RESOURCE || t == DT_VARIANT;
}

// Where a tensor's bytes are.
struct Location {
  bool on_device = false;
  int ordinal = -1;  // the GPU holding them, when on_device
};

Location LocationOf(const void* ptr) {
  Location loc;
  if (ptr == nullptr) return loc;
  cudaPointerAttributes attrs;
  if (cudaPointerGetAttributes(&attrs, ptr) != cudaSuccess) {
    // Pageable memory unknown to CUDA (older runtimes answer with an
    // error rather than cudaMemoryTypeUnregistered).
    cudaGetLastError();
    return loc;
  }
  if (attrs.type == cudaMemoryTypeDevice ||
      attrs.type == cudaMemoryTypeManaged) {
    loc.on_device = true;
    loc.ordinal = attrs.device;
  }
  return loc;
}

// The allocator of a host device named `device_name`: every CPU device's
// is ProcessAllocator("CPU:<id>") (runtime/device.h), so the value a CPU
// _Recv hands its consumers counts on that CPU, as its own tensors do.
Allocator* HostAllocatorOf(const std::string& device_name,
                           OpKernelContext* ctx) {
  absl::StatusOr<DeviceSpec> spec = DeviceSpec::Parse(device_name);
  if (spec.ok() && spec->type().has_value() && spec->id().has_value()) {
    return ProcessAllocator(absl::StrCat(*spec->type(), ":", *spec->id()));
  }
  return ctx->host_allocator();
}

bool IsHostDevice(const std::string& device_name) {
  absl::StatusOr<DeviceSpec> spec = DeviceSpec::Parse(device_name);
  return spec.ok() && spec->type().has_value() && *spec->type() == kDeviceCpu;
}

// --------------------------------------------------------------------------
// Copies between host and device memory on one GPU.

class HostToDeviceGpuOp : public AsyncOpKernel {
 public:
  explicit HostToDeviceGpuOp(OpKernelConstruction* ctx) : AsyncOpKernel(ctx) {
    std::string src;
    if (ctx->GetAttr("_src", &src).ok()) {
      set_stats_details({{"tensor_name", src}});
    }
  }

  void ComputeAsync(OpKernelContext* ctx, DoneCallback done) override {
    GpuDevice* gpu = GpuDeviceOf(ctx);
    if (gpu == nullptr) {
      ctx->SetStatus(NotOnGpuError(*this, ctx->device()));
      return done();
    }
    const Tensor& input = ctx->input(0);
    if (HostOnlyType(input.dtype())) {
      ctx->set_output(0, input);
      return done();
    }
    Tensor* output = nullptr;
    DFLOW_OP_REQUIRES_OK_ASYNC(
        ctx, ctx->allocate_output(0, input.shape(), &output), done);
    const size_t bytes = input.TotalBytes();
    if (bytes == 0) return done();
    gpu->streams()->CopyHostToDevice(
        output->raw_data(), input.raw_data(), bytes,
        [ctx, keep = input, done = std::move(done)](absl::Status s) mutable {
          keep = Tensor();  // the source may go now
          OnPool(ctx, [ctx, s = std::move(s), done = std::move(done)] {
            ctx->SetStatus(s);
            done();
          });
        });
  }
  bool IsExpensive() const override { return false; }
};

class DeviceToHostGpuOp : public AsyncOpKernel {
 public:
  explicit DeviceToHostGpuOp(OpKernelConstruction* ctx) : AsyncOpKernel(ctx) {
    std::string src;
    if (ctx->GetAttr("_src", &src).ok()) {
      set_stats_details({{"tensor_name", src}});
    }
  }

  void ComputeAsync(OpKernelContext* ctx, DoneCallback done) override {
    GpuDevice* gpu = GpuDeviceOf(ctx);
    if (gpu == nullptr) {
      ctx->SetStatus(NotOnGpuError(*this, ctx->device()));
      return done();
    }
    const Tensor& input = ctx->input(0);
    if (HostOnlyType(input.dtype())) {
      ctx->set_output(0, input);
      return done();
    }
    // The output is declared in host memory: allocate_output puts it
    // there (the device's host allocator).
    Tensor* output = nullptr;
    DFLOW_OP_REQUIRES_OK_ASYNC(
        ctx, ctx->allocate_output(0, input.shape(), &output), done);
    const size_t bytes = input.TotalBytes();
    if (bytes == 0) return done();
    gpu->streams()->CopyDeviceToHost(
        output->raw_data(), input.raw_data(), bytes,
        [ctx, keep = input, done = std::move(done)](absl::Status s) mutable {
          keep = Tensor();
          OnPool(ctx, [ctx, s = std::move(s), done = std::move(done)] {
            ctx->SetStatus(s);
            done();
          });
        });
  }
  bool IsExpensive() const override { return false; }
};

// --------------------------------------------------------------------------
// Transfers between devices.

class SendGpuOp : public AsyncOpKernel {
 public:
  explicit SendGpuOp(OpKernelConstruction* ctx) : AsyncOpKernel(ctx) {
    StatsDetails details;
    std::string send_device;
    ctx->SetStatus(KeyOf(ctx, &key_, &send_device, &recv_device_, &details));
    set_stats_details(std::move(details));
    to_host_ = IsHostDevice(recv_device_);
    // A value its producer keeps in host memory (a GPU kernel's shape
    // output) crosses as it is.
    for (const Edge* e : ctx->node().in_edges()) {
      if (e->IsControl() || e->dst_input != 0) continue;
      input_on_host_ = KernelRegistry::Global()->IsHostMemoryOutput(
          *e->src, ctx->device()->type(), e->src_output);
    }
  }

  void ComputeAsync(OpKernelContext* ctx, DoneCallback done) override {
    Rendezvous* rendezvous = ctx->rendezvous();
    if (rendezvous == nullptr) {
      ctx->SetStatus(NoRendezvous(*this));
      return done();
    }
    std::string scratch;
    std::string key =
        FrameRendezvousKey(key_, ctx->frame(), ctx->iteration(), &scratch);
    const Tensor& value = ctx->input(0);
    if (ctx->input_var(0) == nullptr && value.dtype() == DT_INVALID) {
      // A dead input (a loop's last iteration, an untaken branch): the
      // receiver's output is dead too.
      ctx->SetStatus(rendezvous->Send(key, Tensor(), /*is_dead=*/true));
      return done();
    }
    if (input_type(0) == DT_RESOURCE) {
      ctx->SetStatus(absl::InvalidArgumentError(
          "a resource handle cannot cross devices; colocate its users with "
          "the variable (the placer does this for resource edges)"));
      return done();
    }
    GpuDevice* gpu = GpuDeviceOf(ctx);
    if (input_on_host_ || HostOnlyType(value.dtype()) ||
        value.TotalBytes() == 0 || gpu == nullptr) {
      if (gpu == nullptr && !input_on_host_) {
        ctx->SetStatus(NotOnGpuError(*this, ctx->device()));
      } else {
        ctx->SetStatus(rendezvous->Send(key, value));
      }
      return done();
    }
    if (to_host_) {
      absl::StatusOr<Tensor> host = Tensor::Allocate(
          HostAllocatorOf(recv_device_, ctx), value.dtype(), value.shape());
      DFLOW_OP_REQUIRES_OK_ASYNC(ctx, host.status(), done);
      auto staged = std::make_shared<Tensor>(*std::move(host));
      gpu->streams()->CopyDeviceToHost(
          staged->raw_data(), value.raw_data(), value.TotalBytes(),
          [ctx, rendezvous, staged, keep = value, key = std::move(key),
           done = std::move(done)](absl::Status s) mutable {
            keep = Tensor();
            OnPool(ctx,
                   [ctx, rendezvous, staged, s = std::move(s),
                    key = std::move(key), done = std::move(done)]() mutable {
                     if (s.ok()) s = rendezvous->Send(key, *staged);
                     ctx->SetStatus(s);
                     done();
                   });
          });
      return;
    }
    // To another GPU: the device tensor, once the compute stream produced
    // it. The receiver copies it on its own streams (and holds it until
    // then).
    gpu->streams()->ThenCall(
        GpuStreams::Kind::kCompute,
        [ctx, rendezvous, value, key = std::move(key),
         done = std::move(done)](absl::Status s) mutable {
          OnPool(ctx,
                 [ctx, rendezvous, value = std::move(value), s = std::move(s),
                  key = std::move(key), done = std::move(done)]() mutable {
                   if (s.ok()) s = rendezvous->Send(key, value);
                   ctx->SetStatus(s);
                   done();
                 });
        });
  }
  bool IsExpensive() const override { return false; }

 private:
  std::string key_;
  std::string recv_device_;
  bool to_host_ = false;
  bool input_on_host_ = false;
};

class RecvGpuOp : public AsyncOpKernel {
 public:
  explicit RecvGpuOp(OpKernelConstruction* ctx) : AsyncOpKernel(ctx) {
    StatsDetails details;
    std::string send_device, recv_device;
    ctx->SetStatus(KeyOf(ctx, &key_, &send_device, &recv_device, &details));
    set_stats_details(std::move(details));
    // One _Recv serves every consumer of the value on this device. If all
    // of them read it in host memory (Reshape's shape), deliver it there;
    // with no data consumer (a control transfer) nothing is copied.
    int data_consumers = 0, host_consumers = 0;
    for (const Edge* e : ctx->node().out_edges()) {
      if (e->IsControl()) continue;
      ++data_consumers;
      if (KernelRegistry::Global()->IsHostMemoryInput(
              *e->dst, ctx->device()->type(), e->dst_input)) {
        ++host_consumers;
      }
    }
    control_only_ = data_consumers == 0;
    to_host_ = data_consumers > 0 && host_consumers == data_consumers;
  }

  void ComputeAsync(OpKernelContext* ctx, DoneCallback done) override {
    Rendezvous* rendezvous = ctx->rendezvous();
    if (rendezvous == nullptr) {
      ctx->SetStatus(NoRendezvous(*this));
      return done();
    }
    std::string scratch;
    rendezvous->RecvAsync(
        FrameRendezvousKey(key_, ctx->frame(), ctx->iteration(), &scratch),
        [this, ctx, done = std::move(done)](const absl::Status& status,
                                            const Tensor& value,
                                            bool is_dead) mutable {
          if (!status.ok()) {
            ctx->SetStatus(status);
            return done();
          }
          // No output: the executor makes this _Recv's outputs dead.
          if (is_dead) return done();
          if (value.dtype() != output_type(0)) {
            ctx->SetStatus(absl::InternalError(absl::StrCat(
                "rendezvous key '", key_, "' delivered a ",
                DataTypeName(value.dtype()), " tensor but this ", type_string(),
                " expects ", DataTypeName(output_type(0)))));
            return done();
          }
          Deliver(ctx, value, std::move(done));
        });
  }
  bool IsExpensive() const override { return false; }

 private:
  void Deliver(OpKernelContext* ctx, const Tensor& value, DoneCallback done) {
    const size_t bytes = value.TotalBytes();
    if (control_only_ || HostOnlyType(value.dtype()) || bytes == 0) {
      ctx->set_output(0, value);
      return done();
    }
    GpuDevice* gpu = GpuDeviceOf(ctx);
    if (gpu == nullptr) {
      ctx->SetStatus(NotOnGpuError(*this, ctx->device()));
      return done();
    }
    const Location from = LocationOf(value.raw_data());
    if (to_host_) {
      if (!from.on_device) {
        ctx->set_output(0, value);
        return done();
      }
      // A device value that this GPU's consumers read on the host (rare:
      // a GPU kernel's device output feeding another GPU's shape input).
      // Copied synchronously on a pool thread: the sender made sure the
      // value is ready, and this path is too rare to pay for a stream.
      OnPool(ctx, [ctx, value, from, done = std::move(done)] {
        absl::StatusOr<Tensor> host = Tensor::Allocate(
            ctx->host_allocator(), value.dtype(), value.shape());
        absl::Status s = host.status();
        if (s.ok()) {
          s = CudaStatus(cudaSetDevice(from.ordinal), "cudaSetDevice");
        }
        if (s.ok()) {
          s = CudaStatus(cudaMemcpy(host->raw_data(), value.raw_data(),
                                    value.TotalBytes(), cudaMemcpyDefault),
                         absl::StrCat("copying a received value from GPU ",
                                      from.ordinal, " to host memory"));
        }
        if (s.ok()) {
          ctx->set_output(0, *std::move(host));
        } else {
          ctx->SetStatus(s);
        }
        done();
      });
      return;
    }
    Tensor* output = nullptr;
    DFLOW_OP_REQUIRES_OK_ASYNC(
        ctx, ctx->allocate_output(0, value.shape(), &output), done);
    GpuStreams* streams = gpu->streams();
    auto finish = [ctx, keep = value,
                   done = std::move(done)](absl::Status s) mutable {
      keep = Tensor();
      OnPool(ctx, [ctx, s = std::move(s), done = std::move(done)] {
        ctx->SetStatus(s);
        done();
      });
    };
    if (!from.on_device) {
      streams->CopyHostToDevice(output->raw_data(), value.raw_data(), bytes,
                                std::move(finish));
    } else if (from.ordinal == gpu->physical_ordinal()) {
      // Another device of this physical GPU (virtual devices).
      streams->CopyDeviceToDevice(output->raw_data(), value.raw_data(), bytes,
                                  std::move(finish));
    } else {
      PeerCopy(gpu, output->raw_data(), value.raw_data(), from.ordinal, bytes,
               std::move(finish));
    }
  }

  // From GPU `src_ordinal` into this GPU's memory, on this GPU's
  // device-to-device stream after its compute work so far (the sender
  // waited for its own compute stream before it sent).
  static void PeerCopy(GpuDevice* gpu, void* dst, const void* src,
                       int src_ordinal, size_t bytes,
                       GpuStreams::DoneCallback finish) {
    GpuStreams* streams = gpu->streams();
    absl::Status s =
        CudaStatus(cudaSetDevice(gpu->physical_ordinal()), "cudaSetDevice");
    if (s.ok()) {
      s = streams->WaitFor(GpuStreams::Kind::kDeviceToDevice,
                           GpuStreams::Kind::kCompute);
    }
    if (s.ok()) {
      s = CudaStatus(
          cudaMemcpyPeerAsync(
              dst, gpu->physical_ordinal(), src, src_ordinal, bytes,
              static_cast<cudaStream_t>(
                  streams->stream(GpuStreams::Kind::kDeviceToDevice))),
          absl::StrCat("copying ", bytes, " bytes from GPU ", src_ordinal,
                       " to GPU ", gpu->physical_ordinal()));
    }
    if (!s.ok()) return finish(s);
    // `finish` runs once the copy (and all before it on the stream) is
    // done; the executor then releases this device's later consumers.
    streams->ThenCall(GpuStreams::Kind::kDeviceToDevice, std::move(finish));
  }

  std::string key_;
  bool to_host_ = false;
  bool control_only_ = false;
};

// --------------------------------------------------------------------------
// Const: the value copied into device memory once, when the kernel is
// built (sessions build kernels when they compile a run signature); the
// int32 definition keeps it in host memory.

class ConstGpuOp : public OpKernel {
 public:
  explicit ConstGpuOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    DataType dtype;
    Tensor decoded;
    absl::Status s = ctx->GetAttr("dtype", &dtype);
    if (s.ok()) s = ctx->GetAttr("value", &decoded);
    if (s.ok() && decoded.dtype() != dtype) {
      s = absl::InvalidArgumentError(
          absl::StrCat("attr 'value' holds a ", DataTypeName(decoded.dtype()),
                       " tensor but attr 'dtype' is ", DataTypeName(dtype)));
    }
    if (!s.ok()) {
      ctx->SetStatus(s);
      return;
    }
    if (output_in_host_memory(0) || HostOnlyType(dtype)) {
      value_ = std::move(decoded);
      return;
    }
    GpuDevice* gpu = GpuDeviceOf(ctx);
    if (gpu == nullptr) {
      ctx->SetStatus(NotOnGpuError(*this, nullptr));
      return;
    }
    absl::StatusOr<Tensor> on_device =
        Tensor::Allocate(ctx->device()->allocator(), dtype, decoded.shape());
    if (!on_device.ok()) {
      ctx->SetStatus(absl::Status(
          on_device.status().code(),
          absl::StrCat("placing the constant on ", ctx->device()->name(), ": ",
                       on_device.status().message())));
      return;
    }
    if (decoded.TotalBytes() > 0) {
      absl::Notification copied;
      absl::Status copy_status;
      gpu->streams()->CopyHostToDevice(on_device->raw_data(),
                                       decoded.raw_data(), decoded.TotalBytes(),
                                       [&](absl::Status cs) {
                                         copy_status = std::move(cs);
                                         copied.Notify();
                                       });
      copied.WaitForNotification();
      if (!copy_status.ok()) {
        ctx->SetStatus(copy_status);
        return;
      }
    }
    value_ = *std::move(on_device);
  }

  void Compute(OpKernelContext* ctx) override { ctx->set_output(0, value_); }
  bool IsExpensive() const override { return false; }

 private:
  Tensor value_;
};

DFLOW_REGISTER_GPU_KERNEL(KernelDefBuilder(kSendOp).Device(kDeviceGpu),
                          SendGpuOp);
DFLOW_REGISTER_GPU_KERNEL(KernelDefBuilder(kRecvOp).Device(kDeviceGpu),
                          RecvGpuOp);
DFLOW_REGISTER_GPU_KERNEL(
    KernelDefBuilder(kHostToDeviceOp).Device(kDeviceGpu).HostMemory("input"),
    HostToDeviceGpuOp);
DFLOW_REGISTER_GPU_KERNEL(
    KernelDefBuilder(kDeviceToHostOp).Device(kDeviceGpu).HostMemory("output"),
    DeviceToHostGpuOp);
DFLOW_REGISTER_GPU_KERNEL(KernelDefBuilder("Const")
                              .Device(kDeviceGpu)
                              .TypeConstraint("dtype",
                                              gpu_kernel_defs::DeviceMovable()),
                          ConstGpuOp);
DFLOW_REGISTER_GPU_KERNEL(KernelDefBuilder("Const")
                              .Device(kDeviceGpu)
                              .TypeConstraint<int32_t>("dtype")
                              .HostMemory("output"),
                          ConstGpuOp);

}  // namespace
}  // namespace dflow

#endif  // DFLOW_HAVE_CUDA
