// Shape ops: the ops that read the shape of a tensor (Shape, Size, Rank) or
// give its elements another shape (Reshape, ExpandDims, Squeeze, Transpose),
// and the ops that compute on shape vectors and permutations for gradients
// (BroadcastGradientArgs, InvertPermutation).
//
// The schemas, attrs and defaults are TensorFlow's, so GraphDefs written by
// either system load in the other. The shape functions use build-time values
// of index inputs (a Const `shape` of Reshape, the `perm` of Transpose, ...)
// and what is known of shape-valued tensors (the output of Shape on a
// partially known tensor) to infer shapes as precisely as TensorFlow does.
//
// The wrappers below build one node each in a Scope:
//
//   Output img = ops::Reshape(root, x, {-1, 28, 28, 1});  // [?,28,28,1]
//   Output s = ops::Shape(root, img);  // int32 [4], value [?,28,28,1]
#ifndef DFLOW_GRAPH_OPS_SHAPE_OPS_H_
#define DFLOW_GRAPH_OPS_SHAPE_OPS_H_

#include <cstdint>
#include <utility>
#include <vector>

#include "graph/scope.h"
#include "graph/types.h"

namespace dflow {
namespace ops {

// --- Shapes. ---

Output Reshape(const Scope& scope, Input tensor, Input shape);

struct ShapeAttrs {
  DataType out_type = DT_INT32;
  ShapeAttrs& OutType(DataType v) {
    out_type = v;
    return *this;
  }
};
// The shape of `input` as a vector.
Output Shape(const Scope& scope, Input input, const ShapeAttrs& attrs = {});

// The shapes of several tensors in one node (TensorFlow's gradients of
// broadcasting ops write it).
OutputList ShapeN(const Scope& scope, absl::Span<const Output> input,
                  const ShapeAttrs& attrs = {});

// `input` broadcast to `shape` (an int32/int64 vector), NumPy's rules.
Output BroadcastTo(const Scope& scope, Input input, Input shape);

struct SizeAttrs {
  DataType out_type = DT_INT32;
  SizeAttrs& OutType(DataType v) {
    out_type = v;
    return *this;
  }
};
// The number of elements of `input` as a scalar.
Output Size(const Scope& scope, Input input, const SizeAttrs& attrs = {});
// The rank of `input` as an int32 scalar.
Output Rank(const Scope& scope, Input input);

Output ExpandDims(const Scope& scope, Input input, Input axis);

struct SqueezeAttrs {
  // Empty: remove every dimension of size 1.
  std::vector<int64_t> squeeze_dims;
  SqueezeAttrs& Axis(std::vector<int64_t> v) {
    squeeze_dims = std::move(v);
    return *this;
  }
};
Output Squeeze(const Scope& scope, Input input, const SqueezeAttrs& attrs = {});

Output Transpose(const Scope& scope, Input x, Input perm);
// Transpose of the complex conjugate (tf.linalg.adjoint's op).
Output ConjugateTranspose(const Scope& scope, Input x, Input perm);

// --- Gradient helpers. ---

// For a broadcasting binary op on shapes s0 and s1: the axes along which the
// gradients of each input must be summed.
struct BroadcastGradientArgsOutputs {
  Output r0;
  Output r1;
};
BroadcastGradientArgsOutputs BroadcastGradientArgs(const Scope& scope, Input s0,
                                                   Input s1);

// The shape that shapes s0 and s1 (int32/int64 vectors) broadcast to
// (shape_ops_broadcast_args.cc).
Output BroadcastArgs(const Scope& scope, Input s0, Input s1);

// The inverse of the permutation `x` (an int32/int64 vector): y[x[i]] = i.
// Transposing by it undoes a Transpose by `x`.
Output InvertPermutation(const Scope& scope, Input x);

}  // namespace ops
}  // namespace dflow

#endif  // DFLOW_GRAPH_OPS_SHAPE_OPS_H_
