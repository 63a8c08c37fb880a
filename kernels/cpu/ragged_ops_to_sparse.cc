// RaggedTensorToSparse and RaggedRange on the CPU, as TensorFlow 2.21
// computes them. RaggedTensorToSparse: each value's coordinates (its row
// at every ragged level, then its position in the value's own dense
// dimensions), in row-major order; the dense shape takes each ragged
// level's longest row. RaggedRange: row i counts from starts[i] by
// deltas[i] while below (above, for negative deltas) limits[i], each
// value the previous one plus the delta, as TensorFlow adds them.
#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>
#include <vector>

#include "absl/strings/str_cat.h"
#include "graph/tensor.h"
#include "kernels/cpu/kernel_util_array.h"
#include "kernels/cpu/ragged_ops_common.h"
#include "runtime/kernel_registry.h"
#include "runtime/op_kernel.h"

namespace dflow {
namespace {

using array_kernels::CopyData;
using array_kernels::VisitCopyType;

class RaggedTensorToSparseOp : public OpKernel {
 public:
  explicit RaggedTensorToSparseOp(OpKernelConstruction* ctx)
      : OpKernel(ctx) {}

  void Compute(OpKernelContext* ctx) override {
    const int R = ctx->num_inputs() - 1;
    const Tensor& values = ctx->input(R);
    OP_REQUIRES(ctx, values.shape().rank() >= 1,
                absl::InvalidArgumentError(absl::StrCat(
                    "rt_dense_values must have rank >= 1, got ",
                    values.shape().ToString())));
    std::vector<std::vector<int64_t>> splits(R);
    for (int d = 0; d < R; ++d) {
      splits[d] = ragged::ReadIndices(ctx->input(d));
      const int64_t items =
          d + 1 < R ? ctx->input(d + 1).NumElements() - 1
                    : values.shape().dim(0);
      OP_REQUIRES_OK(ctx, ragged::CheckSplits(
                              splits[d], ctx->input(d),
                              absl::StrCat("rt_nested_splits[", d, "]"),
                              std::max<int64_t>(items, 0), /*exact_end=*/true));
    }
    // coords[i]: the ragged coordinates of item i of the current level.
    std::vector<std::vector<int64_t>> coords(splits[0].size() - 1);
    for (size_t r = 0; r < coords.size(); ++r) coords[r] = {int64_t(r)};
    std::vector<int64_t> dense_shape = {int64_t(coords.size())};
    for (int d = 0; d < R; ++d) {
      std::vector<std::vector<int64_t>> next;
      int64_t widest = 0;
      for (size_t r = 0; r + 1 < splits[d].size(); ++r) {
        widest = std::max(widest, splits[d][r + 1] - splits[d][r]);
        for (int64_t k = splits[d][r]; k < splits[d][r + 1]; ++k) {
          next.push_back(coords[r]);
          next.back().push_back(k - splits[d][r]);
        }
      }
      dense_shape.push_back(widest);
      coords = std::move(next);
    }
    const int inner_rank = values.shape().rank() - 1;
    int64_t block = 1;
    for (int j = 1; j <= inner_rank; ++j) {
      dense_shape.push_back(values.shape().dim(j));
      block *= values.shape().dim(j);
    }
    const int64_t n = static_cast<int64_t>(coords.size()) * block;
    const int width = R + 1 + inner_rank;
    Tensor* indices = nullptr;
    Tensor* sparse_values = nullptr;
    Tensor* shape = nullptr;
    OP_REQUIRES_OK(ctx,
                   ctx->allocate_output(0, TensorShape({n, width}), &indices));
    OP_REQUIRES_OK(ctx, ctx->allocate_output(1, TensorShape({n}),
                                             &sparse_values));
    OP_REQUIRES_OK(ctx,
                   ctx->allocate_output(2, TensorShape({width}), &shape));
    int64_t* idx = indices->data<int64_t>();
    for (size_t i = 0; i < coords.size(); ++i) {
      for (int64_t e = 0; e < block; ++e) {
        int64_t* row = idx + (static_cast<int64_t>(i) * block + e) * width;
        std::copy(coords[i].begin(), coords[i].end(), row);
        for (int64_t j = inner_rank, rest = e; j >= 1; --j) {
          const int64_t dim = values.shape().dim(j);
          row[R + j] = rest % dim;
          rest /= dim;
        }
      }
    }
    std::copy(dense_shape.begin(), dense_shape.end(), shape->data<int64_t>());
    VisitCopyType(values.dtype(), [&](auto* tag) {
      using C = std::remove_pointer_t<decltype(tag)>;
      const C* src = CopyData<C>(values);
      std::copy(src, src + n, CopyData<C>(sparse_values));
    });
  }
};

template <typename T>
class RaggedRangeOp : public OpKernel {
 public:
  explicit RaggedRangeOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}

