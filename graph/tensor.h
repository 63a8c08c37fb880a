// Tensor: an n-dimensional array of one DataType, the value that flows along
// graph edges, lives in variables and is stored in Const nodes.
//
// Tensor is a value type whose copies share one reference-counted buffer, so
// passing tensors around is cheap; a kernel that wants to write must own its
// output (it allocates it). Slice() views rows of dimension 0 without copying.
//
// Entry points that read user data (Allocate, FromProto, SliceChecked,
// FromVectorChecked) validate and return errors; the constructors and
// unchecked helpers are for trusted code and only assert in debug builds.

#ifndef DFLOW_GRAPH_TENSOR_H_
#define DFLOW_GRAPH_TENSOR_H_

#include <atomic>
#include <cassert>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/types/span.h"
#include "graph/allocator.h"
#include "graph/tensor_shape.h"
#include "graph/types.h"
#include "proto/tensor.pb.h"

namespace dflow {

// The memory behind one or more Tensors: `num_elements` elements of a dtype,
// allocated with kTensorAlignment. For DT_STRING the elements are
// std::string objects constructed (empty) on creation and destroyed here.
class TensorBuffer {
 public:
  // Returns nullptr if `allocator` cannot provide the memory. Zero elements
  // allocate nothing (data() is then nullptr). `element_size` is the bytes
  // one element occupies in memory; bytes must not overflow size_t.
  static std::shared_ptr<TensorBuffer> Create(Allocator* allocator,
                                              DataType dtype,
                                              int64_t num_elements,
                                              size_t element_size);
  ~TensorBuffer();

  // Only Create can name a Key, so only Create constructs; the constructor
  // is public for std::make_shared, which puts the object and its reference
  // count in one allocation.
  class Key {
    friend class TensorBuffer;
    Key() = default;
  };
  TensorBuffer(Key, Allocator* allocator, DataType dtype, int64_t num_elements,
               void* data, size_t bytes)
      : allocator_(allocator),
        dtype_(dtype),
        num_elements_(num_elements),
        data_(data),
        bytes_(bytes) {}

  TensorBuffer(const TensorBuffer&) = delete;
  TensorBuffer& operator=(const TensorBuffer&) = delete;

  void* data() const { return data_; }
  size_t size() const { return bytes_; }
  Allocator* allocator() const { return allocator_; }

  // Whether a reference variable (VariableV2) holds this buffer as its own
  // value. Such a variable is updated in place, under every snapshot its
  // readers took (`v/read`), as TensorFlow's are; whoever keeps a value
  // beyond the step (a fetch, a queue, another variable) copies a marked
  // buffer. Set once, by the variable's kernels, before anyone else can
  // hold the buffer; never cleared.
  bool is_reference_variable_value() const {
    return reference_variable_value_.load(std::memory_order_relaxed);
  }
  void MarkReferenceVariableValue() {
    reference_variable_value_.store(true, std::memory_order_relaxed);
  }

 private:
  std::atomic<bool> reference_variable_value_{false};
  Allocator* const allocator_;
  const DataType dtype_;
  const int64_t num_elements_;
  void* const data_;
  const size_t bytes_;
};

class Tensor {
 public:
  // An uninitialized tensor: DT_INVALID, shape [0], no buffer.
  Tensor();
  // Allocate from DefaultCpuAllocator() / `allocator`. Elements are not
  // initialized (except strings, which start empty). For trusted code: the
  // shape must be fully defined and the dtype supported. If that is not so
  // (debug builds assert) or the memory is not available, the result is
  // uninitialized (IsInitialized() false) and holds no elements.
  Tensor(DataType dtype, const TensorShape& shape);
  Tensor(Allocator* allocator, DataType dtype, const TensorShape& shape);
  // Copies share the buffer. A moved-from tensor is empty, as Tensor(): the
  // executors tell a consumed input slot from a live one by its dtype, and
  // emptying a slot that still looked live cost a fifth of a loop
  // iteration's time.
  Tensor(const Tensor&) = default;
  Tensor& operator=(const Tensor&) = default;
  Tensor(Tensor&& other) noexcept;
  Tensor& operator=(Tensor&& other) noexcept;
  // Becomes the uninitialized tensor (DT_INVALID, shape [0]) and drops its
  // share of the buffer: what the executor does to an input slot once its
  // consumer ran, without building and moving a temporary.
  void Clear() {
    buffer_.reset();
    ResetToEmpty();
  }

