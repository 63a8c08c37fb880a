// NCCL communicators for the GPU collectives of one process, created once
// per group of GPUs and kept.
//
// A communicator is keyed by the ordered list of physical GPU ordinals of a
// group (rank r on GPU ordinals[r]); every collective of a group on those
// GPUs in that rank order shares it. It is made with ncclCommInitAll (one
// process drives every rank), the first time a collective needs it, under
// the collectives' launch lock (gpu_collective_streams.h), and lives for the
// process: destroying communicators during exit races CUDA's teardown, and
// one costs a few MB of device memory per GPU. Its work runs on the
// collectives' stream of each GPU, never on a compute stream.
//
// NCCL puts one rank on a physical GPU: a group whose members share a GPU
// (virtual GPUs) is refused here and runs on the device-memory ring instead
// (gpu_collective.h). Without NCCL in the build (DFLOW_HAVE_NCCL 0) or
// without CUDA, Get answers Unavailable.
#ifndef DFLOW_RUNTIME_GPU_NCCL_COMMUNICATOR_H_
#define DFLOW_RUNTIME_GPU_NCCL_COMMUNICATOR_H_

#include <condition_variable>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace dflow {

// True when this binary was built with NCCL (and CUDA).
bool BuiltWithNccl();
// The NCCL library's version, "2.28.9"; "none" without NCCL. Asks the
// library that is loaded, which may differ from the headers built against.
std::string NcclVersionString();

// One communicator per rank of a group, all made together.
class NcclCommunicator {
 public:
  ~NcclCommunicator();
  NcclCommunicator(const NcclCommunicator&) = delete;
  NcclCommunicator& operator=(const NcclCommunicator&) = delete;

  // The group's GPUs in rank order.
  const std::vector<int>& ordinals() const { return ordinals_; }
  int size() const { return static_cast<int>(ordinals_.size()); }
  // Rank r's ncclComm_t (void* keeps NCCL out of this header).
  void* comm(int rank) const { return comms_[rank]; }

  // Lets go of the comms without destroying them (their maker aborts
  // them: an aborted comm must not be destroyed as well). Only when no
  // collective is being enqueued on it (work already enqueued is what an
  // abort ends).
  void Release() {
    for (void*& c : comms_) c = nullptr;
  }

  // Owns `comms` (one per ordinal, made elsewhere: this process's ranks of
  // a communicator across processes, runtime/gpu/cross_process_nccl_gpu.cc);
  // destroys them with itself.
  static std::shared_ptr<NcclCommunicator> Adopt(std::vector<int> ordinals,
                                                 std::vector<void*> comms) {
    return std::shared_ptr<NcclCommunicator>(
        new NcclCommunicator(std::move(ordinals), std::move(comms)));
  }

 private:
  friend class NcclCommunicatorCache;
  NcclCommunicator(std::vector<int> ordinals, std::vector<void*> comms)
      : ordinals_(std::move(ordinals)), comms_(std::move(comms)) {}

  std::vector<int> ordinals_;
  std::vector<void*> comms_;
};

class NcclCommunicatorCache {
 public:
  // The process's cache (never destroyed).
  static NcclCommunicatorCache* Global();

  NcclCommunicatorCache() = default;
  NcclCommunicatorCache(const NcclCommunicatorCache&) = delete;
  NcclCommunicatorCache& operator=(const NcclCommunicatorCache&) = delete;

  // The communicator over `ordinals` (rank r on GPU ordinals[r]), made on
  // first use. Concurrent first calls for one key make it once: the others
  // wait for it (the only wait here, once per group). A failure is not
  // kept, so a later call tries again. InvalidArgument for an empty list,
  // a negative ordinal or one GPU listed twice (NCCL takes one rank per
  // GPU); Unavailable without NCCL, CUDA or GPUs.
  absl::StatusOr<std::shared_ptr<NcclCommunicator>> Get(
      const std::vector<int>& ordinals);

  // Communicators made so far.
  int size() const;

 private:
  struct Entry {
    bool creating = true;
    std::shared_ptr<NcclCommunicator> comm;
  };

  mutable std::mutex mu_;
  std::condition_variable created_;
  std::map<std::vector<int>, Entry> entries_;  // mu_
};

// Checks `ordinals` as Get does, without CUDA: what tests run anywhere.
absl::Status ValidateNcclOrdinals(const std::vector<int>& ordinals);

}  // namespace dflow

#endif  // DFLOW_RUNTIME_GPU_NCCL_COMMUNICATOR_H_
