#include "runtime/gpu/gpu_collective.h"

#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <thread>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "runtime/gpu/cuda_status.h"
#include "runtime/gpu/gpu_collective_streams.h"

namespace dflow {
namespace {

// "GPU:1" from ".../device:GPU:1"; other names as they are.
std::string ShortName(const std::string& device) {
  const size_t at = device.rfind("device:");
  return at == std::string::npos ? device : device.substr(at + 7);
}

const char* OpName(GpuCollectiveOp op) {
  switch (op) {
    case GpuCollectiveOp::kAllReduce:
      return "all-reduce";
    case GpuCollectiveOp::kAllGather:
      return "all-gather";
    case GpuCollectiveOp::kBroadcast:
      return "broadcast";
  }
  return "?";
}

// Physical GPUs holding two or more members, with those members' names.
std::map<int, std::vector<std::string>> SharedGpus(
    const std::vector<GpuCollectiveMember>& members) {
  std::map<int, std::vector<std::string>> by_gpu;
  for (const GpuCollectiveMember& m : members) {
    by_gpu[m.physical_ordinal].push_back(ShortName(m.device));
  }
  for (auto it = by_gpu.begin(); it != by_gpu.end();) {
    it = it->second.size() > 1 ? std::next(it) : by_gpu.erase(it);
  }
  return by_gpu;
}

}  // namespace

const char* GpuCollectivePathName(GpuCollectivePath path) {
  return path == GpuCollectivePath::kNccl ? "nccl" : "device_ring";
}

GpuCollectivePath ChooseGpuCollectivePath(
    const std::vector<GpuCollectiveMember>& members, bool nccl_available) {
  if (!nccl_available || !SharedGpus(members).empty()) {
    return GpuCollectivePath::kDeviceRing;
  }
  return GpuCollectivePath::kNccl;
}

std::string DescribeGpuCollectivePath(
    const std::vector<GpuCollectiveMember>& members, bool nccl_available) {
  std::vector<std::string> names;
  std::vector<int> ordinals;
  for (const GpuCollectiveMember& m : members) {
    names.push_back(ShortName(m.device));
    ordinals.push_back(m.physical_ordinal);
  }
  const GpuCollectivePath path =
      ChooseGpuCollectivePath(members, nccl_available);
  if (path == GpuCollectivePath::kNccl) {
    return absl::StrCat(
        "nccl over physical GPU", ordinals.size() == 1 ? " " : "s ",
        absl::StrJoin(ordinals, ", "), " (", absl::StrJoin(names, ", "), ")");
  }
  std::vector<std::string> shared;
  for (const auto& [gpu, who] : SharedGpus(members)) {
    shared.push_back(
        absl::StrCat(absl::StrJoin(who, ", "), " share physical GPU ", gpu));
  }
  if (!shared.empty()) {
    return absl::StrCat("device_ring: ", absl::StrJoin(shared, "; "),
                        " (NCCL takes one rank per physical GPU)");
  }
  return absl::StrCat("device_ring over physical GPUs ",
                      absl::StrJoin(ordinals, ", "), " (",
                      absl::StrJoin(names, ", "), "): this build has no NCCL");
}

namespace {

// The group's size and member r's rank in it: the members themselves, or
// spec.group_size and spec.ranks when other processes hold ranks too.
int GroupSize(const GpuCollectiveSpec& spec, int members) {
  return spec.communicator != nullptr ? spec.group_size : members;
}
int RankOf(const GpuCollectiveSpec& spec, int r) {
  return spec.communicator != nullptr ? spec.ranks[r] : r;
}

}  // namespace

absl::Status ValidateGpuCollective(
    const GpuCollectiveSpec& spec,
    const std::vector<GpuCollectiveMember>& members) {
  const std::string& label = spec.label;
  const int n = static_cast<int>(members.size());
  if (n == 0) {
    return absl::InvalidArgumentError(
        absl::StrCat(label, ": a GPU ", OpName(spec.op), " has no members"));
  }
  if (spec.count < 0) {
    return absl::InvalidArgumentError(
        absl::StrCat(label, ": negative element count ", spec.count));
  }
  const bool broadcast = spec.op == GpuCollectiveOp::kBroadcast;
  const int group_size = GroupSize(spec, n);
  if (spec.communicator != nullptr) {
    if (static_cast<int>(spec.ranks.size()) != n || group_size < n) {
      return absl::InvalidArgumentError(
          absl::StrCat(label, ": ", n, " members here but ", spec.ranks.size(),
                       " ranks given, of a group of ", group_size));
    }
    if (spec.communicator->size() != n) {
      return absl::InvalidArgumentError(
          absl::StrCat(label, ": the communicator has ",
                       spec.communicator->size(), " ranks here, not ", n));
    }
    for (int rank : spec.ranks) {
      if (rank < 0 || rank >= group_size) {
        return absl::InvalidArgumentError(
            absl::StrCat(label, ": rank ", rank, " is outside the group's 0..",
                         group_size - 1));
      }
    }
    if (spec.path == GpuCollectivePath::kDeviceRing) {
      return absl::InvalidArgumentError(
          absl::StrCat(label, ": ranks in other processes need the NCCL path"));
    }
  }
  if (broadcast && (spec.source < 0 || spec.source >= group_size)) {
    return absl::InvalidArgumentError(
        absl::StrCat(label, ": the broadcast's sender is rank ", spec.source,
                     " but the group has ranks 0..", group_size - 1));
  }
  for (int r = 0; r < n; ++r) {
    const GpuCollectiveMember& m = members[r];
    auto member = [&] {
      return absl::StrCat(label, ": rank ", r, " (",
                          m.device.empty() ? "unnamed device" : m.device, ")");
    };
    if (m.physical_ordinal < 0) {
      return absl::InvalidArgumentError(absl::StrCat(
          member(), " has no physical GPU (ordinal ", m.physical_ordinal, ")"));
    }
    if (spec.count == 0) continue;
    const bool reads = !broadcast || RankOf(spec, r) == spec.source;
    const bool writes = !broadcast || RankOf(spec, r) != spec.source;
    if (reads && m.input == nullptr) {
      return absl::InvalidArgumentError(
          absl::StrCat(member(), " gave no input buffer"));
    }
    if (writes && m.output == nullptr) {
      return absl::InvalidArgumentError(
          absl::StrCat(member(), " gave no output buffer"));
    }
  }
  if (spec.path == GpuCollectivePath::kNccl) {
    std::vector<int> ordinals;
    for (const GpuCollectiveMember& m : members) {
      ordinals.push_back(m.physical_ordinal);
    }
    if (absl::Status s = ValidateNcclOrdinals(ordinals); !s.ok()) {
      return absl::InvalidArgumentError(absl::StrCat(label, ": ", s.message()));
    }
  }
  for (int r = 0; r < n; ++r) {
    const GpuCollectiveMember& m = members[r];
    if (m.streams == nullptr) {
      return absl::InvalidArgumentError(
          absl::StrCat(label, ": rank ", r, " (", m.device,
                       ") has no GPU streams to order the collective with"));
    }
    if (m.streams->ordinal() != m.physical_ordinal) {
      return absl::InvalidArgumentError(
          absl::StrCat(label, ": rank ", r, " (", m.device,
                       ") is on physical GPU ", m.physical_ordinal,
                       " but its streams are on GPU ", m.streams->ordinal()));
    }
  }
  return absl::OkStatus();
}

#if DFLOW_HAVE_CUDA

namespace {

// Counts the members' compute streams past the collective; the last one
// calls `done` with the first error seen (the enqueue's, if it failed).
class Completion {
 public:
  Completion(int members, absl::Status status,
             std::function<void(absl::Status)> done)
      : left_(members), status_(std::move(status)), done_(std::move(done)) {}

