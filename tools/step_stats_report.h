// `dflow run --stats` and `--timeline`: a step's NodeExecStats as text (how
// many nodes ran, the span from first start to last end, the ten slowest
// nodes with their outputs, each device's peak memory when measured) or as
// a Chrome trace file, for one process's steps and a cluster's alike.
#ifndef DFLOW_TOOLS_STEP_STATS_REPORT_H_
#define DFLOW_TOOLS_STEP_STATS_REPORT_H_

#include <ostream>
#include <string>

#include "runtime/session.h"

namespace dflow {

// `wall_ms`: how long the step's Run call took.
void PrintStepStats(const RunMetadata& metadata, double wall_ms,
                    std::ostream& out);

// Writes the step's timeline to `path` (tools/timeline.h) and says so on
// `out`; false, with the error on `err`, when it cannot.
bool WriteTimelineFile(const RunMetadata& metadata, const std::string& path,
                       std::ostream& out, std::ostream& err);

}  // namespace dflow

#endif  // DFLOW_TOOLS_STEP_STATS_REPORT_H_
