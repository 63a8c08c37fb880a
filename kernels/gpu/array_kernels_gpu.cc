// The GPU implementations of the array and shape ops that move no element:
// Identity, StopGradient, IdentityN and NoOp forward their inputs; Reshape,
// ExpandDims and Squeeze hand out the input's device buffer under another
// shape (nothing is copied, nothing is enqueued); Shape, Size and Rank only
// look at the input's shape and write host-memory outputs (their
// definitions in kernels/gpu/kernel_defs_shape.cc keep them on the host, so
// allocate_output gives host memory). ZerosLike clears a device buffer on
// the compute stream (its int32 definition, a host buffer). Placeholder
// (unfed: the CPU kernel's error), PlaceholderWithDefault (forwards), and
// the host-memory helpers BroadcastGradientArgs, InvertPermutation and
// the int32 Range (computed on the host, as on the CPU).
//
// The shape logic and error messages are those of the CPU kernels
// (kernels/cpu/identity_ops.cc, shape_ops.cc); the int32 definitions keep
// every argument in host memory, so one class serves every dtype.
//
// Only built with CUDA (DFLOW_HAVE_CUDA); in other builds this file
// registers nothing and the definitions stay unimplemented.
#include "third_party/cuda/cuda_config.h"

#if DFLOW_HAVE_CUDA

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <limits>
#include <vector>

#include "absl/container/inlined_vector.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "graph/tensor.h"
#include "graph/types.h"
#include "kernels/cpu/kernel_util_array.h"
#include "kernels/gpu/gpu_kernel_util.h"
#include "kernels/gpu/kernel_defs_util.h"
#include "runtime/kernel_registry.h"
#include "runtime/op_kernel.h"

namespace dflow {
namespace {

using array_kernels::IndexVec;
using gpu_kernel_defs::Complex;
using gpu_kernel_defs::Concat;
using gpu_kernel_defs::DeviceMovable;
using gpu_kernel_defs::GpuFloat;

// --- Identity, StopGradient, IdentityN, NoOp ---

// Forwards input i to output i, as the CPU kernel: a resource handle stays
// a handle, a reference input becomes the variable's current value (a
// device tensor: GPU variables hold device buffers).
void Forward(OpKernelContext* ctx, int i) {
  Var* var = ctx->input_var(i);
  if (var != nullptr) {
    if (ctx->kernel().input_type(i) == DT_RESOURCE) {
      ctx->set_output_var(i, var);
    } else {
      ctx->set_output(i, var->Read());
    }
    return;
  }
  ctx->set_output(i, ctx->input(i));
}

class IdentityGpuOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override { Forward(ctx, 0); }
  bool IsExpensive() const override { return false; }
};

class IdentityNGpuOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    for (int i = 0; i < ctx->num_inputs(); ++i) Forward(ctx, i);
  }
  bool IsExpensive() const override { return false; }
};

class NoOpGpuOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext*) override {}
  bool IsExpensive() const override { return false; }
};

// --- Reshape, ExpandDims, Squeeze: views of the input's buffer ---

void SetReshaped(OpKernelContext* ctx, const Tensor& input,
                 const TensorShape& shape) {
  absl::StatusOr<Tensor> view = input.Reshaped(shape);
  OP_REQUIRES_OK(ctx, view.status());
  ctx->set_output(0, *std::move(view));
}

class ReshapeGpuOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    absl::StatusOr<TensorShape> shape =
        array_kernels::ReshapeTarget(input.shape(), ctx->input(1));  // sizes: host memory
    OP_REQUIRES_OK(ctx, shape.status());
    SetReshaped(ctx, input, *shape);
  }
  bool IsExpensive() const override { return false; }
};

class ExpandDimsGpuOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    int64_t dim = 0;
    OP_REQUIRES_OK(ctx,
                   array_kernels::ReadIndexScalar(ctx->input(1), "dim", &dim));
    const int rank = input.shape().rank();
    OP_REQUIRES(ctx, dim >= -1 - rank && dim <= rank,
                absl::InvalidArgumentError(absl::StrCat(
                    "dim ", dim, " is out of range for a tensor of shape ",
                    input.shape().ToString(), ": it must be in [", -1 - rank,
                    ", ", rank, "]")));
    if (dim < 0) dim += rank + 1;
    TensorShape shape = input.shape();
    shape.InsertDim(static_cast<int>(dim), 1);
    SetReshaped(ctx, input, shape);
  }
  bool IsExpensive() const override { return false; }
};

