// InplaceAdd / InplaceSub / InplaceUpdate, ParallelConcat and Timestamp
// (graph/ops/array_ops_inplace.cc). The Inplace ops copy x and change rows
// i[j] (an index out of [0, x.shape[0]) is an InvalidArgument; repeated
// rows add up, or the last update wins, as in TensorFlow's sequential
// loop). ParallelConcat stacks inputs of size 1 in dimension 0 into its
// shape attr. Timestamp reads the wall clock (nondeterministic by nature).
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "graph/tensor.h"
#include "graph/types.h"
#include "kernels/cpu/kernel_util_array.h"
#include "runtime/kernel_registry.h"
#include "runtime/op_kernel.h"

namespace dflow {
namespace {

enum class InplaceKind { kAdd, kSub, kUpdate };

// Checks x, i and v and returns the row size (elements) through `row`.
absl::Status CheckInplace(const Tensor& x, const Tensor& i, const Tensor& v,
                          int64_t* row) {
  if (i.shape().rank() != 1) {
    return absl::InvalidArgumentError(absl::StrCat(
        "i must be a vector, got shape ", i.shape().ToString()));
  }
  if (x.shape().rank() < 1 || x.shape().rank() != v.shape().rank()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "x and v shape doesn't match (ranks differ or x is a scalar): x ",
        x.shape().ToString(), ", v ", v.shape().ToString()));
  }
  for (int d = 1; d < x.shape().rank(); ++d) {
    if (x.shape().dim(d) != v.shape().dim(d)) {
      return absl::InvalidArgumentError(absl::StrCat(
          "x and v shape doesn't match at index ", d, ": x ",
          x.shape().ToString(), ", v ", v.shape().ToString()));
    }
  }
  if (i.NumElements() != v.shape().dim(0)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "i and v shape doesn't match at index 0: i ", i.shape().ToString(),
        ", v ", v.shape().ToString()));
  }
  const int64_t rows = x.shape().dim(0);
  const int32_t* idx = i.data<int32_t>();
  for (int64_t j = 0; j < i.NumElements(); ++j) {
    if (idx[j] < 0 || idx[j] >= rows) {
      return absl::InvalidArgumentError(
          absl::StrCat("i[", j, "] = ", idx[j], " is not in [0, ", rows,
                       "), the rows of x ", x.shape().ToString()));
    }
  }
  *row = rows == 0 ? 0 : x.NumElements() / rows;
  return absl::OkStatus();
}

template <typename T, InplaceKind kKind>
class InplaceOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    const Tensor& x = ctx->input(0);
    const Tensor& i = ctx->input(1);
    const Tensor& v = ctx->input(2);
    int64_t row = 0;
    OP_REQUIRES_OK(ctx, CheckInplace(x, i, v, &row));
    Tensor* y = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, x.shape(), &y));
    const T* xd = x.data<T>();
    T* yd = y->data<T>();
    std::copy_n(xd, x.NumElements(), yd);
    const int32_t* idx = i.data<int32_t>();
    const T* vd = v.data<T>();
    for (int64_t j = 0; j < i.NumElements(); ++j) {
      T* dst = yd + idx[j] * row;
      const T* src = vd + j * row;
      for (int64_t k = 0; k < row; ++k) {
        if constexpr (kKind == InplaceKind::kAdd) {
          dst[k] = dst[k] + src[k];
        } else if constexpr (kKind == InplaceKind::kSub) {
          dst[k] = dst[k] - src[k];
        } else {
          dst[k] = src[k];
        }
      }
    }
  }
};

// InplaceUpdate of any type: rows moved as their copy type.
class InplaceUpdateOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    const Tensor& x = ctx->input(0);
    const Tensor& i = ctx->input(1);
    const Tensor& v = ctx->input(2);
    int64_t row = 0;
    OP_REQUIRES_OK(ctx, CheckInplace(x, i, v, &row));
    Tensor* y = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, x.shape(), &y));
    const int32_t* idx = i.data<int32_t>();
    array_kernels::VisitCopyType(x.dtype(), [&](auto* tag) {
      using C = std::remove_pointer_t<decltype(tag)>;
      const C* xd = array_kernels::CopyData<C>(x);
      const C* vd = array_kernels::CopyData<C>(v);
      C* yd = array_kernels::CopyData<C>(y);
      std::copy_n(xd, x.NumElements(), yd);
      for (int64_t j = 0; j < i.NumElements(); ++j) {
        std::copy_n(vd + j * row, row, yd + idx[j] * row);
      }
    });
  }
};

