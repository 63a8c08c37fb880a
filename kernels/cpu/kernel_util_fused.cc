#include "kernels/cpu/kernel_util_fused.h"

#include <string>

#include "absl/strings/str_cat.h"

namespace dflow {

bool ReadFusedActivation(OpKernelConstruction* ctx) {
  std::string activation;
  ctx->SetStatus(ctx->GetAttr("activation", &activation));
  if (activation == "Relu") return true;
  if (!activation.empty()) {
    ctx->SetStatus(absl::InvalidArgumentError(absl::StrCat(
        ctx->node().op(), "'s activation must be '' or 'Relu', got '",
        activation,
        "' (the graph was not made by dflow's fuse_bias_activation pass; "
        "disable that pass or fix the attr)")));
  }
  return false;
}

}  // namespace dflow
