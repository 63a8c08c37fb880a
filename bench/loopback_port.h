// Loopback sockets for the benchmarks that start servers in their own
// process (transfer_bench, cluster_collective_bench).
#ifndef DFLOW_BENCH_LOOPBACK_PORT_H_
#define DFLOW_BENCH_LOOPBACK_PORT_H_

#include <netinet/in.h>

#include "absl/status/statusor.h"

namespace dflow {
namespace bench {

// A TCP socket bound to a free loopback port (its address in `addr`).
absl::StatusOr<int> BindLoopback(sockaddr_in* addr);

// A loopback port nothing listens on right now (bound, then closed again:
// another process could take it in between; a server then fails with its
// clear "cannot listen" error).
absl::StatusOr<int> FreePort();

}  // namespace bench
}  // namespace dflow

#endif  // DFLOW_BENCH_LOOPBACK_PORT_H_