  // The checked form of the constructor for shapes and dtypes that came from
  // users: errors on partial shapes, unsupported dtypes, sizes that overflow
  // and allocation failures.
  static absl::StatusOr<Tensor> Allocate(Allocator* allocator, DataType dtype,
                                         const TensorShape& shape);
  // Types a Tensor can hold: every type VisitStorageType knows (numbers,
  // bool, string, quantized and float8 types); not ref types, resource,
  // variant or int4/uint4.
  static bool IsSupportedDataType(DataType dtype);

  DataType dtype() const { return dtype_; }
  const TensorShape& shape() const { return shape_; }
  int64_t NumElements() const { return num_elements_; }
  // Bytes the elements occupy in memory (sizeof(std::string) each for
  // strings, not their characters).
  size_t TotalBytes() const;
  bool IsInitialized() const { return buffer_ != nullptr; }

  // T must be the storage type of dtype() (see StorageDataType); checked in
  // debug builds only, since kernels call this in inner loops.
  template <typename T>
  T* data() {
    assert(StorageDataType(dtype_) == DataTypeToEnum<T>::value);
    return static_cast<T*>(raw_data());
  }
  template <typename T>
  const T* data() const {
    assert(StorageDataType(dtype_) == DataTypeToEnum<T>::value);
    return static_cast<const T*>(raw_data());
  }
  template <typename T>
  absl::Span<T> flat() {
    return absl::Span<T>(data<T>(), static_cast<size_t>(num_elements_));
  }
  template <typename T>
  absl::Span<const T> flat() const {
    return absl::Span<const T>(data<T>(), static_cast<size_t>(num_elements_));
  }
  // nullptr when uninitialized or empty.
  void* raw_data() {
    if (buffer_ == nullptr || buffer_->data() == nullptr) return nullptr;
    return static_cast<char*>(buffer_->data()) + offset_;
  }
  const void* raw_data() const { return const_cast<Tensor*>(this)->raw_data(); }

  // Whether raw_data() is kTensorAlignment-aligned. Always true for
  // allocated tensors; a slice is aligned only if its first row is. Empty
  // tensors count as aligned.
  bool IsAligned() const;
  bool SharesBufferWith(const Tensor& other) const;
  // How many Tensors (copies and slices) share this buffer; 0 if none.
  int64_t RefCount() const { return buffer_.use_count(); }
  // See TensorBuffer::is_reference_variable_value.
  bool IsReferenceVariableValue() const {
    return buffer_ != nullptr && buffer_->is_reference_variable_value();
  }
  void MarkReferenceVariableValue() {
    if (buffer_ != nullptr) buffer_->MarkReferenceVariableValue();
  }
  // A host tensor with a buffer of its own holding this one's elements
  // (strings copied one by one); uninitialized when this one is, or when
  // `allocator` cannot provide the memory. For host memory only.
  Tensor DeepCopy(Allocator* allocator = DefaultCpuAllocator()) const;

  // Rows [begin, end) of dimension 0, sharing this tensor's buffer. For
  // trusted code: requires an initialized tensor of rank >= 1 and
  // 0 <= begin <= end <= dim(0); otherwise asserts in debug builds and
  // returns an uninitialized tensor.
  Tensor Slice(int64_t begin, int64_t end) const;
  absl::StatusOr<Tensor> SliceChecked(int64_t begin, int64_t end) const;
  // The same elements viewed with another shape holding as many elements,
  // sharing this tensor's buffer (Reshape, ExpandDims, Squeeze, and the
  // slices Split/Unpack return). Fails, naming both shapes, when this tensor
  // is uninitialized or `shape` is partial or holds another element count.
  absl::StatusOr<Tensor> Reshaped(const TensorShape& shape) const;

  template <typename T>
  static Tensor Scalar(T value);
  static Tensor Scalar(const char* value) { return Scalar(std::string(value)); }
  // A vector of values.size() elements.
  template <typename T>
  static Tensor FromVector(const std::vector<T>& values);
  // Row-major values for `shape`. Sizes must match: asserts in debug builds
  // and returns an uninitialized tensor otherwise.
  template <typename T>
  static Tensor FromVector(const std::vector<T>& values,
                           const TensorShape& shape);
  template <typename T>
  static absl::StatusOr<Tensor> FromVectorChecked(const std::vector<T>& values,
                                                  const TensorShape& shape);

