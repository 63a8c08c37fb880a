#include "distributed/grpc_logging.h"

#include <cstdlib>

#include "grpc/support/log.h"

namespace dflow {
namespace {

void Drop(gpr_log_func_args*) {}

}  // namespace

void QuietGrpcLogsUnlessAsked() {
  static const bool done = [] {
    if (std::getenv("GRPC_VERBOSITY") == nullptr) gpr_set_log_function(&Drop);
    return true;
  }();
  (void)done;
}

}  // namespace dflow
