#include "formats/proto_file.h"

#include <sys/stat.h>

#include <cerrno>
#include <cstring>
#include <fstream>

#include "absl/strings/str_cat.h"
#include "google/protobuf/reflection.h"
#include "google/protobuf/unknown_field_set.h"

namespace dflow {

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
