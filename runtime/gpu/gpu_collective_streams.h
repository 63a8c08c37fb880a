// The streams GPU collectives run on, and the events that order them
// against the members' compute streams.
//
// Every collective of the process, NCCL's and the device ring's alike, runs
// on one stream per physical GPU (not a compute stream: a collective waiting
// for peers must not hold up a device's unrelated kernels). The stream of a
// GPU waits, through events, for each member's compute-stream work enqueued
// before the collective (its inputs), and the members' compute streams wait
// for the collective's end before their later kernels (the consumers).
// Nothing here blocks the host.
//
// Why one stream per GPU shared by all communicators, and one launch lock:
// NCCL kernels spin until their peers arrive, so two communicators over the
// same GPUs deadlock when GPU 0 runs collective A before B and GPU 1 runs B
// before A. Enqueuing each collective's work on every GPU under one
// process-wide lock, onto one stream per GPU, gives every GPU the same order.
//
// The streams and events live for the whole process (destroying CUDA objects
// during exit races the runtime's own teardown). In a build without CUDA
// every call answers Unavailable.
#ifndef DFLOW_RUNTIME_GPU_GPU_COLLECTIVE_STREAMS_H_
#define DFLOW_RUNTIME_GPU_GPU_COLLECTIVE_STREAMS_H_

#include <mutex>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace dflow {

// The collectives' stream (a cudaStream_t) of physical GPU `ordinal`,
// created on first use. Unavailable without CUDA or GPUs; InvalidArgument
// for an ordinal this process does not see.
absl::StatusOr<void*> CollectiveStreamForGpu(int ordinal);

// Held while a collective's work is enqueued on the collective streams (see
// the file comment). Never held while waiting for a GPU.
std::mutex& CollectiveLaunchMutex();

// Makes stream `waiter` (of any GPU) wait, on the GPU, for the work
// enqueued so far on `waitee`, a stream of GPU `waitee_ordinal`. Changes the
// calling thread's current device.
absl::Status StreamWaitFor(void* waiter, void* waitee, int waitee_ordinal);

}  // namespace dflow

#endif  // DFLOW_RUNTIME_GPU_GPU_COLLECTIVE_STREAMS_H_
