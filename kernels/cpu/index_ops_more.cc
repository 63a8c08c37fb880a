// The older and rarer index ops of graph/ops/index_ops_more.cc:
// LinSpace (TensorFlow's values: start + step * i, the last one stop
// itself), UnravelIndex (TensorFlow's arithmetic: (index % stride) /
// next stride, so even a negative index gives TensorFlow's numbers),
// UniqueV2 and UniqueWithCountsV2 (distinct slices along an axis, in order
// of first occurrence; slices compare with ==, so -0.0 equals 0.0 and a
// slice holding NaN equals no other), and NthElement (the row's n-th entry
// in sorted order).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/hash/hash.h"
#include "absl/strings/str_cat.h"
#include "kernels/cpu/index_ops_common.h"
#include "kernels/cpu/kernel_util.h"
#include "runtime/kernel_registry.h"
#include "runtime/op_kernel.h"

namespace dflow {
namespace {

template <typename T>
class LinSpaceOp : public OpKernel {
 public:
  explicit LinSpaceOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}

  void Compute(OpKernelContext* ctx) override {
    const char* names[] = {"start", "stop", "num"};
    for (int i = 0; i < 3; ++i) {
      OP_REQUIRES(ctx, ctx->input(i).shape().rank() == 0,
                  absl::InvalidArgumentError(absl::StrCat(
                      names[i], " must be a scalar, not shape ",
                      ctx->input(i).shape().ToString())));
    }
    const T start = ctx->input(0).data<T>()[0];
    const T stop = ctx->input(1).data<T>()[0];
    const int64_t num = index_ops::IntAt(ctx->input(2), 0);
    OP_REQUIRES(ctx, num > 0,
                absl::InvalidArgumentError(
                    absl::StrCat("LinSpace requires num > 0, got ", num)));
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape({num}), &out));
    T* o = out->data<T>();
    if (num == 1) {
      o[0] = start;
      return;
    }
    // TensorFlow's order of operations, so the values match bit for bit.
    const T step = (stop - start) / static_cast<T>(num - 1);
    for (int64_t i = 0; i < num - 1; ++i) o[i] = start + step * static_cast<T>(i);
    o[num - 1] = stop;
  }
};

template <typename Tidx>
class UnravelIndexOp : public OpKernel {
 public:
  explicit UnravelIndexOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}

  void Compute(OpKernelContext* ctx) override {
    const Tensor& indices = ctx->input(0);
    const Tensor& dims = ctx->input(1);
    OP_REQUIRES(ctx, indices.shape().rank() <= 1,
                absl::InvalidArgumentError(absl::StrCat(
                    "The indices can only be scalar or vector, got shape ",
                    indices.shape().ToString())));
    OP_REQUIRES(ctx, indices.NumElements() > 0,
                absl::InvalidArgumentError("received empty indices"));
    OP_REQUIRES(ctx, dims.shape().rank() == 1,
                absl::InvalidArgumentError(absl::StrCat(
                    "The dims can only be 1-D, got shape ",
                    dims.shape().ToString())));
    const int64_t nd = dims.NumElements();
    const Tidx* d = dims.data<Tidx>();
    const uint64_t limit = std::numeric_limits<Tidx>::max();
    uint64_t prod = 1;
    for (int64_t i = 0; i < nd; ++i) {
      OP_REQUIRES(ctx, d[i] != 0,
                  absl::InvalidArgumentError(absl::StrCat(
                      "Input dims cannot contain a dim of zero, but dims "
                      "contains zero at index ",
                      i)));
      OP_REQUIRES(ctx, d[i] > 0,
                  absl::InvalidArgumentError(
                      absl::StrCat("Input dims cannot be negative. Got dim = ",
                                   d[i], " at index ", i)));
      OP_REQUIRES(ctx, prod <= limit / static_cast<uint64_t>(d[i]),
                  absl::InvalidArgumentError(
                      "Input dims product is causing integer overflow"));
      prod *= static_cast<uint64_t>(d[i]);
    }
    const Tidx* in = indices.data<Tidx>();
    const int64_t n = indices.NumElements();
    for (int64_t j = 0; j < n; ++j) {
      OP_REQUIRES(ctx, in[j] < static_cast<Tidx>(prod),
                  absl::InvalidArgumentError(absl::StrCat(
                      "index ", in[j], " is out of bound as with dims (",
                      "their product is ", prod, ")")));
    }
    // stride[i]: the product of dims[i:]; next[i]: of dims[i+1:].
    std::vector<Tidx> stride(nd), next(nd);
    Tidx acc = 1;
    for (int64_t i = nd - 1; i >= 0; --i) {
      next[i] = acc;
      acc *= d[i];
      stride[i] = acc;
    }
    Tensor* out = nullptr;
    const TensorShape shape = indices.shape().rank() == 0
                                  ? TensorShape({nd})
                                  : TensorShape({nd, n});
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, shape, &out));
    Tidx* o = out->data<Tidx>();
    for (int64_t i = 0; i < nd; ++i) {
      for (int64_t j = 0; j < n; ++j) {
        o[i * n + j] = (in[j] % stride[i]) / next[i];
      }
    }
  }
};

