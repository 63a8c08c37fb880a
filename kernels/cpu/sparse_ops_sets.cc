// The tf.sets ops on the CPU, as TensorFlow 2.21 computes them
// (core/kernels/set_kernels.cc): DenseToDenseSetOperation,
// DenseToSparseSetOperation, SparseToSparseSetOperation and SetSize.
//
// A set is a group of values along the last dimension: a dense tensor's
// row [..., :], or a SparseTensor's entries sharing index[:-1] (repeated
// values count once). The result of an operation is a SparseTensor of the
// inputs' rank: for each group (row-major), its sorted result values at
// [group..., 0..k), dense shape group_shape + [largest k].
#include <algorithm>
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "graph/types.h"
#include "kernels/cpu/sparse_ops_util.h"
#include "runtime/kernel_registry.h"
#include "runtime/op_kernel.h"

namespace dflow {
namespace {

using sparse_util::CheckOrdered;
using sparse_util::CheckSparseInBounds;

using Group = std::vector<int64_t>;

// One input's sets by group, and its group shape (all dims but the last).
template <typename T>
struct Sets {
  std::map<Group, std::set<T>> groups;
  std::vector<int64_t> group_shape;
};

template <typename T>
absl::Status DenseSets(const Tensor& t, const std::string& what, Sets<T>* out) {
  const int r = t.shape().rank();
  if (r < 2) {
    return absl::InvalidArgumentError(absl::StrCat(
        what, " must have rank at least 2 (sets along the last dimension), "
              "but has shape ",
        t.shape().ToString()));
  }
  for (int d = 0; d + 1 < r; ++d) out->group_shape.push_back(t.shape().dim(d));
  const int64_t width = t.shape().dim(r - 1);
  const int64_t groups = width == 0 ? 0 : t.NumElements() / width;
  for (int64_t g = 0; g < groups; ++g) {
    Group key(r - 1);
    int64_t rest = g;
    for (int d = r - 2; d >= 0; --d) {
      key[d] = rest % out->group_shape[d];
      rest /= out->group_shape[d];
    }
    std::set<T>& s = out->groups[key];
    for (int64_t j = 0; j < width; ++j) s.insert(t.data<T>()[g * width + j]);
  }
  return absl::OkStatus();
}

template <typename T>
absl::Status SparseSets(const Tensor& indices, const Tensor& values,
                        const Tensor& shape, bool validate,
                        const std::string& what, Sets<T>* out) {
  absl::Status s = CheckSparseInBounds(indices, values, shape, what);
  if (s.ok() && validate) s = CheckOrdered(indices, what);
  if (!s.ok()) return s;
  const int64_t n = indices.shape().dim(0), r = indices.shape().dim(1);
  if (r < 2) {
    return absl::InvalidArgumentError(absl::StrCat(
        what, " must have rank at least 2 (sets along the last dimension), "
              "but has rank ",
        r));
  }
  out->group_shape.assign(shape.data<int64_t>(), shape.data<int64_t>() + r - 1);
  const int64_t* idx = indices.data<int64_t>();
  for (int64_t e = 0; e < n; ++e) {
    Group key(idx + e * r, idx + e * r + r - 1);
    out->groups[key].insert(values.data<T>()[e]);
  }
  return absl::OkStatus();
}

template <typename T>
class SetOperationOp : public OpKernel {
 public:
  explicit SetOperationOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    std::string op;
    absl::Status s = ctx->GetAttr("set_operation", &op);
    if (s.ok()) s = ctx->GetAttr("validate_indices", &validate_);
    if (s.ok()) {
      if (op == "a-b") {
        op_ = kAMinusB;
      } else if (op == "b-a") {
        op_ = kBMinusA;
      } else if (op == "intersection") {
        op_ = kIntersection;
      } else if (op == "union") {
        op_ = kUnion;
      } else {
        s = absl::InvalidArgumentError(absl::StrCat(
            "Invalid set_operation ", op,
            " (a-b, b-a, intersection or union)"));
      }
    }
    ctx->SetStatus(s);
  }