  void Compute(OpKernelContext* ctx) override {
    const Tensor* in[3] = {&ctx->input(0), &ctx->input(1), &ctx->input(2)};
    const char* names[3] = {"starts", "limits", "deltas"};
    int64_t rows = -1;
    for (int i = 0; i < 3; ++i) {
      OP_REQUIRES(ctx, in[i]->shape().rank() <= 1,
                  absl::InvalidArgumentError(absl::StrCat(
                      names[i], " must be a scalar or vector, got ",
                      in[i]->shape().ToString())));
      if (in[i]->shape().rank() == 1) {
        const int64_t n = in[i]->shape().dim(0);
        OP_REQUIRES(ctx, rows < 0 || rows == n,
                    absl::InvalidArgumentError(absl::StrCat(
                        "starts, limits, and deltas must have the same shape: ",
                        names[i], " has ", n, " entries, another ", rows)));
        rows = n;
      }
    }
    if (rows < 0) rows = 1;
    auto at = [&](int i, int64_t r) {
      return in[i]->data<T>()[in[i]->shape().rank() == 0 ? 0 : r];
    };
    std::vector<int64_t> splits(rows + 1, 0);
    for (int64_t r = 0; r < rows; ++r) {
      const T start = at(0, r), limit = at(1, r), delta = at(2, r);
      OP_REQUIRES(ctx, delta != T(0),
                  absl::InvalidArgumentError(absl::StrCat(
                      "Requires delta != 0 (deltas[", r, "] is 0)")));
      int64_t size = 0;
      if (!((delta > 0 && limit < start) || (delta < 0 && limit > start))) {
        if constexpr (std::is_integral_v<T>) {
          // |limit - start| and |delta| without overflow, in unsigned.
          const uint64_t span = limit > start
                                    ? uint64_t(limit) - uint64_t(start)
                                    : uint64_t(start) - uint64_t(limit);
          const uint64_t step = delta > 0 ? uint64_t(delta)
                                          : uint64_t(0) - uint64_t(delta);
          size = static_cast<int64_t>(span / step + (span % step != 0));
        } else {
          const T count = std::ceil(std::abs((limit - start) / delta));
          OP_REQUIRES(ctx,
                      count <= static_cast<T>(
                                   std::numeric_limits<int64_t>::max() / 2),
                      absl::InvalidArgumentError(absl::StrCat(
                          "Requires ((limit - start) / delta) <= ",
                          std::numeric_limits<int64_t>::max(), " (row ", r,
                          ")")));
          size = static_cast<int64_t>(count);
        }
      }
      OP_REQUIRES(ctx, size <= (int64_t{1} << 40) - splits[r],
                  absl::InvalidArgumentError(absl::StrCat(
                      "the ranges hold too many values (row ", r, ": ", size,
                      ")")));
      splits[r + 1] = splits[r] + size;
    }
    Tensor* splits_out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape({rows + 1}),
                                             &splits_out));
    const bool splits32 = splits_out->dtype() == DT_INT32;
    OP_REQUIRES(ctx,
                !splits32 || splits[rows] <= std::numeric_limits<int32_t>::max(),
                absl::InvalidArgumentError(absl::StrCat(
                    "the ranges hold ", splits[rows],
                    " values, more than int32 row splits can index")));
    for (int64_t r = 0; r <= rows; ++r) {
      if (splits32) {
        splits_out->data<int32_t>()[r] = static_cast<int32_t>(splits[r]);
      } else {
        splits_out->data<int64_t>()[r] = splits[r];
      }
    }
    Tensor* values = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(1, TensorShape({splits[rows]}),
                                             &values));
    T* v = values->data<T>();
    for (int64_t r = 0; r < rows; ++r) {
      T value = at(0, r);
      const T delta = at(2, r);
      for (int64_t i = splits[r]; i < splits[r + 1]; ++i) {
        v[i] = value;
        value += delta;
      }
    }
  }
};

DFLOW_REGISTER_KERNEL(
    KernelDefBuilder("RaggedTensorToSparse")
        .Device(kDeviceCpu)
        .TypeConstraint("T", array_kernels::AllTensorTypes()),
    RaggedTensorToSparseOp);

#define DFLOW_REGISTER_RAGGED_RANGE(T)                                     \
  DFLOW_REGISTER_KERNEL(                                                   \
      KernelDefBuilder("RaggedRange").Device(kDeviceCpu).TypeConstraint<T>( \
          "T"),                                                            \
      RaggedRangeOp<T>);
DFLOW_REGISTER_RAGGED_RANGE(float)
DFLOW_REGISTER_RAGGED_RANGE(double)
DFLOW_REGISTER_RAGGED_RANGE(int32_t)
DFLOW_REGISTER_RAGGED_RANGE(int64_t)
#undef DFLOW_REGISTER_RAGGED_RANGE

}  // namespace
}  // namespace dflow