class SqueezeGpuOp : public OpKernel {
 public:
  explicit SqueezeGpuOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    std::vector<int64_t> dims;
    absl::Status s = ctx->GetAttr("squeeze_dims", &dims);
    if (!s.ok()) {
      ctx->SetStatus(s);
      return;
    }
    squeeze_dims_.assign(dims.begin(), dims.end());
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    const TensorShape& in = input.shape();
    const int rank = in.rank();
    absl::InlinedVector<bool, 8> squeeze(rank, false);
    for (int64_t dim : squeeze_dims_) {
      OP_REQUIRES(ctx, dim >= -rank && dim < rank,
                  absl::InvalidArgumentError(absl::StrCat(
                      "squeeze_dims entry ", dim,
                      " is out of range for a tensor of shape ", in.ToString(),
                      ": it must be in [", -rank, ", ", rank, ")")));
      squeeze[dim < 0 ? dim + rank : dim] = true;
    }
    TensorShape shape;
    for (int i = 0; i < rank; ++i) {
      const int64_t size = in.dim(i);
      if (squeeze_dims_.empty()) {
        if (size != 1) shape.AddDim(size);
      } else if (squeeze[i]) {
        OP_REQUIRES(ctx, size == 1,
                    absl::InvalidArgumentError(absl::StrCat(
                        "cannot squeeze dimension ", i, " of shape ",
                        in.ToString(), ": its size is ", size, ", not 1")));
      } else {
        shape.AddDim(size);
      }
    }
    SetReshaped(ctx, input, shape);
  }
  bool IsExpensive() const override { return false; }

 private:
  IndexVec squeeze_dims_;
};

// --- Shape, Size, Rank: host-memory outputs ---

void OutputIndexVector(OpKernelContext* ctx, int i,
                       absl::Span<const int64_t> values,
                       const TensorShape& shape, absl::string_view what) {
  Tensor* out = nullptr;
  OP_REQUIRES_OK(ctx, ctx->allocate_output(i, shape, &out));
  if (out->dtype() == DT_INT64) {
    std::copy(values.begin(), values.end(), out->data<int64_t>());
    return;
  }
  int32_t* data = out->data<int32_t>();
  for (size_t j = 0; j < values.size(); ++j) {
    OP_REQUIRES(ctx, values[j] <= std::numeric_limits<int32_t>::max(),
                absl::InvalidArgumentError(absl::StrCat(
                    what, " ", values[j],
                    " does not fit in int32; set out_type to int64")));
    data[j] = static_cast<int32_t>(values[j]);
  }
}

class ShapeGpuOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    const TensorShape& in = ctx->input(0).shape();
    OutputIndexVector(ctx, 0, in.dims(), TensorShape({in.rank()}),
                      "a dimension of size");
  }
  bool IsExpensive() const override { return false; }
};

class SizeGpuOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    const int64_t n = ctx->input(0).NumElements();
    OutputIndexVector(ctx, 0, absl::MakeConstSpan(&n, 1), TensorShape(),
                      "the element count");
  }
  bool IsExpensive() const override { return false; }
};

class RankGpuOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape(), &out));
    out->data<int32_t>()[0] = ctx->input(0).shape().rank();
  }
  bool IsExpensive() const override { return false; }
};

// --- Host-memory helpers of gradients: BroadcastGradientArgs,
// InvertPermutation (every argument in host memory) ---

