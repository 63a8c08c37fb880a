#include "distributed/grpc_store.h"

#include <algorithm>
#include <stdexcept>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "distributed/grpc_status.h"

namespace dflow {

void GrpcStore::set(const std::string& key, const std::vector<char>& data) {
  StoreSetRequest request;
  request.set_key(prefix_ + key);
  request.set_value(std::string(data.begin(), data.end()));
  StoreSetResponse response;
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() + timeout_);
  Check(stub_->StoreSet(&context, request, &response), key);
}

std::vector<char> GrpcStore::get(const std::string& key) {
  std::vector<std::string> values = Fetch({key}, timeout_);
  return std::vector<char>(values[0].begin(), values[0].end());
}

void GrpcStore::wait(const std::vector<std::string>& keys) {
  Fetch(keys, timeout_);
}

void GrpcStore::wait(const std::vector<std::string>& keys,
                     const std::chrono::milliseconds& timeout) {
  Fetch(keys, std::min(timeout, timeout_));
}

std::vector<std::string> GrpcStore::Fetch(const std::vector<std::string>& keys,
                                          std::chrono::milliseconds timeout) {
  StoreGetRequest request;
  for (const std::string& k : keys) request.add_keys(prefix_ + k);
  request.set_timeout_ms(timeout.count());
  StoreGetResponse response;
  grpc::ClientContext context;
  // The server answers at the timeout; a little longer for the answer.
  context.set_deadline(std::chrono::system_clock::now() + timeout +
                       std::chrono::seconds(5));
  Check(stub_->StoreGet(&context, request, &response),
        absl::StrJoin(keys, ", "));
  return std::vector<std::string>(response.values().begin(),
                                  response.values().end());
}

void GrpcStore::Check(const grpc::Status& s, const std::string& what) {
  if (s.ok()) return;
  throw std::runtime_error(absl::StrCat("the group's store (", prefix_, what,
                                        "): ", FromGrpcStatus(s).message()));
}

}  // namespace dflow
