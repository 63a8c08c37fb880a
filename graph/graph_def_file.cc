#include "graph/graph_def_file.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "google/protobuf/io/coded_stream.h"
#include "google/protobuf/io/tokenizer.h"
#include "google/protobuf/io/zero_copy_stream_impl_lite.h"
#include "google/protobuf/text_format.h"

namespace dflow {

GraphDefFormat DetectGraphDefFormat(absl::string_view bytes) {
  // Text format is ASCII plus UTF-8 inside strings; binary protobuf has tag
  // and length bytes that are control characters or not valid UTF-8 (a
  // length varint such as C4 20 is an invalid UTF-8 sequence).
  const size_t n = std::min<size_t>(bytes.size(), 4096);
  size_t i = 0;
  while (i < n) {
    const unsigned char c = static_cast<unsigned char>(bytes[i]);
    if (c < 0x80) {
      if ((c < 0x20 && c != '\n' && c != '\r' && c != '\t') || c == 0x7f) {
        return GraphDefFormat::kBinary;
      }
      ++i;
      continue;
    }
    const int extra = (c & 0xE0) == 0xC0   ? 1
                      : (c & 0xF0) == 0xE0 ? 2
                      : (c & 0xF8) == 0xF0 ? 3
                                           : -1;
    if (extra < 0) return GraphDefFormat::kBinary;
    for (int k = 1; k <= extra; ++k) {
      if (i + k >= n) return GraphDefFormat::kText;  // cut by the sample
      if ((static_cast<unsigned char>(bytes[i + k]) & 0xC0) != 0x80) {
        return GraphDefFormat::kBinary;
      }
    }
    i += extra + 1;
  }
  return GraphDefFormat::kText;
}

namespace {

class TextErrorCollector : public google::protobuf::io::ErrorCollector {
 public:
  void AddError(int line, google::protobuf::io::ColumnNumber column,
                const std::string& message) override {
    if (first_.empty()) {
      first_ = absl::StrCat("line ", line + 1, ", column ", column + 1, ": ",
                            message);
    }
  }
  const std::string& first() const { return first_; }

