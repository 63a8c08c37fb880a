// GatherNd (slices of params at the index tuples in the last dimension of
// indices; ResourceGatherNd: of a resource variable's value), ScatterNd (zeros with updates added at index tuples; duplicate
// tuples add up) and ListDiff (the elements of x not in y, in x's order),
// as TensorFlow 2.21's CPU kernels. An index outside params (GatherNd) or
// shape (ScatterNd) is an InvalidArgument naming its position and value,
// unless bad_indices_policy is "IGNORE" (GatherNd: zeros; ScatterNd: the
// update is dropped).
#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "graph/tensor.h"
#include "graph/types.h"
#include "kernels/cpu/index_ops_common.h"
#include "kernels/cpu/kernel_util.h"
#include "kernels/cpu/kernel_util_array.h"
#include "runtime/kernel_registry.h"
#include "runtime/op_kernel.h"
#include "runtime/variables.h"

namespace dflow {
namespace {

using index_ops::IntAt;
using index_ops::Position;
using index_ops::Product;
using index_ops::ReadIgnoreBadIndices;
using index_ops::TupleOffset;
using index_ops::TupleText;

// Slices of `params` at the index tuples in the last dimension of
// `indices` into output 0: GatherNd's and ResourceGatherNd's work.
void GatherNd(OpKernelContext* ctx, const Tensor& params,
              const Tensor& indices, bool ignore_bad) {
  const TensorShape& ps = params.shape();
  const TensorShape& is = indices.shape();
  OP_REQUIRES(ctx, is.rank() >= 1,
              absl::InvalidArgumentError(absl::StrCat(
                  "indices must be at least a vector, but has shape ",
                  is.ToString())));
  const int64_t r = is.dim(is.rank() - 1);
  OP_REQUIRES(ctx, r <= ps.rank(),
              absl::InvalidArgumentError(absl::StrCat(
                  "indices.shape[-1] must be <= params.rank, but saw "
                  "indices shape: ",
                  is.ToString(), " and params shape: ", ps.ToString())));
  TensorShape out_shape(is.dims().subspan(0, is.rank() - 1));
  for (int i = static_cast<int>(r); i < ps.rank(); ++i) {
    out_shape.AddDim(ps.dim(i));
  }
  const int64_t n = Product(is, 0, is.rank() - 1);
  const int64_t slice = Product(ps, static_cast<int>(r), ps.rank());
  Tensor* out = nullptr;
  OP_REQUIRES_OK(ctx, ctx->allocate_output(0, out_shape, &out));
  if (n == 0) return;
  std::vector<int64_t> tuple;
  array_kernels::VisitCopyType(params.dtype(), [&](auto* tag) {
    using T = std::remove_pointer_t<decltype(tag)>;
    const T* src = array_kernels::CopyData<T>(params);
    T* dst = array_kernels::CopyData<T>(out);
    for (int64_t t = 0; t < n; ++t) {
      const int64_t at = TupleOffset(indices, t, r, ps, &tuple);
      T* to = dst + t * slice;
      if (at < 0) {
        if (!ignore_bad) {
          ctx->SetStatus(absl::InvalidArgumentError(absl::StrCat(
              TupleText(is, t, tuple), " does not index into param shape ",
              ps.ToString(), ": each index must be in [0, dim)")));
          return;
        }
        for (int64_t j = 0; j < slice; ++j) to[j] = T{};
        continue;
      }
      index_ops::CopyElements(src + at * slice, slice, to);
    }
  });
}

class GatherNdOp : public OpKernel {
 public:
  explicit GatherNdOp(OpKernelConstruction* ctx)
      : OpKernel(ctx), ignore_bad_(ReadIgnoreBadIndices(ctx)) {}

  void Compute(OpKernelContext* ctx) override {
    GatherNd(ctx, ctx->input(0), ctx->input(1), ignore_bad_);
  }

 private:
  const bool ignore_bad_;
};

// GatherNd of a resource variable's value (tf.gather_nd(v, ...)), read
// once: a snapshot, as ResourceGather's.
class ResourceGatherNdOp : public OpKernel {
 public:
  explicit ResourceGatherNdOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}

