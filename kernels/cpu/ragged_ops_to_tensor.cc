// RaggedTensorToTensor on the CPU: the dense tensor of a ragged one (what
// RaggedTensor.to_tensor() and Keras' TextVectorization write). Each
// partition level maps its rows' items to an offset in the output (or to
// nowhere when `shape` truncates them); the values' rows are then copied
// to their offsets over a tensor filled with default_value, as TensorFlow
// 2.21 computes it. Malformed partitions are errors here where TensorFlow
// may read past its inputs (row splits ending past the values) or place
// values by a different rule (unsorted value row ids).
#include <algorithm>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "graph/tensor.h"
#include "kernels/cpu/kernel_util_array.h"
#include "kernels/cpu/ragged_ops_common.h"
#include "runtime/kernel_registry.h"
#include "runtime/op_kernel.h"

namespace dflow {
namespace {

using array_kernels::CopyData;
using array_kernels::VisitCopyType;

class RaggedTensorToTensorOp : public OpKernel {
 public:
  explicit RaggedTensorToTensorOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("row_partition_types", &types_));
    OP_REQUIRES(ctx, !types_.empty(),
                absl::InvalidArgumentError(
                    "row_partition_types must not be empty"));
    rowids_ = types_[0] == "FIRST_DIM_SIZE";
    for (size_t i = rowids_ ? 1 : 0; i < types_.size(); ++i) {
      const char* want = rowids_ ? "VALUE_ROWIDS" : "ROW_SPLITS";
      OP_REQUIRES(ctx, types_[i] == want,
                  absl::InvalidArgumentError(absl::StrCat(
                      "row_partition_types [", absl::StrJoin(types_, ", "),
                      "] are not supported: use ROW_SPLITS for every "
                      "dimension, or FIRST_DIM_SIZE then VALUE_ROWIDS")));
    }
    ragged_rank_ = static_cast<int>(types_.size()) - (rowids_ ? 1 : 0);
    OP_REQUIRES(ctx, ragged_rank_ >= 1,
                absl::InvalidArgumentError(
                    "FIRST_DIM_SIZE must be followed by VALUE_ROWIDS"));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& shape_t = ctx->input(0);
    const Tensor& values = ctx->input(1);
    const Tensor& default_value = ctx->input(2);
    OP_REQUIRES(ctx, ctx->num_inputs() == 3 + static_cast<int>(types_.size()),
                absl::InvalidArgumentError(absl::StrCat(
                    "expected ", types_.size(), " row partition tensors, got ",
                    ctx->num_inputs() - 3)));
    OP_REQUIRES(ctx, values.shape().rank() >= 1,
                absl::InvalidArgumentError(absl::StrCat(
                    "values must have rank >= 1, got ",
                    values.shape().ToString())));
    const int R = ragged_rank_;
    const int64_t num_values = values.shape().dim(0);

    // The rows of each level and the partition of each level's items.
    int64_t first_dim = 0;
    const int first_partition = rowids_ ? 4 : 3;
    if (rowids_) {
      const Tensor& n = ctx->input(3);
      OP_REQUIRES(ctx, n.NumElements() == 1,
                  absl::InvalidArgumentError(absl::StrCat(
                      "the FIRST_DIM_SIZE partition must be a scalar, got ",
                      n.shape().ToString())));
      first_dim = ragged::ReadIndices(n)[0];
      OP_REQUIRES(ctx, first_dim >= 0,
                  absl::InvalidArgumentError(absl::StrCat(
                      "FIRST_DIM_SIZE must be non-negative, got ", first_dim)));
    }
    std::vector<std::vector<int64_t>> parts(R);
    int64_t rows = first_dim;  // rows of the current level
    for (int d = 0; d < R; ++d) {
      const Tensor& t = ctx->input(first_partition + d);
      parts[d] = ragged::ReadIndices(t);
      const std::string what = absl::StrCat("row partition ", d);
      if (!rowids_) {
        if (d == 0) rows = static_cast<int64_t>(parts[d].size()) - 1;
        const bool last = d == R - 1;
        const int64_t items =
            last ? num_values
                 : static_cast<int64_t>(ctx->input(first_partition + d + 1)
                                            .NumElements()) -
                       1;
        OP_REQUIRES_OK(ctx, ragged::CheckSplits(parts[d], t, what,
                                                std::max<int64_t>(items, 0),
                                                /*exact_end=*/!last));
        rows = parts[d].back();
      } else {
        OP_REQUIRES(ctx, t.shape().rank() == 1,
                    absl::InvalidArgumentError(absl::StrCat(
                        what, " (VALUE_ROWIDS) must be a vector, got ",
                        t.shape().ToString())));
        const std::vector<int64_t>& ids = parts[d];
        for (size_t i = 0; i < ids.size(); ++i) {
          OP_REQUIRES(ctx, ids[i] >= 0 && ids[i] < rows,
                      absl::InvalidArgumentError(absl::StrCat(
                          what, " (VALUE_ROWIDS)[", i, "] = ", ids[i],
                          " is not in [0, ", rows, ") (the rows)")));
          OP_REQUIRES(ctx, i == 0 || ids[i] >= ids[i - 1],
                      absl::InvalidArgumentError(absl::StrCat(
                          what, " (VALUE_ROWIDS) must be sorted: [", i,
                          "] = ", ids[i], " < ", ids[i - 1])));
        }
        rows = static_cast<int64_t>(ids.size());
        OP_REQUIRES(ctx, d < R - 1 || rows <= num_values,
                    absl::InvalidArgumentError(absl::StrCat(
                        what, " (VALUE_ROWIDS) has ", rows,
                        " entries but values has only ", num_values,
                        " rows")));
      }
    }
    if (!rowids_) {
      first_dim = static_cast<int64_t>(parts[0].size()) - 1;
    }

