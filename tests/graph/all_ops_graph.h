// A graph that uses every op dflow declares, built through the C++ API. The
// round-trip test checks it covers the whole registry (so a new op must be
// added here), and tools/tf_reference/check_loads_in_tf.py checks that
// TensorFlow loads it (bazel run //tests/graph:write_all_ops_graph -- PREFIX).
#ifndef DFLOW_TESTS_GRAPH_ALL_OPS_GRAPH_H_
#define DFLOW_TESTS_GRAPH_ALL_OPS_GRAPH_H_

#include "graph/scope.h"

namespace dflow {

// Builds the graph in `root`; errors end up in root.status().
void BuildGraphWithEveryOp(const Scope& root);

// Parts of it kept in files of their own (called by BuildGraphWithEveryOp):
void BuildTextAndCtcOps(const Scope& root);  // all_ops_graph_text.cc
// all_ops_graph_loops.cc, given a float value `h` to push and write.
void AddLoopAccumulatorsToEveryOpGraph(const Scope& root, Output h);
// all_ops_graph_input.cc (queues, readers, tf.Example parsing, a
// StagingArea, a conditional accumulator), given a float value `h` to stage.
void AddInputPipelineOpsToEveryOpGraph(const Scope& root, Output h);
// all_ops_graph_images.cc, given the graph's [8, 32, 32, 3] float images.
void AddImageOpsToEveryOpGraph(const Scope& root, Output x);
// Its complex-number, FFT and audio ops (all_ops_graph_signal.cc), called
// by BuildGraphWithEveryOp.
void BuildComplexAndSignalOps(const Scope& root);
// The parts BuildGraphWithEveryOp builds from sibling files, one per op
// family (all_ops_graph_<family>.cc).
void BuildRandomSamplingOps(const Scope& root);
// Its part for the matrix decompositions, special functions and counting
// ops (all_ops_graph_linalg.cc); BuildGraphWithEveryOp calls it.
void BuildLinalgAndSpecialOps(const Scope& root);
// The tf.data ops, and the functions of the library they call
// (all_ops_graph_datasets.cc); part of BuildGraphWithEveryOp.
void BuildDatasetOps(const Scope& root);
// The everyday ops of the misc family (all_ops_graph_misc.cc): LinSpace,
// UnravelIndex, UniqueV2, NthElement, TopK/InTopK v1, Mod, ...
void BuildMiscOps(const Scope& root);
// TF1's image/audio/tensor summaries and TF2's summary-writer ops
// (all_ops_graph_summaries.cc); part of BuildGraphWithEveryOp.
void BuildSummaryOps(const Scope& root);
// The fake-quantization and quantize-dequantize ops and their gradients
// (all_ops_graph_quantization.cc); part of BuildGraphWithEveryOp.
void BuildQuantizationOps(const Scope& root);
// The parsing and file-io ops (all_ops_graph_parsing.cc): DecodeCSV over a
// text-line reader, Serialize/ParseTensor, DecodeCompressed,
// DecodePaddedRaw, DecodeJSONExample, ReadFile, WriteFile, MatchingFiles.
void BuildParsingAndFileOps(const Scope& root);
// The tf.sparse and tf.sets ops (all_ops_graph_sparse.cc); part of
// BuildGraphWithEveryOp.
void BuildSparseAndSetOps(const Scope& root);

}  // namespace dflow

#endif  // DFLOW_TESTS_GRAPH_ALL_OPS_GRAPH_H_
