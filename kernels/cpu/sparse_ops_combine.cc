// The tf.sparse ops that merge or reorder SparseTensors, on the CPU, as
// TensorFlow 2.21 computes them: SparseAdd and SparseAddGrad,
// SparseSparseMaximum/Minimum, SparseConcat and SparseReorder.
//
// SparseAdd, its gradient and the element-wise maximum/minimum merge the
// two index lists in one pass, as TensorFlow does: on inputs in row-major
// order that is the union of the entries; on unsorted inputs TensorFlow's
// result is that of the same pass, and so is dflow's (no sorting first).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <numeric>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "graph/types.h"
#include "kernels/cpu/sparse_ops_util.h"
#include "runtime/kernel_registry.h"
#include "runtime/op_kernel.h"

namespace dflow {
namespace {

using sparse_util::CheckSparseInBounds;
using sparse_util::CompareRows;
using sparse_util::SameShape;
using sparse_util::ShapeText;

// The merge of a and b's entries: for each output entry, which of a (>= 0)
// and b (>= 0) it takes its value from (-1: absent).
struct Merged {
  std::vector<int64_t> from_a, from_b;
};

Merged MergeEntries(const int64_t* a, int64_t na, const int64_t* b, int64_t nb,
                    int64_t r) {
  Merged m;
  int64_t i = 0, j = 0;
  while (i < na && j < nb) {
    const int c = CompareRows(a, i, b, j, r);
    m.from_a.push_back(c <= 0 ? i : -1);
    m.from_b.push_back(c >= 0 ? j : -1);
    if (c <= 0) ++i;
    if (c >= 0) ++j;
  }
  for (; i < na; ++i) {
    m.from_a.push_back(i);
    m.from_b.push_back(-1);
  }
  for (; j < nb; ++j) {
    m.from_a.push_back(-1);
    m.from_b.push_back(j);
  }
  return m;
}

// The checks SparseAdd and SparseSparseMaximum share: two SparseTensors
// of one dense shape, indices inside it.
bool CheckTwoSparse(OpKernelContext* ctx, int first) {
  const Tensor& ai = ctx->input(first);
  const Tensor& av = ctx->input(first + 1);
  const Tensor& as = ctx->input(first + 2);
  const Tensor& bi = ctx->input(first + 3);
  const Tensor& bv = ctx->input(first + 4);
  const Tensor& bs = ctx->input(first + 5);
  absl::Status s = CheckSparseInBounds(ai, av, as, "a");
  if (s.ok()) s = CheckSparseInBounds(bi, bv, bs, "b");
  if (s.ok() && !SameShape(as, bs)) {
    s = absl::InvalidArgumentError(
        absl::StrCat("a and b must have the same dense shape, but a_shape is ",
                     ShapeText(as), " and b_shape ", ShapeText(bs)));
  }
  if (!s.ok()) ctx->SetStatus(s);
  return s.ok();
}

template <typename T>
T Magnitude(T v) {
  return v < T(0) ? -v : v;
}

template <typename T>
class SparseAddOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    if (!CheckTwoSparse(ctx, 0)) return;
    const Tensor& ai = ctx->input(0);
    const Tensor& bi = ctx->input(3);
    const Tensor& thresh_t = ctx->input(6);
    OP_REQUIRES(ctx, thresh_t.shape().rank() == 0,
                absl::InvalidArgumentError(absl::StrCat(
                    "thresh must be a scalar, but has shape ",
                    thresh_t.shape().ToString())));
    const T thresh = *thresh_t.data<T>();
    const int64_t r = ai.shape().dim(1);
    const T* av = ctx->input(1).data<T>();
    const T* bv = ctx->input(4).data<T>();
    const int64_t* a = ai.data<int64_t>();
    const int64_t* b = bi.data<int64_t>();
    const Merged m = MergeEntries(a, ai.shape().dim(0), b, bi.shape().dim(0), r);
    // Only a sum of two entries is compared with thresh (TensorFlow keeps
    // an entry of one operand whatever its magnitude).
    std::vector<int64_t> keep;
    std::vector<T> vals;
    for (size_t k = 0; k < m.from_a.size(); ++k) {
      if (m.from_a[k] >= 0 && m.from_b[k] >= 0) {
        const T s = av[m.from_a[k]] + bv[m.from_b[k]];
        if (thresh <= Magnitude(s)) {
          keep.push_back(k);
          vals.push_back(s);
        }
      } else {
        keep.push_back(k);
        vals.push_back(m.from_a[k] >= 0 ? av[m.from_a[k]] : bv[m.from_b[k]]);
      }
    }
    const int64_t n = static_cast<int64_t>(keep.size());
    Tensor *oi = nullptr, *ov = nullptr, *os = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape({n, r}), &oi));
    OP_REQUIRES_OK(ctx, ctx->allocate_output(1, TensorShape({n}), &ov));
    OP_REQUIRES_OK(ctx, ctx->allocate_output(2, TensorShape({r}), &os));
    for (int64_t k = 0; k < n; ++k) {
      const int64_t e = keep[k];
      const int64_t* src = m.from_a[e] >= 0 ? a + m.from_a[e] * r
                                            : b + m.from_b[e] * r;
      std::copy(src, src + r, oi->data<int64_t>() + k * r);
      ov->data<T>()[k] = vals[k];
    }
    std::copy(ctx->input(2).data<int64_t>(),
              ctx->input(2).data<int64_t>() + r, os->data<int64_t>());
  }
};

