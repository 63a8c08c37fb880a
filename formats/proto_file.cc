#include "formats/proto_file.h"

#include <sys/stat.h>

#include <cerrno>
#include <cstring>
#include <fstream>

#include "absl/strings/str_cat.h"
#include "google/protobuf/io/coded_stream.h"
#include "google/protobuf/io/tokenizer.h"
#include "google/protobuf/io/zero_copy_stream_impl_lite.h"
#include "google/protobuf/reflection.h"
#include "google/protobuf/text_format.h"
#include "google/protobuf/unknown_field_set.h"

namespace dflow {
namespace {

class FirstError : public google::protobuf::io::ErrorCollector {
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

absl::StatusOr<std::string> ReadFileBytes(const std::string& path,
                                          absl::string_view what) {
  struct stat st;
  if (stat(path.c_str(), &st) != 0) {
    return absl::NotFoundError(absl::StrCat("cannot read ", what, " '", path,
                                            "': ", std::strerror(errno)));
  }
  if (S_ISDIR(st.st_mode)) {
    return absl::InvalidArgumentError(
        absl::StrCat(what, " '", path, "' is a directory"));
  }
  if (absl::Status s = CheckGraphDefSize(static_cast<uint64_t>(st.st_size),
                                         absl::StrCat(what, " '", path, "'"));
      !s.ok()) {
    return s;
  }
  std::ifstream in(path, std::ios::binary);
  std::string bytes(static_cast<size_t>(st.st_size), '\0');
  in.read(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  if (!in) {
    return absl::DataLossError(
        absl::StrCat("could not read all of ", what, " '", path, "'"));
  }
  return bytes;
}

absl::Status ParseMessage(absl::string_view bytes, GraphDefFormat format,
                          google::protobuf::Message* message) {
  message->Clear();
  const std::string type = message->GetDescriptor()->name();
  if (format == GraphDefFormat::kText) {
    google::protobuf::TextFormat::Parser parser;
    FirstError errors;
    parser.RecordErrorsTo(&errors);
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

bool HasUnknownFields(const google::protobuf::Message& message) {
  const google::protobuf::Reflection* reflection = message.GetReflection();
  if (!reflection->GetUnknownFields(message).empty()) return true;
  std::vector<const google::protobuf::FieldDescriptor*> fields;
  reflection->ListFields(message, &fields);
  for (const google::protobuf::FieldDescriptor* field : fields) {
    if (field->cpp_type() !=
        google::protobuf::FieldDescriptor::CPPTYPE_MESSAGE) {
      continue;
    }
    if (field->is_repeated()) {
      const int n = reflection->FieldSize(message, field);
      for (int i = 0; i < n; ++i) {
        if (HasUnknownFields(
                reflection->GetRepeatedMessage(message, field, i))) {
          return true;
        }
      }
    } else if (HasUnknownFields(reflection->GetMessage(message, field))) {
      return true;
    }
  }
  return false;
}

}  // namespace dflow
