// Saver: checkpoints of a session's variables, in TensorFlow's V2 format.
//
// A Saver knows the variables of one graph (its VariableV2 and VarHandleOp
// nodes). Save writes their current values as a tensor bundle
// (formats/tensor_bundle.h): `<prefix>-<step>.index` and
// `<prefix>-<step>.data-00000-of-00001`, each tensor under the variable's
// name, which TensorFlow reads (tf.train.load_checkpoint, tf.compat.v1
// Saver.restore); and records it in the directory's index, the text file
// `checkpoint` (TensorFlow's CheckpointState, which tf.train.latest_checkpoint
// reads). Restore loads them back, into the same session or into a fresh one
// of the same graph before it has run a step, from dflow's checkpoints or
// TensorFlow's:
//
//   auto saver = Saver::Create(def);
//   for (int64_t step = 1; ...; ++step) {
//     session->Run({}, {}, {"train"}, nullptr);
//     if (step % 1000 == 0) saver->Save(session.get(), "/ckpt/model", step);
//   }
//   ...
//   absl::StatusOr<std::string> latest = Saver::LatestCheckpoint("/ckpt");
//   if (latest.ok()) saver->Restore(session.get(), *latest);
//
// Files are replaced atomically (written to a temporary file in the same
// directory, synced, renamed, the directory synced): the data shard first,
// then the `.index` naming it, then the `checkpoint` index, so a process
// killed at any moment leaves an index that names only complete checkpoints.
// Every tensor carries a CRC32C: a torn or damaged file is reported, not
// misread.
//
// A Saver reads and sets variables through a VariableHost: a Session's
// own store (the Session* overloads), or a cluster's tasks
// (distributed/cluster_session.h: ClusterSession is one), so that the same
// checkpoints come from one process or many.
//
// Save may run while other threads run training steps: each variable is
// read under its mutex as one snapshot (updates in place copy a buffer that
// a snapshot still shares). Different variables may come from different
// steps, as in TensorFlow; save between steps for one consistent moment.
#ifndef DFLOW_RUNTIME_SAVER_H_
#define DFLOW_RUNTIME_SAVER_H_

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "graph/tensor_shape.h"
#include "graph/types.h"
#include "proto/checkpoint.pb.h"
#include "proto/graph.pb.h"
#include "runtime/session.h"

namespace dflow {

struct SaverOptions {
  // How many checkpoints the index keeps; Save deletes older ones (oldest
  // first). 0 keeps every checkpoint.
  int max_to_keep = 5;
};

// One variable a Saver saves.
struct CheckpointVariable {
  // Its VariableStore key (VariableKey), also its name in checkpoints.
  std::string name;
  // The first node naming it and that node's op (VariableV2/VarHandleOp).
  std::string node;
  std::string op;
  DataType dtype = DT_INVALID;
  // The shape the graph declares (may be partial).
  TensorShape shape;
};

// Where the variables a Saver saves and restores live.
class VariableHost {
 public:
  virtual ~VariableHost() = default;
  // Host copies of the values of `variables`, in their order.
  // FailedPrecondition, naming the variable, when one is not initialized.
  virtual absl::StatusOr<std::vector<Tensor>> ReadVariables(
      const std::vector<CheckpointVariable>& variables) = 0;
  // Sets each of `variables` to the value at its index (dtype and shape
  // checked by the caller), creating those no step has created yet.
  virtual absl::Status AssignVariables(
      const std::vector<CheckpointVariable>& variables,
      std::vector<Tensor> values) = 0;
};

class Saver {
 public:
  // The variables are the VariableV2/VarHandleOp nodes of `graph`, one per
  // VariableStore key (nodes sharing a variable must agree on its dtype).
  static absl::StatusOr<Saver> Create(const GraphDef& graph,
                                      const SaverOptions& options = {});

  // Writes every variable to the checkpoint "<prefix>-<global_step>"
  // ("<prefix>" when global_step < 0): its files are that path plus ".index"
  // and ".data-00000-of-00001". Records it as the latest in the `checkpoint`
  // index of prefix's directory and deletes the checkpoints beyond max_to_keep.
  // Returns the path written. FailedPrecondition if a variable was never
  // initialized. Safe to call from several threads.
  absl::StatusOr<std::string> Save(Session* session, absl::string_view prefix,
                                   int64_t global_step = -1);
  absl::StatusOr<std::string> Save(VariableHost* host, absl::string_view prefix,
                                   int64_t global_step = -1);

  // Loads every variable of the graph from the checkpoint `path` (a prefix,
  // as Save returns it: without ".index") into
  // `session`, creating variables that no step has created yet. Checks
  // everything before changing anything: a variable missing from the
  // checkpoint, of another dtype or of a shape the graph does not allow, and
  // a damaged file, are errors that leave the session as it was.
  absl::Status Restore(Session* session, absl::string_view path) const;
  absl::Status Restore(VariableHost* host, absl::string_view path) const;

  // The latest checkpoint recorded in `dir`'s index; NotFound if there is
  // none.
  static absl::StatusOr<std::string> LatestCheckpoint(absl::string_view dir);

  // Sorted by name.
  const std::vector<CheckpointVariable>& variables() const {
    return variables_;
  }

 private:
  Saver(std::vector<CheckpointVariable> variables, SaverOptions options)
      : variables_(std::move(variables)),
        options_(options),
        save_mu_(std::make_unique<std::mutex>()) {}

  std::vector<CheckpointVariable> variables_;
  SaverOptions options_;
  // Serializes Saves through this Saver (each reads, then rewrites the
  // index). A pointer so that Saver stays movable.
  std::unique_ptr<std::mutex> save_mu_;
};

// Reads the index `dir`/checkpoint. NotFound if there is none.
absl::StatusOr<CheckpointState> ReadCheckpointState(absl::string_view dir);

}  // namespace dflow

#endif  // DFLOW_RUNTIME_SAVER_H_
