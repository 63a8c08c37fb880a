// SparseToDense, SparseReshape and SparseFillEmptyRows on the CPU, as
// TensorFlow 2.21's kernels compute them: the ops that tf.sparse.to_dense,
// tf.sparse.reshape and tf.sparse.fill_empty_rows write (and with them
// tf.nn.embedding_lookup_sparse and safe_embedding_lookup_sparse).
//
// Every index is checked before an output is written: an index outside
// the dense shape, a row out of range, or (SparseToDense with
// validate_indices) indices out of order or repeated are InvalidArguments
// that name the index and the shape, never a write out of bounds.
#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "graph/types.h"
#include "runtime/kernel_registry.h"
#include "runtime/op_kernel.h"

namespace dflow {
namespace {

// "[1, 2]": index i of an [N, R] index matrix.
template <typename Index>
std::string IndexText(const Index* idx, int64_t i, int64_t r) {
  std::vector<int64_t> v(idx + i * r, idx + (i + 1) * r);
  return absl::StrCat("[", absl::StrJoin(v, ", "), "]");
}

template <typename T, typename Index>
class SparseToDenseOp : public OpKernel {
 public:
  explicit SparseToDenseOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    ctx->SetStatus(ctx->GetAttr("validate_indices", &validate_indices_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& indices = ctx->input(0);
    const Tensor& output_shape = ctx->input(1);
    const Tensor& values = ctx->input(2);
    const Tensor& default_value = ctx->input(3);
    OP_REQUIRES(ctx, indices.shape().rank() <= 2,
                absl::InvalidArgumentError(absl::StrCat(
                    "sparse_indices must be a scalar, vector or matrix, but "
                    "has shape ",
                    indices.shape().ToString())));
    OP_REQUIRES(ctx, output_shape.shape().rank() <= 1,
                absl::InvalidArgumentError(absl::StrCat(
                    "output_shape must be a scalar or vector, but has shape ",
                    output_shape.shape().ToString())));
    OP_REQUIRES(ctx, default_value.shape().rank() == 0,
                absl::InvalidArgumentError(absl::StrCat(
                    "default_value must be a scalar, but has shape ",
                    default_value.shape().ToString())));
    // N indices of R dimensions each.
    const int64_t n = indices.shape().rank() == 0 ? 1 : indices.shape().dim(0);
    const int64_t r = indices.shape().rank() == 2 ? indices.shape().dim(1) : 1;
    const int64_t dims = output_shape.NumElements();
    OP_REQUIRES(ctx, r == dims,
                absl::InvalidArgumentError(absl::StrCat(
                    "sparse_indices ", indices.shape().ToString(), " index ", r,
                    " dimension(s), but output_shape has ", dims)));
    OP_REQUIRES(ctx,
                values.shape().rank() == 0 ||
                    (values.shape().rank() == 1 && values.NumElements() == n),
                absl::InvalidArgumentError(absl::StrCat(
                    "sparse_values must be a scalar or have one value per "
                    "index (",
                    n, "), but has shape ", values.shape().ToString())));
    const Index* shape_values = output_shape.data<Index>();
    TensorShape shape;
    for (int64_t d = 0; d < dims; ++d) {
      OP_REQUIRES(
          ctx, shape_values[d] >= 0,
          absl::InvalidArgumentError(absl::StrCat(
              "output_shape[", d, "] = ", shape_values[d], " is negative")));
      shape.AddDim(shape_values[d]);
    }
    const Index* idx = indices.data<Index>();
    std::vector<int64_t> offsets(n);
    for (int64_t i = 0; i < n; ++i) {
      int64_t offset = 0;
      bool in_bounds = true;
      for (int64_t d = 0; d < r; ++d) {
        const int64_t v = idx[i * r + d];
        in_bounds = in_bounds && v >= 0 && v < shape.dim(static_cast<int>(d));
        offset = offset * shape.dim(static_cast<int>(d)) + v;
      }
      OP_REQUIRES(
          ctx, in_bounds,
          absl::InvalidArgumentError(absl::StrCat(
              "indices[", i, "] = ", IndexText(idx, i, r),
              " is out of bounds: need 0 <= index < ", shape.ToString())));
      if (validate_indices_ && i > 0) {
        OP_REQUIRES(
            ctx, offset != offsets[i - 1],
            absl::InvalidArgumentError(absl::StrCat(
                "indices[", i, "] = ", IndexText(idx, i, r), " is repeated")));
        OP_REQUIRES(ctx, offset > offsets[i - 1],
                    absl::InvalidArgumentError(absl::StrCat(
                        "indices[", i, "] = ", IndexText(idx, i, r),
                        " is out of order; sort the indices (tf.sparse."
                        "reorder) or set validate_indices=false")));
      }
      offsets[i] = offset;
    }
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, shape, &out));
    T* o = out->data<T>();
    const T fill = *default_value.data<T>();
    std::fill(o, o + out->NumElements(), fill);
    const T* v = values.data<T>();
    const bool one_value = values.shape().rank() == 0;
    for (int64_t i = 0; i < n; ++i) o[offsets[i]] = one_value ? v[0] : v[i];
  }

