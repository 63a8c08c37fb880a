// Neural-network ops: activations, softmax and losses, and bias, with their
// gradient ops. Convolution, pooling and local response normalization are in
// conv_ops.h.
//
// The schemas match TensorFlow's (names, arguments, attrs, defaults, allowed
// types) so TensorFlow GraphDefs validate against them.
//
//   Output logits = ops::BiasAdd(scope, ops::MatMul(scope, x, w), b);
//   ops::CrossEntropyOutputs xent =
//       ops::SparseSoftmaxCrossEntropyWithLogits(scope, logits, labels);
#ifndef DFLOW_GRAPH_OPS_NN_OPS_H_
#define DFLOW_GRAPH_OPS_NN_OPS_H_

#include <string>
#include <utility>

#include "graph/scope.h"

namespace dflow {
namespace ops {

// --- Activations. ---

// max(features, 0).
Output Relu(const Scope& scope, Input features);
// `gradients` where features > 0, else 0.
Output ReluGrad(const Scope& scope, Input gradients, Input features);
// More activations (nn_ops_activations.cc), TensorFlow's definitions.
Output Softplus(const Scope& scope, Input features);
Output Softsign(const Scope& scope, Input features);
Output Relu6(const Scope& scope, Input features);
Output Elu(const Scope& scope, Input features);
Output Selu(const Scope& scope, Input features);
Output LeakyRelu(const Scope& scope, Input features, float alpha = 0.2f);
// Their gradients: EluGrad and SeluGrad take the forward outputs, the
// others the features.
Output SoftplusGrad(const Scope& scope, Input gradients, Input features);
Output SoftsignGrad(const Scope& scope, Input gradients, Input features);
Output Relu6Grad(const Scope& scope, Input gradients, Input features);
Output EluGrad(const Scope& scope, Input gradients, Input outputs);
Output SeluGrad(const Scope& scope, Input gradients, Input outputs);
Output LeakyReluGrad(const Scope& scope, Input gradients, Input features,
                     float alpha = 0.2f);

// --- Softmax and losses. ---

// Softmax over the last dimension.
Output Softmax(const Scope& scope, Input logits);
// log(Softmax(logits)), computed stably.
Output LogSoftmax(const Scope& scope, Input logits);

// The two outputs of the cross-entropy ops: the per-example loss [batch] and
// its gradient with respect to the logits [batch, classes].
struct CrossEntropyOutputs {
  Output loss;
  Output backprop;
};

// `features` [batch, classes] are logits; `labels` [batch] are class indices
// (int32 or int64).
CrossEntropyOutputs SparseSoftmaxCrossEntropyWithLogits(const Scope& scope,
                                                        Input features,
                                                        Input labels);
// `labels` are probability distributions; features and labels broadcast
// against each other to [batch, classes].
CrossEntropyOutputs SoftmaxCrossEntropyWithLogits(const Scope& scope,
                                                  Input features, Input labels);

// sum(t ** 2) / 2, a scalar.
Output L2Loss(const Scope& scope, Input t);

// --- Bias. ---

struct BiasAddAttrs {
  std::string data_format = "NHWC";
  BiasAddAttrs& DataFormat(std::string v) {
    data_format = std::move(v);
    return *this;
  }
};

// Adds the 1-D `bias` along the channel dimension of `value` (the last one
// for NHWC, dimension 1 for NCHW).
Output BiasAdd(const Scope& scope, Input value, Input bias,
               const BiasAddAttrs& attrs = {});
// Sums `out_backprop` over every dimension but the channel one.
// BiasAdd's first version: no data_format, channels last.
Output BiasAddV1(const Scope& scope, Input value, Input bias);
Output BiasAddGrad(const Scope& scope, Input out_backprop,
                   const BiasAddAttrs& attrs = {});


// --- Batch normalization (nn_ops_batch_norm.cc). ---

struct FusedBatchNormAttrs {
  float epsilon = 0.0001f;
  // Training: the running mean and variance outputs are
  // (1 - f) * given + f * batch statistic (f = 1: the batch's own).
  float exponential_avg_factor = 1.0f;
  std::string data_format = "NHWC";  // or NCHW, NDHWC, NCDHW
  // True: normalize with the batch's mean and variance; false: with the
  // given ones (inference).
  bool is_training = true;
  FusedBatchNormAttrs& Epsilon(float v) {
    epsilon = v;
    return *this;
  }
  FusedBatchNormAttrs& ExponentialAvgFactor(float v) {
    exponential_avg_factor = v;
    return *this;
  }
  FusedBatchNormAttrs& DataFormat(std::string v) {
    data_format = std::move(v);
    return *this;
  }
  FusedBatchNormAttrs& IsTraining(bool v) {
    is_training = v;
    return *this;
  }
};

// y = (x - mean) / sqrt(variance + epsilon) * scale + offset per channel.
// Outputs: y, batch_mean, batch_variance (the running estimates, the
// variance Bessel-corrected), reserve_space_1..3 (what the gradient reads:
// the batch mean and biased variance, and an unused placeholder).
OutputList FusedBatchNormV3(const Scope& scope, Input x, Input scale,
                            Input offset, Input mean, Input variance,
                            const FusedBatchNormAttrs& attrs = {});
// Outputs: x_backprop, scale_backprop, offset_backprop and two empty
// placeholders. exponential_avg_factor is not an attr of the gradient.
OutputList FusedBatchNormGradV3(const Scope& scope, Input y_backprop, Input x,
                                Input scale, Input reserve_space_1,
                                Input reserve_space_2, Input reserve_space_3,
                                const FusedBatchNormAttrs& attrs = {});
// The older forms: 5 outputs (no reserve_space_3); V1 is float throughout.
// Their attrs are V3's (the gradients ignore exponential_avg_factor).
OutputList FusedBatchNorm(const Scope& scope, Input x, Input scale,
                          Input offset, Input mean, Input variance,
                          const FusedBatchNormAttrs& attrs = {});
OutputList FusedBatchNormV2(const Scope& scope, Input x, Input scale,
                            Input offset, Input mean, Input variance,
                            const FusedBatchNormAttrs& attrs = {});
OutputList FusedBatchNormGrad(const Scope& scope, Input y_backprop, Input x,
                              Input scale, Input reserve_space_1,
                              Input reserve_space_2,
                              const FusedBatchNormAttrs& attrs = {});
OutputList FusedBatchNormGradV2(const Scope& scope, Input y_backprop, Input x,
                                Input scale, Input reserve_space_1,
                                Input reserve_space_2,
                                const FusedBatchNormAttrs& attrs = {});

}  // namespace ops
}  // namespace dflow

#endif  // DFLOW_GRAPH_OPS_NN_OPS_H_
