// The tf.sparse ops that meet a dense tensor or give one, on the CPU, as
// TensorFlow 2.21 computes them: SparseTensorDenseMatMul (either adjoint),
// SparseTensorDenseAdd, SparseDenseCwise{Add,Mul,Div}, SparseSoftmax,
// SparseReduce{Sum,Max} and their Sparse variants, the V2 sparse segment
// gradients (an IndexedSlices: rows at the sorted unique indices) and
// SparseMatMul (tf.matmul with a_is_sparse/b_is_sparse: a plain product,
// the hints only change TensorFlow's speed).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <string>
#include <type_traits>
#include <vector>

#include "absl/strings/str_cat.h"
#include "graph/types.h"
#include "kernels/cpu/sparse_ops_util.h"
#include "runtime/kernel_registry.h"
#include "runtime/op_kernel.h"

namespace dflow {
namespace {

using sparse_util::CheckSparse;
using sparse_util::CheckSparseInBounds;
using sparse_util::IndexText;
using sparse_util::ShapeText;

// product = op(A) op(B), A sparse [m0, m1]: each entry adds value * a row
// of op(B) to a row of the product, in entry order (TensorFlow's order).
template <typename T, typename Index>
class SparseTensorDenseMatMulOp : public OpKernel {
 public:
  explicit SparseTensorDenseMatMulOp(OpKernelConstruction* ctx)
      : OpKernel(ctx) {
    absl::Status s = ctx->GetAttr("adjoint_a", &adjoint_a_);
    if (s.ok()) s = ctx->GetAttr("adjoint_b", &adjoint_b_);
    ctx->SetStatus(s);
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& ai = ctx->input(0);
    const Tensor& av = ctx->input(1);
    const Tensor& as = ctx->input(2);
    const Tensor& b = ctx->input(3);
    OP_REQUIRES(ctx,
                ai.shape().rank() == 2 && av.shape().rank() == 1 &&
                    as.shape().rank() == 1 && as.NumElements() == 2 &&
                    b.shape().rank() == 2,
                absl::InvalidArgumentError(absl::StrCat(
                    "a_indices must be a matrix, a_values a vector, a_shape "
                    "a 2-vector and b a matrix, but have shapes ",
                    ai.shape().ToString(), ", ", av.shape().ToString(), ", ",
                    as.shape().ToString(), " and ", b.shape().ToString())));
    const int64_t nnz = av.NumElements();
    OP_REQUIRES(ctx, ai.shape().dim(0) == nnz && ai.shape().dim(1) == 2,
                absl::InvalidArgumentError(absl::StrCat(
                    "a_indices ", ai.shape().ToString(),
                    " must be [nnz, 2] with nnz = ", nnz,
                    " (the size of a_values)")));
    const int64_t* shape = as.data<int64_t>();
    OP_REQUIRES(ctx, shape[0] >= 0 && shape[1] >= 0,
                absl::InvalidArgumentError(absl::StrCat(
                    "a_shape ", ShapeText(as), " has a negative dimension")));
    const int64_t out_rows = adjoint_a_ ? shape[1] : shape[0];
    const int64_t inner_a = adjoint_a_ ? shape[0] : shape[1];
    const int64_t inner_b = b.shape().dim(adjoint_b_ ? 1 : 0);
    const int64_t out_cols = b.shape().dim(adjoint_b_ ? 0 : 1);
    OP_REQUIRES(ctx, inner_a == inner_b,
                absl::InvalidArgumentError(absl::StrCat(
                    "Cannot multiply A and B because inner dimension does not "
                    "match: ",
                    inner_a, " vs. ", inner_b, " (a_shape ", ShapeText(as),
                    ", b ", b.shape().ToString(), ", adjoint_a ", adjoint_a_,
                    ", adjoint_b ", adjoint_b_, ")")));
    Tensor* out = nullptr;
    OP_REQUIRES_OK(
        ctx, ctx->allocate_output(0, TensorShape({out_rows, out_cols}), &out));
    T* o = out->data<T>();
    std::fill(o, o + out->NumElements(), T(0));
    const Index* idx = ai.data<Index>();
    const T* v = av.data<T>();
    const T* bd = b.data<T>();
    const int64_t b_cols = b.shape().dim(1);
    for (int64_t e = 0; e < nnz; ++e) {
      const int64_t row = idx[2 * e + (adjoint_a_ ? 1 : 0)];
      const int64_t k = idx[2 * e + (adjoint_a_ ? 0 : 1)];
      OP_REQUIRES(ctx, row >= 0 && row < out_rows && k >= 0 && k < inner_a,
                  absl::InvalidArgumentError(absl::StrCat(
                      "a_indices[", e, "] = [", idx[2 * e], ", ",
                      idx[2 * e + 1], "] is out of bounds of a_shape ",
                      ShapeText(as))));
      const T a = v[e];
      T* dst = o + row * out_cols;
      if (adjoint_b_) {
        for (int64_t c = 0; c < out_cols; ++c) dst[c] += a * bd[c * b_cols + k];
      } else {
        const T* src = bd + k * b_cols;
        for (int64_t c = 0; c < out_cols; ++c) dst[c] += a * src[c];
      }
    }
  }

