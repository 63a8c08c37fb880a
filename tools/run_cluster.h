// `dflow run --cluster SPEC`: the run verb's steps on a running cluster
// (distributed/cluster_session.h) instead of in this process. The graph
// names the tasks' devices (/job:worker/task:1, ...); feeds and fetches live
// on the --master task's CPU:0. Takes --graph, --feed, --fetch, --target,
// --init, --steps, --timeout_ms, --soft_placement, --log_device_placement,
// --stats and --timeline (the last step's, every task's nodes); the rest of
// the verb's flags are refused with a usage error by run.cc.
#ifndef DFLOW_TOOLS_RUN_CLUSTER_H_
#define DFLOW_TOOLS_RUN_CLUSTER_H_

#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "graph/tensor.h"
#include "tools/cli_args.h"

namespace dflow {

// `feeds` are the parsed --feed values by tensor name; returns the exit
// code (0, or 1 with the error on `err`).
int RunOnCluster(const CliArgs& cli,
                 const std::vector<std::pair<std::string, Tensor>>& feeds,
                 int steps, std::ostream& out, std::ostream& err);

// The run flags that do not work with --cluster (yet), for run.cc's usage
// error.
const std::vector<std::string>& FlagsNotForClusters();

}  // namespace dflow

#endif  // DFLOW_TOOLS_RUN_CLUSTER_H_
