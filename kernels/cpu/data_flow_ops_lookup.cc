// CPU kernels of the hash-table ops (graph/ops/data_flow_ops_lookup.cc),
// what tf.lookup.StaticHashTable and feature columns' vocabularies run.
// The table is a resource of the session, like a queue: HashTableV2 finds
// or makes it in the VariableStore under container/shared_name (or its node
// name), so it keeps its contents from one Run to the next.
// InitializeTableV2 fills it once (again with the same data is a no-op, as
// TensorFlow's tables_initializer run twice); LookupTableImportV2 replaces
// the contents; InitializeTableFromTextFileV2 fills it from a vocabulary
// file; LookupTableFindV2 maps keys to values or the default.
// Keys are strings or integers (int32, int64); values any dtype.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"
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

  bool IsInitialized() {
    std::lock_guard<std::mutex> lock(mu_);
    return initialized_;
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

// InitializeTableFromTextFileV2: one entry per line of a text file (a
// vocabulary file), the key and the value each the whole line (-2), the
// line number plus `offset` (-1) or a column split at `delimiter`. A table
// already filled is left as it is (TensorFlow's behaviour for files).
class InitializeTableFromTextFileOp : public OpKernel {
 public:
  static constexpr int64_t kWholeLine = -2;
  static constexpr int64_t kLineNumber = -1;

  explicit InitializeTableFromTextFileOp(OpKernelConstruction* ctx)
      : OpKernel(ctx) {
    std::string delimiter;
    OP_REQUIRES_OK(ctx, ctx->GetAttr("key_index", &key_index_));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("value_index", &value_index_));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("vocab_size", &vocab_size_));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("delimiter", &delimiter));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("offset", &offset_));
    OP_REQUIRES(ctx, delimiter.size() == 1,
                absl::InvalidArgumentError(absl::StrCat(
                    "delimiter should be only 1 char, got '", delimiter, "'")));
    delimiter_ = delimiter[0];
  }

  void Compute(OpKernelContext* ctx) override {
    absl::StatusOr<HashTable*> table = TableOf(ctx);
    OP_REQUIRES_OK(ctx, table.status());
    const Tensor& filename_t = ctx->input(1);
    OP_REQUIRES(ctx, filename_t.shape().rank() == 0,
                absl::InvalidArgumentError(
                    absl::StrCat("filename should be a single string, but got ",
                                 filename_t.shape().ToString())));
    OP_REQUIRES_OK(ctx, CheckIndex(key_index_, (*table)->key_dtype(), "Key"));
    OP_REQUIRES_OK(ctx,
                   CheckIndex(value_index_, (*table)->value_dtype(), "Value"));
    if ((*table)->IsInitialized()) return;
    const std::string& filename = *filename_t.data<std::string>();
    std::ifstream file(filename, std::ios::binary);
    OP_REQUIRES(ctx, file.good(),
                absl::NotFoundError(absl::StrCat(
                    "could not open the vocabulary file '", filename, "'")));
    std::vector<std::string> lines;
    std::string line;
    while (
        (vocab_size_ < 0 || static_cast<int64_t>(lines.size()) < vocab_size_) &&
        std::getline(file, line)) {
      if (!line.empty() && line.back() == '\r') line.pop_back();
      lines.push_back(std::move(line));
    }
    const int64_t n = static_cast<int64_t>(lines.size());
    Tensor keys((*table)->key_dtype(), TensorShape({n}));
    Tensor values((*table)->value_dtype(), TensorShape({n}));
    const size_t columns =
        static_cast<size_t>(std::max(key_index_, value_index_) + 1);
    for (int64_t i = 0; i < n; ++i) {
      // Line by line, as TensorFlow reads: the first bad line is reported.
      OP_REQUIRES(ctx, !lines[i].empty(),
                  absl::InvalidArgumentError(
                      absl::StrCat("Invalid content in ", filename,
                                   ": empty line found at line ", i)));
      std::vector<absl::string_view> tokens;
      if (columns > 0) {
        tokens = absl::StrSplit(lines[i], delimiter_);
        OP_REQUIRES(ctx, tokens.size() >= columns,
                    absl::InvalidArgumentError(absl::StrCat(
                        "Invalid number of columns in ", filename, " line ", i,
                        " (", lines[i], ") : expected at least ", columns,
                        " got ", tokens.size())));
      }
      OP_REQUIRES_OK(ctx, Field(lines[i], tokens, i, key_index_, &keys));
      OP_REQUIRES_OK(ctx, Field(lines[i], tokens, i, value_index_, &values));
    }
    OP_REQUIRES(
        ctx,
        vocab_size_ < 0 || static_cast<int64_t>(lines.size()) == vocab_size_,
        absl::InvalidArgumentError(
            absl::StrCat("Invalid vocab_size in ", filename, ": expected ",
                         vocab_size_, " but got ", lines.size())));
    OP_REQUIRES_OK(ctx, (*table)->Initialize(keys, values));
  }

 private:
  static absl::Status CheckIndex(int64_t index, DataType dtype,
                                 const char* what) {
    if (index == kLineNumber && dtype != DT_INT64) {
      return absl::InvalidArgumentError(
          absl::StrCat(what, " index for line number requires table ", what,
                       " dtype of int64, got ", DataTypeName(dtype)));
    }
    if (dtype != DT_STRING && dtype != DT_INT32 && dtype != DT_INT64 &&
        dtype != DT_FLOAT && dtype != DT_DOUBLE) {
      return absl::InvalidArgumentError(
          absl::StrCat("Data type ", DataTypeName(dtype), " not supported."));
    }
    if (index == kWholeLine && (dtype == DT_FLOAT || dtype == DT_DOUBLE)) {
      return absl::InvalidArgumentError(
          absl::StrCat(what,
                       " index for whole line requires string or "
                       "integer table ",
                       what, ", got ", DataTypeName(dtype)));
    }
    return absl::OkStatus();
  }

  // Element i of `out` from the line (line number, whole line or a column).
  absl::Status Field(const std::string& line,
                     const std::vector<absl::string_view>& tokens, int64_t i,
                     int64_t index, Tensor* out) const {
    if (index == kLineNumber) {
      out->data<int64_t>()[i] = i + offset_;
      return absl::OkStatus();
    }
    const absl::string_view token =
        index == kWholeLine ? absl::string_view(line) : tokens[index];
    bool ok = true;
    switch (out->dtype()) {
      case DT_STRING:
        out->data<std::string>()[i] = std::string(token);
        break;
      case DT_INT32:
        ok = absl::SimpleAtoi(token, &out->data<int32_t>()[i]);
        // TensorFlow adds the offset to int32 fields too.
        out->data<int32_t>()[i] += static_cast<int32_t>(offset_);
        break;
      case DT_INT64:
        ok = absl::SimpleAtoi(token, &out->data<int64_t>()[i]);
        break;
      case DT_FLOAT:
        ok = absl::SimpleAtof(token, &out->data<float>()[i]);
        break;
      default:
        ok = absl::SimpleAtod(token, &out->data<double>()[i]);
    }
    if (!ok) {
      return absl::InvalidArgumentError(
          absl::StrCat("Field ", token, " in line ", i, " is not a valid ",
                       DataTypeName(out->dtype()), "."));
    }
    return absl::OkStatus();
  }

  int64_t key_index_ = 0, value_index_ = 0, vocab_size_ = -1, offset_ = 0;
  char delimiter_ = '\t';
};

DFLOW_REGISTER_KERNEL(
    KernelDefBuilder("InitializeTableFromTextFileV2").Device(kDeviceCpu),
    InitializeTableFromTextFileOp);
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
