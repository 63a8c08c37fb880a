#include "kernels/cpu/data_flow_ops_lookup_table.h"

#include <algorithm>
#include <cstring>
#include <type_traits>
#include <utility>

#include "absl/strings/str_cat.h"
#include "kernels/cpu/kernel_util_array.h"

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

// to[to_at .. to_at + n) = from[from_at .. from_at + n), same dtype.
void CopyElements(const Tensor& from, int64_t from_at, Tensor* to,
                  int64_t to_at, int64_t n) {
  VisitCopyType(from.dtype(), [&](auto* tag) {
    using T = std::remove_pointer_t<decltype(tag)>;
    std::copy_n(CopyData<T>(from) + from_at, n, CopyData<T>(to) + to_at);
  });
}

bool SameElements(const Tensor& a, int64_t a_at, const Tensor& b,
                  int64_t b_at, int64_t n) {
  bool same = false;
  VisitCopyType(a.dtype(), [&](auto* tag) {
    using T = std::remove_pointer_t<decltype(tag)>;
    if constexpr (std::is_same_v<T, std::string>) {
      same = std::equal(CopyData<T>(a) + a_at, CopyData<T>(a) + a_at + n,
                        CopyData<T>(b) + b_at);
    } else {
      same = std::memcmp(CopyData<T>(a) + a_at, CopyData<T>(b) + b_at,
                         n * sizeof(T)) == 0;
    }
  });
  return same;
}

// keys' shape followed by value_shape.
TensorShape KeysThenValue(const TensorShape& keys,
                          const TensorShape& value_shape) {
  TensorShape shape = keys;
  for (int64_t d : value_shape.dims()) shape.AddDim(d);
  return shape;
}

}  // namespace

LookupTable::LookupTable(std::string name, Kind kind, DataType key_dtype,
                         DataType value_dtype, TensorShape value_shape)
    : name_(std::move(name)),
      kind_(kind),
      key_dtype_(key_dtype),
      value_dtype_(value_dtype),
      value_shape_(std::move(value_shape)),
      value_size_(value_shape_.num_elements()),
      // A mutable table is usable from the start: empty.
      initialized_(kind == Kind::kMutable) {}

void LookupTable::SetReservedKeys(Tensor empty_key, Tensor deleted_key) {
  empty_key_ = std::move(empty_key);
  deleted_key_ = std::move(deleted_key);
  has_reserved_keys_ = true;
}

bool LookupTable::IsReserved(const Tensor& keys, int64_t i) const {
  return has_reserved_keys_ && (SameElements(keys, i, empty_key_, 0, 1) ||
                                SameElements(keys, i, deleted_key_, 0, 1));
}

absl::Status LookupTable::CheckNotReserved(const Tensor& keys) const {
  for (int64_t i = 0; has_reserved_keys_ && i < keys.NumElements(); ++i) {
    if (IsReserved(keys, i)) {
      const bool empty = SameElements(keys, i, empty_key_, 0, 1);
      return absl::InvalidArgumentError(absl::StrCat(
          "Using the ", empty ? "empty_key" : "deleted_key",
          " as a table key is not allowed: key ", KeyText(keys, i), " of ",
          DebugString(), " is its ", empty ? "empty" : "deleted",
          " key; pick empty_key and deleted_key outside your keys"));
    }
  }
  return absl::OkStatus();
}

std::string LookupTable::DebugString() const {
  return absl::StrCat(kind_ == Kind::kStatic ? "HashTable '"
                      : has_reserved_keys_   ? "MutableDenseHashTable '"
                                             : "MutableHashTable '",
                      name_, "' (", DataTypeName(key_dtype_), " -> ",
                      DataTypeName(value_dtype_),
                      value_shape_.rank() > 0 ? value_shape_.ToString() : "",
                      ")");
}

absl::Status LookupTable::CheckKeys(const Tensor& keys) const {
  if (keys.dtype() != key_dtype_) {
    return absl::InvalidArgumentError(
        absl::StrCat("keys are ", DataTypeName(keys.dtype()), " but ",
                     DebugString(), " has ", DataTypeName(key_dtype_),
                     " keys"));
  }
  return absl::OkStatus();
}

