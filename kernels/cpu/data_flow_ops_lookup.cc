// CPU kernels of the hash-table ops (graph/ops/data_flow_ops_lookup.cc),
// what tf.lookup.StaticHashTable and feature columns' vocabularies run.
// The table is a resource of the session, like a queue: HashTableV2 finds
// or makes it in the VariableStore under container/shared_name (or its node
// name), so it keeps its contents from one Run to the next.
// InitializeTableV2 fills it once (again with the same data is a no-op, as
// TensorFlow's tables_initializer run twice); LookupTableImportV2 replaces
// the contents; LookupTableFindV2 maps keys to values or the default.
// Keys are strings or integers (int32, int64); values any dtype.
#include <cstdint>
#include <cstring>
#include <memory>
#include <mutex>
#include <string>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "graph/tensor.h"
#include "graph/types.h"
#include "kernels/cpu/kernel_util_array.h"
#include "kernels/cpu/kernel_util_resource.h"
#include "runtime/kernel_registry.h"
#include "runtime/op_kernel.h"
#include "runtime/variables.h"

namespace dflow {
namespace {

using array_kernels::CopyData;
using array_kernels::VisitCopyType;

bool IsIntegerKey(DataType t) { return t == DT_INT32 || t == DT_INT64; }

int64_t IntKey(const Tensor& keys, int64_t i) {
  return keys.dtype() == DT_INT32 ? keys.data<int32_t>()[i]
                                  : keys.data<int64_t>()[i];
}

std::string KeyText(const Tensor& keys, int64_t i) {
  return keys.dtype() == DT_STRING
             ? absl::StrCat("'", keys.data<std::string>()[i], "'")
             : absl::StrCat(IntKey(keys, i));
}

// Whether element i of `a` and element j of `b` (same dtype) are equal.
bool SameElement(const Tensor& a, int64_t i, const Tensor& b, int64_t j) {
  bool same = false;
  VisitCopyType(a.dtype(), [&](auto* tag) {
    using T = std::remove_pointer_t<decltype(tag)>;
    if constexpr (std::is_same_v<T, std::string>) {
      same = CopyData<T>(a)[i] == CopyData<T>(b)[j];
    } else {
      same =
          std::memcmp(CopyData<T>(a) + i, CopyData<T>(b) + j, sizeof(T)) == 0;
    }
  });
  return same;
}

// out[o] = from[i].
void CopyElement(const Tensor& from, int64_t i, Tensor* out, int64_t o) {
  VisitCopyType(from.dtype(), [&](auto* tag) {
    using T = std::remove_pointer_t<decltype(tag)>;
    CopyData<T>(out)[o] = CopyData<T>(from)[i];
  });
}

class HashTable : public ResourceBase {
 public:
  HashTable(std::string name, DataType key_dtype, DataType value_dtype)
      : name_(std::move(name)),
        key_dtype_(key_dtype),
        value_dtype_(value_dtype) {}

  std::string DebugString() const override {
    return absl::StrCat("HashTable '", name_, "' (", DataTypeName(key_dtype_),
                        " -> ", DataTypeName(value_dtype_), ")");
  }

  // Keys and values of the table's dtypes and of one size.
  absl::Status CheckArgs(const Tensor& keys, const Tensor& values) const {
    if (keys.dtype() != key_dtype_ || values.dtype() != value_dtype_) {
      return absl::InvalidArgumentError(absl::StrCat(
          "Conflicting key/value dtypes ", DataTypeName(keys.dtype()), "->",
          DataTypeName(values.dtype()), " with ", DebugString()));
    }
    if (keys.shape() != values.shape()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "keys and values must have the same shape: ", keys.shape().ToString(),
          " vs. ", values.shape().ToString()));
    }
    return absl::OkStatus();
  }

  // Initialize: once; again with the same contents is fine.
  absl::Status Initialize(const Tensor& keys, const Tensor& values) {
    std::lock_guard<std::mutex> lock(mu_);
    if (initialized_) {
      if (keys.NumElements() == Size() && ContainsAll(keys, values)) {
        return absl::OkStatus();
      }
      return absl::FailedPreconditionError(absl::StrCat(
          DebugString(), " was already initialized with different data"));
    }
    return Fill(keys, values);
  }

  absl::Status Import(const Tensor& keys, const Tensor& values) {
    std::lock_guard<std::mutex> lock(mu_);
    return Fill(keys, values);
  }

