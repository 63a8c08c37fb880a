// Static shape inference: the context an op's shape function runs in.
//
// Every op registers a ShapeFn. Given the node's attrs, its input dtypes and
// (possibly partial) input shapes, and the values of inputs that are known at
// build time (e.g. the `shape` input of Reshape when it is a Const), the
// function sets each output's shape. Partial knowledge is fine: unknown dims
// are -1 and a shape may have unknown rank. A shape function returns an
// InvalidArgument error that describes the mismatch ("shapes [2,3] and [4,5]
// are incompatible: dimension 1 of 'a' (3) must equal dimension 0 of 'b'
// (4)"); the caller prefixes the node and op names.
#ifndef DFLOW_GRAPH_SHAPE_INFERENCE_H_
#define DFLOW_GRAPH_SHAPE_INFERENCE_H_

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "graph/attr_value_util.h"
#include "graph/tensor.h"
#include "graph/tensor_shape.h"
#include "graph/types.h"
#include "proto/node_def.pb.h"
#include "proto/op_def.pb.h"

// Returns the status of `expr` from the enclosing function unless it is OK
// (shape functions chain many checks).
#define DFLOW_RETURN_IF_ERROR(expr)                                 \
  do {                                                              \
    if (absl::Status dflow_status_ = (expr); !dflow_status_.ok()) { \
      return dflow_status_;                                         \
    }                                                               \
  } while (false)

namespace dflow {

class InferenceContext {
 public:
  // `input_tensors[i]` is the value of input i when known at build time, else
  // null. `input_shape_values[i]`, when set (rank >= 0), is what is known of
  // the *value* of an int32/int64 vector input that describes a shape (e.g.
  // the output of Shape on a partially known tensor): dims may be -1.
  InferenceContext(const NodeDef& node, const OpDef& op_def,
                   std::vector<DataType> input_types,
                   std::vector<TensorShape> input_shapes,
                   std::vector<const Tensor*> input_tensors,
                   std::vector<TensorShape> input_shape_values,
                   int num_outputs);

  const NodeDef& node() const { return node_; }
  const OpDef& op_def() const { return op_def_; }

  int num_inputs() const { return static_cast<int>(input_shapes_.size()); }
  int num_outputs() const { return static_cast<int>(output_shapes_.size()); }
  const TensorShape& input(int i) const { return input_shapes_[i]; }
  DataType input_type(int i) const { return input_types_[i]; }
  // The build-time value of input i, or null when it is only known at run
  // time.
  const Tensor* input_tensor(int i) const { return input_tensors_[i]; }

  void set_output(int i, TensorShape shape) {
    output_shapes_[i] = std::move(shape);
  }
  const TensorShape& output(int i) const { return output_shapes_[i]; }
  const std::vector<TensorShape>& outputs() const { return output_shapes_; }

  // For outputs that are themselves shapes (Shape op): what is known of the
  // value. Consumers (Reshape, Fill, ...) read it through
  // ShapeFromShapeTensor. Convention: an integer *scalar* output (e.g. one
  // element sliced out of a Shape) stores its value as a one-dimension shape
  // value, `[5]` or `[?]`, so Pack can assemble shape vectors from scalars.
  // Resource handles use the same slot for the shape of the variable they
  // refer to: VarHandleOp sets it, ReadVariableOp and the Assign*VariableOp
  // family read it (TensorFlow's "handle data").
  const TensorShape& input_shape_value(int i) const {
    return input_shape_values_[i];
  }
  void set_output_shape_value(int i, TensorShape value) {
    output_shape_values_[i] = std::move(value);
  }
  const std::vector<TensorShape>& output_shape_values() const {
    return output_shape_values_;
  }

  template <typename T>
  absl::Status GetAttr(absl::string_view name, T* value) const {
    return GetNodeAttr(node_, &op_def_, name, value);
  }

  // --- Helpers shape functions share. ---

  // `shape` must have rank `rank` (unknown rank becomes rank `rank` with
  // unknown dims). `what` names the argument in the error ("input 'a'").
  absl::Status WithRank(const TensorShape& shape, int rank,
                        absl::string_view what, TensorShape* out) const;
  absl::Status WithRankAtLeast(const TensorShape& shape, int rank,
                               absl::string_view what, TensorShape* out) const;
  // Two dims that must agree; -1 matches anything. Sets `out` to the known
  // one.
  absl::Status MergeDim(int64_t a, int64_t b, absl::string_view what,
                        int64_t* out) const;
  absl::Status MergeShapes(const TensorShape& a, const TensorShape& b,
                           absl::string_view what, TensorShape* out) const;
  // NumPy broadcasting of two shapes.
  absl::Status BroadcastShapes(const TensorShape& a, const TensorShape& b,
                               TensorShape* out) const;

  // Interprets input `i` (an int32/int64 vector) as a shape: from its
  // build-time value if known, else from what is known of it (its length
  // gives the rank). Negative entries other than -1 are an error.
  absl::Status ShapeFromShapeTensor(int i, TensorShape* out) const;
  // Reads input `i` as a scalar or vector of integers if known at build time;
  // returns false (and leaves `out` empty) when it is not known.
  bool ConstantInputAsInts(int i, std::vector<int64_t>* out) const;

  // The output shapes copy the input shapes one to one (Identity & co).
  absl::Status PassThrough();

 private:
  const NodeDef& node_;
  const OpDef& op_def_;
  std::vector<DataType> input_types_;
  std::vector<TensorShape> input_shapes_;
  std::vector<const Tensor*> input_tensors_;
  std::vector<TensorShape> input_shape_values_;
  std::vector<TensorShape> output_shapes_;
  std::vector<TensorShape> output_shape_values_;
};

using ShapeFn = std::function<absl::Status(InferenceContext*)>;

// Shape functions used by many ops.
namespace shape_fns {
// Every output has unknown shape (fine, but prefer a real function).
absl::Status Unknown(InferenceContext* c);
// Output 0 has the shape of input 0.
absl::Status UnchangedShape(InferenceContext* c);
// Output 0 has a scalar shape.
absl::Status ScalarShape(InferenceContext* c);
// Output 0 has the shape in the node's `shape` attr (Placeholder,
// VariableV2, _Arg, _Recv).
absl::Status ShapeFromAttr(InferenceContext* c);
// Output 0 is the broadcast of inputs 0 and 1.
absl::Status BroadcastBinary(InferenceContext* c);
// Output 0 is the shape of input 0 merged with every other input (AddN).
absl::Status AllInputsSameShape(InferenceContext* c);
}  // namespace shape_fns

}  // namespace dflow

#endif  // DFLOW_GRAPH_SHAPE_INFERENCE_H_
