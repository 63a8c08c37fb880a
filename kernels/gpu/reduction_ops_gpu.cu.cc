// Reductions over [outer, reduce, inner] passes (see gpu_shape_plans.h),
// L2Loss, ArgMax and BiasAdd on the GPU (see reduction_ops_gpu.h).
//
// A pass turns [outer, reduce, inner] into [outer, chunks, inner]. Rows
// (inner == 1) are combined by a warp (chunks up to 1024 elements) or a
// block of 256 threads: thread t takes elements t, t + width, ... in
// order, then a fixed shuffle/shared-memory tree combines the threads.
// Columns (inner > 1) are combined by one thread each, walking the chunk in
// order, with neighbouring threads on neighbouring columns so reads
// coalesce. Both orders depend on the shape alone: deterministic.
#include "kernels/gpu/reduction_ops_gpu.h"

#include <type_traits>

#include "absl/strings/str_cat.h"
#include "kernels/gpu/gpu_device_util.cu.h"

namespace dflow {
namespace gpu {
namespace {

// --- Accumulators and combining. ---

// float for half and bfloat16, the type itself for float and double;
// integer sums and products in the unsigned type (they wrap).
template <GpuReduction kOp, typename T, bool kIntegral = std::is_integral_v<T>>
struct AccOf {
  using type = Compute<T>;
};
template <GpuReduction kOp, typename T>
struct AccOf<kOp, T, true> {
  using type =
      std::conditional_t<kOp == GpuReduction::kMax || kOp == GpuReduction::kMin,
                         T, std::make_unsigned_t<T>>;
};
template <GpuReduction kOp, typename T>
using Acc = typename AccOf<kOp, T>::type;

template <GpuReduction kOp, typename A>
__device__ __forceinline__ A Identity() {
  if constexpr (kOp == GpuReduction::kSum || kOp == GpuReduction::kMean) {
    return A(0);
  } else if constexpr (kOp == GpuReduction::kProd) {
    return A(1);
  } else if constexpr (kOp == GpuReduction::kMax) {
    if constexpr (std::is_floating_point_v<A>) {
      return -Infinity<A>();
    } else {
      return Lowest<A>();
    }
  } else {
    if constexpr (std::is_floating_point_v<A>) {
      return Infinity<A>();
    } else {
      return Highest<A>();
    }
  }
}

template <GpuReduction kOp, typename A>
__device__ __forceinline__ A Combine(A a, A b) {
  if constexpr (kOp == GpuReduction::kSum || kOp == GpuReduction::kMean) {
    return a + b;  // unsigned for integers: wraps
  } else if constexpr (kOp == GpuReduction::kProd) {
    return a * b;
  } else {
    if (IsNan(a)) return a;
    if (IsNan(b)) return b;
    if constexpr (kOp == GpuReduction::kMax) {
      return a < b ? b : a;
    } else {
      return b < a ? b : a;
    }
  }
}

// An input element as an accumulator (squared for L2Loss).
template <typename A, bool kSquare, typename In>
__device__ __forceinline__ A LoadAs(In x) {
  A v;
  if constexpr (std::is_same_v<In, half> || std::is_same_v<In, bfloat16>) {
    v = static_cast<A>(ToCompute(x));
  } else {
    v = static_cast<A>(x);
  }
  if constexpr (kSquare) v = v * v;
  return v;
}

// The value stored for accumulator `a`: in a final pass, the output type
// (a mean divided by `count`: the CPU kernels' rule); otherwise `a`.
template <GpuReduction kOp, typename Out, bool kFinal, typename A>
__device__ __forceinline__ Out StoreAs(A a, int64_t count) {
  if constexpr (!kFinal) {
    return a;
  } else if constexpr (std::is_integral_v<Out>) {
    const Out wrapped = static_cast<Out>(a);
    if constexpr (kOp == GpuReduction::kMean) {
      if (count == 0) return Out(0);
      return static_cast<Out>(static_cast<int64_t>(wrapped) / count);
    } else {
      return wrapped;
    }
  } else {
    if constexpr (kOp == GpuReduction::kMean) a = a / static_cast<A>(count);
    return FromCompute<Out>(static_cast<Compute<Out>>(a));
  }
}

// Combines v over the kThreads threads of a segment; every thread gets the
// result. kThreads is 32 (a warp) or the block (its warps' partials pass
// through `smem`, one slot per warp).
template <GpuReduction kOp, int kThreads, typename A>
__device__ __forceinline__ A SegmentCombine(A v, A* smem) {
#pragma unroll
  for (int offset = 16; offset > 0; offset >>= 1) {
    v = Combine<kOp>(v, __shfl_xor_sync(0xffffffffu, v, offset));
  }
  if constexpr (kThreads > 32) {
    constexpr int kWarps = kThreads / 32;
    const int warp = threadIdx.x / 32;
    const int lane = threadIdx.x % 32;
    if (lane == 0) smem[warp] = v;
    __syncthreads();
    v = lane < kWarps ? smem[lane] : Identity<kOp, A>();
#pragma unroll
    for (int offset = 16; offset > 0; offset >>= 1) {
      v = Combine<kOp>(v, __shfl_xor_sync(0xffffffffu, v, offset));
    }
    __syncthreads();  // smem is reused by the next segment
  }
  return v;
}

// Rows: segment s = (o, c) of [outer, chunks] combines in[o * reduce +
// c * chunk + j] for j < min(chunk, reduce - c * chunk).
template <GpuReduction kOp, typename In, typename A, typename Out, bool kFinal,
          bool kSquare, int kThreads>
__global__ void RowReduceKernel(const In* in, Out* out, int64_t outer,
                                int64_t reduce, int64_t chunk, int64_t chunks,
                                int64_t count) {
  __shared__ A smem[32];
  constexpr int kPerBlock = kThreadsPerBlock / kThreads;
  const int t = threadIdx.x % kThreads;
  const int64_t segments = outer * chunks;
  for (int64_t s = static_cast<int64_t>(blockIdx.x) * kPerBlock +
                   threadIdx.x / kThreads;
       s < segments; s += static_cast<int64_t>(gridDim.x) * kPerBlock) {
    const int64_t o = s / chunks;
    const int64_t c = s % chunks;
    const int64_t begin = c * chunk;
    const int64_t len = Min64(chunk, reduce - begin);
    const In* row = in + o * reduce + begin;
    A v = Identity<kOp, A>();
    for (int64_t j = t; j < len; j += kThreads) {
      v = Combine<kOp>(v, LoadAs<A, kSquare>(row[j]));
    }
    v = SegmentCombine<kOp, kThreads>(v, smem);
    if (t == 0) out[s] = StoreAs<kOp, Out, kFinal>(v, count);
  }
}

// Columns: output e = (o, c, i) of [outer, chunks, inner] combines
// in[(o * reduce + c * chunk + r) * inner + i] for r in order.
template <GpuReduction kOp, typename In, typename A, typename Out, bool kFinal,
          bool kSquare>
__global__ void ColumnReduceKernel(const In* in, Out* out, int64_t outer,
                                   int64_t reduce, int64_t inner, int64_t chunk,
                                   int64_t chunks, int64_t count) {
  const int64_t n = outer * chunks * inner;
  for (int64_t e = GlobalThreadIndex(); e < n; e += GridStride()) {
    const int64_t i = e % inner;
    const int64_t oc = e / inner;
    const int64_t c = oc % chunks;
    const int64_t o = oc / chunks;
    const int64_t begin = c * chunk;
    const int64_t len = Min64(chunk, reduce - begin);
    const In* p = in + (o * reduce + begin) * inner + i;
    A v = Identity<kOp, A>();
    for (int64_t r = 0; r < len; ++r) {
      v = Combine<kOp>(v, LoadAs<A, kSquare>(p[r * inner]));
    }
    out[e] = StoreAs<kOp, Out, kFinal>(v, count);
  }
}

template <GpuReduction kOp, typename Out, typename A>
__global__ void FillIdentityKernel(Out* out, int64_t n) {
  for (int64_t i = GlobalThreadIndex(); i < n; i += GridStride()) {
    out[i] = StoreAs<kOp, Out, true>(Identity<kOp, A>(), 0);
  }
}

// Rows of at most this many elements go to one warp, longer ones to a
// block.
constexpr int64_t kWarpRowLimit = 1024;

template <GpuReduction kOp, typename In, typename A, typename Out, bool kFinal,
          bool kSquare>
void LaunchPass(const ReducePass& p, const void* src, void* dst, int64_t count,
                cudaStream_t stream) {
  const In* in = static_cast<const In*>(src);
  Out* out = static_cast<Out*>(dst);
  const int64_t chunks = p.chunks();
  if (p.inner == 1) {
    const int64_t segments = p.outer * chunks;
    if (std::min(p.chunk, p.reduce) <= kWarpRowLimit) {
      constexpr int kPerBlock = kThreadsPerBlock / 32;
      const unsigned blocks = static_cast<unsigned>(std::min<int64_t>(
          (segments + kPerBlock - 1) / kPerBlock, kMaxBlocks));
      RowReduceKernel<kOp, In, A, Out, kFinal, kSquare, 32>
          <<<blocks, kThreadsPerBlock, 0, stream>>>(in, out, p.outer, p.reduce,
                                                    p.chunk, chunks, count);
    } else {
      const unsigned blocks =
          static_cast<unsigned>(std::min<int64_t>(segments, kMaxBlocks));
      RowReduceKernel<kOp, In, A, Out, kFinal, kSquare, kThreadsPerBlock>
          <<<blocks, kThreadsPerBlock, 0, stream>>>(in, out, p.outer, p.reduce,
                                                    p.chunk, chunks, count);
    }
  } else {
    ColumnReduceKernel<kOp, In, A, Out, kFinal, kSquare>
        <<<BlocksFor(p.outer * chunks * p.inner), kThreadsPerBlock, 0,
           stream>>>(in, out, p.outer, p.reduce, p.inner, p.chunk, chunks,
                     count);
  }
}

inline int64_t AlignUp(int64_t bytes) { return (bytes + 255) / 256 * 256; }

// Runs plan's schedule for storage type T; kSquare squares the input
// (L2Loss). `count` is what a mean divides by.
template <GpuReduction kOp, typename T, bool kSquare>
absl::Status RunReduce(const char* name, GpuType type, const ReducePlan& plan,
                       const void* in, void* out, void* workspace,
                       int64_t workspace_bytes, int64_t count,
                       cudaStream_t stream) {
  using A = Acc<kOp, T>;
  if (plan.out_elements == 0) return absl::OkStatus();
  if (plan.reduce_count == 0 || plan.in_elements == 0) {
    FillIdentityKernel<kOp, T, A>
        <<<BlocksFor(plan.out_elements), kThreadsPerBlock, 0, stream>>>(
            static_cast<T*>(out), plan.out_elements);
    return LaunchStatus(absl::StrCat(name, " of an empty reduction"));
  }
  if (plan.is_identity() && !kSquare) {
    return CudaStatus(
        cudaMemcpyAsync(out, in, plan.in_elements * sizeof(T),
                        cudaMemcpyDeviceToDevice, stream),
        absl::StrCat(name, " over dimensions of size 1 (a copy)"));
  }
  ReduceSchedule s = PlanReducePasses(plan);
  if (plan.is_identity()) {
    // L2Loss of one element still squares it: a one-element pass.
    ReducePass p;
    s.passes.push_back(p);
  }
  const int64_t ws0 = AlignUp(s.workspace_elements[0] * sizeof(A));
  const int64_t need = ws0 + AlignUp(s.workspace_elements[1] * sizeof(A));
  if (s.passes.size() > 1 && (workspace == nullptr || workspace_bytes < need)) {
    return absl::InvalidArgumentError(absl::StrCat(
        name, " needs ", need, " bytes of workspace, got ", workspace_bytes));
  }
  auto buffer = [&](int id) -> void* {
    switch (id) {
      case ReducePass::kInput:
        return const_cast<void*>(in);
      case ReducePass::kOutput:
        return out;
      case ReducePass::kWorkspace0:
        return workspace;
      default:
        return static_cast<char*>(workspace) + ws0;
    }
  };
  const int n = static_cast<int>(s.passes.size());
  for (int k = 0; k < n; ++k) {
    const ReducePass& p = s.passes[k];
    void* src = buffer(p.src);
    void* dst = buffer(p.dst);
    const bool first = k == 0;
    const bool last = k == n - 1;
    if (first && last) {
      LaunchPass<kOp, T, A, T, true, kSquare>(p, src, dst, count, stream);
    } else if (first) {
      LaunchPass<kOp, T, A, A, false, kSquare>(p, src, dst, count, stream);
    } else if (last) {
      LaunchPass<kOp, A, A, T, true, false>(p, src, dst, count, stream);
    } else {
      LaunchPass<kOp, A, A, A, false, false>(p, src, dst, count, stream);
    }
    absl::Status st = LaunchStatus(absl::StrCat(
        name, " (", GpuTypeName(type), ") pass ", k + 1, " of ", n, ": [",
        p.outer, ", ", p.reduce, ", ", p.inner, "] in chunks of ", p.chunk));
    if (!st.ok()) return st;
  }
  return absl::OkStatus();
}

template <GpuReduction kOp>
absl::Status ReduceOp(GpuType type, const ReducePlan& plan, const void* in,
                      void* out, void* workspace, int64_t workspace_bytes,
                      cudaStream_t stream) {
  const char* name = GpuReductionName(kOp);
  return Dispatch<kFloats | kInt64>(type, name, [&](auto tag) {
    using T = decltype(tag);
    return RunReduce<kOp, T, false>(name, type, plan, in, out, workspace,
                                    workspace_bytes, plan.reduce_count, stream);
  });
}

template <GpuReduction kOp>
int64_t WorkspaceBytesFor(const ReducePlan& plan, GpuType type) {
  int64_t bytes = 0;
  Dispatch<kFloats | kInt64>(type, "", [&](auto tag) {
    using A = Acc<kOp, decltype(tag)>;
    if (plan.out_elements == 0 || plan.reduce_count == 0 ||
        plan.is_identity()) {
      return absl::OkStatus();
    }
    const ReduceSchedule s = PlanReducePasses(plan);
    bytes = AlignUp(s.workspace_elements[0] * sizeof(A)) +
            AlignUp(s.workspace_elements[1] * sizeof(A));
    return absl::OkStatus();
  }).IgnoreError();
  return bytes;
}

// --- ArgMax. ---

// (value, index) pairs: a strictly larger value wins, equal values go to
// the smaller index. The start (lowest, 0) stands for "nothing seen".
template <typename C>
struct ArgBest {
  C value;
  int64_t index;
};

template <typename C>
__device__ __forceinline__ ArgBest<C> Better(ArgBest<C> a, ArgBest<C> b) {
  if (b.value > a.value || (b.value == a.value && b.index < a.index)) return b;
  return a;
}

template <typename T>
__device__ __forceinline__ auto ArgValue(T x) {
  if constexpr (std::is_same_v<T, uint8_t>) {
    return static_cast<int>(x != 0);  // bool
  } else {
    return ToCompute(x);
  }
}

template <typename T>
__device__ __forceinline__ auto ArgLowest() {
  using C = decltype(ArgValue(T()));
  if constexpr (std::is_same_v<T, uint8_t>) {
    return C(0);
  } else if constexpr (std::is_same_v<T, half>) {
    return C(-65504.0f);
  } else if constexpr (std::is_same_v<T, bfloat16>) {
    return __int_as_float(0xff7f0000);  // bfloat16's lowest
  } else {
    return Lowest<C>();
  }
}

// inner == 1: a warp per row.
template <typename T, typename Out>
__global__ void ArgMaxRowsKernel(const T* in, Out* out, int64_t outer,
                                 int64_t reduce) {
  using C = decltype(ArgValue(T()));
  constexpr int kPerBlock = kThreadsPerBlock / 32;
  const int lane = threadIdx.x % 32;
  for (int64_t o =
           static_cast<int64_t>(blockIdx.x) * kPerBlock + threadIdx.x / 32;
       o < outer; o += static_cast<int64_t>(gridDim.x) * kPerBlock) {
    const T* row = in + o * reduce;
    ArgBest<C> best{ArgLowest<T>(), 0};
    for (int64_t r = lane; r < reduce; r += 32) {
      const C v = ArgValue(row[r]);
      if (v > best.value) best = {v, r};
    }
#pragma unroll
    for (int offset = 16; offset > 0; offset >>= 1) {
      ArgBest<C> other;
      other.value = __shfl_xor_sync(0xffffffffu, best.value, offset);
      other.index = __shfl_xor_sync(0xffffffffu, best.index, offset);
      best = Better(best, other);
    }
    if (lane == 0) out[o] = static_cast<Out>(best.index);
  }
}

// inner > 1: a thread per output, walking the reduced dimension.
template <typename T, typename Out>
__global__ void ArgMaxColumnsKernel(const T* in, Out* out, int64_t outer,
                                    int64_t reduce, int64_t inner) {
  using C = decltype(ArgValue(T()));
  const int64_t n = outer * inner;
  for (int64_t e = GlobalThreadIndex(); e < n; e += GridStride()) {
    const int64_t o = e / inner;
    const int64_t i = e % inner;
    const T* p = in + o * reduce * inner + i;
    C best = ArgLowest<T>();
    int64_t index = 0;
    for (int64_t r = 0; r < reduce; ++r) {
      const C v = ArgValue(p[r * inner]);
      if (v > best) {
        best = v;
        index = r;
      }
    }
    out[e] = static_cast<Out>(index);
  }
}

// --- BiasAdd. ---

template <typename T>
__global__ void BiasAddKernel(const T* value, const T* bias, T* out, int64_t n,
                              int64_t channels, int64_t inner) {
  for (int64_t i = GlobalThreadIndex(); i < n; i += GridStride()) {
    const int64_t c = (inner == 1 ? i : i / inner) % channels;
    out[i] = FromCompute<T>(WrapAdd(ToCompute(value[i]), ToCompute(bias[c])));
  }
}

}  // namespace
}  // namespace gpu

int64_t ReduceWorkspaceBytes(const ReducePlan& plan, GpuType type) {
  // Max/Min accumulate in the same width as Sum for every type here.
  return gpu::WorkspaceBytesFor<GpuReduction::kSum>(plan, type);
}

absl::Status LaunchReduce(GpuReduction op, GpuType type, const ReducePlan& plan,
                          const void* in, void* out, void* workspace,
                          int64_t workspace_bytes, cudaStream_t stream) {
  using gpu::ReduceOp;
  switch (op) {
    case GpuReduction::kSum:
      return ReduceOp<GpuReduction::kSum>(type, plan, in, out, workspace,
                                          workspace_bytes, stream);
    case GpuReduction::kMean:
      return ReduceOp<GpuReduction::kMean>(type, plan, in, out, workspace,
                                           workspace_bytes, stream);
    case GpuReduction::kProd:
      return ReduceOp<GpuReduction::kProd>(type, plan, in, out, workspace,
                                           workspace_bytes, stream);
    case GpuReduction::kMax:
      return ReduceOp<GpuReduction::kMax>(type, plan, in, out, workspace,
                                          workspace_bytes, stream);
    case GpuReduction::kMin:
      return ReduceOp<GpuReduction::kMin>(type, plan, in, out, workspace,
                                          workspace_bytes, stream);
  }
  return absl::InvalidArgumentError(
      absl::StrCat("LaunchReduce: unknown op ", static_cast<int>(op)));
}

namespace {
ReducePlan FullReducePlan(int64_t n) {
  return MakeReducePlanFromMask({n}, {true});
}
}  // namespace

int64_t L2LossWorkspaceBytes(int64_t n, GpuType type) {
  return ReduceWorkspaceBytes(FullReducePlan(n), type);
}

absl::Status LaunchL2Loss(GpuType type, const void* in, int64_t n, void* out,
                          void* workspace, int64_t workspace_bytes,
                          cudaStream_t stream) {
  using namespace gpu;  // NOLINT
  const ReducePlan plan = FullReducePlan(n);
  return Dispatch<kFloats>(type, "L2Loss", [&](auto tag) {
    using T = decltype(tag);
    if (n == 0) {  // an empty sum: 0
      return RunReduce<GpuReduction::kSum, T, true>(
          "L2Loss", type, plan, in, out, workspace, workspace_bytes, 0, stream);
    }
    // A mean over a count of 2: sum(x^2) / 2, as the CPU divides.
    return RunReduce<GpuReduction::kMean, T, true>(
        "L2Loss", type, plan, in, out, workspace, workspace_bytes, 2, stream);
  });
}

absl::Status LaunchArgMax(GpuType type, GpuType out_type, const void* in,
                          int64_t outer, int64_t reduce, int64_t inner,
                          void* out, cudaStream_t stream) {
  using namespace gpu;  // NOLINT
  if (reduce <= 0) {
    return absl::InvalidArgumentError(
        "LaunchArgMax needs a non-empty reduced dimension");
  }
  if (outer * inner == 0) return absl::OkStatus();
  return Dispatch<kFloats | kBoolAsByte>(type, "ArgMax", [&](auto tag) {
    using T = decltype(tag);
    const T* x = static_cast<const T*>(in);
    auto launch = [&](auto* o) {
      if (inner == 1) {
        constexpr int kPerBlock = kThreadsPerBlock / 32;
        const unsigned blocks = static_cast<unsigned>(
            std::min<int64_t>((outer + kPerBlock - 1) / kPerBlock, kMaxBlocks));
        ArgMaxRowsKernel<<<blocks, kThreadsPerBlock, 0, stream>>>(x, o, outer,
                                                                  reduce);
      } else {
        ArgMaxColumnsKernel<<<BlocksFor(outer * inner), kThreadsPerBlock, 0,
                              stream>>>(x, o, outer, reduce, inner);
      }
      return LaunchStatus(absl::StrCat("ArgMax (", GpuTypeName(type), ") of [",
                                       outer, ", ", reduce, ", ", inner, "]"));
    };
    if (out_type == GpuType::kInt32) return launch(static_cast<int32_t*>(out));
    if (out_type == GpuType::kInt64) return launch(static_cast<int64_t*>(out));
    return absl::InvalidArgumentError(absl::StrCat(
        "ArgMax on GPU writes int32 or int64, not ", GpuTypeName(out_type)));
  });
}

absl::Status LaunchBiasAdd(GpuType type, const void* value, const void* bias,
                           void* out, int64_t n, int64_t channels,
                           int64_t inner, cudaStream_t stream) {
  using namespace gpu;  // NOLINT
  if (n <= 0) return absl::OkStatus();
  if (channels <= 0 || inner <= 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("LaunchBiasAdd: channels (", channels, ") and inner (",
                     inner, ") must be positive for a non-empty value"));
  }
  return Dispatch<kFloats | kInt64>(type, "BiasAdd", [&](auto tag) {
    using T = decltype(tag);
    BiasAddKernel<<<BlocksFor(n), kThreadsPerBlock, 0, stream>>>(
        static_cast<const T*>(value), static_cast<const T*>(bias),
        static_cast<T*>(out), n, channels, inner);
    return LaunchStatus(
        absl::StrCat("BiasAdd (", GpuTypeName(type), ", ", n, " elements)"));
  });
}

}  // namespace dflow
