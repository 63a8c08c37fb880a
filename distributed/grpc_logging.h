// gRPC's own log lines (e.g. a multi-line "UNKNOWN:No address added ..."
// when a port is taken) would repeat, less clearly, the error dflow reports
// itself: they are dropped unless GRPC_VERBOSITY is set.
#ifndef DFLOW_DISTRIBUTED_GRPC_LOGGING_H_
#define DFLOW_DISTRIBUTED_GRPC_LOGGING_H_

namespace dflow {

// Idempotent; call before the first gRPC object is made.
void QuietGrpcLogsUnlessAsked();

}  // namespace dflow

#endif  // DFLOW_DISTRIBUTED_GRPC_LOGGING_H_
