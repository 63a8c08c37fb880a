// CPU kernels of the hash-table ops (graph/ops/data_flow_ops_lookup.cc),
// what tf.lookup's tables, feature columns' vocabularies and Keras's
// StringLookup/TextVectorization run. The table (data_flow_ops_lookup_table.h)
// is a resource of the session, like a queue: HashTableV2 and the mutable
// table ops find or make it in the VariableStore under
// container/shared_name (or their node name), so it keeps its contents from
// one Run to the next. InitializeTableV2 fills a static table once (again
// with the same data is a no-op, as TensorFlow's tables_initializer run
// twice); LookupTableImportV2 replaces the contents (a checkpoint's
// restore); InitializeTableFromTextFileV2 fills it from a vocabulary file;
// LookupTableInsertV2/RemoveV2 change a mutable table; LookupTableFindV2
// maps keys to values or the default; ExportV2 gives every entry.
// Keys are strings or integers (int32, int64); values any dtype.
#include <algorithm>
#include <cstdint>
#include <fstream>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"
#include "graph/tensor.h"
#include "graph/types.h"
#include "kernels/cpu/data_flow_ops_lookup_table.h"
#include "kernels/cpu/kernel_util_resource.h"
#include "runtime/kernel_registry.h"
#include "runtime/op_kernel.h"
#include "runtime/variables.h"

namespace dflow {
namespace {

bool IsKeyDtype(DataType t) {
  return t == DT_STRING || t == DT_INT32 || t == DT_INT64;
}

// Whether two scalar keys (string, int32 or int64) are equal.
bool SameScalarKey(const Tensor& a, const Tensor& b) {
  if (a.dtype() == DT_STRING) {
    return *a.data<std::string>() == *b.data<std::string>();
  }
  if (a.dtype() == DT_INT32) return *a.data<int32_t>() == *b.data<int32_t>();
  return *a.data<int64_t>() == *b.data<int64_t>();
}

// HashTableV2 (static), MutableHashTableV2, MutableHashTableOfTensorsV2 and
// MutableDenseHashTableV2: the handle of the session's table under this
// node's key, made on first use.
class TableHandleOp : public OpKernel {
 public:
  explicit TableHandleOp(OpKernelConstruction* ctx)
      : OpKernel(ctx),
        kind_(ctx->node().op() == "HashTableV2" ? LookupTable::Kind::kStatic
                                              : LookupTable::Kind::kMutable) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("key_dtype", &key_dtype_));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("value_dtype", &value_dtype_));
    if (ctx->node().op() != "HashTableV2" &&
        ctx->node().op() != "MutableHashTableV2") {
      OP_REQUIRES_OK(ctx, ctx->GetAttr("value_shape", &value_shape_));
      OP_REQUIRES(ctx, value_shape_.IsFullyDefined(),
                  absl::InvalidArgumentError(absl::StrCat(
                      "value_shape ", value_shape_.ToString(),
                      " must be fully defined: give every dimension")));
    }
    OP_REQUIRES(ctx, IsKeyDtype(key_dtype_),
                absl::UnimplementedError(absl::StrCat(
                    ctx->node().op(), " with ", DataTypeName(key_dtype_),
                    " keys is not supported: use string, int32 or int64 "
                    "keys")));
    // The key is shared_name, or the node's name when it is empty (what
    // use_node_name_sharing asks for too, so that attr changes nothing).
    key_ = ResourceKey(ctx);
  }

  void Compute(OpKernelContext* ctx) override {
    const bool dense = type_string() == "MutableDenseHashTableV2";
    if (dense) {
      for (int i : {0, 1}) {
        OP_REQUIRES(ctx, ctx->input(i).shape().rank() == 0,
                    absl::UnimplementedError(absl::StrCat(
                        i == 0 ? "empty_key" : "deleted_key", " has shape ",
                        ctx->input(i).shape().ToString(),
                        "; dflow's dense tables take scalar keys only")));
      }
      OP_REQUIRES(ctx,
                  !SameScalarKey(ctx->input(0), ctx->input(1)),
                  absl::InvalidArgumentError(
                      "Empty and deleted keys must have different values"));
    }
    absl::StatusOr<Var*> var = LookupOrCreateResource<LookupTable>(
        ctx, key_, "hash table", [&, this] {
          auto table = std::make_unique<LookupTable>(
              key_, kind_, key_dtype_, value_dtype_, value_shape_);
          if (dense) table->SetReservedKeys(ctx->input(0), ctx->input(1));
          return table;
        });
    OP_REQUIRES_OK(ctx, var.status());
    LookupTable* table = dynamic_cast<LookupTable*>((*var)->resource());
    OP_REQUIRES(ctx,
                table->kind() == kind_ &&
                    table->has_reserved_keys() ==
                        (type_string() == "MutableDenseHashTableV2") &&
                    table->key_dtype() == key_dtype_ &&
                    table->value_dtype() == value_dtype_ &&
                    table->value_shape() == value_shape_,
                absl::InvalidArgumentError(absl::StrCat(
                    "shared_name '", key_, "' names ", table->DebugString(),
                    ", not the table ", name(), " (", type_string(),
                    ") asks for; give one of them another shared_name")));
    ctx->set_output_var(0, *var);
  }
  bool IsExpensive() const override { return false; }

 private:
  const LookupTable::Kind kind_;
  DataType key_dtype_ = DT_INVALID, value_dtype_ = DT_INVALID;
  TensorShape value_shape_;  // [] but for MutableHashTableOfTensorsV2
  std::string key_;
};