// The sum's value gradients back to a's and b's entries: one pass over the
// three index lists, as TensorFlow's kernel walks them (an operand entry
// whose sum fell below thresh gets 0).
template <typename T>
class SparseAddGradOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    const Tensor& grad = ctx->input(0);
    const Tensor& ai = ctx->input(1);
    const Tensor& bi = ctx->input(2);
    const Tensor& si = ctx->input(3);
    OP_REQUIRES(ctx,
                grad.shape().rank() == 1 && ai.shape().rank() == 2 &&
                    bi.shape().rank() == 2 && si.shape().rank() == 2,
                absl::InvalidArgumentError(absl::StrCat(
                    "backprop_val_grad must be a vector and the indices "
                    "matrices, but have shapes ",
                    grad.shape().ToString(), ", ", ai.shape().ToString(), ", ",
                    bi.shape().ToString(), " and ", si.shape().ToString())));
    const int64_t r = ai.shape().dim(1);
    OP_REQUIRES(ctx, bi.shape().dim(1) == r && si.shape().dim(1) == r,
                absl::InvalidArgumentError(absl::StrCat(
                    "a_indices, b_indices and sum_indices must have the same "
                    "number of columns, but have shapes ",
                    ai.shape().ToString(), ", ", bi.shape().ToString(),
                    " and ", si.shape().ToString())));
    OP_REQUIRES(ctx, grad.shape().dim(0) == si.shape().dim(0),
                absl::InvalidArgumentError(absl::StrCat(
                    "backprop_val_grad ", grad.shape().ToString(),
                    " must have one value per row of sum_indices ",
                    si.shape().ToString())));
    const int64_t na = ai.shape().dim(0), nb = bi.shape().dim(0),
                  ns = si.shape().dim(0);
    Tensor *ga = nullptr, *gb = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape({na}), &ga));
    OP_REQUIRES_OK(ctx, ctx->allocate_output(1, TensorShape({nb}), &gb));
    T* oa = ga->data<T>();
    T* ob = gb->data<T>();
    std::fill(oa, oa + na, T(0));
    std::fill(ob, ob + nb, T(0));
    const T* g = grad.data<T>();
    const int64_t* a = ai.data<int64_t>();
    const int64_t* b = bi.data<int64_t>();
    const int64_t* s = si.data<int64_t>();
    int64_t i = 0, j = 0, k = 0;
    // Compares operand entry `at` with sum entry k: a match takes the
    // gradient; an operand entry before the sum's is dropped from it.
    auto step = [&](const int64_t* x, int64_t& at, T* out) {
      const int c = CompareRows(x, at, s, k, r);
      if (c == 0) out[at++] = g[k];
      if (c < 0) ++at;
      return c >= 0;  // this operand is at or past sum entry k
    };
    while (i < na && j < nb && k < ns) {
      const bool a_ge = step(a, i, oa);
      const bool b_ge = step(b, j, ob);
      if (a_ge && b_ge) ++k;
    }
    while (i < na && k < ns) {
      if (step(a, i, oa)) ++k;
    }
    while (j < nb && k < ns) {
      if (step(b, j, ob)) ++k;
    }
  }
};