// An element as a hash key: -0.0 hashes as 0.0, since they compare equal.
template <typename T>
T HashKey(const T& v) {
  if constexpr (std::is_floating_point_v<T>) {
    return v == T(0) ? T(0) : v;
  } else {
    return v;
  }
}

template <typename T, typename Idx>
class UniqueV2Op : public OpKernel {
 public:
  explicit UniqueV2Op(OpKernelConstruction* ctx) : OpKernel(ctx) {}

  void Compute(OpKernelContext* ctx) override {
    const Tensor& x = ctx->input(0);
    const Tensor& axis_t = ctx->input(1);
    OP_REQUIRES(ctx, axis_t.shape().rank() == 1,
                absl::InvalidArgumentError(absl::StrCat(
                    "axis expects a 1D vector, got shape ",
                    axis_t.shape().ToString())));
    OP_REQUIRES(ctx, axis_t.NumElements() <= 1,
                absl::InvalidArgumentError(absl::StrCat(
                    "axis does not support input tensors larger than 1 "
                    "elements, got ",
                    axis_t.NumElements())));
    const TensorShape& s = x.shape();
    // [outer, mid, inner]: the slices along axis are x[:, i, :].
    int64_t outer = 1, mid = x.NumElements(), inner = 1, axis = 0;
    if (axis_t.NumElements() == 0) {
      OP_REQUIRES(ctx, s.rank() == 1,
                  absl::InvalidArgumentError(absl::StrCat(
                      "unique with an empty axis expects a 1D vector, got "
                      "shape ",
                      s.ToString())));
    } else {
      axis = index_ops::IntAt(axis_t, 0);
      if (axis < 0) axis += s.rank();
      OP_REQUIRES(ctx, axis >= 0 && axis < s.rank(),
                  absl::InvalidArgumentError(absl::StrCat(
                      "axis ", index_ops::IntAt(axis_t, 0),
                      " is out of range: it has to be in [", -s.rank(), ", ",
                      s.rank(), ") for an input of shape ", s.ToString())));
      for (int64_t i = 0; i < axis; ++i) outer *= s.dim(i);
      mid = s.dim(axis);
      for (int64_t i = axis + 1; i < s.rank(); ++i) inner *= s.dim(i);
    }
    const T* in = x.data<T>();
    auto at = [&](int64_t o, int64_t m, int64_t i) -> const T& {
      return in[(o * mid + m) * inner + i];
    };
    auto hash = [&](int64_t m) {
      size_t h = 0;
      for (int64_t o = 0; o < outer; ++o) {
        for (int64_t i = 0; i < inner; ++i) {
          h = absl::HashOf(h, HashKey(at(o, m, i)));
        }
      }
      return h;
    };
    auto equal = [&](int64_t a, int64_t b) {
      for (int64_t o = 0; o < outer; ++o) {
        for (int64_t i = 0; i < inner; ++i) {
          if (!(at(o, a, i) == at(o, b, i))) return false;
        }
      }
      return true;
    };
    absl::flat_hash_map<int64_t, int64_t, decltype(hash), decltype(equal)>
        seen(0, hash, equal);
    Tensor* idx = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(1, TensorShape({mid}), &idx));
    Idx* id = idx->data<Idx>();
    std::vector<int64_t> first;  // The first slice of each distinct one.
    for (int64_t m = 0; m < mid; ++m) {
      auto [it, inserted] =
          seen.try_emplace(m, static_cast<int64_t>(first.size()));
      if (inserted) first.push_back(m);
      id[m] = static_cast<Idx>(it->second);
    }
    const int64_t uniq = static_cast<int64_t>(first.size());
    TensorShape y_shape = s;
    y_shape.set_dim(static_cast<int>(axis), uniq);
    Tensor* y = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, y_shape, &y));
    T* out = y->data<T>();
    for (int64_t o = 0; o < outer; ++o) {
      for (int64_t u = 0; u < uniq; ++u) {
        for (int64_t i = 0; i < inner; ++i) {
          out[(o * uniq + u) * inner + i] = at(o, first[u], i);
        }
      }
    }
    if (num_outputs() < 3) return;
    Tensor* count = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(2, TensorShape({uniq}), &count));
    Idx* c = count->data<Idx>();
    std::fill_n(c, uniq, Idx(0));
    for (int64_t m = 0; m < mid; ++m) ++c[id[m]];
  }
};

