// CPU kernels for MirrorPad and MirrorPadGrad. Padded position p of a
// dimension of size n reads input index p - before, mirrored at the edges:
// REFLECT mirrors about the edge element (-1 -> 1, n -> n - 2), so a side
// pads at most n - 1; SYMMETRIC repeats it (-1 -> 0, n -> n - 1), at most
// n. Each dimension's map from padded to input index is computed once; the
// forward gathers whole rows through it, the gradient scatters (adds) every
// padded element back into the element it copied.
#include <algorithm>
#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/string_view.h"
#include "graph/tensor.h"
#include "graph/types.h"
#include "kernels/cpu/kernel_util.h"
#include "kernels/cpu/kernel_util_array.h"
#include "runtime/kernel_registry.h"
#include "runtime/op_kernel.h"

namespace dflow {
namespace {

using array_kernels::IndexVec;

// 1 for REFLECT (the edge is not repeated), 0 for SYMMETRIC.
int64_t ReadMirrorOffset(OpKernelConstruction* ctx) {
  std::string mode;
  ctx->SetStatus(ctx->GetAttr("mode", &mode));
  if (!ctx->status().ok()) return 0;
  if (mode == "REFLECT") return 1;
  if (mode != "SYMMETRIC") {
    ctx->SetStatus(absl::InvalidArgumentError(
        absl::StrCat("mode must be REFLECT or SYMMETRIC, not '", mode, "'")));
  }
  return 0;
}

// For each dimension of the unpadded shape `small`, the unpadded index
// each padded position reads. Checks `paddings_t` ([rank, 2], each entry
// in [0, dim - offset]); `what` names the unpadded tensor in errors.
absl::Status MirrorMaps(const Tensor& paddings_t, const TensorShape& small,
                        int64_t offset, absl::string_view what,
                        std::vector<std::vector<int64_t>>* maps) {
  const int rank = small.rank();
  if (paddings_t.shape().rank() != 2 || paddings_t.shape().dim(0) != rank ||
      paddings_t.shape().dim(1) != 2) {
    return absl::InvalidArgumentError(absl::StrCat(
        "paddings must be a matrix of shape [", rank,
        ", 2] (before and after for each dimension of the ", what, " ",
        small.ToString(), "), but has shape ", paddings_t.shape().ToString()));
  }
  absl::StatusOr<Tensor> flat =
      paddings_t.Reshaped(TensorShape({paddings_t.NumElements()}));
  if (!flat.ok()) return flat.status();
  IndexVec pads;
  absl::Status s = array_kernels::ReadIndexVector(*flat, "paddings", &pads);
  if (!s.ok()) return s;
  maps->assign(rank, {});
  for (int d = 0; d < rank; ++d) {
    const int64_t n = small.dim(d), before = pads[2 * d],
                  after = pads[2 * d + 1];
    if (before < 0 || after < 0 || before > n - offset || after > n - offset) {
      return absl::InvalidArgumentError(
          absl::StrCat("paddings [", absl::StrJoin(pads, ","),
                       "] must be in [0, ", offset ? "dim - 1" : "dim",
                       "] for ", offset ? "REFLECT" : "SYMMETRIC",
                       " mode, but dimension ", d, " of the ", what, " ",
                       small.ToString(), " is padded by ", before, "+", after));
    }
    std::vector<int64_t>& map = (*maps)[d];
    map.resize(n + before + after);
    for (int64_t p = 0; p < static_cast<int64_t>(map.size()); ++p) {
      int64_t i = p - before;
      if (i < 0) i = -i - 1 + offset;
      if (i >= n) i = 2 * n - 1 - offset - i;
      map[p] = i;
    }
  }
  return absl::OkStatus();
}

// Calls fn(row, small_offset) for each row (all but the last padded
// dimension) of the padded shape, with the unpadded offset of its start.
template <typename Fn>
void ForEachPaddedRow(const std::vector<std::vector<int64_t>>& maps,
                      const TensorShape& small, Fn&& fn) {
  const int rank = small.rank();
  std::vector<int64_t> strides(rank, 1);
  for (int d = rank - 2; d >= 0; --d)
    strides[d] = strides[d + 1] * small.dim(d + 1);
  int64_t rows = 1;
  for (int d = 0; d + 1 < rank; ++d) rows *= maps[d].size();
  std::vector<int64_t> index(rank > 0 ? rank - 1 : 0, 0);
  for (int64_t row = 0; row < rows; ++row) {
    int64_t offset = 0;
    for (int d = 0; d + 1 < rank; ++d) offset += maps[d][index[d]] * strides[d];
    fn(row, offset);
    for (int d = rank - 2; d >= 0; --d) {
      if (++index[d] < static_cast<int64_t>(maps[d].size())) break;
      index[d] = 0;
    }
  }
}

class MirrorPadOp : public OpKernel {
 public:
  explicit MirrorPadOp(OpKernelConstruction* ctx)
      : OpKernel(ctx), offset_(ReadMirrorOffset(ctx)) {}

  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    const TensorShape& small = input.shape();
    std::vector<std::vector<int64_t>> maps;
    OP_REQUIRES_OK(ctx,
                   MirrorMaps(ctx->input(1), small, offset_, "input", &maps));
    if (small.rank() == 0) {
      ctx->set_output(0, input);
      return;
    }
    TensorShape out_shape;
    for (const auto& map : maps) {
      out_shape.AddDim(static_cast<int64_t>(map.size()));
    }
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, out_shape, &out));
    if (out->NumElements() == 0) return;
    const std::vector<int64_t>& inner = maps.back();
    const int64_t width = static_cast<int64_t>(inner.size());
    array_kernels::VisitCopyType(input.dtype(), [&](auto* tag) {
      using T = std::remove_pointer_t<decltype(tag)>;
      const T* src = array_kernels::CopyData<T>(input);
      T* dst = array_kernels::CopyData<T>(out);
      ForEachPaddedRow(maps, small, [&](int64_t row, int64_t offset) {
        const T* from = src + offset;
        T* to = dst + row * width;
        for (int64_t j = 0; j < width; ++j) to[j] = from[inner[j]];
      });
    });
  }

 private:
  const int64_t offset_;
};

