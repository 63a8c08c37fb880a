// Schemas, shape functions and builder wrappers of the optimizer update ops,
// as in TensorFlow's `core/ops/training_ops.cc`.
//
// The Apply* ops (reference variables) are declared like Assign: not
// stateful, as in TensorFlow. Their reference input already ties them to the
// variable, and a pass that merges or folds nodes must leave nodes with
// reference inputs alone (two identical updates are two updates). The
// ResourceApply* ops are stateful, as TensorFlow's op builder makes every op
// with a resource input: they have no outputs, and nothing else in their
// signature says they change something.
#include "graph/ops/training_ops.h"

#include <initializer_list>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "graph/op_registry.h"
#include "graph/ops/shape_fn_util.h"
#include "graph/shape_inference.h"
#include "graph/types.h"

namespace dflow {
namespace {

using shape_fn_util::FirstOutput;

// What is known of the shape of the variable or tensor input `i`: a
// resource handle carries its variable's shape as its shape value (see
// VarHandleOp); reference and value inputs have it as their shape.
const TensorShape& ShapeOfInput(const InferenceContext& c, int i) {
  return c.input_type(i) == DT_RESOURCE ? c.input_shape_value(i) : c.input(i);
}

// The shape function of every Apply op: the inputs in `same` (the variable,
// its slots, the gradient) have one shape, which a reference op returns; the
// inputs in `scalars` (learning rate & co.) are scalars.
absl::Status ApplyShape(InferenceContext* c, std::initializer_list<int> same,
                        std::initializer_list<int> scalars) {
  for (int i : scalars) {
    const TensorShape& s = c->input(i);
    if (!s.unknown_rank() && s.rank() != 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("input '", c->op_def().input_arg(i).name(),
                       "' must be a scalar but has shape ", s.ToString()));
    }
  }
  TensorShape merged = TensorShape::Unknown();
  bool compatible = true;
  for (int i : same) {
    absl::StatusOr<TensorShape> m = merged.Merge(ShapeOfInput(*c, i));
    if (!m.ok()) {
      compatible = false;
      break;
    }
    merged = *std::move(m);
  }
  if (!compatible) {
    std::vector<std::string> shapes;
    for (int i : same) {
      shapes.push_back(absl::StrCat("'", c->op_def().input_arg(i).name(),
                                    "' is ", ShapeOfInput(*c, i).ToString()));
    }
    return absl::InvalidArgumentError(absl::StrCat(
        "the variable, its slots and the update must have one shape, but ",
        absl::StrJoin(shapes, ", ")));
  }
  if (c->num_outputs() > 0) c->set_output(0, merged);
  return absl::OkStatus();
}

// Input indices: var 0; GradientDescent alpha 1, delta 2; Momentum accum 1,
// lr 2, grad 3, momentum 4; Adam m 1, v 2, beta1_power..epsilon 3..8, grad 9.
absl::Status GradientDescentShape(InferenceContext* c) {
  return ApplyShape(c, {0, 2}, {1});
}
absl::Status MomentumShape(InferenceContext* c) {
  return ApplyShape(c, {0, 1, 3}, {2, 4});
}
absl::Status AdamShape(InferenceContext* c) {
  return ApplyShape(c, {0, 1, 2, 9}, {3, 4, 5, 6, 7, 8});
}

DFLOW_REGISTER_OP("ApplyGradientDescent")
    .Input("var: Ref(T)")
    .Input("alpha: T")
    .Input("delta: T")
    .Output("out: Ref(T)")
    .Attr("T: numbertype")
    .Attr("use_locking: bool = false")
    .SetShapeFn(GradientDescentShape)
    .Doc("var -= alpha * delta.");

DFLOW_REGISTER_OP("ResourceApplyGradientDescent")
    .Input("var: resource")
    .Input("alpha: T")
    .Input("delta: T")
    .Attr("T: numbertype")
    .Attr("use_locking: bool = false")
    .SetIsStateful()
    .SetShapeFn(GradientDescentShape)
    .Doc("var -= alpha * delta, on a resource variable.");

DFLOW_REGISTER_OP("ApplyMomentum")
    .Input("var: Ref(T)")
    .Input("accum: Ref(T)")
    .Input("lr: T")
    .Input("grad: T")
    .Input("momentum: T")
    .Output("out: Ref(T)")
    .Attr("T: numbertype")
    .Attr("use_locking: bool = false")
    .Attr("use_nesterov: bool = false")
    .SetShapeFn(MomentumShape)
    .Doc("accum = accum * momentum + grad; var -= lr * accum.");

DFLOW_REGISTER_OP("ResourceApplyMomentum")
    .Input("var: resource")
    .Input("accum: resource")
    .Input("lr: T")
    .Input("grad: T")
    .Input("momentum: T")
    .Attr("T: numbertype")
    .Attr("use_locking: bool = false")
    .Attr("use_nesterov: bool = false")
    .SetIsStateful()
    .SetShapeFn(MomentumShape)
    .Doc("ApplyMomentum on resource variables.");

DFLOW_REGISTER_OP("ApplyAdam")
    .Input("var: Ref(T)")
    .Input("m: Ref(T)")
    .Input("v: Ref(T)")
    .Input("beta1_power: T")
    .Input("beta2_power: T")
    .Input("lr: T")
    .Input("beta1: T")
    .Input("beta2: T")
    .Input("epsilon: T")
    .Input("grad: T")
    .Output("out: Ref(T)")
    .Attr("T: numbertype")
    .Attr("use_locking: bool = false")
    .Attr("use_nesterov: bool = false")
    .SetShapeFn(AdamShape)
    .Doc("One Adam step on var with moments m and v.");

DFLOW_REGISTER_OP("ResourceApplyAdam")
    .Input("var: resource")
    .Input("m: resource")
    .Input("v: resource")
    .Input("beta1_power: T")
    .Input("beta2_power: T")
    .Input("lr: T")
    .Input("beta1: T")
    .Input("beta2: T")
    .Input("epsilon: T")
    .Input("grad: T")
    .Attr("T: numbertype")
    .Attr("use_locking: bool = false")
    .Attr("use_nesterov: bool = false")
    .SetIsStateful()
    .SetShapeFn(AdamShape)
    .Doc("ApplyAdam on resource variables.");

}  // namespace