// For z = x op y with NumPy broadcasting, the axes of z that the gradients
// of x (r0) and y (r1) must be summed over; an axis where both shapes are
// 1 is listed for both (as the CPU kernel and TensorFlow).
class BroadcastGradientArgsGpuOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    const Tensor& s0_t = ctx->input(0);
    const Tensor& s1_t = ctx->input(1);
    OP_REQUIRES(
        ctx, s0_t.shape().rank() == 1 && s1_t.shape().rank() == 1,
        absl::InvalidArgumentError(absl::StrCat(
            "s0 and s1 must be vectors, but have shapes ",
            s0_t.shape().ToString(), " and ", s1_t.shape().ToString())));
    IndexVec s0, s1;
    OP_REQUIRES_OK(ctx, array_kernels::ReadIndexVector(s0_t, "s0", &s0));
    OP_REQUIRES_OK(ctx, array_kernels::ReadIndexVector(s1_t, "s1", &s1));
    const auto bad = [&](absl::string_view why) {
      return absl::InvalidArgumentError(absl::StrCat(
          "incompatible shapes for broadcasting: [", absl::StrJoin(s0, ","),
          "] and [", absl::StrJoin(s1, ","), "]", why));
    };
    const size_t n = std::max(s0.size(), s1.size());
    IndexVec r0, r1;
    for (size_t axis = 0; axis < n; ++axis) {
      const size_t from_end = n - axis;  // 1 for the innermost axis
      const int64_t x = from_end <= s0.size() ? s0[s0.size() - from_end] : 1;
      const int64_t y = from_end <= s1.size() ? s1[s1.size() - from_end] : 1;
      OP_REQUIRES(ctx, x >= 0 && y >= 0, bad(" (negative dimension)"));
      if (x == y) {
        if (x == 1) {
          r0.push_back(static_cast<int64_t>(axis));
          r1.push_back(static_cast<int64_t>(axis));
        }
      } else if (x == 1) {
        r0.push_back(static_cast<int64_t>(axis));
      } else if (y == 1) {
        r1.push_back(static_cast<int64_t>(axis));
      } else {
        OP_REQUIRES(ctx, false, bad(""));
      }
    }
    OutputIndexVector(ctx, 0, r0,
                      TensorShape({static_cast<int64_t>(r0.size())}), "axis");
    OutputIndexVector(ctx, 1, r1,
                      TensorShape({static_cast<int64_t>(r1.size())}), "axis");
  }
  bool IsExpensive() const override { return false; }
};

class InvertPermutationGpuOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    const Tensor& x = ctx->input(0);
    OP_REQUIRES(
        ctx, x.shape().rank() == 1,
        absl::InvalidArgumentError(absl::StrCat(
            "x must be a vector, but has shape ", x.shape().ToString())));
    IndexVec perm;
    OP_REQUIRES_OK(ctx, array_kernels::ReadIndexVector(x, "x", &perm));
    const int64_t n = static_cast<int64_t>(perm.size());
    IndexVec inverse(perm.size(), -1);
    for (int64_t i = 0; i < n; ++i) {
      const int64_t p = perm[i];
      OP_REQUIRES(
          ctx, p >= 0 && p < n && inverse[p] < 0,
          absl::InvalidArgumentError(absl::StrCat(
              "x [", absl::StrJoin(perm, ","), "] is not a permutation of 0..",
              n - 1, ": ", p < 0 || p >= n ? "entry out of range" : "duplicate",
              " ", p, " at position ", i)));
      inverse[p] = i;
    }
    Tensor* y = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, x.shape(), &y));
    for (int64_t i = 0; i < n; ++i) {
      if (y->dtype() == DT_INT64) {
        y->data<int64_t>()[i] = inverse[i];
      } else {
        y->data<int32_t>()[i] = static_cast<int32_t>(inverse[i]);
      }
    }
  }
  bool IsExpensive() const override { return false; }
};

// --- Range (the int32 definition: every argument in host memory) ---

