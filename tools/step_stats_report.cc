#include "tools/step_stats_report.h"

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "tools/timeline.h"

namespace dflow {

void PrintStepStats(const RunMetadata& metadata, double wall_ms,
                    std::ostream& out) {
  std::vector<const NodeExecStats*> nodes;
  int64_t first_start = 0, last_end = 0;
  for (const NodeExecStats& s : metadata.step_stats) {
    if (nodes.empty() || s.start_us < first_start) first_start = s.start_us;
    last_end = std::max(last_end, s.end_us);
    nodes.push_back(&s);
  }
  std::stable_sort(nodes.begin(), nodes.end(),
                   [](const auto* a, const auto* b) {
                     const int64_t ta = a->end_us - a->start_us,
                                   tb = b->end_us - b->start_us;
                     return ta != tb ? ta > tb : a->node < b->node;
                   });
  out << absl::StrFormat(
      "step stats: %d nodes ran, %.3f ms from first start to last end, "
      "%.3f ms in the step's Run\n",
      nodes.size(), (last_end - first_start) / 1000.0, wall_ms);
  const size_t shown = std::min<size_t>(nodes.size(), 10);
  out << "  top " << shown << " nodes by time:\n";
  out << absl::StrFormat("  %10s  %-16s %-32s %s\n", "time (us)", "op", "node",
                         "output");
  for (size_t i = 0; i < shown; ++i) {
    const NodeExecStats& s = *nodes[i];
    std::string shapes;
    for (const TensorShape& shape : s.output_shapes) {
      absl::StrAppend(&shapes, shapes.empty() ? "" : " ", shape.ToString());
    }
    if (shapes.empty()) shapes = "-";
    out << absl::StrFormat("  %10d  %-16s %-32s %s (%d bytes)\n",
                           s.end_us - s.start_us, s.op, s.node, shapes,
                           s.output_bytes);
  }
  if (metadata.peak_bytes.empty()) return;
  out << "peak memory:\n";
  for (const auto& [device, bytes] : metadata.peak_bytes) {
    out << absl::StrFormat("  %-48s %12d bytes (%.1f KiB)\n", device, bytes,
                           bytes / 1024.0);
  }
}

bool WriteTimelineFile(const RunMetadata& metadata, const std::string& path,
                       std::ostream& out, std::ostream& err) {
  if (absl::Status s = WriteChromeTrace(metadata, path); !s.ok()) {
    err << "error: --timeline: " << s.message() << "\n";
    return false;
  }
  out << "timeline: wrote " << path << " (" << metadata.step_stats.size()
      << " nodes; open it in chrome://tracing or ui.perfetto.dev)\n";
  return true;
}

}  // namespace dflow