namespace ops {

Output ApplyGradientDescent(const Scope& scope, Input var, Input alpha,
                            Input delta,
                            const ApplyGradientDescentAttrs& attrs) {
  return FirstOutput(OpBuilder(scope, "ApplyGradientDescent")
                         .Input(var)
                         .Input(alpha)
                         .Input(delta)
                         .Attr("use_locking", attrs.use_locking)
                         .Finalize());
}

Operation ResourceApplyGradientDescent(
    const Scope& scope, Input var, Input alpha, Input delta,
    const ResourceApplyGradientDescentAttrs& attrs) {
  return OpBuilder(scope, "ResourceApplyGradientDescent")
      .Input(var)
      .Input(alpha)
      .Input(delta)
      .Attr("use_locking", attrs.use_locking)
      .Finalize();
}

Output ApplyMomentum(const Scope& scope, Input var, Input accum, Input lr,
                     Input grad, Input momentum,
                     const ApplyMomentumAttrs& attrs) {
  return FirstOutput(OpBuilder(scope, "ApplyMomentum")
                         .Input(var)
                         .Input(accum)
                         .Input(lr)
                         .Input(grad)
                         .Input(momentum)
                         .Attr("use_locking", attrs.use_locking)
                         .Attr("use_nesterov", attrs.use_nesterov)
                         .Finalize());
}

Operation ResourceApplyMomentum(const Scope& scope, Input var, Input accum,
                                Input lr, Input grad, Input momentum,
                                const ResourceApplyMomentumAttrs& attrs) {
  return OpBuilder(scope, "ResourceApplyMomentum")
      .Input(var)
      .Input(accum)
      .Input(lr)
      .Input(grad)
      .Input(momentum)
      .Attr("use_locking", attrs.use_locking)
      .Attr("use_nesterov", attrs.use_nesterov)
      .Finalize();
}

Output ApplyAdam(const Scope& scope, Input var, Input m, Input v,
                 Input beta1_power, Input beta2_power, Input lr, Input beta1,
                 Input beta2, Input epsilon, Input grad,
                 const ApplyAdamAttrs& attrs) {
  return FirstOutput(OpBuilder(scope, "ApplyAdam")
                         .Input(var)
                         .Input(m)
                         .Input(v)
                         .Input(beta1_power)
                         .Input(beta2_power)
                         .Input(lr)
                         .Input(beta1)
                         .Input(beta2)
                         .Input(epsilon)
                         .Input(grad)
                         .Attr("use_locking", attrs.use_locking)
                         .Attr("use_nesterov", attrs.use_nesterov)
                         .Finalize());
}

Operation ResourceApplyAdam(const Scope& scope, Input var, Input m, Input v,
                            Input beta1_power, Input beta2_power, Input lr,
                            Input beta1, Input beta2, Input epsilon, Input grad,
                            const ResourceApplyAdamAttrs& attrs) {
  return OpBuilder(scope, "ResourceApplyAdam")
      .Input(var)
      .Input(m)
      .Input(v)
      .Input(beta1_power)
      .Input(beta2_power)
      .Input(lr)
      .Input(beta1)
      .Input(beta2)
      .Input(epsilon)
      .Input(grad)
      .Attr("use_locking", attrs.use_locking)
      .Attr("use_nesterov", attrs.use_nesterov)
      .Finalize();
}

}  // namespace ops
}  // namespace dflow
