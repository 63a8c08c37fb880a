// Schemas, shape functions and builder wrappers of the collective ops (see
// collective_ops.h). The keys are int attrs rather than TensorFlow V2's
// tensor inputs: dflow fixes every collective when the graph is built.
//
// Stateful: a collective's effect is on the other members, which nothing in
// its signature shows. Two members with equal inputs on one device must stay
// two nodes, and no pass may fold or drop one member and not the others.
#include "graph/ops/collective_ops.h"

#include <cmath>
#include <string>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "graph/op_registry.h"
#include "graph/ops/shape_fn_util.h"
#include "graph/shape_inference.h"

namespace dflow {

absl::Status CheckCollectiveTimeout(float seconds) {
  // Written so that NaN fails too (every comparison with NaN is false).
  if (std::isfinite(seconds) && seconds >= kMinCollectiveTimeoutSeconds &&
      seconds <= kMaxCollectiveTimeoutSeconds) {
    return absl::OkStatus();
  }
  return absl::InvalidArgumentError(absl::StrCat(
      "attr 'timeout_seconds' is ", seconds, "; it must be a finite number of ",
      "seconds from ", kMinCollectiveTimeoutSeconds, " to ",
      kMaxCollectiveTimeoutSeconds,
      " (how long a member waits for the rest of its group before the step ",
      "fails)"));
}

namespace {

using shape_fn_util::FirstOutput;

// `fn` after checking timeout_seconds, so a bad value fails the import
// rather than the step that waits.
ShapeFn WithTimeoutCheck(ShapeFn fn) {
  return [fn = std::move(fn)](InferenceContext* c) -> absl::Status {
    float seconds = 0;
    if (absl::Status s = c->GetAttr("timeout_seconds", &seconds); !s.ok()) {
      return s;
    }
    if (absl::Status s = CheckCollectiveTimeout(seconds); !s.ok()) return s;
    return fn(c);
  };
}

absl::Status AllGatherShape(InferenceContext* c) {
  int64_t group_size = 0;
  if (absl::Status s = c->GetAttr("group_size", &group_size); !s.ok()) {
    return s;
  }
  const TensorShape& in = c->input(0);
  if (in.unknown_rank()) {
    c->set_output(0, TensorShape::Unknown());
    return absl::OkStatus();
  }
  if (in.rank() == 0) {
    return absl::InvalidArgumentError(
        "input 'input' must have rank >= 1 to be gathered along dimension 0, "
        "but it is a scalar; reshape it to [1] first");
  }
  TensorShape out = in;
  if (in.dim(0) != TensorShape::kUnknownDim) {
    out.set_dim(0, in.dim(0) * group_size);
  }
  c->set_output(0, std::move(out));
  return absl::OkStatus();
}

absl::Status BroadcastRecvShape(InferenceContext* c) {
  TensorShape shape;
  if (absl::Status s = c->GetAttr("shape", &shape); !s.ok()) return s;
  if (!shape.IsFullyDefined()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "attr 'shape' ", shape.ToString(),
        " must be fully defined: a receiver allocates its output before the "
        "sender's tensor arrives"));
  }
  c->set_output(0, std::move(shape));
  return absl::OkStatus();
}

// A collective op's schema with the attrs every collective shares.
OpDefBuilder CollectiveOp(std::string name) {
  OpDefBuilder b(std::move(name));
  b.Attr("T: {float, double, int32, int64}")
      .Attr("group_size: int >= 1")
      .Attr("group_key: int")
      .Attr("instance_key: int")
      .Attr("communication_hint: {'auto', 'ring', 'nccl'} = 'auto'")
      .Attr("timeout_seconds: float = 60")
      .SetIsStateful();
  return b;
}

using op_registry_internal::OpRegistrar;

const OpRegistrar kAllReduce =
    CollectiveOp("CollectiveAllReduce")
        .Input("input: T")
        .Output("data: T")
        .Attr("reduction: {'sum', 'mean', 'max'} = 'sum'")
        .SetShapeFn(WithTimeoutCheck(
            [](InferenceContext* c) { return c->PassThrough(); }))
        .Doc(
            "Reduces input element-wise over a group of devices; every "
            "member gets the result.");

const OpRegistrar kAllGather =
    CollectiveOp("CollectiveAllGather")
        .Input("input: T")
        .Output("data: T")
        .SetShapeFn(WithTimeoutCheck(AllGatherShape))
        .Doc(
            "Concatenates the members' inputs along dimension 0 in rank "
            "order; every member gets the result.");

const OpRegistrar kBroadcastSend =
    CollectiveOp("CollectiveBroadcastSend")
        .Input("input: T")
        .Output("data: T")
        .SetShapeFn(WithTimeoutCheck(
            [](InferenceContext* c) { return c->PassThrough(); }))
        .Doc("Sends input to every other member of the group.");

const OpRegistrar kBroadcastRecv =
    CollectiveOp("CollectiveBroadcastRecv")
        .Output("data: T")
        .Attr("shape: shape")
        .SetShapeFn(WithTimeoutCheck(BroadcastRecvShape))
        .Doc("Receives the tensor the group's CollectiveBroadcastSend sends.");

// A collective node of `op` with the keys and shared attrs set.
OpBuilder CollectiveBuilder(const Scope& scope, absl::string_view op,
                            int64_t group_size, int64_t group_key,
                            int64_t instance_key,
                            const ops::CollectiveAttrs& attrs) {
  OpBuilder b(scope, op);
  b.Attr("group_size", group_size)
      .Attr("group_key", group_key)
      .Attr("instance_key", instance_key)
      .Attr("communication_hint", attrs.communication_hint)
      .Attr("timeout_seconds", attrs.timeout_seconds);
  return b;
}

}  // namespace

namespace ops {

Output CollectiveAllReduce(const Scope& scope, Input input, int64_t group_size,
                           int64_t group_key, int64_t instance_key,
                           absl::string_view reduction,
                           const CollectiveAttrs& attrs) {
  return FirstOutput(CollectiveBuilder(scope, "CollectiveAllReduce", group_size,
                                       group_key, instance_key, attrs)
                         .Input(input)
                         .Attr("reduction", reduction)
                         .Finalize());
}

Output CollectiveAllGather(const Scope& scope, Input input, int64_t group_size,
                           int64_t group_key, int64_t instance_key,
                           const CollectiveAttrs& attrs) {
  return FirstOutput(CollectiveBuilder(scope, "CollectiveAllGather", group_size,
                                       group_key, instance_key, attrs)
                         .Input(input)
                         .Finalize());
}

Output CollectiveBroadcastSend(const Scope& scope, Input input,
                               int64_t group_size, int64_t group_key,
                               int64_t instance_key,
                               const CollectiveAttrs& attrs) {
  return FirstOutput(CollectiveBuilder(scope, "CollectiveBroadcastSend",
                                       group_size, group_key, instance_key,
                                       attrs)
                         .Input(input)
                         .Finalize());
}

Output CollectiveBroadcastRecv(const Scope& scope, DataType dtype,
                               const TensorShape& shape, int64_t group_size,
                               int64_t group_key, int64_t instance_key,
                               const CollectiveAttrs& attrs) {
  return FirstOutput(CollectiveBuilder(scope, "CollectiveBroadcastRecv",
                                       group_size, group_key, instance_key,
                                       attrs)
                         .Attr("T", dtype)
                         .Attr("shape", shape)
                         .Finalize());
}

}  // namespace ops
}  // namespace dflow
