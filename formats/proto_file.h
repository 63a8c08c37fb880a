// Reading protocol buffer files whose encoding (binary or text) is decided
// by their content, as graph/graph_def_file.h does for GraphDefs: the
// shared part of the MetaGraphDef and SavedModel readers (parsing itself:
// ParseMessage in graph/graph_def_file.h).
#ifndef DFLOW_FORMATS_PROTO_FILE_H_
#define DFLOW_FORMATS_PROTO_FILE_H_

#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "google/protobuf/message.h"
#include "graph/graph_def_file.h"

namespace dflow {

// Reads the whole file. NotFound if it is missing, InvalidArgument for a
// directory; both name `path` and say it was meant to be `what` ("meta
// graph file").
absl::StatusOr<std::string> ReadFileBytes(const std::string& path,
                                          absl::string_view what);

// Whether `message` or any message inside it carries fields its type does
// not declare (used to tell a GraphDef from a MetaGraphDef by content).
bool HasUnknownFields(const google::protobuf::Message& message);

}  // namespace dflow

#endif  // DFLOW_FORMATS_PROTO_FILE_H_
