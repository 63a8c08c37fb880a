// The seed tower program (MNIST MLP, 784-500-10, on N GPUs) built with
// dflow's C++ API: the graph of ../shared/seeds/001 without its training
// ops, which arrive with gradients in a later issue.
//
//  - inputs and the shared variables live on /cpu:0 ("put simple ops on the
//    CPU, only the network on the GPUs");
//  - the batch is split along dimension 0, one slice per tower;
//  - tower i runs under name scope tower_i on /gpu:i: forward pass, sparse
//    softmax cross-entropy, L2 regularization of its weights, total loss;
//  - the towers' losses are averaged on /cpu:0.
//
// Usage: mlp_towers [--towers N] [--batch B] [--out PREFIX] [--run]
// writes PREFIX.pb and PREFIX.pbtxt and prints a short summary. With --run
// it also runs the graph in this process (the initializer, then the losses
// on a fixed input it writes as PREFIX_x.npy and PREFIX_labels.npy), so
// `dflow run` on the saved .pb can be checked against it.
#include <cstdlib>
#include <iostream>
#include <map>
#include <string>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "graph/graph_def_file.h"
#include "graph/npy.h"
#include "graph/ops/ops.h"
#include "runtime/session.h"

namespace {

using dflow::Output;
using dflow::Scope;
using dflow::TensorShape;
namespace ops = dflow::ops;

constexpr int kInput = 784;
constexpr int kHidden = 500;
constexpr int kClasses = 10;
constexpr float kRegularizationRate = 0.0001f;

struct Layer {
  Output weights;
  Output biases;
  std::vector<dflow::Operation> initializers;
};

// A fully connected layer's variables (TensorFlow 1.x style VariableV2 with
// an Assign initializer), in name scope `name` of `scope`.
Layer MakeLayer(const Scope& scope, const std::string& name, int in, int out) {
  Scope s = scope.NewSubScope(name);
  Layer layer;
  layer.weights = ops::Variable(s.WithOpName("weights"), TensorShape({in, out}),
                                dflow::DT_FLOAT);
  layer.biases = ops::Variable(s.WithOpName("biases"), TensorShape({out}),
                               dflow::DT_FLOAT);
  Scope init = s.NewSubScope("initializer");
  Output w0 = ops::Mul(init,
                       ops::TruncatedNormal(init, {in, out}, dflow::DT_FLOAT,
                                            ops::RandomAttrs().Seed(1)),
                       0.1f);
  Output b0 = ops::Fill(init, {out}, 0.0f);
  layer.initializers.push_back(ops::Assign(init, layer.weights, w0).op());
  layer.initializers.push_back(ops::Assign(init, layer.biases, b0).op());
  return layer;
}

// One tower: forward pass and loss for its slice of the batch.
Output TowerLoss(const Scope& tower, const Output& x, const Output& labels,
                 const Layer& l1, const Layer& l2) {
  dflow::ActiveScope active(tower);  // operators below build in `tower`
  Scope layer1 = tower.NewSubScope("layer1");
  Output hidden = ops::Relu(
      layer1,
      ops::BiasAdd(layer1, ops::MatMul(layer1, x, l1.weights), l1.biases));
  Scope layer2 = tower.NewSubScope("layer2");
  Output logits =
      ops::BiasAdd(layer2, ops::MatMul(layer2, hidden, l2.weights), l2.biases);
  Output xent =
      ops::SparseSoftmaxCrossEntropyWithLogits(tower, logits, labels).loss;
  Output cross_entropy =
      ops::Mean(tower.WithOpName("cross_entropy"), xent, {0});
  Output regularization =
      kRegularizationRate *
      (ops::L2Loss(tower, l1.weights) + ops::L2Loss(tower, l2.weights));
  return ops::Identity(tower.WithOpName("loss"),
                       cross_entropy + regularization);
}

}  // namespace

// A fixed, reproducible input batch: pixel values in [0, 1) and labels 0..9.
std::pair<dflow::Tensor, dflow::Tensor> FixedInput(int rows) {
  dflow::Tensor x(dflow::DT_FLOAT, TensorShape({rows, kInput}));
  dflow::Tensor labels(dflow::DT_INT32, TensorShape({rows}));
  uint32_t state = 12345;
  for (float& v : x.flat<float>()) {
    state = state * 1664525u + 1013904223u;  // a small LCG is plenty here
    v = static_cast<float>(state >> 8) / 16777216.0f;
  }
  for (int i = 0; i < rows; ++i) labels.flat<int32_t>()[i] = (i * 7) % kClasses;
  return {x, labels};
}

