// Schema and wrapper of StaticRegexFullMatch (TensorFlow 2.21's
// string_ops.cc OpDef).
#include "graph/ops/string_ops.h"

#include <string>

#include "graph/graph.h"
#include "graph/op_registry.h"
#include "graph/shape_inference.h"

namespace dflow {
namespace {

DFLOW_REGISTER_OP("StaticRegexFullMatch")
    .Input("input: string")
    .Output("output: bool")
    .Attr("pattern: string")
    .SetShapeFn(shape_fns::UnchangedShape)
    .Doc("Whether each string matches the RE2 pattern as a whole.");

}  // namespace

namespace ops {

Output StaticRegexFullMatch(const Scope& scope, Input input,
                            absl::string_view pattern) {
  Operation op = OpBuilder(scope, "StaticRegexFullMatch")
                     .Input(input)
                     .Attr("pattern", std::string(pattern))
                     .Finalize();
  return op.valid() ? op.output(0) : Output();
}

}  // namespace ops
}  // namespace dflow