absl::Status LookupTable::CheckKeysAndValues(const Tensor& keys,
                                             const Tensor& values) const {
  if (keys.dtype() != key_dtype_ || values.dtype() != value_dtype_) {
    return absl::InvalidArgumentError(absl::StrCat(
        "Conflicting key/value dtypes ", DataTypeName(keys.dtype()), "->",
        DataTypeName(values.dtype()), " with ", DebugString()));
  }
  const TensorShape want = KeysThenValue(keys.shape(), value_shape_);
  if (values.shape() != want && value_shape_.rank() == 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "keys and values must have the same shape: ", keys.shape().ToString(),
        " vs. ", values.shape().ToString()));
  }
  if (values.shape() != want) {
    return absl::InvalidArgumentError(absl::StrCat(
        "Expected shape ", want.ToString(), " for value (the keys' shape ",
        keys.shape().ToString(), " followed by the table's value shape ",
        value_shape_.ToString(), "), got ", values.shape().ToString()));
  }
  return absl::OkStatus();
}

absl::Status LookupTable::Initialize(const Tensor& keys,
                                     const Tensor& values) {
  std::lock_guard<std::mutex> lock(mu_);
  if (initialized_) {
    if (keys.NumElements() == Size() && ContainsAll(keys, values)) {
      return absl::OkStatus();
    }
    return absl::FailedPreconditionError(absl::StrCat(
        DebugString(), " was already initialized with different data"));
  }
  Clear();
  for (int64_t i = 0; i < keys.NumElements(); ++i) {
    const int64_t row = RowOf(keys, i);
    if (row >= 0 && !RowEquals(row, values, i)) {
      Clear();
      return absl::FailedPreconditionError(absl::StrCat(
          "HashTable has different value for same key. Key ", KeyText(keys, i),
          " appears twice with different values"));
    }
    Put(keys, values, i);
  }
  initialized_ = true;
  return absl::OkStatus();
}

absl::Status LookupTable::Import(const Tensor& keys, const Tensor& values) {
  std::lock_guard<std::mutex> lock(mu_);
  Clear();
  for (int64_t i = 0; i < keys.NumElements(); ++i) {
    if (!IsReserved(keys, i)) Put(keys, values, i);
  }
  initialized_ = true;
  return absl::OkStatus();
}

absl::Status LookupTable::Insert(const Tensor& keys, const Tensor& values) {
  if (kind_ == Kind::kStatic) {
    return absl::UnimplementedError(absl::StrCat(
        DebugString(),
        " is a static table (HashTableV2): it is filled by its initializer "
        "and cannot be inserted into; use a MutableHashTable"));
  }
  if (absl::Status s = CheckNotReserved(keys); !s.ok()) return s;
  std::lock_guard<std::mutex> lock(mu_);
  for (int64_t i = 0; i < keys.NumElements(); ++i) Put(keys, values, i);
  return absl::OkStatus();
}

absl::Status LookupTable::Remove(const Tensor& keys) {
  if (kind_ == Kind::kStatic) {
    return absl::UnimplementedError(absl::StrCat(
        DebugString(),
        " is a static table (HashTableV2): its keys cannot be removed; use "
        "a MutableHashTable"));
  }
  if (absl::Status s = CheckNotReserved(keys); !s.ok()) return s;
  std::lock_guard<std::mutex> lock(mu_);
  for (int64_t i = 0; i < keys.NumElements(); ++i) {
    int64_t row = -1;
    if (IsIntegerKey(key_dtype_)) {
      auto it = int_rows_.find(IntKey(keys, i));
      if (it == int_rows_.end()) continue;
      row = it->second;
      int_rows_.erase(it);
    } else {
      auto it = string_rows_.find(keys.data<std::string>()[i]);
      if (it == string_rows_.end()) continue;
      row = it->second;
      string_rows_.erase(it);
    }
    used_[row] = false;
    free_rows_.push_back(row);
  }
  return absl::OkStatus();
}

