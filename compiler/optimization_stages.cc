#include "compiler/optimization_stages.h"

#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/time/clock.h"
#include "compiler/fuse_matmul_update.h"

namespace dflow {
namespace {

// Prefixes a pass's error with the pass, so a failure names where it began.
absl::Status InPass(absl::string_view pass, absl::string_view device,
                    const absl::Status& s) {
  if (s.ok()) return s;
  return absl::Status(
      s.code(), absl::StrCat("optimization pass ", pass,
                             device.empty() ? "" : absl::StrCat(" on ", device),
                             " failed: ", s.message(),
                             " (SessionOptions::optimize_graph = false runs "
                             "the graph as built)"));
}

}  // namespace

absl::Status RunDeviceIndependentPasses(const OptimizationOptions& options,
                                        Graph* graph,
                                        std::vector<PassSummary>* summaries) {
  if (!options.enabled) return absl::OkStatus();
  const absl::Time start = absl::Now();
  absl::StatusOr<TensorFusionResult> fused =
      FuseAllReduces(graph, options.tensor_fusion);
  if (!fused.ok()) return InPass("tensor_fusion", "", fused.status());
  if (summaries != nullptr) {
    PassSummary s;
    s.pass = "tensor_fusion";
    s.changes = fused->buckets;
    s.what = absl::StrCat(fused->instances, " all-reduce instances into ",
                          fused->buckets);
    s.time = absl::Now() - start;
    summaries->push_back(std::move(s));
  }
  return absl::OkStatus();
}

absl::Status RunDeviceSpecificPasses(const OptimizationOptions& options,
                                     absl::string_view device,
                                     absl::string_view device_type,
                                     Graph* graph,
                                     std::vector<PassSummary>* summaries) {
  if (!options.enabled) return absl::OkStatus();
  // The fused update has kernels for CPU and GPU (kernels/cpu/
  // training_ops_fused.cc, kernels/gpu/kernel_defs_training.cc); another
  // device type keeps the MatMul and the update apart.
  if (device_type != "CPU" && device_type != "GPU") return absl::OkStatus();
  const absl::Time start = absl::Now();
  absl::StatusOr<int> fused = FuseMatMulIntoGradientDescent(graph);
  if (!fused.ok()) return InPass("fuse_matmul_update", device, fused.status());
  if (summaries != nullptr) {
    PassSummary s;
    s.pass = "fuse_matmul_update";
    s.device = std::string(device);
    s.changes = *fused;
    s.what = absl::StrCat(*fused, " MatMul+ApplyGradientDescent fused");
    s.time = absl::Now() - start;
    summaries->push_back(std::move(s));
  }
  return absl::OkStatus();
}

std::string PassSummaryLine(const PassSummary& summary) {
  return absl::StrFormat(
      "%s%s: %s (%.2f ms)", summary.pass,
      summary.device.empty() ? "" : absl::StrCat(" on ", summary.device),
      summary.what, absl::ToDoubleMilliseconds(summary.time));
}

}  // namespace dflow
