// Schemas of TensorFlow's whole-file ops (core/ops/io_ops.cc), with
// TensorFlow 2.21's OpDefs: tf.io.read_file, tf.io.write_file and
// tf.io.matching_files (a glob's matches, sorted). Kernels:
// kernels/cpu/io_ops_files.cc.
#include <string>

#include "graph/op_registry.h"
#include "graph/ops/io_ops.h"
#include "graph/shape_inference.h"

namespace dflow {
namespace {

DFLOW_REGISTER_OP("ReadFile")
    .Input("filename: string")
    .Output("contents: string")
    .SetShapeFn([](InferenceContext* c) {
      c->set_output(0, TensorShape({}));
      return absl::OkStatus();
    })
    .Doc("The bytes of the file `filename`.");

DFLOW_REGISTER_OP("WriteFile")
    .Input("filename: string")
    .Input("contents: string")
    .SetIsStateful()
    .SetShapeFn([](InferenceContext*) { return absl::OkStatus(); })
    .Doc(
        "Writes `contents` to the file `filename`, creating its directory "
        "and replacing the file.");

DFLOW_REGISTER_OP("MatchingFiles")
    .Input("pattern: string")
    .Output("filenames: string")
    .SetShapeFn([](InferenceContext* c) {
      c->set_output(0, TensorShape({-1}));
      return absl::OkStatus();
    })
    .Doc(
        "The files matching the glob pattern(s) (a scalar or a vector), "
        "sorted per pattern; a pattern without matches is NotFound.");

}  // namespace

namespace ops {

Output ReadFile(const Scope& scope, Input filename) {
  Operation op = OpBuilder(scope, "ReadFile").Input(filename).Finalize();
  return op.valid() ? op.output(0) : Output();
}

Operation WriteFile(const Scope& scope, Input filename, Input contents) {
  return OpBuilder(scope, "WriteFile")
      .Input(filename)
      .Input(contents)
      .Finalize();
}

Output MatchingFiles(const Scope& scope, Input pattern) {
  Operation op = OpBuilder(scope, "MatchingFiles").Input(pattern).Finalize();
  return op.valid() ? op.output(0) : Output();
}

}  // namespace ops
}  // namespace dflow
