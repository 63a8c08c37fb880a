// Handles of resources other than variables (queues, readers): the op that
// makes the handle finds its Var in the session's VariableStore by
// container/shared_name (or its node's name) and creates the resource on
// first use; consumers reach it through their handle input.
#ifndef DFLOW_KERNELS_CPU_KERNEL_UTIL_RESOURCE_H_
#define DFLOW_KERNELS_CPU_KERNEL_UTIL_RESOURCE_H_

#include <functional>
#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "runtime/op_kernel.h"
#include "runtime/variables.h"

namespace dflow {

// The store key of the resource a handle op names (runtime/variables.h).
inline std::string ResourceKey(OpKernelConstruction* ctx) {
  std::string container, shared_name;
  ctx->GetAttr("container", &container).IgnoreError();
  ctx->GetAttr("shared_name", &shared_name).IgnoreError();
  return VariableKey(ctx->name(), container, shared_name);
}

// The handle's Var, its resource made by `create` on first use and checked
// to be a T (another kind under the same name is an error naming both).
template <typename T>
absl::StatusOr<Var*> LookupOrCreateResource(
    OpKernelContext* ctx, const std::string& key, const char* kind,
    const std::function<std::unique_ptr<T>()>& create) {
  absl::StatusOr<Var*> var =
      ctx->variables()->LookupOrCreate(key, DT_RESOURCE, TensorShape({}));
  if (!var.ok()) return var.status();
  absl::StatusOr<ResourceBase*> resource = (*var)->GetOrCreateResource(
      [&]() -> absl::StatusOr<std::unique_ptr<ResourceBase>> {
        return std::unique_ptr<ResourceBase>(create());
      });
  if (!resource.ok()) return resource.status();
  if (dynamic_cast<T*>(*resource) == nullptr) {
    return absl::InvalidArgumentError(
        absl::StrCat("resource '", key, "' is ", (*resource)->DebugString(),
                     ", not a ", kind, "; give this one another shared_name"));
  }
  return *var;
}

// The T behind handle input `i`, or null when the input is not a handle to
// one.
template <typename T>
T* ResourceOfInput(OpKernelContext* ctx, int i) {
  Var* var = ctx->input_var(i);
  return dynamic_cast<T*>(var == nullptr ? nullptr : var->resource());
}

}  // namespace dflow

#endif  // DFLOW_KERNELS_CPU_KERNEL_UTIL_RESOURCE_H_