    // The output shape: `shape` where given, else what the rows need.
    const int out_rank = R + values.shape().rank();
    std::vector<int64_t> dims(out_rank, -1);
    OP_REQUIRES(ctx, shape_t.shape().rank() <= 1,
                absl::InvalidArgumentError(absl::StrCat(
                    "shape must be a vector or the scalar -1, got ",
                    shape_t.shape().ToString())));
    const std::vector<int64_t> given = ragged::ReadIndices(shape_t);
    if (shape_t.shape().rank() == 0) {
      OP_REQUIRES(ctx, given[0] == -1,
                  absl::InvalidArgumentError(absl::StrCat(
                      "a scalar shape must be -1 (unknown), got ", given[0])));
    } else {
      OP_REQUIRES(ctx, static_cast<int>(given.size()) == out_rank,
                  absl::InvalidArgumentError(absl::StrCat(
                      "rt_input.shape and shape=[", absl::StrJoin(given, ","),
                      "] are incompatible: rt_input.rank = ", out_rank,
                      " but shape.rank = ", given.size())));
      for (int i = 0; i < out_rank; ++i) {
        OP_REQUIRES(ctx, given[i] >= -1,
                    absl::InvalidArgumentError(absl::StrCat(
                        "shape[", i, "] = ", given[i], " must be >= -1")));
        dims[i] = given[i];
      }
    }
    for (int j = 1; j < values.shape().rank(); ++j) {
      const int64_t v = values.shape().dim(j);
      OP_REQUIRES(ctx, dims[R + j] < 0 || dims[R + j] == v,
                  absl::InvalidArgumentError(absl::StrCat(
                      "rt_input.shape and shape=[", absl::StrJoin(given, ","),
                      "] are incompatible: rt_input.shape[", R + j, "] = ", v,
                      " but shape[", R + j, "] = ", dims[R + j])));
      dims[R + j] = v;
    }
    if (dims[0] < 0) dims[0] = first_dim;
    for (int d = 1; d <= R; ++d) {
      if (dims[d] < 0) dims[d] = MaxWidth(parts[d - 1]);
    }
    TensorShape out_shape;
    int64_t total = 1;
    for (int64_t d : dims) {
      OP_REQUIRES(ctx, d == 0 || total <= std::numeric_limits<int64_t>::max() / d,
                  absl::InvalidArgumentError(absl::StrCat(
                      "the output shape [", absl::StrJoin(dims, ","),
                      "] has too many elements")));
      total *= d;
      out_shape.AddDim(d);
    }