absl::Status LookupTable::Find(const Tensor& keys, const Tensor& default_value,
                               Tensor* out) {
  const int64_t n = keys.NumElements();
  const bool per_key_default =
      value_size_ > 0 && default_value.NumElements() == n * value_size_ &&
      default_value.NumElements() != value_size_;
  if (default_value.NumElements() != value_size_ && !per_key_default) {
    return absl::InvalidArgumentError(absl::StrCat(
        "Expected shape ", value_shape_.ToString(), " or ",
        KeysThenValue(keys.shape(), value_shape_).ToString(),
        " for default value but got ", default_value.shape().ToString()));
  }
  if (absl::Status s = CheckNotReserved(keys); !s.ok()) return s;
  std::lock_guard<std::mutex> lock(mu_);
  if (!initialized_) {
    return absl::FailedPreconditionError(absl::StrCat(
        "Table not initialized: ", DebugString(),
        " has not been filled; run its initializer (tables_initializer) "
        "first"));
  }
  for (int64_t i = 0; i < n; ++i) {
    const int64_t row = RowOf(keys, i);
    if (row >= 0) {
      CopyElements(values_, row * value_size_, out, i * value_size_,
                   value_size_);
    } else {
      CopyElements(default_value, per_key_default ? i * value_size_ : 0, out,
                   i * value_size_, value_size_);
    }
  }
  return absl::OkStatus();
}

void LookupTable::Export(Tensor* keys, Tensor* values) {
  std::lock_guard<std::mutex> lock(mu_);
  const int64_t n = Size();
  *keys = Tensor(key_dtype_, TensorShape({n}));
  *values = Tensor(value_dtype_, KeysThenValue(TensorShape({n}), value_shape_));
  int64_t at = 0;
  for (int64_t row = 0; row < rows_; ++row) {
    if (!used_[row]) continue;
    CopyElements(keys_, row, keys, at, 1);
    CopyElements(values_, row * value_size_, values, at * value_size_,
                 value_size_);
    ++at;
  }
}

bool LookupTable::IsInitialized() {
  std::lock_guard<std::mutex> lock(mu_);
  return initialized_;
}

int64_t LookupTable::LockedSize() {
  std::lock_guard<std::mutex> lock(mu_);
  return Size();
}

int64_t LookupTable::Size() const {
  return static_cast<int64_t>(IsIntegerKey(key_dtype_) ? int_rows_.size()
                                                       : string_rows_.size());
}

int64_t LookupTable::RowOf(const Tensor& keys, int64_t i) const {
  if (IsIntegerKey(key_dtype_)) {
    auto it = int_rows_.find(IntKey(keys, i));
    return it == int_rows_.end() ? -1 : it->second;
  }
  auto it = string_rows_.find(keys.data<std::string>()[i]);
  return it == string_rows_.end() ? -1 : it->second;
}

bool LookupTable::RowEquals(int64_t row, const Tensor& values,
                            int64_t i) const {
  return SameElements(values_, row * value_size_, values, i * value_size_,
                      value_size_);
}

bool LookupTable::ContainsAll(const Tensor& keys, const Tensor& values) const {
  for (int64_t i = 0; i < keys.NumElements(); ++i) {
    const int64_t row = RowOf(keys, i);
    if (row < 0 || !RowEquals(row, values, i)) return false;
  }
  return true;
}

void LookupTable::Clear() {
  int_rows_.clear();
  string_rows_.clear();
  used_.clear();
  free_rows_.clear();
  rows_ = 0;
}

void LookupTable::Put(const Tensor& keys, const Tensor& values, int64_t i) {
  int64_t row = RowOf(keys, i);
  if (row < 0) {
    if (!free_rows_.empty()) {
      row = free_rows_.back();
      free_rows_.pop_back();
    } else {
      Reserve(rows_ + 1);
      row = rows_++;
      used_.push_back(false);
    }
    used_[row] = true;
    CopyElements(keys, i, &keys_, row, 1);
    if (IsIntegerKey(key_dtype_)) {
      int_rows_.emplace(IntKey(keys, i), row);
    } else {
      string_rows_.emplace(keys.data<std::string>()[i], row);
    }
  }
  CopyElements(values, i * value_size_, &values_, row * value_size_,
               value_size_);
}

void LookupTable::Reserve(int64_t rows) {
  const int64_t capacity = keys_.NumElements();  // 0 before the first row
  if (rows <= capacity) return;
  const int64_t grown = std::max<int64_t>({rows, 2 * capacity, 16});
  // New storage, the rows there so far copied over: the table outlives
  // the steps whose tensors filled it.
  Tensor keys(key_dtype_, TensorShape({grown}));
  Tensor values(value_dtype_, TensorShape({grown * value_size_}));
  if (rows_ > 0) {
    CopyElements(keys_, 0, &keys, 0, rows_);
    CopyElements(values_, 0, &values, 0, rows_ * value_size_);
  }
  keys_ = std::move(keys);
  values_ = std::move(values);
}

}  // namespace dflow
