// A seeded generator of random, runnable dataflow graphs for differential
// tests of the compiler passes (tests/compiler/differential_passes_test.cc).
//
// Every graph is a DAG built with the C++ builder from a broad op set
// (element-wise arithmetic, activations, MatMul, BiasAdd, reshapes and
// transposes, casts, AddN, shape ops, fills, reductions, concatenation,
// softmax) on float and int32 paths, with fixed, fully known shapes, fed
// Placeholders and Consts, and sometimes while loops and conditionals
// (TF1 control flow from the C++ builders) whose bodies and branches are
// random steps too. It also builds on purpose the patterns the
// passes look for: duplicated subexpressions, x*1, x+0, x-x, double
// transposes and reshapes, Identity chains, AddN of one, casts to the same
// type, MatMul->BiasAdd->Relu, element-wise chains and constant subgraphs.
//
// Values stay finite and int32 arithmetic never overflows: the generator
// tracks a bound on every value's magnitude and squashes (Tanh for floats,
// a clamp for ints) an operand that is too large before it enters an op.
// The same seed always gives the same graph, feeds and fetches.
#ifndef DFLOW_TESTS_COMPILER_RANDOM_GRAPH_H_
#define DFLOW_TESTS_COMPILER_RANDOM_GRAPH_H_

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "graph/tensor.h"
#include "proto/graph.pb.h"

namespace dflow {

struct RandomGraphOptions {
  // Construction steps (one op or one pattern of a few ops each).
  int min_steps = 25;
  int max_steps = 50;
  // The share of graphs that use two logical CPU devices, each op pinned to
  // /cpu:0, /cpu:1 or left to the placer.
  double two_device_probability = 0.3;
  // The share of graphs whose run also names a target (a node computed
  // but not fetched, which passes must keep by name).
  double target_probability = 0.3;
  // The share of graphs with some shapes of 100-2500 elements (one long
  // dimension), beyond the block sizes of kernels and fusions.
  double big_probability = 0.2;
  // The share of graphs whose run also feeds 1-2 computed values or Consts
  // (TensorFlow lets any tensor be fed).
  double feed_intermediate_probability = 0.3;
  // The share of two-device graphs with 2-4 small all-reduces, one member
  // on each CPU (tensor fusion packs them).
  double all_reduce_probability = 0.4;
  // The share of graphs with a variable updated by ApplyGradientDescent of
  // a MatMul (the MatMul+update fusion): such graphs are stateful.
  double training_probability = 0.2;
  // The share of graphs with a while loop (ops::WhileLoop: 0-3 iterations
  // of random steps, sometimes a loop or a conditional nested in it), and
  // with a conditional (ops::Cond on an exact int32 predicate). Passes must
  // keep every node in its frame.
  double loop_probability = 0.3;
  double cond_probability = 0.3;
};

struct RandomGraph {
  uint64_t seed = 0;
  GraphDef graph;
  // One fed tensor per Placeholder, by node name; sometimes also computed
  // values or Consts, by tensor name.
  std::vector<std::pair<std::string, Tensor>> feeds;
  // Tensor names ("node" or "node:k"); sometimes one tensor twice.
  std::vector<std::string> fetches;
  // For each fetch, a bound on the magnitude of every float value its
  // result was computed from (1 for ints): a reordered float computation
  // differs from the original by about epsilon times this, not times the
  // result (cancellation), so float comparisons scale their absolute
  // tolerance by it.
  std::vector<double> fetch_scales;
  // Node names run for their effect; empty or one.
  std::vector<std::string> targets;
  // Fetches that must stay together (every member of an all-reduce, a
  // variable's update), also in a reduced repro.
  std::vector<std::string> group_fetches;
  // Run once, before the first run, when not empty (a variable's Assign).
  std::vector<std::string> init_targets;
  // A run changes state (a variable): run k must be compared with run k of
  // the reference, and runs must not overlap.
  bool stateful = false;
  // Has collectives: runs must not overlap (members pair by instance key).
  bool has_collectives = false;
  // Further runs of the same signature with other feeds (other batch
  // sizes: GenerateBatchGraph), after the first two.
  std::vector<std::vector<std::pair<std::string, Tensor>>> later_feeds;
  // Logical CPU devices the graph's nodes are pinned to (1 or 2).
  int cpu_devices = 1;

  // The graph as text (pbtxt), with the feeds' shapes, the fetches and the
  // targets: what a failing test prints to reproduce the seed.
  std::string DebugString() const;
};

// The graph of `seed`. An error means a bug in the generator (a value it
// meant to build failed shape inference), naming the step.
absl::StatusOr<RandomGraph> GenerateRandomGraph(
    uint64_t seed, const RandomGraphOptions& options = {});

// A graph whose input has an unknown batch dimension ([-1, d]): a random
// stack of dense layers, activations, element-wise ops with [d] vectors,
// x*1, AddN and Softmax, all shape-agnostic in the batch. It is fed batches
// of one size in `feeds` and of other sizes in `later_feeds`: one cached
// plan must serve them all (a plan sized for the first feed's shape would
// not).
absl::StatusOr<RandomGraph> GenerateBatchGraph(uint64_t seed);

}  // namespace dflow

#endif  // DFLOW_TESTS_COMPILER_RANDOM_GRAPH_H_
