// Tensors of one repeated value: ZerosLike, OnesLike, Fill and Empty
// (zeros whatever its `init` says: TensorFlow leaves the contents
// unspecified without it, and zeros cost one pass). One kernel
// per op serves every dtype, dispatching on the dtype when it runs.
#include <algorithm>
#include <complex>
#include <string>
#include <type_traits>
#include <vector>

#include "absl/strings/str_cat.h"
#include "kernels/cpu/kernel_util.h"
#include "runtime/kernel_registry.h"

namespace dflow {
namespace {

template <typename T>
void FillWith(OpKernelContext* ctx, Tensor* out, const T& value) {
  T* o = out->data<T>();
  const int64_t cost = std::is_same_v<T, std::string> ? 20 : 1;
  ParallelForShards(ctx, out->NumElements(), cost,
                    [o, &value](int64_t begin, int64_t end) {
                      std::fill(o + begin, o + end, value);
                    });
}

template <typename T>
T One() {
  if constexpr (std::is_same_v<T, float16>) {
    return float16::FromFloat(1.0f);
  } else if constexpr (std::is_same_v<T, bfloat16>) {
    return bfloat16::FromFloat(1.0f);
  } else {
    return T(1);
  }
}

std::vector<DataType> NumericAndBoolTypes() {
  return {DT_BOOL,   DT_HALF,   DT_BFLOAT16, DT_FLOAT,     DT_DOUBLE,
          DT_INT8,   DT_INT16,  DT_INT32,    DT_INT64,     DT_UINT8,
          DT_UINT16, DT_UINT32, DT_UINT64,   DT_COMPLEX64, DT_COMPLEX128};
}

std::vector<DataType> AllFillTypes() {
  std::vector<DataType> types = NumericAndBoolTypes();
  types.push_back(DT_STRING);
  return types;
}

// ZerosLike (kOnes false) and OnesLike (kOnes true).
template <bool kOnes>
class ConstantLikeOp : public OpKernel {
 public:
  explicit ConstantLikeOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}

  void Compute(OpKernelContext* ctx) override {
    const Tensor& x = ctx->input(0);
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, x.shape(), &out));
    const bool known = VisitStorageType(x.dtype(), [&](auto* tag) {
      using T = std::remove_pointer_t<decltype(tag)>;
      if constexpr (!kOnes) {
        FillWith<T>(ctx, out, T{});
      } else if constexpr (std::is_same_v<T, std::string>) {
        ctx->SetStatus(
            absl::InvalidArgumentError("OnesLike is not defined for strings"));
      } else {
        FillWith<T>(ctx, out, One<T>());
      }
    });
    OP_REQUIRES(ctx, known,
                absl::UnimplementedError(absl::StrCat(
                    kOnes ? "OnesLike" : "ZerosLike", " does not support ",
                    DataTypeName(x.dtype()))));
  }
};

class FillOp : public OpKernel {
 public:
  explicit FillOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}

  void Compute(OpKernelContext* ctx) override {
    const Tensor& dims = ctx->input(0);
    const Tensor& value = ctx->input(1);
    OP_REQUIRES(
        ctx, dims.shape().rank() == 1,
        absl::InvalidArgumentError(absl::StrCat(
            "dims must be a vector, got shape ", dims.shape().ToString())));
    OP_REQUIRES(
        ctx, value.shape().rank() == 0,
        absl::InvalidArgumentError(absl::StrCat(
            "value must be a scalar, got shape ", value.shape().ToString())));
    OP_REQUIRES(
        ctx, dims.dtype() == DT_INT32 || dims.dtype() == DT_INT64,
        absl::InvalidArgumentError(absl::StrCat(
            "dims must be int32 or int64, got ", DataTypeName(dims.dtype()))));
    TensorShape shape;
    for (int64_t i = 0; i < dims.NumElements(); ++i) {
      const int64_t d = dims.dtype() == DT_INT32 ? dims.data<int32_t>()[i]
                                                 : dims.data<int64_t>()[i];
      OP_REQUIRES(ctx, d >= 0,
                  absl::InvalidArgumentError(absl::StrCat(
                      "dims[", i, "] = ", d,
                      " is negative; Fill needs sizes >= 0 (dims: ",
                      dims.DebugString(), ")")));
      shape.AddDim(d);
    }
    OP_REQUIRES(ctx, shape.num_elements() >= 0,
                absl::InvalidArgumentError(
                    absl::StrCat("Fill shape ", shape.ToString(),
                                 " has more elements than an int64 counts")));
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, shape, &out));
    const bool known = VisitStorageType(value.dtype(), [&](auto* tag) {
      using T = std::remove_pointer_t<decltype(tag)>;
      FillWith<T>(ctx, out, *value.data<T>());
    });
    OP_REQUIRES(ctx, known,
                absl::UnimplementedError(absl::StrCat(
                    "Fill does not support ", DataTypeName(value.dtype()))));
  }
};

class EmptyOp : public OpKernel {
 public:
  explicit EmptyOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}

  void Compute(OpKernelContext* ctx) override {
    const Tensor& dims = ctx->input(0);
    OP_REQUIRES(
        ctx, dims.shape().rank() == 1 && dims.dtype() == DT_INT32,
        absl::InvalidArgumentError(absl::StrCat(
            "shape must be an int32 vector, got ", DataTypeName(dims.dtype()),
            " of shape ", dims.shape().ToString())));
    TensorShape shape;
    for (int64_t i = 0; i < dims.NumElements(); ++i) {
      const int64_t d = dims.data<int32_t>()[i];
      OP_REQUIRES(ctx, d >= 0,
                  absl::InvalidArgumentError(absl::StrCat(
                      "shape[", i, "] = ", d,
                      " is negative; Empty needs sizes >= 0 (shape: ",
                      dims.DebugString(), ")")));
      shape.AddDim(d);
    }
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, shape, &out));
    const bool known = VisitStorageType(out->dtype(), [&](auto* tag) {
      using T = std::remove_pointer_t<decltype(tag)>;
      FillWith<T>(ctx, out, T{});
    });
    OP_REQUIRES(ctx, known,
                absl::UnimplementedError(absl::StrCat(
                    "Empty does not support ", DataTypeName(out->dtype()))));
  }
};

DFLOW_REGISTER_KERNEL(KernelDefBuilder("Empty")
                          .Device(kDeviceCpu)
                          .TypeConstraint("dtype", AllFillTypes())
                          .HostMemory("shape"),
                      EmptyOp);
DFLOW_REGISTER_KERNEL(KernelDefBuilder("ZerosLike")
                          .Device(kDeviceCpu)
                          .TypeConstraint("T", AllFillTypes()),
                      ConstantLikeOp<false>);
DFLOW_REGISTER_KERNEL(KernelDefBuilder("OnesLike")
                          .Device(kDeviceCpu)
                          .TypeConstraint("T", NumericAndBoolTypes()),
                      ConstantLikeOp<true>);
DFLOW_REGISTER_KERNEL(KernelDefBuilder("Fill")
                          .Device(kDeviceCpu)
                          .TypeConstraint("T", AllFillTypes())
                          .HostMemory("dims"),
                      FillOp);

}  // namespace
}  // namespace dflow
