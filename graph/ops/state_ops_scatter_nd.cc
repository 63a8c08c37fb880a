// Schemas, shape functions and builder wrappers of ScatterNdUpdate,
// ScatterNdAdd, ScatterNdSub and their Resource* forms: updates of a
// variable at the index tuples of the last dimension of `indices`, as
// TensorFlow's tf.compat.v1.scatter_nd_update / _add / _sub write them.
// TensorFlow declares the resource forms with use_locking defaulting to true
// and T of any type; the reference Add/Sub with numbers only.
#include <cstdint>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "graph/op_registry.h"
#include "graph/ops/state_ops.h"
#include "graph/shape_inference.h"
#include "graph/types.h"

namespace dflow {
namespace {

// updates.shape == indices.shape[:-1] + var.shape[indices.shape[-1]:], as
// far as the shapes are known. A reference form returns the variable.
absl::Status ScatterNdVariableShape(InferenceContext* c) {
  const bool resource = c->input_type(0) == DT_RESOURCE;
  const TensorShape& var = resource ? c->input_shape_value(0) : c->input(0);
  const TensorShape& indices = c->input(1);
  const TensorShape& updates = c->input(2);
  if (!indices.unknown_rank() && indices.rank() < 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("'indices' must be at least a vector but has shape ",
                     indices.ToString()));
  }
  if (!var.unknown_rank() && !indices.unknown_rank() &&
      !updates.unknown_rank() && indices.dim(indices.rank() - 1) >= 0) {
    const int64_t r = indices.dim(indices.rank() - 1);
    if (r > var.rank()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "indices.shape[-1] = ", r, " must be at most the rank of the ",
          "variable ", var.ToString()));
    }
    std::vector<int64_t> want;
    for (int i = 0; i + 1 < indices.rank(); ++i) want.push_back(indices.dim(i));
    for (int i = static_cast<int>(r); i < var.rank(); ++i) {
      want.push_back(var.dim(i));
    }
    if (!TensorShape(want).IsCompatibleWith(updates)) {
      return absl::InvalidArgumentError(
          absl::StrCat("updates ", updates.ToString(), " must have shape ",
                       "indices.shape[:-1] + var.shape[indices.shape[-1]:] = ",
                       TensorShape(want).ToString(), " (indices ",
                       indices.ToString(), ", var ", var.ToString(), ")"));
    }
  }
  if (c->num_outputs() > 0) c->set_output(0, c->input(0));
  return absl::OkStatus();
}

#define DFLOW_SCATTER_ND_OPS(op, ref_type, ref_locking, what) \
  DFLOW_REGISTER_OP("Resource" op)                            \
      .Input("ref: resource")                                 \
      .Input("indices: Tindices")                             \
      .Input("updates: T")                                    \
      .Attr("T: type")                                        \
      .Attr("Tindices: {int32, int64}")                       \
      .Attr("use_locking: bool = true")                       \
      .Attr("bad_indices_policy: string = ''")                \
      .SetIsStateful()                                        \
      .SetShapeFn(ScatterNdVariableShape)                     \
      .Doc(what " (resource variable).");                     \
  DFLOW_REGISTER_OP(op)                                       \
      .Input("ref: Ref(T)")                                   \
      .Input("indices: Tindices")                             \
      .Input("updates: T")                                    \
      .Output("output_ref: Ref(T)")                           \
      .Attr("T: " ref_type)                                   \
      .Attr("Tindices: {int32, int64}")                       \
      .Attr("use_locking: bool = " ref_locking)               \
      .Attr("bad_indices_policy: string = ''")                \
      .SetShapeFn(ScatterNdVariableShape)                     \
      .Doc(what " (reference variable).")

DFLOW_SCATTER_ND_OPS("ScatterNdUpdate", "type", "true",
                     "ref[indices[i, :], ...] = updates[i, ...]");
DFLOW_SCATTER_ND_OPS("ScatterNdAdd", "numbertype", "false",
                     "ref[indices[i, :], ...] += updates[i, ...]");
DFLOW_SCATTER_ND_OPS("ScatterNdSub", "numbertype", "false",
                     "ref[indices[i, :], ...] -= updates[i, ...]");
#undef DFLOW_SCATTER_ND_OPS

Operation BuildScatterNd(const Scope& scope, const char* op, Input ref,
                         Input indices, Input updates, bool default_locking,
                         const ops::ScatterNdAttrs& attrs) {
  return OpBuilder(scope, op)
      .Input(ref)
      .Input(indices)
      .Input(updates)
      .Attr("use_locking", attrs.use_locking.value_or(default_locking))
      .Attr("bad_indices_policy", attrs.bad_indices_policy)
      .Finalize();
}

Output FirstOutputOf(const Operation& op) {
  return op.valid() ? op.output(0) : Output();
}

}  // namespace

namespace ops {

Output ScatterNdUpdate(const Scope& scope, Input ref, Input indices,
                       Input updates, const ScatterNdAttrs& attrs) {
  return FirstOutputOf(BuildScatterNd(scope, "ScatterNdUpdate", ref, indices,
                                      updates, true, attrs));
}
Output ScatterNdAdd(const Scope& scope, Input ref, Input indices, Input updates,
                    const ScatterNdAttrs& attrs) {
  return FirstOutputOf(BuildScatterNd(scope, "ScatterNdAdd", ref, indices,
                                      updates, false, attrs));
}
Output ScatterNdSub(const Scope& scope, Input ref, Input indices, Input updates,
                    const ScatterNdAttrs& attrs) {
  return FirstOutputOf(BuildScatterNd(scope, "ScatterNdSub", ref, indices,
                                      updates, false, attrs));
}
Operation ResourceScatterNdUpdate(const Scope& scope, Input ref, Input indices,
                                  Input updates, const ScatterNdAttrs& attrs) {
  return BuildScatterNd(scope, "ResourceScatterNdUpdate", ref, indices, updates,
                        true, attrs);
}
Operation ResourceScatterNdAdd(const Scope& scope, Input ref, Input indices,
                               Input updates, const ScatterNdAttrs& attrs) {
  return BuildScatterNd(scope, "ResourceScatterNdAdd", ref, indices, updates,
                        true, attrs);
}
Operation ResourceScatterNdSub(const Scope& scope, Input ref, Input indices,
                               Input updates, const ScatterNdAttrs& attrs) {
  return BuildScatterNd(scope, "ResourceScatterNdSub", ref, indices, updates,
                        true, attrs);
}

}  // namespace ops
}  // namespace dflow
