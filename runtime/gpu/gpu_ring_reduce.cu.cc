// The kernels behind gpu_ring_reduce.h (compiled by nvcc: see cuda_library).
//
// Bitwise agreement with the CPU ring rests on three things here: each
// thread combines one element's inputs sequentially in rank order, in the
// element type (no wider accumulator, no tree); additions are plain adds
// (nothing for nvcc to contract into an FMA); and the build uses neither
// --use_fast_math nor -prec-div=false, so float division is IEEE-rounded
// and denormals are kept, as on the CPU.
#include "runtime/gpu/gpu_ring_reduce.h"

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <type_traits>

#include "absl/strings/str_cat.h"
#include "runtime/gpu/cuda_status.h"

namespace dflow {
namespace {

// Pointers one launch takes (kernel parameters: 2 x 8 x 8 bytes).
constexpr int kMaxInputs = 8;
constexpr int kMaxOutputs = 8;
constexpr int kThreads = 256;
// A grid-stride loop: enough blocks to fill an H100 several times over.
constexpr int64_t kMaxBlocks = 4096;

template <typename T>
struct ReduceArgs {
  const T* in[kMaxInputs];
  T* out[kMaxOutputs];
  int num_in;
  int num_out;
  int64_t count;
  T divisor;
  bool divide;
};

template <typename T>
__device__ __forceinline__ T Add(T x, T y) {
  if constexpr (std::is_integral_v<T>) {
    // Wraps on overflow, as the CPU's adds do, without signed overflow.
    using U = std::make_unsigned_t<T>;
    return static_cast<T>(static_cast<U>(x) + static_cast<U>(y));
  } else {
    return x + y;
  }
}

template <typename T>
__device__ __forceinline__ T Max(T x, T y) {
  // NaN wins whichever side it is on (x != x only for NaN): the CPU ring's
  // rule, so the result does not depend on where a NaN sits.
  return (x > y || x != x) ? x : y;
}

template <typename T, bool kIsMax>
__global__ void RingReduceKernel(ReduceArgs<T> a) {
  const int64_t stride = static_cast<int64_t>(blockDim.x) * gridDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
       i < a.count; i += stride) {
    T acc = a.in[0][i];
    for (int k = 1; k < a.num_in; ++k) {
      const T x = a.in[k][i];
      acc = kIsMax ? Max<T>(acc, x) : Add<T>(acc, x);
    }
    if (a.divide) acc = acc / a.divisor;
    for (int j = 0; j < a.num_out; ++j) a.out[j][i] = acc;
  }
}

template <typename T>
__global__ void DivideKernel(T* data, int64_t count, T divisor) {
  const int64_t stride = static_cast<int64_t>(blockDim.x) * gridDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
       i < count; i += stride) {
    data[i] = data[i] / divisor;
  }
}

unsigned BlocksFor(int64_t count) {
  return static_cast<unsigned>(
      std::min<int64_t>((count + kThreads - 1) / kThreads, kMaxBlocks));
}

template <typename T>
absl::Status Reduce(RingCombine combine, const void* const* inputs,
                    int num_inputs, void* const* outputs, int num_outputs,
                    int64_t count, int mean_divisor, cudaStream_t stream) {
  // Launch after launch, each taking up to kMaxInputs inputs in order; all
  // but the first start from the partial result in outputs[0].
  T* const acc = static_cast<T*>(outputs[0]);
  int next = 0;  // the next input to combine
  while (next < num_inputs) {
    ReduceArgs<T> a = {};
    a.count = count;
    if (next > 0) a.in[a.num_in++] = acc;
    while (a.num_in < kMaxInputs && next < num_inputs) {
      a.in[a.num_in++] = static_cast<const T*>(inputs[next++]);
    }
    const bool last = next == num_inputs;
    if (last) {
      a.num_out = std::min(num_outputs, kMaxOutputs);
      for (int j = 0; j < a.num_out; ++j)
        a.out[j] = static_cast<T*>(outputs[j]);
      a.divide = mean_divisor > 1;
      a.divisor = static_cast<T>(mean_divisor);
    } else {
      a.num_out = 1;
      a.out[0] = acc;
    }
    if (combine == RingCombine::kMax) {
      RingReduceKernel<T, true><<<BlocksFor(count), kThreads, 0, stream>>>(a);
    } else {
      RingReduceKernel<T, false><<<BlocksFor(count), kThreads, 0, stream>>>(a);
    }
    DFLOW_CUDA_RETURN_IF_ERROR(
        cudaGetLastError(),
        absl::StrCat("launching the ring reduction of ", num_inputs,
                     " inputs of ", count, " elements"));
  }
  // Outputs beyond one launch's get the finished result copied.
  for (int j = kMaxOutputs; j < num_outputs; ++j) {
    DFLOW_CUDA_RETURN_IF_ERROR(
        cudaMemcpyAsync(outputs[j], acc, count * sizeof(T),
                        cudaMemcpyDeviceToDevice, stream),
        absl::StrCat("copying the ring reduction's result to output ", j));
  }
  return absl::OkStatus();
}

