#include "kernels/gpu/conv_ops_gpu.h"

#include <algorithm>
#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "kernels/gpu/matmul_gpu.h"
#include "runtime/gpu/cuda_status.h"

namespace dflow {

namespace {

std::atomic<bool> conv_autotune{true};

std::string Describe(const GpuConvParams& p) {
  return absl::StrCat(
      "convolution of input [", p.batch, ", ", p.in_rows, ", ", p.in_cols,
      ", ", p.in_depth, "] (NHWC) with filter [", p.filter_rows, ", ",
      p.filter_cols, ", ", p.filter_depth, ", ", p.out_depth, "] to [",
      p.batch, ", ", p.out_rows, ", ", p.out_cols, ", ", p.out_depth,
      "], strides [", p.stride_rows, ", ", p.stride_cols, "], dilations [",
      p.dilation_rows, ", ", p.dilation_cols, "], leading padding [",
      p.pad_top, ", ", p.pad_left, "]");
}

// One spatial dimension: cuDNN's symmetric padding and the extra zeros.
absl::Status PlanDim(const GpuConvParams& p, int64_t in, int64_t window,
                     int64_t dilation, int64_t stride, int64_t pad_before,
                     int64_t out, const char* name, int64_t* pad,
                     int64_t* extra_before, int64_t* extra_after) {
  const int64_t effective = (window - 1) * dilation + 1;
  // Padding after the last input element that the last window reaches.
  const int64_t pad_after =
      std::max<int64_t>(0, (out - 1) * stride + effective - in - pad_before);
  *pad = std::min(pad_before, pad_after);
  *extra_before = pad_before - *pad;
  *extra_after = pad_after - *pad;
  // cuDNN's output size for the padded input must be TensorFlow's.
  const int64_t span = in + pad_before + pad_after - effective;
  if (span < 0 || span / stride + 1 != out) {
    return absl::InvalidArgumentError(absl::StrCat(
        Describe(p), ": the output ", name, " ", out,
        " does not follow from the input, window and leading padding"));
  }
  return absl::OkStatus();
}

// --- Algorithms ------------------------------------------------------------------

enum class ConvKind { kForward = 0, kBackwardData = 1, kBackwardFilter = 2 };

const char* KindName(ConvKind kind) {
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

constexpr size_t kWorkspaceLimit = size_t{1} << 30;

using AlgoKey = std::array<int64_t, 22>;

struct AlgoCache {
  absl::Mutex mu;
  // The cudnn*Algo_t value and the math type it was chosen with.
  absl::flat_hash_map<AlgoKey, std::pair<int, int>> algos;
};

AlgoCache& Cache() {
  static AlgoCache* const cache = new AlgoCache();
  return *cache;
}

AlgoKey MakeKey(int ordinal, ConvKind kind, const GpuConvParams& p,
                const ConvDnnPlan& plan, bool tf32) {
  return {ordinal,
          static_cast<int64_t>(kind),
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
          plan.groups,
          0};
}

}  // namespace

absl::StatusOr<ConvDnnPlan> PlanConvolution(const GpuConvParams& p) {
  if (p.batch < 0 || p.in_rows < 0 || p.in_cols < 0 || p.in_depth < 0 ||
      p.filter_rows < 1 || p.filter_cols < 1 || p.filter_depth < 1 ||
      p.out_depth < 0 || p.out_rows < 0 || p.out_cols < 0 ||
      p.stride_rows < 1 || p.stride_cols < 1 || p.dilation_rows < 1 ||
      p.dilation_cols < 1 || p.pad_top < 0 || p.pad_left < 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        Describe(p), ": sizes must be >= 0, filter sizes, strides and "
                     "dilations >= 1"));
  }
  ConvDnnPlan plan;
  if (p.in_depth % p.filter_depth != 0 ||
      (p.in_depth / p.filter_depth > 1 &&
       p.out_depth % (p.in_depth / p.filter_depth) != 0)) {
    return absl::InvalidArgumentError(absl::StrCat(
        Describe(p), ": the filter's input channels must divide the "
                     "input's, and the groups the output channels"));
  }
  plan.groups = p.in_depth / p.filter_depth;
  if (absl::Status s = PlanDim(p, p.in_rows, p.filter_rows, p.dilation_rows,
                               p.stride_rows, p.pad_top, p.out_rows, "height",
                               &plan.pad_rows, &plan.extra_top,
                               &plan.extra_bottom);
      !s.ok() && p.out_rows > 0) {
    return s;
  }
  if (absl::Status s = PlanDim(p, p.in_cols, p.filter_cols, p.dilation_cols,
                               p.stride_cols, p.pad_left, p.out_cols, "width",
                               &plan.pad_cols, &plan.extra_left,
                               &plan.extra_right);
      !s.ok() && p.out_cols > 0) {
    return s;
  }
  plan.input = NhwcLayout(p.batch, p.in_rows, p.in_cols, p.in_depth);
  plan.padded_input = NhwcLayout(
      p.batch, p.in_rows + plan.extra_top + plan.extra_bottom,
      p.in_cols + plan.extra_left + plan.extra_right, p.in_depth);
  plan.padded_interior = plan.padded_input;
  plan.padded_interior.h = p.in_rows;
  plan.padded_interior.w = p.in_cols;
  plan.interior_offset = plan.extra_top * plan.padded_input.stride_h +
                         plan.extra_left * plan.padded_input.stride_w;
  // HWIO: element (k, c, r, s) at ((r * S + s) * C + c) * K + k.
  DnnTensorLayout& hwio = plan.filter_hwio;
  hwio.n = p.out_depth;
  hwio.c = p.filter_depth;
  hwio.h = p.filter_rows;
  hwio.w = p.filter_cols;
  hwio.stride_n = 1;
  hwio.stride_c = p.out_depth;
  hwio.stride_w = p.filter_depth * p.out_depth;
  hwio.stride_h = p.filter_cols * hwio.stride_w;
  plan.filter_krsc =
      NhwcLayout(p.out_depth, p.filter_rows, p.filter_cols, p.filter_depth);
  plan.output = NhwcLayout(p.batch, p.out_rows, p.out_cols, p.out_depth);
  for (const auto& [layout, what] :
       {std::pair(&plan.padded_input, "the (padded) input"),
        std::pair(&plan.filter_hwio, "the filter"),
        std::pair(&plan.output, "the output")}) {
    if (absl::Status s = CheckDnnLimits(*layout, what); !s.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat(Describe(p), ": ", s.message()));
    }
  }
  return plan;
}

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

