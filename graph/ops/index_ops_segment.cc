// Schemas, shape functions and wrappers of the sorted segment reductions
// (SegmentSum, SegmentMean, SegmentMax, SegmentMin, SegmentProd) and the
// sparse ones (SparseSegmentSum/Mean/SqrtN, their WithNumSegments forms and
// the gradients TensorFlow writes for them), following TensorFlow 2.21's
// core/ops/math_ops.cc. The CPU kernels are
// kernels/cpu/index_ops_segment_sorted.cc and index_ops_segment_sparse.cc.
#include <cstdint>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "graph/op_registry.h"
#include "graph/ops/index_ops.h"
#include "graph/ops/shape_fn_util.h"
#include "graph/shape_inference.h"
#include "graph/tensor_shape.h"

namespace dflow {
namespace {

using shape_fn_util::FirstOutput;
using shape_fn_util::InvalidArgument;
using shape_fn_util::RankKnown;

// [rows] + data.shape[1:], or unknown when data's rank is.
TensorShape RowsOf(const TensorShape& data, int64_t rows) {
  if (!RankKnown(data)) return TensorShape::Unknown();
  TensorShape out({rows});
  for (int i = 1; i < data.rank(); ++i) out.AddDim(data.dim(i));
  return out;
}

// The value of scalar input `i` (num_segments, output_dim0) when known at
// build time, else an unknown dim.
absl::Status ScalarDim(InferenceContext* c, int i, const char* what,
                       int64_t* dim) {
  if (RankKnown(c->input(i)) && c->input(i).rank() != 0) {
    return InvalidArgument(what, " must be a scalar but has shape ",
                           c->input(i).ToString());
  }
  std::vector<int64_t> v;
  *dim = c->ConstantInputAsInts(i, &v) ? v[0] : TensorShape::kUnknownDim;
  return absl::OkStatus();
}

// The row count is max(segment_ids) + 1, a run-time value.
absl::Status SortedSegmentShape(InferenceContext* c) {
  TensorShape data, ids;
  DFLOW_RETURN_IF_ERROR(
      c->WithRankAtLeast(c->input(0), 1, "input 'data'", &data));
  DFLOW_RETURN_IF_ERROR(
      c->WithRank(c->input(1), 1, "input 'segment_ids'", &ids));
  if (RankKnown(data) && RankKnown(ids)) {
    int64_t n;
    DFLOW_RETURN_IF_ERROR(c->MergeDim(
        data.dim(0), ids.dim(0),
        absl::StrCat(
            "segment_ids.shape = ", ids.ToString(),
            " must match data.shape[0] of data.shape = ", data.ToString()),
        &n));
  }
  c->set_output(0, RowsOf(data, TensorShape::kUnknownDim));
  return absl::OkStatus();
}

// data, indices and segment_ids (one id per index) of every sparse
// reduction and its gradient.
absl::Status CheckSparseSegmentArgs(InferenceContext* c, TensorShape* data) {
  TensorShape indices, ids;
  DFLOW_RETURN_IF_ERROR(c->WithRankAtLeast(c->input(0), 1, "input 0", data));
  DFLOW_RETURN_IF_ERROR(
      c->WithRank(c->input(1), 1, "input 'indices'", &indices));
  DFLOW_RETURN_IF_ERROR(
      c->WithRank(c->input(2), 1, "input 'segment_ids'", &ids));
  if (RankKnown(indices) && RankKnown(ids)) {
    int64_t n;
    DFLOW_RETURN_IF_ERROR(
        c->MergeDim(indices.dim(0), ids.dim(0),
                    "indices and segment_ids must have the same length", &n));
  }
  return absl::OkStatus();
}

absl::Status SparseSegmentShape(InferenceContext* c) {
  TensorShape data;
  DFLOW_RETURN_IF_ERROR(CheckSparseSegmentArgs(c, &data));
  c->set_output(0, RowsOf(data, TensorShape::kUnknownDim));
  return absl::OkStatus();
}

// WithNumSegments (num_segments rows) and the gradients (output_dim0 rows):
// the row count is input 3.
absl::Status SparseSegmentRowsFromInput3Shape(InferenceContext* c) {
  TensorShape data;
  DFLOW_RETURN_IF_ERROR(CheckSparseSegmentArgs(c, &data));
  int64_t rows = TensorShape::kUnknownDim;
  DFLOW_RETURN_IF_ERROR(ScalarDim(c, 3, "input 3", &rows));
  c->set_output(0, RowsOf(data, rows));
  return absl::OkStatus();
}

constexpr char kSumTypes[] =
    "T: {float, double, int32, uint8, int16, int8, complex64, int64, qint8, "
    "quint8, qint32, bfloat16, qint16, quint16, uint16, complex128, half, "
    "uint32, uint64}";
constexpr char kRealTypes[] =
    "T: {float, double, int32, uint8, int16, int8, int64, bfloat16, uint16, "
    "half, uint32, uint64}";
constexpr char kFloatTypes[] = "T: {bfloat16, half, float, double}";

#define DFLOW_REGISTER_SORTED_SEGMENT(name, types, doc) \
  DFLOW_REGISTER_OP(name)                               \
      .Input("data: T")                                 \
      .Input("segment_ids: Tindices")                   \
      .Output("output: T")                              \
      .Attr(types)                                      \
      .Attr("Tindices: {int32, int64}")                 \
      .SetShapeFn(SortedSegmentShape)                   \
      .Doc(doc)

#define DFLOW_REGISTER_SPARSE_SEGMENT(name, types, doc) \
  DFLOW_REGISTER_OP(name)                               \
      .Input("data: T")                                 \
      .Input("indices: Tidx")                           \
      .Input("segment_ids: Tsegmentids")                \
      .Output("output: T")                              \
      .Attr(types)                                      \
      .Attr("Tidx: {int32, int64} = DT_INT32")          \
      .Attr("Tsegmentids: {int32, int64} = DT_INT32")   \
      .Attr("sparse_gradient: bool = false")            \
      .SetShapeFn(SparseSegmentShape)                   \
      .Doc(doc)

#define DFLOW_REGISTER_SPARSE_SEGMENT_N(name, types, doc) \
  DFLOW_REGISTER_OP(name)                                 \
      .Input("data: T")                                   \
      .Input("indices: Tidx")                             \
      .Input("segment_ids: Tsegmentids")                  \
      .Input("num_segments: Tnumsegments")                \
      .Output("output: T")                                \
      .Attr(types)                                        \
      .Attr("Tidx: {int32, int64} = DT_INT32")            \
      .Attr("Tnumsegments: {int32, int64} = DT_INT32")    \
      .Attr("Tsegmentids: {int32, int64} = DT_INT32")     \
      .Attr("sparse_gradient: bool = false")              \
      .SetShapeFn(SparseSegmentRowsFromInput3Shape)       \
      .Doc(doc)

#define DFLOW_REGISTER_SPARSE_SEGMENT_GRAD(name, doc) \
  DFLOW_REGISTER_OP(name)                             \
      .Input("grad: T")                               \
      .Input("indices: Tidx")                         \
      .Input("segment_ids: Tsegmentids")              \
      .Input("output_dim0: int32")                    \
      .Output("output: T")                            \
      .Attr(kFloatTypes)                              \
      .Attr("Tidx: {int32, int64} = DT_INT32")        \
      .Attr("Tsegmentids: {int32, int64} = DT_INT32") \
      .SetShapeFn(SparseSegmentRowsFromInput3Shape)   \
      .Doc(doc)

}  // namespace

DFLOW_REGISTER_SORTED_SEGMENT("SegmentSum", kSumTypes,
                              "Sums data's rows by sorted segment_ids.");
DFLOW_REGISTER_SORTED_SEGMENT("SegmentMean", kSumTypes,
                              "Averages data's rows by sorted segment_ids.");
DFLOW_REGISTER_SORTED_SEGMENT("SegmentMax", kRealTypes,
                              "The largest row per sorted segment id.");
DFLOW_REGISTER_SORTED_SEGMENT("SegmentMin", kRealTypes,
                              "The smallest row per sorted segment id.");
DFLOW_REGISTER_SORTED_SEGMENT("SegmentProd", kSumTypes,
                              "Multiplies data's rows by sorted segment_ids.");

DFLOW_REGISTER_SPARSE_SEGMENT("SparseSegmentSum", kRealTypes,
                              "Sums data[indices] by sorted segment_ids.");
DFLOW_REGISTER_SPARSE_SEGMENT("SparseSegmentMean", kFloatTypes,
                              "Averages data[indices] by sorted segment_ids.");
DFLOW_REGISTER_SPARSE_SEGMENT(
    "SparseSegmentSqrtN", kFloatTypes,
    "Sums data[indices] by segment, divided by sqrt(count).");
DFLOW_REGISTER_SPARSE_SEGMENT_N("SparseSegmentSumWithNumSegments", kRealTypes,
                                "SparseSegmentSum with num_segments rows.");
DFLOW_REGISTER_SPARSE_SEGMENT_N("SparseSegmentMeanWithNumSegments", kFloatTypes,
                                "SparseSegmentMean with num_segments rows.");
DFLOW_REGISTER_SPARSE_SEGMENT_N("SparseSegmentSqrtNWithNumSegments",
                                kFloatTypes,
                                "SparseSegmentSqrtN with num_segments rows.");
DFLOW_REGISTER_SPARSE_SEGMENT_GRAD("SparseSegmentSumGrad",
                                   "The gradient of SparseSegmentSum.");
DFLOW_REGISTER_SPARSE_SEGMENT_GRAD("SparseSegmentMeanGrad",
                                   "The gradient of SparseSegmentMean.");
DFLOW_REGISTER_SPARSE_SEGMENT_GRAD("SparseSegmentSqrtNGrad",
                                   "The gradient of SparseSegmentSqrtN.");

namespace ops {
namespace {

Output Build2(const Scope& scope, const char* op, Input a, Input b) {
  return FirstOutput(OpBuilder(scope, op).Input(a).Input(b).Finalize());
}
Output Build3(const Scope& scope, const char* op, Input a, Input b, Input c) {
  return FirstOutput(
      OpBuilder(scope, op).Input(a).Input(b).Input(c).Finalize());
}
Output Build4(const Scope& scope, const char* op, Input a, Input b, Input c,
              Input d) {
  return FirstOutput(
      OpBuilder(scope, op).Input(a).Input(b).Input(c).Input(d).Finalize());
}

}  // namespace

Output SegmentSum(const Scope& scope, Input data, Input segment_ids) {
  return Build2(scope, "SegmentSum", data, segment_ids);
}
Output SegmentMean(const Scope& scope, Input data, Input segment_ids) {
  return Build2(scope, "SegmentMean", data, segment_ids);
}
Output SegmentMax(const Scope& scope, Input data, Input segment_ids) {
  return Build2(scope, "SegmentMax", data, segment_ids);
}
Output SegmentMin(const Scope& scope, Input data, Input segment_ids) {
  return Build2(scope, "SegmentMin", data, segment_ids);
}
Output SegmentProd(const Scope& scope, Input data, Input segment_ids) {
  return Build2(scope, "SegmentProd", data, segment_ids);
}

Output SparseSegmentSum(const Scope& scope, Input data, Input indices,
                        Input segment_ids) {
  return Build3(scope, "SparseSegmentSum", data, indices, segment_ids);
}
Output SparseSegmentMean(const Scope& scope, Input data, Input indices,
                         Input segment_ids) {
  return Build3(scope, "SparseSegmentMean", data, indices, segment_ids);
}
Output SparseSegmentSqrtN(const Scope& scope, Input data, Input indices,
                          Input segment_ids) {
  return Build3(scope, "SparseSegmentSqrtN", data, indices, segment_ids);
}
Output SparseSegmentSumWithNumSegments(const Scope& scope, Input data,
                                       Input indices, Input segment_ids,
                                       Input num_segments) {
  return Build4(scope, "SparseSegmentSumWithNumSegments", data, indices,
                segment_ids, num_segments);
}
Output SparseSegmentMeanWithNumSegments(const Scope& scope, Input data,
                                        Input indices, Input segment_ids,
                                        Input num_segments) {
  return Build4(scope, "SparseSegmentMeanWithNumSegments", data, indices,
                segment_ids, num_segments);
}
Output SparseSegmentSqrtNWithNumSegments(const Scope& scope, Input data,
                                         Input indices, Input segment_ids,
                                         Input num_segments) {
  return Build4(scope, "SparseSegmentSqrtNWithNumSegments", data, indices,
                segment_ids, num_segments);
}
Output SparseSegmentSumGrad(const Scope& scope, Input grad, Input indices,
                            Input segment_ids, Input output_dim0) {
  return Build4(scope, "SparseSegmentSumGrad", grad, indices, segment_ids,
                output_dim0);
}
Output SparseSegmentMeanGrad(const Scope& scope, Input grad, Input indices,
                             Input segment_ids, Input output_dim0) {
  return Build4(scope, "SparseSegmentMeanGrad", grad, indices, segment_ids,
                output_dim0);
}
Output SparseSegmentSqrtNGrad(const Scope& scope, Input grad, Input indices,
                              Input segment_ids, Input output_dim0) {
  return Build4(scope, "SparseSegmentSqrtNGrad", grad, indices, segment_ids,
                output_dim0);
}

}  // namespace ops
}  // namespace dflow
