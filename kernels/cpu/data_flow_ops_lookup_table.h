// The hash table behind TensorFlow's lookup ops: a resource of the session
// (like a variable) mapping keys of one dtype (string, int32 or int64) to
// values of one dtype and shape. One class serves both kinds TensorFlow
// has, since they store the same thing and differ only in who may write:
//
//  - static (HashTableV2: tf.lookup.StaticHashTable, feature columns'
//    vocabularies): filled once by an initializer, read-only after;
//  - mutable (MutableHashTableV2, MutableHashTableOfTensorsV2: Keras's
//    StringLookup/TextVectorization after adapt, tf.lookup.experimental.
//    MutableHashTable; MutableDenseHashTableV2: tf.lookup.experimental.
//    DenseHashTable, whose empty and deleted keys are reserved): starts
//    empty, LookupTableInsertV2/RemoveV2 change it.
//
// A checkpoint holds a table as its exported keys and values, which
// LookupTableImportV2 puts back.
#ifndef DFLOW_KERNELS_CPU_DATA_FLOW_OPS_LOOKUP_TABLE_H_
#define DFLOW_KERNELS_CPU_DATA_FLOW_OPS_LOOKUP_TABLE_H_

#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "graph/tensor.h"
#include "graph/tensor_shape.h"
#include "graph/types.h"
#include "runtime/variables.h"

namespace dflow {

class LookupTable : public ResourceBase {
 public:
  enum class Kind { kStatic, kMutable };

  // value_shape: each key's value ([] for a scalar per key).
  LookupTable(std::string name, Kind kind, DataType key_dtype,
              DataType value_dtype, TensorShape value_shape);

  std::string DebugString() const override;

  // Keys and values of the table's dtypes, values shaped keys + value_shape.
  absl::Status CheckKeysAndValues(const Tensor& keys,
                                  const Tensor& values) const;
  // Keys of the table's dtype.
  absl::Status CheckKeys(const Tensor& keys) const;

  // Static tables: fills the table once; again with the same contents is
  // fine (tables_initializer run twice), other contents an error.
  absl::Status Initialize(const Tensor& keys, const Tensor& values);
  // Replaces the contents (a checkpoint's restore).
  absl::Status Import(const Tensor& keys, const Tensor& values);
  // Mutable tables: adds or overwrites, and removes (absent keys are fine).
  absl::Status Insert(const Tensor& keys, const Tensor& values);
  absl::Status Remove(const Tensor& keys);
  // out (shaped keys + value_shape) = each key's value, or the default: one
  // value (value_shape) for all, or one per key (keys + value_shape).
  absl::Status Find(const Tensor& keys, const Tensor& default_value,
                    Tensor* out);
  // Every entry, in the order of their rows: insertion order, with rows of
  // removed keys reused (deterministic, unlike TensorFlow's hash order,
  // which no reader may rely on).
  void Export(Tensor* keys, Tensor* values);

  bool IsInitialized();
  int64_t LockedSize();

  // A dense table's empty and deleted keys (scalars of the key dtype): no
  // key may equal them, and Import skips them (TensorFlow's checkpoint of
  // a dense table holds its buckets, the unused ones under these keys).
  void SetReservedKeys(Tensor empty_key, Tensor deleted_key);
  bool has_reserved_keys() const { return has_reserved_keys_; }

  Kind kind() const { return kind_; }
  DataType key_dtype() const { return key_dtype_; }
  DataType value_dtype() const { return value_dtype_; }
  const TensorShape& value_shape() const { return value_shape_; }

 private:
  int64_t Size() const;
  // InvalidArgument when a key of `keys` is a reserved one.
  absl::Status CheckNotReserved(const Tensor& keys) const;
  bool IsReserved(const Tensor& keys, int64_t i) const;
  // The row of key i of `keys`, or -1.
  int64_t RowOf(const Tensor& keys, int64_t i) const;
  // Whether row `row` holds value i of `values`.
  bool RowEquals(int64_t row, const Tensor& values, int64_t i) const;
  bool ContainsAll(const Tensor& keys, const Tensor& values) const;
  void Clear();
  // Sets key i of `keys` to value i of `values` (a new row if it is new).
  void Put(const Tensor& keys, const Tensor& values, int64_t i);
  // Rows enough for `rows`, keeping the ones there.
  void Reserve(int64_t rows);

  const std::string name_;
  const Kind kind_;
  const DataType key_dtype_, value_dtype_;
  const TensorShape value_shape_;
  const int64_t value_size_;  // elements per value
  bool has_reserved_keys_ = false;
  Tensor empty_key_, deleted_key_;  // set once, before the table is shared
  std::mutex mu_;
  bool initialized_ = false;                                // mu_
  absl::flat_hash_map<int64_t, int64_t> int_rows_;          // mu_
  absl::flat_hash_map<std::string, int64_t> string_rows_;   // mu_
  Tensor values_;        // mu_: [capacity * value_size_] of value_dtype_
  Tensor keys_;          // mu_: [capacity] of key_dtype_, for Export
  std::vector<bool> used_;          // mu_: which rows hold an entry
  std::vector<int64_t> free_rows_;  // mu_: rows removed, to reuse
  int64_t rows_ = 0;                // mu_: rows handed out so far
};

}  // namespace dflow

#endif  // DFLOW_KERNELS_CPU_DATA_FLOW_OPS_LOOKUP_TABLE_H_