namespace {

// The descriptors of one convolution.
class ConvDescriptors {
 public:
  ConvDescriptors() = default;
  ~ConvDescriptors() {
    if (filter_ != nullptr) cudnnDestroyFilterDescriptor(filter_);
    if (conv_ != nullptr) cudnnDestroyConvolutionDescriptor(conv_);
  }
  ConvDescriptors(const ConvDescriptors&) = delete;
  ConvDescriptors& operator=(const ConvDescriptors&) = delete;

  absl::Status Init(const GpuConvParams& p, const ConvDnnPlan& plan,
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
      s = CudnnStatus(
          cudnnSetFilter4dDescriptor(
              filter_, type, CUDNN_TENSOR_NHWC, static_cast<int>(p.out_depth),
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
              static_cast<int>(plan.pad_cols),
              static_cast<int>(p.stride_rows), static_cast<int>(p.stride_cols),
              static_cast<int>(p.dilation_rows),
              static_cast<int>(p.dilation_cols), CUDNN_CROSS_CORRELATION,
              compute),
          "cudnnSetConvolution2dDescriptor");
    }
    if (s.ok()) {
      s = CudnnStatus(
          cudnnSetConvolutionGroupCount(conv_, static_cast<int>(plan.groups)),
          "cudnnSetConvolutionGroupCount");
    }
    if (s.ok()) s = SetMath(DefaultMath(type));
    if (!s.ok()) return s;
    // cuDNN's own output size must be the plan's (a bug otherwise).
    int n = 0, c = 0, h = 0, w = 0;
    s = CudnnStatus(cudnnGetConvolution2dForwardOutputDim(
                        conv_, x_.get(), filter_, &n, &c, &h, &w),
                    "cudnnGetConvolution2dForwardOutputDim");
    if (s.ok() && (n != plan.output.n || c != plan.output.c ||
                   h != plan.output.h || w != plan.output.w)) {
      s = absl::InternalError(absl::StrCat(
          Describe(p), ": cuDNN computes an output of [", n, ", ", h, ", ", w,
          ", ", c, "] for the planned padding (a dflow bug: report it)"));
    }
    return s;
  }