  void Arrive(absl::Status s) {
    std::function<void(absl::Status)> done;
    absl::Status status;
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (status_.ok() && !s.ok()) status_ = std::move(s);
      if (--left_ > 0) return;
      done = std::move(done_);
      status = std::move(status_);
    }
    done(std::move(status));
  }

 private:
  std::mutex mu_;
  int left_;
  absl::Status status_;
  std::function<void(absl::Status)> done_;
};

// A copy between device buffers of any two GPUs, on `stream`.
absl::Status Copy(void* dst, int dst_gpu, const void* src, int src_gpu,
                  size_t bytes, cudaStream_t stream, absl::string_view what) {
  if (bytes == 0) return absl::OkStatus();
  return CudaStatus(
      dst_gpu == src_gpu
          ? cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, stream)
          : cudaMemcpyPeerAsync(dst, dst_gpu, src, src_gpu, bytes, stream),
      absl::StrCat(what, " (", bytes, " bytes, GPU ", src_gpu, " to GPU ",
                   dst_gpu, ")"));
}

// The device ring on the home GPU's collectives stream `s` (current device).
absl::Status EnqueueDeviceRing(const GpuCollectiveSpec& spec,
                               const std::vector<GpuCollectiveMember>& m,
                               cudaStream_t s) {
  const int n = static_cast<int>(m.size());
  const int home = m[0].physical_ordinal;
  const size_t bytes =
      static_cast<size_t>(spec.count) * RingElementSize(spec.type);
  switch (spec.op) {
    case GpuCollectiveOp::kAllReduce: {
      // Members on other GPUs are copied next to the others first.
      int remote = 0;
      for (const GpuCollectiveMember& x : m)
        remote += x.physical_ordinal != home;
      void* scratch = nullptr;
      if (remote > 0) {
        DFLOW_CUDA_RETURN_IF_ERROR(
            cudaMallocAsync(&scratch, bytes * remote, s),
            absl::StrCat(spec.label, ": scratch for ", remote,
                         " members' inputs on GPU ", home));
      }
      std::vector<const void*> inputs;
      std::vector<void*> outputs;  // those on the home GPU; rank 0's first
      absl::Status status;
      int slot = 0;
      for (int r = 0; r < n && status.ok(); ++r) {
        if (m[r].physical_ordinal == home) {
          inputs.push_back(m[r].input);
          outputs.push_back(m[r].output);
          continue;
        }
        void* to = static_cast<char*>(scratch) + bytes * slot++;
        status = Copy(to, home, m[r].input, m[r].physical_ordinal, bytes, s,
                      absl::StrCat(spec.label, ": gathering rank ", r));
        inputs.push_back(to);
      }
      if (status.ok()) {
        status = LaunchRingReduce(
            spec.type, spec.combine, inputs.data(), n, outputs.data(),
            static_cast<int>(outputs.size()), spec.count, spec.mean ? n : 0, s);
      }
      for (int r = 1; r < n && status.ok(); ++r) {
        if (m[r].physical_ordinal == home) continue;
        status =
            Copy(m[r].output, m[r].physical_ordinal, m[0].output, home, bytes,
                 s, absl::StrCat(spec.label, ": result to rank ", r));
      }
      if (scratch != nullptr) {
        // Stream-ordered: freed once the copies and the kernel are done.
        absl::Status freed =
            CudaStatus(cudaFreeAsync(scratch, s),
                       absl::StrCat(spec.label, ": freeing the scratch"));
        if (status.ok()) status = freed;
      }
      return status;
    }
    case GpuCollectiveOp::kAllGather: {
      // Into rank 0's output in rank order, then all of it to the others.
      for (int r = 0; r < n; ++r) {
        if (absl::Status st =
                Copy(static_cast<char*>(m[0].output) + bytes * r, home,
                     m[r].input, m[r].physical_ordinal, bytes, s,
                     absl::StrCat(spec.label, ": rank ", r));
            !st.ok()) {
          return st;
        }
      }
      for (int r = 1; r < n; ++r) {
        if (absl::Status st =
                Copy(m[r].output, m[r].physical_ordinal, m[0].output, home,
                     bytes * n, s, absl::StrCat(spec.label, ": to rank ", r));
            !st.ok()) {
          return st;
        }
      }
      return absl::OkStatus();
    }
    case GpuCollectiveOp::kBroadcast: {
      const GpuCollectiveMember& src = m[spec.source];
      for (int r = 0; r < n; ++r) {
        if (r == spec.source) continue;
        if (absl::Status st = Copy(m[r].output, m[r].physical_ordinal,
                                   src.input, src.physical_ordinal, bytes, s,
                                   absl::StrCat(spec.label, ": to rank ", r));
            !st.ok()) {
          return st;
        }
      }
      return absl::OkStatus();
    }
  }
  return absl::InternalError(absl::StrCat(spec.label, ": unknown op"));
}

