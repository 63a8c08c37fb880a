// CPU kernels for the ops that produce values from attrs and scalars: Const,
// Placeholder, PlaceholderWithDefault, Range and OneHot.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <type_traits>

#include "absl/strings/str_cat.h"
#include "graph/node_def_util.h"
#include "graph/tensor.h"
#include "graph/tensor_shape.h"
#include "graph/types.h"
#include "kernels/cpu/kernel_util_array.h"
#include "runtime/kernel_registry.h"
#include "runtime/op_kernel.h"
#include "runtime/thread_pool.h"

namespace dflow {
namespace {

using array_kernels::AllTensorTypes;

// --- Const ---

// The value attr is decoded once; every step outputs the same Tensor (a
// shared buffer, no copy). Consumers never write into inputs they did not
// allocate, so sharing is safe. The value lives in the device's memory, so
// the device's allocator statistics include the graph's constants.
class ConstOp : public OpKernel {
 public:
  explicit ConstOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    DataType dtype;
    absl::Status s = ctx->GetAttr("dtype", &dtype);
    const AttrValue* value = ctx->node().FindAttr("value");
    if (s.ok() && (value == nullptr || !value->has_tensor())) {
      s = absl::InvalidArgumentError(
          "attr 'value' is missing or holds no tensor; a Const needs one");
    }
    if (!s.ok()) {
      ctx->SetStatus(s);
      return;
    }
    if (value->tensor().dtype() != dtype) {
      ctx->SetStatus(absl::InvalidArgumentError(absl::StrCat(
          "attr 'value' holds a ", DataTypeName(value->tensor().dtype()),
          " tensor but attr 'dtype' is ", DataTypeName(dtype))));
      return;
    }
    // Decoded straight into the device's memory: a huge shape with few
    // values (they repeat) is refused by the device's memory limit here,
    // naming the node, rather than first expanded on the host.
    Allocator* allocator = ctx->device()->allocator();
    absl::StatusOr<Tensor> decoded =
        Tensor::FromProto(value->tensor(), allocator);
    if (!decoded.ok()) {
      absl::Status error = decoded.status();
      if (error.code() == absl::StatusCode::kResourceExhausted) {
        absl::StatusOr<TensorShape> shape =
            TensorShape::FromProto(value->tensor().tensor_shape());
        const int64_t bytes =
            shape.ok() ? shape->num_elements() *
                             static_cast<int64_t>(DataTypeSize(dtype))
                       : 0;
        absl::Status explained =
            allocator->OutOfMemoryError(NodeLabel(ctx->name(), "Const"), bytes);
        if (!explained.ok()) error = explained;
      }
      ctx->SetStatus(absl::Status(
          error.code(), absl::StrCat("attr 'value': ", error.message())));
      return;
    }
    value_ = *std::move(decoded);
  }
  void Compute(OpKernelContext* ctx) override { ctx->set_output(0, value_); }
  bool IsExpensive() const override { return false; }

 private:
  Tensor value_;
};

// --- Placeholder ---

// Fed placeholders are replaced by the session, so running this kernel
// means a feed is missing.
class PlaceholderOp : public OpKernel {
 public:
  explicit PlaceholderOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
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

class PlaceholderWithDefaultOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    ctx->set_output(0, ctx->input(0));
  }
  bool IsExpensive() const override { return false; }
};

// --- Range ---

template <typename T>
class RangeOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    const char* names[] = {"start", "limit", "delta"};
    T v[3];
    for (int i = 0; i < 3; ++i) {
      const Tensor& t = ctx->input(i);
      OP_REQUIRES(ctx, t.NumElements() == 1 && t.shape().rank() <= 1,
                  absl::InvalidArgumentError(
                      absl::StrCat(names[i], " must be a scalar, not shape ",
                                   t.shape().ToString())));
      v[i] = t.data<T>()[0];
    }
    const T start = v[0], limit = v[1], delta = v[2];
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
    int64_t size = 0;
    if constexpr (std::is_integral_v<T>) {
      // Exact in 128 bits: limit - start may overflow T.
      const __int128 span = static_cast<__int128>(limit) - start;
      const __int128 step = delta;
      const __int128 abs_span = span < 0 ? -span : span;
      const __int128 abs_step = step < 0 ? -step : step;
      size = static_cast<int64_t>((abs_span + abs_step - 1) / abs_step);
    } else {
      // In T's precision, as TensorFlow computes it.
      const double n =
          static_cast<double>(std::ceil(std::abs((limit - start) / delta)));
      OP_REQUIRES(ctx, n >= 0 && n < 9.2e18,
                  absl::InvalidArgumentError(absl::StrCat(
                      "Range would have too many elements (", values, ")")));
      size = static_cast<int64_t>(n);
    }
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape({size}), &out));
    T* data = out->data<T>();
    if constexpr (std::is_integral_v<T>) {
      // Every value lies between start and limit, so it fits in T; the
      // products are formed in 64 bits, which wrap only where T is int64
      // and the exact result still fits (unsigned arithmetic: no UB).
      const uint64_t s = static_cast<uint64_t>(static_cast<int64_t>(start));
      const uint64_t d = static_cast<uint64_t>(static_cast<int64_t>(delta));
      for (int64_t i = 0; i < size; ++i) {
        data[i] = static_cast<T>(
            static_cast<int64_t>(s + static_cast<uint64_t>(i) * d));
      }
    } else {
      for (int64_t i = 0; i < size; ++i) {
        data[i] = start + static_cast<T>(i) * delta;
      }
    }
  }
};

// --- OneHot ---

