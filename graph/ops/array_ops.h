// Array ops: constants and placeholders, identities, and the ops that create
// tensors without reading the elements of another one (Const, Placeholder,
// Identity, Fill, ZerosLike, Range, OneHot, ...). The ops that reshape
// tensors are in shape_ops.h; those that slice, join and split them in
// slicing_ops.h.
//
// The schemas, attrs and defaults are TensorFlow's, so GraphDefs written by
// either system load in the other. The shape functions use build-time values
// of index inputs (the `dims` of Fill, the `depth` of OneHot, ...) and what is
// known of shape-valued tensors (the output of Shape on a partially known
// tensor) to infer shapes as precisely as TensorFlow does.
//
// The wrappers below build one node each in a Scope:
//
//   Output x = ops::Placeholder(root, DT_FLOAT,
//                               ops::PlaceholderAttrs().Shape({-1, 784}));
//   Output zeros = ops::ZerosLike(root, x);  // [?,784]
#ifndef DFLOW_GRAPH_OPS_ARRAY_OPS_H_
#define DFLOW_GRAPH_OPS_ARRAY_OPS_H_

#include <cstdint>
#include <initializer_list>

#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "graph/scope.h"
#include "graph/tensor.h"
#include "graph/tensor_shape.h"
#include "graph/types.h"

