#include "formats/saved_model.h"

#include <sys/stat.h>

#include <algorithm>
#include <set>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "formats/proto_file.h"

namespace dflow {
namespace {

bool IsFile(const std::string& path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

}  // namespace

absl::StatusOr<std::string> FindSavedModelFile(const std::string& dir) {
  struct stat st;
  if (stat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) {
    return absl::NotFoundError(absl::StrCat(
        "SavedModel directory '", dir,
        "' does not exist or is not a directory; give the directory that "
        "holds saved_model.pb"));
  }
  for (const char* name : {kSavedModelFilenamePb, kSavedModelFilenamePbTxt}) {
    const std::string path = absl::StrCat(dir, "/", name);
    if (IsFile(path)) return path;
  }
  return absl::NotFoundError(absl::StrCat(
      "SavedModel directory '", dir, "' has neither ", kSavedModelFilenamePb,
      " nor ", kSavedModelFilenamePbTxt,
      "; is it a TF2 checkpoint or a parent of the model's version "
      "directory?"));
}

absl::StatusOr<SavedModel> ReadSavedModelFile(const std::string& path,
                                              GraphDefFormat* detected) {
  absl::StatusOr<std::string> bytes = ReadFileBytes(path, "SavedModel file");
  if (!bytes.ok()) return bytes.status();
  SavedModel model;
  if (absl::Status s = ParseMessageDetectingFormat(*bytes, &model, detected);
      !s.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("SavedModel file '", path, "': ", s.message()));
  }
  if (model.meta_graphs_size() == 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("SavedModel file '", path,
                     "' holds no meta graph; it is empty or not a SavedModel"));
  }
  return model;
}

absl::StatusOr<SavedModel> ReadSavedModel(const std::string& dir) {
  absl::StatusOr<std::string> path = FindSavedModelFile(dir);
  if (!path.ok()) return path.status();
  return ReadSavedModelFile(*path);
}

std::string TagSetString(const std::vector<std::string>& tags) {
  return absl::StrCat("{", absl::StrJoin(tags, ", "), "}");
}

std::vector<std::string> TagSets(const SavedModel& model) {
  std::vector<std::string> out;
  for (const MetaGraphDef& m : model.meta_graphs()) {
    out.push_back(TagSetString(
        {m.meta_info_def().tags().begin(), m.meta_info_def().tags().end()}));
  }
  return out;
}

absl::StatusOr<const MetaGraphDef*> FindMetaGraph(
    const SavedModel& model, const std::vector<std::string>& tags,
    absl::string_view source) {
  const std::set<std::string> want(tags.begin(), tags.end());
  for (const MetaGraphDef& m : model.meta_graphs()) {
    const std::set<std::string> have(m.meta_info_def().tags().begin(),
                                     m.meta_info_def().tags().end());
    if (have == want) return &m;
  }
  return absl::NotFoundError(
      absl::StrCat("SavedModel '", source, "' has no meta graph with tags ",
                   TagSetString(tags),
                   "; its tag sets are: ", absl::StrJoin(TagSets(model), ", "),
                   " (saved_model_cli show --dir shows them too)"));
}

std::string SavedModelVariablesPrefix(const std::string& dir) {
  return absl::StrCat(dir, "/variables/variables");
}

bool SavedModelHasVariables(const std::string& dir) {
  return IsFile(SavedModelVariablesPrefix(dir) + ".index");
}

std::string SignatureKeyList(const MetaGraphDef& meta_graph) {
  std::vector<std::string> keys;
  for (const auto& [key, sig] : meta_graph.signature_def()) keys.push_back(key);
  if (keys.empty()) return "(none)";
  std::sort(keys.begin(), keys.end());
  return absl::StrJoin(keys, ", ");
}

}  // namespace dflow