#if DFLOW_HAVE_NCCL
ncclDataType_t NcclType(RingElementType type) {
  switch (type) {
    case RingElementType::kFloat:
      return ncclFloat32;
    case RingElementType::kDouble:
      return ncclFloat64;
    case RingElementType::kInt32:
      return ncclInt32;
    case RingElementType::kInt64:
      return ncclInt64;
  }
  return ncclFloat32;
}

// ncclGroupEnd, waiting for each of the n local ranks to settle when it
// answers ncclInProgress: on non-blocking communicators (ranks across
// processes, cross_process_nccl_gpu.cc) the first collective connects to
// the other processes. Past spec.deadline: DeadlineExceeded (the caller
// aborts).
absl::Status NcclGroupEndSettled(const GpuCollectiveSpec& spec,
                                 const NcclCommunicator& comm, int n) {
  const ncclResult_t end = ncclGroupEnd();
  if (end != ncclInProgress) return NcclStatus(end, "ncclGroupEnd");
  for (int r = 0; r < n; ++r) {
    ncclResult_t state = ncclInProgress;
    while (state == ncclInProgress) {
      if (absl::Status s =
              NcclStatus(ncclCommGetAsyncError(
                             static_cast<ncclComm_t>(comm.comm(r)), &state),
                         "ncclCommGetAsyncError");
          !s.ok()) {
        return s;
      }
      if (state != ncclInProgress) break;
      if (absl::Now() > spec.deadline) {
        return absl::DeadlineExceededError(absl::StrCat(
            spec.label, ": NCCL was still connecting rank ", RankOf(spec, r),
            " at the deadline (a rank in another process may be missing)"));
      }
      std::this_thread::yield();
    }
    if (absl::Status s = NcclStatus(state, "ncclGroupEnd"); !s.ok()) return s;
  }
  return absl::OkStatus();
}

