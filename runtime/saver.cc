#include "runtime/saver.h"

#include <unistd.h>

#include <algorithm>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "formats/file_util.h"
#include "formats/tensor_bundle.h"
#include "google/protobuf/text_format.h"
#include "graph/tensor.h"
#include "runtime/device.h"
#include "runtime/session.h"
#include "runtime/variables.h"

namespace dflow {
namespace {

using file_util::JoinPath;
using file_util::SplitPath;

constexpr char kIndexName[] = "checkpoint";

// A Session's variables: its VariableStore.
class SessionVariables : public VariableHost {
 public:
  explicit SessionVariables(Session* session) : session_(session) {}

  absl::StatusOr<std::vector<Tensor>> ReadVariables(
      const std::vector<CheckpointVariable>& variables) override {
    std::vector<Tensor> values;
    values.reserve(variables.size());
    for (const CheckpointVariable& spec : variables) {
      Var* var = session_->variables()->Lookup(spec.name);
      Tensor value;
      if (var != nullptr) value = var->ReadToKeep();  // under its mutex
      if (var == nullptr || !value.IsInitialized() ||
          value.dtype() != var->dtype()) {
        return absl::FailedPreconditionError(absl::StrCat(
            "cannot save variable '", spec.name, "' (", spec.op, " node '",
            spec.node, "'): it is not initialized; run the initializer first ",
            "(or restore it from a checkpoint)"));
      }
      // A GPU variable's value is in device memory: the device holding it
      // copies it to the host (the others hand it back as it is).
      for (const std::unique_ptr<Device>& device :
           session_->devices().devices()) {
        absl::StatusOr<Tensor> host = device->HostCopyOf(value);
        if (!host.ok()) {
          return absl::Status(host.status().code(),
                              absl::StrCat("cannot save variable '", spec.name,
                                           "' (", spec.op, " node '", spec.node,
                                           "'): ", host.status().message()));
        }
        value = *std::move(host);
      }
      values.push_back(std::move(value));
    }
    return values;
  }

  absl::Status AssignVariables(const std::vector<CheckpointVariable>& variables,
                               std::vector<Tensor> values) override {
    std::vector<Var*> vars;
    vars.reserve(variables.size());
    for (const CheckpointVariable& spec : variables) {
      absl::StatusOr<Var*> var = session_->variables()->LookupOrCreate(
          spec.name, spec.dtype, spec.shape);
      if (!var.ok()) return var.status();
      vars.push_back(*var);
    }
    for (size_t i = 0; i < vars.size(); ++i) {
      std::lock_guard<std::mutex> lock(vars[i]->mu());
      *vars[i]->value() = std::move(values[i]);
    }
    return absl::OkStatus();
  }

 private:
  Session* session_;
};

}  // namespace

absl::StatusOr<Saver> Saver::Create(const GraphDef& graph,
                                    const SaverOptions& options) {
  if (options.max_to_keep < 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("SaverOptions.max_to_keep is ", options.max_to_keep,
                     "; use a positive count, or 0 to keep every checkpoint"));
  }
  std::vector<CheckpointVariable> variables;
  absl::flat_hash_map<std::string, size_t> index;
  for (const NodeDef& node : graph.node()) {
    if (node.op() != "VariableV2" && node.op() != "VarHandleOp") continue;
    CheckpointVariable var;
    var.name = VariableKey(node);
    var.node = node.name();
    var.op = node.op();
    auto dtype = node.attr().find("dtype");
    if (dtype == node.attr().end()) {
      return absl::InvalidArgumentError(
          absl::StrCat("node '", node.name(), "' (", node.op(),
                       ") has no dtype attr; give the variable a dtype"));
    }
    var.dtype = dtype->second.type();
    auto shape = node.attr().find("shape");
    if (shape == node.attr().end()) {
      var.shape = TensorShape::Unknown();
    } else {
      absl::StatusOr<TensorShape> parsed =
          TensorShape::FromProto(shape->second.shape());
      if (!parsed.ok()) {
        return absl::InvalidArgumentError(absl::StrCat(
            "node '", node.name(), "' (", node.op(),
            ") has a bad shape attr: ", parsed.status().message()));
      }
      var.shape = *std::move(parsed);
    }
    auto [it, inserted] = index.emplace(var.name, variables.size());
    if (!inserted) {
      const CheckpointVariable& first = variables[it->second];
      if (first.dtype != var.dtype) {
        return absl::InvalidArgumentError(absl::StrCat(
            "nodes '", first.node, "' (", DataTypeName(first.dtype), ") and '",
            var.node, "' (", DataTypeName(var.dtype),
            ") name the same variable '", var.name,
            "' with different dtypes; give them different shared_names"));
      }
      continue;
    }
    variables.push_back(std::move(var));
  }
  std::sort(variables.begin(), variables.end(),
            [](const CheckpointVariable& a, const CheckpointVariable& b) {
              return a.name < b.name;
            });
  return Saver(std::move(variables), options);
}

