// CPU kernels for SpaceToBatchND and BatchToSpaceND. Both relate a "space"
// tensor [B, S1..SM, R...] and a "batch" tensor [B * prod(block), O1..OM,
// R...] by
//   batch[k * B + b, o1..oM, r] = space[b, o1 * block1 + k1 - start1, ..., r]
// where k1..kM are the row-major digits of k in block_shape and start is
// the padding (SpaceToBatchND) or crop (BatchToSpaceND) before each block
// dimension. SpaceToBatchND fills the batch tensor (zeros where the space
// index falls in the padding); BatchToSpaceND fills the space tensor
// (batch elements in the crops are dropped). The trailing R... elements
// move as one contiguous run.
#include <algorithm>
#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "graph/tensor.h"
#include "graph/types.h"
#include "kernels/cpu/kernel_util.h"
#include "kernels/cpu/kernel_util_array.h"
#include "runtime/kernel_registry.h"
#include "runtime/op_kernel.h"

namespace dflow {
namespace {

using array_kernels::IndexVec;

// The sizes both directions work with, read and checked from the inputs.
struct SpaceBatchGeometry {
  IndexVec block;  // [M]
  IndexVec start;  // padding or crop before each block dimension
  IndexVec end;    // and after it
  int64_t space_batch = 0;
  IndexVec space;     // S1..SM
  IndexVec batched;   // O1..OM
  int64_t inner = 1;  // elements of R...
};

// Reads block_shape (input 1) and paddings/crops (input 2) against `input`
// and its role; `pads_name` is "paddings" or "crops".
absl::Status ReadGeometry(OpKernelContext* ctx, bool to_batch,
                          const char* pads_name, SpaceBatchGeometry* g) {
  const Tensor& input = ctx->input(0);
  const Tensor& block_t = ctx->input(1);
  const Tensor& pads_t = ctx->input(2);
  const TensorShape& in = input.shape();
  if (block_t.shape().rank() != 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("block_shape must be a vector, but has shape ",
                     block_t.shape().ToString()));
  }
  const int64_t m = block_t.NumElements();
  if (pads_t.shape().rank() != 2 || pads_t.shape().dim(0) != m ||
      pads_t.shape().dim(1) != 2) {
    return absl::InvalidArgumentError(absl::StrCat(
        pads_name, " must be a matrix of shape [", m,
        ", 2] (start and end for each of the ", m,
        " block dimensions), but has shape ", pads_t.shape().ToString()));
  }
  if (in.rank() < m + 1) {
    return absl::InvalidArgumentError(absl::StrCat(
        "input ", in.ToString(), " must have rank >= ", m + 1,
        " (a batch dimension and the ", m, " dimensions of block_shape)"));
  }
  absl::Status s =
      array_kernels::ReadIndexVector(block_t, "block_shape", &g->block);
  if (!s.ok()) return s;
  absl::StatusOr<Tensor> flat =
      pads_t.Reshaped(TensorShape({pads_t.NumElements()}));
  if (!flat.ok()) return flat.status();
  IndexVec pads;
  s = array_kernels::ReadIndexVector(*flat, pads_name, &pads);
  if (!s.ok()) return s;
  int64_t block_size = 1;
  for (int64_t b : g->block) {
    if (b < 1) {
      return absl::InvalidArgumentError(absl::StrCat(
          "block_shape [", absl::StrJoin(g->block, ","), "] must be positive"));
    }
    block_size *= b;
  }
  for (int64_t p : pads) {
    if (p < 0) {
      return absl::InvalidArgumentError(absl::StrCat(
          pads_name, " [", absl::StrJoin(pads, ","), "] must be non-negative"));
    }
  }
  for (int i = m + 1; i < in.rank(); ++i) g->inner *= in.dim(i);
  const int64_t batch = in.dim(0);
  if (!to_batch && batch % block_size != 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("the batch ", batch, " of input ", in.ToString(),
                     " must be divisible by the product of block_shape [",
                     absl::StrJoin(g->block, ","), "] (", block_size, ")"));
  }
  g->space_batch = to_batch ? batch : batch / block_size;
  for (int64_t i = 0; i < m; ++i) {
    const int64_t d = in.dim(static_cast<int>(i + 1));
    const int64_t start = pads[2 * i], end = pads[2 * i + 1];
    g->start.push_back(start);
    g->end.push_back(end);
    if (to_batch) {
      const int64_t padded = d + start + end;
      if (padded % g->block[i] != 0) {
        return absl::InvalidArgumentError(
            absl::StrCat("dimension ", i + 1, " of input ", in.ToString(),
                         " padded by ", start, "+", end, " is ", padded,
                         ", which is not divisible by block_shape[", i,
                         "] = ", g->block[i]));
      }
      g->space.push_back(d);
      g->batched.push_back(padded / g->block[i]);
    } else {
      const int64_t full = d * g->block[i];
      if (start + end > full) {
        return absl::InvalidArgumentError(
            absl::StrCat("crops ", start, "+", end, " of dimension ", i + 1,
                         " exceed its size ", full, " (input ", in.ToString(),
                         " times block_shape[", i, "] = ", g->block[i], ")"));
      }
      g->space.push_back(full - start - end);
      g->batched.push_back(d);
    }
  }
  return absl::OkStatus();
}