 private:
  bool adjoint_a_ = false;
  bool adjoint_b_ = false;
};

// b plus the SparseTensor a of b's shape (repeated indices add up).
template <typename T, typename Index>
class SparseTensorDenseAddOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    const Tensor& ai = ctx->input(0);
    const Tensor& av = ctx->input(1);
    const Tensor& as = ctx->input(2);
    const Tensor& b = ctx->input(3);
    OP_REQUIRES(ctx,
                ai.shape().rank() == 2 && av.shape().rank() == 1 &&
                    as.shape().rank() == 1,
                absl::InvalidArgumentError(absl::StrCat(
                    "a_indices must be a matrix and a_values and a_shape "
                    "vectors, but have shapes ",
                    ai.shape().ToString(), ", ", av.shape().ToString(),
                    " and ", as.shape().ToString())));
    const int64_t n = av.NumElements(), r = as.NumElements();
    OP_REQUIRES(ctx, ai.shape().dim(0) == n && ai.shape().dim(1) == r,
                absl::InvalidArgumentError(absl::StrCat(
                    "a_indices ", ai.shape().ToString(), " must be [", n, ", ",
                    r, "] (values, rank of a_shape)")));
    bool same = b.shape().rank() == r;
    for (int64_t d = 0; same && d < r; ++d) {
      same = b.shape().dim(static_cast<int>(d)) == as.data<Index>()[d];
    }
    OP_REQUIRES(ctx, same,
                absl::InvalidArgumentError(absl::StrCat(
                    "a_shape and b must have the same shape, but b has shape ",
                    b.shape().ToString())));
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, b.shape(), &out));
    T* o = out->data<T>();
    std::copy(b.data<T>(), b.data<T>() + b.NumElements(), o);
    const Index* idx = ai.data<Index>();
    for (int64_t e = 0; e < n; ++e) {
      int64_t at = 0;
      for (int64_t d = 0; d < r; ++d) {
        const int64_t v = idx[e * r + d];
        const int64_t size = b.shape().dim(static_cast<int>(d));
        OP_REQUIRES(ctx, v >= 0 && v < size,
                    absl::InvalidArgumentError(absl::StrCat(
                        "a_indices[", e, "] is out of bounds of b's shape ",
                        b.shape().ToString(), " in dimension ", d)));
        at = at * size + v;
      }
      o[at] += av.data<T>()[e];
    }
  }
};

enum class CwiseOp { kAdd, kMul, kDiv };

