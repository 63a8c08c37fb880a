// Timeline: a step's statistics as a Chrome trace, the JSON format that
// chrome://tracing and Perfetto (ui.perfetto.dev) open.
//
//   RunOptions options;
//   options.trace = true;
//   RunMetadata metadata;
//   session->Run(options, feeds, fetches, targets, &outputs, &metadata);
//   absl::Status s = WriteChromeTrace(metadata, "step.json");
//
// Each device is a process named after the device. Its ops are slices named
// by op type, on one track per executor thread, with the node name, the op,
// its inputs, output shapes and bytes in the slice's args. Transfers (_Send,
// _Recv, and the host<->device copies _HostToDevice, _DeviceToHost) sit on
// the device's "transfers" track, an arrow leading from each Send to the
// Recv that got its tensor; collectives (Collective*, and tensor fusion's
// _FusedCollectiveAllReduce) sit on the device's "collectives" track, with
// the phases their kernels timed as slices nested in theirs: "wait" (for
// the group's other members), "reduce" / "gather" / "broadcast", and for a
// fused all-reduce "pack" before and "unpack" after. Slices that overlap
// without nesting on one track (async kernels: a Recv waiting while its
// thread runs other nodes) spill onto extra tracks, "thread 3 #2", so the
// viewers draw them all.
#ifndef DFLOW_TOOLS_TIMELINE_H_
#define DFLOW_TOOLS_TIMELINE_H_

#include <string>

#include "absl/status/status.h"
#include "runtime/session.h"

namespace dflow {

// The Chrome trace JSON of `metadata`'s step stats: an object whose
// "traceEvents" array holds one event per line. Times are microseconds since
// the step started (NodeExecStats' clock).
std::string ChromeTraceJson(const RunMetadata& metadata);

// Writes ChromeTraceJson(metadata) to `path`; an error names the file.
absl::Status WriteChromeTrace(const RunMetadata& metadata,
                              const std::string& path);

}  // namespace dflow

#endif  // DFLOW_TOOLS_TIMELINE_H_