  absl::Status Find(const Tensor& keys, const Tensor& default_value,
                    Tensor* out) {
    std::lock_guard<std::mutex> lock(mu_);
    if (!initialized_) {
      return absl::FailedPreconditionError(absl::StrCat(
          "Table not initialized: ", DebugString(),
          " has not been filled; run its initializer (tables_initializer) "
          "first"));
    }
    for (int64_t i = 0; i < keys.NumElements(); ++i) {
      const int64_t at = IndexOf(keys, i);
      if (at < 0) {
        CopyElement(default_value, 0, out, i);
      } else {
        CopyElement(values_, at, out, i);
      }
    }
    return absl::OkStatus();
  }

  int64_t LockedSize() {
    std::lock_guard<std::mutex> lock(mu_);
    return Size();
  }

  DataType key_dtype() const { return key_dtype_; }
  DataType value_dtype() const { return value_dtype_; }

 private:
  int64_t Size() const {
    return static_cast<int64_t>(
        IsIntegerKey(key_dtype_) ? int_index_.size() : string_index_.size());
  }

  // Where key i of `keys` is in values_, or -1.
  int64_t IndexOf(const Tensor& keys, int64_t i) const {
    if (IsIntegerKey(key_dtype_)) {
      auto it = int_index_.find(IntKey(keys, i));
      return it == int_index_.end() ? -1 : it->second;
    }
    auto it = string_index_.find(keys.data<std::string>()[i]);
    return it == string_index_.end() ? -1 : it->second;
  }

  bool ContainsAll(const Tensor& keys, const Tensor& values) const {
    for (int64_t i = 0; i < keys.NumElements(); ++i) {
      const int64_t at = IndexOf(keys, i);
      if (at < 0 || !SameElement(values_, at, values, i)) return false;
    }
    return true;
  }

  absl::Status Fill(const Tensor& keys, const Tensor& values) {
    int_index_.clear();
    string_index_.clear();
    // A copy: the table outlives the step whose tensors filled it.
    values_ = Tensor(values.dtype(), TensorShape({values.NumElements()}));
    for (int64_t i = 0; i < values.NumElements(); ++i) {
      CopyElement(values, i, &values_, i);
    }
    for (int64_t i = 0; i < keys.NumElements(); ++i) {
      int64_t at = IndexOf(keys, i);
      if (at >= 0) {
        if (SameElement(values_, at, values, i)) continue;
        initialized_ = false;
        return absl::FailedPreconditionError(
            absl::StrCat("HashTable has different value for same key. Key ",
                         KeyText(keys, i), " appears twice (elements ", at,
                         " and ", i, ") with different values"));
      }
      if (IsIntegerKey(key_dtype_)) {
        int_index_.emplace(IntKey(keys, i), i);
      } else {
        string_index_.emplace(keys.data<std::string>()[i], i);
      }
    }
    initialized_ = true;
    return absl::OkStatus();
  }

  const std::string name_;
  const DataType key_dtype_, value_dtype_;
  std::mutex mu_;
  bool initialized_ = false;                                // mu_
  absl::flat_hash_map<int64_t, int64_t> int_index_;         // mu_
  absl::flat_hash_map<std::string, int64_t> string_index_;  // mu_
  Tensor values_;                                           // mu_
};

class HashTableOp : public OpKernel {
 public:
  explicit HashTableOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("key_dtype", &key_dtype_));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("value_dtype", &value_dtype_));
    OP_REQUIRES(
        ctx, key_dtype_ == DT_STRING || IsIntegerKey(key_dtype_),
        absl::UnimplementedError(absl::StrCat(
            "HashTableV2 with ", DataTypeName(key_dtype_),
            " keys is not supported: use string, int32 or int64 keys")));
    // The key is shared_name, or the node's name when it is empty (what
    // use_node_name_sharing asks for too, so that attr changes nothing).
    key_ = ResourceKey(ctx);
  }

  void Compute(OpKernelContext* ctx) override {
    absl::StatusOr<Var*> var =
        LookupOrCreateResource<HashTable>(ctx, key_, "hash table", [this] {
          return std::make_unique<HashTable>(key_, key_dtype_, value_dtype_);
        });
    OP_REQUIRES_OK(ctx, var.status());
    HashTable* table = dynamic_cast<HashTable*>((*var)->resource());
    OP_REQUIRES(ctx,
                table->key_dtype() == key_dtype_ &&
                    table->value_dtype() == value_dtype_,
                absl::InvalidArgumentError(absl::StrCat(
                    "shared_name '", key_, "' names ", table->DebugString(),
                    ", not a ", DataTypeName(key_dtype_), " -> ",
                    DataTypeName(value_dtype_), " table")));
    ctx->set_output_var(0, *var);
  }
  bool IsExpensive() const override { return false; }

 private:
  DataType key_dtype_ = DT_INVALID, value_dtype_ = DT_INVALID;
  std::string key_;
};

