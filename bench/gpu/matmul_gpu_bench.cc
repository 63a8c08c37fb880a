// GPU MatMul and host<->device copies: dflow's paths against the CUDA
// libraries called directly.
//
//   matmul/<precision>/<size>/dflow   LaunchMatMul (kernels/gpu/matmul_gpu.h):
//                                     the handle cache, the row-major swap,
//                                     cublasGemmEx
//   matmul/fp32/<size>/cublas         cublasSgemm on a handle of its own
//   matmul/tf32/<size>/cublas         cublasGemmEx,
//   CUBLAS_COMPUTE_32F_FAST_TF32 copy/<dir>/<memory>/dflow
//   GpuStreams::CopyHostToDevice /
//                                     CopyDeviceToHost with its callback
//                                     (runtime/gpu/gpu_streams.h)
//   copy/<dir>/<memory>/cuda          cudaMemcpyAsync + cudaStreamSynchronize
//
// MatMul runs 8192^3 (the goal) and 1024^3 (launch overhead shows) float
// products on random data, timed with CUDA events around each product
// (manual time); TFLOP/s counts 2 m n k. Copies move 256 MiB from pinned
// (cudaMallocHost) or pageable (new[]) host memory, wall time until the
// data is there. After the table: dflow as % of the library per row (goal
// >= 95%).
//
// Without a GPU every benchmark reports an error ("no GPU") and the binary
// exits 0, so it builds and runs everywhere (tools/gpu_bundle.sh packs it).
//   bazel run -c opt //bench/gpu:matmul_gpu_bench
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/synchronization/notification.h"
#include "benchmark/benchmark.h"
#include "kernels/gpu/matmul_gpu.h"
#include "runtime/gpu/cuda_status.h"
#include "runtime/gpu/gpu_discovery.h"
#include "runtime/gpu/gpu_streams.h"

#if DFLOW_HAVE_CUBLAS
#include <cublas_v2.h>
#endif

namespace dflow {
namespace {

// False (and the benchmark marked) when there is no GPU to measure.
bool HaveGpu(benchmark::State& state) {
  absl::Status s = GpusAvailable();
  if (s.ok()) return true;
  state.SkipWithError(absl::StrCat("no GPU: ", s.message()).c_str());
  return false;
}

#if DFLOW_HAVE_CUBLAS

bool Check(benchmark::State& state, const absl::Status& s) {
  if (!s.ok()) state.SkipWithError(std::string(s.message()).c_str());
  return s.ok();
}

// Three n x n float matrices on GPU 0 (a, b random) and a stream.
struct Operands {
  explicit Operands(int64_t n) : n(n) {
    const size_t bytes = static_cast<size_t>(n * n) * sizeof(float);
    std::vector<float> host(static_cast<size_t>(n * n));
    std::mt19937 gen(1);
    std::uniform_real_distribution<float> dist(-1, 1);
    for (float& v : host) v = dist(gen);
    status = CudaStatus(cudaSetDevice(0), "cudaSetDevice");
    for (float** p : {&a, &b, &c}) {
      if (status.ok()) {
        status = CudaStatus(cudaMalloc(reinterpret_cast<void**>(p), bytes),
                            "cudaMalloc");
      }
    }
    for (float* p : {a, b}) {
      if (status.ok()) {
        status = CudaStatus(
            cudaMemcpy(p, host.data(), bytes, cudaMemcpyHostToDevice),
            "cudaMemcpy");
      }
    }
    if (status.ok()) {
      status = CudaStatus(cudaStreamCreate(&stream), "cudaStreamCreate");
    }
    if (status.ok()) status = CudaStatus(cudaEventCreate(&start), "event");
    if (status.ok()) status = CudaStatus(cudaEventCreate(&stop), "event");
  }
  ~Operands() {
    for (float* p : {a, b, c}) cudaFree(p);
    if (stream != nullptr) cudaStreamDestroy(stream);
    if (start != nullptr) cudaEventDestroy(start);
    if (stop != nullptr) cudaEventDestroy(stop);
  }

