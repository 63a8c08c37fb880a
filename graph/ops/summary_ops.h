// Summary ops, with TensorFlow's names and OpDefs (core/ops/logging_ops.cc,
// core/ops/summary_ops.cc). TF1's (tf.compat.v1.summary) each output a
// serialized Summary proto (proto/summary.proto) as a DT_STRING scalar, for
// an event-file writer and TensorBoard; TF2's (tf.summary with a default
// writer) write events through a SummaryWriter resource themselves.
#ifndef DFLOW_GRAPH_OPS_SUMMARY_OPS_H_
#define DFLOW_GRAPH_OPS_SUMMARY_OPS_H_

#include <cstdint>

#include "absl/strings/string_view.h"
#include "graph/scope.h"

namespace dflow {
namespace ops {

// One simple_value per element: `tags` and `values` have one shape (or are
// both scalars).
Output ScalarSummary(const Scope& scope, Input tags, Input values);
// A histogram of every element of `values` (TensorFlow's default buckets)
// under the scalar string `tag`.
Output HistogramSummary(const Scope& scope, Input tag, Input values);
// The values of every input Summary in one; a tag seen twice is an error.
Output MergeSummary(const Scope& scope, InputList inputs);
// Up to max_images PNG images of a [batch, height, width, 1|3|4] tensor
// (uint8 as is; float, half and double scaled into uint8 as TensorFlow
// does), tagged "<tag>/image/<i>" ("<tag>/image" when max_images is 1).
Output ImageSummary(const Scope& scope, Input tag, Input tensor,
                    int64_t max_images = 3);
// Up to max_outputs 16-bit WAV clips of a float [batch, frames(, channels)]
// tensor, tagged "<tag>/audio/<i>".
Output AudioSummaryV2(const Scope& scope, Input tag, Input tensor,
                      Input sample_rate, int64_t max_outputs = 3);
Output AudioSummary(const Scope& scope, Input tag, Input tensor,
                    float sample_rate, int64_t max_outputs = 3);
// The tensor itself under `tag`, with a serialized SummaryMetadata (a
// TensorBoard plugin's, e.g. the text plugin's).
Output TensorSummaryV2(const Scope& scope, Input tag, Input tensor,
                       Input serialized_summary_metadata);
Output TensorSummary(const Scope& scope, Input tensor);

// --- TF2's writer ops (summary_ops_writer.cc). ---

// The writer's handle; CreateSummaryFileWriter opens its event file
// (logdir, max_queue and flush_millis int32 scalars, filename_suffix).
Output SummaryWriter(const Scope& scope, absl::string_view shared_name = "");
Operation CreateSummaryFileWriter(const Scope& scope, Input writer,
                                  Input logdir, Input max_queue,
                                  Input flush_millis, Input filename_suffix);
// One event at `step` (int64 scalar) each.
Operation WriteSummary(const Scope& scope, Input writer, Input step,
                       Input tensor, Input tag, Input summary_metadata);
Operation WriteScalarSummary(const Scope& scope, Input writer, Input step,
                             Input tag, Input value);
Operation WriteHistogramSummary(const Scope& scope, Input writer, Input step,
                                Input tag, Input values);
Operation WriteImageSummary(const Scope& scope, Input writer, Input step,
                            Input tag, Input tensor, Input bad_color,
                            int64_t max_images = 3);
Operation WriteAudioSummary(const Scope& scope, Input writer, Input step,
                            Input tag, Input tensor, Input sample_rate,
                            int64_t max_outputs = 3);
// One event per serialized Summary in `tensor`.
Operation WriteRawProtoSummary(const Scope& scope, Input writer, Input step,
                               Input tensor);
// A serialized GraphDef as the event's graph.
Operation WriteGraphSummary(const Scope& scope, Input writer, Input step,
                            Input tensor);
Operation FlushSummaryWriter(const Scope& scope, Input writer);
Operation CloseSummaryWriter(const Scope& scope, Input writer);

}  // namespace ops
}  // namespace dflow

#endif  // DFLOW_GRAPH_OPS_SUMMARY_OPS_H_
