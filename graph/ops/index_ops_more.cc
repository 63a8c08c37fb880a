// Schemas, shape functions and wrappers of the older and rarer index ops
// TensorFlow's Python API and older graphs write (index_ops.h): LinSpace,
// UnravelIndex, UniqueV2 / UniqueWithCountsV2 (unique slices along an
// axis), NthElement, and the v1 forms of TopK and InTopK (k an attr rather
// than an input), with TensorFlow 2.21's OpDefs. Kernels:
// kernels/cpu/index_ops_more.cc and index_ops_topk.cc.
#include <cstdint>
#include <vector>

#include "absl/status/status.h"
#include "graph/graph.h"
#include "graph/op_registry.h"
#include "graph/ops/index_ops.h"
#include "graph/ops/shape_fn_util.h"
#include "graph/shape_inference.h"
#include "graph/tensor_shape.h"

namespace dflow {
namespace {

using shape_fn_util::AllOutputs;
using shape_fn_util::FirstOutput;
using shape_fn_util::InvalidArgument;
using shape_fn_util::RankKnown;

absl::Status LinSpaceShape(InferenceContext* c) {
  TensorShape unused;
  DFLOW_RETURN_IF_ERROR(c->WithRank(c->input(0), 0, "input 'start'", &unused));
  DFLOW_RETURN_IF_ERROR(c->WithRank(c->input(1), 0, "input 'stop'", &unused));
  DFLOW_RETURN_IF_ERROR(c->WithRank(c->input(2), 0, "input 'num'", &unused));
  std::vector<int64_t> num;
  if (c->ConstantInputAsInts(2, &num)) {
    if (num[0] <= 0) {
      return InvalidArgument("LinSpace requires num > 0, got ", num[0]);
    }
    c->set_output(0, TensorShape({num[0]}));
  } else {
    c->set_output(0, TensorShape({TensorShape::kUnknownDim}));
  }
  return absl::OkStatus();
}

absl::Status UnravelIndexShape(InferenceContext* c) {
  const TensorShape& indices = c->input(0);
  TensorShape dims;
  DFLOW_RETURN_IF_ERROR(c->WithRank(c->input(1), 1, "input 'dims'", &dims));
  if (!RankKnown(indices)) {
    c->set_output(0, TensorShape::Unknown());
  } else if (indices.rank() == 0) {
    c->set_output(0, TensorShape({dims.dim(0)}));
  } else if (indices.rank() == 1) {
    c->set_output(0, TensorShape({dims.dim(0), indices.dim(0)}));
  } else {
    return InvalidArgument("UnravelIndex's indices must be a scalar or ",
                           "a vector, got shape ", indices.ToString());
  }
  return absl::OkStatus();
}

// y: x's rank, every dimension unknown (which ones shrink depends on the
// axis value); idx and count: vectors.
absl::Status UniqueV2Shape(InferenceContext* c) {
  const TensorShape& x = c->input(0);
  TensorShape y = TensorShape::Unknown();
  if (RankKnown(x)) {
    y = TensorShape(std::vector<int64_t>(x.rank(), TensorShape::kUnknownDim));
  }
  c->set_output(0, y);
  c->set_output(1, TensorShape({TensorShape::kUnknownDim}));
  if (c->num_outputs() > 2) {
    c->set_output(2, TensorShape({TensorShape::kUnknownDim}));
  }
  return absl::OkStatus();
}

absl::Status NthElementShape(InferenceContext* c) {
  TensorShape in, unused;
  DFLOW_RETURN_IF_ERROR(c->WithRankAtLeast(c->input(0), 1, "input", &in));
  DFLOW_RETURN_IF_ERROR(c->WithRank(c->input(1), 0, "input 'n'", &unused));
  if (!RankKnown(in)) {
    c->set_output(0, TensorShape::Unknown());
    return absl::OkStatus();
  }
  const int64_t last = in.dim(in.rank() - 1);
  std::vector<int64_t> n;
  if (c->ConstantInputAsInts(1, &n) && last >= 0 && n[0] >= last) {
    return InvalidArgument("NthElement's input must have last dimension > n = ",
                           n[0], " but has shape ", in.ToString());
  }
  TensorShape out;
  for (int i = 0; i + 1 < in.rank(); ++i) out.AddDim(in.dim(i));
  c->set_output(0, out);
  return absl::OkStatus();
}

absl::Status TopKV1Shape(InferenceContext* c) {
  TensorShape in;
  DFLOW_RETURN_IF_ERROR(c->WithRankAtLeast(c->input(0), 1, "input", &in));
  int64_t k = 0;
  DFLOW_RETURN_IF_ERROR(c->GetAttr("k", &k));
  if (!RankKnown(in)) {
    c->set_output(0, TensorShape::Unknown());
    c->set_output(1, TensorShape::Unknown());
    return absl::OkStatus();
  }
  const int64_t last = in.dim(in.rank() - 1);
  if (last >= 0 && last < k) {
    return InvalidArgument("input must have last dimension >= k = ", k,
                           " but has shape ", in.ToString());
  }
  TensorShape out = in;
  out.set_dim(in.rank() - 1, k);
  c->set_output(0, out);
  c->set_output(1, out);
  return absl::OkStatus();
}

absl::Status InTopKV1Shape(InferenceContext* c) {
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

constexpr char kTopKTypes[] =
    "T: {float, double, int32, uint8, int16, int8, int64, bfloat16, uint16, "
    "half, uint32, uint64}";

DFLOW_REGISTER_OP("LinSpace")
    .Input("start: T")
    .Input("stop: T")
    .Input("num: Tidx")
    .Output("output: T")
    .Attr("T: {bfloat16, half, float, double}")
    .Attr("Tidx: {int32, int64} = DT_INT32")
    .SetShapeFn(LinSpaceShape)
    .Doc("num evenly spaced values from start to stop, both included.");

DFLOW_REGISTER_OP("UnravelIndex")
    .Input("indices: Tidx")
    .Input("dims: Tidx")
    .Output("output: Tidx")
    .Attr("Tidx: {int32, int64} = DT_INT32")
    .SetShapeFn(UnravelIndexShape)
    .Doc("The coordinates in an array of shape dims of flat indices.");

DFLOW_REGISTER_OP("UniqueV2")
    .Input("x: T")
    .Input("axis: Taxis")
    .Output("y: T")
    .Output("idx: out_idx")
    .Attr("T: type")
    .Attr("Taxis: {int32, int64} = DT_INT64")
    .Attr("out_idx: {int32, int64} = DT_INT32")
    .SetShapeFn(UniqueV2Shape)
    .Doc("The distinct slices of x along axis, in order of first occurrence.");

DFLOW_REGISTER_OP("UniqueWithCountsV2")
    .Input("x: T")
    .Input("axis: Taxis")
    .Output("y: T")
    .Output("idx: out_idx")
    .Output("count: out_idx")
    .Attr("T: type")
    .Attr("Taxis: {int32, int64} = DT_INT64")
    .Attr("out_idx: {int32, int64} = DT_INT32")
    .SetShapeFn(UniqueV2Shape)
    .Doc("UniqueV2, and how often each distinct slice occurs.");

DFLOW_REGISTER_OP("NthElement")
    .Input("input: T")
    .Input("n: int32")
    .Output("values: T")
    .Attr("reverse: bool = false")
    .Attr(kTopKTypes)
    .SetShapeFn(NthElementShape)
    .Doc("The n-th smallest (reverse: largest) entry of each last-dimension "
         "row.");

DFLOW_REGISTER_OP("TopK")
    .Input("input: T")
    .Output("values: T")
    .Output("indices: int32")
    .Attr("k: int >= 0")
    .Attr("sorted: bool = true")
    .Attr(kTopKTypes)
    .SetShapeFn(TopKV1Shape)
    .Doc("TopKV2 with k an attr (older graphs).");

DFLOW_REGISTER_OP("InTopK")
    .Input("predictions: float")
    .Input("targets: T")
    .Output("precision: bool")
    .Attr("k: int")
    .Attr("T: {int32, int64} = DT_INT32")
    .SetShapeFn(InTopKV1Shape)
    .Doc("InTopKV2 with k an attr (older graphs).");

}  // namespace

namespace ops {

Output LinSpace(const Scope& scope, Input start, Input stop, Input num) {
  return FirstOutput(OpBuilder(scope, "LinSpace")
                         .Input(start)
                         .Input(stop)
                         .Input(num)
                         .Finalize());
}

Output UnravelIndex(const Scope& scope, Input indices, Input dims) {
  return FirstOutput(
      OpBuilder(scope, "UnravelIndex").Input(indices).Input(dims).Finalize());
}

UniqueOutputs UniqueV2(const Scope& scope, Input x, Input axis,
                       const UniqueAttrs& attrs) {
  OutputList out = AllOutputs(OpBuilder(scope, "UniqueV2")
                                  .Input(x)
                                  .Input(axis)
                                  .Attr("out_idx", attrs.out_idx)
                                  .Finalize(),
                              2);
  return {out[0], out[1]};
}

UniqueWithCountsOutputs UniqueWithCountsV2(const Scope& scope, Input x,
                                           Input axis,
                                           const UniqueAttrs& attrs) {
  OutputList out = AllOutputs(OpBuilder(scope, "UniqueWithCountsV2")
                                  .Input(x)
                                  .Input(axis)
                                  .Attr("out_idx", attrs.out_idx)
                                  .Finalize(),
                              3);
  return {out[0], out[1], out[2]};
}

Output NthElement(const Scope& scope, Input input, Input n, bool reverse) {
  return FirstOutput(OpBuilder(scope, "NthElement")
                         .Input(input)
                         .Input(n)
                         .Attr("reverse", reverse)
                         .Finalize());
}

TopKOutputs TopK(const Scope& scope, Input input, int64_t k, bool sorted) {
  OutputList out = AllOutputs(OpBuilder(scope, "TopK")
                                  .Input(input)
                                  .Attr("k", k)
                                  .Attr("sorted", sorted)
                                  .Finalize(),
                              2);
  return {out[0], out[1]};
}

Output InTopK(const Scope& scope, Input predictions, Input targets,
              int64_t k) {
  return FirstOutput(OpBuilder(scope, "InTopK")
                         .Input(predictions)
                         .Input(targets)
                         .Attr("k", k)
                         .Finalize());
}

}  // namespace ops
}  // namespace dflow
