#include "runtime/saved_model_loader.h"

#include <sys/stat.h>

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/match.h"
#include "absl/strings/str_join.h"
#include "formats/saved_model.h"
#include "formats/subgraph.h"
#include "graph/tensor_shape.h"
#include "graph/types.h"

namespace dflow {
namespace {

std::string Keys(const google::protobuf::Map<std::string, TensorInfo>& m) {
  std::vector<std::string> keys;
  for (const auto& [k, v] : m) keys.push_back(k);
  std::sort(keys.begin(), keys.end());
  return keys.empty() ? "(none)" : absl::StrJoin(keys, ", ");
}

std::string ShapeString(const TensorShapeProto& shape) {
  if (shape.unknown_rank()) return "<unknown>";
  std::vector<std::string> dims;
  for (const auto& d : shape.dim()) {
    dims.push_back(d.size() < 0 ? "?" : absl::StrCat(d.size()));
  }
  return absl::StrCat("[", absl::StrJoin(dims, ","), "]");
}

// The dense tensor name of `info`, or Unimplemented naming the key.
absl::StatusOr<std::string> DenseName(const std::string& sig,
                                      const std::string& key,
                                      const TensorInfo& info) {
  if (info.encoding_case() != TensorInfo::kName) {
    return absl::UnimplementedError(absl::StrCat(
        "signature '", sig, "' key '", key,
        "' is a sparse or composite tensor; dflow runs dense tensors only"));
  }
  return info.name();
}

absl::Status CheckInput(const std::string& sig, const std::string& key,
                        const TensorInfo& info, const Tensor& value) {
  if (info.dtype() != DT_INVALID && value.dtype() != info.dtype()) {
    return absl::InvalidArgumentError(
        absl::StrCat("signature '", sig, "' input '", key, "' is ",
                     DataTypeName(info.dtype()), " but the value given is ",
                     DataTypeName(value.dtype()), "; convert it to ",
                     DataTypeName(info.dtype())));
  }
  const TensorShapeProto& want = info.tensor_shape();
  if (!info.has_tensor_shape() || want.unknown_rank()) return absl::OkStatus();
  absl::StatusOr<TensorShape> expected = TensorShape::FromProto(want);
  const bool fits = !expected.ok() || expected->IsCompatibleWith(value.shape());
  if (!fits) {
    return absl::InvalidArgumentError(
        absl::StrCat("signature '", sig, "' input '", key, "' has shape ",
                     value.shape().ToString(), " but the signature expects ",
                     ShapeString(want)));
  }
  return absl::OkStatus();
}

// The meta graph's asset files: asset_file_def (TF2's saves), else the
// collection saved_model_assets, which TF1's SavedModelBuilder writes (Any
// values holding AssetFileDefs).
std::vector<AssetFileDef> AssetFiles(const MetaGraphDef& meta) {
  std::vector<AssetFileDef> assets(meta.asset_file_def().begin(),
                                   meta.asset_file_def().end());
  auto it = meta.collection_def().find("saved_model_assets");
  if (it != meta.collection_def().end()) {
    for (const google::protobuf::Any& any : it->second.any_list().value()) {
      // By the type's name, not Any::UnpackTo: dflow's copy of the message
      // lives in package dflow, TensorFlow's type URL names tensorflow's.
      AssetFileDef asset;
      if (absl::EndsWith(any.type_url(), ".AssetFileDef") &&
          asset.ParseFromString(any.value())) {
        assets.push_back(std::move(asset));
      }
    }
  }
  return assets;
}

// The tensors the graph reads its asset files' paths from (a vocabulary,
// usually), each fed with the file's place in this SavedModel's assets/
// directory, as TensorFlow's loader does: the graph holds the path the file
// had where the model was written, which is gone.
absl::StatusOr<FeedList> AssetFeeds(const MetaGraphDef& meta,
                                    const std::string& export_dir) {
  FeedList feeds;
  for (const AssetFileDef& asset : AssetFiles(meta)) {
    const std::string path =
        absl::StrCat(export_dir, "/assets/", asset.filename());
    if (asset.tensor_info().encoding_case() != TensorInfo::kName) {
      return absl::UnimplementedError(absl::StrCat(
          "asset '", asset.filename(), "' is read through a ",
          "sparse or composite tensor; dflow feeds a dense tensor only"));
    }
    struct stat st;
    if (stat(path.c_str(), &st) != 0) {
      return absl::NotFoundError(absl::StrCat(
          "asset file '", path, "' (read by tensor '",
          asset.tensor_info().name(),
          "') is missing: copy the SavedModel with its assets/ directory"));
    }
    feeds.emplace_back(asset.tensor_info().name(), Tensor::Scalar(path));
  }
  return feeds;
}

}  // namespace

absl::StatusOr<SignatureCall> PrepareSignatureCall(
    const MetaGraphDef& meta_graph, const std::string& key,
    const std::map<std::string, Tensor>& inputs,
    const std::vector<std::string>& output_keys) {
  auto sig_it = meta_graph.signature_def().find(key);
  if (sig_it == meta_graph.signature_def().end()) {
    return absl::NotFoundError(
        absl::StrCat("no signature '", key,
                     "'; the meta graph has: ", SignatureKeyList(meta_graph)));
  }
  const SignatureDef& sig = sig_it->second;
  SignatureCall call;
  for (const auto& [input_key, value] : inputs) {
    auto it = sig.inputs().find(input_key);
    if (it == sig.inputs().end()) {
      return absl::NotFoundError(
          absl::StrCat("signature '", key, "' has no input '", input_key,
                       "'; its inputs are: ", Keys(sig.inputs())));
    }
    absl::StatusOr<std::string> name = DenseName(key, input_key, it->second);
    if (!name.ok()) return name.status();
    if (absl::Status s = CheckInput(key, input_key, it->second, value);
        !s.ok()) {
      return s;
    }
    call.feeds.emplace_back(*name, value);
  }
  std::vector<std::string> missing;
  for (const auto& [input_key, info] : sig.inputs()) {
    if (inputs.count(input_key)) continue;
    auto def = sig.defaults().find(input_key);
    if (def == sig.defaults().end()) {
      missing.push_back(input_key);
      continue;
    }
    absl::StatusOr<Tensor> value = Tensor::FromProto(def->second);
    absl::StatusOr<std::string> name = DenseName(key, input_key, info);
    if (!value.ok()) return value.status();
    if (!name.ok()) return name.status();
    call.feeds.emplace_back(*name, *std::move(value));
  }
  if (!missing.empty()) {
    std::sort(missing.begin(), missing.end());
    return absl::InvalidArgumentError(absl::StrCat(
        "signature '", key, "' needs input(s) ", absl::StrJoin(missing, ", "),
        " that were not given (its inputs are: ", Keys(sig.inputs()), ")"));
  }
  call.output_keys = output_keys;
  if (call.output_keys.empty()) {
    for (const auto& [k, v] : sig.outputs()) call.output_keys.push_back(k);
    std::sort(call.output_keys.begin(), call.output_keys.end());
  }
  for (const std::string& out_key : call.output_keys) {
    auto it = sig.outputs().find(out_key);
    if (it == sig.outputs().end()) {
      return absl::NotFoundError(
          absl::StrCat("signature '", key, "' has no output '", out_key,
                       "'; its outputs are: ", Keys(sig.outputs())));
    }
    absl::StatusOr<std::string> name = DenseName(key, out_key, it->second);
    if (!name.ok()) return name.status();
    call.fetches.push_back(*name);
  }
  return call;
}

absl::StatusOr<std::map<std::string, Tensor>> SavedModelBundle::RunSignature(
    const std::string& key, const std::map<std::string, Tensor>& inputs,
    const std::vector<std::string>& output_keys) {
  absl::StatusOr<SignatureCall> call =
      PrepareSignatureCall(meta_graph.meta_graph, key, inputs, output_keys);
  if (!call.ok()) {
    return absl::Status(call.status().code(),
                        absl::StrCat("SavedModel '", export_dir,
                                     "': ", call.status().message()));
  }
  std::vector<Tensor> outputs;
  if (absl::Status s = session->Run(call->feeds, call->fetches, {}, &outputs);
      !s.ok()) {
    return absl::Status(s.code(),
                        absl::StrCat("signature '", key, "': ", s.message()));
  }
  std::map<std::string, Tensor> result;
  for (size_t i = 0; i < outputs.size(); ++i) {
    result.emplace(call->output_keys[i], std::move(outputs[i]));
  }
  return result;
}

std::vector<std::string> SavedModelRoots(const MetaGraphInfo& info) {
  std::vector<std::string> roots;
  if (info.saver_def) {
    if (!info.saver_def->restore_op_name().empty())
      roots.push_back(info.saver_def->restore_op_name());
    if (!info.saver_def->filename_tensor_name().empty())
      roots.push_back(info.saver_def->filename_tensor_name());
  }
  if (std::string main_op = info.MainOp(); !main_op.empty())
    roots.push_back(main_op);
  for (const AssetFileDef& asset : AssetFiles(info.meta_graph)) {
    if (asset.tensor_info().encoding_case() == TensorInfo::kName)
      roots.push_back(asset.tensor_info().name());
  }
  for (const auto& [key, sig] : info.meta_graph.signature_def()) {
    for (const auto* m : {&sig.inputs(), &sig.outputs()}) {
      for (const auto& [k, t] : *m) {
        if (t.encoding_case() == TensorInfo::kName) roots.push_back(t.name());
        if (t.encoding_case() == TensorInfo::kCooSparse) {
          roots.push_back(t.coo_sparse().values_tensor_name());
          roots.push_back(t.coo_sparse().indices_tensor_name());
          roots.push_back(t.coo_sparse().dense_shape_tensor_name());
        }
      }
    }
  }
  return roots;
}

absl::StatusOr<SavedModelBundle> LoadSavedModel(
    const std::string& export_dir, const std::vector<std::string>& tags,
    const SessionOptions& options) {
  absl::StatusOr<SavedModel> model = ReadSavedModel(export_dir);
  if (!model.ok()) return model.status();
  absl::StatusOr<const MetaGraphDef*> meta =
      FindMetaGraph(*model, tags, export_dir);
  if (!meta.ok()) return meta.status();
  const std::string source = absl::StrCat(export_dir, " ", TagSetString(tags));
  absl::StatusOr<MetaGraphInfo> info = DecodeMetaGraph(**meta, source);
  if (!info.ok()) return info.status();
  auto fail = [&](const absl::Status& s, absl::string_view doing) {
    return absl::Status(
        s.code(), absl::StrCat("SavedModel '", export_dir, "': ", doing, ": ",
                               s.message()));
  };
  absl::StatusOr<GraphDef> graph =
      SubgraphNeededFor(info->graph_def(), SavedModelRoots(*info), source);
  if (!graph.ok()) return fail(graph.status(), "reading the graph");
  SavedModelBundle bundle;
  bundle.export_dir = export_dir;
  bundle.tags = tags;
  absl::StatusOr<std::unique_ptr<Session>> session =
      Session::Create(*graph, options);
  if (!session.ok()) return fail(session.status(), "creating the session");
  bundle.session = *std::move(session);
  absl::StatusOr<FeedList> assets = AssetFeeds(info->meta_graph, export_dir);
  if (!assets.ok()) return fail(assets.status(), "reading the assets");
  const SaverDef* saver = info->saver_def ? &*info->saver_def : nullptr;
  if (saver != nullptr && !saver->restore_op_name().empty() &&
      SavedModelHasVariables(export_dir)) {
    FeedList feeds = *assets;
    feeds.emplace_back(saver->filename_tensor_name(),
                       Tensor::Scalar(SavedModelVariablesPrefix(export_dir)));
    if (absl::Status s =
            bundle.session->Run(feeds, {}, {saver->restore_op_name()}, nullptr);
        !s.ok()) {
      return fail(s, absl::StrCat("restoring the variables (op '",
                                  saver->restore_op_name(), "')"));
    }
  }
  if (std::string main_op = info->MainOp(); !main_op.empty()) {
    if (absl::Status s = bundle.session->Run(*assets, {}, {main_op}, nullptr);
        !s.ok()) {
      return fail(s, absl::StrCat("running the main op '", main_op, "'"));
    }
  }
  bundle.meta_graph = *std::move(info);
  bundle.graph_def = *std::move(graph);
  return bundle;
}

}  // namespace dflow