template <typename T, bool kMax>
class SparseSparseMinOrMaxOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    if (!CheckTwoSparse(ctx, 0)) return;
    const Tensor& ai = ctx->input(0);
    const Tensor& bi = ctx->input(3);
    const int64_t r = ai.shape().dim(1);
    const int64_t* a = ai.data<int64_t>();
    const int64_t* b = bi.data<int64_t>();
    const T* av = ctx->input(1).data<T>();
    const T* bv = ctx->input(4).data<T>();
    const Merged m = MergeEntries(a, ai.shape().dim(0), b, bi.shape().dim(0), r);
    const int64_t n = static_cast<int64_t>(m.from_a.size());
    Tensor *oi = nullptr, *ov = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape({n, r}), &oi));
    OP_REQUIRES_OK(ctx, ctx->allocate_output(1, TensorShape({n}), &ov));
    for (int64_t k = 0; k < n; ++k) {
      // An entry missing from one operand is its implicit zero.
      const T x = m.from_a[k] >= 0 ? av[m.from_a[k]] : T(0);
      const T y = m.from_b[k] >= 0 ? bv[m.from_b[k]] : T(0);
      ov->data<T>()[k] = kMax ? (x < y ? y : x) : (y < x ? y : x);
      const int64_t* src = m.from_a[k] >= 0 ? a + m.from_a[k] * r
                                            : b + m.from_b[k] * r;
      std::copy(src, src + r, oi->data<int64_t>() + k * r);
    }
  }
};

// Sorts entries into row-major order; a stable sort, so repeated indices
// keep their order.
std::vector<int64_t> RowMajorOrder(const int64_t* idx, int64_t n, int64_t r) {
  std::vector<int64_t> order(n);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int64_t x, int64_t y) {
    return CompareRows(idx, x, idx, y, r) < 0;
  });
  return order;
}

template <typename T>
class SparseReorderOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    const Tensor& ii = ctx->input(0);
    const Tensor& iv = ctx->input(1);
    const Tensor& is = ctx->input(2);
    OP_REQUIRES_OK(ctx, CheckSparseInBounds(ii, iv, is, "input"));
    const int64_t n = ii.shape().dim(0), r = ii.shape().dim(1);
    const int64_t* idx = ii.data<int64_t>();
    const std::vector<int64_t> order = RowMajorOrder(idx, n, r);
    Tensor *oi = nullptr, *ov = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, ii.shape(), &oi));
    OP_REQUIRES_OK(ctx, ctx->allocate_output(1, iv.shape(), &ov));
    for (int64_t k = 0; k < n; ++k) {
      std::copy(idx + order[k] * r, idx + (order[k] + 1) * r,
                oi->data<int64_t>() + k * r);
      ov->data<T>()[k] = iv.data<T>()[order[k]];
    }
  }
};

