// Reading TensorFlow SavedModels (TF1 style): `saved_model.pb` (binary) or
// `saved_model.pbtxt` (text) holding one MetaGraphDef per tag set, with the
// variables beside it in variables/variables.{index,data-*}.
//
// This is the file format only; runtime/saved_model_loader.h makes a
// Session of one of its graphs and restores the variables:
//
//   absl::StatusOr<SavedModel> model = ReadSavedModel("/models/mnist/1");
//   absl::StatusOr<const MetaGraphDef*> serve =
//       FindMetaGraph(*model, {"serve"}, "/models/mnist/1");
//   for (const auto& [key, sig] : (*serve)->signature_def()) ...
//
// Tag sets match as sets ({"serve","gpu"} == {"gpu","serve"}), as in
// TensorFlow; a missing tag set is NotFound listing the ones present.
#ifndef DFLOW_FORMATS_SAVED_MODEL_H_
#define DFLOW_FORMATS_SAVED_MODEL_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "graph/graph_def_file.h"
#include "proto/meta_graph.pb.h"
#include "proto/saved_model.pb.h"

namespace dflow {

inline constexpr char kSavedModelFilenamePb[] = "saved_model.pb";
inline constexpr char kSavedModelFilenamePbTxt[] = "saved_model.pbtxt";
inline constexpr char kSavedModelServeTag[] = "serve";
inline constexpr char kDefaultServingSignature[] = "serving_default";

// The path of the SavedModel file in `dir`: saved_model.pb, else
// saved_model.pbtxt. NotFound names the directory and what it lacks.
absl::StatusOr<std::string> FindSavedModelFile(const std::string& dir);

// Reads a SavedModel file (binary or text, by content).
absl::StatusOr<SavedModel> ReadSavedModelFile(
    const std::string& path, GraphDefFormat* detected = nullptr);

// Reads the SavedModel file of the directory `dir`.
absl::StatusOr<SavedModel> ReadSavedModel(const std::string& dir);

// The meta graph whose tags equal `tags` as a set; `source` names the model
// in errors. NotFound lists the tag sets present.
absl::StatusOr<const MetaGraphDef*> FindMetaGraph(
    const SavedModel& model, const std::vector<std::string>& tags,
    absl::string_view source);

// "{serve, gpu}": a tag set as errors and tools print it.
std::string TagSetString(const std::vector<std::string>& tags);

// Every meta graph's tag set, as TagSetString, in file order.
std::vector<std::string> TagSets(const SavedModel& model);

// The checkpoint prefix of the variables: "<dir>/variables/variables".
std::string SavedModelVariablesPrefix(const std::string& dir);

// Whether `dir` holds variables (variables/variables.index exists).
bool SavedModelHasVariables(const std::string& dir);

// The signature keys of `meta_graph`, sorted, comma-separated ("(none)" if
// it has none): for error messages.
std::string SignatureKeyList(const MetaGraphDef& meta_graph);

}  // namespace dflow

#endif  // DFLOW_FORMATS_SAVED_MODEL_H_