  int64_t n;
  float *a = nullptr, *b = nullptr, *c = nullptr;
  cudaStream_t stream = nullptr;
  cudaEvent_t start = nullptr, stop = nullptr;
  absl::Status status;
};

// Times `enqueue` (one product) with events; reports TFLOP/s.
template <typename Enqueue>
void TimeProducts(benchmark::State& state, Operands& ops, Enqueue enqueue) {
  for (int i = 0; i < 3; ++i) {  // warm up (handles, heuristics, clocks)
    if (!Check(state, enqueue())) return;
  }
  if (!Check(state, CudaStatus(cudaStreamSynchronize(ops.stream), "sync"))) {
    return;
  }
  double total_seconds = 0;
  for (auto _ : state) {
    cudaEventRecord(ops.start, ops.stream);
    if (!Check(state, enqueue())) return;
    cudaEventRecord(ops.stop, ops.stream);
    if (!Check(state, CudaStatus(cudaEventSynchronize(ops.stop), "sync"))) {
      return;
    }
    float ms = 0;
    cudaEventElapsedTime(&ms, ops.start, ops.stop);
    state.SetIterationTime(ms / 1e3);
    total_seconds += ms / 1e3;
  }
  const double flops = 2.0 * ops.n * ops.n * ops.n;
  state.counters["TFLOP/s"] =
      total_seconds > 0 ? flops * state.iterations() / total_seconds / 1e12 : 0;
}

void BM_MatMulDflow(benchmark::State& state) {
  if (!HaveGpu(state)) return;
  const bool tf32 = state.range(1) != 0;
  Operands ops(state.range(0));
  if (!Check(state, ops.status)) return;
  SetGpuTensorFloat32(tf32);
  GpuMatMulParams p;
  p.m = p.n = p.k = ops.n;
  TimeProducts(state, ops, [&] {
    return LaunchMatMul(0, ops.stream, p, ops.a, ops.b, ops.c);
  });
  SetGpuTensorFloat32(false);
}

void BM_MatMulCublas(benchmark::State& state) {
  if (!HaveGpu(state)) return;
  const bool tf32 = state.range(1) != 0;
  Operands ops(state.range(0));
  if (!Check(state, ops.status)) return;
  // A handle set up as dflow's: its stream, a 32 MiB workspace.
  cublasHandle_t handle = nullptr;
  void* workspace = nullptr;
  absl::Status s = CublasStatus(cublasCreate(&handle), "cublasCreate");
  if (s.ok()) s = CublasStatus(cublasSetStream(handle, ops.stream), "stream");
  if (s.ok()) s = CudaStatus(cudaMalloc(&workspace, 32 << 20), "cudaMalloc");
  if (s.ok()) {
    s = CublasStatus(cublasSetWorkspace(handle, workspace, 32 << 20), "ws");
  }
  if (Check(state, s)) {
    const int n = static_cast<int>(ops.n);
    const float one = 1, zero = 0;
    // Row-major c = a b as column-major c^T = b^T a^T.
    TimeProducts(state, ops, [&] {
      const cublasStatus_t st =
          tf32 ? cublasGemmEx(handle, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one,
                              ops.b, CUDA_R_32F, n, ops.a, CUDA_R_32F, n, &zero,
                              ops.c, CUDA_R_32F, n,
                              CUBLAS_COMPUTE_32F_FAST_TF32, CUBLAS_GEMM_DEFAULT)
               : cublasSgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one,
                             ops.b, n, ops.a, n, &zero, ops.c, n);
      return CublasStatus(st, "gemm");
    });
  }
  if (handle != nullptr) cublasDestroy(handle);
  cudaFree(workspace);
}

// 256 MiB between host memory (pinned or not) and GPU 0.
void BM_Copy(benchmark::State& state) {
  if (!HaveGpu(state)) return;
  const bool to_device = state.range(0) != 0;
  const bool pinned = state.range(1) != 0;
  const bool through_dflow = state.range(2) != 0;
  const size_t bytes = size_t{256} << 20;
  if (!Check(state, CudaStatus(cudaSetDevice(0), "cudaSetDevice"))) return;
  void* host = nullptr;
  std::unique_ptr<char[]> pageable;
  if (pinned) {
    if (!Check(state, CudaStatus(cudaMallocHost(&host, bytes), "pin"))) return;
  } else {
    pageable.reset(new char[bytes]);
    host = pageable.get();
  }
  std::memset(host, 1, bytes);
  void* device = nullptr;
  absl::Status s = CudaStatus(cudaMalloc(&device, bytes), "cudaMalloc");
  absl::StatusOr<std::unique_ptr<GpuStreams>> streams = GpuStreams::Create(0);
  if (s.ok() && !streams.ok()) s = streams.status();
  cudaStream_t stream = nullptr;
  if (s.ok()) s = CudaStatus(cudaStreamCreate(&stream), "cudaStreamCreate");
  auto copy_once = [&]() -> absl::Status {
    if (through_dflow) {
      absl::Notification done;
      absl::Status result;
      auto callback = [&](absl::Status st) {
        result = st;
        done.Notify();
      };
      if (to_device) {
        (*streams)->CopyHostToDevice(device, host, bytes, callback);
      } else {
        (*streams)->CopyDeviceToHost(host, device, bytes, callback);
      }
      done.WaitForNotification();
      return result;
    }
    absl::Status st = CudaStatus(
        cudaMemcpyAsync(
            to_device ? device : host, to_device ? host : device, bytes,
            to_device ? cudaMemcpyHostToDevice : cudaMemcpyDeviceToHost,
            stream),
        "cudaMemcpyAsync");
    if (st.ok()) st = CudaStatus(cudaStreamSynchronize(stream), "sync");
    return st;
  };
  if (s.ok()) s = copy_once();  // warm up (staging buffers, first touch)
  if (Check(state, s)) {
    for (auto _ : state) {
      if (!Check(state, copy_once())) break;
    }
    state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) *
                            static_cast<int64_t>(bytes));
  }
  streams = absl::UnavailableError("released");  // before the device memory
  if (stream != nullptr) cudaStreamDestroy(stream);
  cudaFree(device);
  if (pinned) cudaFreeHost(host);
}