// All entries, each moved along concat_dim by the sizes of the inputs
// before it, in row-major order (TensorFlow reorders the concatenation).
template <typename T>
class SparseConcatOp : public OpKernel {
 public:
  explicit SparseConcatOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    ctx->SetStatus(ctx->GetAttr("concat_dim", &concat_dim_));
  }

  void Compute(OpKernelContext* ctx) override {
    const int n = ctx->num_inputs() / 3;
    for (int i = 0; i < n; ++i) {
      OP_REQUIRES_OK(
          ctx, CheckSparseInBounds(ctx->input(i), ctx->input(n + i),
                                   ctx->input(2 * n + i),
                                   absl::StrCat("input ", i)));
    }
    const Tensor& shape0 = ctx->input(2 * n);
    const int64_t r = shape0.NumElements();
    OP_REQUIRES(ctx, concat_dim_ >= -r && concat_dim_ < r,
                absl::InvalidArgumentError(absl::StrCat(
                    "concat_dim ", concat_dim_, " is out of range for rank ",
                    r)));
    const int64_t dim = concat_dim_ < 0 ? concat_dim_ + r : concat_dim_;
    std::vector<int64_t> out_shape(shape0.data<int64_t>(),
                                   shape0.data<int64_t>() + r);
    out_shape[dim] = 0;
    std::vector<int64_t> offset(n);
    int64_t total = 0;
    for (int i = 0; i < n; ++i) {
      const Tensor& s = ctx->input(2 * n + i);
      OP_REQUIRES(ctx, s.NumElements() == r,
                  absl::InvalidArgumentError(absl::StrCat(
                      "input ", i, " has rank ", s.NumElements(),
                      " but input 0 has rank ", r)));
      for (int64_t d = 0; d < r; ++d) {
        OP_REQUIRES(ctx,
                    d == dim || s.data<int64_t>()[d] == out_shape[d],
                    absl::InvalidArgumentError(absl::StrCat(
                        "input ", i, "'s shape ", ShapeText(s),
                        " differs from input 0's ", ShapeText(shape0),
                        " outside concat_dim ", dim)));
      }
      offset[i] = out_shape[dim];
      out_shape[dim] += s.data<int64_t>()[dim];
      total += ctx->input(i).shape().dim(0);
    }
    std::vector<int64_t> idx(total * r);
    std::vector<T> vals(total);
    int64_t at = 0;
    for (int i = 0; i < n; ++i) {
      const Tensor& ii = ctx->input(i);
      const int64_t* src = ii.data<int64_t>();
      for (int64_t e = 0; e < ii.shape().dim(0); ++e, ++at) {
        std::copy(src + e * r, src + (e + 1) * r, idx.data() + at * r);
        idx[at * r + dim] += offset[i];
        vals[at] = ctx->input(n + i).data<T>()[e];
      }
    }
    const std::vector<int64_t> order = RowMajorOrder(idx.data(), total, r);
    Tensor *oi = nullptr, *ov = nullptr, *os = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape({total, r}), &oi));
    OP_REQUIRES_OK(ctx, ctx->allocate_output(1, TensorShape({total}), &ov));
    OP_REQUIRES_OK(ctx, ctx->allocate_output(2, TensorShape({r}), &os));
    for (int64_t k = 0; k < total; ++k) {
      std::copy(idx.data() + order[k] * r, idx.data() + (order[k] + 1) * r,
                oi->data<int64_t>() + k * r);
      ov->data<T>()[k] = vals[order[k]];
    }
    std::copy(out_shape.begin(), out_shape.end(), os->data<int64_t>());
  }

 private:
  int64_t concat_dim_ = 0;
};

#define DFLOW_REGISTER_SPARSE_ARITH(T)                                     \
  DFLOW_REGISTER_KERNEL(KernelDefBuilder("SparseAdd")                      \
                            .Device(kDeviceCpu)                            \
                            .TypeConstraint<T>("T")                        \
                            .TypeConstraint<T>("Treal"),                   \
                        SparseAddOp<T>);                                   \
  DFLOW_REGISTER_KERNEL(                                                   \
      KernelDefBuilder("SparseAddGrad").Device(kDeviceCpu).TypeConstraint< \
          T>("T"),                                                         \
      SparseAddGradOp<T>);                                                 \
  DFLOW_REGISTER_KERNEL(KernelDefBuilder("SparseSparseMaximum")            \
                            .Device(kDeviceCpu)                            \
                            .TypeConstraint<T>("T"),                       \
                        SparseSparseMinOrMaxOp<T, true>);                  \
  DFLOW_REGISTER_KERNEL(KernelDefBuilder("SparseSparseMinimum")            \
                            .Device(kDeviceCpu)                            \
                            .TypeConstraint<T>("T"),                       \
                        SparseSparseMinOrMaxOp<T, false>)
DFLOW_REGISTER_SPARSE_ARITH(float);
DFLOW_REGISTER_SPARSE_ARITH(double);
DFLOW_REGISTER_SPARSE_ARITH(int32_t);
DFLOW_REGISTER_SPARSE_ARITH(int64_t);

#define DFLOW_REGISTER_SPARSE_ANY(T)                                      \
  DFLOW_REGISTER_KERNEL(                                                  \
      KernelDefBuilder("SparseReorder").Device(kDeviceCpu).TypeConstraint< \
          T>("T"),                                                        \
      SparseReorderOp<T>);                                                \
  DFLOW_REGISTER_KERNEL(                                                  \
      KernelDefBuilder("SparseConcat").Device(kDeviceCpu).TypeConstraint< \
          T>("T"),                                                        \
      SparseConcatOp<T>)
DFLOW_REGISTER_SPARSE_ANY(float);
DFLOW_REGISTER_SPARSE_ANY(double);
DFLOW_REGISTER_SPARSE_ANY(int32_t);
DFLOW_REGISTER_SPARSE_ANY(int64_t);
DFLOW_REGISTER_SPARSE_ANY(bool);
DFLOW_REGISTER_SPARSE_ANY(std::string);

}  // namespace
}  // namespace dflow