absl::StatusOr<std::string> Saver::Save(Session* session,
                                        absl::string_view prefix,
                                        int64_t global_step) {
  if (session == nullptr) {
    return absl::InvalidArgumentError("Saver::Save needs a session");
  }
  SessionVariables host(session);
  return Save(&host, prefix, global_step);
}

absl::Status Saver::Restore(Session* session, absl::string_view path) const {
  if (session == nullptr) {
    return absl::InvalidArgumentError("Saver::Restore needs a session");
  }
  SessionVariables host(session);
  return Restore(&host, path);
}

absl::StatusOr<std::string> Saver::Save(VariableHost* host,
                                        absl::string_view prefix,
                                        int64_t global_step) {
  if (host == nullptr) {
    return absl::InvalidArgumentError("Saver::Save needs a session");
  }
  const std::string path = global_step >= 0
                               ? absl::StrCat(prefix, "-", global_step)
                               : std::string(prefix);
  const auto [dir, file_name] = SplitPath(path);
  if (SplitPath(prefix).second.empty() || file_name == kIndexName) {
    return absl::InvalidArgumentError(absl::StrCat(
        "checkpoint prefix '", prefix,
        "' names no file (or the index `checkpoint`); give a path and a file "
        "name prefix such as '/tmp/train/model'"));
  }

  // One Save at a time: each reads the index, then rewrites it.
  std::lock_guard<std::mutex> lock(*save_mu_);
  // Values first, so a missing initializer fails before any file work.
  absl::StatusOr<std::vector<Tensor>> read = host->ReadVariables(variables_);
  if (!read.ok()) return read.status();
  std::vector<Tensor> values = *std::move(read);
  if (values.size() != variables_.size()) {
    return absl::InternalError(absl::StrCat("the session gave ", values.size(),
                                            " values for ", variables_.size(),
                                            " variables"));
  }
  for (size_t i = 0; i < values.size(); ++i) {
    if (values[i].dtype() != variables_[i].dtype) {
      return absl::InvalidArgumentError(absl::StrCat(
          "variable '", variables_[i].name, "' is ",
          DataTypeName(values[i].dtype()), " in the session but ",
          DataTypeName(variables_[i].dtype),
          " in the saver's graph; create the Saver from the session's graph"));
    }
  }

  absl::Status status = file_util::CreateDirs(dir);
  if (!status.ok()) return status;
  // Read the index before writing anything: a broken one stops the save.
  CheckpointState state;
  absl::StatusOr<CheckpointState> old_state = ReadCheckpointState(dir);
  if (old_state.ok()) {
    state = *std::move(old_state);
  } else if (!absl::IsNotFound(old_state.status())) {
    return old_state.status();
  }

  // Saving over a checkpoint that the index names: BundleWriter replaces its
  // data shard and then its .index, two renames between which they do not
  // match. So that the index never names that moment, the old files stay
  // reachable under a backup prefix (hard links to the same bytes) that the
  // index names instead until the new checkpoint is complete.
  const std::string backup_path = absl::StrCat(path, ".replaced");
  const std::string backup_name = SplitPath(backup_path).second;
  const std::string old_data = BundleDataFilename(path, 0, 1);
  const std::string old_index = BundleIndexFilename(path);
  if (std::find(state.all_model_checkpoint_paths().begin(),
                state.all_model_checkpoint_paths().end(),
                file_name) != state.all_model_checkpoint_paths().end() &&
      file_util::FileExists(old_index) && file_util::FileExists(old_data)) {
    DeleteBundle(backup_path).IgnoreError();
    if (link(old_data.c_str(), BundleDataFilename(backup_path, 0, 1).c_str()) !=
            0 ||
        link(old_index.c_str(), BundleIndexFilename(backup_path).c_str()) !=
            0) {
      return file_util::ErrnoError("cannot link the checkpoint being replaced",
                                   path);
    }
    CheckpointState during = state;
    if (during.model_checkpoint_path() == file_name) {
      during.set_model_checkpoint_path(backup_name);
    }
    for (std::string& p : *during.mutable_all_model_checkpoint_paths()) {
      if (p == file_name) p = backup_name;
    }
    std::string text;
    google::protobuf::TextFormat::PrintToString(during, &text);
    status = file_util::WriteFileAtomically(JoinPath(dir, kIndexName), text);
    if (!status.ok()) return status;
  }

  // The data shard, then the bundle's .index (BundleWriter::Finish).
  {
    BundleWriter writer(path);
    for (size_t i = 0; i < variables_.size(); ++i) {
      status = writer.Add(variables_[i].name, values[i]);
      if (!status.ok()) return status;
    }
    values.clear();
    status = writer.Finish();
    if (!status.ok()) return status;
  }

  // The new list: the old one without this path (saved again, it becomes
  // the newest) and without its backup (left named by a save that was
  // killed while replacing it; its files go below), then this path; the
  // oldest beyond max_to_keep go.
  // The index names files in its own directory, so the directory can move.
  const std::string& entry = file_name;
  const double now = absl::ToDoubleSeconds(absl::Now() - absl::UnixEpoch());
  const bool has_times = state.all_model_checkpoint_timestamps_size() ==
                         state.all_model_checkpoint_paths_size();
  std::vector<std::pair<std::string, double>> kept;
  for (int i = 0; i < state.all_model_checkpoint_paths_size(); ++i) {
    const std::string& old = state.all_model_checkpoint_paths(i);
    if (old == entry || old == backup_name) continue;
    kept.emplace_back(
        old, has_times ? state.all_model_checkpoint_timestamps(i) : now);
  }
  kept.emplace_back(entry, now);
  std::vector<std::string> dropped;
  if (options_.max_to_keep > 0 &&
      kept.size() > static_cast<size_t>(options_.max_to_keep)) {
    const size_t n = kept.size() - static_cast<size_t>(options_.max_to_keep);
    for (size_t i = 0; i < n; ++i) dropped.push_back(kept[i].first);
    kept.erase(kept.begin(), kept.begin() + n);
  }
  CheckpointState new_state;
  new_state.set_model_checkpoint_path(entry);
  for (const auto& [name, time] : kept) {
    new_state.add_all_model_checkpoint_paths(name);
    new_state.add_all_model_checkpoint_timestamps(time);
  }
  new_state.set_last_preserved_timestamp(state.last_preserved_timestamp());
  std::string text;
  google::protobuf::TextFormat::PrintToString(new_state, &text);
  status = file_util::WriteFileAtomically(JoinPath(dir, kIndexName), text);
  if (!status.ok()) return status;

  // Only now that the index no longer names them. Best effort: a file that
  // cannot be deleted is merely left behind.
  for (const std::string& old : dropped) {
    DeleteBundle(JoinPath(dir, old)).IgnoreError();
  }
  DeleteBundle(backup_path).IgnoreError();
  return path;
}

