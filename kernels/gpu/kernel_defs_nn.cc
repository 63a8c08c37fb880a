// GPU kernel definitions: convolutions, pooling, LRN, bias, activations,
// softmax and losses (TensorFlow's conv_ops*.cc, pooling_ops.cc,
// avgpooling_op.cc, lrn_op.cc, bias_op.cc, relu_op.cc, softmax_op.cc,
// xent_op.cc, sparse_xent_op.cc, l2loss_op.cc).
#include "kernels/gpu/kernel_defs_util.h"

namespace dflow {
namespace gpu_kernel_defs {
namespace {

const bool kRegistered = [] {
  const Types conv = Concat({GpuFloat(), {DT_INT32}});
  Define(Gpu("Conv2D").TypeConstraint("T", conv));
  // No double gradients: cuDNN 9 offers no algorithm for many double
  // configurations in NHWC (seen on an H200: 5x5 filters over 64 channels,
  // strided windows), so such nodes go to the CPU instead of failing there.
  Define(Gpu("Conv2DBackpropInput")
             .TypeConstraint("T", {DT_HALF, DT_BFLOAT16, DT_FLOAT, DT_INT32})
             .HostMemory("input_sizes"));
  Define(Gpu("Conv2DBackpropFilter")
             .TypeConstraint("T", {DT_HALF, DT_BFLOAT16, DT_FLOAT})
             .HostMemory("filter_sizes"));

  for (const char* op : {"MaxPool", "AvgPool", "MaxPoolGrad"}) {
    Define(Gpu(op).TypeConstraint("T", GpuFloat()));
  }
  Define(Gpu("AvgPoolGrad")
             .TypeConstraint("T", GpuFloat())
             .HostMemory("orig_input_shape"));

  // cuDNN's LRN: float only.
  Define(Gpu("LRN").TypeConstraint("T", {DT_FLOAT}));
  Define(Gpu("LRNGrad").TypeConstraint("T", {DT_FLOAT}));

  for (const char* op :
       {"BiasAdd", "BiasAddGrad", "ReluGrad", "Softmax", "LogSoftmax",
        "SoftmaxCrossEntropyWithLogits", "L2Loss"}) {
    Define(Gpu(op).TypeConstraint("T", GpuFloat()));
  }
  Define(Gpu("Relu").TypeConstraint("T", Concat({GpuFloat(), {DT_INT8}})));
  Define(Gpu("SparseSoftmaxCrossEntropyWithLogits")
             .TypeConstraint("T", GpuFloat())
             .TypeConstraint("Tlabels", {DT_INT32, DT_INT64}));
  // Batch normalization (TensorFlow's cuDNN kernels). Definitions only:
  // no CUDA implementation yet, so a session with real GPUs runs them on
  // the CPU under soft placement.
  Define(Gpu("FusedBatchNorm").TypeConstraint("T", {DT_FLOAT}));
  Define(Gpu("FusedBatchNormGrad").TypeConstraint("T", {DT_FLOAT}));
  for (const char* op : {"FusedBatchNormV2", "FusedBatchNormV3",
                         "FusedBatchNormGradV2", "FusedBatchNormGradV3"}) {
    Define(Gpu(op)
               .TypeConstraint("T", {DT_HALF, DT_BFLOAT16, DT_FLOAT})
               .TypeConstraint("U", {DT_FLOAT}));
  }
  // InTopKV2 (TensorFlow's GPU kernel; definition only, see above).
  return true;
}();

}  // namespace
}  // namespace gpu_kernel_defs
}  // namespace dflow