template <typename T>
class MirrorPadGradOp : public OpKernel {
 public:
  explicit MirrorPadGradOp(OpKernelConstruction* ctx)
      : OpKernel(ctx), offset_(ReadMirrorOffset(ctx)) {}

  void Compute(OpKernelContext* ctx) override {
    const Tensor& grad = ctx->input(0);
    const Tensor& paddings_t = ctx->input(1);
    const TensorShape& padded = grad.shape();
    const int rank = padded.rank();
    OP_REQUIRES(
        ctx,
        paddings_t.shape().rank() == 2 && paddings_t.shape().dim(0) == rank &&
            paddings_t.shape().dim(1) == 2,
        absl::InvalidArgumentError(absl::StrCat(
            "paddings must be a matrix of shape [", rank,
            ", 2] (before and after for each dimension of the padded input ",
            padded.ToString(), "), but has shape ",
            paddings_t.shape().ToString())));
    absl::StatusOr<Tensor> flat =
        paddings_t.Reshaped(TensorShape({paddings_t.NumElements()}));
    OP_REQUIRES_OK(ctx, flat.status());
    IndexVec pads;
    OP_REQUIRES_OK(ctx,
                   array_kernels::ReadIndexVector(*flat, "paddings", &pads));
    TensorShape small;
    for (int d = 0; d < rank; ++d) {
      const int64_t n = padded.dim(d) - pads[2 * d] - pads[2 * d + 1];
      OP_REQUIRES(ctx, n >= 0,
                  absl::InvalidArgumentError(absl::StrCat(
                      "paddings [", absl::StrJoin(pads, ","),
                      "] remove more than dimension ", d, " of the padded ",
                      "input ", padded.ToString())));
      small.AddDim(n);
    }
    std::vector<std::vector<int64_t>> maps;
    OP_REQUIRES_OK(
        ctx, MirrorMaps(paddings_t, small, offset_, "unpadded input", &maps));
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, small, &out));
    T* dst = out->data<T>();
    std::fill(dst, dst + out->NumElements(), T(0));
    if (rank == 0 || grad.NumElements() == 0) {
      if (rank == 0) dst[0] = grad.data<T>()[0];
      return;
    }
    const std::vector<int64_t>& inner = maps.back();
    const int64_t width = static_cast<int64_t>(inner.size());
    const T* src = grad.data<T>();
    ForEachPaddedRow(maps, small, [&](int64_t row, int64_t offset) {
      const T* from = src + row * width;
      T* to = dst + offset;
      for (int64_t j = 0; j < width; ++j) to[inner[j]] += from[j];
    });
  }

 private:
  const int64_t offset_;
};

DFLOW_REGISTER_KERNEL(KernelDefBuilder("MirrorPad")
                          .Device(kDeviceCpu)
                          .TypeConstraint("T", array_kernels::AllTensorTypes())
                          .TypeConstraint("Tpaddings", {DT_INT32, DT_INT64}),
                      MirrorPadOp);

#define DFLOW_REGISTER_MIRROR_PAD_GRAD(T)                     \
  DFLOW_REGISTER_KERNEL(                                      \
      KernelDefBuilder("MirrorPadGrad")                       \
          .Device(kDeviceCpu)                                 \
          .TypeConstraint<T>("T")                             \
          .TypeConstraint("Tpaddings", {DT_INT32, DT_INT64}), \
      MirrorPadGradOp<T>)

DFLOW_REGISTER_MIRROR_PAD_GRAD(float);
DFLOW_REGISTER_MIRROR_PAD_GRAD(double);
DFLOW_REGISTER_MIRROR_PAD_GRAD(int32_t);
DFLOW_REGISTER_MIRROR_PAD_GRAD(int64_t);
#undef DFLOW_REGISTER_MIRROR_PAD_GRAD

}  // namespace
}  // namespace dflow
