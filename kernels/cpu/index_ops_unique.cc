// Unique (distinct values of a vector in order of first occurrence, and
// each element's position among them; UniqueWithCounts also how often each
// occurs) and Where (coordinates of the
// non-zero elements, int64 [n, rank], row-major order).
#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "kernels/cpu/index_ops_common.h"
#include "kernels/cpu/kernel_util.h"
#include "runtime/kernel_registry.h"
#include "runtime/op_kernel.h"

namespace dflow {
namespace {

// Hashable key of an element: floats by value with -0.0 folded into 0.0
// (they compare equal, as in TensorFlow's std::unordered_map).
template <typename T>
T Key(const T& v) {
  if constexpr (std::is_floating_point_v<T>) {
    return v == T(0) ? T(0) : v;
  } else {
    return v;
  }
}

template <typename T, typename Idx>
class UniqueOp : public OpKernel {
 public:
  explicit UniqueOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}
  UniqueOp(OpKernelConstruction* ctx, bool counts)
      : OpKernel(ctx), counts_(counts) {}

  void Compute(OpKernelContext* ctx) override {
    const Tensor& x = ctx->input(0);
    OP_REQUIRES(ctx, x.shape().rank() == 1,
                absl::InvalidArgumentError(absl::StrCat(
                    "unique expects a 1D vector, got shape ",
                    x.shape().ToString())));
    const int64_t n = x.NumElements();
    Tensor* idx = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(1, x.shape(), &idx));
    const T* in = x.data<T>();
    Idx* id = idx->data<Idx>();
    absl::flat_hash_map<T, int64_t> seen;
    std::vector<int64_t> first;  // Position of each distinct value's first.
    for (int64_t i = 0; i < n; ++i) {
      auto [it, inserted] =
          seen.try_emplace(Key(in[i]), static_cast<int64_t>(first.size()));
      if (inserted) first.push_back(i);
      id[i] = static_cast<Idx>(it->second);
    }
    Tensor* y = nullptr;
    OP_REQUIRES_OK(ctx,
                   ctx->allocate_output(
                       0, TensorShape({static_cast<int64_t>(first.size())}), &y));
    T* out = y->data<T>();
    for (size_t j = 0; j < first.size(); ++j) out[j] = in[first[j]];
    if (!counts_) return;
    Tensor* count = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(
                            2, TensorShape({static_cast<int64_t>(first.size())}),
                            &count));
    Idx* c = count->data<Idx>();
    std::fill_n(c, first.size(), Idx(0));
    for (int64_t i = 0; i < n; ++i) ++c[id[i]];
  }

 private:
  const bool counts_ = false;
};

template <typename T, typename Idx>
class UniqueWithCountsOp : public UniqueOp<T, Idx> {
 public:
  explicit UniqueWithCountsOp(OpKernelConstruction* ctx)
      : UniqueOp<T, Idx>(ctx, /*counts=*/true) {}
};

template <typename T>
class WhereOp : public OpKernel {
 public:
  explicit WhereOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}

  void Compute(OpKernelContext* ctx) override {
    const Tensor& in = ctx->input(0);
    const TensorShape& s = in.shape();
    const int rank = s.rank();
    const T* v = in.data<T>();
    auto truthy = [v](int64_t i) {
      if constexpr (std::is_same_v<T, bool>) {
        return reinterpret_cast<const uint8_t*>(v)[i] != 0;
      } else {
        return v[i] != T(0);
      }
    };
    int64_t count = 0;
    for (int64_t i = 0; i < in.NumElements(); ++i) count += truthy(i) ? 1 : 0;
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape({count, rank}),
                                             &out));
    int64_t* o = out->data<int64_t>();
    std::vector<int64_t> index(rank, 0);
    for (int64_t i = 0; i < in.NumElements(); ++i) {
      if (truthy(i)) {
        for (int d = 0; d < rank; ++d) *o++ = index[d];
      }
      for (int d = rank - 1; d >= 0; --d) {
        if (++index[d] < s.dim(d)) break;
        index[d] = 0;
      }
    }
  }
};

#define DFLOW_REGISTER_UNIQUE(T)                               \
  DFLOW_REGISTER_KERNEL(KernelDefBuilder("Unique")             \
                            .Device(kDeviceCpu)                \
                            .TypeConstraint<T>("T")            \
                            .TypeConstraint<int32_t>("out_idx"), \
                        UniqueOp<T, int32_t>);                 \
  DFLOW_REGISTER_KERNEL(KernelDefBuilder("Unique")             \
                            .Device(kDeviceCpu)                \
                            .TypeConstraint<T>("T")            \
                            .TypeConstraint<int64_t>("out_idx"), \
                        UniqueOp<T, int64_t>);                 \
  DFLOW_REGISTER_KERNEL(KernelDefBuilder("UniqueWithCounts")   \
                            .Device(kDeviceCpu)                \
                            .TypeConstraint<T>("T")            \
                            .TypeConstraint<int32_t>("out_idx"), \
                        UniqueWithCountsOp<T, int32_t>);       \
  DFLOW_REGISTER_KERNEL(KernelDefBuilder("UniqueWithCounts")   \
                            .Device(kDeviceCpu)                \
                            .TypeConstraint<T>("T")            \
                            .TypeConstraint<int64_t>("out_idx"), \
                        UniqueWithCountsOp<T, int64_t>)
DFLOW_REGISTER_UNIQUE(float);
DFLOW_REGISTER_UNIQUE(double);
DFLOW_REGISTER_UNIQUE(int8_t);
DFLOW_REGISTER_UNIQUE(uint8_t);
DFLOW_REGISTER_UNIQUE(int16_t);
DFLOW_REGISTER_UNIQUE(int32_t);
DFLOW_REGISTER_UNIQUE(int64_t);
DFLOW_REGISTER_UNIQUE(bool);
DFLOW_REGISTER_UNIQUE(std::string);

#define DFLOW_REGISTER_WHERE(T)                                            \
  DFLOW_REGISTER_KERNEL(                                                   \
      KernelDefBuilder("Where").Device(kDeviceCpu).TypeConstraint<T>("T"), \
      WhereOp<T>)
DFLOW_REGISTER_WHERE(bool);
DFLOW_REGISTER_WHERE(float);
DFLOW_REGISTER_WHERE(double);
DFLOW_REGISTER_WHERE(int8_t);
DFLOW_REGISTER_WHERE(uint8_t);
DFLOW_REGISTER_WHERE(int16_t);
DFLOW_REGISTER_WHERE(int32_t);
DFLOW_REGISTER_WHERE(int64_t);

}  // namespace
}  // namespace dflow
