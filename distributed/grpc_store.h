// The key-value store of a collective group's first task (WorkerService
// StoreSet/StoreGet, distributed/collective_store.h) as Gloo's rendezvous
// store: Gloo's contexts meet in it (gloo_collectives.h), and NCCL's unique
// ids are handed out through it (nccl_collectives.h). Gloo expects failures
// as exceptions (std::runtime_error, naming the store and the key).
#ifndef DFLOW_DISTRIBUTED_GRPC_STORE_H_
#define DFLOW_DISTRIBUTED_GRPC_STORE_H_

#include <chrono>
#include <string>
#include <vector>

#include "gloo/rendezvous/store.h"
#include "grpcpp/grpcpp.h"
#include "proto/worker_service.grpc.pb.h"

namespace dflow {

class GrpcStore : public gloo::rendezvous::Store {
 public:
  // Keys live under `prefix` in the store of the task `stub` calls; a get
  // waits up to `timeout` for its key.
  GrpcStore(WorkerService::Stub* stub, std::string prefix,
            std::chrono::milliseconds timeout)
      : stub_(stub), prefix_(std::move(prefix)), timeout_(timeout) {}

  void set(const std::string& key, const std::vector<char>& data) override;
  std::vector<char> get(const std::string& key) override;
  void wait(const std::vector<std::string>& keys) override;
  void wait(const std::vector<std::string>& keys,
            const std::chrono::milliseconds& timeout) override;

 private:
  std::vector<std::string> Fetch(const std::vector<std::string>& keys,
                                 std::chrono::milliseconds timeout);
  void Check(const grpc::Status& s, const std::string& what);

  WorkerService::Stub* const stub_;
  const std::string prefix_;
  const std::chrono::milliseconds timeout_;
};

}  // namespace dflow

#endif  // DFLOW_DISTRIBUTED_GRPC_STORE_H_
