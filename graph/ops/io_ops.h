// Checkpoint ops: TensorFlow's Saver ops (SaveV2, RestoreV2,
// MergeV2Checkpoints) and the string ops a tf.compat.v1.train.Saver graph
// uses to name its files (ShardedFilename, ShardedFilespec, StringJoin),
// with TensorFlow 2.21's names, inputs and attrs, so that TensorFlow-written
// save/restore subgraphs run in dflow. Their kernels (kernels/cpu/io_ops.cc)
// read and write V2 checkpoints (formats/tensor_bundle.h), on CPU only.
// io_ops_files.cc adds the whole-file ops (ReadFile, WriteFile,
// MatchingFiles) and io_ops_readers.cc the queue-fed readers.
#ifndef DFLOW_GRAPH_OPS_IO_OPS_H_
#define DFLOW_GRAPH_OPS_IO_OPS_H_

#include <vector>

#include "graph/scope.h"
#include "graph/types.h"

namespace dflow {
namespace ops {

// Saves `tensors` under `tensor_names` (a string vector) in the V2
// checkpoint `prefix`; `shape_and_slices` holds one "" per tensor (dflow
// saves whole tensors).
Operation SaveV2(const Scope& scope, Input prefix, Input tensor_names,
                 Input shape_and_slices, InputList tensors);

// Reads `tensor_names` from the V2 checkpoint `prefix`, output i of dtype
// dtypes[i].
std::vector<Output> RestoreV2(const Scope& scope, Input prefix,
                              Input tensor_names, Input shape_and_slices,
                              const std::vector<DataType>& dtypes);

// "<basename>-<shard>-of-<num_shards>" (five digits each).
Output ShardedFilename(const Scope& scope, Input basename, Input shard,
                       Input num_shards);

// Joins string tensors element-wise (scalars broadcast).
Output StringJoin(const Scope& scope, InputList inputs,
                  const std::string& separator = "");

// The bytes of the file `filename` (a string scalar).
Output ReadFile(const Scope& scope, Input filename);
// Writes `contents` to `filename` (both string scalars).
Operation WriteFile(const Scope& scope, Input filename, Input contents);
// The files matching glob `pattern` (a scalar or vector of patterns),
// sorted.
Output MatchingFiles(const Scope& scope, Input pattern);

}  // namespace ops
}  // namespace dflow

#endif  // DFLOW_GRAPH_OPS_IO_OPS_H_
