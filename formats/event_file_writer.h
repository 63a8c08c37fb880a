// TensorBoard's event files: what tf.compat.v1.summary.FileWriter writes
// and TensorBoard reads. A file events.out.tfevents.<seconds>.<host>[suffix]
// in a log directory holds Event protos (proto/event.proto) as TFRecord
// records (formats/tfrecord.h), the first one the file version
// "brain.Event:2". Summaries (the serialized Summary protos of dflow's
// ScalarSummary, HistogramSummary and MergeSummary ops), the graph, and
// session logs go in as events with the step they belong to.
//
//   auto writer = EventFileWriter::Open("/tmp/logs/train");
//   (*writer)->AddGraph(graph_def);
//   for (int step = 0; ...; ++step) {
//     ... run the merged summary op into `summary` ...
//     (*writer)->AddSummary(summary.flat<std::string>()[0], step);
//   }
//   (*writer)->Close();
//
// One step's RunMetadata (a session's step stats, runtime/run_metadata_proto.h)
// goes in with AddRunMetadata, as TensorFlow's add_run_metadata.
//
// Events are buffered; Flush() makes them readable (TensorBoard polls the
// file). Writes are not thread-safe: one writer per thread, or a lock.
#ifndef DFLOW_FORMATS_EVENT_FILE_WRITER_H_
#define DFLOW_FORMATS_EVENT_FILE_WRITER_H_

#include <cstdint>
#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "formats/tfrecord.h"
#include "proto/event.pb.h"
#include "proto/graph.pb.h"
#include "proto/step_stats.pb.h"

namespace dflow {

class EventFileWriter {
 public:
  // Creates `logdir` (and its parents) if needed and a new event file in
  // it; `suffix` ends the file name (TensorFlow's filename_suffix).
  static absl::StatusOr<std::unique_ptr<EventFileWriter>> Open(
      const std::string& logdir, const std::string& suffix = "");
  ~EventFileWriter();

  // A serialized Summary proto (a summary op's output) at `step`.
  absl::Status AddSummary(absl::string_view serialized_summary, int64_t step);
  // The graph TensorBoard draws (FileWriter(logdir, sess.graph)).
  absl::Status AddGraph(const GraphDef& graph, int64_t step = 0);
  // One step's RunMetadata under `tag` (add_run_metadata: TensorBoard's
  // graph page shows it as a run, nodes colored by compute time; see
  // runtime/run_metadata_proto.h for a session's).
  absl::Status AddRunMetadata(const std::string& tag,
                              const RunMetadataProto& metadata, int64_t step);
  // Any event; wall_time is set when it is 0.
  absl::Status WriteEvent(Event event);

  absl::Status Flush();
  // Flushes and closes; later writes fail. A second Close returns the
  // first one's status.
  absl::Status Close();

  const std::string& path() const { return writer_->path(); }

 private:
  explicit EventFileWriter(std::unique_ptr<TfRecordWriter> writer)
      : writer_(std::move(writer)) {}
  std::unique_ptr<TfRecordWriter> writer_;
};

// The file name TensorFlow gives an event file:
// events.out.tfevents.<10-digit seconds>.<host><suffix>.
std::string EventFileName(int64_t seconds, const std::string& host,
                          const std::string& suffix);

}  // namespace dflow

#endif  // DFLOW_FORMATS_EVENT_FILE_WRITER_H_