// The sparse values with the dense tensor, broadcast to the sparse shape
// (right-aligned; each dense dimension 1 or the sparse one), at each index.
template <typename T, CwiseOp kOp>
class SparseDenseCwiseOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    const Tensor& si = ctx->input(0);
    const Tensor& sv = ctx->input(1);
    const Tensor& ss = ctx->input(2);
    const Tensor& dense = ctx->input(3);
    OP_REQUIRES_OK(ctx, CheckSparseInBounds(si, sv, ss, "sp"));
    const int64_t n = si.shape().dim(0), r = si.shape().dim(1);
    const int dr = dense.shape().rank();
    const int64_t* dims = ss.data<int64_t>();
    bool ok = dr <= r;
    for (int d = 0; ok && d < dr; ++d) {
      const int64_t dd = dense.shape().dim(d);
      ok = dd == 1 || dd == dims[r - dr + d];
    }
    OP_REQUIRES(ctx, ok,
                absl::InvalidArgumentError(absl::StrCat(
                    "the dense tensor's shape ", dense.shape().ToString(),
                    " does not broadcast to the sparse shape ",
                    ShapeText(ss), " (only the dense side broadcasts)")));
    const T* dv = dense.data<T>();
    if constexpr (kOp == CwiseOp::kDiv && std::is_integral_v<T>) {
      for (int64_t i = 0; i < dense.NumElements(); ++i) {
        OP_REQUIRES(ctx, dv[i] != T(0),
                    absl::InvalidArgumentError(
                        "SparseDenseCwiseDiv cannot divide by zero, but the "
                        "dense tensor holds a zero"));
      }
    }
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape({n}), &out));
    const int64_t* idx = si.data<int64_t>();
    for (int64_t e = 0; e < n; ++e) {
      int64_t at = 0;
      for (int d = 0; d < dr; ++d) {
        const int64_t dd = dense.shape().dim(d);
        at = at * dd + (dd == 1 ? 0 : idx[e * r + (r - dr + d)]);
      }
      const T x = sv.data<T>()[e], y = dv[at];
      out->data<T>()[e] = kOp == CwiseOp::kAdd   ? x + y
                          : kOp == CwiseOp::kMul ? x * y
                                                 : x / y;
    }
  }
};

// Softmax over each run of consecutive entries that share all but the
// last index (the groups of a SparseTensor in row-major order).
template <typename T>
class SparseSoftmaxOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    const Tensor& si = ctx->input(0);
    const Tensor& sv = ctx->input(1);
    const Tensor& ss = ctx->input(2);
    OP_REQUIRES_OK(ctx, CheckSparseInBounds(si, sv, ss, "sp"));
    const int64_t n = si.shape().dim(0), r = si.shape().dim(1);
    OP_REQUIRES(ctx, r >= 2,
                absl::InvalidArgumentError(absl::StrCat(
                    "SparseSoftmax needs a SparseTensor of rank >= 2, not ",
                    r)));
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape({n}), &out));
    const int64_t* idx = si.data<int64_t>();
    const T* v = sv.data<T>();
    T* o = out->data<T>();
    for (int64_t begin = 0; begin < n;) {
      int64_t end = begin + 1;
      while (end < n && std::equal(idx + end * r, idx + end * r + r - 1,
                                   idx + begin * r)) {
        ++end;
      }
      T mx = v[begin];
      for (int64_t e = begin + 1; e < end; ++e) mx = std::max(mx, v[e]);
      T sum = T(0);
      for (int64_t e = begin; e < end; ++e) {
        o[e] = std::exp(v[e] - mx);
        sum += o[e];
      }
      for (int64_t e = begin; e < end; ++e) o[e] /= sum;
      begin = end;
    }
  }
};