// Fills `to` from `from` (see the top comment): with kToBatch `from` is
// the space tensor and `to` the batch tensor (zeros for padding), else the
// other way round.
template <bool kToBatch, typename T>
void MoveBlocks(OpKernelContext* ctx, const SpaceBatchGeometry& g,
                const T* from, T* to) {
  const int m = static_cast<int>(g.block.size());
  int64_t block_size = 1, positions = 1;
  for (int i = 0; i < m; ++i) {
    block_size *= g.block[i];
    positions *= g.batched[i];
  }
  const int64_t inner = g.inner;
  // Space strides (in elements) of the block dimensions.
  std::vector<int64_t> space_stride(m);
  int64_t stride = inner;
  for (int i = m - 1; i >= 0; --i) {
    space_stride[i] = stride;
    stride *= g.space[i];
  }
  const int64_t space_image = stride;  // one b of space
  const int64_t batch_rows = block_size * g.space_batch;
  // One unit: a batch row (one block offset k of one image b).
  ParallelForShards(ctx, batch_rows, positions * inner + 1,
                    [&](int64_t first, int64_t last) {
                      std::vector<int64_t> offset(m), pos(m);
                      for (int64_t row = first; row < last; ++row) {
                        int64_t k = row / g.space_batch;
                        const int64_t b = row % g.space_batch;
                        for (int i = m - 1; i >= 0; --i) {
                          offset[i] = k % g.block[i] - g.start[i];
                          k /= g.block[i];
                        }
                        std::fill(pos.begin(), pos.end(), 0);
                        for (int64_t p = 0; p < positions; ++p) {
                          int64_t at = b * space_image;
                          bool inside = true;
                          for (int i = 0; i < m; ++i) {
                            const int64_t s = pos[i] * g.block[i] + offset[i];
                            inside = inside && s >= 0 && s < g.space[i];
                            at += s * space_stride[i];
                          }
                          const int64_t run = (row * positions + p) * inner;
                          if constexpr (kToBatch) {
                            if (inside) {
                              std::copy(from + at, from + at + inner, to + run);
                            } else {
                              std::fill(to + run, to + run + inner, T{});
                            }
                          } else if (inside) {
                            std::copy(from + run, from + run + inner, to + at);
                          }
                          for (int i = m - 1; i >= 0; --i) {
                            if (++pos[i] < g.batched[i]) break;
                            pos[i] = 0;
                          }
                        }
                      }
                    });
}

// SpaceToBatchND (kToBatch) and BatchToSpaceND.
template <bool kToBatch>
class SpaceBatchOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    SpaceBatchGeometry g;
    OP_REQUIRES_OK(
        ctx, ReadGeometry(ctx, kToBatch, kToBatch ? "paddings" : "crops", &g));
    const TensorShape& in = input.shape();
    TensorShape out_shape;
    int64_t block_size = 1;
    for (int64_t b : g.block) block_size *= b;
    out_shape.AddDim(kToBatch ? in.dim(0) * block_size : g.space_batch);
    for (int64_t d : kToBatch ? g.batched : g.space) out_shape.AddDim(d);
    for (int i = static_cast<int>(g.block.size()) + 1; i < in.rank(); ++i) {
      out_shape.AddDim(in.dim(i));
    }
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, out_shape, &out));
    // An empty input may still pad to a non-empty output (all padding).
    if (out->NumElements() == 0) return;
    array_kernels::VisitCopyType(input.dtype(), [&](auto* tag) {
      using T = std::remove_pointer_t<decltype(tag)>;
      MoveBlocks<kToBatch>(ctx, g, array_kernels::CopyData<T>(input),
                           array_kernels::CopyData<T>(out));
    });
  }
};

DFLOW_REGISTER_KERNEL(KernelDefBuilder("SpaceToBatchND")
                          .Device(kDeviceCpu)
                          .TypeConstraint("T", array_kernels::AllTensorTypes())
                          .TypeConstraint("Tblock_shape", {DT_INT32, DT_INT64})
                          .TypeConstraint("Tpaddings", {DT_INT32, DT_INT64}),
                      SpaceBatchOp<true>);
DFLOW_REGISTER_KERNEL(KernelDefBuilder("BatchToSpaceND")
                          .Device(kDeviceCpu)
                          .TypeConstraint("T", array_kernels::AllTensorTypes())
                          .TypeConstraint("Tblock_shape", {DT_INT32, DT_INT64})
                          .TypeConstraint("Tcrops", {DT_INT32, DT_INT64}),
                      SpaceBatchOp<false>);

}  // namespace
}  // namespace dflow