class ParallelConcatOp : public OpKernel {
 public:
  explicit ParallelConcatOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    ctx->SetStatus(ctx->GetAttr("shape", &shape_));
  }

  void Compute(OpKernelContext* ctx) override {
    const int n = num_inputs();
    const Tensor& first = ctx->input(0);
    for (int j = 0; j < n; ++j) {
      const TensorShape& s = ctx->input(j).shape();
      OP_REQUIRES(ctx, s.rank() >= 1 && s.dim(0) == 1,
                  absl::InvalidArgumentError(absl::StrCat(
                      "ParallelConcat's inputs must have size 1 in dimension "
                      "0, got input ",
                      j, " of shape ", s.ToString())));
      OP_REQUIRES(ctx, s == first.shape(),
                  absl::InvalidArgumentError(absl::StrCat(
                      "ParallelConcat's inputs must have one shape, got ",
                      first.shape().ToString(), " and ", s.ToString(),
                      " (input ", j, ")")));
    }
    TensorShape out_shape = first.shape();
    out_shape.set_dim(0, n);
    OP_REQUIRES(ctx, shape_.unknown_rank() || shape_.IsCompatibleWith(out_shape),
                absl::InvalidArgumentError(absl::StrCat(
                    "ParallelConcat's shape attr ", shape_.ToString(),
                    " does not match its ", n, " inputs of shape ",
                    first.shape().ToString())));
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, out_shape, &out));
    const int64_t row = first.NumElements();
    array_kernels::VisitCopyType(first.dtype(), [&](auto* tag) {
      using C = std::remove_pointer_t<decltype(tag)>;
      C* o = array_kernels::CopyData<C>(out);
      for (int j = 0; j < n; ++j) {
        std::copy_n(array_kernels::CopyData<C>(ctx->input(j)), row,
                    o + j * row);
      }
    });
  }

 private:
  TensorShape shape_;
};

class TimestampOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape({}), &out));
    out->data<double>()[0] = absl::ToDoubleSeconds(absl::Now() -
                                                    absl::UnixEpoch());
  }
};

#define DFLOW_REGISTER_INPLACE_ARITH(T)                                   \
  DFLOW_REGISTER_KERNEL(                                                  \
      KernelDefBuilder("InplaceAdd").Device(kDeviceCpu).TypeConstraint<T>( \
          "T"),                                                           \
      InplaceOp<T, InplaceKind::kAdd>);                                   \
  DFLOW_REGISTER_KERNEL(                                                  \
      KernelDefBuilder("InplaceSub").Device(kDeviceCpu).TypeConstraint<T>( \
          "T"),                                                           \
      InplaceOp<T, InplaceKind::kSub>)
DFLOW_REGISTER_INPLACE_ARITH(float);
DFLOW_REGISTER_INPLACE_ARITH(double);
DFLOW_REGISTER_INPLACE_ARITH(int32_t);
DFLOW_REGISTER_INPLACE_ARITH(int64_t);
DFLOW_REGISTER_INPLACE_ARITH(complex64);
DFLOW_REGISTER_INPLACE_ARITH(complex128);
#undef DFLOW_REGISTER_INPLACE_ARITH

DFLOW_REGISTER_KERNEL(KernelDefBuilder("InplaceUpdate")
                          .Device(kDeviceCpu)
                          .TypeConstraint("T", array_kernels::AllTensorTypes()),
                      InplaceUpdateOp);
DFLOW_REGISTER_KERNEL(KernelDefBuilder("ParallelConcat")
                          .Device(kDeviceCpu)
                          .TypeConstraint("T", array_kernels::AllTensorTypes()),
                      ParallelConcatOp);
DFLOW_REGISTER_KERNEL(KernelDefBuilder("Timestamp").Device(kDeviceCpu),
                      TimestampOp);

}  // namespace
}  // namespace dflow