  // "Tensor<type: float shape: [2,2] values: 1 2 3 4>", at most
  // `max_entries` values followed by "..." when there are more.
  std::string DebugString(int max_entries = 10) const;

  // Reads either encoding of TensorProto: packed little-endian bytes in
  // tensor_content (the size must match exactly), or the dtype's typed field
  // (float_val, int_val, half_val, ...), where fewer values than elements
  // repeat the last one and no values at all mean zeros (TensorFlow's rule).
  static absl::StatusOr<Tensor> FromProto(
      const TensorProto& proto, Allocator* allocator = DefaultCpuAllocator());
  // The bytes FromProto would allocate for `proto` (its shape's elements
  // times the dtype's size in memory), without allocating; -1 when the
  // shape is unreadable or partial, the dtype unsupported or the size
  // overflows. A few typed values may stand for a huge tensor (they
  // repeat), so code that decodes constants only to look at them (the
  // compiler's passes) checks this first.
  static int64_t ProtoBytes(const TensorProto& proto);
  // Overwrites `proto`. With use_tensor_content, numbers go to
  // tensor_content; otherwise to the typed field. Strings always use
  // string_val. Both encodings round-trip bit-exactly.
  void ToProto(TensorProto* proto, bool use_tensor_content = true) const;

 private:
  Tensor(DataType dtype, TensorShape shape,
         std::shared_ptr<TensorBuffer> buffer, size_t offset);

  // Bytes one element of dtype_ occupies in memory.
  size_t ElementSize() const;
  // Everything but the buffer as in Tensor().
  void ResetToEmpty() {
    dtype_ = DT_INVALID;
    shape_.SetEmptyVector();
    num_elements_ = 0;
    offset_ = 0;
  }

  DataType dtype_ = DT_INVALID;
  TensorShape shape_;
  int64_t num_elements_ = 0;  // cached shape_.num_elements()
  std::shared_ptr<TensorBuffer> buffer_;
  size_t offset_ = 0;  // bytes from buffer_->data() to this tensor's data
};

inline Tensor::Tensor(Tensor&& other) noexcept
    : dtype_(other.dtype_),
      shape_(std::move(other.shape_)),
      num_elements_(other.num_elements_),
      buffer_(std::move(other.buffer_)),
      offset_(other.offset_) {
  other.ResetToEmpty();
}

inline Tensor& Tensor::operator=(Tensor&& other) noexcept {
  if (this == &other) return *this;
  dtype_ = other.dtype_;
  shape_ = std::move(other.shape_);
  num_elements_ = other.num_elements_;
  buffer_ = std::move(other.buffer_);
  offset_ = other.offset_;
  other.ResetToEmpty();
  return *this;
}

// Template definitions.

template <typename T>
Tensor Tensor::Scalar(T value) {
  Tensor tensor(DataTypeToEnum<T>::value, TensorShape());
  if (tensor.IsInitialized()) *tensor.data<T>() = std::move(value);
  return tensor;
}

template <typename T>
Tensor Tensor::FromVector(const std::vector<T>& values) {
  return FromVector(values, TensorShape({static_cast<int64_t>(values.size())}));
}

template <typename T>
Tensor Tensor::FromVector(const std::vector<T>& values,
                          const TensorShape& shape) {
  absl::StatusOr<Tensor> tensor = FromVectorChecked(values, shape);
  assert(tensor.ok());
  return tensor.ok() ? *std::move(tensor) : Tensor();
}

template <typename T>
absl::StatusOr<Tensor> Tensor::FromVectorChecked(const std::vector<T>& values,
                                                 const TensorShape& shape) {
  if (!shape.IsFullyDefined() ||
      shape.num_elements() != static_cast<int64_t>(values.size())) {
    return absl::InvalidArgumentError(
        absl::StrCat("FromVector got ", values.size(), " values for shape ",
                     shape.ToString(), ", which holds ", shape.num_elements(),
                     " elements; pass exactly one value per element"));
  }
  absl::StatusOr<Tensor> tensor =
      Allocate(DefaultCpuAllocator(), DataTypeToEnum<T>::value, shape);
  if (!tensor.ok()) return tensor.status();
  T* out = tensor->template data<T>();
  // An index loop, not memcpy: std::vector<bool> has no contiguous data().
  for (size_t i = 0; i < values.size(); ++i) out[i] = values[i];
  return tensor;
}

}  // namespace dflow

#endif  // DFLOW_GRAPH_TENSOR_H_
