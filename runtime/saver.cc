#include "runtime/saver.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <atomic>
#include <climits>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "google/protobuf/text_format.h"
#include "graph/tensor.h"
#include "runtime/variables.h"

namespace dflow {
namespace {

constexpr char kMagic[] = "dflow.Checkpoint";
constexpr int kVersion = 1;
constexpr char kIndexName[] = "checkpoint";
// "dCKP" in little-endian bytes; any nonzero value would do.
constexpr uint32_t kCheckpointTrailer = 0x504b4364;

// Every valid file starts with these bytes: field 1 (magic) comes first, as
// tag 0x0a, length 16, then the magic itself. Knowing them lets Restore tell
// "not a checkpoint" from "a damaged checkpoint".
const std::string& FileHeader() {
  static const std::string* header = [] {
    CheckpointFile file;
    file.set_magic(kMagic);
    return new std::string(file.SerializeAsString());
  }();
  return *header;
}

uint32_t Crc32(absl::string_view bytes) {
  return static_cast<uint32_t>(
      crc32_z(crc32_z(0L, Z_NULL, 0),
              reinterpret_cast<const Bytef*>(bytes.data()), bytes.size()));
}

// "a/b/model-3" -> {"a/b", "model-3"}; "model" -> {"", "model"}.
std::pair<std::string, std::string> SplitPath(absl::string_view path) {
  size_t slash = path.rfind('/');
  if (slash == absl::string_view::npos) return {"", std::string(path)};
  std::string dir(path.substr(0, slash));
  if (dir.empty()) dir = "/";
  return {dir, std::string(path.substr(slash + 1))};
}

std::string JoinPath(absl::string_view dir, absl::string_view name) {
  if (dir.empty() || absl::StartsWith(name, "/")) return std::string(name);
  if (absl::EndsWith(dir, "/")) return absl::StrCat(dir, name);
  return absl::StrCat(dir, "/", name);
}

absl::Status ErrnoError(absl::string_view what, absl::string_view path) {
  return absl::ErrnoToStatus(errno, absl::StrCat(what, " '", path, "'"));
}

absl::Status CreateDirs(const std::string& dir) {
  if (dir.empty()) return absl::OkStatus();
  struct stat st;
  if (stat(dir.c_str(), &st) == 0) {
    if (S_ISDIR(st.st_mode)) return absl::OkStatus();
    return absl::FailedPreconditionError(
        absl::StrCat("cannot save checkpoints in '", dir,
                     "': it exists and is not a directory"));
  }
  absl::Status parent = CreateDirs(SplitPath(dir).first);
  if (!parent.ok()) return parent;
  if (mkdir(dir.c_str(), 0755) != 0 && errno != EEXIST) {
    return ErrnoError("cannot create checkpoint directory", dir);
  }
  return absl::OkStatus();
}

absl::Status SyncDir(const std::string& dir) {
  const std::string name = dir.empty() ? "." : dir;
  int fd = open(name.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return ErrnoError("cannot open directory", name);
  absl::Status status = absl::OkStatus();
  if (fsync(fd) != 0) status = ErrnoError("cannot sync directory", name);
  close(fd);
  return status;
}

absl::Status WriteAll(int fd, absl::string_view bytes,
                      const std::string& path) {
  while (!bytes.empty()) {
    ssize_t n = write(fd, bytes.data(), bytes.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      return ErrnoError("cannot write", path);
    }
    bytes.remove_prefix(static_cast<size_t>(n));
  }
  return absl::OkStatus();
}

// Replaces `path` by `contents` so that, whenever the process dies, `path`
// holds either its old contents or all of the new ones: write a temporary
// file in the same directory (rename is atomic only within a file system),
// sync it, rename it over `path`, then sync the directory so the rename
// itself survives a power loss.
absl::Status WriteFileAtomically(const std::string& path,
                                 absl::string_view contents) {
  static std::atomic<int64_t> counter{0};
  const std::string tmp =
      absl::StrCat(path, ".tmp.", getpid(), ".", counter.fetch_add(1));
  int fd = open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0) return ErrnoError("cannot create", tmp);
  absl::Status status = WriteAll(fd, contents, tmp);
  if (status.ok() && fsync(fd) != 0) status = ErrnoError("cannot sync", tmp);
  if (close(fd) != 0 && status.ok()) status = ErrnoError("cannot close", tmp);
  if (status.ok() && rename(tmp.c_str(), path.c_str()) != 0) {
    status = ErrnoError(absl::StrCat("cannot rename '", tmp, "' to"), path);
  }
  if (!status.ok()) {
    unlink(tmp.c_str());
    return status;
  }
  return SyncDir(SplitPath(path).first);
}

absl::StatusOr<std::string> ReadFile(const std::string& path,
                                     absl::string_view what) {
  int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    if (errno == ENOENT) {
      return absl::NotFoundError(
          absl::StrCat(what, " '", path, "' does not exist"));
    }
    return ErrnoError(absl::StrCat("cannot open ", what), path);
  }
  std::string contents;
  struct stat st;
  if (fstat(fd, &st) == 0 && st.st_size > 0) {
    contents.reserve(static_cast<size_t>(st.st_size));
  }
  char buffer[1 << 16];
  while (true) {
    ssize_t n = read(fd, buffer, sizeof(buffer));
    if (n < 0) {
      if (errno == EINTR) continue;
      absl::Status status =
          ErrnoError(absl::StrCat("cannot read ", what), path);
      close(fd);
      return status;
    }
    if (n == 0) break;
    contents.append(buffer, static_cast<size_t>(n));
  }
  close(fd);
  return contents;
}

absl::Status DamagedFile(absl::string_view path, absl::string_view what) {
  return absl::DataLossError(
      absl::StrCat("checkpoint file '", path, "' is damaged: ", what,
                   "; restore an older checkpoint (see its directory's "
                   "`checkpoint` index) or save again"));
}

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
  // Snapshots first, so a missing initializer fails before any file work.
  Checkpoint checkpoint;
  checkpoint.set_global_step(global_step >= 0 ? global_step : -1);
  for (const CheckpointVariable& spec : variables_) {
    Var* var = session->variables()->Lookup(spec.name);
    Tensor value;
    if (var != nullptr) value = var->Read();  // under the Var's mutex
    if (var == nullptr || !value.IsInitialized() ||
        value.dtype() != var->dtype()) {
      return absl::FailedPreconditionError(absl::StrCat(
          "cannot save variable '", spec.name, "' (", spec.op, " node '",
          spec.node, "'): it is not initialized; run the initializer first ",
          "(or restore it from a checkpoint)"));
    }
    if (var->dtype() != spec.dtype) {
      return absl::InvalidArgumentError(absl::StrCat(
          "variable '", spec.name, "' is ", DataTypeName(var->dtype()),
          " in the session but ", DataTypeName(spec.dtype),
          " in the saver's graph; create the Saver from the session's graph"));
    }
    SavedVariable* saved = checkpoint.add_variables();
    saved->set_name(spec.name);
    value.ToProto(saved->mutable_value(), /*use_tensor_content=*/true);
  }
  if (checkpoint.ByteSizeLong() > static_cast<size_t>(INT_MAX) - 1024) {
    return absl::ResourceExhaustedError(absl::StrCat(
        "the checkpoint of ", variables_.size(), " variables would be ",
        checkpoint.ByteSizeLong(),
        " bytes; a checkpoint file holds at most 2 GiB (protobuf's limit)"));
  }
  CheckpointFile file;
  file.set_magic(kMagic);
  file.set_version(kVersion);
  std::string payload = checkpoint.SerializeAsString();
  checkpoint.Clear();
  file.set_checkpoint_size(payload.size());
  file.set_checkpoint_crc32(Crc32(payload));
  file.set_checkpoint(std::move(payload));
  file.set_trailer(kCheckpointTrailer);
  std::string bytes = file.SerializeAsString();
  file.Clear();

