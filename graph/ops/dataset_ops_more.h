// Builders of more of tf.data's transformations (schemas with TensorFlow
// 2.21's OpDefs and the builders in dataset_ops_more.cc; kernels in
// kernels/cpu/dataset_ops_more.cc). A header of its own, in a library of
// its own (//graph/ops:dataset_ops_more), so that adding ops here does not
// touch every file that includes dataset_ops.h.
#ifndef DFLOW_GRAPH_OPS_DATASET_OPS_MORE_H_
#define DFLOW_GRAPH_OPS_DATASET_OPS_MORE_H_

#include "absl/strings/string_view.h"
#include "graph/ops/dataset_ops.h"
#include "graph/scope.h"

namespace dflow {
namespace ops {

// Every num_shards-th element, from the index-th (ds.shard).
Output ShardDataset(const Scope& scope, Input dataset, Input num_shards,
                    Input index, const ElementSpec& out);
// The elements before the first for which `predicate` is false.
Output TakeWhileDataset(const Scope& scope, Input dataset,
                        const InputList& captured, absl::string_view predicate,
                        const ElementSpec& out);
// f(state..., element..., captured...) -> (new state..., output...).
Output ScanDataset(const Scope& scope, Input dataset,
                   const InputList& initial_state, const InputList& captured,
                   absl::string_view f, const ElementSpec& out);
// Windows: per component of the input, a variant scalar holding a dataset.
Output WindowDataset(const Scope& scope, Input dataset, Input size,
                     Input shift, Input stride, Input drop_remainder,
                     int num_components);
Output UniqueDataset(const Scope& scope, Input dataset, const ElementSpec& out);
Output IgnoreErrorsDataset(const Scope& scope, Input dataset,
                           const ElementSpec& out);
// The next element of datasets[selector's next element], in turn.
Output DirectedInterleaveDataset(const Scope& scope, Input selector,
                                 const InputList& datasets,
                                 bool stop_on_empty_dataset,
                                 const ElementSpec& out);
// int64 scalars from Philox(seed, seed2), forever.
Output RandomDataset(const Scope& scope, Input seed, Input seed2);
Output RewriteDataset(const Scope& scope, Input dataset, Input rewrite_name,
                      const ElementSpec& out);
// Groups elements by key_func(element) (an int64 scalar); a group of
// window_size_func(key) elements (or what is left at the end) becomes
// reduce_func(key, window dataset)'s dataset.
Output GroupByWindowDataset(const Scope& scope, Input dataset,
                            const InputList& key_captured,
                            const InputList& reduce_captured,
                            const InputList& window_size_captured,
                            absl::string_view key_func,
                            absl::string_view reduce_func,
                            absl::string_view window_size_func,
                            const ElementSpec& out);

}  // namespace ops
}  // namespace dflow

#endif  // DFLOW_GRAPH_OPS_DATASET_OPS_MORE_H_