    // default_value broadcasts to one value's shape, values.shape[1:].
    TensorShape inner;
    for (int j = 1; j < values.shape().rank(); ++j) {
      inner.AddDim(values.shape().dim(j));
    }
    const int dr = default_value.shape().rank();
    bool broadcastable = dr <= inner.rank();
    for (int k = 0; broadcastable && k < dr; ++k) {
      const int64_t dd = default_value.shape().dim(dr - 1 - k);
      broadcastable = dd == 1 || dd == inner.dim(inner.rank() - 1 - k);
    }
    OP_REQUIRES(ctx, broadcastable,
                absl::InvalidArgumentError(absl::StrCat(
                    "default_value.shape=", default_value.shape().ToString(),
                    " and rt_input.flat_values.shape=",
                    values.shape().ToString(),
                    " are incompatible: default_value must broadcast to ",
                    inner.ToString())));

    // Offsets (in values' rows) of each level's items; -1: cut off.
    std::vector<int64_t> mult(R + 1, 1);
    for (int d = R - 1; d >= 0; --d) mult[d] = mult[d + 1] * dims[d + 1];
    std::vector<int64_t> parent(first_dim);
    for (int64_t r = 0; r < first_dim; ++r) {
      parent[r] = r < dims[0] ? r * mult[0] : -1;
    }
    for (int d = 0; d < R; ++d) {
      std::vector<int64_t> child;
      const std::vector<int64_t>& p = parts[d];
      const int64_t width = dims[d + 1];
      auto place = [&](int64_t row, int64_t pos) {
        const int64_t base = row < static_cast<int64_t>(parent.size())
                                 ? parent[row]
                                 : -1;
        child.push_back(base >= 0 && pos < width ? base + pos * mult[d + 1]
                                                 : -1);
      };
      if (!rowids_) {
        for (size_t r = 0; r + 1 < p.size(); ++r) {
          for (int64_t k = 0; k < p[r + 1] - p[r]; ++k) place(r, k);
        }
      } else {
        int64_t pos = 0;
        for (size_t i = 0; i < p.size(); ++i) {
          pos = (i > 0 && p[i] == p[i - 1]) ? pos + 1 : 0;
          place(p[i], pos);
        }
      }
      parent = std::move(child);
    }

    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, out_shape, &out));
    const int64_t block = inner.num_elements();
    VisitCopyType(values.dtype(), [&](auto* tag) {
      using C = std::remove_pointer_t<decltype(tag)>;
      const C* def = CopyData<C>(default_value);
      const C* src = CopyData<C>(values);
      C* dst = CopyData<C>(out);
      // One value's block of defaults, then copies of it everywhere.
      std::vector<C> pad(block);
      const std::vector<int64_t> dshape(default_value.shape().dims().begin(),
                                        default_value.shape().dims().end());
      for (int64_t e = 0; e < block; ++e) {
        int64_t rest = e, at = 0, stride = 1;
        for (int k = 0; k < dr; ++k) {
          const int64_t idim = inner.dim(inner.rank() - 1 - k);
          const int64_t coord = rest % idim;
          rest /= idim;
          const int64_t ddim = dshape[dr - 1 - k];
          if (ddim != 1) at += coord * stride;
          stride *= ddim;
        }
        pad[e] = def[at];
      }
      for (int64_t b = 0; block > 0 && b < total / block; ++b) {
        std::copy(pad.begin(), pad.end(), dst + b * block);
      }
      for (size_t i = 0; i < parent.size(); ++i) {
        if (parent[i] < 0) continue;
        std::copy(src + i * block, src + (i + 1) * block,
                  dst + parent[i] * block);
      }
    });
  }

 private:
  // The longest row of a partition level.
  int64_t MaxWidth(const std::vector<int64_t>& p) const {
    int64_t widest = 0;
    if (!rowids_) {
      for (size_t r = 0; r + 1 < p.size(); ++r) {
        widest = std::max(widest, p[r + 1] - p[r]);
      }
      return widest;
    }
    for (size_t i = 0, run = 0; i < p.size(); ++i) {
      run = (i > 0 && p[i] == p[i - 1]) ? run + 1 : 1;
      widest = std::max(widest, static_cast<int64_t>(run));
    }
    return widest;
  }

  std::vector<std::string> types_;
  bool rowids_ = false;
  int ragged_rank_ = 1;
};

DFLOW_REGISTER_KERNEL(
    KernelDefBuilder("RaggedTensorToTensor")
        .Device(kDeviceCpu)
        .TypeConstraint("T", array_kernels::AllTensorTypes())
        .HostMemory("shape"),
    RaggedTensorToTensorOp);

}  // namespace
}  // namespace dflow