namespace dflow {
namespace ops {

// --- Constants, placeholders and identities. ---

// A Const node holding `value` (named "Const" unless the scope says
// otherwise).
Output Const(const Scope& scope, const Tensor& value);
Output Const(const Scope& scope, float value);
Output Const(const Scope& scope, double value);
Output Const(const Scope& scope, int value);  // int32
Output Const(const Scope& scope, int64_t value);
Output Const(const Scope& scope, bool value);
Output Const(const Scope& scope, absl::string_view value);  // string scalar
Output Const(const Scope& scope, const char* value);
// Vectors of the given values...
Output Const(const Scope& scope, std::initializer_list<float> values);
Output Const(const Scope& scope, std::initializer_list<int> values);
Output Const(const Scope& scope, std::initializer_list<int64_t> values);
// ... or row-major values of `shape` (the counts must match, else the scope
// records an error).
Output Const(const Scope& scope, std::initializer_list<float> values,
             const TensorShape& shape);
Output Const(const Scope& scope, std::initializer_list<int> values,
             const TensorShape& shape);
Output Const(const Scope& scope, std::initializer_list<int64_t> values,
             const TensorShape& shape);

struct PlaceholderAttrs {
  // Unknown rank by default: any shape may be fed.
  TensorShape shape = TensorShape::Unknown();
  PlaceholderAttrs& Shape(const TensorShape& v) {
    shape = v;
    return *this;
  }
};
Output Placeholder(const Scope& scope, DataType dtype,
                   const PlaceholderAttrs& attrs = {});
// `input` unless the output is fed; `shape` may be less specific than the
// input's shape.
Output PlaceholderWithDefault(const Scope& scope, Input input,
                              const TensorShape& shape);

Output Identity(const Scope& scope, Input input);
// Identity of each of `inputs` (all in one node).
OutputList IdentityN(const Scope& scope, absl::Span<const Output> inputs);
// Does nothing; used as a target that groups control dependencies.
Operation NoOp(const Scope& scope);
// Identity whose gradient is zero.
Output StopGradient(const Scope& scope, Input input);

// Snapshot: Identity (dflow never changes a value once read). EnsureShape:
// Identity that fails unless the input's shape is compatible with `shape`
// (unknown dimensions match anything). Empty: a tensor of shape `shape`
// (int32), zeros when `init`, else unspecified (graph/ops/array_ops_snapshot.cc).
Output Snapshot(const Scope& scope, Input input);
Output EnsureShape(const Scope& scope, Input input, const TensorShape& shape);
Output Empty(const Scope& scope, Input shape, DataType dtype,
             bool init = false);

// Identity whose gradient is an error naming `message` (TensorFlow puts it
// where a second derivative is not implemented).
Output PreventGradient(const Scope& scope, Input input,
                       absl::string_view message = "");

// --- Creating tensors. ---

// A tensor of shape `dims` filled with the scalar `value`.
Output Fill(const Scope& scope, Input dims, Input value);
Output ZerosLike(const Scope& scope, Input x);
Output OnesLike(const Scope& scope, Input x);
// [start, limit) in steps of delta.
Output Range(const Scope& scope, Input start, Input limit, Input delta);

struct OneHotAttrs {
  int64_t axis = -1;
  OneHotAttrs& Axis(int64_t v) {
    axis = v;
    return *this;
  }
};
Output OneHot(const Scope& scope, Input indices, Input depth, Input on_value,
              Input off_value, const OneHotAttrs& attrs = {});

// Matrices [..., num_rows, num_cols] with `diagonal` [..., L] on their
// k-th diagonal (k an int32 scalar; num_rows/num_cols -1: the smallest that
// fit) and padding_value elsewhere: tf.eye, tf.linalg.diag.
Output MatrixDiagV3(const Scope& scope, Input diagonal, Input k, Input num_rows,
                    Input num_cols, Input padding_value);
// The k-th diagonal [..., L] of each innermost matrix of `input`.
Output MatrixDiagPartV3(const Scope& scope, Input input, Input k,
                        Input padding_value);
// k may also be a band [lo, hi] of diagonals (kernels/cpu/
// slicing_ops_matrix_diag.h says how a band is laid out).

// `input` with everything outside num_lower diagonals below and num_upper
// above the main one zeroed (negative: keep that whole triangle):
// tf.linalg.band_part (array_ops_matrix_band.cc).
// A tensor of the diagonal's shape twice with it on the diagonal
// (tf.linalg.tensor_diag), and back (tensor_diag_part).
Output Diag(const Scope& scope, Input diagonal);
Output DiagPart(const Scope& scope, Input input);

Output MatrixBandPart(const Scope& scope, Input input, Input num_lower,
                      Input num_upper);
// `input` with its k-th diagonal (or band of diagonals) replaced by
// `diagonal`: tf.linalg.set_diag.
Output MatrixSetDiagV3(const Scope& scope, Input input, Input diagonal,
                       Input k);
// The V2 forms (older graphs): V3 with align LEFT_LEFT.
Output MatrixDiagV2(const Scope& scope, Input diagonal, Input k, Input num_rows,
                    Input num_cols, Input padding_value);
Output MatrixDiagPartV2(const Scope& scope, Input input, Input k,
                        Input padding_value);
Output MatrixSetDiagV2(const Scope& scope, Input input, Input diagonal,
                       Input k);
// The V1 forms (array_ops_matrix_diag_v1.cc): the main diagonal only;
// MatrixDiag makes square matrices, MatrixDiagPart reads min(rows, cols)
// elements, MatrixSetDiag writes them.
Output MatrixDiag(const Scope& scope, Input diagonal);
Output MatrixDiagPart(const Scope& scope, Input input);
Output MatrixSetDiag(const Scope& scope, Input input, Input diagonal);

// The bytes of `input` read as `type` (array_ops_bitcast.cc): a narrower
// type adds a last dimension, a wider one consumes it.
Output Bitcast(const Scope& scope, Input input, DataType type);

// --- array_ops_inplace.cc ---

// x with v[j] added to / subtracted from / written over row i[j] (i an
// int32 vector, v [len(i), x.shape[1:]]); InplaceUpdate's later rows win.
Output InplaceAdd(const Scope& scope, Input x, Input i, Input v);
Output InplaceSub(const Scope& scope, Input x, Input i, Input v);
Output InplaceUpdate(const Scope& scope, Input x, Input i, Input v);
// `values`, each of size 1 in dimension 0, concatenated along it into
// `shape`.
Output ParallelConcat(const Scope& scope, const std::vector<Output>& values,
                      const TensorShape& shape);
// Its input (the graph promises it is constant).
Output GuaranteeConst(const Scope& scope, Input input);
// The wall time, seconds since the Unix epoch (double scalar).
Output Timestamp(const Scope& scope);

}  // namespace ops
}  // namespace dflow

#endif  // DFLOW_GRAPH_OPS_ARRAY_OPS_H_
