// Reading the graph of any file a user hands a `dflow` verb: a GraphDef
// (.pb/.pbtxt), a MetaGraphDef (.meta, binary or text) or a SavedModel
// (saved_model.pb/.pbtxt, or the directory holding it).
//
// The kind is decided by content: the file is parsed as each kind in turn
// and the first that parses without fields its type does not know wins (a
// MetaGraphDef misread as a GraphDef leaves its saver and collections as
// unknown fields); a name ending in ".meta" or "saved_model.pb(txt)" only
// changes which kind is tried first. For a SavedModel the meta graph tagged
// {serve} is used, or the only one there is.
//
//   absl::StatusOr<GraphFile> file = ReadGraphFile("model.ckpt-100.meta");
//   auto session = Session::Create(file->graph_def);
#ifndef DFLOW_FORMATS_GRAPH_FILE_H_
#define DFLOW_FORMATS_GRAPH_FILE_H_

#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "formats/meta_graph.h"
#include "graph/graph_def_file.h"
#include "proto/graph.pb.h"

namespace dflow {

enum class GraphFileKind { kGraphDef, kMetaGraph, kSavedModel };

struct GraphFile {
  GraphFileKind kind = GraphFileKind::kGraphDef;
  GraphDefFormat format = GraphDefFormat::kBinary;
  // The file actually read (a SavedModel directory resolves to its file).
  std::string path;
  GraphDef graph_def;
  // For a meta graph or SavedModel: the meta graph used, decoded.
  std::optional<MetaGraphInfo> meta_graph;
};

// "GraphDef", "MetaGraphDef", "SavedModel".
const char* GraphFileKindName(GraphFileKind kind);

absl::StatusOr<GraphFile> ReadGraphFile(const std::string& path);

// Only the graph of ReadGraphFile (what `dflow place` and `dot` read).
absl::StatusOr<GraphDef> ReadGraphDefOfAnyFile(const std::string& path);

}  // namespace dflow

#endif  // DFLOW_FORMATS_GRAPH_FILE_H_
