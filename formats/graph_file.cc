#include "formats/graph_file.h"

#include <sys/stat.h>

#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "formats/proto_file.h"
#include "formats/saved_model.h"

namespace dflow {
namespace {

absl::StatusOr<GraphFile> AsMetaGraph(MetaGraphDef meta, GraphFileKind kind,
                                      GraphDefFormat format,
                                      const std::string& path) {
  absl::StatusOr<MetaGraphInfo> info = DecodeMetaGraph(std::move(meta), path);
  if (!info.ok()) return info.status();
  GraphFile file;
  file.kind = kind;
  file.format = format;
  file.path = path;
  file.graph_def = info->graph_def();
  file.meta_graph = *std::move(info);
  return file;
}

// nullopt: the bytes are not this kind.
std::optional<absl::StatusOr<GraphFile>> TryKind(GraphFileKind kind,
                                                 const std::string& bytes,
                                                 const std::string& path) {
  GraphDefFormat format;
  switch (kind) {
    case GraphFileKind::kGraphDef: {
      GraphDef def;
      if (!ParseMessageDetectingFormat(bytes, &def, &format).ok() ||
          HasUnknownFields(def)) {
        return std::nullopt;
      }
      GraphFile file;
      file.format = format;
      file.path = path;
      file.graph_def = std::move(def);
      return file;
    }
    case GraphFileKind::kMetaGraph: {
      MetaGraphDef meta;
      // Field 7 (object_graph_def) is unknown to dflow: judge the graph.
      if (!ParseMessageDetectingFormat(bytes, &meta, &format).ok() ||
          !meta.has_graph_def() || HasUnknownFields(meta.graph_def()) ||
          HasUnknownFields(meta.meta_info_def())) {
        return std::nullopt;
      }
      return AsMetaGraph(std::move(meta), kind, format, path);
    }
    case GraphFileKind::kSavedModel: {
      SavedModel model;
      if (!ParseMessageDetectingFormat(bytes, &model, &format).ok() ||
          model.meta_graphs_size() == 0 ||
          !model.meta_graphs(0).has_graph_def() ||
          HasUnknownFields(model.meta_graphs(0).graph_def())) {
        return std::nullopt;
      }
      const MetaGraphDef* chosen = &model.meta_graphs(0);
      if (model.meta_graphs_size() > 1) {
        absl::StatusOr<const MetaGraphDef*> serve =
            FindMetaGraph(model, {kSavedModelServeTag}, path);
        if (!serve.ok()) return absl::StatusOr<GraphFile>(serve.status());
        chosen = *serve;
      }
      return AsMetaGraph(*chosen, kind, format, path);
    }
  }
  return std::nullopt;
}

}  // namespace

const char* GraphFileKindName(GraphFileKind kind) {
  switch (kind) {
    case GraphFileKind::kGraphDef:
      return "GraphDef";
    case GraphFileKind::kMetaGraph:
      return "MetaGraphDef";
    case GraphFileKind::kSavedModel:
      return "SavedModel";
  }
  return "?";
}

absl::StatusOr<GraphFile> ReadGraphFile(const std::string& given) {
  std::string path = given;
  struct stat st;
  if (stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) {
    absl::StatusOr<std::string> file = FindSavedModelFile(path);
    if (!file.ok()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "graph file '", given,
          "' is a directory, and not a SavedModel: ", file.status().message()));
    }
    path = *file;
  }
  absl::StatusOr<std::string> bytes = ReadFileBytes(path, "graph file");
  if (!bytes.ok()) return bytes.status();
  std::vector<GraphFileKind> order = {GraphFileKind::kGraphDef,
                                      GraphFileKind::kMetaGraph,
                                      GraphFileKind::kSavedModel};
  if (absl::EndsWith(path, ".meta") || absl::EndsWith(path, ".meta.pbtxt")) {
    order = {GraphFileKind::kMetaGraph, GraphFileKind::kGraphDef,
             GraphFileKind::kSavedModel};
  } else if (absl::EndsWith(path, kSavedModelFilenamePb) ||
             absl::EndsWith(path, kSavedModelFilenamePbTxt)) {
    order = {GraphFileKind::kSavedModel, GraphFileKind::kMetaGraph,
             GraphFileKind::kGraphDef};
  }
  for (GraphFileKind kind : order) {
    if (auto file = TryKind(kind, *bytes, path)) return *std::move(file);
  }
  // Nothing fits exactly: a GraphDef from a newer TensorFlow may carry
  // fields dflow does not know; the GraphDef reader's error says why else.
  GraphDefFormat format;
  absl::StatusOr<GraphDef> def = ReadGraphDefFile(path, &format);
  if (!def.ok()) {
    return absl::Status(
        def.status().code(),
        absl::StrCat(def.status().message(),
                     " (nor is it a MetaGraphDef or SavedModel)"));
  }
  GraphFile file;
  file.format = format;
  file.path = path;
  file.graph_def = *std::move(def);
  return file;
}

absl::StatusOr<GraphDef> ReadGraphDefOfAnyFile(const std::string& path) {
  absl::StatusOr<GraphFile> file = ReadGraphFile(path);
  if (!file.ok()) return file.status();
  return std::move(file->graph_def);
}

}  // namespace dflow
