// Unary element-wise ops and activation gradients on the GPU (see
// cwise_ops_gpu.h): grid-stride loops over 16-byte vectors when every
// pointer is 16-byte aligned, element by element otherwise.
#include "kernels/gpu/cwise_ops_gpu.h"

#include <type_traits>

#include "absl/strings/str_cat.h"
#include "kernels/gpu/cwise_ops_gpu_functors.cu.h"
#include "kernels/gpu/gpu_device_util.cu.h"

namespace dflow {

namespace gpu {
namespace {

// Element i of the functor's result, converting through the compute type.
template <typename F, typename T>
__device__ __forceinline__ T ApplyUnary(T x) {
  return FromCompute<T>(F::template Apply<Compute<T>>(ToCompute(x)));
}
template <typename F, typename T>
__device__ __forceinline__ T ApplyBinary(T a, T b) {
  return FromCompute<T>(
      F::template Apply<Compute<T>>(ToCompute(a), ToCompute(b)));
}

// V elements per access; V > 1 needs 16-byte aligned pointers.
template <typename F, typename T, int V>
__global__ void UnaryKernel(const T* x, T* y, int64_t n) {
  const int64_t start = GlobalThreadIndex();
  const int64_t stride = GridStride();
  int64_t tail = 0;
  if constexpr (V > 1) {
    using Vec = AlignedVector<T, V>;
    const int64_t nv = n / V;
    const Vec* xv = reinterpret_cast<const Vec*>(x);
    Vec* yv = reinterpret_cast<Vec*>(y);
    for (int64_t i = start; i < nv; i += stride) {
      Vec a = xv[i];
#pragma unroll
      for (int k = 0; k < V; ++k) a.v[k] = ApplyUnary<F>(a.v[k]);
      yv[i] = a;
    }
    tail = nv * V;
  }
  for (int64_t i = tail + start; i < n; i += stride) {
    y[i] = ApplyUnary<F>(x[i]);
  }
}

template <typename F, typename T, int V>
__global__ void GradKernel(const T* a, const T* b, T* out, int64_t n) {
  const int64_t start = GlobalThreadIndex();
  const int64_t stride = GridStride();
  int64_t tail = 0;
  if constexpr (V > 1) {
    using Vec = AlignedVector<T, V>;
    const int64_t nv = n / V;
    const Vec* av = reinterpret_cast<const Vec*>(a);
    const Vec* bv = reinterpret_cast<const Vec*>(b);
    Vec* ov = reinterpret_cast<Vec*>(out);
    for (int64_t i = start; i < nv; i += stride) {
      const Vec p = av[i];
      const Vec q = bv[i];
      Vec r;
#pragma unroll
      for (int k = 0; k < V; ++k) r.v[k] = ApplyBinary<F>(p.v[k], q.v[k]);
      ov[i] = r;
    }
    tail = nv * V;
  }
  for (int64_t i = tail + start; i < n; i += stride) {
    out[i] = ApplyBinary<F>(a[i], b[i]);
  }
}

// Softplus' threshold depends on the storage type.
template <typename F, typename T>
using Resolved =
    std::conditional_t<std::is_same_v<F, SoftplusF>, SoftplusOf<T>, F>;

template <typename F>
absl::Status RunUnary(GpuUnaryOp op, GpuType type, const void* x, void* y,
                      int64_t n, cudaStream_t stream) {
  const char* name = GpuUnaryOpName(op);
  return Dispatch<kFloats | kInt64 | kInt8>(
      type, name, [&](auto tag) -> absl::Status {
        using T = decltype(tag);
        if constexpr (!F::template kSupports<T>) {
          return UnsupportedType(name, type);
        } else {
          using G = Resolved<F, T>;
          if (n <= 0) return absl::OkStatus();
          const T* in = static_cast<const T*>(x);
          T* out = static_cast<T*>(y);
          constexpr int V = kVectorWidth<T>;
          if (V > 1 && Aligned16(in) && Aligned16(out)) {
            UnaryKernel<G, T, V>
                <<<BlocksFor((n + V - 1) / V), kThreadsPerBlock, 0, stream>>>(
                    in, out, n);
          } else {
            UnaryKernel<G, T, 1>
                <<<BlocksFor(n), kThreadsPerBlock, 0, stream>>>(in, out, n);
          }
          return LaunchStatus(absl::StrCat(name, " (", GpuTypeName(type), ", ",
                                           n, " elements)"));
        }
      });
}

template <typename F>
absl::Status RunGrad(GpuGradOp op, GpuType type, const void* a, const void* b,
                     void* out, int64_t n, cudaStream_t stream) {
  const char* name = GpuGradOpName(op);
  return Dispatch<kFloats | kInt64 | kInt8>(
      type, name, [&](auto tag) -> absl::Status {
        using T = decltype(tag);
        if constexpr (!F::template kSupports<T>) {
          return UnsupportedType(name, type);
        } else {
          if (n <= 0) return absl::OkStatus();
          const T* pa = static_cast<const T*>(a);
          const T* pb = static_cast<const T*>(b);
          T* po = static_cast<T*>(out);
          constexpr int V = kVectorWidth<T>;
          if (V > 1 && Aligned16(pa) && Aligned16(pb) && Aligned16(po)) {
            GradKernel<F, T, V>
                <<<BlocksFor((n + V - 1) / V), kThreadsPerBlock, 0, stream>>>(
                    pa, pb, po, n);
          } else {
            GradKernel<F, T, 1>
                <<<BlocksFor(n), kThreadsPerBlock, 0, stream>>>(pa, pb, po, n);
          }
          return LaunchStatus(absl::StrCat(name, " (", GpuTypeName(type), ", ",
                                           n, " elements)"));
        }
      });
}

}  // namespace
}  // namespace gpu

absl::Status LaunchUnary(GpuUnaryOp op, GpuType type, const void* x, void* y,
                         int64_t n, cudaStream_t stream) {
  using namespace gpu;  // NOLINT: the functors
  switch (op) {
    case GpuUnaryOp::kNeg:
      return RunUnary<NegF>(op, type, x, y, n, stream);
    case GpuUnaryOp::kAbs:
      return RunUnary<AbsF>(op, type, x, y, n, stream);
    case GpuUnaryOp::kExp:
      return RunUnary<ExpF>(op, type, x, y, n, stream);
    case GpuUnaryOp::kLog:
      return RunUnary<LogF>(op, type, x, y, n, stream);
    case GpuUnaryOp::kSqrt:
      return RunUnary<SqrtF>(op, type, x, y, n, stream);
    case GpuUnaryOp::kRsqrt:
      return RunUnary<RsqrtF>(op, type, x, y, n, stream);
    case GpuUnaryOp::kSquare:
      return RunUnary<SquareF>(op, type, x, y, n, stream);
    case GpuUnaryOp::kTanh:
      return RunUnary<TanhF>(op, type, x, y, n, stream);
    case GpuUnaryOp::kSigmoid:
      return RunUnary<SigmoidF>(op, type, x, y, n, stream);
    case GpuUnaryOp::kRelu:
      return RunUnary<ReluF>(op, type, x, y, n, stream);
    case GpuUnaryOp::kRelu6:
      return RunUnary<Relu6F>(op, type, x, y, n, stream);
    case GpuUnaryOp::kElu:
      return RunUnary<EluF>(op, type, x, y, n, stream);
    case GpuUnaryOp::kSoftplus:
      return RunUnary<SoftplusF>(op, type, x, y, n, stream);
  }
  return absl::InvalidArgumentError(
      absl::StrCat("LaunchUnary: unknown op ", static_cast<int>(op)));
}

absl::Status LaunchGrad(GpuGradOp op, GpuType type, const void* a,
                        const void* b, void* out, int64_t n,
                        cudaStream_t stream) {
  using namespace gpu;  // NOLINT: the functors
  switch (op) {
    case GpuGradOp::kReluGrad:
      return RunGrad<ReluGradF>(op, type, a, b, out, n, stream);
    case GpuGradOp::kRelu6Grad:
      return RunGrad<Relu6GradF>(op, type, a, b, out, n, stream);
    case GpuGradOp::kEluGrad:
      return RunGrad<EluGradF>(op, type, a, b, out, n, stream);
    case GpuGradOp::kSoftplusGrad:
      return RunGrad<SoftplusGradF>(op, type, a, b, out, n, stream);
    case GpuGradOp::kSigmoidGrad:
      return RunGrad<SigmoidGradF>(op, type, a, b, out, n, stream);
    case GpuGradOp::kTanhGrad:
      return RunGrad<TanhGradF>(op, type, a, b, out, n, stream);
  }
  return absl::InvalidArgumentError(
      absl::StrCat("LaunchGrad: unknown op ", static_cast<int>(op)));
}

}  // namespace dflow
