#include "runtime/cross_process_nccl.h"

#include <mutex>
#include <utility>

namespace dflow {
namespace {

std::mutex engine_mu;
CrossProcessNccl* engine = nullptr;  // engine_mu; never freed

}  // namespace

CrossProcessNccl* LinkedCrossProcessNccl() {
  std::lock_guard<std::mutex> lock(engine_mu);
  return engine;
}

absl::Status RegisterCrossProcessNccl(std::unique_ptr<CrossProcessNccl> made) {
  std::lock_guard<std::mutex> lock(engine_mu);
  if (engine != nullptr) {
    return absl::AlreadyExistsError(
        "an NCCL engine for collectives across processes is registered "
        "already");
  }
  engine = made.release();
  return absl::OkStatus();
}

}  // namespace dflow
