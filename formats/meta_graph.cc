#include "formats/meta_graph.h"

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"
#include "formats/proto_file.h"

namespace dflow {
namespace {

const char* KindName(CollectionDef::KindCase kind) {
  switch (kind) {
    case CollectionDef::kNodeList:
      return "node_list";
    case CollectionDef::kBytesList:
      return "bytes_list";
    case CollectionDef::kInt64List:
      return "int64_list";
    case CollectionDef::kFloatList:
      return "float_list";
    case CollectionDef::kAnyList:
      return "any_list";
    case CollectionDef::KIND_NOT_SET:
      break;
  }
  return "nothing";
}

absl::Status WrongKind(absl::string_view source, const std::string& key,
                       const CollectionDef& c, absl::string_view want) {
  return absl::InvalidArgumentError(absl::StrCat(
      "meta graph '", source, "': collection '", key, "' holds a ",
      KindName(c.kind_case()), ", but TensorFlow writes '", key, "' as a ",
      want, "; rename the collection or store it as TensorFlow does"));
}

absl::StatusOr<std::vector<VariableInfo>> DecodeVariables(
    absl::string_view source, const std::string& key, const CollectionDef& c) {
  if (c.kind_case() != CollectionDef::kBytesList) {
    return WrongKind(source, key, c, "bytes_list of serialized VariableDef");
  }
  std::vector<VariableInfo> out;
  for (int i = 0; i < c.bytes_list().value_size(); ++i) {
    VariableInfo v;
    if (!v.def.ParseFromString(c.bytes_list().value(i))) {
      return absl::InvalidArgumentError(absl::StrCat(
          "meta graph '", source, "': collection '", key, "' entry ", i, " (",
          c.bytes_list().value(i).size(),
          " bytes) is not a serialized VariableDef; the file is damaged or "
          "was not written by TensorFlow's export_meta_graph"));
    }
    v.variable_name = v.def.variable_name();
    v.initializer_name = v.def.initializer_name();
    v.snapshot_name = v.def.snapshot_name();
    v.initial_value_name = v.def.initial_value_name();
    v.is_resource = v.def.is_resource();
    v.trainable = v.def.trainable();
    out.push_back(std::move(v));
  }
  return out;
}

}  // namespace

const std::vector<std::string>& KnownNodeListCollections() {
  static const auto* keys =
      new std::vector<std::string>{"asset_filepaths",
                                   "init_op",
                                   "legacy_init_op",
                                   "local_init_op",
                                   "losses",
                                   "ready_for_local_init_op",
                                   "ready_op",
                                   "regularization_losses",
                                   "saved_model_main_op",
                                   "summaries",
                                   "summary_op",
                                   "table_initializer",
                                   "train_op",
                                   "update_ops"};
  return *keys;
}

const std::vector<std::string>& KnownVariableCollections() {
  static const auto* keys = new std::vector<std::string>{
      "global_step",         "local_variables",
      "model_variables",     "moving_average_variables",
      "trainable_variables", "variables"};
  return *keys;
}

const std::vector<std::string>& MetaGraphInfo::NodeList(
    absl::string_view key) const {
  static const auto* empty = new std::vector<std::string>();
  auto it = node_lists.find(std::string(key));
  return it == node_lists.end() ? *empty : it->second;
}

std::string MetaGraphInfo::MainOp() const {
  for (const char* key : {"saved_model_main_op", "legacy_init_op"}) {
    const std::vector<std::string>& ops = NodeList(key);
    if (!ops.empty()) return ops.front();
  }
  return "";
}

absl::StatusOr<MetaGraphDef> ParseMetaGraphDef(absl::string_view bytes,
                                               absl::string_view source,
                                               GraphDefFormat* detected) {
  MetaGraphDef def;
  if (absl::Status s = ParseMessageDetectingFormat(bytes, &def, detected);
      !s.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("meta graph '", source, "': ", s.message()));
  }
  return def;
}

absl::StatusOr<MetaGraphDef> ReadMetaGraphFile(const std::string& path,
                                               GraphDefFormat* detected) {
  absl::StatusOr<std::string> bytes = ReadFileBytes(path, "meta graph file");
  if (!bytes.ok()) return bytes.status();
  return ParseMetaGraphDef(*bytes, path, detected);
}

absl::StatusOr<MetaGraphInfo> DecodeMetaGraph(MetaGraphDef meta_graph,
                                              absl::string_view source) {
  MetaGraphInfo info;
  info.meta_graph = std::move(meta_graph);
  const MetaGraphDef& def = info.meta_graph;
  if (def.has_saver_def()) info.saver_def = def.saver_def();
  const std::vector<std::string>& node_keys = KnownNodeListCollections();
  std::vector<std::pair<std::string, const CollectionDef*>> sorted;
  for (const auto& [key, c] : def.collection_def())
    sorted.emplace_back(key, &c);
  std::sort(sorted.begin(), sorted.end());
  for (const auto& [key, c] : sorted) {
    std::vector<VariableInfo>* vars =
        key == "variables"                  ? &info.variables
        : key == "trainable_variables"      ? &info.trainable_variables
        : key == "local_variables"          ? &info.local_variables
        : key == "model_variables"          ? &info.model_variables
        : key == "moving_average_variables" ? &info.moving_average_variables
        : key == "global_step"              ? &info.global_step
                                            : nullptr;
    if (vars != nullptr) {
      absl::StatusOr<std::vector<VariableInfo>> decoded =
          DecodeVariables(source, key, *c);
      if (!decoded.ok()) return decoded.status();
      *vars = *std::move(decoded);
      continue;
    }
    if (std::find(node_keys.begin(), node_keys.end(), key) != node_keys.end()) {
      if (c->kind_case() != CollectionDef::kNodeList) {
        return WrongKind(source, key, *c, "node_list");
      }
      info.node_lists[key].assign(c->node_list().value().begin(),
                                  c->node_list().value().end());
      continue;
    }
    if (key == "queue_runners") {
      if (c->kind_case() != CollectionDef::kBytesList) {
        return WrongKind(source, key, *c,
                         "bytes_list of serialized QueueRunnerDef");
      }
      for (int i = 0; i < c->bytes_list().value_size(); ++i) {
        QueueRunnerDef q;
        if (!q.ParseFromString(c->bytes_list().value(i))) {
          return absl::InvalidArgumentError(absl::StrCat(
              "meta graph '", source, "': collection 'queue_runners' entry ", i,
              " is not a serialized QueueRunnerDef; the file is damaged"));
        }
        info.queue_runners.push_back(std::move(q));
      }
      continue;
    }
    info.unknown_collections.push_back(key);
  }
  return info;
}

absl::StatusOr<MetaGraphInfo> ReadMetaGraphInfo(const std::string& path) {
  absl::StatusOr<MetaGraphDef> def = ReadMetaGraphFile(path);
  if (!def.ok()) return def.status();
  return DecodeMetaGraph(*std::move(def), path);
}

}  // namespace dflow
