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
#include "absl/strings/match.h"
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
// AdamWithAmsgrad: vhat 3, the scalars 4..9, grad 10. AdaMax: m 1, v 2,
// beta1_power, lr, beta1, beta2, epsilon 3..7, grad 8.
absl::Status AdamWithAmsgradShape(InferenceContext* c) {
  return ApplyShape(c, {0, 1, 2, 3, 10}, {4, 5, 6, 7, 8, 9});
}
absl::Status AdaMaxShape(InferenceContext* c) {
  return ApplyShape(c, {0, 1, 2, 8}, {3, 4, 5, 6, 7});
}

// Adagrad: var 0, accum 1, lr 2, grad 3. AdagradV2: epsilon 3, grad 4.
// RMSProp: var 0, ms 1, mom 2, lr..epsilon 3..6, grad 7. CenteredRMSProp:
// var 0, mg 1, ms 2, mom 3, lr..epsilon 4..7, grad 8.
absl::Status AdagradShape(InferenceContext* c) {
  return ApplyShape(c, {0, 1, 3}, {2});
}
absl::Status AdagradV2Shape(InferenceContext* c) {
  return ApplyShape(c, {0, 1, 4}, {2, 3});
}
absl::Status RMSPropShape(InferenceContext* c) {
  return ApplyShape(c, {0, 1, 2, 7}, {3, 4, 5, 6});
}
absl::Status CenteredRMSPropShape(InferenceContext* c) {
  return ApplyShape(c, {0, 1, 2, 3, 8}, {4, 5, 6, 7});
}

// The sparse forms: the variable and its slots share a shape; `grad` holds
// one row per index: grad.shape == [len(indices)] + var.shape[1:].
absl::Status SparseApplyShape(InferenceContext* c,
                              std::initializer_list<int> vars,
                              std::initializer_list<int> scalars, int grad,
                              int indices) {
  DFLOW_RETURN_IF_ERROR(ApplyShape(c, vars, scalars));
  const TensorShape& var = ShapeOfInput(*c, *vars.begin());
  const TensorShape& g = c->input(grad);
  const TensorShape& idx = c->input(indices);
  if (!idx.unknown_rank() && idx.rank() != 1) {
    return absl::InvalidArgumentError(absl::StrCat(
        "'indices' must be a vector but has shape ", idx.ToString()));
  }
  if (!g.unknown_rank() && g.rank() < 1) {
    return absl::InvalidArgumentError(
        "'grad' must have at least one dimension");
  }
  if (!g.unknown_rank() && !var.unknown_rank()) {
    bool ok = g.rank() == var.rank();
    for (int i = 1; ok && i < g.rank(); ++i) {
      ok = g.dim(i) < 0 || var.dim(i) < 0 || g.dim(i) == var.dim(i);
    }
    if (!ok) {
      return absl::InvalidArgumentError(absl::StrCat(
          "'grad' ", g.ToString(), " must have the variable's shape ",
          var.ToString(), " past its first dimension"));
    }
  }
  if (!g.unknown_rank() && !idx.unknown_rank() && g.dim(0) >= 0 &&
      idx.dim(0) >= 0 && g.dim(0) != idx.dim(0)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "'grad' ", g.ToString(), " must have one row per index, but there are ",
        idx.dim(0), " indices"));
  }
  return absl::OkStatus();  // ApplyShape set the output (the variable)
}
// SparseApplyAdagrad: var 0, accum 1, lr 2, grad 3, indices 4.
// SparseApplyMomentum: the same, momentum 5. SparseApplyRMSProp: var 0,
// ms 1, mom 2, lr..epsilon 3..6, grad 7, indices 8.
absl::Status SparseAdagradShape(InferenceContext* c) {
  return SparseApplyShape(c, {0, 1}, {2}, 3, 4);
}
absl::Status SparseMomentumShape(InferenceContext* c) {
  return SparseApplyShape(c, {0, 1}, {2, 5}, 3, 4);
}
absl::Status SparseRMSPropShape(InferenceContext* c) {
  return SparseApplyShape(c, {0, 1, 2}, {3, 4, 5, 6}, 7, 8);
}
// SparseApplyCenteredRMSProp: var 0, mg 1, ms 2, mom 3, lr..epsilon 4..7,
// grad 8, indices 9. SparseApplyAdagradV2: var 0, accum 1, lr 2,
// epsilon 3, grad 4, indices 5.
absl::Status SparseCenteredRMSPropShape(InferenceContext* c) {
  return SparseApplyShape(c, {0, 1, 2, 3}, {4, 5, 6, 7}, 8, 9);
}
absl::Status SparseAdagradV2Shape(InferenceContext* c) {
  return SparseApplyShape(c, {0, 1}, {2, 3}, 4, 5);
}