absl::StatusOr<HashTable*> TableOf(OpKernelContext* ctx) {
  HashTable* table = ResourceOfInput<HashTable>(ctx, 0);
  if (table == nullptr) {
    return absl::InvalidArgumentError(
        "input 0 is not the handle of a hash table (connect it to a "
        "HashTableV2)");
  }
  return table;
}

// InitializeTableV2 (once) and LookupTableImportV2 (replaces).
class FillTableOp : public OpKernel {
 public:
  FillTableOp(OpKernelConstruction* ctx, bool import)
      : OpKernel(ctx), import_(import) {}

  void Compute(OpKernelContext* ctx) override {
    absl::StatusOr<HashTable*> table = TableOf(ctx);
    OP_REQUIRES_OK(ctx, table.status());
    const Tensor& keys = ctx->input(1);
    const Tensor& values = ctx->input(2);
    OP_REQUIRES_OK(ctx, (*table)->CheckArgs(keys, values));
    OP_REQUIRES_OK(ctx, import_ ? (*table)->Import(keys, values)
                                : (*table)->Initialize(keys, values));
  }

 private:
  const bool import_;
};

class InitializeTableOp : public FillTableOp {
 public:
  explicit InitializeTableOp(OpKernelConstruction* ctx)
      : FillTableOp(ctx, false) {}
};
class LookupTableImportOp : public FillTableOp {
 public:
  explicit LookupTableImportOp(OpKernelConstruction* ctx)
      : FillTableOp(ctx, true) {}
};

class LookupTableFindOp : public OpKernel {
 public:
  explicit LookupTableFindOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}

  void Compute(OpKernelContext* ctx) override {
    absl::StatusOr<HashTable*> table = TableOf(ctx);
    OP_REQUIRES_OK(ctx, table.status());
    const Tensor& keys = ctx->input(1);
    const Tensor& default_value = ctx->input(2);
    OP_REQUIRES(ctx,
                keys.dtype() == (*table)->key_dtype() &&
                    default_value.dtype() == (*table)->value_dtype(),
                absl::InvalidArgumentError(absl::StrCat(
                    "Conflicting key/value dtypes ", DataTypeName(keys.dtype()),
                    "->", DataTypeName(default_value.dtype()), " with ",
                    (*table)->DebugString())));
    OP_REQUIRES(ctx, default_value.NumElements() == 1,
                absl::InvalidArgumentError(
                    absl::StrCat("Expected shape [] for default value but got ",
                                 default_value.shape().ToString())));
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, keys.shape(), &out));
    OP_REQUIRES_OK(ctx, (*table)->Find(keys, default_value, out));
  }
};

class LookupTableSizeOp : public OpKernel {
 public:
  explicit LookupTableSizeOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}

  void Compute(OpKernelContext* ctx) override {
    absl::StatusOr<HashTable*> table = TableOf(ctx);
    OP_REQUIRES_OK(ctx, table.status());
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape({}), &out));
    *out->data<int64_t>() = (*table)->LockedSize();
  }
  bool IsExpensive() const override { return false; }
};

DFLOW_REGISTER_KERNEL(KernelDefBuilder("HashTableV2").Device(kDeviceCpu),
                      HashTableOp);
DFLOW_REGISTER_KERNEL(KernelDefBuilder("InitializeTableV2").Device(kDeviceCpu),
                      InitializeTableOp);
DFLOW_REGISTER_KERNEL(
    KernelDefBuilder("LookupTableImportV2").Device(kDeviceCpu),
    LookupTableImportOp);
DFLOW_REGISTER_KERNEL(KernelDefBuilder("LookupTableFindV2").Device(kDeviceCpu),
                      LookupTableFindOp);
DFLOW_REGISTER_KERNEL(KernelDefBuilder("LookupTableSizeV2").Device(kDeviceCpu),
                      LookupTableSizeOp);

}  // namespace
}  // namespace dflow
