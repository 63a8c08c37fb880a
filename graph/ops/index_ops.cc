// Schemas, shape functions and wrappers of the index ops (index_ops.h),
// following TensorFlow 2.21's array_ops.cc, math_ops.cc, data_flow_ops.cc
// and nn_ops.cc OpDefs.
#include "graph/ops/index_ops.h"

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "graph/graph.h"
#include "graph/op_registry.h"
#include "graph/ops/shape_fn_util.h"
#include "graph/shape_inference.h"
#include "graph/tensor_shape.h"

namespace dflow {
namespace {

using shape_fn_util::AllOutputs;
using shape_fn_util::FirstOutput;
using shape_fn_util::InvalidArgument;
using shape_fn_util::RankKnown;

// dims [begin, end) of `s` appended to `out`.
void AppendDims(const TensorShape& s, int begin, int end, TensorShape* out) {
  for (int i = begin; i < end; ++i) out->AddDim(s.dim(i));
}

// params[:axis] + indices[batch_dims:] + params[axis+1:].
absl::Status GatherShapeImpl(InferenceContext* c, bool has_axis) {
  const TensorShape& params = c->input(0);
  const TensorShape& indices = c->input(1);
  int64_t batch_dims = 0;
  if (has_axis) DFLOW_RETURN_IF_ERROR(c->GetAttr("batch_dims", &batch_dims));
  int64_t axis = 0;
  bool axis_known = true;
  if (has_axis) {
    std::vector<int64_t> axis_value;
    if (RankKnown(c->input(2)) && c->input(2).rank() != 0) {
      return InvalidArgument("input 'axis' must be a scalar but has shape ",
                             c->input(2).ToString());
    }
    axis_known = c->ConstantInputAsInts(2, &axis_value);
    if (axis_known) axis = axis_value[0];
  }
  if (RankKnown(indices) && batch_dims < 0) batch_dims += indices.rank();
  if (RankKnown(indices) && (batch_dims < 0 || batch_dims > indices.rank())) {
    return InvalidArgument("batch_dims must be in [-", indices.rank(), ", ",
                           indices.rank(), "] for indices of shape ",
                           indices.ToString());
  }
  if (!RankKnown(params) || !RankKnown(indices) || !axis_known) {
    c->set_output(0, TensorShape::Unknown());
    return absl::OkStatus();
  }
  if (params.rank() < 1) {
    return InvalidArgument("params must be at least a vector, got shape ",
                           params.ToString());
  }
  const int64_t rank = params.rank();
  if (axis < -rank || axis >= rank) {
    return InvalidArgument("axis ", axis, " is out of range for params of ",
                           "shape ", params.ToString(), ": expected [", -rank,
                           ", ", rank, ")");
  }
  if (axis < 0) axis += rank;
  if (batch_dims > axis) {
    return InvalidArgument("batch_dims (", batch_dims,
                           ") must be no greater than axis (", axis, ")");
  }
  for (int i = 0; i < batch_dims; ++i) {
    int64_t d;
    DFLOW_RETURN_IF_ERROR(c->MergeDim(
        params.dim(i), indices.dim(i),
        absl::StrCat("batch dimension ", i, " of params and indices"), &d));
  }
  TensorShape out(std::vector<int64_t>{});
  AppendDims(params, 0, static_cast<int>(axis), &out);
  AppendDims(indices, static_cast<int>(batch_dims), indices.rank(), &out);
  AppendDims(params, static_cast<int>(axis) + 1, params.rank(), &out);
  c->set_output(0, out);
  return absl::OkStatus();
}

absl::Status GatherV2Shape(InferenceContext* c) {
  return GatherShapeImpl(c, /*has_axis=*/true);
}
absl::Status GatherShape(InferenceContext* c) {
  return GatherShapeImpl(c, /*has_axis=*/false);
}

// [num_segments] + data.shape[rank(segment_ids):].
absl::Status UnsortedSegmentSumShape(InferenceContext* c) {
  const TensorShape& data = c->input(0);
  const TensorShape& ids = c->input(1);
  if (RankKnown(c->input(2)) && c->input(2).rank() != 0) {
    return InvalidArgument("num_segments must be a scalar but has shape ",
                           c->input(2).ToString());
  }
  std::vector<int64_t> n;
  const int64_t segments =
      c->ConstantInputAsInts(2, &n) ? n[0] : TensorShape::kUnknownDim;
  if (!RankKnown(data) || !RankKnown(ids)) {
    c->set_output(0, TensorShape::Unknown());
    return absl::OkStatus();
  }
  if (ids.rank() > data.rank()) {
    return InvalidArgument("segment_ids of shape ", ids.ToString(),
                           " must be a prefix of data's shape ",
                           data.ToString());
  }
  for (int i = 0; i < ids.rank(); ++i) {
    int64_t d;
    DFLOW_RETURN_IF_ERROR(c->MergeDim(
        data.dim(i), ids.dim(i),
        absl::StrCat("segment_ids.shape = ", ids.ToString(),
                     " is not a prefix of data.shape = ", data.ToString(),
                     " (dimension ", i, ")"),
        &d));
  }
  TensorShape out({segments});
  AppendDims(data, ids.rank(), data.rank(), &out);
  c->set_output(0, out);
  return absl::OkStatus();
}

// [max(indices) + 1] + data[0].shape[rank(indices[0]):].
absl::Status DynamicStitchShape(InferenceContext* c) {
  const int n = c->num_inputs() / 2;
  int64_t max_index = -1;
  bool all_constant = true;
  for (int i = 0; i < n; ++i) {
    std::vector<int64_t> v;
    if (c->ConstantInputAsInts(i, &v)) {
      for (int64_t x : v) max_index = std::max(max_index, x);
    } else {
      all_constant = false;
    }
  }
  TensorShape suffix = TensorShape::Unknown();
  for (int i = 0; i < n; ++i) {
    const TensorShape& ind = c->input(i);
    const TensorShape& data = c->input(n + i);
    if (!RankKnown(ind) || !RankKnown(data)) continue;
    if (data.rank() < ind.rank()) {
      return InvalidArgument("data[", i, "].shape = ", data.ToString(),
                             " does not start with indices[", i,
                             "].shape = ", ind.ToString());
    }
    for (int d = 0; d < ind.rank(); ++d) {
      int64_t m;
      DFLOW_RETURN_IF_ERROR(
          c->MergeDim(data.dim(d), ind.dim(d),
                      absl::StrCat("data[", i, "].shape = ", data.ToString(),
                                   " does not start with indices[", i,
                                   "].shape = ", ind.ToString()),
                      &m));
    }
    TensorShape s(std::vector<int64_t>{});
    AppendDims(data, ind.rank(), data.rank(), &s);
    if (RankKnown(suffix)) {
      TensorShape merged;
      DFLOW_RETURN_IF_ERROR(c->MergeShapes(
          suffix, s, "the element shapes of the data inputs", &merged));
      suffix = merged;
    } else {
      suffix = s;
    }
  }
  if (!RankKnown(suffix)) {
    c->set_output(0, TensorShape::Unknown());
    return absl::OkStatus();
  }
  TensorShape out({all_constant ? max_index + 1 : TensorShape::kUnknownDim});
  AppendDims(suffix, 0, suffix.rank(), &out);
  c->set_output(0, out);
  return absl::OkStatus();
}

absl::Status UniqueShape(InferenceContext* c) {
  TensorShape x;
  DFLOW_RETURN_IF_ERROR(c->WithRank(c->input(0), 1, "input 'x'", &x));
  c->set_output(0, TensorShape({TensorShape::kUnknownDim}));
  c->set_output(1, x);
  return absl::OkStatus();
}

absl::Status UniqueWithCountsShape(InferenceContext* c) {
  DFLOW_RETURN_IF_ERROR(UniqueShape(c));
  c->set_output(2, TensorShape({TensorShape::kUnknownDim}));
  return absl::OkStatus();
}

absl::Status WhereShape(InferenceContext* c) {
  const TensorShape& in = c->input(0);
  c->set_output(0, TensorShape({TensorShape::kUnknownDim,
                                RankKnown(in) ? in.rank() : -1}));
  return absl::OkStatus();
}

absl::Status TopKShape(InferenceContext* c) {
  TensorShape in;
  DFLOW_RETURN_IF_ERROR(c->WithRankAtLeast(c->input(0), 1, "input", &in));
  if (RankKnown(c->input(1)) && c->input(1).rank() != 0) {
    return InvalidArgument("k must be a scalar but has shape ",
                           c->input(1).ToString());
  }
  std::vector<int64_t> kv;
  int64_t k = TensorShape::kUnknownDim;
  if (c->ConstantInputAsInts(1, &kv)) {
    k = kv[0];
    if (k < 0) return InvalidArgument("k must be non-negative, got ", k);
  }
  if (!RankKnown(in)) {
    c->set_output(0, TensorShape::Unknown());
    c->set_output(1, TensorShape::Unknown());
    return absl::OkStatus();
  }
  const int64_t last = in.dim(in.rank() - 1);
  if (k >= 0 && last >= 0 && last < k) {
    return InvalidArgument("input must have last dimension >= k = ", k,
                           " but has shape ", in.ToString());
  }
  TensorShape out = in;
  out.set_dim(in.rank() - 1, k);
  c->set_output(0, out);
  c->set_output(1, out);
  return absl::OkStatus();
}

absl::Status InTopKShape(InferenceContext* c) {
  TensorShape predictions, targets;
  DFLOW_RETURN_IF_ERROR(
      c->WithRank(c->input(0), 2, "input 'predictions'", &predictions));
  DFLOW_RETURN_IF_ERROR(
      c->WithRank(c->input(1), 1, "input 'targets'", &targets));
  int64_t batch;
  DFLOW_RETURN_IF_ERROR(c->MergeDim(
      predictions.dim(0), targets.dim(0),
      "the first dimension of 'predictions' and of 'targets'", &batch));
  c->set_output(0, TensorShape({batch}));
  return absl::OkStatus();
}

DFLOW_REGISTER_OP("GatherV2")
    .Input("params: Tparams")
    .Input("indices: Tindices")
    .Input("axis: Taxis")
    .Output("output: Tparams")
    .Attr("batch_dims: int = 0")
    .Attr("Tparams: type")
    .Attr("Tindices: {int16, int32, int64}")
    .Attr("Taxis: {int32, int64}")
    .SetShapeFn(GatherV2Shape)
    .Doc("Gathers slices of params along axis at indices.");

DFLOW_REGISTER_OP("Gather")
    .Input("params: Tparams")
    .Input("indices: Tindices")
    .Output("output: Tparams")
    .Attr("validate_indices: bool = true")
    .Attr("Tparams: type")
    .Attr("Tindices: {int32, int64}")
    .SetShapeFn(GatherShape)
    .Doc("Gathers rows of params at indices (GatherV2 with axis 0).");

DFLOW_REGISTER_OP("UnsortedSegmentSum")
    .Input("data: T")
    .Input("segment_ids: Tindices")
    .Input("num_segments: Tnumsegments")
    .Output("output: T")
    .Attr(
        "T: {float, double, int32, uint8, int16, int8, complex64, int64, "
        "qint8, quint8, qint32, bfloat16, qint16, quint16, uint16, "
        "complex128, half, uint32, uint64}")
    .Attr("Tindices: {int16, int32, int64}")
    .Attr("Tnumsegments: {int32, int64} = DT_INT32")
    .SetShapeFn(UnsortedSegmentSumShape)
    .Doc("Sums the slices of data into num_segments rows by segment_ids.");

// The other unsorted reductions: same shape; an empty segment is the
// reduction's identity (the lowest / highest value of T, or one).
DFLOW_REGISTER_OP("UnsortedSegmentMax")
    .Input("data: T")
    .Input("segment_ids: Tindices")
    .Input("num_segments: Tnumsegments")
    .Output("output: T")
    .Attr(
        "T: {float, double, int32, uint8, int16, int8, int64, bfloat16, "
        "uint16, half, uint32, uint64}")
    .Attr("Tindices: {int32, int64}")
    .Attr("Tnumsegments: {int32, int64} = DT_INT32")
    .SetShapeFn(UnsortedSegmentSumShape)
    .Doc("The largest slice of data per segment, by segment_ids.");

DFLOW_REGISTER_OP("UnsortedSegmentMin")
    .Input("data: T")
    .Input("segment_ids: Tindices")
    .Input("num_segments: Tnumsegments")
    .Output("output: T")
    .Attr(
        "T: {float, double, int32, uint8, int16, int8, int64, bfloat16, "
        "uint16, half, uint32, uint64}")
    .Attr("Tindices: {int32, int64}")
    .Attr("Tnumsegments: {int32, int64} = DT_INT32")
    .SetShapeFn(UnsortedSegmentSumShape)
    .Doc("The smallest slice of data per segment, by segment_ids.");

DFLOW_REGISTER_OP("UnsortedSegmentProd")
    .Input("data: T")
    .Input("segment_ids: Tindices")
    .Input("num_segments: Tnumsegments")
    .Output("output: T")
    .Attr(
        "T: {float, double, int32, uint8, int16, int8, complex64, int64, "
        "qint8, quint8, qint32, bfloat16, qint16, quint16, uint16, "
        "complex128, half, uint32, uint64}")
    .Attr("Tindices: {int32, int64}")
    .Attr("Tnumsegments: {int32, int64} = DT_INT32")
    .SetShapeFn(UnsortedSegmentSumShape)
    .Doc("The product of the slices of data per segment, by segment_ids.");

DFLOW_REGISTER_OP("DynamicStitch")
    .Input("indices: N * int32")
    .Input("data: N * T")
    .Output("merged: T")
    .Attr("N: int >= 1")
    .Attr("T: type")
    .SetShapeFn(DynamicStitchShape)
    .Doc("Interleaves the data tensors into one by their indices.");

// DynamicStitch whose duplicate indices may take any of their values
// (TensorFlow's gradient of DynamicPartition writes it; its indices never
// repeat there).
DFLOW_REGISTER_OP("ParallelDynamicStitch")
    .Input("indices: N * int32")
    .Input("data: N * T")
    .Output("merged: T")
    .Attr("N: int >= 1")
    .Attr("T: type")
    .SetShapeFn(DynamicStitchShape)
    .Doc("Interleaves the data tensors into one by their indices.");

DFLOW_REGISTER_OP("Unique")
    .Input("x: T")
    .Output("y: T")
    .Output("idx: out_idx")
    .Attr("T: type")
    .Attr("out_idx: {int32, int64} = DT_INT32")
    .SetShapeFn(UniqueShape)
    .Doc("The distinct elements of a vector and where each element went.");

DFLOW_REGISTER_OP("UniqueWithCounts")
    .Input("x: T")
    .Output("y: T")
    .Output("idx: out_idx")
    .Output("count: out_idx")
    .Attr("T: type")
    .Attr("out_idx: {int32, int64} = DT_INT32")
    .SetShapeFn(UniqueWithCountsShape)
    .Doc(
        "The distinct elements of a vector, where each element went, and "
        "how often each distinct element occurs.");

DFLOW_REGISTER_OP("Where")
    .Input("input: T")
    .Output("index: int64")
    .Attr(
        "T: {float, double, int32, uint8, int16, int8, complex64, int64, "
        "qint8, quint8, qint32, bfloat16, qint16, quint16, uint16, "
        "complex128, half, uint32, uint64, bool} = DT_BOOL")
    .SetShapeFn(WhereShape)
    .Doc("The coordinates of the true elements of input.");

DFLOW_REGISTER_OP("TopKV2")
    .Input("input: T")
    .Input("k: Tk")
    .Output("values: T")
    .Output("indices: index_type")
    .Attr("sorted: bool = true")
    .Attr(
        "T: {float, double, int32, uint8, int16, int8, int64, bfloat16, "
        "uint16, half, uint32, uint64}")
    .Attr("Tk: {int16, int32, int64} = DT_INT32")
    .Attr("index_type: {int16, int32, int64} = DT_INT32")
    .SetShapeFn(TopKShape)
    .Doc("The k largest entries of the last dimension and their indices.");

DFLOW_REGISTER_OP("InTopKV2")
    .Input("predictions: float")
    .Input("targets: T")
    .Input("k: T")
    .Output("precision: bool")
    .Attr("T: {int32, int64} = DT_INT32")
    .SetShapeFn(InTopKShape)
    .Doc("Whether each target is among the k largest predictions of its row.");

}  // namespace

namespace ops {

Output GatherV2(const Scope& scope, Input params, Input indices, Input axis,
                const GatherV2Attrs& attrs) {
  return FirstOutput(OpBuilder(scope, "GatherV2")
                         .Input(params)
                         .Input(indices)
                         .Input(axis)
                         .Attr("batch_dims", attrs.batch_dims)
                         .Finalize());
}

Output Gather(const Scope& scope, Input params, Input indices) {
  return FirstOutput(
      OpBuilder(scope, "Gather").Input(params).Input(indices).Finalize());
}

Output UnsortedSegmentSum(const Scope& scope, Input data, Input segment_ids,
                          Input num_segments) {
  return FirstOutput(OpBuilder(scope, "UnsortedSegmentSum")
                         .Input(data)
                         .Input(segment_ids)
                         .Input(num_segments)
                         .Finalize());
}

namespace {
Output UnsortedSegmentReduction(const Scope& scope, const char* op, Input data,
                                Input segment_ids, Input num_segments) {
  return FirstOutput(OpBuilder(scope, op)
                         .Input(data)
                         .Input(segment_ids)
                         .Input(num_segments)
                         .Finalize());
}
}  // namespace

Output UnsortedSegmentMax(const Scope& scope, Input data, Input segment_ids,
                          Input num_segments) {
  return UnsortedSegmentReduction(scope, "UnsortedSegmentMax", data,
                                  segment_ids, num_segments);
}

Output UnsortedSegmentMin(const Scope& scope, Input data, Input segment_ids,
                          Input num_segments) {
  return UnsortedSegmentReduction(scope, "UnsortedSegmentMin", data,
                                  segment_ids, num_segments);
}

Output UnsortedSegmentProd(const Scope& scope, Input data, Input segment_ids,
                           Input num_segments) {
  return UnsortedSegmentReduction(scope, "UnsortedSegmentProd", data,
                                  segment_ids, num_segments);
}

Output DynamicStitch(const Scope& scope, absl::Span<const Output> indices,
                     absl::Span<const Output> data) {
  return FirstOutput(OpBuilder(scope, "DynamicStitch")
                         .InputList(indices)
                         .InputList(data)
                         .Finalize());
}

Output ParallelDynamicStitch(const Scope& scope,
                             absl::Span<const Output> indices,
                             absl::Span<const Output> data) {
  return FirstOutput(OpBuilder(scope, "ParallelDynamicStitch")
                         .InputList(indices)
                         .InputList(data)
                         .Finalize());
}

UniqueOutputs Unique(const Scope& scope, Input x, const UniqueAttrs& attrs) {
  OutputList out = AllOutputs(OpBuilder(scope, "Unique")
                                  .Input(x)
                                  .Attr("out_idx", attrs.out_idx)
                                  .Finalize(),
                              2);
  return {out[0], out[1]};
}

UniqueWithCountsOutputs UniqueWithCounts(const Scope& scope, Input x,
                                         const UniqueAttrs& attrs) {
  OutputList out = AllOutputs(OpBuilder(scope, "UniqueWithCounts")
                                  .Input(x)
                                  .Attr("out_idx", attrs.out_idx)
                                  .Finalize(),
                              3);
  return {out[0], out[1], out[2]};
}

Output Where(const Scope& scope, Input input) {
  return FirstOutput(OpBuilder(scope, "Where").Input(input).Finalize());
}

TopKOutputs TopKV2(const Scope& scope, Input input, Input k,
                   const TopKAttrs& attrs) {
  OutputList out = AllOutputs(OpBuilder(scope, "TopKV2")
                                  .Input(input)
                                  .Input(k)
                                  .Attr("sorted", attrs.sorted)
                                  .Attr("index_type", attrs.index_type)
                                  .Finalize(),
                              2);
  return {out[0], out[1]};
}

Output InTopKV2(const Scope& scope, Input predictions, Input targets, Input k) {
  return FirstOutput(OpBuilder(scope, "InTopKV2")
                         .Input(predictions)
                         .Input(targets)
                         .Input(k)
                         .Finalize());
}

}  // namespace ops
}  // namespace dflow
