// SparseSlice, SparseSliceGrad, SparseSplit and SparseFillEmptyRowsGrad on
// the CPU, as TensorFlow 2.21 computes them (tf.sparse.slice,
// tf.sparse.split and the gradients tf.gradients writes through
// tf.sparse.slice and tf.sparse.fill_empty_rows). Entries keep their input
// order in every output.
#include <algorithm>
#include <cstdint>
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
using sparse_util::IndexText;

// The entries inside [start, start + size), moved by -start; the output's
// dense shape is the part of [start, start + size) inside the input's.
template <typename T>
class SparseSliceOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    const Tensor& ii = ctx->input(0);
    const Tensor& iv = ctx->input(1);
    const Tensor& is = ctx->input(2);
    const Tensor& start = ctx->input(3);
    const Tensor& size = ctx->input(4);
    OP_REQUIRES_OK(ctx, CheckSparseInBounds(ii, iv, is, "input"));
    const int64_t n = ii.shape().dim(0), r = ii.shape().dim(1);
    OP_REQUIRES(ctx,
                start.shape().rank() == 1 && size.shape().rank() == 1 &&
                    start.NumElements() == r && size.NumElements() == r,
                absl::InvalidArgumentError(absl::StrCat(
                    "start and size must be vectors of the rank ", r,
                    " of the input, but have shapes ",
                    start.shape().ToString(), " and ",
                    size.shape().ToString())));
    const int64_t* st = start.data<int64_t>();
    const int64_t* sz = size.data<int64_t>();
    const int64_t* dims = is.data<int64_t>();
    std::vector<int64_t> out_dims(r);
    for (int64_t d = 0; d < r; ++d) {
      OP_REQUIRES(ctx, st[d] >= 0 && sz[d] >= 0,
                  absl::InvalidArgumentError(absl::StrCat(
                      "start[", d, "] = ", st[d], " and size[", d, "] = ",
                      sz[d], " must be non-negative")));
      out_dims[d] =
          std::max<int64_t>(0, std::min(st[d] + sz[d], dims[d]) - st[d]);
    }
    const int64_t* idx = ii.data<int64_t>();
    std::vector<int64_t> keep;
    for (int64_t i = 0; i < n; ++i) {
      bool inside = true;
      for (int64_t d = 0; d < r && inside; ++d) {
        inside = idx[i * r + d] >= st[d] && idx[i * r + d] < st[d] + sz[d];
      }
      if (inside) keep.push_back(i);
    }
    const int64_t m = static_cast<int64_t>(keep.size());
    Tensor *oi = nullptr, *ov = nullptr, *os = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape({m, r}), &oi));
    OP_REQUIRES_OK(ctx, ctx->allocate_output(1, TensorShape({m}), &ov));
    OP_REQUIRES_OK(ctx, ctx->allocate_output(2, TensorShape({r}), &os));
    for (int64_t k = 0; k < m; ++k) {
      for (int64_t d = 0; d < r; ++d) {
        oi->data<int64_t>()[k * r + d] = idx[keep[k] * r + d] - st[d];
      }
      ov->data<T>()[k] = iv.data<T>()[keep[k]];
    }
    std::copy(out_dims.begin(), out_dims.end(), os->data<int64_t>());
  }
};