  void Compute(OpKernelContext* ctx) override {
    Sets<T> a, b;
    const std::string& op = type_string();
    if (op == "DenseToDenseSetOperation") {
      OP_REQUIRES_OK(ctx, DenseSets(ctx->input(0), "set1", &a));
      OP_REQUIRES_OK(ctx, DenseSets(ctx->input(1), "set2", &b));
    } else if (op == "DenseToSparseSetOperation") {
      OP_REQUIRES_OK(ctx, DenseSets(ctx->input(0), "set1", &a));
      OP_REQUIRES_OK(ctx, SparseSets(ctx->input(1), ctx->input(2),
                                     ctx->input(3), validate_, "set2", &b));
    } else {
      OP_REQUIRES_OK(ctx, SparseSets(ctx->input(0), ctx->input(1),
                                     ctx->input(2), validate_, "set1", &a));
      OP_REQUIRES_OK(ctx, SparseSets(ctx->input(3), ctx->input(4),
                                     ctx->input(5), validate_, "set2", &b));
    }
    OP_REQUIRES(ctx, a.group_shape == b.group_shape,
                absl::InvalidArgumentError(absl::StrCat(
                    "set1 and set2 must have the same shape but for the last "
                    "dimension, but have group shapes [",
                    absl::StrJoin(a.group_shape, ", "), "] and [",
                    absl::StrJoin(b.group_shape, ", "), "]")));
    // Every group either input has, in row-major order.
    std::map<Group, std::vector<T>> results;
    std::set<Group> keys;
    for (const auto& g : a.groups) keys.insert(g.first);
    for (const auto& g : b.groups) keys.insert(g.first);
    const std::set<T> empty;
    int64_t widest = 0, total = 0;
    for (const Group& key : keys) {
      auto ia = a.groups.find(key);
      auto ib = b.groups.find(key);
      const std::set<T>& x = ia == a.groups.end() ? empty : ia->second;
      const std::set<T>& y = ib == b.groups.end() ? empty : ib->second;
      std::vector<T> r;
      auto out = std::back_inserter(r);
      switch (op_) {
        case kAMinusB:
          std::set_difference(x.begin(), x.end(), y.begin(), y.end(), out);
          break;
        case kBMinusA:
          std::set_difference(y.begin(), y.end(), x.begin(), x.end(), out);
          break;
        case kIntersection:
          std::set_intersection(x.begin(), x.end(), y.begin(), y.end(), out);
          break;
        case kUnion:
          std::set_union(x.begin(), x.end(), y.begin(), y.end(), out);
          break;
      }
      if (r.empty()) continue;
      widest = std::max<int64_t>(widest, r.size());
      total += r.size();
      results.emplace(key, std::move(r));
    }
    const int64_t rank = static_cast<int64_t>(a.group_shape.size()) + 1;
    Tensor *oi = nullptr, *ov = nullptr, *os = nullptr;
    OP_REQUIRES_OK(ctx,
                   ctx->allocate_output(0, TensorShape({total, rank}), &oi));
    OP_REQUIRES_OK(ctx, ctx->allocate_output(1, TensorShape({total}), &ov));
    OP_REQUIRES_OK(ctx, ctx->allocate_output(2, TensorShape({rank}), &os));
    int64_t at = 0;
    for (const auto& [key, vals] : results) {
      for (size_t j = 0; j < vals.size(); ++j, ++at) {
        std::copy(key.begin(), key.end(), oi->data<int64_t>() + at * rank);
        oi->data<int64_t>()[at * rank + rank - 1] = static_cast<int64_t>(j);
        ov->data<T>()[at] = vals[j];
      }
    }
    std::copy(a.group_shape.begin(), a.group_shape.end(), os->data<int64_t>());
    os->data<int64_t>()[rank - 1] = widest;
  }

 private:
  enum Operation { kAMinusB, kBMinusA, kIntersection, kUnion };
  Operation op_ = kUnion;
  bool validate_ = true;
};

// The number of distinct values of each group: int32 [group_shape].
template <typename T>
class SetSizeOp : public OpKernel {
 public:
  explicit SetSizeOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    ctx->SetStatus(ctx->GetAttr("validate_indices", &validate_));
  }

  void Compute(OpKernelContext* ctx) override {
    Sets<T> s;
    OP_REQUIRES_OK(ctx, SparseSets(ctx->input(0), ctx->input(1), ctx->input(2),
                                   validate_, "set", &s));
    TensorShape shape;
    for (int64_t d : s.group_shape) shape.AddDim(d);
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, shape, &out));
    int32_t* o = out->data<int32_t>();
    std::fill(o, o + out->NumElements(), 0);
    for (const auto& [key, values] : s.groups) {
      int64_t at = 0;
      for (size_t d = 0; d < key.size(); ++d) {
        at = at * s.group_shape[d] + key[d];
      }
      o[at] = static_cast<int32_t>(values.size());
    }
  }

 private:
  bool validate_ = true;
};

#define DFLOW_REGISTER_SET_OPS(T)                                           \
  DFLOW_REGISTER_KERNEL(KernelDefBuilder("DenseToDenseSetOperation")        \
                            .Device(kDeviceCpu)                             \
                            .TypeConstraint<T>("T"),                        \
                        SetOperationOp<T>);                                 \
  DFLOW_REGISTER_KERNEL(KernelDefBuilder("DenseToSparseSetOperation")       \
                            .Device(kDeviceCpu)                             \
                            .TypeConstraint<T>("T"),                        \
                        SetOperationOp<T>);                                 \
  DFLOW_REGISTER_KERNEL(KernelDefBuilder("SparseToSparseSetOperation")      \
                            .Device(kDeviceCpu)                             \
                            .TypeConstraint<T>("T"),                        \
                        SetOperationOp<T>);                                 \
  DFLOW_REGISTER_KERNEL(                                                    \
      KernelDefBuilder("SetSize").Device(kDeviceCpu).TypeConstraint<T>("T"), \
      SetSizeOp<T>)
DFLOW_REGISTER_SET_OPS(int32_t);
DFLOW_REGISTER_SET_OPS(int64_t);
DFLOW_REGISTER_SET_OPS(std::string);

}  // namespace
}  // namespace dflow