 private:
  std::string first_;
};

}  // namespace

absl::StatusOr<GraphDef> ParseGraphDef(absl::string_view bytes,
                                       GraphDefFormat format) {
  if (absl::Status s = CheckGraphDefSize(bytes.size(), "GraphDef input");
      !s.ok()) {
    return s;
  }
  GraphDef def;
  if (absl::Status s = ParseMessage(bytes, format, &def); !s.ok()) return s;
  return def;
}

absl::StatusOr<GraphDef> ParseGraphDef(absl::string_view bytes) {
  if (absl::Status s = CheckGraphDefSize(bytes.size(), "GraphDef input");
      !s.ok()) {
    return s;
  }
  GraphDef def;
  if (absl::Status s = ParseMessageDetectingFormat(bytes, &def); !s.ok()) {
    return s;
  }
  return def;
}

absl::Status ParseMessage(absl::string_view bytes, GraphDefFormat format,
                          google::protobuf::Message* message) {
  message->Clear();
  const std::string type = message->GetDescriptor()->name();
  if (format == GraphDefFormat::kText) {
    google::protobuf::TextFormat::Parser parser;
    TextErrorCollector errors;
    parser.RecordErrorsTo(&errors);
    // The text parser recurses once per nested message and has no limit of
    // its own: a file nested a few thousand deep (attr { func { attr ...)
    // overflows the stack. The binary parser stops at 100 levels; text gets
    // the same limit, deeper than any real GraphDef.
    parser.SetRecursionLimit(kMaxMessageNesting);
    google::protobuf::io::ArrayInputStream input(
        bytes.data(), static_cast<int>(bytes.size()));
    if (!parser.Parse(&input, message)) {
      return absl::InvalidArgumentError(
          absl::StrCat("not a valid text ", type, ": ", errors.first()));
    }
    return absl::OkStatus();
  }
  google::protobuf::io::CodedInputStream input(
      reinterpret_cast<const uint8_t*>(bytes.data()),
      static_cast<int>(bytes.size()));
  input.SetTotalBytesLimit(static_cast<int>(kMaxGraphDefBytes));
  input.SetRecursionLimit(kMaxMessageNesting);
  if (!message->MergeFromCodedStream(&input) ||
      !input.ConsumedEntireMessage()) {
    return absl::InvalidArgumentError(
        absl::StrCat("not a valid binary ", type, " (", bytes.size(),
                     " bytes): the data is truncated or is not a serialized ",
                     type, "; stopped after byte ", input.CurrentPosition()));
  }
  return absl::OkStatus();
}

absl::Status ParseMessageDetectingFormat(absl::string_view bytes,
                                         google::protobuf::Message* message,
                                         GraphDefFormat* detected) {
  const GraphDefFormat guess = DetectGraphDefFormat(bytes);
  absl::Status first = ParseMessage(bytes, guess, message);
  if (first.ok()) {
    if (detected != nullptr) *detected = guess;
    return first;
  }
  const GraphDefFormat other = guess == GraphDefFormat::kText
                                   ? GraphDefFormat::kBinary
                                   : GraphDefFormat::kText;
  if (ParseMessage(bytes, other, message).ok()) {
    if (detected != nullptr) *detected = other;
    return absl::OkStatus();
  }
  return first;
}

absl::Status CheckGraphDefSize(uint64_t bytes, absl::string_view what) {
  if (bytes > kMaxGraphDefBytes) {
    return absl::OutOfRangeError(absl::StrCat(
        what, " is ", bytes,
        " bytes; protocol buffers cannot hold a GraphDef "
        "over 2 GB (",
        kMaxGraphDefBytes,
        " bytes). Keep large constants out "
        "of the graph: make them variables restored from a checkpoint."));
  }
  return absl::OkStatus();
}

absl::StatusOr<GraphDef> ReadGraphDefFile(const std::string& path,
                                          GraphDefFormat* detected) {
  struct stat st;
  if (stat(path.c_str(), &st) != 0) {
    return absl::NotFoundError(absl::StrCat("cannot read graph file '", path,
                                            "': ", std::strerror(errno)));
  }
  if (S_ISDIR(st.st_mode)) {
    return absl::InvalidArgumentError(
        absl::StrCat("graph file '", path, "' is a directory"));
  }
  if (absl::Status s =
          CheckGraphDefSize(static_cast<uint64_t>(st.st_size),
                            absl::StrCat("graph file '", path, "'"));
      !s.ok()) {
    return s;
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    return absl::NotFoundError(absl::StrCat("cannot open graph file '", path,
                                            "': ", std::strerror(errno)));
  }
  std::string bytes(static_cast<size_t>(st.st_size), '\0');
  in.read(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  if (!in) {
    return absl::DataLossError(
        absl::StrCat("could not read all of graph file '", path, "'"));
  }
  GraphDefFormat format = DetectGraphDefFormat(bytes);
  absl::StatusOr<GraphDef> def = ParseGraphDef(bytes, format);
  if (!def.ok()) {
    const GraphDefFormat other = format == GraphDefFormat::kText
                                     ? GraphDefFormat::kBinary
                                     : GraphDefFormat::kText;
    absl::StatusOr<GraphDef> retry = ParseGraphDef(bytes, other);
    if (retry.ok()) {
      format = other;
      def = std::move(retry);
    }
  }
  if (detected != nullptr) *detected = format;
  if (!def.ok()) {
    return absl::Status(
        def.status().code(),
        absl::StrCat("graph file '", path, "': ", def.status().message()));
  }
  return def;
}

absl::StatusOr<std::string> SerializeGraphDef(const GraphDef& def,
                                              GraphDefFormat format) {
  if (absl::Status s = CheckGraphDefSize(def.ByteSizeLong(), "the GraphDef");
      !s.ok()) {
    return s;
  }
  std::string out;
  if (format == GraphDefFormat::kText) {
    google::protobuf::TextFormat::Printer printer;
    if (!printer.PrintToString(def, &out)) {
      return absl::InternalError("could not print the GraphDef as text");
    }
    return out;
  }
  {
    google::protobuf::io::StringOutputStream stream(&out);
    google::protobuf::io::CodedOutputStream coded(&stream);
    coded.SetSerializationDeterministic(true);
    if (!def.SerializeToCodedStream(&coded)) {
      return absl::InternalError("could not serialize the GraphDef");
    }
  }
  return out;
}

absl::Status WriteGraphDefFile(const std::string& path, const GraphDef& def,
                               GraphDefFormat format) {
  absl::StatusOr<std::string> bytes = SerializeGraphDef(def, format);
  if (!bytes.ok()) return bytes.status();
  const std::string tmp = absl::StrCat(path, ".tmp.", getpid());
  FILE* f = std::fopen(tmp.c_str(), "wb");
  if (f == nullptr) {
    return absl::PermissionDeniedError(
        absl::StrCat("cannot write '", path, "': ", std::strerror(errno)));
  }
  const bool ok =
      std::fwrite(bytes->data(), 1, bytes->size(), f) == bytes->size() &&
      std::fflush(f) == 0 && fsync(fileno(f)) == 0;
  std::fclose(f);
  if (!ok || std::rename(tmp.c_str(), path.c_str()) != 0) {
    const std::string why = std::strerror(errno);
    std::remove(tmp.c_str());
    return absl::DataLossError(
        absl::StrCat("could not write '", path, "': ", why));
  }
  return absl::OkStatus();
}

GraphDefFormat FormatForPath(absl::string_view path) {
  return absl::EndsWith(path, ".pbtxt") || absl::EndsWith(path, ".txt") ||
                 absl::EndsWith(path, ".pbtext")
             ? GraphDefFormat::kText
             : GraphDefFormat::kBinary;
}

}  // namespace dflow