  void Compute(OpKernelContext* ctx) override {
    Var* var = ctx->input_var(0);
    OP_REQUIRES(ctx, var != nullptr,
                absl::InternalError("the resource input is not a variable"));
    const Tensor params = var->Read();
    OP_REQUIRES(ctx, params.IsInitialized() && params.dtype() == var->dtype(),
                UninitializedValueError(var->name()));
    OP_REQUIRES(ctx, params.dtype() == output_type(0),
                absl::InvalidArgumentError(absl::StrCat(
                    "variable '", var->name(), "' holds ",
                    DataTypeName(params.dtype()), ", gathered as ",
                    DataTypeName(output_type(0)))));
    GatherNd(ctx, params, ctx->input(1), /*ignore_bad=*/false);
  }
};

template <typename T>
class ScatterNdOp : public OpKernel {
 public:
  explicit ScatterNdOp(OpKernelConstruction* ctx)
      : OpKernel(ctx), ignore_bad_(ReadIgnoreBadIndices(ctx)) {}

  void Compute(OpKernelContext* ctx) override {
    const Tensor& indices = ctx->input(0);
    const Tensor& updates = ctx->input(1);
    const Tensor& shape_t = ctx->input(2);
    const TensorShape& is = indices.shape();
    const TensorShape& us = updates.shape();
    OP_REQUIRES(ctx, shape_t.shape().rank() == 1,
                absl::InvalidArgumentError(
                    absl::StrCat("shape must be a vector, but has shape ",
                                 shape_t.shape().ToString())));
    TensorShape shape;
    for (int64_t i = 0; i < shape_t.NumElements(); ++i) {
      const int64_t d = IntAt(shape_t, i);
      OP_REQUIRES(ctx, d >= 0,
                  absl::InvalidArgumentError(absl::StrCat(
                      "shape has a negative dimension: ", d, " at ", i)));
      shape.AddDim(d);
    }
    OP_REQUIRES(ctx, is.rank() >= 1,
                absl::InvalidArgumentError(absl::StrCat(
                    "indices must be at least a vector, but has shape ",
                    is.ToString())));
    const int64_t r = is.dim(is.rank() - 1);
    OP_REQUIRES(ctx, r <= shape.rank(),
                absl::InvalidArgumentError(absl::StrCat(
                    "indices.shape[-1] must be <= the rank of shape, but saw "
                    "indices shape: ",
                    is.ToString(), " and shape: ", shape.ToString())));
    TensorShape want(is.dims().subspan(0, is.rank() - 1));
    for (int i = static_cast<int>(r); i < shape.rank(); ++i) {
      want.AddDim(shape.dim(i));
    }
    OP_REQUIRES(ctx, us == want,
                absl::InvalidArgumentError(absl::StrCat(
                    "updates must have shape indices.shape[:-1] + "
                    "shape[indices.shape[-1]:] = ",
                    want.ToString(), ", but has shape ", us.ToString(),
                    " (indices shape ", is.ToString(), ", shape ",
                    shape.ToString(), ")")));
    const int64_t n = Product(is, 0, is.rank() - 1);
    const int64_t slice = Product(shape, static_cast<int>(r), shape.rank());
    OP_REQUIRES(ctx, n == 0 || shape.num_elements() > 0,
                absl::InvalidArgumentError(absl::StrCat(
                    "Indices and updates specified for empty output shape ",
                    shape.ToString())));
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, shape, &out));
    T* dst = out->data<T>();
    for (int64_t i = 0; i < out->NumElements(); ++i) dst[i] = T(0);
    const T* src = updates.data<T>();
    std::vector<int64_t> tuple;
    for (int64_t t = 0; t < n; ++t) {
      const int64_t at = TupleOffset(indices, t, r, shape, &tuple);
      if (at < 0) {
        OP_REQUIRES(ctx, ignore_bad_,
                    absl::InvalidArgumentError(absl::StrCat(
                        TupleText(is, t, tuple), " does not index into shape ",
                        shape.ToString(), ": each index must be in [0, dim)")));
        continue;
      }
      T* to = dst + at * slice;
      const T* from = src + t * slice;
      for (int64_t j = 0; j < slice; ++j) to[j] += from[j];
    }
  }

 private:
  const bool ignore_bad_;
};

// Hashable key of an element: -0.0 folded into 0.0 (they compare equal).
template <typename T>
T Key(const T& v) {
  if constexpr (std::is_floating_point_v<T>) {
    return v == T(0) ? T(0) : v;
  } else {
    return v;
  }
}