// Runs the initializer and then the losses in this process.
int RunInProcess(const dflow::GraphDef& def, const std::string& out, int rows,
                 const std::vector<std::string>& fetches) {
  // As the seeds do (ConfigProto(allow_soft_placement=True)): towers asking
  // for GPUs this machine lacks run on the devices it has.
  dflow::SessionOptions options;
  options.allow_soft_placement = true;
  absl::StatusOr<std::unique_ptr<dflow::Session>> session =
      dflow::Session::Create(def, options);
  if (!session.ok()) {
    std::cerr << session.status() << "\n";
    return 1;
  }
  if (absl::Status s = (*session)->Run({}, {}, {"init"}, nullptr); !s.ok()) {
    std::cerr << s << "\n";
    return 1;
  }
  auto [x, labels] = FixedInput(rows);
  for (auto [path, t] :
       {std::pair{out + "_x.npy", x}, std::pair{out + "_labels.npy", labels}}) {
    if (absl::Status s = dflow::WriteNpyFile(path, t); !s.ok()) {
      std::cerr << s << "\n";
      return 1;
    }
  }
  std::vector<dflow::Tensor> values;
  absl::Status s = (*session)->Run({{"input/x", x}, {"input/labels", labels}},
                                   fetches, {}, &values);
  if (!s.ok()) {
    std::cerr << s << "\n";
    return 1;
  }
  std::cout << "in-process run (init, then the losses on " << out
            << "_x.npy):\n";
  for (size_t i = 0; i < fetches.size(); ++i) {
    std::cout << "  " << fetches[i] << " = " << values[i].flat<float>()[0]
              << "\n";
  }
  return 0;
}

int main(int argc, char** argv) {
  int towers = 4, batch = 100;
  bool run = false;
  std::string out = "mlp_towers";
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    const bool has_value = i + 1 < argc;
    if (arg == "--towers" && has_value &&
        absl::SimpleAtoi(argv[i + 1], &towers) && towers > 0) {
      ++i;
    } else if (arg == "--batch" && has_value &&
               absl::SimpleAtoi(argv[i + 1], &batch) && batch > 0) {
      ++i;
    } else if (arg == "--out" && has_value) {
      out = argv[++i];
    } else if (arg == "--run") {
      run = true;
    } else {
      std::cerr << "usage: mlp_towers [--towers N>0] [--batch B>0] "
                   "[--out PREFIX] [--run]\n";
      return 2;
    }
  }

  Scope root = Scope::NewRootScope();
  Scope cpu = root.WithDevice("/cpu:0");

  // Inputs: one batch per tower, stacked.
  Scope input = cpu.NewSubScope("input");
  Output x =
      ops::Placeholder(input.WithOpName("x"), dflow::DT_FLOAT,
                       ops::PlaceholderAttrs().Shape({towers * batch, kInput}));
  Output labels =
      ops::Placeholder(input.WithOpName("labels"), dflow::DT_INT32,
                       ops::PlaceholderAttrs().Shape({towers * batch}));
  dflow::OutputList x_split = ops::Split(input, 0, x, towers);
  dflow::OutputList labels_split = ops::Split(input, 0, labels, towers);

  // Shared variables on the CPU.
  Layer l1 = MakeLayer(cpu, "layer1", kInput, kHidden);
  Layer l2 = MakeLayer(cpu, "layer2", kHidden, kClasses);
  std::vector<dflow::Operation> inits = l1.initializers;
  inits.insert(inits.end(), l2.initializers.begin(), l2.initializers.end());
  ops::NoOp(cpu.WithOpName("init").WithControlDependencies(inits));

  // Towers.
  std::vector<Output> losses;
  for (int i = 0; i < towers; ++i) {
    Scope tower = root.NewSubScope(absl::StrCat("tower_", i))
                      .WithDevice(absl::StrCat("/gpu:", i));
    losses.push_back(TowerLoss(tower, x_split[i], labels_split[i], l1, l2));
  }
  Output average =
      ops::RealDiv(cpu.WithOpName("average_loss"), ops::AddN(cpu, losses),
                   static_cast<float>(towers));

  dflow::GraphDef def;
  if (absl::Status s = root.ToGraphDef(&def); !s.ok()) {
    std::cerr << "building the graph failed: " << s << "\n";
    return 1;
  }
  for (auto [suffix, format] :
       {std::pair{".pb", dflow::GraphDefFormat::kBinary},
        std::pair{".pbtxt", dflow::GraphDefFormat::kText}}) {
    const std::string path = out + suffix;
    if (absl::Status s = dflow::WriteGraphDefFile(path, def, format); !s.ok()) {
      std::cerr << s << "\n";
      return 1;
    }
    std::cout << "wrote " << path << "\n";
  }
  std::map<std::string, int> per_device;
  for (const auto& n : def.node())
    ++per_device[n.device().empty() ? "(none)" : n.device()];
  std::cout << def.node_size() << " nodes; " << towers << " towers of batch "
            << batch << "; average loss is '" << average.name() << "', shape "
            << average.shape().ToString() << "\n";
  for (const auto& [device, count] : per_device) {
    std::cout << "  " << device << ": " << count << " nodes\n";
  }
  if (!run) return 0;
  // Placement arrives with a later issue: until then every node runs on the
  // CPU whatever device it asks for.
  return RunInProcess(def, out, towers * batch,
                      {"average_loss", "tower_0/loss"});
}