// The sum or maximum of the entries of each group (the indices outside
// reduction_axes). TensorFlow reduces over the entries only: a group with
// no entry is 0 in the dense output and absent from the sparse one; the
// implicit zeros of a group that has entries are not part of its maximum.
template <typename T, bool kMax, bool kSparseOut>
class SparseReduceOp : public OpKernel {
 public:
  explicit SparseReduceOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    ctx->SetStatus(ctx->GetAttr("keep_dims", &keep_dims_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& ii = ctx->input(0);
    const Tensor& iv = ctx->input(1);
    const Tensor& is = ctx->input(2);
    const Tensor& axes_t = ctx->input(3);
    OP_REQUIRES_OK(ctx, CheckSparseInBounds(ii, iv, is, "input"));
    OP_REQUIRES(ctx, axes_t.shape().rank() <= 1,
                absl::InvalidArgumentError(absl::StrCat(
                    "reduction_axes must be a scalar or vector, but has shape ",
                    axes_t.shape().ToString())));
    const int64_t n = ii.shape().dim(0), r = ii.shape().dim(1);
    std::vector<bool> reduced(r, false);
    for (int64_t k = 0; k < axes_t.NumElements(); ++k) {
      const int64_t a = axes_t.data<int32_t>()[k];
      OP_REQUIRES(ctx, a >= -r && a < r,
                  absl::InvalidArgumentError(absl::StrCat(
                      "Invalid reduction dimension ", a, ", for input with ",
                      r, " dimensions.")));
      reduced[a < 0 ? a + r : a] = true;
    }
    const int64_t* dims = is.data<int64_t>();
    // The output's dims, and which input dim each comes from (-1: a kept
    // reduced dim of size 1).
    std::vector<int64_t> out_dims, source;
    for (int64_t d = 0; d < r; ++d) {
      if (!reduced[d]) {
        out_dims.push_back(dims[d]);
        source.push_back(d);
      } else if (keep_dims_) {
        out_dims.push_back(1);
        source.push_back(-1);
      }
    }
    const int64_t out_rank = static_cast<int64_t>(out_dims.size());
    const int64_t* idx = ii.data<int64_t>();
    const T* v = iv.data<T>();
    // Groups by their output index, in row-major order; entries in order.
    std::map<std::vector<int64_t>, T> groups;
    for (int64_t e = 0; e < n; ++e) {
      std::vector<int64_t> key(out_rank);
      for (int64_t d = 0; d < out_rank; ++d) {
        key[d] = source[d] < 0 ? 0 : idx[e * r + source[d]];
      }
      auto [it, fresh] = groups.emplace(std::move(key), v[e]);
      if (!fresh) {
        it->second = kMax ? std::max(it->second, v[e]) : it->second + v[e];
      }
    }
    if (kSparseOut) {
      const int64_t m = static_cast<int64_t>(groups.size());
      Tensor *oi = nullptr, *ov = nullptr, *os = nullptr;
      OP_REQUIRES_OK(ctx,
                     ctx->allocate_output(0, TensorShape({m, out_rank}), &oi));
      OP_REQUIRES_OK(ctx, ctx->allocate_output(1, TensorShape({m}), &ov));
      OP_REQUIRES_OK(ctx,
                     ctx->allocate_output(2, TensorShape({out_rank}), &os));
      int64_t k = 0;
      for (const auto& [key, value] : groups) {
        std::copy(key.begin(), key.end(), oi->data<int64_t>() + k * out_rank);
        ov->data<T>()[k++] = value;
      }
      std::copy(out_dims.begin(), out_dims.end(), os->data<int64_t>());
      return;
    }
    TensorShape shape;
    for (int64_t d : out_dims) shape.AddDim(d);
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, shape, &out));
    T* o = out->data<T>();
    std::fill(o, o + out->NumElements(), T(0));
    for (const auto& [key, value] : groups) {
      int64_t at = 0;
      for (int64_t d = 0; d < out_rank; ++d) at = at * out_dims[d] + key[d];
      o[at] = value;
    }
  }

 private:
  bool keep_dims_ = false;
};

enum class SegmentKind { kSum, kMean, kSqrtN };

