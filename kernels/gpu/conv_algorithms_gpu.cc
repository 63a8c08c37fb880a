#include "kernels/gpu/conv_algorithms_gpu.h"

#include <array>
#include <atomic>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "kernels/gpu/matmul_gpu.h"
#include "runtime/gpu/cuda_status.h"

namespace dflow {

std::string DescribeConvolution(const GpuConvParams& p) {
  return absl::StrCat("convolution of input [", p.batch, ", ", p.in_rows, ", ",
                      p.in_cols, ", ", p.in_depth, "] (NHWC) with filter [",
                      p.filter_rows, ", ", p.filter_cols, ", ", p.filter_depth,
                      ", ", p.out_depth, "] to [", p.batch, ", ", p.out_rows,
                      ", ", p.out_cols, ", ", p.out_depth, "], strides [",
                      p.stride_rows, ", ", p.stride_cols, "], dilations [",
                      p.dilation_rows, ", ", p.dilation_cols,
                      "], leading padding [", p.pad_top, ", ", p.pad_left, "]");
}

namespace {

std::atomic<bool> conv_autotune{true};

constexpr size_t kWorkspaceLimit = size_t{1} << 30;

using AlgoKey = std::array<int64_t, 21>;

struct AlgoCache {
  absl::Mutex mu;
  // The cudnn*Algo_t value and the math type it was chosen with.
  absl::flat_hash_map<AlgoKey, std::pair<int, int>> algos;
};

AlgoCache& Cache() {
  static AlgoCache* const cache = new AlgoCache();
  return *cache;
}

AlgoKey MakeKey(int ordinal, int kind, const GpuConvParams& p,
                const ConvDnnPlan& plan, bool tf32) {
  return {ordinal,
          kind,
          static_cast<int64_t>(p.dtype),
          tf32 ? 1 : 0,
          p.batch,
          plan.padded_input.h,
          plan.padded_input.w,
          p.in_depth,
          p.filter_rows,
          p.filter_cols,
          p.filter_depth,
          p.out_depth,
          p.out_rows,
          p.out_cols,
          p.stride_rows,
          p.stride_cols,
          p.dilation_rows,
          p.dilation_cols,
          plan.pad_rows,
          plan.pad_cols,
          plan.groups};
}

}  // namespace

void SetGpuConvAutotune(bool enabled) {
  conv_autotune.store(enabled, std::memory_order_relaxed);
}
bool GpuConvAutotuneEnabled() {
  return conv_autotune.load(std::memory_order_relaxed);
}

int64_t ConvAlgorithmCacheSize() {
  AlgoCache& cache = Cache();
  absl::MutexLock lock(&cache.mu);
  return static_cast<int64_t>(cache.algos.size());
}

void ClearConvAlgorithmCache() {
  AlgoCache& cache = Cache();
  absl::MutexLock lock(&cache.mu);
  cache.algos.clear();
}

#if DFLOW_HAVE_CUDNN

const char* ConvKindName(ConvKind kind) {
  switch (kind) {
    case ConvKind::kForward:
      return "Conv2D";
    case ConvKind::kBackwardData:
      return "Conv2DBackpropInput";
    case ConvKind::kBackwardFilter:
      return "Conv2DBackpropFilter";
  }
  return "?";
}

ConvDescriptors::~ConvDescriptors() {
  if (filter_ != nullptr) cudnnDestroyFilterDescriptor(filter_);
  if (conv_ != nullptr) cudnnDestroyConvolutionDescriptor(conv_);
}

absl::Status ConvDescriptors::Init(const GpuConvParams& p,
                                   const ConvDnnPlan& plan,
                                   cudnnDataType_t type) {
  const cudnnDataType_t compute =
      type == CUDNN_DATA_DOUBLE ? CUDNN_DATA_DOUBLE : CUDNN_DATA_FLOAT;
  absl::Status s = x_.Init(type, plan.padded_input);
  if (s.ok()) s = y_.Init(type, plan.output);
  if (s.ok()) {
    s = CudnnStatus(cudnnCreateFilterDescriptor(&filter_),
                    "cudnnCreateFilterDescriptor");
  }
  if (s.ok()) {
    s = CudnnStatus(cudnnSetFilter4dDescriptor(filter_, type, CUDNN_TENSOR_NHWC,
                                               static_cast<int>(p.out_depth),
                                               static_cast<int>(p.filter_depth),
                                               static_cast<int>(p.filter_rows),
                                               static_cast<int>(p.filter_cols)),
                    "cudnnSetFilter4dDescriptor");
  }
  if (s.ok()) {
    s = CudnnStatus(cudnnCreateConvolutionDescriptor(&conv_),
                    "cudnnCreateConvolutionDescriptor");
  }
  if (s.ok()) {
    s = CudnnStatus(
        cudnnSetConvolution2dDescriptor(
            conv_, static_cast<int>(plan.pad_rows),
            static_cast<int>(plan.pad_cols), static_cast<int>(p.stride_rows),
            static_cast<int>(p.stride_cols), static_cast<int>(p.dilation_rows),
            static_cast<int>(p.dilation_cols), CUDNN_CROSS_CORRELATION,
            compute),
        "cudnnSetConvolution2dDescriptor");
  }
  if (s.ok()) {
    s = CudnnStatus(
        cudnnSetConvolutionGroupCount(conv_, static_cast<int>(plan.groups)),
        "cudnnSetConvolutionGroupCount");
  }
  if (!s.ok()) return s;
  // cuDNN's own output size must be the plan's (a bug otherwise).
  int n = 0, c = 0, h = 0, w = 0;
  s = CudnnStatus(cudnnGetConvolution2dForwardOutputDim(
                      conv_, x_.get(), filter_, &n, &c, &h, &w),
                  "cudnnGetConvolution2dForwardOutputDim");
  if (s.ok() && (n != plan.output.n || c != plan.output.c ||
                 h != plan.output.h || w != plan.output.w)) {
    s = absl::InternalError(
        absl::StrCat(DescribeConvolution(p), ": cuDNN computes an output of [",
                     n, ", ", h, ", ", w, ", ", c,
                     "] for the planned padding (a dflow bug: report it)"));
  }
  return s;
}

absl::Status ConvDescriptors::SetMath(cudnnMathType_t math) {
  return CudnnStatus(cudnnSetConvolutionMathType(conv_, math),
                     "cudnnSetConvolutionMathType");
}

namespace {

// FMA only for float unless TF32 is allowed; tensor cores for 16-bit.
cudnnMathType_t RequestedMath(cudnnDataType_t type) {
  switch (type) {
    case CUDNN_DATA_FLOAT:
      return GpuTensorFloat32Enabled() ? CUDNN_DEFAULT_MATH : CUDNN_FMA_MATH;
    case CUDNN_DATA_HALF:
    case CUDNN_DATA_BFLOAT16:
      return CUDNN_TENSOR_OP_MATH;
    default:
      return CUDNN_DEFAULT_MATH;
  }
}

bool OnTensorCores(cudnnMathType_t math) {
  return math == CUDNN_TENSOR_OP_MATH ||
         math == CUDNN_TENSOR_OP_MATH_ALLOW_CONVERSION;
}

// One candidate, whatever the direction.
struct Candidate {
  int algo = 0;
  cudnnStatus_t status = CUDNN_STATUS_SUCCESS;
  size_t memory = 0;
  cudnnMathType_t math = CUDNN_DEFAULT_MATH;
};

template <typename Perf>
std::vector<Candidate> Candidates(const Perf* perf, int count) {
  std::vector<Candidate> out;
  for (int i = 0; i < count; ++i) {
    out.push_back({static_cast<int>(perf[i].algo), perf[i].status,
                   perf[i].memory, perf[i].mathType});
  }
  return out;
}

// cuDNN's candidates, best first: timed on the GPU (`find`, with a
// workspace of `workspace_bytes` at `workspace`) or by heuristics.
absl::Status ListCandidates(const DnnContext& dnn, ConvKind kind,
                            const ConvDescriptors& d, const ConvBuffers& b,
                            bool find, void* workspace, size_t workspace_bytes,
                            std::vector<Candidate>* out) {
  cudnnHandle_t h = dnn.handle;
  int max = 0, count = 0;
  absl::Status s;
  switch (kind) {
    case ConvKind::kForward: {
      s = CudnnStatus(cudnnGetConvolutionForwardAlgorithmMaxCount(h, &max),
                      "cudnnGetConvolutionForwardAlgorithmMaxCount");
      if (!s.ok()) return s;
      std::vector<cudnnConvolutionFwdAlgoPerf_t> perf(max);
      s = find ? CudnnStatus(
                     cudnnFindConvolutionForwardAlgorithmEx(
                         h, d.x(), b.x, d.filter(), b.w, d.conv(), d.y(), b.y,
                         max, &count, perf.data(), workspace, workspace_bytes),
                     "cudnnFindConvolutionForwardAlgorithmEx")
               : CudnnStatus(cudnnGetConvolutionForwardAlgorithm_v7(
                                 h, d.x(), d.filter(), d.conv(), d.y(), max,
                                 &count, perf.data()),
                             "cudnnGetConvolutionForwardAlgorithm_v7");
      *out = Candidates(perf.data(), count);
      return s;
    }
    case ConvKind::kBackwardData: {
      s = CudnnStatus(cudnnGetConvolutionBackwardDataAlgorithmMaxCount(h, &max),
                      "cudnnGetConvolutionBackwardDataAlgorithmMaxCount");
      if (!s.ok()) return s;
      std::vector<cudnnConvolutionBwdDataAlgoPerf_t> perf(max);
      s = find ? CudnnStatus(
                     cudnnFindConvolutionBackwardDataAlgorithmEx(
                         h, d.filter(), b.w, d.y(), b.dy, d.conv(), d.x(), b.dx,
                         max, &count, perf.data(), workspace, workspace_bytes),
                     "cudnnFindConvolutionBackwardDataAlgorithmEx")
               : CudnnStatus(cudnnGetConvolutionBackwardDataAlgorithm_v7(
                                 h, d.filter(), d.y(), d.conv(), d.x(), max,
                                 &count, perf.data()),
                             "cudnnGetConvolutionBackwardDataAlgorithm_v7");
      *out = Candidates(perf.data(), count);
      return s;
    }
    case ConvKind::kBackwardFilter: {
      s = CudnnStatus(
          cudnnGetConvolutionBackwardFilterAlgorithmMaxCount(h, &max),
          "cudnnGetConvolutionBackwardFilterAlgorithmMaxCount");
      if (!s.ok()) return s;
      std::vector<cudnnConvolutionBwdFilterAlgoPerf_t> perf(max);
      s = find ? CudnnStatus(
                     cudnnFindConvolutionBackwardFilterAlgorithmEx(
                         h, d.x(), b.x, d.y(), b.dy, d.conv(), d.filter(), b.dw,
                         max, &count, perf.data(), workspace, workspace_bytes),
                     "cudnnFindConvolutionBackwardFilterAlgorithmEx")
               : CudnnStatus(cudnnGetConvolutionBackwardFilterAlgorithm_v7(
                                 h, d.x(), d.y(), d.conv(), d.filter(), max,
                                 &count, perf.data()),
                             "cudnnGetConvolutionBackwardFilterAlgorithm_v7");
      *out = Candidates(perf.data(), count);
      return s;
    }
  }
  return absl::InternalError("unknown convolution kind");
}

absl::StatusOr<size_t> WorkspaceSize(const DnnContext& dnn, ConvKind kind,
                                     const ConvDescriptors& d, int algo) {
  size_t bytes = 0;
  cudnnStatus_t st = CUDNN_STATUS_SUCCESS;
  switch (kind) {
    case ConvKind::kForward:
      st = cudnnGetConvolutionForwardWorkspaceSize(
          dnn.handle, d.x(), d.filter(), d.conv(), d.y(),
          static_cast<cudnnConvolutionFwdAlgo_t>(algo), &bytes);
      break;
    case ConvKind::kBackwardData:
      st = cudnnGetConvolutionBackwardDataWorkspaceSize(
          dnn.handle, d.filter(), d.y(), d.conv(), d.x(),
          static_cast<cudnnConvolutionBwdDataAlgo_t>(algo), &bytes);
      break;
    case ConvKind::kBackwardFilter:
      st = cudnnGetConvolutionBackwardFilterWorkspaceSize(
          dnn.handle, d.x(), d.y(), d.conv(), d.filter(),
          static_cast<cudnnConvolutionBwdFilterAlgo_t>(algo), &bytes);
      break;
  }
  absl::Status s = CudnnStatus(st, "cudnnGetConvolution*WorkspaceSize");
  if (!s.ok()) return s;
  return bytes;
}

// The largest workspace `scratch` gives, up to the limit, for timing
// candidates (those needing more are not timed); none below 1 MiB.
absl::Status FindWorkspace(GpuScratchAllocator* scratch, void** workspace,
                           size_t* bytes) {
  *workspace = nullptr;
  *bytes = 0;
  for (size_t size = kWorkspaceLimit; size >= (size_t{1} << 20); size /= 4) {
    absl::StatusOr<void*> p = scratch->Allocate(size);
    if (p.ok()) {
      *workspace = *p;
      *bytes = size;
      return absl::OkStatus();
    }
    if (p.status().code() != absl::StatusCode::kResourceExhausted) {
      return p.status();
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<ConvAlgorithm> ChooseConvAlgorithm(
    const DnnContext& dnn, ConvKind kind, const GpuConvParams& p,
    const ConvDnnPlan& plan, cudnnDataType_t type, ConvDescriptors& d,
    const ConvBuffers& b, GpuScratchAllocator* scratch) {
  const cudnnMathType_t requested = RequestedMath(type);
  const AlgoKey key =
      MakeKey(dnn.ordinal, static_cast<int>(kind), p, plan,
              type == CUDNN_DATA_FLOAT && requested == CUDNN_DEFAULT_MATH);
  AlgoCache& cache = Cache();
  std::pair<int, int> choice(-1, 0);
  {
    absl::MutexLock lock(&cache.mu);
    auto it = cache.algos.find(key);
    if (it != cache.algos.end()) choice = it->second;
  }
  if (choice.first < 0) {
    absl::Status s = d.SetMath(requested);
    const bool find = GpuConvAutotuneEnabled();
    void* workspace = nullptr;
    size_t workspace_bytes = 0;
    if (s.ok() && find)
      s = FindWorkspace(scratch, &workspace, &workspace_bytes);
    std::vector<Candidate> candidates;
    if (s.ok()) {
      s = ListCandidates(dnn, kind, d, b, find, workspace, workspace_bytes,
                         &candidates);
    }
    if (!s.ok()) return s;
    const size_t limit = find ? workspace_bytes : kWorkspaceLimit;
    for (const Candidate& c : candidates) {
      if (c.status != CUDNN_STATUS_SUCCESS || c.memory > limit) continue;
      // With TF32 off, a float convolution must not run on tensor cores;
      // it runs with the FMA math type whatever the candidate says.
      if (requested == CUDNN_FMA_MATH && OnTensorCores(c.math)) continue;
      choice = {c.algo,
                static_cast<int>(requested == CUDNN_FMA_MATH ? CUDNN_FMA_MATH
                                                             : c.math)};
      break;
    }
    if (choice.first < 0) {
      return absl::UnimplementedError(absl::StrCat(
          "cuDNN offers no algorithm for this configuration",
          find ? absl::StrCat(" within a ", workspace_bytes >> 20,
                              " MiB workspace")
               : std::string(),
          " (", candidates.size(), " candidates); place the op on CPU"));
    }
    absl::MutexLock lock(&cache.mu);
    cache.algos.emplace(key, choice);
  }
  absl::Status s = d.SetMath(static_cast<cudnnMathType_t>(choice.second));
  if (!s.ok()) return s;
  absl::StatusOr<size_t> bytes = WorkspaceSize(dnn, kind, d, choice.first);
  if (!bytes.ok()) return bytes.status();
  ConvAlgorithm algorithm;
  algorithm.algo = choice.first;
  algorithm.workspace_bytes = *bytes;
  return algorithm;
}

#endif  // DFLOW_HAVE_CUDNN

}  // namespace dflow