absl::Status Saver::Restore(VariableHost* host, absl::string_view path) const {
  if (host == nullptr) {
    return absl::InvalidArgumentError("Saver::Restore needs a session");
  }
  absl::StatusOr<std::unique_ptr<BundleReader>> reader =
      BundleReader::Open(path);
  if (!reader.ok()) return reader.status();

  // Check every variable, then read every value, before changing any.
  for (const CheckpointVariable& spec : variables_) {
    if (!(*reader)->Contains(spec.name)) {
      std::vector<std::string> names;
      for (const auto& [name, entry] : (*reader)->entries()) {
        if (names.size() == 10) {
          names.push_back("...");
          break;
        }
        names.push_back(name);
      }
      return absl::NotFoundError(absl::StrCat(
          "variable '", spec.name, "' (", spec.op, " node '", spec.node,
          "') is not in checkpoint '", path, "', which holds {",
          absl::StrJoin(names, ", "),
          "}; restore a checkpoint saved from this graph, or run the "
          "variable's initializer instead"));
    }
    absl::StatusOr<BundleTensorInfo> info = (*reader)->Lookup(spec.name);
    if (!info.ok()) return info.status();
    if (info->dtype != spec.dtype) {
      return absl::InvalidArgumentError(absl::StrCat(
          "variable '", spec.name, "' is ", DataTypeName(spec.dtype),
          " in the graph but ", DataTypeName(info->dtype), " in checkpoint '",
          path, "'; restore a checkpoint saved from this graph"));
    }
    if (!spec.shape.IsCompatibleWith(info->shape)) {
      return absl::InvalidArgumentError(absl::StrCat(
          "variable '", spec.name, "' has shape ", spec.shape.ToString(),
          " in the graph but ", info->shape.ToString(), " in checkpoint '",
          path, "'; restore a checkpoint saved from this graph"));
    }
  }
  std::vector<Tensor> values;
  values.reserve(variables_.size());
  for (const CheckpointVariable& spec : variables_) {
    absl::StatusOr<Tensor> value = (*reader)->Read(spec.name);
    if (!value.ok()) return value.status();
    values.push_back(*std::move(value));
  }
  return host->AssignVariables(variables_, std::move(values));
}

absl::StatusOr<std::string> Saver::LatestCheckpoint(absl::string_view dir) {
  absl::StatusOr<CheckpointState> state = ReadCheckpointState(dir);
  if (!state.ok()) return state.status();
  if (state->model_checkpoint_path().empty()) {
    return absl::NotFoundError(absl::StrCat("the checkpoint index '",
                                            JoinPath(dir, kIndexName),
                                            "' names no latest checkpoint"));
  }
  return JoinPath(dir, state->model_checkpoint_path());
}

absl::StatusOr<CheckpointState> ReadCheckpointState(absl::string_view dir) {
  const std::string path = JoinPath(dir, kIndexName);
  absl::StatusOr<std::string> text =
      file_util::ReadFile(path, "checkpoint index");
  if (!text.ok()) return text.status();
  CheckpointState state;
  if (!google::protobuf::TextFormat::ParseFromString(*text, &state)) {
    return absl::DataLossError(
        absl::StrCat("checkpoint index '", path,
                     "' is not a text CheckpointState; fix or delete it"));
  }
  return state;
}

}  // namespace dflow
