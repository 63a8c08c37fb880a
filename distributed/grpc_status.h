// absl::Status <-> grpc::Status, code and message (both use the same
// canonical codes), so an error crosses processes unchanged: a failing
// node's message reaches the master as it was written.
#ifndef DFLOW_DISTRIBUTED_GRPC_STATUS_H_
#define DFLOW_DISTRIBUTED_GRPC_STATUS_H_

#include <string>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "grpcpp/support/status.h"

namespace dflow {

// The error details of a RunGraph error that started on another task (a
// value it was to send never came): the master reports another task's.
inline constexpr char kRelayedError[] = "relayed";

inline grpc::Status ToGrpcStatus(const absl::Status& s) {
  if (s.ok()) return grpc::Status::OK;
  return grpc::Status(static_cast<grpc::StatusCode>(s.code()),
                      std::string(s.message()));
}

// `context` is put before the message ("task /job:worker/...: ").
inline absl::Status FromGrpcStatus(const grpc::Status& s,
                                   absl::string_view context = "") {
  if (s.ok()) return absl::OkStatus();
  return absl::Status(static_cast<absl::StatusCode>(s.error_code()),
                      absl::StrCat(context, s.error_message()));
}

}  // namespace dflow

#endif  // DFLOW_DISTRIBUTED_GRPC_STATUS_H_
