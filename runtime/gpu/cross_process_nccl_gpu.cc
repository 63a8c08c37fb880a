// The NCCL engine for collectives across processes
// (runtime/cross_process_nccl.h), registered when this file is linked
// (alwayslink): each process makes its ranks of a communicator with
// ncclCommInitRankConfig in non-blocking mode (config.blocking = 0) inside
// one NCCL group, so that the caller can poll the init
// (ncclCommGetAsyncError) against its deadline and abort it
// (ncclCommAbort) instead of hanging when another process never comes. A
// collective then runs as in one process (RunGpuCollective over this
// process's ranks, on the collectives' stream of each GPU, ordered with the
// members' compute streams).
//
// Never run: a lent GPU machine has one GPU, and NCCL across processes
// needs one GPU per rank. It is compiled wherever CUDA and NCCL are; the
// logic around it runs against a fake engine in tests
// (tests/distributed/nccl_collectives_test.cc).
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "runtime/cross_process_nccl.h"
#include "runtime/gpu/cuda_status.h"
#include "runtime/gpu/gpu_collective.h"
#include "runtime/gpu/gpu_collective_requests.h"
#include "runtime/gpu/nccl_communicator.h"
#include "third_party/cuda/cuda_config.h"

#if DFLOW_HAVE_CUDA && DFLOW_HAVE_NCCL
#include <cuda_runtime.h>
#include <nccl.h>
#endif

namespace dflow {
namespace {

#if DFLOW_HAVE_CUDA && DFLOW_HAVE_NCCL

class GpuRanks : public CrossProcessNccl::Ranks {
 public:
  std::vector<int> ordinals;
  std::vector<ncclComm_t> comms;
  // Made once the init succeeded; owns the comms from then on.
  std::shared_ptr<NcclCommunicator> communicator;

  ~GpuRanks() override {
    // Comms not yet handed to a communicator (a failed or abandoned init)
    // are aborted: destroying one waits for its peers.
    if (communicator == nullptr) {
      for (ncclComm_t c : comms) {
        if (c != nullptr) ncclCommAbort(c);
      }
    }
  }
};

class GpuCrossProcessNccl : public CrossProcessNccl {
 public:
  std::string Name() const override {
    return absl::StrCat("NCCL ", NcclVersionString());
  }

  absl::StatusOr<std::string> NewUniqueId() override {
    ncclUniqueId id;
    if (absl::Status s = NcclStatus(ncclGetUniqueId(&id), "ncclGetUniqueId");
        !s.ok()) {
      return s;
    }
    return std::string(id.internal, sizeof(id.internal));
  }

  absl::StatusOr<std::unique_ptr<Ranks>> StartRanks(
      const std::string& unique_id, int group_size,
      const std::vector<int>& ranks,
      const std::vector<const CollectiveRequest*>& members) override {
    ncclUniqueId id;
    if (unique_id.size() != sizeof(id.internal)) {
      return absl::InvalidArgumentError(
          absl::StrCat("an NCCL unique id has ", sizeof(id.internal),
                       " bytes, not ", unique_id.size()));
    }
    std::copy(unique_id.begin(), unique_id.end(), id.internal);
    auto made = std::make_unique<GpuRanks>();
    for (const CollectiveRequest* m : members) {
      absl::StatusOr<const GpuDevice*> gpu =
          AsGpuDevice(m->device_object, m->device);
      if (!gpu.ok()) return gpu.status();
      made->ordinals.push_back((*gpu)->physical_ordinal());
    }
    if (absl::Status s = ValidateNcclOrdinals(made->ordinals); !s.ok()) {
      return s;
    }
    made->comms.assign(members.size(), nullptr);
    ncclConfig_t config = NCCL_CONFIG_INITIALIZER;
    config.blocking = 0;  // poll, with a deadline, instead of hanging
    absl::Status status = NcclStatus(ncclGroupStart(), "ncclGroupStart");
    for (size_t i = 0; i < members.size() && status.ok(); ++i) {
      status = CudaStatus(cudaSetDevice(made->ordinals[i]), "cudaSetDevice");
      if (!status.ok()) break;
      const ncclResult_t r = ncclCommInitRankConfig(&made->comms[i], group_size,
                                                    id, ranks[i], &config);
      if (r != ncclSuccess && r != ncclInProgress) {
        status = NcclStatus(
            r, absl::StrCat("ncclCommInitRankConfig (rank ", ranks[i], ")"));
      }
    }
    const ncclResult_t ended = ncclGroupEnd();
    if (status.ok() && ended != ncclSuccess && ended != ncclInProgress) {
      status = NcclStatus(ended, "ncclGroupEnd");
    }
    if (!status.ok()) return status;  // ~GpuRanks aborts what was made
    return std::unique_ptr<Ranks>(std::move(made));
  }

  absl::Status Poll(Ranks* ranks) override {
    auto* r = static_cast<GpuRanks*>(ranks);
    if (r->communicator != nullptr) return absl::OkStatus();
    for (ncclComm_t c : r->comms) {
      ncclResult_t state = ncclSuccess;
      if (absl::Status s = NcclStatus(ncclCommGetAsyncError(c, &state),
                                      "ncclCommGetAsyncError");
          !s.ok()) {
        return s;
      }
      if (state == ncclInProgress) {
        return absl::UnavailableError("the NCCL init is in progress");
      }
      if (absl::Status s = NcclStatus(state, "ncclCommInitRankConfig");
          !s.ok()) {
        return s;
      }
    }
    std::vector<void*> comms(r->comms.begin(), r->comms.end());
    r->communicator = NcclCommunicator::Adopt(r->ordinals, std::move(comms));
    return absl::OkStatus();
  }

  void Abort(Ranks* ranks) override {
    auto* r = static_cast<GpuRanks*>(ranks);
    // Ready ranks belong to the communicator: it must not destroy them
    // after the abort. No collective is being enqueued on them by now (the
    // caller waits for each one's end).
    if (r->communicator != nullptr) r->communicator->Release();
    for (ncclComm_t& c : r->comms) {
      if (c != nullptr) ncclCommAbort(c);
      c = nullptr;
    }
  }

  void Run(Ranks* ranks, std::vector<CollectiveRequest>* members,
           const std::vector<int>& rank_of_member, int group_size, int source,
           absl::Time deadline,
           std::function<void(absl::Status)> done) override {
    auto* r = static_cast<GpuRanks*>(ranks);
    absl::StatusOr<GpuCollectiveSpec> spec = GpuCollectiveSpecOf(*members);
    if (!spec.ok()) return done(spec.status());
    absl::StatusOr<std::vector<GpuCollectiveMember>> gpu_members =
        GpuCollectiveMembersOf(members);
    if (!gpu_members.ok()) return done(gpu_members.status());
    spec->communicator = r->communicator;
    spec->ranks = rank_of_member;
    spec->group_size = group_size;
    spec->source = source;
    spec->deadline = deadline;
    spec->label = absl::StrCat(spec->label, " across processes");
    RunGpuCollective(*spec, *std::move(gpu_members), std::move(done));
  }
};

const bool kRegistered = [] {
  // Only a second copy of this file in one binary fails; the first stays.
  (void)RegisterCrossProcessNccl(std::make_unique<GpuCrossProcessNccl>());
  return true;
}();

#endif  // DFLOW_HAVE_CUDA && DFLOW_HAVE_NCCL

}  // namespace
}  // namespace dflow
