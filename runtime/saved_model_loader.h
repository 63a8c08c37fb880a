// Loading a TensorFlow SavedModel (TF1 style) into a Session, and calling
// its signatures.
//
// LoadSavedModel does what TensorFlow's loader does: it reads
// <dir>/saved_model.pb (or .pbtxt), picks the meta graph whose tags equal
// `tags`, creates a Session of its graph, restores the variables by running
// the SaverDef's restore op with its filename tensor fed
// "<dir>/variables/variables" (skipped when the model has no variables),
// then runs the main op (collection saved_model_main_op, else
// legacy_init_op). The session holds only the nodes the signatures, the
// restore op and the main op need (formats/subgraph.h): ops TensorFlow adds
// for other uses (SaveV2, initializers, string ops) need no dflow kernel.
// Asset files (asset_file_def: vocabularies) are fed, as
// export_dir/assets/FILE, to the restore and the main op.
//
//   absl::StatusOr<SavedModelBundle> model = LoadSavedModel("/models/mnist/1");
//   if (!model.ok()) return model.status();
//   absl::StatusOr<std::map<std::string, Tensor>> out =
//       model->RunSignature("serving_default", {{"x", images}}, {"probs"});
//   const Tensor& probs = out->at("probs");
//
// RunSignature maps signature keys to the graph's tensors and checks every
// input's dtype and shape against the signature's TensorInfo first; errors
// name the signature and key and list what the signature has.
#ifndef DFLOW_RUNTIME_SAVED_MODEL_LOADER_H_
#define DFLOW_RUNTIME_SAVED_MODEL_LOADER_H_

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "formats/meta_graph.h"
#include "graph/tensor.h"
#include "proto/meta_graph.pb.h"
#include "runtime/session.h"

namespace dflow {

// A signature call resolved to the graph's tensor names.
struct SignatureCall {
  FeedList feeds;                        // tensor name -> value
  std::vector<std::string> fetches;      // tensor names, in output_keys order
  std::vector<std::string> output_keys;  // the signature keys fetched
};

// Resolves a call of signature `key` of `meta_graph`. Every signature input
// must be given (or have a default in the signature); an empty
// `output_keys` fetches every output, sorted by key. NotFound for a missing
// signature or key (listing those present), InvalidArgument for an input of
// another dtype or shape than its TensorInfo, Unimplemented for sparse or
// composite tensors.
absl::StatusOr<SignatureCall> PrepareSignatureCall(
    const MetaGraphDef& meta_graph, const std::string& key,
    const std::map<std::string, Tensor>& inputs,
    const std::vector<std::string>& output_keys);

struct SavedModelBundle {
  std::unique_ptr<Session> session;
  MetaGraphInfo meta_graph;
  // The nodes of the meta graph the session holds (SavedModelRoots' needs).
  GraphDef graph_def;
  std::string export_dir;
  std::vector<std::string> tags;

  const google::protobuf::Map<std::string, SignatureDef>& signatures() const {
    return meta_graph.meta_graph.signature_def();
  }
  // Runs signature `key` with `inputs` (by input key) and returns the
  // outputs asked for (by output key; empty: all of them).
  absl::StatusOr<std::map<std::string, Tensor>> RunSignature(
      const std::string& key, const std::map<std::string, Tensor>& inputs,
      const std::vector<std::string>& output_keys = {});
};

// The graph nodes a bundle of `meta_graph` keeps: restore op, filename
// tensor, main op and every signature tensor.
std::vector<std::string> SavedModelRoots(const MetaGraphInfo& meta_graph);

absl::StatusOr<SavedModelBundle> LoadSavedModel(
    const std::string& export_dir,
    const std::vector<std::string>& tags = {"serve"},
    const SessionOptions& options = {});

}  // namespace dflow

#endif  // DFLOW_RUNTIME_SAVED_MODEL_LOADER_H_
