#include "kernels/cpu/kernel_util_identity.h"

#include "graph/types.h"
#include "runtime/variables.h"

namespace dflow {
namespace array_kernels {

void ForwardInput(OpKernelContext* ctx, int i) {
  Var* var = ctx->input_var(i);
  if (var != nullptr) {
    if (ctx->kernel().input_type(i) == DT_RESOURCE) {
      ctx->set_output_var(i, var);
    } else {
      ctx->set_output(i, var->Read());
    }
    return;
  }
  ctx->set_output(i, ctx->input(i));
}

}  // namespace array_kernels
}  // namespace dflow
