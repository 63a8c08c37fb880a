#include "python/python_session.h"

#include <algorithm>
#include <utility>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "formats/graph_file.h"
#include "graph/graph_def_file.h"
#include "graph/graph_def_import.h"
#include "runtime/placement_bridge.h"
#include "runtime/saved_model_loader.h"
#include "runtime/saver.h"
#include "tools/placement_flags.h"

namespace dflow {
namespace python {

absl::StatusOr<SessionOptions> ToSessionOptions(
    const PythonSessionOptions& options) {
  SessionOptions out;
  if (options.threads < 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "threads must be >= 0 (0: one per core), not ", options.threads));
  }
  out.num_threads = options.threads;
  // devices=None (empty here): the session's default, one CPU.
  if (!options.devices.empty()) {
    absl::StatusOr<DeviceSet::Options> devices =
        DeviceSet::Options::Parse(options.devices);
    if (!devices.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat("devices: ", devices.status().message()));
    }
    out.device_count["CPU"] = devices->num_cpus;
    out.fake_gpus = devices->num_fake_gpus;
  }
  out.allow_soft_placement = options.soft_placement;
  out.log_device_placement = options.log_device_placement;
  out.optimize_graph = options.optimize;
  return out;
}

PythonSession::PythonSession(GraphDef def,
                             std::optional<MetaGraphInfo> meta_graph,
                             std::shared_ptr<Session> session,
                             const SessionOptions& session_options)
    : def_(std::move(def)),
      meta_graph_(std::move(meta_graph)),
      session_options_(session_options),
      session_(std::move(session)) {}

PythonSession::~PythonSession() { Close().IgnoreError(); }

absl::StatusOr<std::unique_ptr<PythonSession>> PythonSession::FromGraphFile(
    const std::string& path, const PythonSessionOptions& options) {
  absl::StatusOr<SessionOptions> session_options = ToSessionOptions(options);
  if (!session_options.ok()) return session_options.status();
  absl::StatusOr<GraphFile> file = ReadGraphFile(path);
  if (!file.ok()) return file.status();
  absl::StatusOr<std::unique_ptr<Session>> session =
      Session::Create(file->graph_def, *session_options);
  if (!session.ok()) return session.status();
  return std::unique_ptr<PythonSession>(new PythonSession(
      std::move(file->graph_def), std::move(file->meta_graph),
      std::shared_ptr<Session>(*std::move(session)), *session_options));
}

absl::StatusOr<std::unique_ptr<PythonSession>> PythonSession::FromGraphBytes(
    const std::string& bytes, const PythonSessionOptions& options) {
  absl::StatusOr<SessionOptions> session_options = ToSessionOptions(options);
  if (!session_options.ok()) return session_options.status();
  absl::StatusOr<GraphDef> def = ParseGraphDef(bytes);
  if (!def.ok()) return def.status();
  absl::StatusOr<std::unique_ptr<Session>> session =
      Session::Create(*def, *session_options);
  if (!session.ok()) return session.status();
  return std::unique_ptr<PythonSession>(new PythonSession(
      *std::move(def), std::nullopt,
      std::shared_ptr<Session>(*std::move(session)), *session_options));
}

absl::StatusOr<std::unique_ptr<PythonSession>> PythonSession::FromSavedModel(
    const std::string& export_dir, const std::vector<std::string>& tags,
    const PythonSessionOptions& options) {
  absl::StatusOr<SessionOptions> session_options = ToSessionOptions(options);
  if (!session_options.ok()) return session_options.status();
  absl::StatusOr<SavedModelBundle> bundle =
      LoadSavedModel(export_dir, tags, *session_options);
  if (!bundle.ok()) return bundle.status();
  return std::unique_ptr<PythonSession>(new PythonSession(
      std::move(bundle->graph_def), std::move(bundle->meta_graph),
      std::shared_ptr<Session>(std::move(bundle->session)), *session_options));
}

absl::StatusOr<std::shared_ptr<Session>> PythonSession::session() const {
  std::lock_guard<std::mutex> lock(mu_);
  if (session_ == nullptr) {
    return absl::FailedPreconditionError(
        "this session is closed; create a new dflow.Session");
  }
  return session_;
}

absl::Status PythonSession::EnsureGraph() {
  if (graph_ != nullptr) return absl::OkStatus();
  auto graph = std::make_unique<Graph>();
  if (absl::Status s = ImportGraphDef(def_, ImportOptions(), graph.get());
      !s.ok()) {
    return s;
  }
  graph_ = std::move(graph);
  return absl::OkStatus();
}

absl::StatusOr<bool> PythonSession::FetchHasValue(const std::string& name) {
  if (!name.empty() && name[0] == '^') return false;
  const size_t colon = name.rfind(':');
  int64_t index = 0;
  if (colon != std::string::npos &&
      absl::SimpleAtoi(name.substr(colon + 1), &index)) {
    return true;
  }
  std::lock_guard<std::mutex> lock(mu_);
  if (absl::Status s = EnsureGraph(); !s.ok()) return s;
  const Node* node = graph_->FindNode(name);
  return node == nullptr || node->num_outputs() > 0;
}

DataType PythonSession::TensorDtype(const std::string& name) {
  std::string node_name = name;
  int64_t index = 0;
  if (const size_t colon = name.rfind(':'); colon != std::string::npos) {
    if (!absl::SimpleAtoi(name.substr(colon + 1), &index)) return DT_INVALID;
    node_name.resize(colon);
  }
  std::lock_guard<std::mutex> lock(mu_);
  if (!EnsureGraph().ok()) return DT_INVALID;
  const Node* node = graph_->FindNode(node_name);
  if (node == nullptr || index < 0 || index >= node->num_outputs()) {
    return DT_INVALID;
  }
  return BaseType(node->output_type(static_cast<int>(index)));
}