class RangeInt32GpuOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    const char* names[] = {"start", "limit", "delta"};
    int32_t v[3];
    for (int i = 0; i < 3; ++i) {
      const Tensor& t = ctx->input(i);
      OP_REQUIRES(ctx, t.NumElements() == 1 && t.shape().rank() <= 1,
                  absl::InvalidArgumentError(
                      absl::StrCat(names[i], " must be a scalar, not shape ",
                                   t.shape().ToString())));
      v[i] = t.data<int32_t>()[0];
    }
    const int32_t start = v[0], limit = v[1], delta = v[2];
    const std::string values = absl::StrCat(
        "start = ", start, ", limit = ", limit, ", delta = ", delta);
    OP_REQUIRES(ctx, delta != 0,
                absl::InvalidArgumentError(
                    absl::StrCat("Range requires delta != 0 (", values, ")")));
    if (delta > 0) {
      OP_REQUIRES(
          ctx, start <= limit,
          absl::InvalidArgumentError(absl::StrCat(
              "Range requires start <= limit when delta > 0 (", values, ")")));
    } else {
      OP_REQUIRES(
          ctx, start >= limit,
          absl::InvalidArgumentError(absl::StrCat(
              "Range requires start >= limit when delta < 0 (", values, ")")));
    }
    // In 64 bits: limit - start may overflow int32.
    const int64_t span = static_cast<int64_t>(limit) - start;
    const int64_t abs_span = span < 0 ? -span : span;
    const int64_t abs_step = delta < 0 ? -static_cast<int64_t>(delta) : delta;
    const int64_t size = (abs_span + abs_step - 1) / abs_step;
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape({size}), &out));
    int32_t* data = out->data<int32_t>();
    for (int64_t i = 0; i < size; ++i) {
      data[i] = static_cast<int32_t>(start + i * static_cast<int64_t>(delta));
    }
  }
  bool IsExpensive() const override { return false; }
};

// --- Placeholder, PlaceholderWithDefault ---

// A placeholder that runs was not fed: the CPU kernel's error.
class PlaceholderGpuOp : public OpKernel {
 public:
  explicit PlaceholderGpuOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    DataType dtype = DT_INVALID;
    TensorShape shape = TensorShape::Unknown();
    ctx->GetAttr("dtype", &dtype).IgnoreError();
    ctx->GetAttr("shape", &shape).IgnoreError();
    message_ =
        absl::StrCat("placeholder '", ctx->name(), "' of dtype ",
                     DataTypeName(dtype), " and shape ", shape.ToString(),
                     " must be fed: pass it in Session::Run feeds");
  }
  void Compute(OpKernelContext* ctx) override {
    ctx->SetStatus(absl::InvalidArgumentError(message_));
  }
  bool IsExpensive() const override { return false; }

 private:
  std::string message_;
};

// --- ZerosLike: every device type's zero is all-zero bytes ---

class ZerosLikeGpuOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    DFLOW_GPU_KERNEL_PREAMBLE(ctx, gpu);
    const Tensor& x = ctx->input(0);
    Tensor* y = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, x.shape(), &y));
    if (y->TotalBytes() == 0) return;
    if (output_in_host_memory(0)) {  // the int32 definition
      std::memset(y->raw_data(), 0, y->TotalBytes());
      return;
    }
    DFLOW_GPU_OP_REQUIRES_CUDA(
        ctx,
        cudaMemsetAsync(y->raw_data(), 0, y->TotalBytes(), GpuStreamOf(ctx)),
        "clearing ZerosLike's output");
  }
};

KernelDefBuilder Gpu(const char* op) {
  KernelDefBuilder b(op);
  b.Device(kDeviceGpu);
  return b;
}

// The device-memory definitions and their int32 twins (every argument in
// host memory).
void RegisterDeviceAndInt32(
    const char* op, const std::vector<std::string>& host,
    const std::vector<std::string>& all_args,
    const std::vector<std::pair<std::string, std::vector<DataType>>>& extra,
    KernelFactory factory) {
  KernelDefBuilder device = Gpu(op);
  device.TypeConstraint("T", DeviceMovable());
  KernelDefBuilder int32 = Gpu(op);
  int32.TypeConstraint("T", {DT_INT32});
  for (const auto& [attr, types] : extra) {
    device.TypeConstraint(attr, types);
    int32.TypeConstraint(attr, types);
  }
  for (const std::string& arg : host) device.HostMemory(arg);
  for (const std::string& arg : all_args) int32.HostMemory(arg);
  KernelRegistry::Global()->RegisterImplementation(device.def(), factory);
  KernelRegistry::Global()->RegisterImplementation(int32.def(), factory);
}

template <typename K>
KernelFactory Factory() {
  return [](OpKernelConstruction* ctx) -> std::unique_ptr<OpKernel> {
    return std::make_unique<K>(ctx);
  };
}