  absl::Status status = CreateDirs(dir);
  if (!status.ok()) return status;
  // Read the index before writing anything: a broken one stops the save.
  CheckpointState state;
  absl::StatusOr<CheckpointState> old_state = ReadCheckpointState(dir);
  if (old_state.ok()) {
    state = *std::move(old_state);
  } else if (!absl::IsNotFound(old_state.status())) {
    return old_state.status();
  }

  status = WriteFileAtomically(path, bytes);
  if (!status.ok()) return status;
  bytes.clear();

  // The new list: the old one without this path (saved again, it becomes
  // the newest), then this path; the oldest beyond max_to_keep go.
  // The index names files in its own directory, so the directory can move.
  const std::string& entry = file_name;
  std::vector<std::string> kept;
  for (const std::string& old : state.all_model_checkpoint_paths()) {
    if (old != entry) kept.push_back(old);
  }
  kept.push_back(entry);
  std::vector<std::string> dropped;
  if (options_.max_to_keep > 0 &&
      kept.size() > static_cast<size_t>(options_.max_to_keep)) {
    const size_t n = kept.size() - static_cast<size_t>(options_.max_to_keep);
    dropped.assign(kept.begin(), kept.begin() + n);
    kept.erase(kept.begin(), kept.begin() + n);
  }
  CheckpointState new_state;
  new_state.set_model_checkpoint_path(entry);
  for (const std::string& k : kept) new_state.add_all_model_checkpoint_paths(k);
  std::string text;
  google::protobuf::TextFormat::PrintToString(new_state, &text);
  status = WriteFileAtomically(JoinPath(dir, kIndexName), text);
  if (!status.ok()) return status;

  // Only now that the index no longer names them. Best effort: a file that
  // cannot be deleted is merely left behind.
  for (const std::string& old : dropped) unlink(JoinPath(dir, old).c_str());
  return path;
}