template <typename T, typename Index, typename SegId, SegmentKind kKind>
class SparseSegmentGradV2Op : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    const Tensor& grad = ctx->input(0);
    const Tensor& indices = ctx->input(1);
    const Tensor& ids = ctx->input(2);
    const Tensor& dim0_t = ctx->input(3);
    OP_REQUIRES(ctx,
                grad.shape().rank() >= 1 && indices.shape().rank() == 1 &&
                    ids.shape().rank() == 1 &&
                    indices.NumElements() == ids.NumElements() &&
                    dim0_t.NumElements() == 1,
                absl::InvalidArgumentError(absl::StrCat(
                    "grad must be at least a vector, indices and segment_ids "
                    "vectors of one length and dense_output_dim0 a scalar, "
                    "but have shapes ",
                    grad.shape().ToString(), ", ", indices.shape().ToString(),
                    ", ", ids.shape().ToString(), " and ",
                    dim0_t.shape().ToString())));
    const int64_t n = indices.NumElements();
    const int64_t segments = grad.shape().dim(0);
    const int64_t dim0 = *dim0_t.data<int32_t>();
    std::vector<int64_t> counts(segments, 0);
    std::map<int64_t, int64_t> rows;  // index -> output row
    for (int64_t k = 0; k < n; ++k) {
      const int64_t id = ids.data<SegId>()[k];
      const int64_t index = indices.data<Index>()[k];
      OP_REQUIRES(ctx, id >= 0 && id < segments,
                  absl::InvalidArgumentError(absl::StrCat(
                      "segment_ids[", k, "] = ", id, " is out of range [0, ",
                      segments, ") (the rows of grad)")));
      OP_REQUIRES(ctx, index >= 0 && index < dim0,
                  absl::InvalidArgumentError(absl::StrCat(
                      "indices[", k, "] = ", index, " is out of range [0, ",
                      dim0, ") (dense_output_dim0)")));
      ++counts[id];
      rows.emplace(index, 0);
    }
    int64_t next = 0;
    for (auto& [index, row] : rows) row = next++;
    TensorShape out_shape({next});
    int64_t inner = 1;
    for (int d = 1; d < grad.shape().rank(); ++d) {
      out_shape.AddDim(grad.shape().dim(d));
      inner *= grad.shape().dim(d);
    }
    Tensor *out = nullptr, *unique = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, out_shape, &out));
    OP_REQUIRES_OK(ctx, ctx->allocate_output(1, TensorShape({next}), &unique));
    for (const auto& [index, row] : rows) {
      unique->data<Index>()[row] = static_cast<Index>(index);
    }
    T* o = out->data<T>();
    std::fill(o, o + out->NumElements(), T(0));
    const T* g = grad.data<T>();
    for (int64_t k = 0; k < n; ++k) {
      const int64_t id = ids.data<SegId>()[k];
      const T c = static_cast<T>(counts[id]);
      const T scale = kKind == SegmentKind::kSum    ? T(1)
                      : kKind == SegmentKind::kMean ? T(1) / c
                                                    : T(1) / std::sqrt(c);
      T* dst = o + rows[indices.data<Index>()[k]] * inner;
      for (int64_t j = 0; j < inner; ++j) dst[j] += g[id * inner + j] * scale;
    }
  }
};