// The slice's value gradients at the input entries they came from (in
// order), 0 at the entries the slice left out.
template <typename T>
class SparseSliceGradOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    const Tensor& grad = ctx->input(0);
    const Tensor& ii = ctx->input(1);
    const Tensor& start = ctx->input(2);
    const Tensor& oi = ctx->input(3);
    OP_REQUIRES(ctx,
                grad.shape().rank() == 1 && ii.shape().rank() == 2 &&
                    start.shape().rank() == 1 && oi.shape().rank() == 2,
                absl::InvalidArgumentError(absl::StrCat(
                    "backprop_val_grad and input_start must be vectors and "
                    "the indices matrices, but have shapes ",
                    grad.shape().ToString(), ", ", ii.shape().ToString(),
                    ", ", start.shape().ToString(), " and ",
                    oi.shape().ToString())));
    const int64_t r = ii.shape().dim(1);
    OP_REQUIRES(ctx, oi.shape().dim(1) == r && start.NumElements() == r,
                absl::InvalidArgumentError(absl::StrCat(
                    "input_indices ", ii.shape().ToString(),
                    ", output_indices ", oi.shape().ToString(),
                    " and input_start ", start.shape().ToString(),
                    " must agree on the rank")));
    OP_REQUIRES(ctx, grad.shape().dim(0) == oi.shape().dim(0),
                absl::InvalidArgumentError(absl::StrCat(
                    "backprop_val_grad ", grad.shape().ToString(),
                    " must have one value per row of output_indices ",
                    oi.shape().ToString())));
    const int64_t n = ii.shape().dim(0), m = oi.shape().dim(0);
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape({n}), &out));
    T* o = out->data<T>();
    std::fill(o, o + n, T(0));
    const int64_t* in = ii.data<int64_t>();
    const int64_t* sl = oi.data<int64_t>();
    const int64_t* st = start.data<int64_t>();
    int64_t j = 0;
    for (int64_t i = 0; i < n && j < m; ++i) {
      bool match = true;
      for (int64_t d = 0; d < r && match; ++d) {
        match = in[i * r + d] == sl[j * r + d] + st[d];
      }
      if (match) o[i] = grad.data<T>()[j++];
    }
    OP_REQUIRES(ctx, j == m,
                absl::InvalidArgumentError(absl::StrCat(
                    "output_indices[", j, "] = ", IndexText(sl, j, r),
                    " (+ input_start) is not among input_indices in order; ",
                    m - j, " of the ", m, " gradients have no input entry")));
  }
};

// num_split SparseTensors along split_dim: the first size % num_split
// parts are one longer, as in TensorFlow.
template <typename T>
class SparseSplitOp : public OpKernel {
 public:
  explicit SparseSplitOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    ctx->SetStatus(ctx->GetAttr("num_split", &num_split_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& split_dim_t = ctx->input(0);
    const Tensor& ii = ctx->input(1);
    const Tensor& iv = ctx->input(2);
    const Tensor& is = ctx->input(3);
    OP_REQUIRES(ctx, split_dim_t.NumElements() == 1,
                absl::InvalidArgumentError(absl::StrCat(
                    "split_dim must be a scalar, but has shape ",
                    split_dim_t.shape().ToString())));
    OP_REQUIRES_OK(ctx, CheckSparseInBounds(ii, iv, is, "input"));
    const int64_t n = ii.shape().dim(0), r = ii.shape().dim(1);
    int64_t dim = *split_dim_t.data<int64_t>();
    OP_REQUIRES(ctx, dim >= -r && dim < r,
                absl::InvalidArgumentError(absl::StrCat(
                    "split_dim ", dim, " is out of range for rank ", r)));
    if (dim < 0) dim += r;
    const int64_t* dims = is.data<int64_t>();
    const int64_t size = dims[dim];
    OP_REQUIRES(ctx, num_split_ >= 1 && num_split_ <= size,
                absl::InvalidArgumentError(absl::StrCat(
                    "num_split ", num_split_, " must be in [1, ", size,
                    "] (the size of split_dim ", dim, ")")));
    const int64_t base = size / num_split_, extra = size % num_split_;
    // Part p starts at p * base + min(p, extra).
    auto part_start = [&](int64_t p) { return p * base + std::min(p, extra); };
    auto part_of = [&](int64_t v) {
      const int64_t cut = extra * (base + 1);
      return v < cut ? v / (base + 1) : extra + (v - cut) / base;
    };
    const int64_t* idx = ii.data<int64_t>();
    std::vector<std::vector<int64_t>> members(num_split_);
    for (int64_t i = 0; i < n; ++i) {
      members[part_of(idx[i * r + dim])].push_back(i);
    }
    const int parts = static_cast<int>(num_split_);
    for (int p = 0; p < parts; ++p) {
      const int64_t m = static_cast<int64_t>(members[p].size());
      Tensor *oi = nullptr, *ov = nullptr, *os = nullptr;
      OP_REQUIRES_OK(ctx, ctx->allocate_output(p, TensorShape({m, r}), &oi));
      OP_REQUIRES_OK(ctx,
                     ctx->allocate_output(parts + p, TensorShape({m}), &ov));
      OP_REQUIRES_OK(
          ctx, ctx->allocate_output(2 * parts + p, TensorShape({r}), &os));
      for (int64_t k = 0; k < m; ++k) {
        const int64_t e = members[p][k];
        std::copy(idx + e * r, idx + (e + 1) * r, oi->data<int64_t>() + k * r);
        oi->data<int64_t>()[k * r + dim] -= part_start(p);
        ov->data<T>()[k] = iv.data<T>()[e];
      }
      std::copy(dims, dims + r, os->data<int64_t>());
      os->data<int64_t>()[dim] = part_start(p + 1) - part_start(p);
    }
  }

 private:
  int64_t num_split_ = 1;
};

// d_values[i] = grad_values[reverse_index_map[i]]; the rows filled in
// with the default (the outputs no input maps to) sum into
// d_default_value.
template <typename T>
class SparseFillEmptyRowsGradOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    const Tensor& map = ctx->input(0);
    const Tensor& grad = ctx->input(1);
    OP_REQUIRES(ctx, map.shape().rank() == 1 && grad.shape().rank() == 1,
                absl::InvalidArgumentError(absl::StrCat(
                    "reverse_index_map and grad_values must be vectors, but "
                    "have shapes ",
                    map.shape().ToString(), " and ",
                    grad.shape().ToString())));
    const int64_t n = map.NumElements(), m = grad.NumElements();
    Tensor *dv = nullptr, *dd = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape({n}), &dv));
    OP_REQUIRES_OK(ctx, ctx->allocate_output(1, TensorShape({}), &dd));
    std::vector<bool> used(m, false);
    const T* g = grad.data<T>();
    for (int64_t i = 0; i < n; ++i) {
      const int64_t at = map.data<int64_t>()[i];
      OP_REQUIRES(ctx, at >= 0 && at < m,
                  absl::InvalidArgumentError(absl::StrCat(
                      "reverse_index_map[", i, "] = ", at,
                      " is out of range [0, ", m, ")")));
      dv->data<T>()[i] = g[at];
      used[at] = true;
    }
    T sum = T(0);
    for (int64_t j = 0; j < m; ++j) {
      if (!used[j]) sum += g[j];
    }
    *dd->data<T>() = sum;
  }
};