absl::Status Saver::Restore(Session* session, absl::string_view path) const {
  if (session == nullptr) {
    return absl::InvalidArgumentError("Saver::Restore needs a session");
  }
  absl::StatusOr<Checkpoint> checkpoint = ReadCheckpoint(path);
  if (!checkpoint.ok()) return checkpoint.status();
  absl::flat_hash_map<std::string, const SavedVariable*> saved;
  for (const SavedVariable& v : checkpoint->variables()) {
    saved.emplace(v.name(), &v);
  }

  // Check every variable before changing any.
  std::vector<Tensor> values;
  values.reserve(variables_.size());
  for (const CheckpointVariable& spec : variables_) {
    auto it = saved.find(spec.name);
    if (it == saved.end()) {
      std::vector<std::string> names;
      for (const SavedVariable& v : checkpoint->variables()) {
        if (names.size() == 10) {
          names.push_back("...");
          break;
        }
        names.push_back(v.name());
      }
      return absl::NotFoundError(absl::StrCat(
          "variable '", spec.name, "' (", spec.op, " node '", spec.node,
          "') is not in checkpoint '", path, "', which holds {",
          absl::StrJoin(names, ", "),
          "}; restore a checkpoint saved from this graph, or run the "
          "variable's initializer instead"));
    }
    const TensorProto& proto = it->second->value();
    if (proto.dtype() != spec.dtype) {
      return absl::InvalidArgumentError(absl::StrCat(
          "variable '", spec.name, "' is ", DataTypeName(spec.dtype),
          " in the graph but ", DataTypeName(proto.dtype()), " in checkpoint '",
          path, "'; restore a checkpoint saved from this graph"));
    }
    absl::StatusOr<Tensor> value = Tensor::FromProto(proto);
    if (!value.ok()) {
      return absl::DataLossError(absl::StrCat(
          "variable '", spec.name, "' in checkpoint '", path,
          "' holds a malformed tensor: ", value.status().message()));
    }
    if (!spec.shape.IsCompatibleWith(value->shape())) {
      return absl::InvalidArgumentError(absl::StrCat(
          "variable '", spec.name, "' has shape ", spec.shape.ToString(),
          " in the graph but ", value->shape().ToString(), " in checkpoint '",
          path, "'; restore a checkpoint saved from this graph"));
    }
    values.push_back(*std::move(value));
  }
  std::vector<Var*> vars;
  vars.reserve(variables_.size());
  for (const CheckpointVariable& spec : variables_) {
    absl::StatusOr<Var*> var =
        session->variables()->LookupOrCreate(spec.name, spec.dtype, spec.shape);
    if (!var.ok()) return var.status();
    vars.push_back(*var);
  }
  for (size_t i = 0; i < vars.size(); ++i) {
    std::lock_guard<std::mutex> lock(vars[i]->mu());
    *vars[i]->value() = std::move(values[i]);
  }
  return absl::OkStatus();
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

absl::StatusOr<Checkpoint> ReadCheckpoint(absl::string_view path_view) {
  const std::string path(path_view);
  absl::StatusOr<std::string> contents = ReadFile(path, "checkpoint file");
  if (!contents.ok()) return contents.status();
  const std::string& header = FileHeader();
  if (!absl::StartsWith(*contents, header)) {
    if (absl::StartsWith(header, *contents)) {
      return DamagedFile(path, absl::StrCat("it holds only ", contents->size(),
                                            " bytes, part of the header"));
    }
    return absl::InvalidArgumentError(absl::StrCat(
        "'", path,
        "' is not a dflow checkpoint (it does not start with the checkpoint "
        "header); pass a file that Saver::Save wrote, e.g. the one "
        "Saver::LatestCheckpoint names"));
  }
  CheckpointFile file;
  if (!file.ParseFromString(*contents)) {
    return DamagedFile(path, absl::StrCat("its ", contents->size(),
                                          " bytes do not parse (truncated?)"));
  }
  contents->clear();
  if (file.trailer() != kCheckpointTrailer) {
    return DamagedFile(path,
                       "it lacks the trailer that ends every checkpoint "
                       "(truncated?)");
  }
  if (file.version() != kVersion) {
    return absl::InvalidArgumentError(
        absl::StrCat("checkpoint file '", path, "' has format version ",
                     file.version(), "; this dflow reads version ", kVersion));
  }
  if (file.checkpoint().size() != file.checkpoint_size()) {
    return DamagedFile(
        path, absl::StrCat("it holds ", file.checkpoint().size(), " of its ",
                           file.checkpoint_size(), " payload bytes"));
  }
  if (Crc32(file.checkpoint()) != file.checkpoint_crc32()) {
    return DamagedFile(path, "its checksum does not match its contents");
  }
  Checkpoint checkpoint;
  if (!checkpoint.ParseFromString(file.checkpoint())) {
    return DamagedFile(path, "its payload does not parse");
  }
  return checkpoint;
}

absl::StatusOr<CheckpointState> ReadCheckpointState(absl::string_view dir) {
  const std::string path = JoinPath(dir, kIndexName);
  absl::StatusOr<std::string> text = ReadFile(path, "checkpoint index");
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