// Adadelta: var 0, accum 1, accum_update 2, lr rho epsilon 3..5, grad 6,
// indices 7. ProximalAdagrad: var 0, accum 1, lr l1 l2 2..4, grad 5,
// indices 6. ProximalGradientDescent: var 0, alpha l1 l2 1..3, delta/grad 4,
// indices 5. Ftrl(V2) and AdagradDA put grad (and indices) before the
// scalars: var 0, two slots 1..2, grad 3, then the dense scalars from 4
// and the sparse ones from 5 (indices 4).
absl::Status AdadeltaShape(InferenceContext* c) {
  return ApplyShape(c, {0, 1, 2, 6}, {3, 4, 5});
}
absl::Status SparseAdadeltaShape(InferenceContext* c) {
  return SparseApplyShape(c, {0, 1, 2}, {3, 4, 5}, 6, 7);
}
absl::Status ProximalAdagradShape(InferenceContext* c) {
  return ApplyShape(c, {0, 1, 5}, {2, 3, 4});
}
absl::Status SparseProximalAdagradShape(InferenceContext* c) {
  return SparseApplyShape(c, {0, 1}, {2, 3, 4}, 5, 6);
}
absl::Status ProximalGradientDescentShape(InferenceContext* c) {
  return ApplyShape(c, {0, 4}, {1, 2, 3});
}
absl::Status SparseProximalGradientDescentShape(InferenceContext* c) {
  return SparseApplyShape(c, {0}, {1, 2, 3}, 4, 5);
}
// Ftrl and AdagradDA have four scalars (lr, l1, l2, lr_power or
// global_step), FtrlV2 five (l2_shrinkage before lr_power).
absl::Status FtrlShape(InferenceContext* c) {
  return ApplyShape(c, {0, 1, 2, 3}, {4, 5, 6, 7});
}
absl::Status SparseFtrlShape(InferenceContext* c) {
  return SparseApplyShape(c, {0, 1, 2}, {5, 6, 7, 8}, 3, 4);
}
absl::Status FtrlV2Shape(InferenceContext* c) {
  return ApplyShape(c, {0, 1, 2, 3}, {4, 5, 6, 7, 8});
}
absl::Status SparseFtrlV2Shape(InferenceContext* c) {
  return SparseApplyShape(c, {0, 1, 2}, {5, 6, 7, 8, 9}, 3, 4);
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

// The reference ([Sparse]Apply*) and resource (Resource[Sparse]Apply*)
// forms of one optimizer, registered from one table: `inputs` are the
// argument names in TensorFlow's order; the first `num_vars` are the
// variables (Ref(T) or resource), "indices" is Tindices, "global_step"
// (AdagradDA's) is int64, the rest are T.
struct OptimizerSchema {
  const char* name;
  std::vector<const char*> inputs;
  int num_vars;
  std::vector<const char*> attrs;  // beyond T and use_locking
  bool sparse;
  absl::Status (*shape_fn)(InferenceContext*);
  // Keras's momentum and Adam with AMSGrad exist in the resource forms
  // only.
  bool resource_only = false;
};

const bool kRegisteredOptimizers = [] {
  const std::vector<OptimizerSchema> schemas = {
      {"Adagrad",
       {"var", "accum", "lr", "grad"},
       2,
       {"update_slots: bool = true"},
       false,
       AdagradShape},
      {"AdagradV2",
       {"var", "accum", "lr", "epsilon", "grad"},
       2,
       {"update_slots: bool = true"},
       false,
       AdagradV2Shape},
      {"RMSProp",
       {"var", "ms", "mom", "lr", "rho", "momentum", "epsilon", "grad"},
       3,
       {},
       false,
       RMSPropShape},
      {"CenteredRMSProp",
       {"var", "mg", "ms", "mom", "lr", "rho", "momentum", "epsilon", "grad"},
       4,
       {},
       false,
       CenteredRMSPropShape},
      {"Adagrad",
       {"var", "accum", "lr", "grad", "indices"},
       2,
       {"update_slots: bool = true"},
       true,
       SparseAdagradShape},
      {"Momentum",
       {"var", "accum", "lr", "grad", "indices", "momentum"},
       2,
       {"use_nesterov: bool = false"},
       true,
       SparseMomentumShape},
      {"AdaMax",
       {"var", "m", "v", "beta1_power", "lr", "beta1", "beta2", "epsilon",
        "grad"},
       3,
       {},
       false,
       AdaMaxShape},
      {"AdamWithAmsgrad",
       {"var", "m", "v", "vhat", "beta1_power", "beta2_power", "lr", "beta1",
        "beta2", "epsilon", "grad"},
       4,
       {},
       false,
       AdamWithAmsgradShape,
       true},
      // Keras's SGD with momentum: accum = accum * momentum - lr * grad;
      // var += accum (nesterov: var += accum * momentum - lr * grad).
      {"KerasMomentum",
       {"var", "accum", "lr", "grad", "momentum"},
       2,
       {"use_nesterov: bool = false"},
       false,
       MomentumShape,
       true},
      {"KerasMomentum",
       {"var", "accum", "lr", "grad", "indices", "momentum"},
       2,
       {"use_nesterov: bool = false"},
       true,
       SparseMomentumShape,
       true},
      {"RMSProp",
       {"var", "ms", "mom", "lr", "rho", "momentum", "epsilon", "grad",
        "indices"},
       3,
       {},
       true,
       SparseRMSPropShape},
      {"CenteredRMSProp",
       {"var", "mg", "ms", "mom", "lr", "rho", "momentum", "epsilon", "grad",
        "indices"},
       4,
       {},
       true,
       SparseCenteredRMSPropShape},
      {"AdagradV2",
       {"var", "accum", "lr", "epsilon", "grad", "indices"},
       2,
       {"update_slots: bool = true"},
       true,
       SparseAdagradV2Shape},
      {"Adadelta",
       {"var", "accum", "accum_update", "lr", "rho", "epsilon", "grad"},
       3,
       {},
       false,
       AdadeltaShape},
      {"Adadelta",
       {"var", "accum", "accum_update", "lr", "rho", "epsilon", "grad",
        "indices"},
       3,
       {},
       true,
       SparseAdadeltaShape},
      {"ProximalAdagrad",
       {"var", "accum", "lr", "l1", "l2", "grad"},
       2,
       {},
       false,
       ProximalAdagradShape},
      {"ProximalAdagrad",
       {"var", "accum", "lr", "l1", "l2", "grad", "indices"},
       2,
       {},
       true,
       SparseProximalAdagradShape},
      {"ProximalGradientDescent",
       {"var", "alpha", "l1", "l2", "delta"},
       1,
       {},
       false,
       ProximalGradientDescentShape},
      {"ProximalGradientDescent",
       {"var", "alpha", "l1", "l2", "grad", "indices"},
       1,
       {},
       true,
       SparseProximalGradientDescentShape},
      {"Ftrl",
       {"var", "accum", "linear", "grad", "lr", "l1", "l2", "lr_power"},
       3,
       {"multiply_linear_by_lr: bool = false"},
       false,
       FtrlShape},
      {"Ftrl",
       {"var", "accum", "linear", "grad", "indices", "lr", "l1", "l2",
        "lr_power"},
       3,
       {"multiply_linear_by_lr: bool = false"},
       true,
       SparseFtrlShape},
      {"FtrlV2",
       {"var", "accum", "linear", "grad", "lr", "l1", "l2", "l2_shrinkage",
        "lr_power"},
       3,
       {"multiply_linear_by_lr: bool = false"},
       false,
       FtrlV2Shape},
      {"FtrlV2",
       {"var", "accum", "linear", "grad", "indices", "lr", "l1", "l2",
        "l2_shrinkage", "lr_power"},
       3,
       {"multiply_linear_by_lr: bool = false"},
       true,
       SparseFtrlV2Shape},
      {"AdagradDA",
       {"var", "gradient_accumulator", "gradient_squared_accumulator", "grad",
        "lr", "l1", "l2", "global_step"},
       3,
       {},
       false,
       FtrlShape},
      {"AdagradDA",
       {"var", "gradient_accumulator", "gradient_squared_accumulator", "grad",
        "indices", "lr", "l1", "l2", "global_step"},
       3,
       {},
       true,
       SparseFtrlShape},
  };
  for (const OptimizerSchema& o : schemas) {
    for (bool resource : {false, true}) {
      if (o.resource_only && !resource) continue;
      const std::string op =
          absl::StrCat(resource ? "Resource" : "", o.sparse ? "Sparse" : "",
                       "Apply", o.name);
      OpDefBuilder b(op);
      for (size_t i = 0; i < o.inputs.size(); ++i) {
        const std::string in = o.inputs[i];
        if (static_cast<int>(i) < o.num_vars) {
          b.Input(absl::StrCat(in, resource ? ": resource" : ": Ref(T)"));
        } else if (in == "indices") {
          b.Input("indices: Tindices");
        } else if (in == "global_step") {
          b.Input("global_step: int64");
        } else {
          b.Input(absl::StrCat(in, ": T"));
        }
      }
      if (!resource) b.Output("out: Ref(T)");
      b.Attr("T: numbertype");
      if (o.sparse) b.Attr("Tindices: {int32, int64}");
      b.Attr("use_locking: bool = false");
      for (const char* a : o.attrs) b.Attr(a);
      if (resource) b.SetIsStateful();
      b.SetShapeFn(o.shape_fn);
      b.Doc(absl::StrCat("One ", o.name, " step",
                         o.sparse ? " on the rows "
                                    "named by indices"
                                  : "",
                         resource ? ", on resource "
                                    "variables."
                                  : "."));
      OpRegistry::Global()->Register(b).IgnoreError();  // see InitErrors()
    }
  }
  return true;
}();

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

namespace {

// An optimizer node with `inputs` in order and the attrs given.
Operation BuildUpdate(const Scope& scope, const char* op,
                      std::initializer_list<Input> inputs, bool use_locking,
                      const char* flag = nullptr, bool flag_value = false) {
  OpBuilder b(scope, op);
  for (const Input& in : inputs) b.Input(in);
  b.Attr("use_locking", use_locking);
  if (flag != nullptr) b.Attr(flag, flag_value);
  return b.Finalize();
}

}  // namespace

Output ApplyAdagrad(const Scope& scope, Input var, Input accum, Input lr,
                    Input grad, const ApplyAdagradAttrs& attrs) {
  return FirstOutput(BuildUpdate(scope, "ApplyAdagrad", {var, accum, lr, grad},
                                 attrs.use_locking, "update_slots",
                                 attrs.update_slots));
}
Operation ResourceApplyAdagrad(const Scope& scope, Input var, Input accum,
                               Input lr, Input grad,
                               const ApplyAdagradAttrs& attrs) {
  return BuildUpdate(scope, "ResourceApplyAdagrad", {var, accum, lr, grad},
                     attrs.use_locking, "update_slots", attrs.update_slots);
}
Output ApplyAdagradV2(const Scope& scope, Input var, Input accum, Input lr,
                      Input epsilon, Input grad,
                      const ApplyAdagradAttrs& attrs) {
  return FirstOutput(
      BuildUpdate(scope, "ApplyAdagradV2", {var, accum, lr, epsilon, grad},
                  attrs.use_locking, "update_slots", attrs.update_slots));
}
Operation ResourceApplyAdagradV2(const Scope& scope, Input var, Input accum,
                                 Input lr, Input epsilon, Input grad,
                                 const ApplyAdagradAttrs& attrs) {
  return BuildUpdate(scope, "ResourceApplyAdagradV2",
                     {var, accum, lr, epsilon, grad}, attrs.use_locking,
                     "update_slots", attrs.update_slots);
}
Output ApplyRMSProp(const Scope& scope, Input var, Input ms, Input mom,
                    Input lr, Input rho, Input momentum, Input epsilon,
                    Input grad, const ApplyRMSPropAttrs& attrs) {
  return FirstOutput(BuildUpdate(
      scope, "ApplyRMSProp", {var, ms, mom, lr, rho, momentum, epsilon, grad},
      attrs.use_locking));
}
Operation ResourceApplyRMSProp(const Scope& scope, Input var, Input ms,
                               Input mom, Input lr, Input rho, Input momentum,
                               Input epsilon, Input grad,
                               const ApplyRMSPropAttrs& attrs) {
  return BuildUpdate(scope, "ResourceApplyRMSProp",
                     {var, ms, mom, lr, rho, momentum, epsilon, grad},
                     attrs.use_locking);
}
Output ApplyCenteredRMSProp(const Scope& scope, Input var, Input mg, Input ms,
                            Input mom, Input lr, Input rho, Input momentum,
                            Input epsilon, Input grad,
                            const ApplyRMSPropAttrs& attrs) {
  return FirstOutput(BuildUpdate(
      scope, "ApplyCenteredRMSProp",
      {var, mg, ms, mom, lr, rho, momentum, epsilon, grad}, attrs.use_locking));
}
Operation ResourceApplyCenteredRMSProp(const Scope& scope, Input var, Input mg,
                                       Input ms, Input mom, Input lr, Input rho,
                                       Input momentum, Input epsilon,
                                       Input grad,
                                       const ApplyRMSPropAttrs& attrs) {
  return BuildUpdate(scope, "ResourceApplyCenteredRMSProp",
                     {var, mg, ms, mom, lr, rho, momentum, epsilon, grad},
                     attrs.use_locking);
}
Output SparseApplyAdagrad(const Scope& scope, Input var, Input accum, Input lr,
                          Input grad, Input indices,
                          const ApplyAdagradAttrs& attrs) {
  return FirstOutput(
      BuildUpdate(scope, "SparseApplyAdagrad", {var, accum, lr, grad, indices},
                  attrs.use_locking, "update_slots", attrs.update_slots));
}
Operation ResourceSparseApplyAdagrad(const Scope& scope, Input var, Input accum,
                                     Input lr, Input grad, Input indices,
                                     const ApplyAdagradAttrs& attrs) {
  return BuildUpdate(scope, "ResourceSparseApplyAdagrad",
                     {var, accum, lr, grad, indices}, attrs.use_locking,
                     "update_slots", attrs.update_slots);
}
Output SparseApplyMomentum(const Scope& scope, Input var, Input accum, Input lr,
                           Input grad, Input indices, Input momentum,
                           const ApplyMomentumAttrs& attrs) {
  return FirstOutput(BuildUpdate(
      scope, "SparseApplyMomentum", {var, accum, lr, grad, indices, momentum},
      attrs.use_locking, "use_nesterov", attrs.use_nesterov));
}
Operation ResourceSparseApplyMomentum(const Scope& scope, Input var,
                                      Input accum, Input lr, Input grad,
                                      Input indices, Input momentum,
                                      const ApplyMomentumAttrs& attrs) {
  return BuildUpdate(scope, "ResourceSparseApplyMomentum",
                     {var, accum, lr, grad, indices, momentum},
                     attrs.use_locking, "use_nesterov", attrs.use_nesterov);
}
Output ApplyAdaMax(const Scope& scope, Input var, Input m, Input v,
                   Input beta1_power, Input lr, Input beta1, Input beta2,
                   Input epsilon, Input grad, bool use_locking) {
  return FirstOutput(BuildUpdate(
      scope, "ApplyAdaMax",
      {var, m, v, beta1_power, lr, beta1, beta2, epsilon, grad}, use_locking));
}
Operation ResourceApplyAdaMax(const Scope& scope, Input var, Input m, Input v,
                              Input beta1_power, Input lr, Input beta1,
                              Input beta2, Input epsilon, Input grad,
                              bool use_locking) {
  return BuildUpdate(
      scope, "ResourceApplyAdaMax",
      {var, m, v, beta1_power, lr, beta1, beta2, epsilon, grad}, use_locking);
}
Operation ResourceApplyAdamWithAmsgrad(const Scope& scope, Input var, Input m,
                                       Input v, Input vhat, Input beta1_power,
                                       Input beta2_power, Input lr,
                                       Input beta1, Input beta2,
                                       Input epsilon, Input grad,
                                       bool use_locking) {
  return BuildUpdate(scope, "ResourceApplyAdamWithAmsgrad",
                     {var, m, v, vhat, beta1_power, beta2_power, lr, beta1,
                      beta2, epsilon, grad},
                     use_locking);
}
Operation ResourceApplyKerasMomentum(const Scope& scope, Input var,
                                     Input accum, Input lr, Input grad,
                                     Input momentum,
                                     const ApplyMomentumAttrs& attrs) {
  return BuildUpdate(scope, "ResourceApplyKerasMomentum",
                     {var, accum, lr, grad, momentum}, attrs.use_locking,
                     "use_nesterov", attrs.use_nesterov);
}
Operation ResourceSparseApplyKerasMomentum(const Scope& scope, Input var,
                                           Input accum, Input lr, Input grad,
                                           Input indices, Input momentum,
                                           const ApplyMomentumAttrs& attrs) {
  return BuildUpdate(scope, "ResourceSparseApplyKerasMomentum",
                     {var, accum, lr, grad, indices, momentum},
                     attrs.use_locking, "use_nesterov", attrs.use_nesterov);
}
Output SparseApplyCenteredRMSProp(const Scope& scope, Input var, Input mg,
                                  Input ms, Input mom, Input lr, Input rho,
                                  Input momentum, Input epsilon, Input grad,
                                  Input indices,
                                  const ApplyRMSPropAttrs& attrs) {
  return FirstOutput(BuildUpdate(scope, "SparseApplyCenteredRMSProp",
                                   {var, mg, ms, mom, lr, rho, momentum,
                                    epsilon, grad, indices},
                                   attrs.use_locking));
}
Operation ResourceSparseApplyCenteredRMSProp(
    const Scope& scope, Input var, Input mg, Input ms, Input mom, Input lr,
    Input rho, Input momentum, Input epsilon, Input grad, Input indices,
    const ApplyRMSPropAttrs& attrs) {
  return BuildUpdate(scope, "ResourceSparseApplyCenteredRMSProp",
                     {var, mg, ms, mom, lr, rho, momentum, epsilon, grad,
                      indices},
                     attrs.use_locking);
}

Output SparseApplyRMSProp(const Scope& scope, Input var, Input ms, Input mom,
                          Input lr, Input rho, Input momentum, Input epsilon,
                          Input grad, Input indices,
                          const ApplyRMSPropAttrs& attrs) {
  return FirstOutput(
      BuildUpdate(scope, "SparseApplyRMSProp",
                  {var, ms, mom, lr, rho, momentum, epsilon, grad, indices},
                  attrs.use_locking));
}
Operation ResourceSparseApplyRMSProp(const Scope& scope, Input var, Input ms,
                                     Input mom, Input lr, Input rho,
                                     Input momentum, Input epsilon, Input grad,
                                     Input indices,
                                     const ApplyRMSPropAttrs& attrs) {
  return BuildUpdate(scope, "ResourceSparseApplyRMSProp",
                     {var, ms, mom, lr, rho, momentum, epsilon, grad, indices},
                     attrs.use_locking);
}

}  // namespace ops
}  // namespace dflow