std::vector<std::string> PythonSession::Devices() const {
  std::vector<std::string> names;
  absl::StatusOr<std::shared_ptr<Session>> s = session();
  if (!s.ok()) return names;
  for (const auto& device : (*s)->devices().devices()) {
    names.push_back(device->name());
  }
  return names;
}

absl::StatusOr<std::vector<NodePlacementView>> PythonSession::Placement()
    const {
  absl::StatusOr<std::shared_ptr<Session>> s = session();
  if (!s.ok()) return s.status();
  PlacementFlags flags;
  absl::StatusOr<std::vector<PlacementDevice>> devices =
      PlacementDevicesOf((*s)->devices());
  if (!devices.ok()) return devices.status();
  flags.devices = *std::move(devices);
  flags.options.allow_soft_placement = session_options_.allow_soft_placement;
  Graph graph;
  absl::StatusOr<PlacementRecord> record = ImportAndPlace(def_, flags, &graph);
  if (!record.ok()) return record.status();
  std::vector<NodePlacementView> out;
  out.reserve(record->nodes_size());
  for (const NodePlacement& node : record->nodes()) {
    out.push_back({node.name(), node.assigned_device(), node.reason()});
  }
  return out;
}

absl::StatusOr<int> PythonSession::StartQueueRunners() {
  if (!meta_graph_ || meta_graph_->queue_runners.empty()) return 0;
  std::lock_guard<std::mutex> lock(mu_);
  if (session_ == nullptr) {
    return absl::FailedPreconditionError("this session is closed");
  }
  if (!runners_.empty()) {
    return absl::FailedPreconditionError(
        "the queue runners were already started on this session");
  }
  coordinator_ = std::make_unique<Coordinator>();
  if (absl::Status s =
          dflow::StartQueueRunners(session_.get(), meta_graph_->queue_runners,
                                   coordinator_.get(), &runners_);
      !s.ok()) {
    return s;
  }
  return static_cast<int>(runners_.size());
}

absl::StatusOr<std::string> PythonSession::Save(const std::string& prefix,
                                                int64_t global_step) {
  absl::StatusOr<std::shared_ptr<Session>> s = session();
  if (!s.ok()) return s.status();
  absl::StatusOr<Saver> saver = Saver::Create(def_);
  if (!saver.ok()) return saver.status();
  return saver->Save(s->get(), prefix, global_step);
}

absl::Status PythonSession::Restore(const std::string& prefix) {
  absl::StatusOr<std::shared_ptr<Session>> s = session();
  if (!s.ok()) return s.status();
  if (meta_graph_ && meta_graph_->saver_def) {
    const SaverDef& saver = *meta_graph_->saver_def;
    absl::Status run =
        (*s)->Run({{saver.filename_tensor_name(), Tensor::Scalar(prefix)}}, {},
                  {saver.restore_op_name()}, nullptr);
    if (!run.ok()) {
      return absl::Status(
          run.code(),
          absl::StrCat("restoring '", prefix, "': the graph's restore op '",
                       saver.restore_op_name(), "' failed: ", run.message()));
    }
    return absl::OkStatus();
  }
  absl::StatusOr<Saver> saver = Saver::Create(def_);
  if (!saver.ok()) return saver.status();
  return saver->Restore(s->get(), prefix);
}

std::vector<std::string> PythonSession::SignatureKeys() const {
  std::vector<std::string> keys;
  if (!meta_graph_) return keys;
  for (const auto& [key, def] : meta_graph_->meta_graph.signature_def()) {
    keys.push_back(key);
  }
  std::sort(keys.begin(), keys.end());
  return keys;
}

absl::StatusOr<SignatureView> PythonSession::Signature(
    const std::string& key) const {
  if (meta_graph_) {
    const auto& signatures = meta_graph_->meta_graph.signature_def();
    auto it = signatures.find(key);
    if (it != signatures.end()) {
      SignatureView view;
      view.method_name = it->second.method_name();
      for (const auto& [k, info] : it->second.inputs()) {
        view.inputs[k] = info.name();
      }
      for (const auto& [k, info] : it->second.outputs()) {
        view.outputs[k] = info.name();
      }
      return view;
    }
  }
  const std::vector<std::string> keys = SignatureKeys();
  return absl::NotFoundError(absl::StrCat(
      "no signature '", key, "'; this session has ",
      keys.empty() ? "none (signatures come with dflow.load_saved_model)"
                   : absl::StrJoin(keys, ", ")));
}

absl::Status PythonSession::Close() {
  std::shared_ptr<Session> session;
  std::unique_ptr<Coordinator> coordinator;
  std::vector<std::unique_ptr<QueueRunner>> runners;
  {
    std::lock_guard<std::mutex> lock(mu_);
    session = std::move(session_);
    coordinator = std::move(coordinator_);
    runners = std::move(runners_);
  }
  absl::Status status;
  // The runners' threads run steps on the session: stop and join them
  // before the session can go away.
  if (coordinator != nullptr) {
    coordinator->RequestStop();
    status = coordinator->Join();
    // Ending the input because the session closes is not an error.
    if (status.code() == absl::StatusCode::kOutOfRange ||
        status.code() == absl::StatusCode::kCancelled) {
      status = absl::OkStatus();
    }
  }
  runners.clear();
  return status;
}

}  // namespace python
}  // namespace dflow
