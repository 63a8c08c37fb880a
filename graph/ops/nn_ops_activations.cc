// Schemas and builder wrappers of the activations beyond Relu, Sigmoid and
// Tanh that TensorFlow graphs use (tf.nn.softplus, softsign, relu6, elu,
// selu, leaky_relu, and Keras' layers), with the gradient ops TensorFlow
// writes for them. Type lists are TensorFlow 2.21's; the CPU kernels are in
// kernels/cpu/cwise_ops_special.cc.
#include <string>

#include "graph/op_registry.h"
#include "graph/ops/nn_ops.h"
#include "graph/ops/shape_fn_util.h"
#include "graph/shape_inference.h"

namespace dflow {
namespace {

constexpr char kFloats[] = "T: {half, bfloat16, float, double}";
constexpr char kRelu6Types[] =
    "T: {float, double, int32, uint8, int16, int8, int64, bfloat16, uint16, "
    "half, uint32, uint64}";

#define DFLOW_ACTIVATION_OP(name, types, doc) \
  DFLOW_REGISTER_OP(name)                     \
      .Input("features: T")                   \
      .Output("activations: T")               \
      .Attr(types)                            \
      .SetShapeFn(shape_fns::UnchangedShape)  \
      .Doc(doc)

#define DFLOW_ACTIVATION_GRAD_OP(name, second, types, doc) \
  DFLOW_REGISTER_OP(name)                                  \
      .Input("gradients: T")                               \
      .Input(second)                                       \
      .Output("backprops: T")                              \
      .Attr(types)                                         \
      .SetShapeFn(shape_fns::UnchangedShape)               \
      .Doc(doc)

DFLOW_ACTIVATION_OP("Softplus", kFloats, "Returns log(exp(features) + 1).");
DFLOW_ACTIVATION_OP("Softsign", kFloats,
                    "Returns features / (|features| + 1).");
DFLOW_ACTIVATION_OP("Relu6", kRelu6Types, "Returns min(max(features, 0), 6).");
DFLOW_ACTIVATION_OP("Elu", kFloats,
                    "Returns exp(features) - 1 below 0, else features.");
DFLOW_ACTIVATION_OP("Selu", kFloats,
                    "Returns scale * (alpha * (exp(features) - 1)) below 0, "
                    "else scale * features (Klambauer et al.'s constants).");
DFLOW_REGISTER_OP("LeakyRelu")
    .Input("features: T")
    .Output("activations: T")
    .Attr("alpha: float = 0.2")
    .Attr("T: {half, bfloat16, float, double} = DT_FLOAT")
    .SetShapeFn(shape_fns::UnchangedShape)
    .Doc("Returns features, times alpha where it is below 0.");

DFLOW_ACTIVATION_GRAD_OP("SoftplusGrad", "features: T", kFloats,
                         "Returns gradients * sigmoid(features).");
DFLOW_ACTIVATION_GRAD_OP("SoftsignGrad", "features: T", kFloats,
                         "Returns gradients / (|features| + 1)^2.");
DFLOW_ACTIVATION_GRAD_OP("Relu6Grad", "features: T", kRelu6Types,
                         "Returns gradients where 0 < features < 6, else 0.");
DFLOW_ACTIVATION_GRAD_OP("EluGrad", "outputs: T", kFloats,
                         "Returns gradients * (outputs + 1) where outputs < "
                         "0, else gradients.");
DFLOW_ACTIVATION_GRAD_OP("SeluGrad", "outputs: T", kFloats,
                         "Returns gradients * (outputs + scale * alpha) where "
                         "outputs < 0, else gradients * scale.");
DFLOW_REGISTER_OP("LeakyReluGrad")
    .Input("gradients: T")
    .Input("features: T")
    .Output("backprops: T")
    .Attr("alpha: float = 0.2")
    .Attr("T: {half, bfloat16, float, double} = DT_FLOAT")
    .SetShapeFn(shape_fns::UnchangedShape)
    .Doc("Returns gradients where features > 0, else gradients * alpha.");

#undef DFLOW_ACTIVATION_OP
#undef DFLOW_ACTIVATION_GRAD_OP

Output Call(const Scope& scope, const char* op, const Input& x) {
  return shape_fn_util::FirstOutput(OpBuilder(scope, op).Input(x).Finalize());
}

Output Call(const Scope& scope, const char* op, const Input& x,
            const Input& y) {
  return shape_fn_util::FirstOutput(
      OpBuilder(scope, op).Input(x).Input(y).Finalize());
}

}  // namespace

namespace ops {

Output Softplus(const Scope& scope, Input features) {
  return Call(scope, "Softplus", features);
}
Output Softsign(const Scope& scope, Input features) {
  return Call(scope, "Softsign", features);
}
Output Relu6(const Scope& scope, Input features) {
  return Call(scope, "Relu6", features);
}
Output Elu(const Scope& scope, Input features) {
  return Call(scope, "Elu", features);
}
Output Selu(const Scope& scope, Input features) {
  return Call(scope, "Selu", features);
}
Output LeakyRelu(const Scope& scope, Input features, float alpha) {
  return shape_fn_util::FirstOutput(OpBuilder(scope, "LeakyRelu")
                                        .Input(features)
                                        .Attr("alpha", alpha)
                                        .Finalize());
}
Output SoftplusGrad(const Scope& scope, Input gradients, Input features) {
  return Call(scope, "SoftplusGrad", gradients, features);
}
Output SoftsignGrad(const Scope& scope, Input gradients, Input features) {
  return Call(scope, "SoftsignGrad", gradients, features);
}
Output Relu6Grad(const Scope& scope, Input gradients, Input features) {
  return Call(scope, "Relu6Grad", gradients, features);
}
Output EluGrad(const Scope& scope, Input gradients, Input outputs) {
  return Call(scope, "EluGrad", gradients, outputs);
}
Output SeluGrad(const Scope& scope, Input gradients, Input outputs) {
  return Call(scope, "SeluGrad", gradients, outputs);
}
Output LeakyReluGrad(const Scope& scope, Input gradients, Input features,
                     float alpha) {
  return shape_fn_util::FirstOutput(OpBuilder(scope, "LeakyReluGrad")
                                        .Input(gradients)
                                        .Input(features)
                                        .Attr("alpha", alpha)
                                        .Finalize());
}

}  // namespace ops
}  // namespace dflow