 private:
  bool validate_indices_ = true;
};

// Row-major positions of the entries, re-expressed in new_shape.
class SparseReshapeOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    const Tensor& indices = ctx->input(0);
    const Tensor& input_shape = ctx->input(1);
    const Tensor& new_shape = ctx->input(2);
    OP_REQUIRES(
        ctx,
        indices.shape().rank() == 2 && input_shape.shape().rank() == 1 &&
            new_shape.shape().rank() == 1,
        absl::InvalidArgumentError(absl::StrCat(
            "input_indices must be a matrix and input_shape and "
            "new_shape vectors, but have shapes ",
            indices.shape().ToString(), ", ", input_shape.shape().ToString(),
            " and ", new_shape.shape().ToString())));
    const int64_t n = indices.shape().dim(0);
    const int64_t r_in = input_shape.NumElements();
    const int64_t r_out = new_shape.NumElements();
    OP_REQUIRES(ctx, indices.shape().dim(1) == r_in,
                absl::InvalidArgumentError(absl::StrCat(
                    "input_indices ", indices.shape().ToString(),
                    " must have one column per dimension of input_shape (",
                    r_in, ")")));
    const int64_t* in_dims = input_shape.data<int64_t>();
    const int64_t* want = new_shape.data<int64_t>();
    int64_t dense_size = 1;
    for (int64_t d = 0; d < r_in; ++d) dense_size *= in_dims[d];
    std::vector<int64_t> out_dims(want, want + r_out);
    int64_t known = 1;
    int64_t unknown_at = -1;
    for (int64_t d = 0; d < r_out; ++d) {
      if (want[d] == -1) {
        OP_REQUIRES(ctx, unknown_at < 0,
                    absl::InvalidArgumentError(absl::StrCat(
                        "only one output dimension may be -1, not both ",
                        unknown_at, " and ", d)));
        unknown_at = d;
      } else {
        OP_REQUIRES(ctx, want[d] >= 0,
                    absl::InvalidArgumentError(absl::StrCat(
                        "size ", d, " must be non-negative, not ", want[d])));
        known *= want[d];
      }
    }
    if (unknown_at >= 0) {
      OP_REQUIRES(
          ctx, known > 0 && dense_size % known == 0,
          absl::InvalidArgumentError(absl::StrCat(
              "Input to reshape is a SparseTensor with ", dense_size,
              " dense values, but the requested shape requires a "
              "multiple of ",
              known, "; input shape [",
              absl::StrJoin(in_dims, in_dims + r_in, ","), "], new shape [",
              absl::StrJoin(want, want + r_out, ","), "]")));
      out_dims[unknown_at] = dense_size / known;
      known = dense_size;
    }
    OP_REQUIRES(
        ctx, known == dense_size,
        absl::InvalidArgumentError(absl::StrCat(
            "Input to reshape is a tensor with ", dense_size,
            " dense values, but the requested shape has ", known,
            "; input shape [", absl::StrJoin(in_dims, in_dims + r_in, ","),
            "], new shape [", absl::StrJoin(want, want + r_out, ","), "]")));
    Tensor* out_indices = nullptr;
    OP_REQUIRES_OK(
        ctx, ctx->allocate_output(0, TensorShape({n, r_out}), &out_indices));
    Tensor* out_shape = nullptr;
    OP_REQUIRES_OK(ctx,
                   ctx->allocate_output(1, TensorShape({r_out}), &out_shape));
    std::copy(out_dims.begin(), out_dims.end(), out_shape->data<int64_t>());
    const int64_t* idx = indices.data<int64_t>();
    int64_t* o = out_indices->data<int64_t>();
    for (int64_t i = 0; i < n; ++i) {
      int64_t position = 0;
      for (int64_t d = 0; d < r_in; ++d) {
        const int64_t v = idx[i * r_in + d];
        OP_REQUIRES(ctx, v >= 0 && v < in_dims[d],
                    absl::InvalidArgumentError(absl::StrCat(
                        "input_indices[", i, "] = ", IndexText(idx, i, r_in),
                        " is out of bounds of input_shape [",
                        absl::StrJoin(in_dims, in_dims + r_in, ","), "]")));
        position = position * in_dims[d] + v;
      }
      for (int64_t d = r_out - 1; d >= 0; --d) {
        o[i * r_out + d] = out_dims[d] == 0 ? 0 : position % out_dims[d];
        position = out_dims[d] == 0 ? 0 : position / out_dims[d];
      }
    }
  }
};

