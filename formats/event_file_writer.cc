#include "formats/event_file_writer.h"

#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <system_error>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace dflow {

namespace {

double WallTime() {
  return std::chrono::duration<double>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

std::string HostName() {
  char name[256] = {};
  if (gethostname(name, sizeof(name) - 1) != 0 || name[0] == '\0') {
    return "localhost";
  }
  return name;
}

}  // namespace

std::string EventFileName(int64_t seconds, const std::string& host,
                          const std::string& suffix) {
  return absl::StrFormat("events.out.tfevents.%010d.%s%s", seconds, host,
                         suffix);
}

absl::StatusOr<std::unique_ptr<EventFileWriter>> EventFileWriter::Open(
    const std::string& logdir, const std::string& suffix) {
  std::error_code ec;
  std::filesystem::create_directories(logdir, ec);
  if (ec) {
    return absl::InvalidArgumentError(
        absl::StrCat("cannot create the summary log directory '", logdir,
                     "': ", ec.message()));
  }
  const double now = WallTime();
  const std::string path = absl::StrCat(
      logdir, "/",
      EventFileName(static_cast<int64_t>(now), HostName(), suffix));
  absl::StatusOr<std::unique_ptr<TfRecordWriter>> writer =
      TfRecordWriter::Open(path, TfRecordOptions());
  if (!writer.ok()) return writer.status();
  std::unique_ptr<EventFileWriter> events(
      new EventFileWriter(*std::move(writer)));
  Event version;
  version.set_wall_time(now);
  version.set_file_version("brain.Event:2");
  if (absl::Status s = events->WriteEvent(std::move(version)); !s.ok()) {
    return s;
  }
  // The version on disk at once: TensorBoard recognizes the file by it.
  if (absl::Status s = events->Flush(); !s.ok()) return s;
  return events;
}

EventFileWriter::~EventFileWriter() { Close().IgnoreError(); }

absl::Status EventFileWriter::WriteEvent(Event event) {
  if (event.wall_time() == 0) event.set_wall_time(WallTime());
  return writer_->Write(event.SerializeAsString());
}

absl::Status EventFileWriter::AddSummary(absl::string_view serialized_summary,
                                         int64_t step) {
  Event event;
  event.set_step(step);
  if (!event.mutable_summary()->ParseFromArray(
          serialized_summary.data(),
          static_cast<int>(serialized_summary.size()))) {
    return absl::InvalidArgumentError(absl::StrCat(
        "step ", step, ": ", serialized_summary.size(),
        " bytes that are not a serialized Summary proto (fetch the output of "
        "a summary op such as MergeSummary)"));
  }
  return WriteEvent(std::move(event));
}

absl::Status EventFileWriter::AddGraph(const GraphDef& graph, int64_t step) {
  Event event;
  event.set_step(step);
  event.set_graph_def(graph.SerializeAsString());
  return WriteEvent(std::move(event));
}

absl::Status EventFileWriter::AddRunMetadata(const std::string& tag,
                                             const RunMetadataProto& metadata,
                                             int64_t step) {
  Event event;
  event.set_step(step);
  TaggedRunMetadata* tagged = event.mutable_tagged_run_metadata();
  tagged->set_tag(tag);
  tagged->set_run_metadata(metadata.SerializeAsString());
  return WriteEvent(std::move(event));
}

absl::Status EventFileWriter::Flush() { return writer_->Flush(); }

absl::Status EventFileWriter::Close() { return writer_->Close(); }

}  // namespace dflow