#else  // !DFLOW_HAVE_CUBLAS

void BM_MatMulDflow(benchmark::State& state) { HaveGpu(state); }
void BM_MatMulCublas(benchmark::State& state) { HaveGpu(state); }
void BM_Copy(benchmark::State& state) { HaveGpu(state); }

#endif  // DFLOW_HAVE_CUBLAS

void Register() {
  for (int64_t n : {8192, 1024}) {
    for (int tf32 : {0, 1}) {
      const std::string row =
          absl::StrCat(tf32 ? "tf32" : "fp32", "/", n, "^3");
      for (int lib = 0; lib < 2; ++lib) {
        benchmark::RegisterBenchmark(
            absl::StrCat("matmul/", row, lib ? "/cublas" : "/dflow").c_str(),
            lib ? BM_MatMulCublas : BM_MatMulDflow)
            ->Args({n, tf32})
            ->UseManualTime()
            ->MinTime(n > 4096 ? 2.0 : 0.5)
            ->Unit(benchmark::kMillisecond);
      }
    }
  }
  for (int to_device : {1, 0}) {
    for (int pinned : {1, 0}) {
      for (int dflow : {1, 0}) {
        benchmark::RegisterBenchmark(
            absl::StrCat("copy/", to_device ? "h2d/" : "d2h/",
                         pinned ? "pinned" : "pageable",
                         dflow ? "/dflow" : "/cuda")
                .c_str(),
            BM_Copy)
            ->Args({to_device, pinned, dflow})
            ->UseRealTime()
            ->Unit(benchmark::kMillisecond);
      }
    }
  }
}

// The console table, then dflow's rate as % of the library's per row.
class RatioReporter : public benchmark::ConsoleReporter {
 public:
  void ReportRuns(const std::vector<Run>& runs) override {
    ConsoleReporter::ReportRuns(runs);
    for (const Run& run : runs) {
      if (run.error_occurred || run.run_type != Run::RT_Iteration) continue;
      const std::string name = run.benchmark_name();
      // "matmul/fp32/8192^3/dflow/manual_time" -> row, who.
      std::vector<std::string> parts = absl::StrSplit(name, '/');
      if (parts.size() < 4) continue;
      const std::string row =
          absl::StrCat(parts[0], "/", parts[1], "/", parts[2]);
      double rate = 0;
      if (auto it = run.counters.find("TFLOP/s"); it != run.counters.end()) {
        rate = it->second.value;
      } else if (auto b = run.counters.find("bytes_per_second");
                 b != run.counters.end()) {
        rate = b->second.value / 1e9;
      }
      rates_[row][parts[3]] = rate;
    }
  }

  void Finalize() override {
    ConsoleReporter::Finalize();
    std::printf(
        "\ndflow as %% of the library called directly "
        "(TFLOP/s or GB/s; goal >= 95%%):\n");
    for (const auto& [row, by_who] : rates_) {
      auto get = [&](const char* who) {
        auto it = by_who.find(who);
        return it == by_who.end() ? 0.0 : it->second;
      };
      const double dflow = get("dflow");
      const double lib =
          row.rfind("matmul", 0) == 0 ? get("cublas") : get("cuda");
      std::printf("  %-26s dflow %8.2f  library %8.2f  %6.1f%%\n", row.c_str(),
                  dflow, lib, lib > 0 ? 100 * dflow / lib : 0.0);
    }
  }

 private:
  std::map<std::string, std::map<std::string, double>> rates_;
};

}  // namespace
}  // namespace dflow

int main(int argc, char** argv) {
  dflow::Register();
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  dflow::RatioReporter reporter;
  benchmark::RunSpecifiedBenchmarks(&reporter);
  benchmark::Shutdown();
  return 0;
}
