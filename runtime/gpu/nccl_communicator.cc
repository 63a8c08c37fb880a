#include "runtime/gpu/nccl_communicator.h"

#include <set>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "runtime/gpu/cuda_status.h"
#include "runtime/gpu/gpu_collective_streams.h"
#include "runtime/gpu/gpu_discovery.h"

namespace dflow {

bool BuiltWithNccl() { return DFLOW_HAVE_CUDA && DFLOW_HAVE_NCCL; }

std::string NcclVersionString() {
#if DFLOW_HAVE_CUDA && DFLOW_HAVE_NCCL
  int v = 0;
  if (ncclGetVersion(&v) != ncclSuccess) return "unknown";
  // NCCL_VERSION(X,Y,Z) is X*10000 + Y*100 + Z since 2.9 (X*1000 + ... before).
  if (v >= 20900) {
    return absl::StrCat(v / 10000, ".", (v / 100) % 100, ".", v % 100);
  }
  return absl::StrCat(v / 1000, ".", (v / 100) % 10, ".", v % 100);
#else
  return "none";
#endif
}

absl::Status ValidateNcclOrdinals(const std::vector<int>& ordinals) {
  if (ordinals.empty()) {
    return absl::InvalidArgumentError(
        "an NCCL communicator needs at least one GPU");
  }
  std::set<int> seen;
  for (int o : ordinals) {
    if (o < 0) {
      return absl::InvalidArgumentError(absl::StrCat(
          "an NCCL communicator over GPUs ", absl::StrJoin(ordinals, ", "),
          ": ", o, " is not a GPU ordinal"));
    }
    if (!seen.insert(o).second) {
      return absl::InvalidArgumentError(absl::StrCat(
          "an NCCL communicator over GPUs ", absl::StrJoin(ordinals, ", "),
          ": GPU ", o,
          " is listed twice, and NCCL takes one rank per physical GPU; "
          "virtual GPUs sharing one run the device-memory ring instead"));
    }
  }
  return absl::OkStatus();
}

NcclCommunicatorCache* NcclCommunicatorCache::Global() {
  static NcclCommunicatorCache* cache = new NcclCommunicatorCache();
  return cache;
}

int NcclCommunicatorCache::size() const {
  std::lock_guard<std::mutex> lock(mu_);
  int n = 0;
  for (const auto& [key, entry] : entries_) n += entry.comm != nullptr;
  return n;
}

namespace {

// Makes the communicators over `ordinals` (validated) or says why not.
absl::StatusOr<std::vector<void*>> CreateComms(
    const std::vector<int>& ordinals) {
#if DFLOW_HAVE_CUDA && DFLOW_HAVE_NCCL
  const std::string what =
      absl::StrCat("ncclCommInitAll over GPUs ", absl::StrJoin(ordinals, ", "));
  if (absl::Status s = GpusAvailable(); !s.ok()) return s;
  for (int o : ordinals) {
    if (o >= VisibleGpuCount()) {
      return absl::InvalidArgumentError(
          absl::StrCat(what, ": there is no GPU ", o,
                       "; this process sees GPUs 0..", VisibleGpuCount() - 1));
    }
  }
  std::vector<ncclComm_t> comms(ordinals.size(), nullptr);
  std::vector<int> devices = ordinals;  // ncclCommInitAll wants int*
  {
    // Not while other collectives are being enqueued (see
    // gpu_collective_streams.h).
    std::lock_guard<std::mutex> lock(CollectiveLaunchMutex());
    if (absl::Status s = NcclStatus(
            ncclCommInitAll(comms.data(), static_cast<int>(comms.size()),
                            devices.data()),
            what);
        !s.ok()) {
      cudaGetLastError();
      return s;
    }
    // NCCL probes kernels while it starts (cudaFuncGetAttributes answering
    // cudaErrorNoKernelImageForDevice for variants it lacks) and may leave
    // that as this thread's last error: later launch checks would see it.
    cudaGetLastError();
  }
  std::vector<void*> out;
  for (ncclComm_t c : comms) out.push_back(c);
  return out;
#elif DFLOW_HAVE_CUDA
  (void)ordinals;
  return absl::UnavailableError(absl::StrCat(
      "NCCL communicators: dflow was built without NCCL (",
      DFLOW_CUDA_CONFIG_NOTE,
      "); install NCCL next to the CUDA toolkit and rebuild, or let groups "
      "run on the device-memory ring"));
#else
  (void)ordinals;
  return BuiltWithoutCudaError("NCCL communicators");
#endif
}

}  // namespace

NcclCommunicator::~NcclCommunicator() {
#if DFLOW_HAVE_CUDA && DFLOW_HAVE_NCCL
  for (void* c : comms_) {
    if (c != nullptr) ncclCommDestroy(static_cast<ncclComm_t>(c));
  }
#endif
}

absl::StatusOr<std::shared_ptr<NcclCommunicator>> NcclCommunicatorCache::Get(
    const std::vector<int>& ordinals) {
  if (absl::Status s = ValidateNcclOrdinals(ordinals); !s.ok()) return s;
  {
    std::unique_lock<std::mutex> lock(mu_);
    while (true) {
      auto it = entries_.find(ordinals);
      if (it == entries_.end()) break;
      if (!it->second.creating) return it->second.comm;
      created_.wait(lock);
    }
    entries_[ordinals];  // creating
  }
  absl::StatusOr<std::vector<void*>> comms = CreateComms(ordinals);
  std::shared_ptr<NcclCommunicator> comm;
  if (comms.ok()) {
    comm.reset(new NcclCommunicator(ordinals, *std::move(comms)));
  }
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (comm != nullptr) {
      Entry& e = entries_[ordinals];
      e.creating = false;
      e.comm = comm;
    } else {
      entries_.erase(ordinals);
    }
  }
  created_.notify_all();
  if (!comms.ok()) return comms.status();
  return comm;
}

}  // namespace dflow
