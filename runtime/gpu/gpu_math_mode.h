// The process-wide GPU math mode a session asked for: whether float matmuls
// and convolutions may use TF32 tensor cores (TensorFlow's
// tf.config.experimental.enable_tensor_float_32_execution).
//
// Why here: SessionOptions.gpu_allow_tf32 reaches the GPU device factory
// (runtime/gpu/gpu_device_factory.cc), which sets it; the GPU kernels
// (kernels/gpu/matmul_gpu.cc's GpuTensorFloat32Enabled) read it. The runtime
// must not depend on the kernels, so the setting lives below both.
// Process-wide like TensorFlow's: the last session created with GPUs wins.
#ifndef DFLOW_RUNTIME_GPU_GPU_MATH_MODE_H_
#define DFLOW_RUNTIME_GPU_GPU_MATH_MODE_H_

namespace dflow {

// Default false: float results match the CPU kernels' precision.
void SetGpuTensorFloat32Allowed(bool allowed);
bool GpuTensorFloat32Allowed();

}  // namespace dflow

#endif  // DFLOW_RUNTIME_GPU_GPU_MATH_MODE_H_