#define DFLOW_REGISTER_SPARSE_SLICE_ANY(T)                                 \
  DFLOW_REGISTER_KERNEL(                                                   \
      KernelDefBuilder("SparseSlice").Device(kDeviceCpu).TypeConstraint<T>( \
          "T"),                                                            \
      SparseSliceOp<T>);                                                   \
  DFLOW_REGISTER_KERNEL(                                                   \
      KernelDefBuilder("SparseSplit").Device(kDeviceCpu).TypeConstraint<T>( \
          "T"),                                                            \
      SparseSplitOp<T>)
DFLOW_REGISTER_SPARSE_SLICE_ANY(float);
DFLOW_REGISTER_SPARSE_SLICE_ANY(double);
DFLOW_REGISTER_SPARSE_SLICE_ANY(int32_t);
DFLOW_REGISTER_SPARSE_SLICE_ANY(int64_t);
DFLOW_REGISTER_SPARSE_SLICE_ANY(bool);
DFLOW_REGISTER_SPARSE_SLICE_ANY(std::string);

#define DFLOW_REGISTER_SPARSE_SLICE_GRADS(T)                    \
  DFLOW_REGISTER_KERNEL(KernelDefBuilder("SparseSliceGrad")     \
                            .Device(kDeviceCpu)                 \
                            .TypeConstraint<T>("T"),            \
                        SparseSliceGradOp<T>);                  \
  DFLOW_REGISTER_KERNEL(KernelDefBuilder("SparseFillEmptyRowsGrad") \
                            .Device(kDeviceCpu)                 \
                            .TypeConstraint<T>("T"),            \
                        SparseFillEmptyRowsGradOp<T>)
DFLOW_REGISTER_SPARSE_SLICE_GRADS(float);
DFLOW_REGISTER_SPARSE_SLICE_GRADS(double);
DFLOW_REGISTER_SPARSE_SLICE_GRADS(int32_t);
DFLOW_REGISTER_SPARSE_SLICE_GRADS(int64_t);

}  // namespace
}  // namespace dflow
