// PythonSession: what `dflow.Session` holds on the C++ side.
//
// It is a runtime Session plus what TensorFlow's Python Session knows and the
// C++ Session does not need: the graph it came from (to tell a tensor fetch
// "node" from an op run for its effects, and for the placement view), the
// .meta's SaverDef and queue runners, or a SavedModel's signatures. Loading
// goes through the same library calls as `dflow run` (ReadGraphFile,
// LoadSavedModel, Saver, StartQueueRunners), so a graph runs the same from
// Python as from the command line.
//
// Every method may be called from several threads. Close() ends the session
// for new calls; steps already running keep it alive (shared ownership)
// until they finish.
#ifndef DFLOW_PYTHON_PYTHON_SESSION_H_
#define DFLOW_PYTHON_PYTHON_SESSION_H_

#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "formats/meta_graph.h"
#include "graph/graph.h"
#include "proto/graph.pb.h"
#include "runtime/queue_runner.h"
#include "runtime/session.h"

namespace dflow {
namespace python {

// dflow.Session's keyword arguments.
struct PythonSessionOptions {
  std::string devices;  // "CPU:2,GPU:4" as `dflow run --devices`; "": CPU:1
  bool soft_placement = false;
  bool log_device_placement = false;
  int threads = 0;
  bool optimize = true;
};

// The SessionOptions `dflow run` would use for the same flags.
absl::StatusOr<SessionOptions> ToSessionOptions(
    const PythonSessionOptions& options);

struct NodePlacementView {
  std::string node;
  std::string device;
  std::string reason;
};

struct SignatureView {
  std::string method_name;
  std::map<std::string, std::string> inputs;   // key -> tensor name
  std::map<std::string, std::string> outputs;  // key -> tensor name
};

class PythonSession {
 public:
  // A .pb/.pbtxt GraphDef, a .meta MetaGraphDef or a SavedModel's graph
  // (without its variables: load_saved_model restores them).
  static absl::StatusOr<std::unique_ptr<PythonSession>> FromGraphFile(
      const std::string& path, const PythonSessionOptions& options);
  // Serialized GraphDef bytes (binary or text).
  static absl::StatusOr<std::unique_ptr<PythonSession>> FromGraphBytes(
      const std::string& bytes, const PythonSessionOptions& options);
  // A SavedModel with its variables restored (LoadSavedModel).
  static absl::StatusOr<std::unique_ptr<PythonSession>> FromSavedModel(
      const std::string& export_dir, const std::vector<std::string>& tags,
      const PythonSessionOptions& options);
  ~PythonSession();

  // The session for one call; FailedPrecondition once closed.
  absl::StatusOr<std::shared_ptr<Session>> session() const;

  // Whether fetch `name` gives a value: "node:k" does; "^node" does not;
  // "node" does when the node has outputs (its output 0), and is otherwise
  // run for its effects, as TensorFlow runs an Operation. A name the graph
  // lacks counts as a tensor, so that the session's NotFound reports it.
  absl::StatusOr<bool> FetchHasValue(const std::string& name);
  // The dtype of tensor `name` ("node" or "node:k"), to convert Python
  // literals fed to it; DT_INVALID when the graph does not say.
  DataType TensorDtype(const std::string& name);

  std::vector<std::string> Devices() const;
  // Where each node of the graph goes on this session's devices, and why
  // (what `dflow place` prints); steps place only what they run.
  absl::StatusOr<std::vector<NodePlacementView>> Placement() const;
  // Starts the .meta's queue runners; returns how many started (0 for a
  // graph without any).
  absl::StatusOr<int> StartQueueRunners();
  // Writes a V2 checkpoint of every variable (`dflow run --save`).
  absl::StatusOr<std::string> Save(const std::string& prefix,
                                   int64_t global_step);
  // Restores a checkpoint: through the .meta's restore op when there is a
  // SaverDef, else with dflow's Saver (`dflow run --restore`).
  absl::Status Restore(const std::string& prefix);
  // A SavedModel signature; NotFound listing the keys there are.
  absl::StatusOr<SignatureView> Signature(const std::string& key) const;
  std::vector<std::string> SignatureKeys() const;
  // Stops queue runners and releases the session. Idempotent.
  absl::Status Close();

 private:
  PythonSession(GraphDef def, std::optional<MetaGraphInfo> meta_graph,
                std::shared_ptr<Session> session,
                const SessionOptions& session_options);
  absl::Status EnsureGraph();

  const GraphDef def_;
  const std::optional<MetaGraphInfo> meta_graph_;
  const SessionOptions session_options_;

  mutable std::mutex mu_;
  std::shared_ptr<Session> session_;          // mu_; null once closed
  std::unique_ptr<Graph> graph_;              // mu_; built on first name lookup
  std::unique_ptr<Coordinator> coordinator_;  // mu_
  std::vector<std::unique_ptr<QueueRunner>> runners_;  // mu_
};

}  // namespace python
}  // namespace dflow

#endif  // DFLOW_PYTHON_PYTHON_SESSION_H_