template <typename T>
absl::Status Divide(void* data, int64_t count, int divisor,
                    cudaStream_t stream) {
  DivideKernel<T><<<BlocksFor(count), kThreads, 0, stream>>>(
      static_cast<T*>(data), count, static_cast<T>(divisor));
  return CudaStatus(cudaGetLastError(),
                    absl::StrCat("launching the mean's division of ", count,
                                 " elements by ", divisor));
}

}  // namespace

absl::Status LaunchRingReduce(RingElementType type, RingCombine combine,
                              const void* const* inputs, int num_inputs,
                              void* const* outputs, int num_outputs,
                              int64_t count, int mean_divisor, void* stream) {
  if (count <= 0) return absl::OkStatus();
  if (num_inputs < 1 || num_outputs < 1 || inputs == nullptr ||
      outputs == nullptr) {
    return absl::InvalidArgumentError(absl::StrCat(
        "LaunchRingReduce: needs at least one input and one output; got ",
        num_inputs, " inputs and ", num_outputs, " outputs"));
  }
  for (int k = 0; k < num_inputs; ++k) {
    if (inputs[k] == nullptr) {
      return absl::InvalidArgumentError(
          absl::StrCat("LaunchRingReduce: input ", k, " is null"));
    }
  }
  for (int j = 0; j < num_outputs; ++j) {
    if (outputs[j] == nullptr) {
      return absl::InvalidArgumentError(
          absl::StrCat("LaunchRingReduce: output ", j, " is null"));
    }
  }
  auto s = static_cast<cudaStream_t>(stream);
  // A stale error another call left on this thread would otherwise read as
  // this launch's failure (sticky errors come back from the launch anyway).
  cudaGetLastError();
  switch (type) {
    case RingElementType::kFloat:
      return Reduce<float>(combine, inputs, num_inputs, outputs, num_outputs,
                           count, mean_divisor, s);
    case RingElementType::kDouble:
      return Reduce<double>(combine, inputs, num_inputs, outputs, num_outputs,
                            count, mean_divisor, s);
    case RingElementType::kInt32:
      return Reduce<int32_t>(combine, inputs, num_inputs, outputs, num_outputs,
                             count, mean_divisor, s);
    case RingElementType::kInt64:
      return Reduce<int64_t>(combine, inputs, num_inputs, outputs, num_outputs,
                             count, mean_divisor, s);
  }
  return absl::InvalidArgumentError("LaunchRingReduce: unknown element type");
}

absl::Status LaunchRingDivide(RingElementType type, void* data, int64_t count,
                              int divisor, void* stream) {
  if (count <= 0 || divisor <= 1) return absl::OkStatus();
  if (data == nullptr) {
    return absl::InvalidArgumentError("LaunchRingDivide: null buffer");
  }
  auto s = static_cast<cudaStream_t>(stream);
  cudaGetLastError();  // see LaunchRingReduce
  switch (type) {
    case RingElementType::kFloat:
      return Divide<float>(data, count, divisor, s);
    case RingElementType::kDouble:
      return Divide<double>(data, count, divisor, s);
    case RingElementType::kInt32:
      return Divide<int32_t>(data, count, divisor, s);
    case RingElementType::kInt64:
      return Divide<int64_t>(data, count, divisor, s);
  }
  return absl::InvalidArgumentError("LaunchRingDivide: unknown element type");
}

}  // namespace dflow
