// Trains one graph of the TensorFlow-written corpus the way TensorFlow did
// when it wrote the reference (tools/tf_reference/make_corpus.py): run the
// init node, start model.meta's queue runners when the graph reads an input
// pipeline, run ref.steps training steps fetching the loss, and, with
// num_epochs, run on until the input ends. Shared by the CPU corpus test and
// the GPU one (tests/runtime/gpu/tf_corpus_gpu_test).
#ifndef DFLOW_TESTS_TF_CORPUS_CORPUS_TRAINING_H_
#define DFLOW_TESTS_TF_CORPUS_CORPUS_TRAINING_H_

#include <vector>

#include "absl/status/statusor.h"
#include "runtime/session.h"
#include "tests/tf_corpus/corpus_reference.h"

namespace dflow {

// The loss of each of the ref.steps steps. The first failing run's status
// (init, a step, the pipeline) is returned as is; a num_epochs input that
// ends after a different number of steps than TensorFlow's is Internal.
// Changes the working directory while the queue runners run (the graph
// names its TFRecord file relative to ref.dir) and restores it.
// `stats`, when given, receives the node statistics (which device ran each
// node) of the init step and of the last training step.
struct CorpusStepStats {
  RunMetadata init;
  RunMetadata last_step;
};
absl::StatusOr<std::vector<double>> TrainCorpusGraph(
    const CorpusReference& ref, const SessionOptions& options,
    CorpusStepStats* stats = nullptr);

}  // namespace dflow

#endif  // DFLOW_TESTS_TF_CORPUS_CORPUS_TRAINING_H_