// Every rank's NCCL call inside one group, each on its GPU's collectives
// stream `streams[r]`; then the mean's division.
absl::Status EnqueueNccl(const GpuCollectiveSpec& spec,
                         const std::vector<GpuCollectiveMember>& m,
                         const NcclCommunicator& comm,
                         const std::vector<cudaStream_t>& streams) {
  const int n = static_cast<int>(m.size());
  const ncclDataType_t type = NcclType(spec.type);
  const size_t count = static_cast<size_t>(spec.count);
  if (absl::Status s = NcclStatus(ncclGroupStart(), "ncclGroupStart");
      !s.ok()) {
    return s;
  }
  absl::Status status;
  for (int r = 0; r < n && status.ok(); ++r) {
    auto c = static_cast<ncclComm_t>(comm.comm(r));
    switch (spec.op) {
      case GpuCollectiveOp::kAllReduce:
        status = NcclStatus(
            ncclAllReduce(m[r].input, m[r].output, count, type,
                          spec.combine == RingCombine::kMax ? ncclMax : ncclSum,
                          c, streams[r]),
            absl::StrCat(spec.label, ": ncclAllReduce on rank ", r));
        break;
      case GpuCollectiveOp::kAllGather:
        status = NcclStatus(
            ncclAllGather(m[r].input, m[r].output, count, type, c, streams[r]),
            absl::StrCat(spec.label, ": ncclAllGather on rank ", r));
        break;
      case GpuCollectiveOp::kBroadcast: {
        // The sender broadcasts in place from its input, which NCCL only
        // reads (send == receive buffer on the root): it has no output.
        void* buffer = RankOf(spec, r) == spec.source
                           ? const_cast<void*>(m[r].input)
                           : m[r].output;
        status =
            NcclStatus(ncclBroadcast(buffer, buffer, count, type, spec.source,
                                     c, streams[r]),
                       absl::StrCat(spec.label, ": ncclBroadcast on rank ", r));
        break;
      }
    }
  }
  // A started group is always ended, whatever failed inside it.
  absl::Status ended = NcclGroupEndSettled(spec, comm, n);
  if (status.ok()) status = ended;
  if (!status.ok() || !spec.mean || spec.op != GpuCollectiveOp::kAllReduce) {
    return status;
  }
  for (int r = 0; r < n && status.ok(); ++r) {
    status = CudaStatus(cudaSetDevice(m[r].physical_ordinal), "cudaSetDevice");
    if (status.ok()) {
      status = LaunchRingDivide(spec.type, m[r].output, spec.count,
                                GroupSize(spec, n), streams[r]);
    }
  }
  return status;
}
#endif  // DFLOW_HAVE_NCCL

}  // namespace

