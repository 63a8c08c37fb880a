// Reading MetaGraphDef files (TensorFlow's `.meta` next to a checkpoint, and
// each graph of a SavedModel) and decoding the collections TensorFlow uses.
//
// A MetaGraphDef is a GraphDef plus what is needed to use it again: the
// SaverDef (which tensor to feed a checkpoint prefix into, which op restores)
// and named collections (variables, train op, summaries, ...). Files are
// binary or text; the format is read from the content, as for GraphDefs
// (graph/graph_def_file.h). MetaGraphInfo keeps the whole MetaGraphDef as
// read (so nothing is lost, unknown collections included) and adds the
// collections TensorFlow defines, decoded:
//
//   absl::StatusOr<MetaGraphInfo> info =
//   ReadMetaGraphInfo("model.ckpt-100.meta"); if (!info.ok()) return
//   info.status(); for (const VariableInfo& v : info->trainable_variables)
//     std::cout << v.variable_name << " initialized by " << v.initializer_name;
//   const std::vector<std::string>& train = info->NodeList("train_op");
//   auto session = Session::Create(info->graph_def());
//   if (info->saver_def)  // restore: feed the prefix, run the restore op
//     (*session)->Run({{info->saver_def->filename_tensor_name(),
//                       Tensor::Scalar(std::string("model.ckpt-100"))}},
//                     {}, {info->saver_def->restore_op_name()}, nullptr);
//
// A collection TensorFlow defines but stored as another kind, or whose
// VariableDef/QueueRunnerDef bytes do not parse, is an InvalidArgument that
// names the file and the key; a key dflow does not know is kept as it is and
// listed in unknown_collections.
#ifndef DFLOW_FORMATS_META_GRAPH_H_
#define DFLOW_FORMATS_META_GRAPH_H_

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "graph/graph_def_file.h"
#include "proto/meta_graph.pb.h"
#include "proto/queue_runner.pb.h"
#include "proto/saver.pb.h"
#include "proto/variable.pb.h"

namespace dflow {

// One entry of a variables collection (a VariableDef).
struct VariableInfo {
  std::string variable_name;     // "w:0"
  std::string initializer_name;  // "w/Assign"
  std::string snapshot_name;     // "w/read:0"
  std::string initial_value_name;
  bool is_resource = false;  // VarHandleOp (else VariableV2)
  bool trainable = false;
  VariableDef def;  // as stored
};

// Collection keys TensorFlow stores as node lists and dflow decodes.
const std::vector<std::string>& KnownNodeListCollections();
// Collection keys TensorFlow stores as bytes lists of VariableDef.
const std::vector<std::string>& KnownVariableCollections();

struct MetaGraphInfo {
  // Everything the file held.
  MetaGraphDef meta_graph;
  // Set when the file has a SaverDef.
  std::optional<SaverDef> saver_def;
  // The VariableDef collections.
  std::vector<VariableInfo> variables;
  std::vector<VariableInfo> trainable_variables;
  std::vector<VariableInfo> local_variables;
  std::vector<VariableInfo> model_variables;
  std::vector<VariableInfo> moving_average_variables;
  std::vector<VariableInfo> global_step;  // at most one in practice
  // The node-list collections present among KnownNodeListCollections()
  // (train_op, init_op, local_init_op, ready_op, summary_op, summaries,
  // update_ops, losses, saved_model_main_op, legacy_init_op, ...): node or
  // tensor names, as stored.
  std::map<std::string, std::vector<std::string>> node_lists;
  std::vector<QueueRunnerDef> queue_runners;
  // Keys dflow does not decode, sorted; their CollectionDef is in
  // meta_graph.collection_def().
  std::vector<std::string> unknown_collections;

  const GraphDef& graph_def() const { return meta_graph.graph_def(); }
  // The node list under `key`; empty if absent.
  const std::vector<std::string>& NodeList(absl::string_view key) const;
  // The op a SavedModel loader runs after restoring: the first entry of
  // saved_model_main_op, else of legacy_init_op; empty if neither.
  std::string MainOp() const;
};

// Parses serialized MetaGraphDef bytes, text or binary by content. `source`
// (a file name) starts every error message.
absl::StatusOr<MetaGraphDef> ParseMetaGraphDef(
    absl::string_view bytes, absl::string_view source,
    GraphDefFormat* detected = nullptr);

// Reads a `.meta` file (binary or text).
absl::StatusOr<MetaGraphDef> ReadMetaGraphFile(
    const std::string& path, GraphDefFormat* detected = nullptr);

// Decodes the collections of `meta_graph`; `source` names it in errors.
absl::StatusOr<MetaGraphInfo> DecodeMetaGraph(MetaGraphDef meta_graph,
                                              absl::string_view source);

// ReadMetaGraphFile, then DecodeMetaGraph.
absl::StatusOr<MetaGraphInfo> ReadMetaGraphInfo(const std::string& path);

}  // namespace dflow

#endif  // DFLOW_FORMATS_META_GRAPH_H_