template <typename T>
class SparseFillEmptyRowsOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    const Tensor& indices = ctx->input(0);
    const Tensor& values = ctx->input(1);
    const Tensor& dense_shape = ctx->input(2);
    const Tensor& default_value = ctx->input(3);
    OP_REQUIRES(ctx,
                indices.shape().rank() == 2 && values.shape().rank() == 1 &&
                    dense_shape.shape().rank() == 1 &&
                    default_value.shape().rank() == 0,
                absl::InvalidArgumentError(absl::StrCat(
                    "indices must be a matrix, values and dense_shape vectors "
                    "and default_value a scalar, but have shapes ",
                    indices.shape().ToString(), ", ", values.shape().ToString(),
                    ", ", dense_shape.shape().ToString(), " and ",
                    default_value.shape().ToString())));
    const int64_t n = indices.shape().dim(0);
    const int64_t r = indices.shape().dim(1);
    OP_REQUIRES(
        ctx, values.NumElements() == n,
        absl::InvalidArgumentError(absl::StrCat(
            "indices ", indices.shape().ToString(), " and values ",
            values.shape().ToString(), " must have one row per value")));
    OP_REQUIRES(ctx, dense_shape.NumElements() == r && r >= 1,
                absl::InvalidArgumentError(absl::StrCat(
                    "dense_shape ", dense_shape.shape().ToString(),
                    " must have one element per column of indices ",
                    indices.shape().ToString())));
    const int64_t rows = dense_shape.data<int64_t>()[0];
    OP_REQUIRES(
        ctx, rows >= 0 && (rows > 0 || n == 0),
        absl::InvalidArgumentError(absl::StrCat(
            "dense_shape[0] = ", rows, " has no row for the ", n, " indices")));
    const int64_t* idx = indices.data<int64_t>();
    // Entries per row, then where each row starts in the output (an empty
    // row takes one slot, for its default).
    std::vector<int64_t> count(rows, 0);
    for (int64_t i = 0; i < n; ++i) {
      const int64_t row = idx[i * r];
      OP_REQUIRES(
          ctx, row >= 0 && row < rows,
          absl::InvalidArgumentError(absl::StrCat(
              "indices[", i, "] = ", IndexText(idx, i, r),
              " is out of bounds: its row must be in [0, ", rows, ")")));
      ++count[row];
    }
    std::vector<int64_t> start(rows + 1, 0);
    for (int64_t row = 0; row < rows; ++row) {
      start[row + 1] = start[row] + std::max<int64_t>(count[row], 1);
    }
    const int64_t total = start[rows];
    Tensor *out_indices = nullptr, *out_values = nullptr, *empty = nullptr,
           *reverse = nullptr;
    OP_REQUIRES_OK(
        ctx, ctx->allocate_output(0, TensorShape({total, r}), &out_indices));
    OP_REQUIRES_OK(ctx,
                   ctx->allocate_output(1, TensorShape({total}), &out_values));
    OP_REQUIRES_OK(ctx, ctx->allocate_output(2, TensorShape({rows}), &empty));
    OP_REQUIRES_OK(ctx, ctx->allocate_output(3, TensorShape({n}), &reverse));
    int64_t* oi = out_indices->data<int64_t>();
    T* ov = out_values->data<T>();
    bool* e = empty->data<bool>();
    int64_t* rev = reverse->data<int64_t>();
    const T* v = values.data<T>();
    const T fill = *default_value.data<T>();
    for (int64_t row = 0; row < rows; ++row) {
      e[row] = count[row] == 0;
      if (count[row] == 0) {
        const int64_t at = start[row];
        oi[at * r] = row;
        for (int64_t d = 1; d < r; ++d) oi[at * r + d] = 0;
        ov[at] = fill;
      }
    }
    // Entries keep their order within a row.
    std::vector<int64_t> next(start.begin(), start.end() - 1);
    for (int64_t i = 0; i < n; ++i) {
      const int64_t at = next[idx[i * r]]++;
      for (int64_t d = 0; d < r; ++d) oi[at * r + d] = idx[i * r + d];
      ov[at] = v[i];
      rev[i] = at;
    }
  }
};

#define DFLOW_REGISTER_SPARSE_TO_DENSE(T, Index)                \
  DFLOW_REGISTER_KERNEL(KernelDefBuilder("SparseToDense")       \
                            .Device(kDeviceCpu)                 \
                            .TypeConstraint<T>("T")             \
                            .TypeConstraint<Index>("Tindices"), \
                        SparseToDenseOp<T, Index>)
#define DFLOW_REGISTER_SPARSE_TENSOR_OPS(T)                     \
  DFLOW_REGISTER_SPARSE_TO_DENSE(T, int32_t);                   \
  DFLOW_REGISTER_SPARSE_TO_DENSE(T, int64_t);                   \
  DFLOW_REGISTER_KERNEL(KernelDefBuilder("SparseFillEmptyRows") \
                            .Device(kDeviceCpu)                 \
                            .TypeConstraint<T>("T"),            \
                        SparseFillEmptyRowsOp<T>)

DFLOW_REGISTER_SPARSE_TENSOR_OPS(float);
DFLOW_REGISTER_SPARSE_TENSOR_OPS(double);
DFLOW_REGISTER_SPARSE_TENSOR_OPS(int32_t);
DFLOW_REGISTER_SPARSE_TENSOR_OPS(int64_t);
DFLOW_REGISTER_SPARSE_TENSOR_OPS(bool);
DFLOW_REGISTER_KERNEL(KernelDefBuilder("SparseReshape").Device(kDeviceCpu),
                      SparseReshapeOp);

}  // namespace
}  // namespace dflow
