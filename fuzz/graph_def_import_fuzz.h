// The GraphDef import fuzz targets' body, one per encoding
// (graph_def_binary_fuzzer.cc, graph_def_text_fuzzer.cc): parse, then
// import with shape inference (every op's attr checks and shape function),
// then the validator's one-error-per-problem pass over the same graph.
#ifndef DFLOW_FUZZ_GRAPH_DEF_IMPORT_FUZZ_H_
#define DFLOW_FUZZ_GRAPH_DEF_IMPORT_FUZZ_H_

#include "absl/strings/string_view.h"
#include "graph/graph.h"
#include "graph/graph_def_file.h"
#include "graph/graph_def_import.h"

namespace dflow {
namespace fuzz {

inline void ImportGraphDefBytes(absl::string_view bytes,
                                GraphDefFormat format) {
  absl::StatusOr<GraphDef> def = ParseGraphDef(bytes, format);
  if (!def.ok()) return;
  {
    Graph graph;
    ImportGraphDef(*def, ImportOptions(), &graph).IgnoreError();
  }
  Graph graph;
  ValidateGraphDef(*def, ImportOptions(), &graph);
}

}  // namespace fuzz
}  // namespace dflow

#endif  // DFLOW_FUZZ_GRAPH_DEF_IMPORT_FUZZ_H_