template <typename T, typename Idx>
class ListDiffOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    const Tensor& x = ctx->input(0);
    const Tensor& y = ctx->input(1);
    OP_REQUIRES(
        ctx, x.shape().rank() == 1,
        absl::InvalidArgumentError(absl::StrCat(
            "x should be a 1D vector, but has shape ", x.shape().ToString())));
    OP_REQUIRES(
        ctx, y.shape().rank() == 1,
        absl::InvalidArgumentError(absl::StrCat(
            "y should be a 1D vector, but has shape ", y.shape().ToString())));
    const T* xv = x.data<T>();
    const T* yv = y.data<T>();
    absl::flat_hash_set<T> drop;
    for (int64_t i = 0; i < y.NumElements(); ++i) drop.insert(Key(yv[i]));
    std::vector<int64_t> kept;
    for (int64_t i = 0; i < x.NumElements(); ++i) {
      if (!drop.contains(Key(xv[i]))) kept.push_back(i);
    }
    const int64_t n = static_cast<int64_t>(kept.size());
    Tensor* out = nullptr;
    Tensor* idx = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape({n}), &out));
    OP_REQUIRES_OK(ctx, ctx->allocate_output(1, TensorShape({n}), &idx));
    T* o = out->data<T>();
    Idx* id = idx->data<Idx>();
    for (int64_t j = 0; j < n; ++j) {
      o[j] = xv[kept[j]];
      id[j] = static_cast<Idx>(kept[j]);
    }
  }
};

DFLOW_REGISTER_KERNEL(KernelDefBuilder("GatherNd")
                          .Device(kDeviceCpu)
                          .TypeConstraint("Tparams",
                                          array_kernels::AllTensorTypes())
                          .TypeConstraint("Tindices",
                                          {DT_INT16, DT_INT32, DT_INT64}),
                      GatherNdOp);
DFLOW_REGISTER_KERNEL(KernelDefBuilder("ResourceGatherNd")
                          .Device(kDeviceCpu)
                          .TypeConstraint("dtype",
                                          array_kernels::AllTensorTypes())
                          .TypeConstraint("Tindices", {DT_INT32, DT_INT64}),
                      ResourceGatherNdOp);

#define DFLOW_REGISTER_SCATTER_ND(T)                                   \
  DFLOW_REGISTER_KERNEL(                                               \
      KernelDefBuilder("ScatterNd")                                    \
          .Device(kDeviceCpu)                                          \
          .TypeConstraint<T>("T")                                      \
          .TypeConstraint("Tindices", {DT_INT16, DT_INT32, DT_INT64}), \
      ScatterNdOp<T>)
DFLOW_REGISTER_SCATTER_ND(float);
DFLOW_REGISTER_SCATTER_ND(double);
DFLOW_REGISTER_SCATTER_ND(int8_t);
DFLOW_REGISTER_SCATTER_ND(int16_t);
DFLOW_REGISTER_SCATTER_ND(int32_t);
DFLOW_REGISTER_SCATTER_ND(int64_t);
DFLOW_REGISTER_SCATTER_ND(uint8_t);
DFLOW_REGISTER_SCATTER_ND(uint16_t);
DFLOW_REGISTER_SCATTER_ND(uint32_t);
DFLOW_REGISTER_SCATTER_ND(uint64_t);
DFLOW_REGISTER_SCATTER_ND(complex64);
DFLOW_REGISTER_SCATTER_ND(complex128);
#undef DFLOW_REGISTER_SCATTER_ND

#define DFLOW_REGISTER_LIST_DIFF(T)                              \
  DFLOW_REGISTER_KERNEL(KernelDefBuilder("ListDiff")             \
                            .Device(kDeviceCpu)                  \
                            .TypeConstraint<T>("T")              \
                            .TypeConstraint<int32_t>("out_idx"), \
                        ListDiffOp<T, int32_t>);                 \
  DFLOW_REGISTER_KERNEL(KernelDefBuilder("ListDiff")             \
                            .Device(kDeviceCpu)                  \
                            .TypeConstraint<T>("T")              \
                            .TypeConstraint<int64_t>("out_idx"), \
                        ListDiffOp<T, int64_t>)
DFLOW_REGISTER_LIST_DIFF(float);
DFLOW_REGISTER_LIST_DIFF(double);
DFLOW_REGISTER_LIST_DIFF(int8_t);
DFLOW_REGISTER_LIST_DIFF(int16_t);
DFLOW_REGISTER_LIST_DIFF(int32_t);
DFLOW_REGISTER_LIST_DIFF(int64_t);
DFLOW_REGISTER_LIST_DIFF(uint8_t);
DFLOW_REGISTER_LIST_DIFF(uint16_t);
DFLOW_REGISTER_LIST_DIFF(std::string);
#undef DFLOW_REGISTER_LIST_DIFF

}  // namespace
}  // namespace dflow