const bool kRegistered = [] {
  KernelRegistry* r = KernelRegistry::Global();
  const std::vector<DataType> idx = {DT_INT32, DT_INT64};
  for (const char* op : {"Identity", "StopGradient"}) {
    r->RegisterImplementation(
        Gpu(op).TypeConstraint("T", DeviceMovable()).def(),
        Factory<IdentityGpuOp>());
    r->RegisterImplementation(Gpu(op)
                                  .TypeConstraint("T", {DT_INT32})
                                  .HostMemory("input")
                                  .HostMemory("output")
                                  .def(),
                              Factory<IdentityGpuOp>());
    r->RegisterImplementation(Gpu(op)
                                  .TypeConstraint("T", {DT_STRING, DT_RESOURCE})
                                  .HostMemory("input")
                                  .HostMemory("output")
                                  .def(),
                              Factory<IdentityGpuOp>());
  }
  r->RegisterImplementation(Gpu("IdentityN").def(), Factory<IdentityNGpuOp>());
  r->RegisterImplementation(Gpu("NoOp").def(), Factory<NoOpGpuOp>());

  RegisterDeviceAndInt32("Reshape", {"shape"}, {"tensor", "shape", "output"},
                         {{"Tshape", idx}}, Factory<ReshapeGpuOp>());
  RegisterDeviceAndInt32("ExpandDims", {"dim"}, {"input", "dim", "output"},
                         {{"Tdim", idx}}, Factory<ExpandDimsGpuOp>());
  RegisterDeviceAndInt32("Squeeze", {}, {"input", "output"}, {},
                         Factory<SqueezeGpuOp>());
  RegisterDeviceAndInt32("Shape", {"output"}, {"input", "output"},
                         {{"out_type", idx}}, Factory<ShapeGpuOp>());
  RegisterDeviceAndInt32("Size", {"output"}, {"input", "output"},
                         {{"out_type", idx}}, Factory<SizeGpuOp>());
  RegisterDeviceAndInt32("Rank", {"output"}, {"input", "output"}, {},
                         Factory<RankGpuOp>());

  r->RegisterImplementation(Gpu("BroadcastGradientArgs")
                                .TypeConstraint("T", idx)
                                .HostMemory("s0")
                                .HostMemory("s1")
                                .HostMemory("r0")
                                .HostMemory("r1")
                                .def(),
                            Factory<BroadcastGradientArgsGpuOp>());
  r->RegisterImplementation(Gpu("InvertPermutation")
                                .TypeConstraint("T", idx)
                                .HostMemory("x")
                                .HostMemory("y")
                                .def(),
                            Factory<InvertPermutationGpuOp>());
  r->RegisterImplementation(Gpu("Range")
                                .TypeConstraint("Tidx", {DT_INT32})
                                .HostMemory("start")
                                .HostMemory("limit")
                                .HostMemory("delta")
                                .HostMemory("output")
                                .def(),
                            Factory<RangeInt32GpuOp>());
  r->RegisterImplementation(Gpu("Placeholder").def(),
                            Factory<PlaceholderGpuOp>());
  r->RegisterImplementation(
      Gpu("PlaceholderWithDefault").TypeConstraint("dtype", DeviceMovable())
          .def(),
      Factory<IdentityGpuOp>());
  r->RegisterImplementation(Gpu("PlaceholderWithDefault")
                                .TypeConstraint("dtype", {DT_INT32})
                                .HostMemory("input")
                                .HostMemory("output")
                                .def(),
                            Factory<IdentityGpuOp>());
  r->RegisterImplementation(Gpu("ZerosLike")
                                .TypeConstraint("T", {DT_INT32})
                                .HostMemory("y")
                                .def(),
                            Factory<ZerosLikeGpuOp>());
  // ZerosLike on the device types.
  r->RegisterImplementation(
      Gpu("ZerosLike")
          .TypeConstraint("T", Concat({GpuFloat(), Complex(),
                                       {DT_BOOL, DT_INT64}}))
          .def(),
      Factory<ZerosLikeGpuOp>());
  return true;
}();

}  // namespace
}  // namespace dflow

#endif  // DFLOW_HAVE_CUDA
