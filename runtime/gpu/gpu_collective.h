// All-reduce, all-gather and broadcast over GPU memory, for a complete group
// whose members' device buffers are all known (the CollectiveExecutor hands
// the last arrival the whole group; gpu_collective_backend.cc adapts it).
//
// Two paths:
//   - "nccl": every member on its own physical GPU. One NCCL communicator per
//     group of GPUs (nccl_communicator.h); the ranks' calls go inside one
//     ncclGroupStart/ncclGroupEnd. Mean is an NCCL sum, then a division
//     kernel (the CPU ring's order of rounding for the division; NCCL's
//     summation order is its own, so floats agree within rounding). Max is
//     NCCL's max, whose NaN handling is NCCL's.
//   - "device_ring": two or more members on one physical GPU (virtual GPUs),
//     which NCCL cannot rank, or a build without NCCL. On the GPU of rank 0
//     ("home"): members on the home GPU are read in place, others are copied
//     into a scratch buffer there (cudaMemcpyPeerAsync); one kernel combines
//     them in rank order, ((x0 op x1) op x2)..., as the CPU ring does, so
//     the result has the CPU ring's bits; copies take it to every other
//     output. All-gather and broadcast are copies in rank order.
// Both run on the collectives' stream of each GPU (gpu_collective_streams.h),
// after the work already enqueued on every member's compute stream, and
// every member's compute stream waits for the collective's end, so kernels
// enqueued after it see the result. Nothing blocks a thread: `done` runs
// once each member's compute stream has passed the collective.
//
// The host-side parts (path choice, description, argument checks) need no
// GPU; in a build without CUDA RunGpuCollective answers Unavailable.
#ifndef DFLOW_RUNTIME_GPU_GPU_COLLECTIVE_H_
#define DFLOW_RUNTIME_GPU_GPU_COLLECTIVE_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/time/time.h"
#include "runtime/gpu/gpu_ring_reduce.h"
#include "runtime/gpu/gpu_streams.h"
#include "runtime/gpu/nccl_communicator.h"

namespace dflow {

enum class GpuCollectivePath { kNccl, kDeviceRing };
// "nccl", "device_ring".
const char* GpuCollectivePathName(GpuCollectivePath path);

enum class GpuCollectiveOp { kAllReduce, kAllGather, kBroadcast };

// One member (rank) of a group, in rank order.
struct GpuCollectiveMember {
  // Canonical device name, for messages and descriptions.
  std::string device;
  // The CUDA ordinal of the GPU holding the member's buffers.
  int physical_ordinal = -1;
  // The member's device's streams (on `physical_ordinal`): the collective
  // starts after the work enqueued so far on its compute stream and that
  // stream's later work waits for the collective. Not owned.
  GpuStreams* streams = nullptr;
  // `count` elements; not read for a broadcast receiver.
  const void* input = nullptr;
  // `count` elements (all-gather: count x group size, rank r's input at
  // r x count); not written for a broadcast sender. Never shares memory
  // with any input.
  void* output = nullptr;
};

struct GpuCollectiveSpec {
  GpuCollectiveOp op = GpuCollectiveOp::kAllReduce;
  RingCombine combine = RingCombine::kSum;  // all-reduce
  bool mean = false;  // all-reduce: the sum divided by the group size
  RingElementType type = RingElementType::kFloat;
  int64_t count = 0;  // elements of each member's input
  int source = -1;    // broadcast: the sender's rank
  // Names the collective at the start of every error message, e.g.
  // "collective all-reduce (group 1, instance 2, step 3)".
  std::string label = "GPU collective";
  // Unset: ChooseGpuCollectivePath. Set: that path (tests); NCCL for
  // members sharing a GPU is refused.
  std::optional<GpuCollectivePath> path;
  // NCCL across processes (runtime/cross_process_nccl.h): this process's
  // ranks of a communicator whose other ranks are in other processes.
  // `members` are this process's only, member i being rank ranks[i] of
  // group_size, and `source` is a rank of the whole group; the path is
  // NCCL. Null: every rank is in `members` (ranks 0..n-1) and the
  // process's cache (nccl_communicator.h) makes the communicator.
  std::shared_ptr<NcclCommunicator> communicator;
  std::vector<int> ranks;
  int group_size = 0;
  // How long enqueueing on such a communicator may wait for NCCL's
  // non-blocking calls to settle (its first collective connects to the
  // other processes): past it, DeadlineExceeded (the caller aborts).
  absl::Time deadline = absl::InfiniteFuture();
};

// "nccl" when NCCL is available and no two members share a physical GPU
// (a single member included), "device_ring" otherwise. Reads only the
// members' physical_ordinal.
GpuCollectivePath ChooseGpuCollectivePath(
    const std::vector<GpuCollectiveMember>& members,
    bool nccl_available = BuiltWithNccl());

// For the placement summary, e.g. "nccl over physical GPUs 0, 1 (GPU:0,
// GPU:1)" or "device_ring: GPU:0, GPU:1 share physical GPU 0 (NCCL takes
// one rank per physical GPU)". Reads only names and ordinals.
std::string DescribeGpuCollectivePath(
    const std::vector<GpuCollectiveMember>& members,
    bool nccl_available = BuiltWithNccl());

// What RunGpuCollective checks before touching a GPU: members, a valid
// source, buffers present where the op reads or writes them (when count >
// 0), streams on the member's GPU, and the forced path, if any. The errors
// start with spec.label and name the member.
absl::Status ValidateGpuCollective(
    const GpuCollectiveSpec& spec,
    const std::vector<GpuCollectiveMember>& members);

// Runs the collective; `done` is called exactly once: from a GpuStreams
// completion thread once every member's compute stream passed the
// collective, or, when it fails before enqueueing anything or there is
// nothing to move (count 0), on the calling thread before this returns.
// Buffers must stay valid until `done`.
void RunGpuCollective(const GpuCollectiveSpec& spec,
                      std::vector<GpuCollectiveMember> members,
                      std::function<void(absl::Status)> done);

}  // namespace dflow

#endif  // DFLOW_RUNTIME_GPU_GPU_COLLECTIVE_H_