// MatMul of float matrices; a_is_sparse/b_is_sparse only tell TensorFlow
// which operand to skip zeros of.
class SparseMatMulOp : public OpKernel {
 public:
  explicit SparseMatMulOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    absl::Status s = ctx->GetAttr("transpose_a", &ta_);
    if (s.ok()) s = ctx->GetAttr("transpose_b", &tb_);
    ctx->SetStatus(s);
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& a = ctx->input(0);
    const Tensor& b = ctx->input(1);
    OP_REQUIRES(ctx, a.shape().rank() == 2 && b.shape().rank() == 2,
                absl::InvalidArgumentError(absl::StrCat(
                    "a and b must be matrices, but have shapes ",
                    a.shape().ToString(), " and ", b.shape().ToString())));
    const int64_t m = a.shape().dim(ta_ ? 1 : 0);
    const int64_t k = a.shape().dim(ta_ ? 0 : 1);
    const int64_t kb = b.shape().dim(tb_ ? 1 : 0);
    const int64_t n = b.shape().dim(tb_ ? 0 : 1);
    OP_REQUIRES(ctx, k == kb,
                absl::InvalidArgumentError(absl::StrCat(
                    "Matrix size incompatible: a ", a.shape().ToString(),
                    " (transpose_a ", ta_, "), b ", b.shape().ToString(),
                    " (transpose_b ", tb_, ")")));
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape({m, n}), &out));
    const float* ad = a.data<float>();
    const float* bd = b.data<float>();
    float* o = out->data<float>();
    const int64_t a_cols = a.shape().dim(1), b_cols = b.shape().dim(1);
    std::fill(o, o + m * n, 0.0f);
    for (int64_t i = 0; i < m; ++i) {
      for (int64_t p = 0; p < k; ++p) {
        const float x = ta_ ? ad[p * a_cols + i] : ad[i * a_cols + p];
        for (int64_t j = 0; j < n; ++j) {
          o[i * n + j] += x * (tb_ ? bd[j * b_cols + p] : bd[p * b_cols + j]);
        }
      }
    }
  }

 private:
  bool ta_ = false;
  bool tb_ = false;
};

#define DFLOW_REGISTER_SPARSE_DENSE(T)                                     \
  DFLOW_REGISTER_KERNEL(KernelDefBuilder("SparseTensorDenseMatMul")        \
                            .Device(kDeviceCpu)                            \
                            .TypeConstraint<T>("T")                        \
                            .TypeConstraint<int64_t>("Tindices"),          \
                        SparseTensorDenseMatMulOp<T, int64_t>);            \
  DFLOW_REGISTER_KERNEL(KernelDefBuilder("SparseTensorDenseMatMul")        \
                            .Device(kDeviceCpu)                            \
                            .TypeConstraint<T>("T")                        \
                            .TypeConstraint<int32_t>("Tindices"),          \
                        SparseTensorDenseMatMulOp<T, int32_t>);            \
  DFLOW_REGISTER_KERNEL(KernelDefBuilder("SparseTensorDenseAdd")           \
                            .Device(kDeviceCpu)                            \
                            .TypeConstraint<T>("T")                        \
                            .TypeConstraint<int64_t>("Tindices"),          \
                        SparseTensorDenseAddOp<T, int64_t>);               \
  DFLOW_REGISTER_KERNEL(KernelDefBuilder("SparseTensorDenseAdd")           \
                            .Device(kDeviceCpu)                            \
                            .TypeConstraint<T>("T")                        \
                            .TypeConstraint<int32_t>("Tindices"),          \
                        SparseTensorDenseAddOp<T, int32_t>);               \
  DFLOW_REGISTER_KERNEL(KernelDefBuilder("SparseDenseCwiseAdd")            \
                            .Device(kDeviceCpu)                            \
                            .TypeConstraint<T>("T"),                       \
                        SparseDenseCwiseOp<T, CwiseOp::kAdd>);             \
  DFLOW_REGISTER_KERNEL(KernelDefBuilder("SparseDenseCwiseMul")            \
                            .Device(kDeviceCpu)                            \
                            .TypeConstraint<T>("T"),                       \
                        SparseDenseCwiseOp<T, CwiseOp::kMul>);             \
  DFLOW_REGISTER_KERNEL(KernelDefBuilder("SparseDenseCwiseDiv")            \
                            .Device(kDeviceCpu)                            \
                            .TypeConstraint<T>("T"),                       \
                        SparseDenseCwiseOp<T, CwiseOp::kDiv>);             \
  DFLOW_REGISTER_KERNEL(KernelDefBuilder("SparseReduceSum")                \
                            .Device(kDeviceCpu)                            \
                            .TypeConstraint<T>("T"),                       \
                        SparseReduceOp<T, false, false>);                  \
  DFLOW_REGISTER_KERNEL(KernelDefBuilder("SparseReduceSumSparse")          \
                            .Device(kDeviceCpu)                            \
                            .TypeConstraint<T>("T"),                       \
                        SparseReduceOp<T, false, true>);                   \
  DFLOW_REGISTER_KERNEL(KernelDefBuilder("SparseReduceMax")                \
                            .Device(kDeviceCpu)                            \
                            .TypeConstraint<T>("T"),                       \
                        SparseReduceOp<T, true, false>);                   \
  DFLOW_REGISTER_KERNEL(KernelDefBuilder("SparseReduceMaxSparse")          \
                            .Device(kDeviceCpu)                            \
                            .TypeConstraint<T>("T"),                       \
                        SparseReduceOp<T, true, true>)
