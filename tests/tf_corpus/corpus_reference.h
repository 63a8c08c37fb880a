// The TensorFlow-written corpus (tests/testdata/tf_corpus, made by
// tools/tf_reference/make_corpus.py): one directory per graph with its
// GraphDef, MetaGraphDef, feeds and reference.txt of TensorFlow's facts.
#ifndef DFLOW_TESTS_TF_CORPUS_CORPUS_REFERENCE_H_
#define DFLOW_TESTS_TF_CORPUS_CORPUS_REFERENCE_H_

#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"

namespace dflow {

inline constexpr char kCorpusDir[] = "tests/testdata/tf_corpus";

struct CorpusReference {
  std::string dir;   // tests/testdata/tf_corpus/<model>_<style>
  std::string name;  // <model>_<style>
  std::string model;
  std::string style;  // "ref" or "res"
  int towers = 1;
  std::string init;   // node
  std::string train;  // node
  std::string loss;   // tensor
  int steps = 0;
  // The steps dequeue from an input pipeline: start model.meta's queue
  // runners, in `dir` (the graph names its TFRecord file relatively).
  bool queue_runners = false;
  // With num_epochs in its input pipeline: the training steps TensorFlow
  // ran before the input ended with OutOfRange (0: no such end).
  int epoch_steps = 0;
  // (tensor, path of its .npy)
  std::vector<std::pair<std::string, std::string>> feeds;
  std::vector<double> losses;  // TensorFlow's, one per step
  std::set<std::string> ops;
  // device set ("CPU:1", "CPU:4") -> node -> TensorFlow's device
  std::map<std::string, std::map<std::string, std::string>> placement;
};

// Every graph of the corpus, sorted by name.
absl::StatusOr<std::vector<CorpusReference>> ReadCorpus(
    const std::string& dir = kCorpusDir);

}  // namespace dflow

#endif  // DFLOW_TESTS_TF_CORPUS_CORPUS_REFERENCE_H_
