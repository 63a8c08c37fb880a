// `dflow worker`: serves one task of a cluster (distributed/worker_server.h)
// until SIGINT or SIGTERM, or for --max_seconds. Prints one line once it
// listens ("dflow worker: /job:worker/replica:0/task:1 serving CPU:0 on
// 127.0.0.1:2223"), so scripts can wait for it. Exit code 0 after a clean
// stop, 1 when the server cannot start (the error names the task and the
// address), 2 for a usage error.
#ifndef DFLOW_TOOLS_WORKER_H_
#define DFLOW_TOOLS_WORKER_H_

#include <ostream>
#include <string>
#include <vector>

namespace dflow {

// The verb: parses `args` (after "worker") and serves until stopped.
int RunWorker(const std::vector<std::string>& args, std::ostream& out,
              std::ostream& err);

}  // namespace dflow

#endif  // DFLOW_TOOLS_WORKER_H_
