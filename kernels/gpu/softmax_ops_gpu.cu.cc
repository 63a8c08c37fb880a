// Softmax, LogSoftmax and the softmax cross-entropy losses on the GPU (see
// reduction_ops_gpu.h). One warp per row for rows of up to 1024 classes,
// one block of 256 threads per row above; each row is read three times
// (max, sum of exponentials, results), the passes after the first mostly
// from cache. Thread t takes classes t, t + width, ... in order and a
// fixed tree combines the threads: deterministic. Computed in float for
// half, bfloat16 and float, in double for double; the formulas are the CPU
// kernels' (kernels/cpu/softmax_ops.cc): shifted by the row maximum,
// softmax = exp(s) * (1 / sum), log softmax = s - log(sum).
#include <type_traits>

#include "absl/strings/str_cat.h"
#include "kernels/gpu/gpu_device_util.cu.h"
#include "kernels/gpu/reduction_ops_gpu.h"

namespace dflow {
namespace gpu {
namespace {

constexpr int64_t kWarpRowLimit = 1024;

struct SumOp {
  template <typename A>
  __device__ static A Apply(A a, A b) {
    return a + b;
  }
};
// NaN never wins: a NaN logit makes its row's sum, and so the row, NaN.
struct MaxOp {
  template <typename A>
  __device__ static A Apply(A a, A b) {
    return b > a ? b : a;
  }
};

// Combines v over the row's kThreads threads; every thread gets the result.
template <typename Op, int kThreads, typename A>
__device__ __forceinline__ A RowCombine(A v, A* smem) {
#pragma unroll
  for (int offset = 16; offset > 0; offset >>= 1) {
    v = Op::Apply(v, __shfl_xor_sync(0xffffffffu, v, offset));
  }
  if constexpr (kThreads > 32) {
    const int warp = threadIdx.x / 32;
    const int lane = threadIdx.x % 32;
    if (lane == 0) smem[warp] = v;
    __syncthreads();
    v = smem[0];
    for (int w = 1; w < kThreads / 32; ++w) v = Op::Apply(v, smem[w]);
    __syncthreads();
  }
  return v;
}

// Rows handled by this thread's group: `row` for the first, then `step`
// apart. Warps: 8 rows per block; blocks: one.
template <int kThreads>
struct RowLoop {
  static constexpr int kPerBlock = kThreadsPerBlock / kThreads;
  __device__ static int64_t First() {
    return static_cast<int64_t>(blockIdx.x) * kPerBlock +
           threadIdx.x / kThreads;
  }
  __device__ static int64_t Step() {
    return static_cast<int64_t>(gridDim.x) * kPerBlock;
  }
  __device__ static int Lane() { return threadIdx.x % kThreads; }
};

template <typename T>
__device__ __forceinline__ Compute<T> Load(const T* p, int64_t i) {
  return ToCompute(p[i]);
}

template <typename T, int kThreads, bool kLog>
__global__ void SoftmaxKernel(const T* x, T* y, int64_t rows, int64_t c) {
  using A = Compute<T>;
  using L = RowLoop<kThreads>;
  __shared__ A smem[kThreadsPerBlock / 32];
  const int t = L::Lane();
  for (int64_t r = L::First(); r < rows; r += L::Step()) {
    const T* in = x + r * c;
    T* out = y + r * c;
    A m = -Infinity<A>();
    for (int64_t j = t; j < c; j += kThreads) m = MaxOp::Apply(m, Load(in, j));
    m = RowCombine<MaxOp, kThreads>(m, smem);
    A sum = 0;
    for (int64_t j = t; j < c; j += kThreads) sum += Exp(Load(in, j) - m);
    sum = RowCombine<SumOp, kThreads>(sum, smem);
    if constexpr (kLog) {
      const A log_sum = Log(sum);
      for (int64_t j = t; j < c; j += kThreads) {
        out[j] = FromCompute<T>((Load(in, j) - m) - log_sum);
      }
    } else {
      const A inv = A(1) / sum;
      for (int64_t j = t; j < c; j += kThreads) {
        out[j] = FromCompute<T>(Exp(Load(in, j) - m) * inv);
      }
    }
  }
}

template <typename T, int kThreads>
__global__ void XentKernel(XentPlan p, const T* logits, const T* labels,
                           T* loss, T* backprop) {
  using A = Compute<T>;
  using L = RowLoop<kThreads>;
  __shared__ A smem[kThreadsPerBlock / 32];
  const int t = L::Lane();
  const int64_t c = p.classes;
  for (int64_t r = L::First(); r < p.rows; r += L::Step()) {
    const T* lg = logits + r * p.logits_row_stride;
    const T* lb = labels + r * p.labels_row_stride;
    const int64_t ls = p.logits_col_stride;
    const int64_t bs = p.labels_col_stride;
    A m = -Infinity<A>();
    for (int64_t j = t; j < c; j += kThreads) {
      m = MaxOp::Apply(m, Load(lg, j * ls));
    }
    m = RowCombine<MaxOp, kThreads>(m, smem);
    A sum = 0;
    for (int64_t j = t; j < c; j += kThreads) sum += Exp(Load(lg, j * ls) - m);
    sum = RowCombine<SumOp, kThreads>(sum, smem);
    const A log_sum = Log(sum);
    const A inv = A(1) / sum;
    A l = 0;
    T* bp = backprop + r * c;
    for (int64_t j = t; j < c; j += kThreads) {
      const A s = Load(lg, j * ls) - m;
      const A label = Load(lb, j * bs);
      l += label * (log_sum - s);
      bp[j] = FromCompute<T>(Exp(s) * inv - label);
    }
    l = RowCombine<SumOp, kThreads>(l, smem);
    if (t == 0) loss[r] = FromCompute<T>(l);
  }
}

template <typename T, typename Label, int kThreads>
__global__ void SparseXentKernel(const T* logits, const Label* labels, T* loss,
                                 T* backprop, int64_t rows, int64_t c) {
  using A = Compute<T>;
  using L = RowLoop<kThreads>;
  __shared__ A smem[kThreadsPerBlock / 32];
  const int t = L::Lane();
  for (int64_t r = L::First(); r < rows; r += L::Step()) {
    const T* lg = logits + r * c;
    T* bp = backprop + r * c;
    const int64_t label = static_cast<int64_t>(labels[r]);
    if (label < 0 || label >= c) {
      // Reported as NaN: the device cannot fail the op without a copy.
      for (int64_t j = t; j < c; j += kThreads) {
        bp[j] = FromCompute<T>(QuietNan<A>());
      }
      if (t == 0) loss[r] = FromCompute<T>(QuietNan<A>());
      continue;
    }
    A m = -Infinity<A>();
    for (int64_t j = t; j < c; j += kThreads) m = MaxOp::Apply(m, Load(lg, j));
    m = RowCombine<MaxOp, kThreads>(m, smem);
    A sum = 0;
    for (int64_t j = t; j < c; j += kThreads) sum += Exp(Load(lg, j) - m);
    sum = RowCombine<SumOp, kThreads>(sum, smem);
    const A inv = A(1) / sum;
    for (int64_t j = t; j < c; j += kThreads) {
      A v = Exp(Load(lg, j) - m) * inv;
      if (j == label) v -= A(1);
      bp[j] = FromCompute<T>(v);
    }
    if (t == 0) loss[r] = FromCompute<T>(Log(sum) - (Load(lg, label) - m));
  }
}

unsigned RowBlocks(int64_t rows, int threads_per_row) {
  const int64_t per_block = kThreadsPerBlock / threads_per_row;
  return static_cast<unsigned>(std::max<int64_t>(
      1, std::min<int64_t>((rows + per_block - 1) / per_block, kMaxBlocks)));
}

}  // namespace
}  // namespace gpu

absl::Status LaunchSoftmax(GpuType type, bool log, const void* logits,
                           void* out, int64_t rows, int64_t classes,
                           cudaStream_t stream) {
  using namespace gpu;  // NOLINT
  const char* name = log ? "LogSoftmax" : "Softmax";
  if (rows <= 0 || classes <= 0) return absl::OkStatus();
  return Dispatch<kFloats>(type, name, [&](auto tag) {
    using T = decltype(tag);
    const T* x = static_cast<const T*>(logits);
    T* y = static_cast<T*>(out);
    const bool warp = classes <= kWarpRowLimit;
    const unsigned blocks = RowBlocks(rows, warp ? 32 : kThreadsPerBlock);
    if (warp && log) {
      SoftmaxKernel<T, 32, true>
          <<<blocks, kThreadsPerBlock, 0, stream>>>(x, y, rows, classes);
    } else if (warp) {
      SoftmaxKernel<T, 32, false>
          <<<blocks, kThreadsPerBlock, 0, stream>>>(x, y, rows, classes);
    } else if (log) {
      SoftmaxKernel<T, kThreadsPerBlock, true>
          <<<blocks, kThreadsPerBlock, 0, stream>>>(x, y, rows, classes);
    } else {
      SoftmaxKernel<T, kThreadsPerBlock, false>
          <<<blocks, kThreadsPerBlock, 0, stream>>>(x, y, rows, classes);
    }
    return LaunchStatus(absl::StrCat(name, " (", GpuTypeName(type), ") of [",
                                     rows, ", ", classes, "]"));
  });
}

absl::Status LaunchSoftmaxXent(GpuType type, const XentPlan& plan,
                               const void* logits, const void* labels,
                               void* loss, void* backprop,
                               cudaStream_t stream) {
  using namespace gpu;  // NOLINT
  const char* name = "SoftmaxCrossEntropyWithLogits";
  if (plan.rows <= 0) return absl::OkStatus();
  return Dispatch<kFloats>(type, name, [&](auto tag) -> absl::Status {
    using T = decltype(tag);
    T* l = static_cast<T*>(loss);
    if (plan.classes == 0) {
      // No classes: every loss is an empty sum (the CPU kernel's answer).
      return CudaStatus(cudaMemsetAsync(l, 0, plan.rows * sizeof(T), stream),
                        absl::StrCat(name, ": zeroing the loss"));
    }
    const T* lg = static_cast<const T*>(logits);
    const T* lb = static_cast<const T*>(labels);
    T* bp = static_cast<T*>(backprop);
    if (plan.classes <= kWarpRowLimit) {
      XentKernel<T, 32>
          <<<RowBlocks(plan.rows, 32), kThreadsPerBlock, 0, stream>>>(
              plan, lg, lb, l, bp);
    } else {
      XentKernel<T, kThreadsPerBlock>
          <<<RowBlocks(plan.rows, kThreadsPerBlock), kThreadsPerBlock, 0,
             stream>>>(plan, lg, lb, l, bp);
    }
    return LaunchStatus(absl::StrCat(name, " (", GpuTypeName(type), ") of [",
                                     plan.rows, ", ", plan.classes, "]"));
  });
}

absl::Status LaunchSparseSoftmaxXent(GpuType type, GpuType label_type,
                                     const void* logits, const void* labels,
                                     void* loss, void* backprop, int64_t rows,
                                     int64_t classes, cudaStream_t stream) {
  using namespace gpu;  // NOLINT
  const char* name = "SparseSoftmaxCrossEntropyWithLogits";
  if (rows <= 0) return absl::OkStatus();
  if (classes <= 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("Must have at least one class, but got logits shape [",
                     rows, ",", classes, "]"));
  }
  if (label_type != GpuType::kInt32 && label_type != GpuType::kInt64) {
    return absl::InvalidArgumentError(absl::StrCat(
        "labels must be int32 or int64, not ", GpuTypeName(label_type)));
  }
  return Dispatch<kFloats>(type, name, [&](auto tag) {
    using T = decltype(tag);
    const T* lg = static_cast<const T*>(logits);
    T* l = static_cast<T*>(loss);
    T* bp = static_cast<T*>(backprop);
    auto launch = [&](const auto* lab) {
      using Label = std::remove_const_t<std::remove_pointer_t<decltype(lab)>>;
      if (classes <= kWarpRowLimit) {
        SparseXentKernel<T, Label, 32>
            <<<RowBlocks(rows, 32), kThreadsPerBlock, 0, stream>>>(
                lg, lab, l, bp, rows, classes);
      } else {
        SparseXentKernel<T, Label, kThreadsPerBlock>
            <<<RowBlocks(rows, kThreadsPerBlock), kThreadsPerBlock, 0,
               stream>>>(lg, lab, l, bp, rows, classes);
      }
    };
    if (label_type == GpuType::kInt32) {
      launch(static_cast<const int32_t*>(labels));
    } else {
      launch(static_cast<const int64_t*>(labels));
    }
    return LaunchStatus(absl::StrCat(name, " (", GpuTypeName(type), ") of [",
                                     rows, ", ", classes, "]"));
  });
}

}  // namespace dflow
