// Queue ops (FIFOQueueV2, RandomShuffleQueueV2, PaddingFIFOQueueV2 and
// their enqueue, dequeue, close and size ops), stacks (StackV2 and its
// push, pop and close: data_flow_ops_stack.cc) and TensorArrays
// (TensorArrayV3 and its read, write, gather, scatter, grad, size and close:
// data_flow_ops_tensor_array.cc): schemas only, for graphs TensorFlow
// wrote; the CPU kernels are kernels/cpu/data_flow_ops*.cc. Hash tables
// (HashTableV2, the mutable tables and their initialize, import, insert,
// remove, find, size and export: data_flow_ops_lookup.cc) have builders
// too.
#ifndef DFLOW_GRAPH_OPS_DATA_FLOW_OPS_H_
#define DFLOW_GRAPH_OPS_DATA_FLOW_OPS_H_

#include <cstdint>

#include "absl/strings/string_view.h"
#include "graph/scope.h"

namespace dflow {
namespace ops {

// A hash table of the session (tf.lookup.StaticHashTable's table), keyed
// by `key_dtype`, to be filled once with InitializeTableV2.
Output HashTableV2(const Scope& scope, DataType key_dtype,
                   DataType value_dtype, absl::string_view shared_name = "");
Operation InitializeTableV2(const Scope& scope, Input table, Input keys,
                            Input values);
// Fills the table from a text file (tf.lookup.TextFileInitializer): key and
// value each the whole line (-2), the line number (-1) or a column.
Operation InitializeTableFromTextFileV2(const Scope& scope, Input table,
                                       Input filename, int64_t key_index,
                                       int64_t value_index,
                                       absl::string_view delimiter = "\t");
// Replaces the table's contents.
Operation LookupTableImportV2(const Scope& scope, Input table, Input keys,
                              Input values);
// Each key's value (the output has the keys' shape), `default_value` (a
// scalar) for those not in the table.
Output LookupTableFindV2(const Scope& scope, Input table, Input keys,
                         Input default_value);
Output LookupTableSizeV2(const Scope& scope, Input table);

// A mutable hash table (tf.lookup.experimental.MutableHashTable; Keras's
// StringLookup after adapt): empty at first; Insert adds or overwrites,
// Remove drops keys, Export gives every key and value (in insertion
// order). Find and Import work on it as on HashTableV2.
Output MutableHashTableV2(const Scope& scope, DataType key_dtype,
                          DataType value_dtype,
                          absl::string_view shared_name = "");
// The same with a tensor of `value_shape` per key (values passed to Insert
// and Import are shaped keys + value_shape; Find's default is one value).
Output MutableHashTableOfTensorsV2(const Scope& scope, DataType key_dtype,
                                   DataType value_dtype,
                                   const TensorShape& value_shape,
                                   absl::string_view shared_name = "");
// A mutable table (tf.lookup.experimental.DenseHashTable) whose keys
// (empty_key's dtype, scalars) never equal empty_key or deleted_key.
Output MutableDenseHashTableV2(const Scope& scope, Input empty_key,
                               Input deleted_key, DataType value_dtype,
                               const TensorShape& value_shape = {});
Operation LookupTableInsertV2(const Scope& scope, Input table, Input keys,
                              Input values);
Operation LookupTableRemoveV2(const Scope& scope, Input table, Input keys);
// {keys, values}.
OutputList LookupTableExportV2(const Scope& scope, Input table,
                               DataType key_dtype, DataType value_dtype);

}  // namespace ops
}  // namespace dflow

#endif  // DFLOW_GRAPH_OPS_DATA_FLOW_OPS_H_