  // FMA only for float unless TF32 is allowed; tensor cores for 16-bit.
  static cudnnMathType_t DefaultMath(cudnnDataType_t type) {
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

  absl::Status SetMath(cudnnMathType_t math) {
    return CudnnStatus(cudnnSetConvolutionMathType(conv_, math),
                       "cudnnSetConvolutionMathType");
  }

  cudnnTensorDescriptor_t x() const { return x_.get(); }
  cudnnTensorDescriptor_t y() const { return y_.get(); }
  cudnnFilterDescriptor_t filter() const { return filter_; }
  cudnnConvolutionDescriptor_t conv() const { return conv_; }

 private:
  DnnTensorDescriptor x_, y_;
  cudnnFilterDescriptor_t filter_ = nullptr;
  cudnnConvolutionDescriptor_t conv_ = nullptr;
};

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

// The buffers of one call: x and dx, w and dw, y and dy share slots.
struct ConvBuffers {
  const void* x = nullptr;
  void* dx = nullptr;
  const void* w = nullptr;
  void* dw = nullptr;
  const void* y_in = nullptr;  // dy
  void* y = nullptr;
};

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
      s = find ? CudnnStatus(cudnnFindConvolutionForwardAlgorithmEx(
                                 h, d.x(), b.x, d.filter(), b.w, d.conv(),
                                 d.y(), b.y, max, &count, perf.data(),
                                 workspace, workspace_bytes),
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
      s = find ? CudnnStatus(cudnnFindConvolutionBackwardDataAlgorithmEx(
                                 h, d.filter(), b.w, d.y(), b.y_in, d.conv(),
                                 d.x(), b.dx, max, &count, perf.data(),
                                 workspace, workspace_bytes),
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
      s = find ? CudnnStatus(cudnnFindConvolutionBackwardFilterAlgorithmEx(
                                 h, d.x(), b.x, d.y(), b.y_in, d.conv(),
                                 d.filter(), b.dw, max, &count, perf.data(),
                                 workspace, workspace_bytes),
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

// The algorithm for `key` and the math type it runs with: cached, or
// chosen now (and cached).
absl::StatusOr<std::pair<int, int>> ChooseAlgorithm(const DnnContext& dnn, ConvKind kind,
                                    const AlgoKey& key, ConvDescriptors& d,
                                    cudnnMathType_t math,
                                    const ConvBuffers& b,
                                    GpuScratchAllocator* scratch) {
  AlgoCache& cache = Cache();
  {
    absl::MutexLock lock(&cache.mu);
    auto it = cache.algos.find(key);
    if (it != cache.algos.end()) return it->second;
  }
  const bool find = GpuConvAutotuneEnabled();
  void* workspace = nullptr;
  size_t workspace_bytes = 0;
  if (find) {
    // The largest workspace we can get, up to the limit: algorithms that
    // need more are not timed.
    for (size_t bytes = kWorkspaceLimit; bytes >= (size_t{1} << 20);
         bytes /= 4) {
      absl::StatusOr<void*> p = scratch->Allocate(bytes);
      if (p.ok()) {
        workspace = *p;
        workspace_bytes = bytes;
        break;
      }
      if (p.status().code() != absl::StatusCode::kResourceExhausted) {
        return p.status();
      }
    }
  }
  std::vector<Candidate> candidates;
  absl::Status s = ListCandidates(dnn, kind, d, b, find, workspace,
                                  workspace_bytes, &candidates);
  if (!s.ok()) return s;
  const size_t limit = find ? workspace_bytes : kWorkspaceLimit;
  for (const Candidate& c : candidates) {
    if (c.status != CUDNN_STATUS_SUCCESS || c.memory > limit) continue;
    // With TF32 off, a float convolution must not run on tensor cores.
    if (math == CUDNN_FMA_MATH && c.math != CUDNN_FMA_MATH) continue;
    absl::MutexLock lock(&cache.mu);
    const std::pair<int, int> choice(c.algo, static_cast<int>(c.math));
    cache.algos.emplace(key, choice);
    return choice;
  }
  return absl::UnimplementedError(absl::StrCat(
      KindName(kind), ": cuDNN offers no algorithm for this configuration",
      find ? absl::StrCat(" within a ", workspace_bytes >> 20,
                          " MiB workspace")
           : std::string(),
      " (", candidates.size(), " candidates); place the op on CPU"));
}

// What every launch does: plan, empty cases, descriptors, algorithm.
struct ConvLaunch {
  ConvLaunch(int gpu, void* gpu_stream, const GpuConvParams& p,
             GpuScratchAllocator* given_scratch)
      : ordinal(gpu), stream(gpu_stream), params(p), scratch(given_scratch) {
    if (scratch == nullptr) {
      own_scratch.emplace(ordinal, stream);
      scratch = &*own_scratch;
    }
  }

  absl::Status Prepare() {
    absl::StatusOr<ConvDnnPlan> planned = PlanConvolution(params);
    if (!planned.ok()) return planned.status();
    plan = *std::move(planned);
    absl::StatusOr<cudnnDataType_t> dnn_type =
        DnnDataType(params.dtype, "Conv2D");
    if (!dnn_type.ok()) return dnn_type.status();
    type = *dnn_type;
    return absl::OkStatus();
  }

  absl::Status Zero(void* dst, int64_t elements) {
    DFLOW_CUDA_RETURN_IF_ERROR(cudaSetDevice(ordinal), "cudaSetDevice");
    return CudaStatus(
        cudaMemsetAsync(dst, 0, Bytes(elements),
                        static_cast<cudaStream_t>(stream)),
        "cudaMemsetAsync");
  }

  size_t Bytes(int64_t elements) const {
    return static_cast<size_t>(elements) * DataTypeSize(params.dtype);
  }

  absl::StatusOr<void*> Scratch(int64_t elements) {
    return scratch->Allocate(Bytes(elements));
  }

  // A zeroed padded copy of `input`, or `input` itself when unpadded.
  absl::StatusOr<const void*> PaddedInput(const DnnContext& dnn,
                                          const void* input) {
    if (!plan.padded()) return input;
    absl::StatusOr<void*> padded = Scratch(plan.padded_input.num_elements());
    if (!padded.ok()) return padded.status();
    absl::Status s = Zero(*padded, plan.padded_input.num_elements());
    if (s.ok()) {
      s = DnnTransform(dnn, type, plan.input, input, plan.padded_interior,
                       static_cast<char*>(*padded) +
                           Bytes(plan.interior_offset));
    }
    if (!s.ok()) return s;
    return static_cast<const void*>(*padded);
  }

  // Descriptors and the algorithm for `kind`; then the workspace.
  absl::Status Setup(const DnnContext& dnn, ConvKind kind,
                     const ConvBuffers& b) {
    absl::Status s = descriptors.Init(params, plan, type);
    if (!s.ok()) return s;
    const cudnnMathType_t math = ConvDescriptors::DefaultMath(type);
    const AlgoKey key = MakeKey(ordinal, kind, params, plan,
                                math == CUDNN_DEFAULT_MATH &&
                                    type == CUDNN_DATA_FLOAT);
    absl::StatusOr<std::pair<int, int>> choice =
        ChooseAlgorithm(dnn, kind, key, descriptors, math, b, scratch);
    if (!choice.ok()) return choice.status();
    algo = choice->first;
    s = descriptors.SetMath(static_cast<cudnnMathType_t>(choice->second));
    if (!s.ok()) return s;
    absl::StatusOr<size_t> bytes = WorkspaceSize(dnn, kind, descriptors, algo);
    if (!bytes.ok()) return bytes.status();
    workspace_bytes = *bytes;
    if (workspace_bytes > 0) {
      absl::StatusOr<void*> ws = scratch->Allocate(workspace_bytes);
      if (!ws.ok()) return ws.status();
      workspace = *ws;
    }
    return absl::OkStatus();
  }

  // Scaling factors: double for double tensors, float otherwise.
  const void* one() const {
    return type == CUDNN_DATA_DOUBLE ? static_cast<const void*>(&one_d)
                                      : &one_f;
  }
  const void* zero() const {
    return type == CUDNN_DATA_DOUBLE ? static_cast<const void*>(&zero_d)
                                      : &zero_f;
  }

  absl::Status Annotate(const absl::Status& s, ConvKind kind) const {
    if (s.ok()) return s;
    return absl::Status(s.code(), absl::StrCat(KindName(kind), " on GPU:",
                                               ordinal, " (", Describe(params),
                                               "): ", s.message()));
  }

  int ordinal;
  void* stream;
  GpuConvParams params;
  GpuScratchAllocator* scratch;
  std::optional<StreamOrderedScratch> own_scratch;
  ConvDnnPlan plan;
  cudnnDataType_t type = CUDNN_DATA_FLOAT;
  ConvDescriptors descriptors;
  int algo = 0;
  void* workspace = nullptr;
  size_t workspace_bytes = 0;
  const float one_f = 1, zero_f = 0;
  const double one_d = 1, zero_d = 0;
};

}  // namespace

absl::Status LaunchConv2D(int ordinal, void* stream, const GpuConvParams& p,
                          const void* input, const void* filter, void* output,
                          GpuScratchAllocator* scratch) {
  ConvLaunch l(ordinal, stream, p, scratch);
  const ConvKind kind = ConvKind::kForward;
  absl::Status s = l.Prepare();
  if (!s.ok() || l.plan.output.num_elements() == 0) return l.Annotate(s, kind);
  if (p.in_rows == 0 || p.in_cols == 0 || p.in_depth == 0) {
    return l.Annotate(l.Zero(output, l.plan.output.num_elements()), kind);
  }
  return l.Annotate(
      DnnHandles::Global()->With(
          ordinal, stream,
          [&](const DnnContext& dnn) -> absl::Status {
            absl::StatusOr<void*> w = l.Scratch(l.plan.filter_krsc.num_elements());
            if (!w.ok()) return w.status();
            absl::Status s = DnnTransform(dnn, l.type, l.plan.filter_hwio,
                                          filter, l.plan.filter_krsc, *w);
            absl::StatusOr<const void*> x = l.PaddedInput(dnn, input);
            if (!s.ok() || !x.ok()) return s.ok() ? x.status() : s;
            ConvBuffers b;
            b.x = *x;
            b.w = *w;
            b.y = output;
            if (s = l.Setup(dnn, kind, b); !s.ok()) return s;
            return CudnnStatus(
                cudnnConvolutionForward(
                    dnn.handle, l.one(), l.descriptors.x(), *x, l.descriptors.filter(), *w,
                    l.descriptors.conv(),
                    static_cast<cudnnConvolutionFwdAlgo_t>(l.algo),
                    l.workspace, l.workspace_bytes, l.zero(), l.descriptors.y(),
                    output),
                "cudnnConvolutionForward");
          }),
      kind);
}

absl::Status LaunchConv2DBackpropInput(int ordinal, void* stream,
                                       const GpuConvParams& p,
                                       const void* filter,
                                       const void* out_backprop,
                                       void* in_backprop,
                                       GpuScratchAllocator* scratch) {
  ConvLaunch l(ordinal, stream, p, scratch);
  const ConvKind kind = ConvKind::kBackwardData;
  absl::Status s = l.Prepare();
  if (!s.ok() || l.plan.input.num_elements() == 0) return l.Annotate(s, kind);
  if (l.plan.output.num_elements() == 0) {
    // No output position reads the input: its gradient is zero.
    return l.Annotate(l.Zero(in_backprop, l.plan.input.num_elements()), kind);
  }
  return l.Annotate(
      DnnHandles::Global()->With(
          ordinal, stream,
          [&](const DnnContext& dnn) -> absl::Status {
            absl::StatusOr<void*> w = l.Scratch(l.plan.filter_krsc.num_elements());
            if (!w.ok()) return w.status();
            absl::Status s = DnnTransform(dnn, l.type, l.plan.filter_hwio,
                                          filter, l.plan.filter_krsc, *w);
            if (!s.ok()) return s;
            void* dx = in_backprop;
            if (l.plan.padded()) {
              absl::StatusOr<void*> padded =
                  l.Scratch(l.plan.padded_input.num_elements());
              if (!padded.ok()) return padded.status();
              dx = *padded;
            }
            ConvBuffers b;
            b.w = *w;
            b.y_in = out_backprop;
            b.dx = dx;
            if (s = l.Setup(dnn, kind, b); !s.ok()) return s;
            s = CudnnStatus(
                cudnnConvolutionBackwardData(
                    dnn.handle, l.one(), l.descriptors.filter(), *w, l.descriptors.y(),
                    out_backprop, l.descriptors.conv(),
                    static_cast<cudnnConvolutionBwdDataAlgo_t>(l.algo),
                    l.workspace, l.workspace_bytes, l.zero(), l.descriptors.x(), dx),
                "cudnnConvolutionBackwardData");
            if (!s.ok() || dx == in_backprop) return s;
            // The padding's gradient is dropped.
            return DnnTransform(
                dnn, l.type, l.plan.padded_interior,
                static_cast<const char*>(dx) + l.Bytes(l.plan.interior_offset),
                l.plan.input, in_backprop);
          }),
      kind);
}

absl::Status LaunchConv2DBackpropFilter(int ordinal, void* stream,
                                        const GpuConvParams& p,
                                        const void* input,
                                        const void* out_backprop,
                                        void* filter_backprop,
                                        GpuScratchAllocator* scratch) {
  ConvLaunch l(ordinal, stream, p, scratch);
  const ConvKind kind = ConvKind::kBackwardFilter;
  absl::Status s = l.Prepare();
  if (!s.ok() || l.plan.filter_hwio.num_elements() == 0) {
    return l.Annotate(s, kind);
  }
  if (l.plan.output.num_elements() == 0 || l.plan.input.num_elements() == 0) {
    // An empty sum over the batch and positions.
    return l.Annotate(
        l.Zero(filter_backprop, l.plan.filter_hwio.num_elements()), kind);
  }
  return l.Annotate(
      DnnHandles::Global()->With(
          ordinal, stream,
          [&](const DnnContext& dnn) -> absl::Status {
            absl::StatusOr<void*> dw =
                l.Scratch(l.plan.filter_krsc.num_elements());
            if (!dw.ok()) return dw.status();
            absl::StatusOr<const void*> x = l.PaddedInput(dnn, input);
            if (!x.ok()) return x.status();
            ConvBuffers b;
            b.x = *x;
            b.y_in = out_backprop;
            b.dw = *dw;
            absl::Status s = l.Setup(dnn, kind, b);
            if (!s.ok()) return s;
            s = CudnnStatus(
                cudnnConvolutionBackwardFilter(
                    dnn.handle, l.one(), l.descriptors.x(), *x, l.descriptors.y(), out_backprop,
                    l.descriptors.conv(),
                    static_cast<cudnnConvolutionBwdFilterAlgo_t>(l.algo),
                    l.workspace, l.workspace_bytes, l.zero(), l.descriptors.filter(),
                    *dw),
                "cudnnConvolutionBackwardFilter");
            if (!s.ok()) return s;
            return DnnTransform(dnn, l.type, l.plan.filter_krsc, *dw,
                                l.plan.filter_hwio, filter_backprop);
          }),
      kind);
}

#else  // !DFLOW_HAVE_CUDNN

namespace {
absl::Status NoCudnn(const GpuConvParams& p, const char* op) {
  absl::StatusOr<ConvDnnPlan> plan = PlanConvolution(p);
  if (!plan.ok()) return plan.status();
  return BuiltWithoutCudaError(absl::StrCat(op, " on GPU"));
}
}  // namespace

absl::Status LaunchConv2D(int, void*, const GpuConvParams& p, const void*,
                          const void*, void*, GpuScratchAllocator*) {
  return NoCudnn(p, "Conv2D");
}
absl::Status LaunchConv2DBackpropInput(int, void*, const GpuConvParams& p,
                                       const void*, const void*, void*,
                                       GpuScratchAllocator*) {
  return NoCudnn(p, "Conv2DBackpropInput");
}
absl::Status LaunchConv2DBackpropFilter(int, void*, const GpuConvParams& p,
                                        const void*, const void*, void*,
                                        GpuScratchAllocator*) {
  return NoCudnn(p, "Conv2DBackpropFilter");
}

#endif  // DFLOW_HAVE_CUDNN

}  // namespace dflow
