// RaggedGather on the CPU: the rows of a ragged tensor (nested row splits
// and flat values) at `indices`, as TensorFlow 2.21 gathers them (what
// tf.gather and tf.concat write for ragged tensors). Indices of rank r
// contribute r - 1 uniform row partitions first; each gathered row then
// carries its nested rows' lengths into the output splits and its values'
// slice into the output values.
#include <cstdint>
#include <type_traits>
#include <utility>
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

class RaggedGatherOp : public OpKernel {
 public:
  explicit RaggedGatherOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("PARAMS_RAGGED_RANK", &params_rank_));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("OUTPUT_RAGGED_RANK", &output_rank_));
  }

  void Compute(OpKernelContext* ctx) override {
    const int P = static_cast<int>(params_rank_);
    const Tensor& values = ctx->input(P);
    const Tensor& indices_t = ctx->input(P + 1);
    OP_REQUIRES(ctx, values.shape().rank() >= 1,
                absl::InvalidArgumentError("params.rank must be nonzero"));
    const int out_splits = indices_t.shape().rank() - 1 + P;
    OP_REQUIRES(ctx, out_splits == output_rank_,
                absl::InvalidArgumentError(absl::StrCat(
                    "OUTPUT_RAGGED_RANK is ", output_rank_,
                    " but PARAMS_RAGGED_RANK (", P, ") + rank(indices) (",
                    indices_t.shape().rank(), ") - 1 is ", out_splits)));
    std::vector<std::vector<int64_t>> splits(P);
    for (int d = 0; d < P; ++d) {
      splits[d] = ragged::ReadIndices(ctx->input(d));
      const int64_t items =
          d + 1 < P ? ctx->input(d + 1).NumElements() - 1
                    : values.shape().dim(0);
      OP_REQUIRES_OK(ctx, ragged::CheckSplits(
                              splits[d], ctx->input(d),
                              absl::StrCat("params_nested_splits[", d, "]"),
                              std::max<int64_t>(items, 0),
                              /*exact_end=*/false));
    }
    const std::vector<int64_t> indices = ragged::ReadIndices(indices_t);
    const int64_t num_params = static_cast<int64_t>(splits[0].size()) - 1;
    for (size_t i = 0; i < indices.size(); ++i) {
      OP_REQUIRES(ctx, indices[i] >= 0 && indices[i] < num_params,
                  absl::InvalidArgumentError(absl::StrCat(
                      "indices[", i, "] = ", indices[i], " is not in [0, ",
                      num_params, ")")));
    }

    std::vector<std::vector<int64_t>> out(out_splits, {0});
    // The uniform partitions of indices' own dimensions.
    int64_t rows = 1;
    for (int d = 0; d + 1 < indices_t.shape().rank(); ++d) {
      rows *= indices_t.shape().dim(d);
      const int64_t length = indices_t.shape().dim(d + 1);
      for (int64_t i = 1; i <= rows; ++i) out[d].push_back(i * length);
    }
    // Each gathered row: its nested rows' lengths, then its values.
    std::vector<std::pair<int64_t, int64_t>> slices;
    int64_t num_values = 0;
    for (int64_t index : indices) {
      int64_t start = index, limit = index + 1;
      for (int d = 0; d < P; ++d) {
        const int out_dim = d + indices_t.shape().rank() - 1;
        if (out_dim >= 0) {
          const int64_t shift = out[out_dim].back() - splits[d][start];
          for (int64_t j = start; j < limit; ++j) {
            out[out_dim].push_back(splits[d][j + 1] + shift);
          }
        }
        start = splits[d][start];
        limit = splits[d][limit];
      }
      if (limit != start) {
        slices.emplace_back(start, limit);
        num_values += limit - start;
      }
    }
    const bool splits32 = ctx->input(0).dtype() == DT_INT32;
    for (int d = 0; d < out_splits; ++d) {
      Tensor* t = nullptr;
      OP_REQUIRES_OK(ctx, ctx->allocate_output(
                              d, TensorShape({int64_t(out[d].size())}), &t));
      for (size_t i = 0; i < out[d].size(); ++i) {
        if (splits32) {
          t->data<int32_t>()[i] = static_cast<int32_t>(out[d][i]);
        } else {
          t->data<int64_t>()[i] = out[d][i];
        }
      }
    }
    TensorShape values_shape = values.shape();
    values_shape.set_dim(0, num_values);
    Tensor* out_values = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(out_splits, values_shape,
                                             &out_values));
    int64_t block = 1;
    for (int j = 1; j < values.shape().rank(); ++j) {
      block *= values.shape().dim(j);
    }
    VisitCopyType(values.dtype(), [&](auto* tag) {
      using C = std::remove_pointer_t<decltype(tag)>;
      const C* src = CopyData<C>(values);
      C* dst = CopyData<C>(out_values);
      for (const auto& [s, l] : slices) {
        dst = std::copy(src + s * block, src + l * block, dst);
      }
    });
  }

 private:
  int64_t params_rank_ = 1;
  int64_t output_rank_ = 0;
};

DFLOW_REGISTER_KERNEL(
    KernelDefBuilder("RaggedGather")
        .Device(kDeviceCpu)
        .TypeConstraint("Tvalues", array_kernels::AllTensorTypes()),
    RaggedGatherOp);

}  // namespace
}  // namespace dflow
