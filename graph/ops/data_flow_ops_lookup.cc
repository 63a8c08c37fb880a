// Schemas and wrappers of TensorFlow 2.21's hash-table ops, what
// tf.lookup.StaticHashTable, StaticVocabularyTable, feature columns'
// vocabularies and Keras's StringLookup/TextVectorization write:
// HashTableV2 (static) and MutableHashTableV2 / MutableHashTableOfTensorsV2
// make the table (a resource of the session, like a variable),
// InitializeTableV2 / LookupTableImportV2 fill it
// (InitializeTableFromTextFileV2 from a vocabulary file),
// LookupTableInsertV2 / RemoveV2 change a mutable one, LookupTableFindV2,
// SizeV2 and ExportV2 read it (kernels/cpu/data_flow_ops_lookup.cc).
#include <string>

#include "absl/strings/str_cat.h"

#include "graph/graph.h"
#include "graph/op_registry.h"
#include "graph/ops/data_flow_ops.h"
#include "graph/shape_inference.h"

namespace dflow {
namespace {

absl::Status HandleShape(InferenceContext* c) {
  c->set_output(0, TensorShape({}));
  return absl::OkStatus();
}

// Import, initialize and insert: the handle is a scalar, values' shape
// starts with the keys' (a table of vector values adds its value shape).
absl::Status FillShape(InferenceContext* c) {
  TensorShape unused;
  DFLOW_RETURN_IF_ERROR(c->WithRank(c->input(0), 0, "table_handle", &unused));
  const TensorShape& keys = c->input(1);
  const TensorShape& values = c->input(2);
  if (keys.unknown_rank() || values.unknown_rank()) return absl::OkStatus();
  bool fits = values.rank() >= keys.rank();
  for (int i = 0; fits && i < keys.rank(); ++i) {
    fits = keys.dim(i) < 0 || values.dim(i) < 0 || keys.dim(i) == values.dim(i);
  }
  if (!fits) {
    return absl::InvalidArgumentError(absl::StrCat(
        "keys and values do not fit: the values' shape ", values.ToString(),
        " must start with the keys' shape ", keys.ToString()));
  }
  return absl::OkStatus();
}

// One value per key: the keys' shape for a scalar default (a table of
// scalars); a table of vectors adds a value shape inference cannot see.
absl::Status FindShape(InferenceContext* c) {
  TensorShape unused;
  DFLOW_RETURN_IF_ERROR(c->WithRank(c->input(0), 0, "table_handle", &unused));
  const TensorShape& default_value = c->input(2);
  c->set_output(0, !default_value.unknown_rank() && default_value.rank() == 0
                       ? c->input(1)
                       : TensorShape::Unknown());
  return absl::OkStatus();
}

// Remove: the handle is a scalar.
absl::Status HandleInputShape(InferenceContext* c) {
  TensorShape unused;
  return c->WithRank(c->input(0), 0, "table_handle", &unused);
}

// Export: keys [n], values [n, value shape...] (n known only at run time).
absl::Status ExportShape(InferenceContext* c) {
  DFLOW_RETURN_IF_ERROR(HandleInputShape(c));
  c->set_output(0, TensorShape({TensorShape::kUnknownDim}));
  c->set_output(1, TensorShape::Unknown());
  return absl::OkStatus();
}

DFLOW_REGISTER_OP("HashTableV2")
    .Output("table_handle: resource")
    .Attr("container: string = ''")
    .Attr("shared_name: string = ''")
    .Attr("use_node_name_sharing: bool = false")
    .Attr("key_dtype: type")
    .Attr("value_dtype: type")
    .SetIsStateful()
    .SetShapeFn(HandleShape)
    .Doc("A hash table of the session, filled once by InitializeTableV2.");

DFLOW_REGISTER_OP("MutableHashTableV2")
    .Output("table_handle: resource")
    .Attr("container: string = ''")
    .Attr("shared_name: string = ''")
    .Attr("use_node_name_sharing: bool = false")
    .Attr("key_dtype: type")
    .Attr("value_dtype: type")
    .SetIsStateful()
    .SetShapeFn(HandleShape)
    .Doc("A hash table of the session, empty at first, changed by "
         "LookupTableInsertV2 and LookupTableRemoveV2.");

DFLOW_REGISTER_OP("MutableHashTableOfTensorsV2")
    .Output("table_handle: resource")
    .Attr("container: string = ''")
    .Attr("shared_name: string = ''")
    .Attr("use_node_name_sharing: bool = false")
    .Attr("key_dtype: type")
    .Attr("value_dtype: type")
    .Attr("value_shape: shape = {}")
    .SetIsStateful()
    .SetShapeFn(HandleShape)
    .Doc("A mutable hash table whose values are tensors of value_shape.");

// The empty and deleted keys are scalars (dflow's dense tables have
// scalar keys; TensorFlow's may have vector keys of empty_key's shape).
absl::Status DenseTableShape(InferenceContext* c) {
  TensorShape unused;
  DFLOW_RETURN_IF_ERROR(c->WithRank(c->input(0), 0, "empty_key", &unused));
  DFLOW_RETURN_IF_ERROR(c->WithRank(c->input(1), 0, "deleted_key", &unused));
  return HandleShape(c);
}

DFLOW_REGISTER_OP("MutableDenseHashTableV2")
    .Input("empty_key: key_dtype")
    .Input("deleted_key: key_dtype")
    .Output("table_handle: resource")
    .Attr("container: string = ''")
    .Attr("shared_name: string = ''")
    .Attr("use_node_name_sharing: bool = false")
    .Attr("key_dtype: type")
    .Attr("value_dtype: type")
    .Attr("value_shape: shape = {}")
    .Attr("initial_num_buckets: int = 131072")
    .Attr("max_load_factor: float = 0.8")
    .SetIsStateful()
    .SetShapeFn(DenseTableShape)
    .Doc("A mutable hash table (tf.lookup.experimental.DenseHashTable) "
         "whose empty_key and deleted_key no key may equal.");

DFLOW_REGISTER_OP("LookupTableInsertV2")
    .Input("table_handle: resource")
    .Input("keys: Tin")
    .Input("values: Tout")
    .Attr("Tin: type")
    .Attr("Tout: type")
    .SetIsStateful()
    .SetShapeFn(FillShape)
    .Doc("Adds keys -> values to a mutable table, overwriting keys there.");

DFLOW_REGISTER_OP("LookupTableRemoveV2")
    .Input("table_handle: resource")
    .Input("keys: Tin")
    .Attr("Tin: type")
    .SetIsStateful()
    .SetShapeFn(HandleInputShape)
    .Doc("Removes the keys from a mutable table (absent keys are ignored).");

DFLOW_REGISTER_OP("LookupTableExportV2")
    .Input("table_handle: resource")
    .Output("keys: Tkeys")
    .Output("values: Tvalues")
    .Attr("Tkeys: type")
    .Attr("Tvalues: type")
    .SetIsStateful()
    .SetShapeFn(ExportShape)
    .Doc("Every key of the table and its value (a checkpoint's save).");

DFLOW_REGISTER_OP("LookupTableImportV2")
    .Input("table_handle: resource")
    .Input("keys: Tin")
    .Input("values: Tout")
    .Attr("Tin: type")
    .Attr("Tout: type")
    .SetIsStateful()
    .SetShapeFn(FillShape)
    .Doc("Replaces the table's contents with keys -> values.");

DFLOW_REGISTER_OP("LookupTableFindV2")
    .Input("table_handle: resource")
    .Input("keys: Tin")
    .Input("default_value: Tout")
    .Output("values: Tout")
    .Attr("Tin: type")
    .Attr("Tout: type")
    .SetIsStateful()
    .SetShapeFn(FindShape)
    .Doc("Each key's value, or default_value for a key not in the table.");

DFLOW_REGISTER_OP("LookupTableSizeV2")
    .Input("table_handle: resource")
    .Output("size: int64")
    .SetIsStateful()
    .SetShapeFn(shape_fns::ScalarShape)
    .Doc("How many keys the table holds.");

DFLOW_REGISTER_OP("InitializeTableV2")
    .Input("table_handle: resource")
    .Input("keys: Tkey")
    .Input("values: Tval")
    .Attr("Tkey: type")
    .Attr("Tval: type")
    .SetIsStateful()
    .SetShapeFn(FillShape)
    .Doc("Fills the table with keys -> values, once.");

// The filename is a scalar.
absl::Status FromTextFileShape(InferenceContext* c) {
  TensorShape unused;
  DFLOW_RETURN_IF_ERROR(c->WithRank(c->input(0), 0, "table_handle", &unused));
  return c->WithRank(c->input(1), 0, "filename", &unused);
}

DFLOW_REGISTER_OP("InitializeTableFromTextFileV2")
    .Input("table_handle: resource")
    .Input("filename: string")
    .Attr("key_index: int >= -2")
    .Attr("value_index: int >= -2")
    .Attr("vocab_size: int >= -1 = -1")
    .Attr("delimiter: string = '\t'")
    .Attr("offset: int = 0")
    .SetIsStateful()
    .SetShapeFn(FromTextFileShape)
    .Doc(
        "Fills the table from a text file's lines: key and value are the "
        "whole line (-2), the line number (-1) or a delimited column.");

}  // namespace

namespace ops {

Output HashTableV2(const Scope& scope, DataType key_dtype, DataType value_dtype,
                   absl::string_view shared_name) {
  Operation op = OpBuilder(scope, "HashTableV2")
                     .Attr("key_dtype", key_dtype)
                     .Attr("value_dtype", value_dtype)
                     .Attr("shared_name", std::string(shared_name))
                     .Finalize();
  return op.valid() ? op.output(0) : Output();
}

Output MutableHashTableV2(const Scope& scope, DataType key_dtype,
                          DataType value_dtype,
                          absl::string_view shared_name) {
  Operation op = OpBuilder(scope, "MutableHashTableV2")
                     .Attr("key_dtype", key_dtype)
                     .Attr("value_dtype", value_dtype)
                     .Attr("shared_name", std::string(shared_name))
                     .Finalize();
  return op.valid() ? op.output(0) : Output();
}

Output MutableHashTableOfTensorsV2(const Scope& scope, DataType key_dtype,
                                   DataType value_dtype,
                                   const TensorShape& value_shape,
                                   absl::string_view shared_name) {
  Operation op = OpBuilder(scope, "MutableHashTableOfTensorsV2")
                     .Attr("key_dtype", key_dtype)
                     .Attr("value_dtype", value_dtype)
                     .Attr("value_shape", value_shape)
                     .Attr("shared_name", std::string(shared_name))
                     .Finalize();
  return op.valid() ? op.output(0) : Output();
}

Output MutableDenseHashTableV2(const Scope& scope, Input empty_key,
                               Input deleted_key, DataType value_dtype,
                               const TensorShape& value_shape) {
  Operation op = OpBuilder(scope, "MutableDenseHashTableV2")
                     .Input(empty_key)
                     .Input(deleted_key)
                     .Attr("value_dtype", value_dtype)
                     .Attr("value_shape", value_shape)
                     .Finalize();
  return op.valid() ? op.output(0) : Output();
}

Operation LookupTableInsertV2(const Scope& scope, Input table, Input keys,
                              Input values) {
  return OpBuilder(scope, "LookupTableInsertV2")
      .Input(table)
      .Input(keys)
      .Input(values)
      .Finalize();
}

Operation LookupTableRemoveV2(const Scope& scope, Input table, Input keys) {
  return OpBuilder(scope, "LookupTableRemoveV2")
      .Input(table)
      .Input(keys)
      .Finalize();
}

OutputList LookupTableExportV2(const Scope& scope, Input table,
                               DataType key_dtype, DataType value_dtype) {
  Operation op = OpBuilder(scope, "LookupTableExportV2")
                     .Input(table)
                     .Attr("Tkeys", key_dtype)
                     .Attr("Tvalues", value_dtype)
                     .Finalize();
  return op.valid() ? OutputList{op.output(0), op.output(1)} : OutputList{};
}

Operation InitializeTableV2(const Scope& scope, Input table, Input keys,
                            Input values) {
  return OpBuilder(scope, "InitializeTableV2")
      .Input(table)
      .Input(keys)
      .Input(values)
      .Finalize();
}

Operation LookupTableImportV2(const Scope& scope, Input table, Input keys,
                              Input values) {
  return OpBuilder(scope, "LookupTableImportV2")
      .Input(table)
      .Input(keys)
      .Input(values)
      .Finalize();
}

Output LookupTableFindV2(const Scope& scope, Input table, Input keys,
                         Input default_value) {
  Operation op = OpBuilder(scope, "LookupTableFindV2")
                     .Input(table)
                     .Input(keys)
                     .Input(default_value)
                     .Finalize();
  return op.valid() ? op.output(0) : Output();
}

Output LookupTableSizeV2(const Scope& scope, Input table) {
  Operation op = OpBuilder(scope, "LookupTableSizeV2").Input(table).Finalize();
  return op.valid() ? op.output(0) : Output();
}

Operation InitializeTableFromTextFileV2(const Scope& scope, Input table,
                                        Input filename, int64_t key_index,
                                        int64_t value_index,
                                        absl::string_view delimiter) {
  return OpBuilder(scope, "InitializeTableFromTextFileV2")
      .Input(table)
      .Input(filename)
      .Attr("key_index", key_index)
      .Attr("value_index", value_index)
      .Attr("delimiter", std::string(delimiter))
      .Finalize();
}

}  // namespace ops
}  // namespace dflow
