// Schemas, shape functions and wrappers of SpaceToBatchND and
// BatchToSpaceND (slicing_ops.h), following TensorFlow 2.21's
// core/ops/array_ops.cc. TensorFlow writes them around convolutions and
// pooling with dilations (tf.nn.convolution, atrous conv, conv1d); each is
// the other's gradient. The CPU kernels are
// kernels/cpu/slicing_ops_space_batch.cc.
#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "graph/op_registry.h"
#include "graph/ops/shape_fn_util.h"
#include "graph/ops/slicing_ops.h"
#include "graph/shape_inference.h"
#include "graph/tensor_shape.h"

namespace dflow {
namespace {

using shape_fn_util::FirstOutput;
using shape_fn_util::Ints;
using shape_fn_util::InvalidArgument;
using shape_fn_util::RankKnown;

constexpr int64_t kUnknown = TensorShape::kUnknownDim;

// Shared by both ops: `to_batch` for SpaceToBatchND (input 2 is paddings),
// otherwise BatchToSpaceND (input 2 is crops). The batch is known once
// block_shape is; the spatial sizes once the pads or crops are too.
absl::Status SpaceBatchShape(InferenceContext* c, bool to_batch) {
  const char* pads_name = to_batch ? "paddings" : "crops";
  TensorShape block_shape_shape, pads_shape;
  DFLOW_RETURN_IF_ERROR(
      c->WithRank(c->input(1), 1, "input 'block_shape'", &block_shape_shape));
  DFLOW_RETURN_IF_ERROR(c->WithRank(
      c->input(2), 2, absl::StrCat("input '", pads_name, "'"), &pads_shape));
  int64_t m = block_shape_shape.dim(0);
  DFLOW_RETURN_IF_ERROR(c->MergeDim(
      m, pads_shape.dim(0),
      absl::StrCat("length of block_shape and rows of ", pads_name), &m));
  if (pads_shape.dim(1) >= 0 && pads_shape.dim(1) != 2) {
    return InvalidArgument(pads_name, " of shape ", pads_shape.ToString(),
                           " must have 2 columns (start, end)");
  }
  const TensorShape& in = c->input(0);
  if (!RankKnown(in)) {
    c->set_output(0, TensorShape::Unknown());
    return absl::OkStatus();
  }
  if (m >= 0 && in.rank() < m + 1) {
    return InvalidArgument("input ", in.ToString(),
                           " must have rank >= ", m + 1, " (a batch and the ",
                           m, " block dimensions)");
  }
  TensorShape out = in;
  std::vector<int64_t> block, pads;
  if (!c->ConstantInputAsInts(1, &block)) {
    for (int i = 0; i < (m >= 0 ? m + 1 : in.rank()); ++i) {
      out.set_dim(i, kUnknown);
    }
    c->set_output(0, out);
    return absl::OkStatus();
  }
  m = static_cast<int64_t>(block.size());
  int64_t block_size = 1;
  for (int64_t b : block) {
    if (b < 1) {
      return InvalidArgument("block_shape ", Ints(block), " must be positive");
    }
    block_size *= b;
  }
  const int64_t batch = in.dim(0);
  if (to_batch) {
    out.set_dim(0, batch >= 0 ? batch * block_size : kUnknown);
  } else if (batch >= 0) {
    if (batch % block_size != 0) {
      return InvalidArgument("the batch ", batch, " of input ", in.ToString(),
                             " must be divisible by the product of ",
                             "block_shape ", Ints(block), " (", block_size,
                             ")");
    }
    out.set_dim(0, batch / block_size);
  }
  const bool pads_known = c->ConstantInputAsInts(2, &pads) &&
                          static_cast<int64_t>(pads.size()) == 2 * m;
  for (int i = 0; i < m; ++i) {
    const int64_t d = in.dim(i + 1);
    int64_t size = kUnknown;
    if (pads_known) {
      const int64_t start = pads[2 * i], end = pads[2 * i + 1];
      if (start < 0 || end < 0) {
        return InvalidArgument(pads_name, " ", Ints(pads),
                               " must be non-negative");
      }
      if (d >= 0 && to_batch) {
        const int64_t padded = d + start + end;
        if (padded % block[i] != 0) {
          return InvalidArgument("dimension ", i + 1, " of input ",
                                 in.ToString(), " padded to ", padded,
                                 " must be divisible by block_shape[", i,
                                 "] = ", block[i]);
        }
        size = padded / block[i];
      } else if (d >= 0) {
        size = d * block[i] - start - end;
        if (size < 0) {
          return InvalidArgument("crops ", Ints(pads), " remove more than ",
                                 "dimension ", i + 1, " of the result (",
                                 d * block[i], ")");
        }
      }
    }
    out.set_dim(i + 1, size);
  }
  c->set_output(0, out);
  return absl::OkStatus();
}

absl::Status SpaceToBatchNDShape(InferenceContext* c) {
  return SpaceBatchShape(c, /*to_batch=*/true);
}

absl::Status BatchToSpaceNDShape(InferenceContext* c) {
  return SpaceBatchShape(c, /*to_batch=*/false);
}

}  // namespace

DFLOW_REGISTER_OP("SpaceToBatchND")
    .Input("input: T")
    .Input("block_shape: Tblock_shape")
    .Input("paddings: Tpaddings")
    .Output("output: T")
    .Attr("T: type")
    .Attr("Tblock_shape: {int32, int64} = DT_INT32")
    .Attr("Tpaddings: {int32, int64} = DT_INT32")
    .SetShapeFn(SpaceToBatchNDShape)
    .Doc(
        "Zero-pads the block dimensions, then moves the offsets within each "
        "block of block_shape into the batch.");

DFLOW_REGISTER_OP("BatchToSpaceND")
    .Input("input: T")
    .Input("block_shape: Tblock_shape")
    .Input("crops: Tcrops")
    .Output("output: T")
    .Attr("T: type")
    .Attr("Tblock_shape: {int32, int64} = DT_INT32")
    .Attr("Tcrops: {int32, int64} = DT_INT32")
    .SetShapeFn(BatchToSpaceNDShape)
    .Doc(
        "SpaceToBatchND's inverse: moves batch blocks back into the block "
        "dimensions, then removes crops.");

namespace ops {

Output SpaceToBatchND(const Scope& scope, Input input, Input block_shape,
                      Input paddings) {
  return FirstOutput(OpBuilder(scope, "SpaceToBatchND")
                         .Input(input)
                         .Input(block_shape)
                         .Input(paddings)
                         .Finalize());
}

Output BatchToSpaceND(const Scope& scope, Input input, Input block_shape,
                      Input crops) {
  return FirstOutput(OpBuilder(scope, "BatchToSpaceND")
                         .Input(input)
                         .Input(block_shape)
                         .Input(crops)
                         .Finalize());
}

}  // namespace ops
}  // namespace dflow