DFLOW_REGISTER_SPARSE_DENSE(float);
DFLOW_REGISTER_SPARSE_DENSE(double);
DFLOW_REGISTER_SPARSE_DENSE(int32_t);
DFLOW_REGISTER_SPARSE_DENSE(int64_t);

#define DFLOW_REGISTER_SEGMENT_GRAD_V2(T, Index, SegId)                    \
  DFLOW_REGISTER_KERNEL(                                                   \
      KernelDefBuilder("SparseSegmentSumGradV2")                           \
          .Device(kDeviceCpu)                                              \
          .TypeConstraint<T>("T")                                          \
          .TypeConstraint<Index>("Tidx")                                   \
          .TypeConstraint<SegId>("Tsegmentids"),                           \
      SparseSegmentGradV2Op<T, Index, SegId, SegmentKind::kSum>);          \
  DFLOW_REGISTER_KERNEL(                                                   \
      KernelDefBuilder("SparseSegmentMeanGradV2")                          \
          .Device(kDeviceCpu)                                              \
          .TypeConstraint<T>("T")                                          \
          .TypeConstraint<Index>("Tidx")                                   \
          .TypeConstraint<SegId>("Tsegmentids"),                           \
      SparseSegmentGradV2Op<T, Index, SegId, SegmentKind::kMean>);         \
  DFLOW_REGISTER_KERNEL(                                                   \
      KernelDefBuilder("SparseSegmentSqrtNGradV2")                         \
          .Device(kDeviceCpu)                                              \
          .TypeConstraint<T>("T")                                          \
          .TypeConstraint<Index>("Tidx")                                   \
          .TypeConstraint<SegId>("Tsegmentids"),                           \
      SparseSegmentGradV2Op<T, Index, SegId, SegmentKind::kSqrtN>)
#define DFLOW_REGISTER_SEGMENT_GRAD_V2_T(T)               \
  DFLOW_REGISTER_SEGMENT_GRAD_V2(T, int32_t, int32_t);    \
  DFLOW_REGISTER_SEGMENT_GRAD_V2(T, int32_t, int64_t);    \
  DFLOW_REGISTER_SEGMENT_GRAD_V2(T, int64_t, int32_t);    \
  DFLOW_REGISTER_SEGMENT_GRAD_V2(T, int64_t, int64_t)
DFLOW_REGISTER_SEGMENT_GRAD_V2_T(float);
DFLOW_REGISTER_SEGMENT_GRAD_V2_T(double);

DFLOW_REGISTER_KERNEL(KernelDefBuilder("SparseSoftmax")
                          .Device(kDeviceCpu)
                          .TypeConstraint<float>("T"),
                      SparseSoftmaxOp<float>);
DFLOW_REGISTER_KERNEL(KernelDefBuilder("SparseSoftmax")
                          .Device(kDeviceCpu)
                          .TypeConstraint<double>("T"),
                      SparseSoftmaxOp<double>);
DFLOW_REGISTER_KERNEL(KernelDefBuilder("SparseMatMul")
                          .Device(kDeviceCpu)
                          .TypeConstraint<float>("Ta")
                          .TypeConstraint<float>("Tb"),
                      SparseMatMulOp);

}  // namespace
}  // namespace dflow