void RunGpuCollective(const GpuCollectiveSpec& spec,
                      std::vector<GpuCollectiveMember> members,
                      std::function<void(absl::Status)> done) {
  if (absl::Status s = ValidateGpuCollective(spec, members); !s.ok()) {
    return done(std::move(s));
  }
  if (spec.count == 0) return done(absl::OkStatus());
  const int n = static_cast<int>(members.size());
  const GpuCollectivePath path =
      spec.communicator != nullptr
          ? GpuCollectivePath::kNccl
          : spec.path.value_or(ChooseGpuCollectivePath(members));
#if !DFLOW_HAVE_NCCL
  if (path == GpuCollectivePath::kNccl) {
    return done(absl::UnavailableError(
        absl::StrCat(spec.label,
                     ": the NCCL path was asked for, but dflow "
                     "was built without NCCL")));
  }
#endif
  // The collectives' stream each member's part runs on: its own GPU's for
  // NCCL, the home GPU's for the ring.
  std::vector<cudaStream_t> streams(n);
  std::shared_ptr<NcclCommunicator> comm;
  for (int r = 0; r < n; ++r) {
    const int gpu = path == GpuCollectivePath::kNccl
                        ? members[r].physical_ordinal
                        : members[0].physical_ordinal;
    absl::StatusOr<void*> s = CollectiveStreamForGpu(gpu);
    if (!s.ok()) {
      return done(
          absl::Status(s.status().code(),
                       absl::StrCat(spec.label, ": ", s.status().message())));
    }
    streams[r] = static_cast<cudaStream_t>(*s);
  }
#if DFLOW_HAVE_NCCL
  if (spec.communicator != nullptr) {
    comm = spec.communicator;
  } else if (path == GpuCollectivePath::kNccl) {
    std::vector<int> ordinals;
    for (const GpuCollectiveMember& m : members) {
      ordinals.push_back(m.physical_ordinal);
    }
    absl::StatusOr<std::shared_ptr<NcclCommunicator>> c =
        NcclCommunicatorCache::Global()->Get(ordinals);
    if (!c.ok()) {
      return done(
          absl::Status(c.status().code(),
                       absl::StrCat(spec.label, ": ", c.status().message())));
    }
    comm = *std::move(c);
  }
#endif
  // Any failure from here on may leave work enqueued that still reads or
  // writes the buffers: the compute streams wait for whatever was enqueued,
  // and `done` comes only once they passed it.
  absl::Status status;
  {
    std::lock_guard<std::mutex> lock(CollectiveLaunchMutex());
    for (int r = 0; r < n && status.ok(); ++r) {
      status = StreamWaitFor(streams[r], members[r].streams->compute_stream(),
                             members[r].physical_ordinal);
    }
    if (status.ok()) {
      if (path == GpuCollectivePath::kDeviceRing) {
        status = CudaStatus(cudaSetDevice(members[0].physical_ordinal),
                            "cudaSetDevice");
        if (status.ok()) status = EnqueueDeviceRing(spec, members, streams[0]);
      } else {
#if DFLOW_HAVE_NCCL
        status = EnqueueNccl(spec, members, *comm, streams);
#endif
      }
    }
    if (!status.ok()) cudaGetLastError();
    for (int r = 0; r < n; ++r) {
      const int gpu = path == GpuCollectivePath::kNccl
                          ? members[r].physical_ordinal
                          : members[0].physical_ordinal;
      absl::Status s =
          StreamWaitFor(members[r].streams->compute_stream(), streams[r], gpu);
      if (status.ok()) status = s;
    }
  }
  auto completion = std::make_shared<Completion>(n, status, std::move(done));
  for (GpuCollectiveMember& m : members) {
    m.streams->ThenCall(
        GpuStreams::Kind::kCompute,
        [completion](absl::Status s) { completion->Arrive(std::move(s)); });
  }
}

#else  // !DFLOW_HAVE_CUDA

void RunGpuCollective(const GpuCollectiveSpec& spec,
                      std::vector<GpuCollectiveMember> members,
                      std::function<void(absl::Status)> done) {
  if (absl::Status s = ValidateGpuCollective(spec, members); !s.ok()) {
    return done(std::move(s));
  }
  done(BuiltWithoutCudaError(spec.label));
}

#endif  // DFLOW_HAVE_CUDA

}  // namespace dflow
