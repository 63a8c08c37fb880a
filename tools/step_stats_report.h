// `dflow run --stats`: a step's NodeExecStats as text (how many nodes ran,
// the span from first start to last end, the ten slowest nodes with their
// outputs, each device's peak memory when measured), for one process's
// steps and a cluster's alike.
#ifndef DFLOW_TOOLS_STEP_STATS_REPORT_H_
#define DFLOW_TOOLS_STEP_STATS_REPORT_H_

#include <ostream>

#include "runtime/session.h"

namespace dflow {

// `wall_ms`: how long the step's Run call took.
void PrintStepStats(const RunMetadata& metadata, double wall_ms,
                    std::ostream& out);

}  // namespace dflow

#endif  // DFLOW_TOOLS_STEP_STATS_REPORT_H_