template <typename T>
class NthElementOp : public OpKernel {
 public:
  explicit NthElementOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    ctx->SetStatus(ctx->GetAttr("reverse", &reverse_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    const Tensor& n_t = ctx->input(1);
    OP_REQUIRES(ctx, n_t.shape().rank() == 0,
                absl::InvalidArgumentError(absl::StrCat(
                    "n must be a scalar, but has shape ",
                    n_t.shape().ToString())));
    const int64_t n = n_t.data<int32_t>()[0];
    OP_REQUIRES(ctx, n >= 0,
                absl::InvalidArgumentError(
                    absl::StrCat("n must be non-negative but is ", n)));
    const TensorShape& s = input.shape();
    OP_REQUIRES(ctx, s.rank() >= 1,
                absl::InvalidArgumentError(absl::StrCat(
                    "Input must be at least rank 1 but is rank ", s.rank())));
    const int64_t cols = s.dim(s.rank() - 1);
    OP_REQUIRES(ctx, cols > n,
                absl::InvalidArgumentError(absl::StrCat(
                    "Input must have last dimension > n = ", n,
                    ", got shape ", s.ToString())));
    TensorShape out_shape;
    for (int i = 0; i + 1 < s.rank(); ++i) out_shape.AddDim(s.dim(i));
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, out_shape, &out));
    const int64_t rows = out->NumElements();
    const int64_t pos = reverse_ ? cols - n - 1 : n;
    const T* in = input.data<T>();
    T* o = out->data<T>();
    ParallelForShards(ctx, rows, cols * 4, [&](int64_t r0, int64_t r1) {
      std::vector<T> row(cols);
      for (int64_t r = r0; r < r1; ++r) {
        std::copy_n(in + r * cols, cols, row.begin());
        std::nth_element(row.begin(), row.begin() + pos, row.end());
        o[r] = row[pos];
      }
    });
  }

 private:
  bool reverse_ = false;
};

DFLOW_REGISTER_KERNEL(
    KernelDefBuilder("LinSpace").Device(kDeviceCpu).TypeConstraint<float>("T"),
    LinSpaceOp<float>);
DFLOW_REGISTER_KERNEL(KernelDefBuilder("LinSpace")
                          .Device(kDeviceCpu)
                          .TypeConstraint<double>("T"),
                      LinSpaceOp<double>);

DFLOW_REGISTER_KERNEL(KernelDefBuilder("UnravelIndex")
                          .Device(kDeviceCpu)
                          .TypeConstraint<int32_t>("Tidx"),
                      UnravelIndexOp<int32_t>);
DFLOW_REGISTER_KERNEL(KernelDefBuilder("UnravelIndex")
                          .Device(kDeviceCpu)
                          .TypeConstraint<int64_t>("Tidx"),
                      UnravelIndexOp<int64_t>);

#define DFLOW_REGISTER_UNIQUE_V2_IDX(op, T, Idx)                 \
  DFLOW_REGISTER_KERNEL(KernelDefBuilder(op)                     \
                            .Device(kDeviceCpu)                  \
                            .TypeConstraint<T>("T")              \
                            .TypeConstraint<Idx>("out_idx"),     \
                        UniqueV2Op<T, Idx>)
#define DFLOW_REGISTER_UNIQUE_V2(T)                                   \
  DFLOW_REGISTER_UNIQUE_V2_IDX("UniqueV2", T, int32_t);               \
  DFLOW_REGISTER_UNIQUE_V2_IDX("UniqueV2", T, int64_t);               \
  DFLOW_REGISTER_UNIQUE_V2_IDX("UniqueWithCountsV2", T, int32_t);     \
  DFLOW_REGISTER_UNIQUE_V2_IDX("UniqueWithCountsV2", T, int64_t)
DFLOW_REGISTER_UNIQUE_V2(float);
DFLOW_REGISTER_UNIQUE_V2(double);
DFLOW_REGISTER_UNIQUE_V2(int8_t);
DFLOW_REGISTER_UNIQUE_V2(uint8_t);
DFLOW_REGISTER_UNIQUE_V2(int16_t);
DFLOW_REGISTER_UNIQUE_V2(int32_t);
DFLOW_REGISTER_UNIQUE_V2(int64_t);
DFLOW_REGISTER_UNIQUE_V2(bool);
DFLOW_REGISTER_UNIQUE_V2(std::string);

#define DFLOW_REGISTER_NTH_ELEMENT(T)                                     \
  DFLOW_REGISTER_KERNEL(                                                  \
      KernelDefBuilder("NthElement").Device(kDeviceCpu).TypeConstraint<T>( \
          "T"),                                                           \
      NthElementOp<T>)
DFLOW_REGISTER_NTH_ELEMENT(float);
DFLOW_REGISTER_NTH_ELEMENT(double);
DFLOW_REGISTER_NTH_ELEMENT(int8_t);
DFLOW_REGISTER_NTH_ELEMENT(uint8_t);
DFLOW_REGISTER_NTH_ELEMENT(int16_t);
DFLOW_REGISTER_NTH_ELEMENT(int32_t);
DFLOW_REGISTER_NTH_ELEMENT(int64_t);

}  // namespace
}  // namespace dflow
