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

// The tf.data ops, and the functions of the library they call
// (all_ops_graph_datasets.cc); part of BuildGraphWithEveryOp.
void BuildDatasetOps(const Scope& root);

}  // namespace dflow

#endif  // DFLOW_TESTS_GRAPH_ALL_OPS_GRAPH_H_
