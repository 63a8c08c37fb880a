// Schemas, shape functions and wrappers of SpaceToDepth and DepthToSpace
// (slicing_ops.h), following TensorFlow 2.21's core/ops/array_ops.cc. Each
// is the other's gradient. The CPU kernels are
// kernels/cpu/slicing_ops_space_depth.cc.
#include <cstdint>
#include <string>

#include "absl/status/status.h"
#include "graph/op_registry.h"
#include "graph/ops/shape_fn_util.h"
#include "graph/ops/slicing_ops.h"
#include "graph/shape_inference.h"
#include "graph/tensor_shape.h"

namespace dflow {
namespace {

using shape_fn_util::FirstOutput;
using shape_fn_util::InvalidArgument;

constexpr int64_t kUnknown = TensorShape::kUnknownDim;

// `to_depth`: SpaceToDepth (height and width shrink by block_size, depth
// grows by its square); otherwise DepthToSpace. Unknown sizes stay unknown.
absl::Status SpaceDepthShape(InferenceContext* c, bool to_depth) {
  std::string format;
  int64_t block = 0;
  DFLOW_RETURN_IF_ERROR(c->GetAttr("data_format", &format));
  DFLOW_RETURN_IF_ERROR(c->GetAttr("block_size", &block));
  if (block < 2) {
    return InvalidArgument("block_size ", block, " must be at least 2");
  }
  const bool vect = format == "NCHW_VECT_C";
  TensorShape in;
  DFLOW_RETURN_IF_ERROR(
      c->WithRank(c->input(0), vect ? 5 : 4, "input 'input'", &in));
  const bool nchw = format != "NHWC";
  const int h = nchw ? 2 : 1, w = nchw ? 3 : 2, d = nchw ? 1 : 3;
  TensorShape out = in;
  const int64_t sq = block * block;
  for (int i : {h, w}) {
    const int64_t v = in.dim(i);
    if (v == kUnknown) continue;
    if (to_depth && v % block != 0) {
      return InvalidArgument("dimension ", i, " of input ", in.ToString(), " (",
                             format, ") must be divisible by block_size ",
                             block);
    }
    out.set_dim(i, to_depth ? v / block : v * block);
  }
  const int64_t depth = in.dim(d);
  if (depth != kUnknown) {
    if (!to_depth && depth % sq != 0) {
      return InvalidArgument(
          "the depth ", depth, " of input ", in.ToString(), " (", format,
          ") must be divisible by block_size * block_size ", sq);
    }
    out.set_dim(d, to_depth ? depth * sq : depth / sq);
  }
  c->set_output(0, out);
  return absl::OkStatus();
}

}  // namespace

DFLOW_REGISTER_OP("SpaceToDepth")
    .Input("input: T")
    .Output("output: T")
    .Attr("T: type")
    .Attr("block_size: int >= 2")
    .Attr("data_format: {'NHWC', 'NCHW', 'NCHW_VECT_C'} = 'NHWC'")
    .SetShapeFn([](InferenceContext* c) { return SpaceDepthShape(c, true); })
    .Doc(
        "Moves block_size x block_size blocks of height and width into the "
        "depth.");

DFLOW_REGISTER_OP("DepthToSpace")
    .Input("input: T")
    .Output("output: T")
    .Attr("T: type")
    .Attr("block_size: int >= 2")
    .Attr("data_format: {'NHWC', 'NCHW', 'NCHW_VECT_C'} = 'NHWC'")
    .SetShapeFn([](InferenceContext* c) { return SpaceDepthShape(c, false); })
    .Doc(
        "SpaceToDepth's inverse: moves depth into block_size x block_size "
        "blocks of height and width.");

namespace ops {

Output SpaceToDepth(const Scope& scope, Input input, int64_t block_size,
                    const std::string& data_format) {
  return FirstOutput(OpBuilder(scope, "SpaceToDepth")
                         .Input(input)
                         .Attr("block_size", block_size)
                         .Attr("data_format", data_format)
                         .Finalize());
}

Output DepthToSpace(const Scope& scope, Input input, int64_t block_size,
                    const std::string& data_format) {
  return FirstOutput(OpBuilder(scope, "DepthToSpace")
                         .Input(input)
                         .Attr("block_size", block_size)
                         .Attr("data_format", data_format)
                         .Finalize());
}

}  // namespace ops
}  // namespace dflow
