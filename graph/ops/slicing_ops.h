// Slicing ops: the ops that join, split, repeat, slice and pad tensors
// (ConcatV2, Split, SplitV, Tile, ReverseV2, Pack, Unpack, Slice, StridedSlice,
// Pad), and the ops their gradients use (StridedSliceGrad, ConcatOffset).
//
// The schemas, attrs and defaults are TensorFlow's, so GraphDefs written by
// either system load in the other. The shape functions use build-time values
// of index inputs (the `axis` of ConcatV2, the `begin` of Slice, ...) and what
// is known of shape-valued tensors (the output of Shape on a partially known
// tensor) to infer shapes as precisely as TensorFlow does; slicing or joining
// shape vectors gives shape vectors.
//
// The wrappers below build one node each in a Scope:
//
//   OutputList parts = ops::Split(root, 0, x, 4);  // four [?,784]
//   Output y = ops::Concat(root, parts, 0);         // [?,784]
#ifndef DFLOW_GRAPH_OPS_SLICING_OPS_H_
#define DFLOW_GRAPH_OPS_SLICING_OPS_H_

#include <cstdint>
#include <string>
#include <utility>

#include "absl/types/span.h"
#include "graph/scope.h"

namespace dflow {
namespace ops {

// --- Joining and splitting. ---

// Concatenates `values` along `axis`. One value is returned through an
// Identity, as TensorFlow's Python tf.concat does (ConcatV2 needs N >= 2).
Output ConcatV2(const Scope& scope, absl::Span<const Output> values,
                Input axis);
inline Output Concat(const Scope& scope, absl::Span<const Output> values,
                     Input axis) {
  return ConcatV2(scope, values, std::move(axis));
}

// `num_split` equal parts of `value` along `axis`.
OutputList Split(const Scope& scope, Input axis, Input value, int num_split);
// Parts of the sizes in `size_splits` (one may be -1: the rest).
OutputList SplitV(const Scope& scope, Input value, Input size_splits,
                  Input axis, int num_split);

Output Tile(const Scope& scope, Input input, Input multiples);

// `tensor` reversed along each dimension listed in `axis` (an int32/int64
// vector; negative entries count from the end).
Output ReverseV2(const Scope& scope, Input tensor, Input axis);
// The first seq_lengths[b] slices along seq_dim reversed, for each entry b
// along batch_dim (tf.reverse_sequence).
Output ReverseSequence(const Scope& scope, Input input, Input seq_lengths,
                       int64_t seq_dim, int64_t batch_dim = 0);

// `input` with its elements shifted cyclically by shift[i] along axis[i]
// (scalars or vectors of one length; negative axes count from the end,
// shifts of one axis add up).
Output Roll(const Scope& scope, Input input, Input shift, Input axis);

struct PackAttrs {
  int64_t axis = 0;
  PackAttrs& Axis(int64_t v) {
    axis = v;
    return *this;
  }
};
// Stacks tensors of one shape along a new dimension `axis`.
Output Pack(const Scope& scope, absl::Span<const Output> values,
            const PackAttrs& attrs = {});
inline Output Stack(const Scope& scope, absl::Span<const Output> values,
                    const PackAttrs& attrs = {}) {
  return Pack(scope, values, attrs);
}

struct UnpackAttrs {
  int64_t axis = 0;
  UnpackAttrs& Axis(int64_t v) {
    axis = v;
    return *this;
  }
};
// The `num` slices of `value` along `axis` (whose size must be `num`).
OutputList Unpack(const Scope& scope, Input value, int num,
                  const UnpackAttrs& attrs = {});
inline OutputList Unstack(const Scope& scope, Input value, int num,
                          const UnpackAttrs& attrs = {}) {
  return Unpack(scope, std::move(value), num, attrs);
}

// --- Slicing. ---

// `size[i]` elements from `begin[i]` in each dimension (-1: to the end).
Output Slice(const Scope& scope, Input input, Input begin, Input size);

struct StridedSliceAttrs {
  int64_t begin_mask = 0;
  int64_t end_mask = 0;
  int64_t ellipsis_mask = 0;
  int64_t new_axis_mask = 0;
  int64_t shrink_axis_mask = 0;
  StridedSliceAttrs& BeginMask(int64_t v) {
    begin_mask = v;
    return *this;
  }
  StridedSliceAttrs& EndMask(int64_t v) {
    end_mask = v;
    return *this;
  }
  StridedSliceAttrs& EllipsisMask(int64_t v) {
    ellipsis_mask = v;
    return *this;
  }
  StridedSliceAttrs& NewAxisMask(int64_t v) {
    new_axis_mask = v;
    return *this;
  }
  StridedSliceAttrs& ShrinkAxisMask(int64_t v) {
    shrink_axis_mask = v;
    return *this;
  }
};
// NumPy-style `input[begin:end:strides]` with TensorFlow's masks.
Output StridedSlice(const Scope& scope, Input input, Input begin, Input end,
                    Input strides, const StridedSliceAttrs& attrs = {});

// The gradient of StridedSlice(x, begin, end, strides) with these masks:
// zeros of `shape` (x's shape) with `dy` written where the slice read.
Output StridedSliceGrad(const Scope& scope, Input shape, Input begin, Input end,
                        Input strides, Input dy,
                        const StridedSliceAttrs& attrs = {});

// `ref[begin:end:strides] = value` with these masks, on a reference
// variable (returns it) or a resource variable; `value` must have the
// slice's shape (Python's `v[1:3].assign(x)`).
Output StridedSliceAssign(const Scope& scope, Input ref, Input begin,
                          Input end, Input strides, Input value,
                          const StridedSliceAttrs& attrs = {});
Operation ResourceStridedSliceAssign(const Scope& scope, Input ref,
                                     Input begin, Input end, Input strides,
                                     Input value,
                                     const StridedSliceAttrs& attrs = {});

// --- Padding. ---

// `input` surrounded by zeros: paddings[i] = [before, after] for dimension
// i (an int32/int64 matrix [rank, 2], entries >= 0).
Output Pad(const Scope& scope, Input input, Input paddings);
// Pad with the scalar `constant_values` (of input's type) instead of zeros.
Output PadV2(const Scope& scope, Input input, Input paddings,
             Input constant_values);
// `input` padded with its mirror image; `mode` "REFLECT" (the edge element
// is not repeated: paddings < dim) or "SYMMETRIC" (it is: paddings <= dim).
Output MirrorPad(const Scope& scope, Input input, Input paddings,
                 const std::string& mode);
// MirrorPad's gradient: `input` has the padded shape; each padded element
// is added to the element it mirrors.
Output MirrorPadGrad(const Scope& scope, Input input, Input paddings,
                     const std::string& mode);

// --- slicing_ops_space_batch.cc: SpaceToBatchND, BatchToSpaceND. ---

// Zero-pads the M spatial dimensions after the batch (paddings [M, 2]),
// cuts them into blocks of block_shape [M] and moves the offsets within a
// block into the batch: [B, S1..SM, R...] ->
// [B * prod(block), (S1 + pads) / block1, ..., R...].
Output SpaceToBatchND(const Scope& scope, Input input, Input block_shape,
                      Input paddings);
// SpaceToBatchND's inverse: the batch's block offsets back into space,
// then crops [M, 2] removed.
Output BatchToSpaceND(const Scope& scope, Input input, Input block_shape,
                      Input crops);

// --- slicing_ops_space_depth.cc: SpaceToDepth, DepthToSpace. ---

// Moves each block_size x block_size block of height and width into the
// depth: NHWC [B, H, W, C] -> [B, H / bs, W / bs, C * bs * bs], the block's
// row-major offset the outer part of the new depth. data_format "NHWC" or
// "NCHW".
Output SpaceToDepth(const Scope& scope, Input input, int64_t block_size,
                    const std::string& data_format = "NHWC");
// SpaceToDepth's inverse (and gradient).
Output DepthToSpace(const Scope& scope, Input input, int64_t block_size,
                    const std::string& data_format = "NHWC");

// --- Gradient helpers. ---

// For tensors of shapes `shapes` (int32 or int64 vectors, one dtype)
// concatenated along `concat_dim` (int32, may be negative): where each
// starts in the result (zeros except along concat_dim).
OutputList ConcatOffset(const Scope& scope, Input concat_dim,
                        absl::Span<const Output> shapes);

}  // namespace ops
}  // namespace dflow

#endif  // DFLOW_GRAPH_OPS_SLICING_OPS_H_
