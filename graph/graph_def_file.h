// Reading and writing GraphDef files (`.pb` binary, `.pbtxt` text).
//
// The format of a file is decided by its content, not its name: text
// GraphDefs are printable, binary ones are not. Output is deterministic (map
// entries such as attrs are sorted), so the same graph always gives the same
// bytes. Protocol buffers cannot hold a message over 2 GB; both directions
// check the size first and say so instead of failing inside protobuf.
#ifndef DFLOW_GRAPH_GRAPH_DEF_FILE_H_
#define DFLOW_GRAPH_GRAPH_DEF_FILE_H_

#include <cstdint>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "google/protobuf/message.h"
#include "proto/graph.pb.h"

namespace dflow {

enum class GraphDefFormat { kBinary, kText };

// The largest serialized GraphDef protobuf can represent.
inline constexpr uint64_t kMaxGraphDefBytes = (uint64_t{1} << 31) - 1;

// How deep messages may nest in a parsed file, text or binary: protobuf's
// own default for binary input.
inline constexpr int kMaxMessageNesting = 100;

// Guesses the encoding of serialized GraphDef bytes: text if the first few
// KB are printable, binary otherwise.
GraphDefFormat DetectGraphDefFormat(absl::string_view bytes);

// Parses `bytes` in the given format; errors say where parsing stopped (line
// and column for text).
absl::StatusOr<GraphDef> ParseGraphDef(absl::string_view bytes,
                                       GraphDefFormat format);
// Parses in the detected format.
absl::StatusOr<GraphDef> ParseGraphDef(absl::string_view bytes);

// The same for any message (MetaGraphDef, SavedModel, ...): `message` is
// cleared, then parsed from `bytes` in `format`; errors name the message
// type and say where parsing stopped (line and column for text).
absl::Status ParseMessage(absl::string_view bytes, GraphDefFormat format,
                          google::protobuf::Message* message);
// Parses in the format DetectGraphDefFormat guesses, then in the other one
// if that fails (the guess reads only the start of the data: a binary
// message whose first string is a few KB of text looks like text),
// reporting the guessed format's error. `detected` gets the format that
// parsed.
absl::Status ParseMessageDetectingFormat(absl::string_view bytes,
                                         google::protobuf::Message* message,
                                         GraphDefFormat* detected = nullptr);

absl::StatusOr<GraphDef> ReadGraphDefFile(const std::string& path,
                                          GraphDefFormat* detected = nullptr);

// Deterministic serialization; an error if the graph is over 2 GB.
absl::StatusOr<std::string> SerializeGraphDef(const GraphDef& def,
                                              GraphDefFormat format);

// Writes atomically (temporary file, then rename).
absl::Status WriteGraphDefFile(const std::string& path, const GraphDef& def,
                               GraphDefFormat format);

// The format a file name suggests: ".pbtxt"/".txt"/".pbtext" text, else
// binary.
GraphDefFormat FormatForPath(absl::string_view path);

// The error for a serialized graph of `bytes` bytes, if it is too large.
absl::Status CheckGraphDefSize(uint64_t bytes, absl::string_view what);

}  // namespace dflow

#endif  // DFLOW_GRAPH_GRAPH_DEF_FILE_H_
