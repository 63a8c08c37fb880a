// Schemas and shape functions of the tf.sparse math ops (TensorFlow 2.21's
// core/ops/sparse_ops.cc and math_ops.cc): SparseAdd and its gradient,
// SparseConcat, SparseSlice(Grad), SparseSplit, SparseReorder,
// SparseTensorDenseMatMul/Add, SparseDenseCwise*, SparseReduce{Sum,Max}
// (and their Sparse variants), SparseSoftmax, SparseSparse{Maximum,Minimum},
// SparseFillEmptyRowsGrad, SparseSegment*GradV2 and SparseMatMul. A
// SparseTensor is its three parts: indices [N, R] int64, values [N] and
// dense_shape [R]. The CPU kernels are kernels/cpu/sparse_ops*.cc; the
// cross and set ops are in sparse_ops_cross_sets.cc.
#include <cstdint>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "graph/op_registry.h"
#include "graph/ops/shape_fn_util.h"
#include "graph/ops/sparse_ops.h"
#include "graph/shape_inference.h"
#include "graph/tensor_shape.h"

namespace dflow {
namespace sparse_shape_fns {

constexpr int64_t kUnknown = TensorShape::kUnknownDim;

// The number of dimensions R of the SparseTensor whose dense_shape is
// input `i` (kUnknown if not known), after checking that it is a vector.
absl::Status RankOfShapeInput(InferenceContext* c, int i, int64_t* r) {
  TensorShape s;
  // (Input i, not argument i: list arguments such as SparseConcat's
  // shapes span several inputs.)
  DFLOW_RETURN_IF_ERROR(c->WithRank(
      c->input(i), 1, absl::StrCat("input ", i, " (a dense_shape)"), &s));
  *r = s.unknown_rank() ? kUnknown : s.dim(0);
  return absl::OkStatus();
}

// Outputs first..first+2 are a SparseTensor of R dimensions, N unknown.
void SetSparseOutputs(InferenceContext* c, int first, int64_t r) {
  c->set_output(first, TensorShape({kUnknown, r}));
  c->set_output(first + 1, TensorShape({kUnknown}));
  if (first + 2 < c->num_outputs()) c->set_output(first + 2, TensorShape({r}));
}

}  // namespace sparse_shape_fns

namespace {

using sparse_shape_fns::kUnknown;
using sparse_shape_fns::RankOfShapeInput;
using sparse_shape_fns::SetSparseOutputs;

constexpr char kNumberTypes[] =
    "T: {float, double, int32, uint8, int16, int8, complex64, int64, qint8, "
    "quint8, qint32, bfloat16, qint16, quint16, uint16, complex128, half, "
    "uint32, uint64}";
constexpr char kRealNumberTypes[] =
    "T: {float, double, int32, uint8, int16, int8, int64, bfloat16, uint16, "
    "half, uint32, uint64}";

// A SparseTensor out of the dense_shape input `shape_input`.
template <int shape_input>
absl::Status SparseLikeInput(InferenceContext* c) {
  int64_t r;
  DFLOW_RETURN_IF_ERROR(RankOfShapeInput(c, shape_input, &r));
  SetSparseOutputs(c, 0, r);
  return absl::OkStatus();
}

// Output `out` has the shape of input `in`.
template <int in, int out>
absl::Status ShapeOfInput(InferenceContext* c) {
  c->set_output(out, c->input(in));
  return absl::OkStatus();
}

absl::Status SparseAddGradShape(InferenceContext* c) {
  const TensorShape& a = c->input(1);
  const TensorShape& b = c->input(2);
  c->set_output(0, TensorShape({a.unknown_rank() ? kUnknown : a.dim(0)}));
  c->set_output(1, TensorShape({b.unknown_rank() ? kUnknown : b.dim(0)}));
  return absl::OkStatus();
}

absl::Status SparseSliceGradShape(InferenceContext* c) {
  const TensorShape& in = c->input(1);
  c->set_output(0, TensorShape({in.unknown_rank() ? kUnknown : in.dim(0)}));
  return absl::OkStatus();
}

absl::Status SparseSplitShape(InferenceContext* c) {
  int64_t r;
  DFLOW_RETURN_IF_ERROR(RankOfShapeInput(c, 3, &r));
  const int n = c->num_outputs() / 3;
  for (int i = 0; i < n; ++i) {
    c->set_output(i, TensorShape({kUnknown, r}));
    c->set_output(n + i, TensorShape({kUnknown}));
    c->set_output(2 * n + i, TensorShape({r}));
  }
  return absl::OkStatus();
}

absl::Status SparseConcatShape(InferenceContext* c) {
  const int n = c->num_inputs() / 3;
  int64_t r = kUnknown;
  for (int i = 0; i < n && r == kUnknown; ++i) {
    DFLOW_RETURN_IF_ERROR(RankOfShapeInput(c, 2 * n + i, &r));
  }
  SetSparseOutputs(c, 0, r);
  return absl::OkStatus();
}

absl::Status SparseReorderShape(InferenceContext* c) {
  c->set_output(0, c->input(0));
  c->set_output(1, c->input(1));
  return absl::OkStatus();
}

absl::Status SparseTensorDenseMatMulShape(InferenceContext* c) {
  bool adjoint_a = false, adjoint_b = false;
  DFLOW_RETURN_IF_ERROR(c->GetAttr("adjoint_a", &adjoint_a));
  DFLOW_RETURN_IF_ERROR(c->GetAttr("adjoint_b", &adjoint_b));
  TensorShape b;
  DFLOW_RETURN_IF_ERROR(c->WithRank(c->input(3), 2, "input 'b'", &b));
  TensorShape a_shape;
  int64_t rows = kUnknown;
  if (c->ShapeFromShapeTensor(2, &a_shape).ok() && !a_shape.unknown_rank()) {
    if (a_shape.rank() != 2) {
      return absl::InvalidArgumentError(absl::StrCat(
          "a_shape must describe a matrix, not ", a_shape.ToString()));
    }
    rows = a_shape.dim(adjoint_a ? 1 : 0);
  }
  const int64_t cols = b.unknown_rank() ? kUnknown : b.dim(adjoint_b ? 0 : 1);
  c->set_output(0, TensorShape({rows, cols}));
  return absl::OkStatus();
}

absl::Status SparseReduceShape(InferenceContext* c) {
  bool keep_dims = false;
  DFLOW_RETURN_IF_ERROR(c->GetAttr("keep_dims", &keep_dims));
  TensorShape shape;
  std::vector<int64_t> axes;
  if (c->ShapeFromShapeTensor(2, &shape).ok() && !shape.unknown_rank() &&
      c->ConstantInputAsInts(3, &axes)) {
    const int64_t r = shape.rank();
    std::vector<bool> reduced(r, false);
    for (int64_t a : axes) {
      if (a < -r || a >= r) {
        return absl::InvalidArgumentError(absl::StrCat(
            "reduction axis ", a, " is out of range for rank ", r));
      }
      reduced[a < 0 ? a + r : a] = true;
    }
    TensorShape out;
    for (int64_t d = 0; d < r; ++d) {
      if (!reduced[d]) {
        out.AddDim(shape.dim(static_cast<int>(d)));
      } else if (keep_dims) {
        out.AddDim(1);
      }
    }
    c->set_output(0, out);
  }
  return absl::OkStatus();
}

absl::Status SparseReduceSparseShape(InferenceContext* c) {
  c->set_output(0, TensorShape::UnknownWithRank(2));
  c->set_output(1, TensorShape({kUnknown}));
  c->set_output(2, TensorShape({kUnknown}));
  return absl::OkStatus();
}

absl::Status SparseSparseMinMaxShape(InferenceContext* c) {
  int64_t r;
  DFLOW_RETURN_IF_ERROR(RankOfShapeInput(c, 2, &r));
  SetSparseOutputs(c, 0, r);
  return absl::OkStatus();
}

absl::Status SparseFillEmptyRowsGradShape(InferenceContext* c) {
  c->set_output(0, c->input(0));
  c->set_output(1, TensorShape({}));
  return absl::OkStatus();
}

absl::Status SegmentGradV2Shape(InferenceContext* c) {
  const TensorShape& grad = c->input(0);
  if (grad.unknown_rank()) {
    c->set_output(0, TensorShape::Unknown());
  } else {
    TensorShape out({kUnknown});
    for (int d = 1; d < grad.rank(); ++d) out.AddDim(grad.dim(d));
    c->set_output(0, out);
  }
  c->set_output(1, TensorShape({kUnknown}));
  return absl::OkStatus();
}

absl::Status SparseMatMulShape(InferenceContext* c) {
  bool ta = false, tb = false;
  DFLOW_RETURN_IF_ERROR(c->GetAttr("transpose_a", &ta));
  DFLOW_RETURN_IF_ERROR(c->GetAttr("transpose_b", &tb));
  TensorShape a, b;
  DFLOW_RETURN_IF_ERROR(c->WithRank(c->input(0), 2, "input 'a'", &a));
  DFLOW_RETURN_IF_ERROR(c->WithRank(c->input(1), 2, "input 'b'", &b));
  c->set_output(0, TensorShape({a.unknown_rank() ? kUnknown : a.dim(ta ? 1 : 0),
                                b.unknown_rank() ? kUnknown
                                                 : b.dim(tb ? 0 : 1)}));
  return absl::OkStatus();
}

}  // namespace

DFLOW_REGISTER_OP("SparseAdd")
    .Input("a_indices: int64")
    .Input("a_values: T")
    .Input("a_shape: int64")
    .Input("b_indices: int64")
    .Input("b_values: T")
    .Input("b_shape: int64")
    .Input("thresh: Treal")
    .Output("sum_indices: int64")
    .Output("sum_values: T")
    .Output("sum_shape: int64")
    .Attr(kNumberTypes)
    .Attr("Treal: {float, double, int32, uint8, int16, int8, int64, bfloat16, "
          "uint16, half, uint32, uint64}")
    .SetShapeFn(SparseLikeInput<2>)
    .Doc("The sum of two SparseTensors of one shape; sums whose magnitude is "
         "below thresh are dropped.");

DFLOW_REGISTER_OP("SparseAddGrad")
    .Input("backprop_val_grad: T")
    .Input("a_indices: int64")
    .Input("b_indices: int64")
    .Input("sum_indices: int64")
    .Output("a_val_grad: T")
    .Output("b_val_grad: T")
    .Attr(kNumberTypes)
    .SetShapeFn(SparseAddGradShape)
    .Doc("SparseAdd's gradient: the sum's value gradients routed to a's and "
         "b's values.");

DFLOW_REGISTER_OP("SparseConcat")
    .Input("indices: N * int64")
    .Input("values: N * T")
    .Input("shapes: N * int64")
    .Output("output_indices: int64")
    .Output("output_values: T")
    .Output("output_shape: int64")
    .Attr("concat_dim: int")
    .Attr("N: int >= 2")
    .Attr("T: type")
    .SetShapeFn(SparseConcatShape)
    .Doc("SparseTensors concatenated along concat_dim.");

DFLOW_REGISTER_OP("SparseSlice")
    .Input("indices: int64")
    .Input("values: T")
    .Input("shape: int64")
    .Input("start: int64")
    .Input("size: int64")
    .Output("output_indices: int64")
    .Output("output_values: T")
    .Output("output_shape: int64")
    .Attr("T: type")
    .SetShapeFn(SparseLikeInput<2>)
    .Doc("The entries of a SparseTensor in [start, start + size).");

DFLOW_REGISTER_OP("SparseSliceGrad")
    .Input("backprop_val_grad: T")
    .Input("input_indices: int64")
    .Input("input_start: int64")
    .Input("output_indices: int64")
    .Output("val_grad: T")
    .Attr(kNumberTypes)
    .SetShapeFn(SparseSliceGradShape)
    .Doc("SparseSlice's gradient: the slice's value gradients at the input's "
         "entries, 0 for the entries outside the slice.");

DFLOW_REGISTER_OP("SparseSplit")
    .Input("split_dim: int64")
    .Input("indices: int64")
    .Input("values: T")
    .Input("shape: int64")
    .Output("output_indices: num_split * int64")
    .Output("output_values: num_split * T")
    .Output("output_shape: num_split * int64")
    .Attr("num_split: int >= 1")
    .Attr("T: type")
    .SetShapeFn(SparseSplitShape)
    .Doc("A SparseTensor split into num_split along split_dim.");

DFLOW_REGISTER_OP("SparseReorder")
    .Input("input_indices: int64")
    .Input("input_values: T")
    .Input("input_shape: int64")
    .Output("output_indices: int64")
    .Output("output_values: T")
    .Attr("T: type")
    .SetShapeFn(SparseReorderShape)
    .Doc("A SparseTensor's entries in row-major order.");

DFLOW_REGISTER_OP("SparseTensorDenseMatMul")
    .Input("a_indices: Tindices")
    .Input("a_values: T")
    .Input("a_shape: int64")
    .Input("b: T")
    .Output("product: T")
    .Attr("T: type")
    .Attr("Tindices: {int32, int64} = int64")
    .Attr("adjoint_a: bool = false")
    .Attr("adjoint_b: bool = false")
    .SetShapeFn(SparseTensorDenseMatMulShape)
    .Doc("A sparse matrix times a dense one (either adjoint).");

DFLOW_REGISTER_OP("SparseTensorDenseAdd")
    .Input("a_indices: Tindices")
    .Input("a_values: T")
    .Input("a_shape: Tindices")
    .Input("b: T")
    .Output("output: T")
    .Attr(kNumberTypes)
    .Attr("Tindices: {int32, int64}")
    .SetShapeFn(ShapeOfInput<3, 0>)
    .Doc("A dense tensor plus a SparseTensor of its shape.");

#define DFLOW_SPARSE_DENSE_CWISE(name, what)                       \
  DFLOW_REGISTER_OP(name)                                          \
      .Input("sp_indices: int64")                                  \
      .Input("sp_values: T")                                       \
      .Input("sp_shape: int64")                                    \
      .Input("dense: T")                                           \
      .Output("output: T")                                         \
      .Attr(kNumberTypes)                                          \
      .SetShapeFn(ShapeOfInput<1, 0>)                              \
      .Doc("The SparseTensor's values " what                       \
           " the dense tensor (broadcast to the sparse shape) at " \
           "their indices.")
DFLOW_SPARSE_DENSE_CWISE("SparseDenseCwiseAdd", "plus");
DFLOW_SPARSE_DENSE_CWISE("SparseDenseCwiseMul", "times");
DFLOW_SPARSE_DENSE_CWISE("SparseDenseCwiseDiv", "divided by");
#undef DFLOW_SPARSE_DENSE_CWISE

#define DFLOW_SPARSE_REDUCE(name, types, shape_fn, outputs, what) \
  DFLOW_REGISTER_OP(name)                                         \
      .Input("input_indices: int64")                              \
      .Input("input_values: T")                                   \
      .Input("input_shape: int64")                                \
      .Input("reduction_axes: int32")                             \
      outputs                                                     \
      .Attr("keep_dims: bool = false")                            \
      .Attr(types)                                                \
      .SetShapeFn(shape_fn)                                       \
      .Doc("The " what " of a SparseTensor's values over reduction_axes.")
#define DFLOW_DENSE_OUT .Output("output: T")
#define DFLOW_SPARSE_OUT                \
  .Output("output_indices: int64")      \
      .Output("output_values: T")       \
      .Output("output_shape: int64")
DFLOW_SPARSE_REDUCE("SparseReduceSum", kNumberTypes, SparseReduceShape,
                    DFLOW_DENSE_OUT, "sum");
DFLOW_SPARSE_REDUCE("SparseReduceSumSparse", kNumberTypes,
                    SparseReduceSparseShape, DFLOW_SPARSE_OUT, "sum");
DFLOW_SPARSE_REDUCE("SparseReduceMax", kRealNumberTypes, SparseReduceShape,
                    DFLOW_DENSE_OUT, "maximum");
DFLOW_SPARSE_REDUCE("SparseReduceMaxSparse", kRealNumberTypes,
                    SparseReduceSparseShape, DFLOW_SPARSE_OUT, "maximum");
#undef DFLOW_SPARSE_REDUCE
#undef DFLOW_DENSE_OUT
#undef DFLOW_SPARSE_OUT

DFLOW_REGISTER_OP("SparseSoftmax")
    .Input("sp_indices: int64")
    .Input("sp_values: T")
    .Input("sp_shape: int64")
    .Output("output: T")
    .Attr("T: {half, float, double}")
    .SetShapeFn(ShapeOfInput<1, 0>)
    .Doc("Softmax over the last dimension of a SparseTensor's entries.");

#define DFLOW_SPARSE_SPARSE(name, types, what)                              \
  DFLOW_REGISTER_OP(name)                                              \
      .Input("a_indices: int64")                                       \
      .Input("a_values: T")                                            \
      .Input("a_shape: int64")                                         \
      .Input("b_indices: int64")                                       \
      .Input("b_values: T")                                            \
      .Input("b_shape: int64")                                         \
      .Output("output_indices: int64")                                 \
      .Output("output_values: T")                                      \
      .Attr(types)                                                     \
      .SetShapeFn(SparseSparseMinMaxShape)                             \
      .Doc("The element-wise " what " of two SparseTensors (missing " \
           "entries count as 0).")
DFLOW_SPARSE_SPARSE("SparseSparseMaximum", kRealNumberTypes, "maximum");
// (TensorFlow allows every number type for the minimum, only the real
// ones for the maximum.)
DFLOW_SPARSE_SPARSE("SparseSparseMinimum", kNumberTypes, "minimum");
#undef DFLOW_SPARSE_SPARSE

DFLOW_REGISTER_OP("SparseFillEmptyRowsGrad")
    .Input("reverse_index_map: int64")
    .Input("grad_values: T")
    .Output("d_values: T")
    .Output("d_default_value: T")
    .Attr("T: type")
    .SetShapeFn(SparseFillEmptyRowsGradShape)
    .Doc("SparseFillEmptyRows' gradient: the values' gradients and the sum "
         "of the filled-in entries' gradients.");

#define DFLOW_SEGMENT_GRAD_V2(name)                                      \
  DFLOW_REGISTER_OP(name)                                                \
      .Input("grad: T")                                                  \
      .Input("indices: Tidx")                                            \
      .Input("segment_ids: Tsegmentids")                                 \
      .Input("dense_output_dim0: int32")                                 \
      .Output("output: T")                                               \
      .Output("sorted_unique_indices: Tidx")                             \
      .Attr("T: {bfloat16, half, float, double}")                        \
      .Attr("Tidx: {int32, int64} = int32")                              \
      .Attr("Tsegmentids: {int32, int64} = int32")                       \
      .SetShapeFn(SegmentGradV2Shape)                                    \
      .Doc("The gradient of a sparse segment reduction as rows at the " \
           "sorted unique indices (an IndexedSlices).")
DFLOW_SEGMENT_GRAD_V2("SparseSegmentSumGradV2");
DFLOW_SEGMENT_GRAD_V2("SparseSegmentMeanGradV2");
DFLOW_SEGMENT_GRAD_V2("SparseSegmentSqrtNGradV2");
#undef DFLOW_SEGMENT_GRAD_V2

DFLOW_REGISTER_OP("SparseMatMul")
    .Input("a: Ta")
    .Input("b: Tb")
    .Output("product: float")
    .Attr("transpose_a: bool = false")
    .Attr("transpose_b: bool = false")
    .Attr("a_is_sparse: bool = false")
    .Attr("b_is_sparse: bool = false")
    .Attr("Ta: {float, bfloat16} = float")
    .Attr("Tb: {float, bfloat16} = float")
    .SetShapeFn(SparseMatMulShape)
    .Doc("MatMul whose operands may be mostly zeros (the hints change only "
         "the speed).");

}  // namespace dflow
