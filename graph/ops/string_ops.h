// String ops: StaticRegexFullMatch (TensorFlow's string_ops.cc), which
// TensorFlow's Saver writes to tell "s3://" paths apart; StringLength;
// StringFormat and PrintV2, what tf.print builds.
#ifndef DFLOW_GRAPH_OPS_STRING_OPS_H_
#define DFLOW_GRAPH_OPS_STRING_OPS_H_

#include <cstdint>

#include "absl/strings/string_view.h"
#include "graph/scope.h"

namespace dflow {
namespace ops {

// Whether each string of `input` matches `pattern` as a whole (RE2 syntax
// and full-match semantics, as in TensorFlow).
Output StaticRegexFullMatch(const Scope& scope, Input input,
                            absl::string_view pattern);

// Each string's length in "BYTE"s or "UTF8_CHAR"s (tf.strings.length).
Output StringLength(const Scope& scope, Input input,
                    absl::string_view unit = "BYTE");

// `format` with each "{}" replaced by an input's values as tf.print writes
// them (the first and last `summarize` entries of each dimension; -1: all).
Output StringFormat(const Scope& scope, InputList inputs,
                    absl::string_view format, int64_t summarize = 3);

// `input` passed on; when it runs, `message` and each data tensor's first
// elements go to stderr (TF1's tf.compat.v1.Print).
Output Print(const Scope& scope, Input input, InputList data,
             absl::string_view message);

// Writes `input` (a string scalar) and a newline to "stderr", "stdout",
// "log(info)" or "file://<path>" when it runs (tf.print).
Operation PrintV2(const Scope& scope, Input input,
                  absl::string_view output_stream = "stderr");

}  // namespace ops
}  // namespace dflow

#endif  // DFLOW_GRAPH_OPS_STRING_OPS_H_
