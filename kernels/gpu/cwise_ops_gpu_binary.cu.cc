// Binary element-wise ops with NumPy broadcasting, and select, on the GPU
// (see cwise_ops_gpu.h). Three kernels per op and type: operands with the
// output's elements (16-byte vectors when aligned), and the general
// broadcast over a collapsed BroadcastPlan with 32-bit index arithmetic
// when every index fits (64-bit otherwise). A one-element operand is the
// broadcast's rank-1 case: its stride is 0 and no division is done.
#include <type_traits>

#include "absl/strings/str_cat.h"
#include "kernels/gpu/cwise_ops_gpu.h"
#include "kernels/gpu/cwise_ops_gpu_functors.cu.h"
#include "kernels/gpu/gpu_device_util.cu.h"

namespace dflow {
namespace gpu {
namespace {

// BroadcastPlan in the kernel's index type.
template <typename Index, int kOperands>
struct IndexPlan {
  int rank;
  Index dims[kGpuMaxRank];
  Index strides[kOperands][kGpuMaxRank];
  Index n;
};

template <typename Index, int kOperands>
IndexPlan<Index, kOperands> ToIndexPlan(const BroadcastPlan& p) {
  IndexPlan<Index, kOperands> q{};
  q.rank = p.rank;
  q.n = static_cast<Index>(p.num_elements);
  for (int d = 0; d < kGpuMaxRank; ++d) {
    q.dims[d] = static_cast<Index>(p.dims[d]);
    for (int k = 0; k < kOperands; ++k) {
      q.strides[k][d] = static_cast<Index>(p.strides[k][d]);
    }
  }
  return q;
}

// Each operand's offset for output element i.
template <typename Index, int kOperands>
__device__ __forceinline__ void Offsets(const IndexPlan<Index, kOperands>& p,
                                        Index i, Index* off) {
  if (p.rank == 1) {
#pragma unroll
    for (int k = 0; k < kOperands; ++k) off[k] = i * p.strides[k][0];
    return;
  }
#pragma unroll
  for (int k = 0; k < kOperands; ++k) off[k] = 0;
#pragma unroll
  for (int d = kGpuMaxRank - 1; d >= 0; --d) {
    if (d < p.rank) {
      const Index c = i % p.dims[d];
      i /= p.dims[d];
#pragma unroll
      for (int k = 0; k < kOperands; ++k) off[k] += c * p.strides[k][d];
    }
  }
}

template <typename F, typename T>
using BinaryOut =
    std::conditional_t<std::is_same_v<decltype(F::template Apply<Compute<T>>(
                                          Compute<T>(), Compute<T>())),
                                      bool>,
                       bool, T>;

template <typename F, typename T>
__device__ __forceinline__ BinaryOut<F, T> ApplyBinary(T a, T b) {
  using Out = BinaryOut<F, T>;
  const auto r = F::template Apply<Compute<T>>(ToCompute(a), ToCompute(b));
  if constexpr (std::is_same_v<Out, bool>) {
    return r;
  } else {
    return FromCompute<T>(r);
  }
}

// x, y and z have n elements each, in the same order.
template <typename F, typename T, int V>
__global__ void BinarySameKernel(const T* x, const T* y, BinaryOut<F, T>* z,
                                 int64_t n) {
  using Out = BinaryOut<F, T>;
  const int64_t start = GlobalThreadIndex();
  const int64_t stride = GridStride();
  int64_t tail = 0;
  if constexpr (V > 1) {
    using InVec = AlignedVector<T, V>;
    using OutVec = AlignedVector<Out, V>;
    const int64_t nv = n / V;
    for (int64_t i = start; i < nv; i += stride) {
      const InVec a = reinterpret_cast<const InVec*>(x)[i];
      const InVec b = reinterpret_cast<const InVec*>(y)[i];
      OutVec r;
#pragma unroll
      for (int k = 0; k < V; ++k) r.v[k] = ApplyBinary<F>(a.v[k], b.v[k]);
      reinterpret_cast<OutVec*>(z)[i] = r;
    }
    tail = nv * V;
  }
  for (int64_t i = tail + start; i < n; i += stride) {
    z[i] = ApplyBinary<F>(x[i], y[i]);
  }
}

template <typename F, typename T, typename Index>
__global__ void BinaryBroadcastKernel(IndexPlan<Index, 2> p, const T* x,
                                      const T* y, BinaryOut<F, T>* z) {
  const Index stride = static_cast<Index>(blockDim.x) * gridDim.x;
  for (Index i = static_cast<Index>(blockIdx.x) * blockDim.x + threadIdx.x;
       i < p.n; i += stride) {
    Index off[2];
    Offsets(p, i, off);
    z[i] = ApplyBinary<F>(x[off[0]], y[off[1]]);
  }
}

template <typename T, typename Index>
__global__ void SelectKernel(IndexPlan<Index, 3> p, const uint8_t* cond,
                             const T* x, const T* y, T* out) {
  const Index stride = static_cast<Index>(blockDim.x) * gridDim.x;
  for (Index i = static_cast<Index>(blockIdx.x) * blockDim.x + threadIdx.x;
       i < p.n; i += stride) {
    Index off[3];
    Offsets(p, i, off);
    out[i] = cond[off[0]] != 0 ? x[off[1]] : y[off[2]];
  }
}

// Grid sizes: the loop index must not overflow Index on its last step, so
// int32 kernels are only used when n + a grid's threads fit.
inline bool Fits32(int64_t n) {
  return n + kMaxBlocks * kThreadsPerBlock <= INT32_MAX;
}

template <typename F>
absl::Status RunBinary(GpuBinaryOp op, GpuType type, const BroadcastPlan& plan,
                       const void* x, const void* y, void* z,
                       cudaStream_t stream) {
  const char* name = GpuBinaryOpName(op);
  return Dispatch<kFloats | kInt64 | kBoolAsByte>(
      type, name, [&](auto tag) -> absl::Status {
        using T = decltype(tag);
        if constexpr (!F::template kSupports<T>) {
          return UnsupportedType(name, type);
        } else {
          using Out = BinaryOut<F, T>;
          const int64_t n = plan.num_elements;
          if (n <= 0) return absl::OkStatus();
          const T* px = static_cast<const T*>(x);
          const T* py = static_cast<const T*>(y);
          Out* pz = static_cast<Out*>(z);
          constexpr int V = kVectorWidth<T>;
          if (plan.same[0] && plan.same[1]) {
            const bool aligned =
                Aligned16(px) && Aligned16(py) &&
                reinterpret_cast<uintptr_t>(pz) % (sizeof(Out) * V) == 0;
            if (V > 1 && aligned) {
              BinarySameKernel<F, T, V>
                  <<<BlocksFor((n + V - 1) / V), kThreadsPerBlock, 0, stream>>>(
                      px, py, pz, n);
            } else {
              BinarySameKernel<F, T, 1>
                  <<<BlocksFor(n), kThreadsPerBlock, 0, stream>>>(px, py, pz,
                                                                  n);
            }
          } else if (Fits32(n)) {
            BinaryBroadcastKernel<F, T, int32_t>
                <<<BlocksFor(n), kThreadsPerBlock, 0, stream>>>(
                    ToIndexPlan<int32_t, 2>(plan), px, py, pz);
          } else {
            BinaryBroadcastKernel<F, T, int64_t>
                <<<BlocksFor(n), kThreadsPerBlock, 0, stream>>>(
                    ToIndexPlan<int64_t, 2>(plan), px, py, pz);
          }
          return LaunchStatus(absl::StrCat(name, " (", GpuTypeName(type), ", ",
                                           n, " elements)"));
        }
      });
}

}  // namespace
}  // namespace gpu

absl::Status LaunchBinary(GpuBinaryOp op, GpuType type,
                          const BroadcastPlan& plan, const void* x,
                          const void* y, void* z, cudaStream_t stream) {
  using namespace gpu;  // NOLINT: the functors
  if (plan.num_operands != 2) {
    return absl::InvalidArgumentError(
        absl::StrCat("LaunchBinary of ", GpuBinaryOpName(op),
                     " needs a plan of 2 operands, got ", plan.num_operands));
  }
  switch (op) {
    case GpuBinaryOp::kAdd:
      return RunBinary<AddF>(op, type, plan, x, y, z, stream);
    case GpuBinaryOp::kSub:
      return RunBinary<SubF>(op, type, plan, x, y, z, stream);
    case GpuBinaryOp::kMul:
      return RunBinary<MulF>(op, type, plan, x, y, z, stream);
    case GpuBinaryOp::kRealDiv:
      return RunBinary<RealDivF>(op, type, plan, x, y, z, stream);
    case GpuBinaryOp::kMaximum:
      return RunBinary<MaximumF>(op, type, plan, x, y, z, stream);
    case GpuBinaryOp::kMinimum:
      return RunBinary<MinimumF>(op, type, plan, x, y, z, stream);
    case GpuBinaryOp::kSquaredDifference:
      return RunBinary<SquaredDifferenceF>(op, type, plan, x, y, z, stream);
    case GpuBinaryOp::kPow:
      return RunBinary<PowF>(op, type, plan, x, y, z, stream);
    case GpuBinaryOp::kLess:
      return RunBinary<LessF>(op, type, plan, x, y, z, stream);
    case GpuBinaryOp::kLessEqual:
      return RunBinary<LessEqualF>(op, type, plan, x, y, z, stream);
    case GpuBinaryOp::kGreater:
      return RunBinary<GreaterF>(op, type, plan, x, y, z, stream);
    case GpuBinaryOp::kGreaterEqual:
      return RunBinary<GreaterEqualF>(op, type, plan, x, y, z, stream);
    case GpuBinaryOp::kEqual:
      return RunBinary<EqualF>(op, type, plan, x, y, z, stream);
    case GpuBinaryOp::kNotEqual:
      return RunBinary<NotEqualF>(op, type, plan, x, y, z, stream);
  }
  return absl::InvalidArgumentError(
      absl::StrCat("LaunchBinary: unknown op ", static_cast<int>(op)));
}

absl::Status LaunchSelect(GpuType type, const BroadcastPlan& plan,
                          const void* cond, const void* x, const void* y,
                          void* out, cudaStream_t stream) {
  using namespace gpu;  // NOLINT
  if (plan.num_operands != 3) {
    return absl::InvalidArgumentError(absl::StrCat(
        "LaunchSelect needs a plan of 3 operands, got ", plan.num_operands));
  }
  return Dispatch<kFloats | kInt64 | kBoolAsByte | kInt32>(
      type, "Select", [&](auto tag) -> absl::Status {
        using T = decltype(tag);
        const int64_t n = plan.num_elements;
        if (n <= 0) return absl::OkStatus();
        const auto* c = static_cast<const uint8_t*>(cond);
        const T* px = static_cast<const T*>(x);
        const T* py = static_cast<const T*>(y);
        T* po = static_cast<T*>(out);
        if (Fits32(n)) {
          SelectKernel<T, int32_t>
              <<<BlocksFor(n), kThreadsPerBlock, 0, stream>>>(
                  ToIndexPlan<int32_t, 3>(plan), c, px, py, po);
        } else {
          SelectKernel<T, int64_t>
              <<<BlocksFor(n), kThreadsPerBlock, 0, stream>>>(
                  ToIndexPlan<int64_t, 3>(plan), c, px, py, po);
        }
        return LaunchStatus(
            absl::StrCat("Select (", GpuTypeName(type), ", ", n, " elements)"));
      });
}

}  // namespace dflow