absl::StatusOr<LookupTable*> TableOf(OpKernelContext* ctx) {
  LookupTable* table = ResourceOfInput<LookupTable>(ctx, 0);
  if (table == nullptr) {
    return absl::InvalidArgumentError(
        "input 0 is not the handle of a hash table (connect it to a "
        "HashTableV2 or MutableHashTableV2)");
  }
  return table;
}

// InitializeTableV2 (once), LookupTableImportV2 (replaces) and
// LookupTableInsertV2 (adds, mutable tables).
class FillTableOp : public OpKernel {
 public:
  explicit FillTableOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}

  void Compute(OpKernelContext* ctx) override {
    absl::StatusOr<LookupTable*> table = TableOf(ctx);
    OP_REQUIRES_OK(ctx, table.status());
    const Tensor& keys = ctx->input(1);
    const Tensor& values = ctx->input(2);
    OP_REQUIRES_OK(ctx, (*table)->CheckKeysAndValues(keys, values));
    if (type_string() == "InitializeTableV2") {
      OP_REQUIRES_OK(ctx, (*table)->Initialize(keys, values));
    } else if (type_string() == "LookupTableImportV2") {
      OP_REQUIRES_OK(ctx, (*table)->Import(keys, values));
    } else {
      OP_REQUIRES_OK(ctx, (*table)->Insert(keys, values));
    }
  }
};

class LookupTableRemoveOp : public OpKernel {
 public:
  explicit LookupTableRemoveOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}

  void Compute(OpKernelContext* ctx) override {
    absl::StatusOr<LookupTable*> table = TableOf(ctx);
    OP_REQUIRES_OK(ctx, table.status());
    OP_REQUIRES_OK(ctx, (*table)->CheckKeys(ctx->input(1)));
    OP_REQUIRES_OK(ctx, (*table)->Remove(ctx->input(1)));
  }
};

class LookupTableFindOp : public OpKernel {
 public:
  explicit LookupTableFindOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}

  void Compute(OpKernelContext* ctx) override {
    absl::StatusOr<LookupTable*> table = TableOf(ctx);
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
    TensorShape shape = keys.shape();
    for (int64_t d : (*table)->value_shape().dims()) shape.AddDim(d);
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, shape, &out));
    OP_REQUIRES_OK(ctx, (*table)->Find(keys, default_value, out));
  }
};

class LookupTableSizeOp : public OpKernel {
 public:
  explicit LookupTableSizeOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}

  void Compute(OpKernelContext* ctx) override {
    absl::StatusOr<LookupTable*> table = TableOf(ctx);
    OP_REQUIRES_OK(ctx, table.status());
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape({}), &out));
    *out->data<int64_t>() = (*table)->LockedSize();
  }
  bool IsExpensive() const override { return false; }
};

class LookupTableExportOp : public OpKernel {
 public:
  explicit LookupTableExportOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("Tkeys", &key_dtype_));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("Tvalues", &value_dtype_));
  }

  void Compute(OpKernelContext* ctx) override {
    absl::StatusOr<LookupTable*> table = TableOf(ctx);
    OP_REQUIRES_OK(ctx, table.status());
    OP_REQUIRES(ctx,
                key_dtype_ == (*table)->key_dtype() &&
                    value_dtype_ == (*table)->value_dtype(),
                absl::InvalidArgumentError(absl::StrCat(
                    "Tkeys/Tvalues ", DataTypeName(key_dtype_), "->",
                    DataTypeName(value_dtype_), " do not match ",
                    (*table)->DebugString())));
    Tensor keys, values;
    (*table)->Export(&keys, &values);
    ctx->set_output(0, std::move(keys));
    ctx->set_output(1, std::move(values));
  }

 private:
  DataType key_dtype_ = DT_INVALID, value_dtype_ = DT_INVALID;
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
    absl::StatusOr<LookupTable*> table = TableOf(ctx);
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
                      TableHandleOp);
DFLOW_REGISTER_KERNEL(
    KernelDefBuilder("MutableHashTableV2").Device(kDeviceCpu), TableHandleOp);
DFLOW_REGISTER_KERNEL(
    KernelDefBuilder("MutableHashTableOfTensorsV2").Device(kDeviceCpu),
    TableHandleOp);
DFLOW_REGISTER_KERNEL(
    KernelDefBuilder("MutableDenseHashTableV2").Device(kDeviceCpu),
    TableHandleOp);
DFLOW_REGISTER_KERNEL(KernelDefBuilder("InitializeTableV2").Device(kDeviceCpu),
                      FillTableOp);
DFLOW_REGISTER_KERNEL(
    KernelDefBuilder("LookupTableImportV2").Device(kDeviceCpu), FillTableOp);
DFLOW_REGISTER_KERNEL(
    KernelDefBuilder("LookupTableInsertV2").Device(kDeviceCpu), FillTableOp);
DFLOW_REGISTER_KERNEL(
    KernelDefBuilder("LookupTableRemoveV2").Device(kDeviceCpu),
    LookupTableRemoveOp);
DFLOW_REGISTER_KERNEL(KernelDefBuilder("LookupTableFindV2").Device(kDeviceCpu),
                      LookupTableFindOp);
DFLOW_REGISTER_KERNEL(KernelDefBuilder("LookupTableSizeV2").Device(kDeviceCpu),
                      LookupTableSizeOp);
DFLOW_REGISTER_KERNEL(
    KernelDefBuilder("LookupTableExportV2").Device(kDeviceCpu),
    LookupTableExportOp);

}  // namespace
}  // namespace dflow