// Values are only copied, never compared, so one instantiation per element
// width serves every T.
template <typename T, typename TI>
void FillOneHot(const Tensor& indices, const Tensor& on_t, const Tensor& off_t,
                int64_t prefix, int64_t depth, int64_t suffix, Tensor* out,
                ThreadPool* pool) {
  const TI* idx = indices.data<TI>();
  const T& on = array_kernels::CopyData<T>(on_t)[0];
  const T& off = array_kernels::CopyData<T>(off_t)[0];
  T* o = array_kernels::CopyData<T>(out);
  // out[p, d, s] = indices[p, s] == d ? on : off. Indices outside
  // [0, depth) match no d and give rows of off_value.
  const int64_t block = depth * suffix;
  pool->ParallelFor(prefix, block * static_cast<int64_t>(sizeof(T)),
                    [&](int64_t begin, int64_t end) {
                      for (int64_t p = begin; p < end; ++p) {
                        T* row = o + p * block;
                        for (int64_t j = 0; j < block; ++j) row[j] = off;
                        for (int64_t s = 0; s < suffix; ++s) {
                          const int64_t d =
                              static_cast<int64_t>(idx[p * suffix + s]);
                          if (d >= 0 && d < depth) row[d * suffix + s] = on;
                        }
                      }
                    });
}

template <typename TI>
class OneHotOp : public OpKernel {
 public:
  explicit OneHotOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    absl::Status s = ctx->GetAttr("axis", &axis_);
    if (!s.ok()) ctx->SetStatus(s);
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& indices = ctx->input(0);
    const Tensor& depth_t = ctx->input(1);
    const Tensor& on_t = ctx->input(2);
    const Tensor& off_t = ctx->input(3);
    const int rank = indices.shape().rank();
    OP_REQUIRES(ctx, axis_ == -1 || (axis_ >= 0 && axis_ <= rank),
                absl::InvalidArgumentError(absl::StrCat(
                    "axis ", axis_, " is out of range for indices of shape ",
                    indices.shape().ToString(), ": it must be -1 or in [0, ",
                    rank, "]")));
    OP_REQUIRES(ctx, depth_t.shape().rank() == 0,
                absl::InvalidArgumentError(
                    absl::StrCat("depth must be a scalar, but has shape ",
                                 depth_t.shape().ToString())));
    OP_REQUIRES(ctx, on_t.shape().rank() == 0,
                absl::InvalidArgumentError(
                    absl::StrCat("on_value must be a scalar, but has shape ",
                                 on_t.shape().ToString())));
    OP_REQUIRES(ctx, off_t.shape().rank() == 0,
                absl::InvalidArgumentError(
                    absl::StrCat("off_value must be a scalar, but has shape ",
                                 off_t.shape().ToString())));
    const int64_t depth = depth_t.data<int32_t>()[0];
    OP_REQUIRES(ctx, depth >= 0,
                absl::InvalidArgumentError(
                    absl::StrCat("depth must be >= 0, got ", depth)));
    const int axis = axis_ == -1 ? rank : static_cast<int>(axis_);
    TensorShape out_shape = indices.shape();
    out_shape.InsertDim(axis, depth);
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, out_shape, &out));
    if (out->NumElements() == 0) return;
    const int64_t prefix = array_kernels::DimProduct(indices.shape(), 0, axis);
    const int64_t suffix =
        array_kernels::DimProduct(indices.shape(), axis, rank);
    array_kernels::VisitCopyType(out->dtype(), [&](auto* tag) {
      using T = std::remove_pointer_t<decltype(tag)>;
      FillOneHot<T, TI>(indices, on_t, off_t, prefix, depth, suffix, out,
                        ctx->thread_pool());
    });
  }

 private:
  int64_t axis_ = -1;
};

// --- Registrations ---

DFLOW_REGISTER_KERNEL(KernelDefBuilder("Const")
                          .Device(kDeviceCpu)
                          .TypeConstraint("dtype", AllTensorTypes()),
                      ConstOp);
DFLOW_REGISTER_KERNEL(KernelDefBuilder("Placeholder")
                          .Device(kDeviceCpu)
                          .TypeConstraint("dtype", AllTensorTypes()),
                      PlaceholderOp);
DFLOW_REGISTER_KERNEL(KernelDefBuilder("PlaceholderWithDefault")
                          .Device(kDeviceCpu)
                          .TypeConstraint("dtype", AllTensorTypes()),
                      PlaceholderWithDefaultOp);

#define DFLOW_REGISTER_RANGE(T)                                               \
  DFLOW_REGISTER_KERNEL(                                                      \
      KernelDefBuilder("Range").Device(kDeviceCpu).TypeConstraint<T>("Tidx"), \
      RangeOp<T>)
DFLOW_REGISTER_RANGE(int32_t);
DFLOW_REGISTER_RANGE(int64_t);
DFLOW_REGISTER_RANGE(float);
DFLOW_REGISTER_RANGE(double);
#undef DFLOW_REGISTER_RANGE

#define DFLOW_REGISTER_ONE_HOT(TI)                                 \
  DFLOW_REGISTER_KERNEL(KernelDefBuilder("OneHot")                 \
                            .Device(kDeviceCpu)                    \
                            .TypeConstraint("T", AllTensorTypes()) \
                            .TypeConstraint<TI>("TI"),             \
                        OneHotOp<TI>)
DFLOW_REGISTER_ONE_HOT(uint8_t);
DFLOW_REGISTER_ONE_HOT(int8_t);
DFLOW_REGISTER_ONE_HOT(int32_t);
DFLOW_REGISTER_ONE_HOT(int64_t);
#undef DFLOW_REGISTER_ONE_HOT

}  // namespace
}  // namespace dflow
