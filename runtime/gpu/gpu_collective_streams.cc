#include "runtime/gpu/gpu_collective_streams.h"

#include <vector>

#include "absl/strings/str_cat.h"
#include "runtime/gpu/cuda_status.h"
#include "runtime/gpu/gpu_discovery.h"

namespace dflow {

std::mutex& CollectiveLaunchMutex() {
  static std::mutex* mu = new std::mutex();
  return *mu;
}

#if DFLOW_HAVE_CUDA

namespace {

struct PerGpu {
  cudaStream_t stream = nullptr;
  absl::Status status;  // why the stream could not be created
  bool created = false;
  // Events of this GPU for ordering. A wait captures an event's state when
  // it is enqueued, so an event is free again right after.
  std::vector<cudaEvent_t> free_events;
};

struct State {
  std::mutex mu;
  std::vector<PerGpu> gpus;  // by ordinal, sized on first use
};

State& GetState() {
  static State* state = new State();
  return *state;
}

// With state.mu held.
absl::Status CheckOrdinalLocked(State& state, int ordinal,
                                absl::string_view what) {
  if (absl::Status s = GpusAvailable(); !s.ok()) return s;
  const int count = VisibleGpuCount();
  if (ordinal < 0 || ordinal >= count) {
    return absl::InvalidArgumentError(
        absl::StrCat(what, ": there is no GPU ", ordinal,
                     "; this process sees GPUs 0..", count - 1));
  }
  if (static_cast<int>(state.gpus.size()) < count) state.gpus.resize(count);
  return absl::OkStatus();
}

absl::StatusOr<cudaEvent_t> TakeEvent(int ordinal) {
  State& state = GetState();
  {
    std::lock_guard<std::mutex> lock(state.mu);
    if (absl::Status s = CheckOrdinalLocked(state, ordinal, "ordering streams");
        !s.ok()) {
      return s;
    }
    std::vector<cudaEvent_t>& free = state.gpus[ordinal].free_events;
    if (!free.empty()) {
      cudaEvent_t e = free.back();
      free.pop_back();
      return e;
    }
  }
  DFLOW_CUDA_RETURN_IF_ERROR(cudaSetDevice(ordinal),
                             absl::StrCat("cudaSetDevice(", ordinal, ")"));
  cudaEvent_t e = nullptr;
  DFLOW_CUDA_RETURN_IF_ERROR(
      cudaEventCreateWithFlags(&e, cudaEventDisableTiming),
      absl::StrCat("creating an ordering event on GPU ", ordinal));
  return e;
}

void GiveEvent(int ordinal, cudaEvent_t e) {
  State& state = GetState();
  std::lock_guard<std::mutex> lock(state.mu);
  state.gpus[ordinal].free_events.push_back(e);
}

}  // namespace

absl::StatusOr<void*> CollectiveStreamForGpu(int ordinal) {
  State& state = GetState();
  std::lock_guard<std::mutex> lock(state.mu);
  if (absl::Status s =
          CheckOrdinalLocked(state, ordinal, "the collectives' stream");
      !s.ok()) {
    return s;
  }
  PerGpu& gpu = state.gpus[ordinal];
  if (!gpu.created) {
    gpu.created = true;
    gpu.status = CudaStatus(cudaSetDevice(ordinal),
                            absl::StrCat("cudaSetDevice(", ordinal, ")"));
    if (gpu.status.ok()) {
      gpu.status = CudaStatus(
          cudaStreamCreateWithFlags(&gpu.stream, cudaStreamNonBlocking),
          absl::StrCat("creating the collectives' stream of GPU ", ordinal));
    }
    if (!gpu.status.ok()) cudaGetLastError();
  }
  if (!gpu.status.ok()) return gpu.status;
  return static_cast<void*>(gpu.stream);
}

absl::Status StreamWaitFor(void* waiter, void* waitee, int waitee_ordinal) {
  if (waiter == waitee) return absl::OkStatus();
  absl::StatusOr<cudaEvent_t> e = TakeEvent(waitee_ordinal);
  if (!e.ok()) return e.status();
  absl::Status s =
      CudaStatus(cudaSetDevice(waitee_ordinal),
                 absl::StrCat("cudaSetDevice(", waitee_ordinal, ")"));
  if (s.ok()) {
    s = CudaStatus(
        cudaEventRecord(*e, static_cast<cudaStream_t>(waitee)),
        absl::StrCat("recording an ordering event on GPU ", waitee_ordinal));
  }
  if (s.ok()) {
    s = CudaStatus(
        cudaStreamWaitEvent(static_cast<cudaStream_t>(waiter), *e, 0),
        absl::StrCat("waiting for an event of GPU ", waitee_ordinal));
  }
  if (!s.ok()) cudaGetLastError();
  GiveEvent(waitee_ordinal, *e);
  return s;
}

#else  // !DFLOW_HAVE_CUDA

absl::StatusOr<void*> CollectiveStreamForGpu(int) {
  return BuiltWithoutCudaError("the GPU collectives' stream");
}

absl::Status StreamWaitFor(void*, void*, int) {
  return BuiltWithoutCudaError("ordering GPU streams");
}

#endif  // DFLOW_HAVE_CUDA

}  // namespace dflow
