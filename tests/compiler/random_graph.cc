#include "tests/compiler/random_graph.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <numeric>
#include <random>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "google/protobuf/text_format.h"
#include "graph/ops/ops.h"
#include "graph/scope.h"
#include "graph/tensor_shape.h"
#include "graph/types.h"
#include "tests/compiler/random_graph_generator.h"

namespace dflow {

using random_graph_internal::Generator;
using random_graph_internal::kFloatLimit;

std::string RandomGraph::DebugString() const {
  std::string text;
  google::protobuf::TextFormat::PrintToString(graph, &text);
  std::vector<std::string> fed;
  for (const auto& [name, tensor] : feeds) {
    fed.push_back(absl::StrCat(name, " ", DataTypeName(tensor.dtype()),
                               tensor.shape().ToString()));
  }
  return absl::StrCat("# random graph seed ", seed, ", ", cpu_devices,
                      " CPU device(s)\n# feeds: ", absl::StrJoin(fed, ", "),
                      "\n# fetches: ", absl::StrJoin(fetches, ", "),
                      "\n# targets: ", absl::StrJoin(targets, ", "),
                      "\n# run once first: ", absl::StrJoin(init_targets, ", "),
                      "\n", text);
}

absl::StatusOr<RandomGraph> GenerateRandomGraph(
    uint64_t seed, const RandomGraphOptions& options) {
  RandomGraph result;
  result.seed = seed;
  Generator generator(seed, options, &result);
  if (absl::Status s = generator.Build(); !s.ok()) return s;
  return result;
}

absl::StatusOr<RandomGraph> GenerateBatchGraph(uint64_t seed) {
  RandomGraph result;
  result.seed = seed;
  std::mt19937_64 rng(seed ^ 0x9e3779b97f4a7c15ull);
  auto uniform = [&](int lo, int hi) {
    return std::uniform_int_distribution<int>(lo, hi)(rng);
  };
  auto chance = [&](double p) { return std::bernoulli_distribution(p)(rng); };
  auto random_tensor = [&](const TensorShape& shape, float lo, float hi) {
    Tensor t(DT_FLOAT, shape);
    std::uniform_real_distribution<float> u(lo, hi);
    for (float& x : t.flat<float>()) x = u(rng);
    return t;
  };
  Scope root = Scope::NewRootScope();
  int64_t width = uniform(1, 6);
  const int64_t input_width = width;
  const Output x = ops::Placeholder(
      root, DT_FLOAT, ops::PlaceholderAttrs().Shape(TensorShape({-1, width})));
  struct Layer {
    Output out;
    int64_t width;
  };
  std::vector<Layer> layers = {{x, width}};
  Output v = x;
  double bound = 2;
  double scale = 2;  // the largest bound so far: every fetch's scale
  const int steps = uniform(3, 9);
  for (int step = 0; step < steps; ++step) {
    if (bound > kFloatLimit) {
      v = ops::Tanh(root, v);
      bound = 1;
    }
    switch (uniform(0, 7)) {
      case 0:
      case 1: {  // a dense layer
        const int64_t next = uniform(1, 6);
        const bool tb = chance(0.3);
        const Output w =
            ops::Const(root, random_tensor(tb ? TensorShape({next, width})
                                              : TensorShape({width, next}),
                                           -1, 1));
        v = ops::MatMul(root, v, w, ops::MatMulAttrs().TransposeB(tb));
        bound *= static_cast<double>(width);
        width = next;
        if (chance(0.7)) {
          v = ops::BiasAdd(root, v,
                           ops::Const(root, random_tensor({width}, -1, 1)));
          bound += 1;
        }
        switch (uniform(0, 3)) {
          case 0:
            v = ops::Relu(root, v);
            break;
          case 1:
            v = ops::Tanh(root, v);
            bound = 1;
            break;
          case 2:
            v = ops::Sigmoid(root, v);
            bound = 1;
            break;
          default:
            break;
        }
        break;
      }
      case 2: {  // with a [d] vector, or an earlier value of this width
        Output other = ops::Const(root, random_tensor({width}, -2, 2));
        for (const Layer& l : layers) {
          if (l.width == width && chance(0.3)) other = l.out;
        }
        switch (uniform(0, 2)) {
          case 0:
            v = ops::AddV2(root, v, other);
            bound += 2 + bound;
            break;
          case 1:
            v = ops::Mul(root, v, other);
            bound *= std::max(2.0, bound);
            break;
          default:
            v = ops::Maximum(root, v, other);
            bound = std::max(2.0, bound);
            break;
        }
        break;
      }
      case 3:
        v = chance(0.5) ? ops::Mul(root, v, 1.0f) : ops::AddV2(root, v, 0.0f);
        break;
      case 4:
        v = ops::AddN(root, {v, v});
        bound *= 2;
        break;
      case 5:
        v = ops::Identity(root, ops::Identity(root, v));
        break;
      case 6:
        v = ops::Softmax(root, v);
        bound = 1;
        break;
      default:
        v = ops::Square(root, ops::Tanh(root, v));
        bound = 1;
        break;
    }
    layers.push_back({v, width});
    scale = std::max(scale, bound);
  }
  // The last value and up to two earlier ones (not the input).
  std::set<std::string> names;
  for (size_t i = layers.size(); i-- > 1;) {
    if (i + 1 != layers.size() && !chance(0.3)) continue;
    if (names.insert(layers[i].out.name()).second) {
      result.fetches.push_back(layers[i].out.name());
      result.fetch_scales.push_back(scale);
    }
    if (names.size() >= 3) break;
  }
  const std::string feed = x.op().name();
  const int first = uniform(1, 9);
  result.feeds = {{feed, random_tensor({first, input_width}, -2, 2)}};
  for (int i = 0, n = uniform(2, 3); i < n; ++i) {
    result.later_feeds.push_back(
        {{feed, random_tensor({uniform(1, 9), input_width}, -2, 2)}});
  }
  if (absl::Status s = root.ToGraphDef(&result.graph); !s.ok()) return s;
  return result;
}

}  // namespace dflow
