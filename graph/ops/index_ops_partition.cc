// Schema, shape function and wrapper of DynamicPartition (index_ops.h),
// following TensorFlow 2.21's core/ops/data_flow_ops.cc. Its inverse,
// DynamicStitch, is in index_ops.cc; the CPU kernel is
// kernels/cpu/index_ops_partition.cc.
#include <cstdint>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "graph/op_registry.h"
#include "graph/ops/index_ops.h"
#include "graph/ops/shape_fn_util.h"
#include "graph/shape_inference.h"
#include "graph/tensor_shape.h"

namespace dflow {
namespace {

using shape_fn_util::AllOutputs;
using shape_fn_util::RankKnown;

// Each output: [?] + data.shape[rank(partitions):]; how many rows go to a
// partition is a run-time value.
absl::Status DynamicPartitionShape(InferenceContext* c) {
  const TensorShape& data = c->input(0);
  const TensorShape& partitions = c->input(1);
  TensorShape out = TensorShape::Unknown();
  if (RankKnown(data) && RankKnown(partitions)) {
    if (partitions.rank() > data.rank()) {
      return shape_fn_util::InvalidArgument(
          "partitions.shape = ", partitions.ToString(),
          " must be a prefix of data.shape = ", data.ToString());
    }
    for (int i = 0; i < partitions.rank(); ++i) {
      int64_t d;
      DFLOW_RETURN_IF_ERROR(c->MergeDim(
          data.dim(i), partitions.dim(i),
          absl::StrCat("partitions.shape = ", partitions.ToString(),
                       " must be a prefix of data.shape = ", data.ToString()),
          &d));
    }
    out = TensorShape({TensorShape::kUnknownDim});
    for (int i = partitions.rank(); i < data.rank(); ++i) {
      out.AddDim(data.dim(i));
    }
  }
  for (int p = 0; p < c->num_outputs(); ++p) c->set_output(p, out);
  return absl::OkStatus();
}

}  // namespace

DFLOW_REGISTER_OP("DynamicPartition")
    .Input("data: T")
    .Input("partitions: int32")
    .Output("outputs: num_partitions * T")
    .Attr("num_partitions: int >= 1")
    .Attr("T: type")
    .SetShapeFn(DynamicPartitionShape)
    .Doc("Splits data's slices into num_partitions tensors by partitions.");

namespace ops {

OutputList DynamicPartition(const Scope& scope, Input data, Input partitions,
                            int num_partitions) {
  return AllOutputs(OpBuilder(scope, "DynamicPartition")
                        .Input(data)
                        .Input(partitions)
                        .Attr("num_partitions", num_partitions)
                        .Finalize(),
                    num_partitions);
}

}  // namespace ops
}  // namespace dflow
