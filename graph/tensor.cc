#include "graph/tensor.h"

#include <algorithm>
#include <cstring>
#include <limits>
#include <new>
#include <type_traits>

#include "absl/strings/escaping.h"
#include "graph/variant.h"

namespace dflow {

// tensor_content is little-endian by definition; copying it with memcpy is
// only right on a little-endian host.
static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__,
              "dflow's tensor_content handling assumes a little-endian host");
static_assert(sizeof(bool) == 1, "DT_BOOL elements must be one byte");

namespace {

// Bytes one element of `dtype` occupies in a TensorBuffer; 0 if Tensor
// cannot hold the type.
size_t StorageSize(DataType dtype) {
  // Variants are not visited with the numbers: no numeric code applies.
  if (dtype == DT_VARIANT) return sizeof(Variant);
  size_t size = 0;
  VisitStorageType(dtype, [&](auto* tag) { size = sizeof(*tag); });
  return size;
}

// "float tensor of shape [2,3]", for error messages.
std::string Describe(DataType dtype, const TensorShape& shape) {
  return absl::StrCat(DataTypeName(dtype), " tensor of shape ",
                      shape.ToString());
}

}  // namespace

// ---------------------------------------------------------------------------
// TensorBuffer

std::shared_ptr<TensorBuffer> TensorBuffer::Create(Allocator* allocator,
                                                   DataType dtype,
                                                   int64_t num_elements,
                                                   size_t element_size) {
  const size_t bytes = static_cast<size_t>(num_elements) * element_size;
  void* data = nullptr;
  if (bytes > 0) {
    data = allocator->AllocateRaw(kTensorAlignment, bytes);
    if (data == nullptr) return nullptr;
  }
  if (dtype == DT_STRING) {
    auto* strings = static_cast<std::string*>(data);
    for (int64_t i = 0; i < num_elements; ++i) new (&strings[i]) std::string();
  } else if (dtype == DT_VARIANT) {
    auto* variants = static_cast<Variant*>(data);
    for (int64_t i = 0; i < num_elements; ++i) new (&variants[i]) Variant();
  }
  return std::make_shared<TensorBuffer>(Key(), allocator, dtype, num_elements,
                                        data, bytes);
}

TensorBuffer::~TensorBuffer() {
  if (data_ == nullptr) return;
  if (dtype_ == DT_STRING) {
    auto* strings = static_cast<std::string*>(data_);
    for (int64_t i = 0; i < num_elements_; ++i) strings[i].~basic_string();
  } else if (dtype_ == DT_VARIANT) {
    auto* variants = static_cast<Variant*>(data_);
    for (int64_t i = 0; i < num_elements_; ++i) variants[i].~Variant();
  }
  allocator_->DeallocateRaw(data_, bytes_);
}

// ---------------------------------------------------------------------------
// Construction and access

Tensor::Tensor() : shape_({0}) {}

Tensor::Tensor(DataType dtype, const TensorShape& shape)
    : Tensor(DefaultCpuAllocator(), dtype, shape) {}

Tensor::Tensor(Allocator* allocator, DataType dtype, const TensorShape& shape)
    : dtype_(dtype), shape_({0}) {
  absl::StatusOr<Tensor> tensor = Allocate(allocator, dtype, shape);
  assert(tensor.ok());
  if (tensor.ok()) *this = *std::move(tensor);
}

Tensor::Tensor(DataType dtype, TensorShape shape,
               std::shared_ptr<TensorBuffer> buffer, size_t offset)
    : dtype_(dtype),
      shape_(std::move(shape)),
      num_elements_(shape_.num_elements()),
      buffer_(std::move(buffer)),
      offset_(offset) {}

bool Tensor::IsSupportedDataType(DataType dtype) {
  return !IsRefType(dtype) && StorageSize(dtype) > 0;
}

absl::StatusOr<Tensor> Tensor::Allocate(Allocator* allocator, DataType dtype,
                                        const TensorShape& shape) {
  if (allocator == nullptr) {
    return absl::InvalidArgumentError(absl::StrCat(
        "cannot allocate a ", Describe(dtype, shape), " without an allocator"));
  }
  // One pass over the dtype and one over the shape on the way to success
  // (kernels allocate every output here); the error cases sort themselves
  // out afterwards.
  const size_t element_size = IsRefType(dtype) ? 0 : StorageSize(dtype);
  if (element_size == 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "a Tensor cannot hold dtype ", DataTypeName(dtype),
        "; tensors hold numbers, bool, string, quantized, float8 and variant "
        "values (ref and resource types describe edges and handles)"));
  }
  const int64_t num_elements = shape.num_elements();
  size_t bytes = 0;
  if (num_elements < 0 ||
      __builtin_mul_overflow(static_cast<uint64_t>(num_elements), element_size,
                             &bytes) ||
      bytes > static_cast<size_t>(std::numeric_limits<int64_t>::max())) {
    if (!shape.IsFullyDefined()) {
      return absl::InvalidArgumentError(
          absl::StrCat("cannot allocate a ", Describe(dtype, shape),
                       ": every dimension must be known"));
    }
    return absl::InvalidArgumentError(
        absl::StrCat("a ", Describe(dtype, shape),
                     " has too many elements to address; check the shape"));
  }
  std::shared_ptr<TensorBuffer> buffer =
      TensorBuffer::Create(allocator, dtype, num_elements, element_size);
  if (buffer == nullptr) {
    return absl::ResourceExhaustedError(
        absl::StrCat("allocator '", allocator->Name(), "' could not provide ",
                     bytes, " bytes for a ", Describe(dtype, shape)));
  }
  return Tensor(dtype, shape, std::move(buffer), 0);
}

size_t Tensor::ElementSize() const { return StorageSize(dtype_); }

size_t Tensor::TotalBytes() const {
  return static_cast<size_t>(num_elements_) * ElementSize();
}

bool Tensor::IsAligned() const {
  return reinterpret_cast<uintptr_t>(raw_data()) % kTensorAlignment == 0;
}

Tensor Tensor::DeepCopy(Allocator* allocator) const {
  if (!IsInitialized()) return Tensor();
  absl::StatusOr<Tensor> copy = Allocate(allocator, dtype_, shape_);
  if (!copy.ok()) return Tensor();
  if (dtype_ == DT_STRING) {
    std::copy_n(data<std::string>(), num_elements_, copy->data<std::string>());
  } else if (dtype_ == DT_VARIANT) {
    std::copy_n(data<Variant>(), num_elements_, copy->data<Variant>());
  } else if (num_elements_ > 0) {
    std::memcpy(copy->raw_data(), raw_data(), TotalBytes());
  }
  return *std::move(copy);
}

bool Tensor::SharesBufferWith(const Tensor& other) const {
  return buffer_ != nullptr && buffer_ == other.buffer_;
}

absl::StatusOr<Tensor> Tensor::SliceChecked(int64_t begin, int64_t end) const {
  if (!IsInitialized()) {
    return absl::FailedPreconditionError(absl::StrCat(
        "cannot slice an uninitialized ", Describe(dtype_, shape_)));
  }
  if (shape_.rank() < 1) {
    return absl::InvalidArgumentError(absl::StrCat(
        "cannot slice a ", Describe(dtype_, shape_),
        ": Slice takes rows of dimension 0, so the rank must be at least 1"));
  }
  const int64_t rows = shape_.dim(0);
  if (begin < 0 || begin > end || end > rows) {
    return absl::OutOfRangeError(absl::StrCat(
        "cannot take rows [", begin, ", ", end, ") of a ",
        Describe(dtype_, shape_), "; need 0 <= begin <= end <= ", rows));
  }
  const int64_t row_elements = rows == 0 ? 0 : num_elements_ / rows;
  TensorShape shape = shape_;
  shape.set_dim(0, end - begin);
  const size_t offset =
      offset_ + static_cast<size_t>(begin * row_elements) * ElementSize();
  return Tensor(dtype_, std::move(shape), buffer_, offset);
}

absl::StatusOr<Tensor> Tensor::Reshaped(const TensorShape& shape) const {
  if (!IsInitialized()) {
    return absl::FailedPreconditionError(absl::StrCat(
        "cannot reshape an uninitialized ", Describe(dtype_, shape_)));
  }
  if (!shape.IsFullyDefined() || shape.num_elements() != num_elements_) {
    return absl::InvalidArgumentError(absl::StrCat(
        "cannot view a ", Describe(dtype_, shape_), " (", num_elements_,
        " elements) with shape ", shape.ToString(),
        "; the new shape must be fully defined and hold as many elements"));
  }
  return Tensor(dtype_, shape, buffer_, offset_);
}

Tensor Tensor::Slice(int64_t begin, int64_t end) const {
  absl::StatusOr<Tensor> slice = SliceChecked(begin, end);
  assert(slice.ok());
  return slice.ok() ? *std::move(slice) : Tensor();
}

// ---------------------------------------------------------------------------
// DebugString

namespace {

template <typename T>
void AppendValue(std::string* out, const T& value) {
  if constexpr (std::is_same_v<T, bool>) {
    out->append(value ? "true" : "false");
  } else if constexpr (std::is_same_v<T, float16> ||
                       std::is_same_v<T, bfloat16>) {
    absl::StrAppend(out, value.ToFloat());
  } else if constexpr (std::is_same_v<T, std::string>) {
    absl::StrAppend(out, "\"", absl::CEscape(value), "\"");
  } else if constexpr (std::is_same_v<T, complex64> ||
                       std::is_same_v<T, complex128>) {
    absl::StrAppend(out, "(", value.real(), ",", value.imag(), ")");
  } else if constexpr (sizeof(T) == 1) {
    absl::StrAppend(out, static_cast<int>(value));  // not as a character
  } else {
    absl::StrAppend(out, value);
  }
}

}  // namespace

std::string Tensor::DebugString(int max_entries) const {
  std::string out = absl::StrCat("Tensor<type: ", DataTypeName(dtype_),
                                 " shape: ", shape_.ToString(), " values:");
  if (!IsInitialized()) {
    out.append(" <uninitialized>>");
    return out;
  }
  if (dtype_ == DT_VARIANT) {
    const absl::Span<const Variant> values = flat<Variant>();
    const size_t shown =
        std::min(values.size(), static_cast<size_t>(std::max(max_entries, 0)));
    for (size_t i = 0; i < shown; ++i) {
      absl::StrAppend(&out, " ", values[i].DebugString());
    }
    if (shown < values.size()) out.append(" ...");
  }
  VisitStorageType(dtype_, [&](auto* tag) {
    using T = std::remove_pointer_t<decltype(tag)>;
    const absl::Span<const T> values = flat<T>();
    const size_t shown =
        std::min(values.size(), static_cast<size_t>(std::max(max_entries, 0)));
    for (size_t i = 0; i < shown; ++i) {
      out.push_back(' ');
      AppendValue(&out, values[i]);
    }
    if (shown < values.size()) out.append(" ...");
  });
  out.push_back('>');
  return out;
}

// ---------------------------------------------------------------------------
// TensorProto conversion

namespace {

// Stores `in` (a value of a typed proto field) as `*out`; false when it does
// not fit (int_val holding 300 for an int8 tensor, half_val above 0xffff).
template <typename T, typename In>
bool ConvertProtoValue(const In& in, T* out) {
  if constexpr (std::is_same_v<T, float16> || std::is_same_v<T, bfloat16>) {
    if (in < 0 || in > 0xffff) return false;
    out->bits = static_cast<uint16_t>(in);
  } else if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool> &&
                       !std::is_same_v<T, In>) {
    // Narrowing from int_val's int32: every int32 fits in int64.
    const int64_t wide = in;
    if (wide < std::numeric_limits<T>::min() ||
        wide > std::numeric_limits<T>::max()) {
      return false;
    }
    *out = static_cast<T>(wide);
  } else {
    *out = static_cast<T>(in);
  }
  return true;
}

// Only integer fields can hold values that do not fit; print those.
template <typename V>
std::string ValueForError(const V& value) {
  if constexpr (std::is_arithmetic_v<V>) {
    return absl::StrCat(value);
  } else {
    return "a value";
  }
}

// Views of proto fields that do not hold one element per entry.
template <typename C, typename Field>
struct ComplexPairs {  // scomplex_val / dcomplex_val: re, im, re, im, ...
  const Field& field;
  int size() const { return field.size() / 2; }
  C operator[](int i) const { return C(field[2 * i], field[2 * i + 1]); }
};
struct Bytes {  // float8_val: one byte per element
  const std::string& field;
  int size() const { return static_cast<int>(field.size()); }
  uint8_t operator[](int i) const { return static_cast<uint8_t>(field[i]); }
};

// Fills `out` from a typed field under TensorFlow's rule: fewer values than
// elements repeat the last one, none at all mean zeros (or empty strings).
template <typename T, typename Field>
absl::Status FillFromField(const Field& field, const char* field_name,
                           const TensorProto& proto, const TensorShape& shape,
                           absl::Span<T> out) {
  const int64_t count = field.size();
  // An empty tensor with values is what TensorFlow itself writes for
  // `tf.zeros([0], tf.string)` and the like (the fill value, once): there is
  // nothing to fill, so the values are ignored as TensorFlow does.
  if (out.empty()) return absl::OkStatus();
  if (count > static_cast<int64_t>(out.size())) {
    return absl::InvalidArgumentError(absl::StrCat(
        "TensorProto for a ", Describe(proto.dtype(), shape), " has ", count,
        " values in ", field_name, " but the shape holds only ", out.size(),
        " elements; fix the shape or drop the extra values"));
  }
  if (count == 0) {
    std::fill(out.begin(), out.end(), T{});
    return absl::OkStatus();
  }
  for (int64_t i = 0; i < count; ++i) {
    if (!ConvertProtoValue(field[i], &out[i])) {
      return absl::InvalidArgumentError(absl::StrCat(
          "TensorProto for a ", Describe(proto.dtype(), shape), " has ",
          field_name, "[", i, "] = ", ValueForError(field[i]),
          ", which does not fit in ", DataTypeName(proto.dtype())));
    }
  }
  std::fill(out.begin() + count, out.end(), out[count - 1]);
  return absl::OkStatus();
}

absl::Status ReadTypedField(const TensorProto& proto, Tensor* tensor) {
  const TensorShape& shape = tensor->shape();
  switch (proto.dtype()) {
    case DT_FLOAT:
      return FillFromField(proto.float_val(), "float_val", proto, shape,
                           tensor->flat<float>());
    case DT_DOUBLE:
      return FillFromField(proto.double_val(), "double_val", proto, shape,
                           tensor->flat<double>());
    case DT_HALF:
      return FillFromField(proto.half_val(), "half_val", proto, shape,
                           tensor->flat<float16>());
    case DT_BFLOAT16:
      return FillFromField(proto.half_val(), "half_val", proto, shape,
                           tensor->flat<bfloat16>());
    case DT_INT8:
    case DT_QINT8:
      return FillFromField(proto.int_val(), "int_val", proto, shape,
                           tensor->flat<int8_t>());
    case DT_INT16:
    case DT_QINT16:
      return FillFromField(proto.int_val(), "int_val", proto, shape,
                           tensor->flat<int16_t>());
    case DT_INT32:
    case DT_QINT32:
      return FillFromField(proto.int_val(), "int_val", proto, shape,
                           tensor->flat<int32_t>());
    case DT_UINT8:
    case DT_QUINT8:
      return FillFromField(proto.int_val(), "int_val", proto, shape,
                           tensor->flat<uint8_t>());
    case DT_UINT16:
    case DT_QUINT16:
      return FillFromField(proto.int_val(), "int_val", proto, shape,
                           tensor->flat<uint16_t>());
    case DT_INT64:
      return FillFromField(proto.int64_val(), "int64_val", proto, shape,
                           tensor->flat<int64_t>());
    case DT_UINT32:
      return FillFromField(proto.uint32_val(), "uint32_val", proto, shape,
                           tensor->flat<uint32_t>());
    case DT_UINT64:
      return FillFromField(proto.uint64_val(), "uint64_val", proto, shape,
                           tensor->flat<uint64_t>());
    case DT_BOOL:
      return FillFromField(proto.bool_val(), "bool_val", proto, shape,
                           tensor->flat<bool>());
    case DT_STRING:
      return FillFromField(proto.string_val(), "string_val", proto, shape,
                           tensor->flat<std::string>());
    case DT_FLOAT8_E5M2:
    case DT_FLOAT8_E4M3FN:
      return FillFromField(Bytes{proto.float8_val()}, "float8_val", proto,
                           shape, tensor->flat<uint8_t>());
    case DT_COMPLEX64:
    case DT_COMPLEX128: {
      const bool single = proto.dtype() == DT_COMPLEX64;
      const int count =
          single ? proto.scomplex_val_size() : proto.dcomplex_val_size();
      const char* name = single ? "scomplex_val" : "dcomplex_val";
      if (count % 2 != 0) {
        return absl::InvalidArgumentError(absl::StrCat(
            "TensorProto for a ", Describe(proto.dtype(), shape), " has ",
            count, " values in ", name,
            "; complex values are (real, imaginary) pairs, so the count must "
            "be even"));
      }
      if (single) {
        return FillFromField(
            ComplexPairs<complex64, decltype(proto.scomplex_val())>{
                proto.scomplex_val()},
            name, proto, shape, tensor->flat<complex64>());
      }
      return FillFromField(
          ComplexPairs<complex128, decltype(proto.dcomplex_val())>{
              proto.dcomplex_val()},
          name, proto, shape, tensor->flat<complex128>());
    }
    default:
      return absl::InvalidArgumentError(
          absl::StrCat("TensorProto has dtype ", DataTypeName(proto.dtype()),
                       ", which dflow cannot read from typed fields"));
  }
}

// Appends every value of `values` to a typed proto field.
template <typename T, typename Field, typename Convert>
void AppendToField(absl::Span<const T> values, Field* field, Convert convert) {
  field->Reserve(static_cast<int>(values.size()));
  for (const T& value : values) field->Add(convert(value));
}

void WriteTypedField(const Tensor& tensor, TensorProto* proto) {
  auto same = [](const auto& v) { return v; };
  auto widen = [](auto v) { return static_cast<int32_t>(v); };
  auto bits = [](auto v) { return static_cast<int32_t>(v.bits); };
  switch (tensor.dtype()) {
    case DT_FLOAT:
      return AppendToField(tensor.flat<float>(), proto->mutable_float_val(),
                           same);
    case DT_DOUBLE:
      return AppendToField(tensor.flat<double>(), proto->mutable_double_val(),
                           same);
    case DT_HALF:
      return AppendToField(tensor.flat<float16>(), proto->mutable_half_val(),
                           bits);
    case DT_BFLOAT16:
      return AppendToField(tensor.flat<bfloat16>(), proto->mutable_half_val(),
                           bits);
    case DT_INT8:
    case DT_QINT8:
      return AppendToField(tensor.flat<int8_t>(), proto->mutable_int_val(),
                           widen);
    case DT_INT16:
    case DT_QINT16:
      return AppendToField(tensor.flat<int16_t>(), proto->mutable_int_val(),
                           widen);
    case DT_INT32:
    case DT_QINT32:
      return AppendToField(tensor.flat<int32_t>(), proto->mutable_int_val(),
                           same);
    case DT_UINT8:
    case DT_QUINT8:
      return AppendToField(tensor.flat<uint8_t>(), proto->mutable_int_val(),
                           widen);
    case DT_UINT16:
    case DT_QUINT16:
      return AppendToField(tensor.flat<uint16_t>(), proto->mutable_int_val(),
                           widen);
    case DT_INT64:
      return AppendToField(tensor.flat<int64_t>(), proto->mutable_int64_val(),
                           same);
    case DT_UINT32:
      return AppendToField(tensor.flat<uint32_t>(), proto->mutable_uint32_val(),
                           same);
    case DT_UINT64:
      return AppendToField(tensor.flat<uint64_t>(), proto->mutable_uint64_val(),
                           same);
    case DT_BOOL:
      return AppendToField(tensor.flat<bool>(), proto->mutable_bool_val(),
                           same);
    case DT_STRING:
      for (const std::string& s : tensor.flat<std::string>()) {
        proto->add_string_val(s);
      }
      return;
    case DT_FLOAT8_E5M2:
    case DT_FLOAT8_E4M3FN: {
      const absl::Span<const uint8_t> values = tensor.flat<uint8_t>();
      proto->set_float8_val(std::string(values.begin(), values.end()));
      return;
    }
    case DT_COMPLEX64:
      for (const complex64& c : tensor.flat<complex64>()) {
        proto->add_scomplex_val(c.real());
        proto->add_scomplex_val(c.imag());
      }
      return;
    case DT_COMPLEX128:
      for (const complex128& c : tensor.flat<complex128>()) {
        proto->add_dcomplex_val(c.real());
        proto->add_dcomplex_val(c.imag());
      }
      return;
    default:
      return;  // Allocate admits no other dtype.
  }
}

}  // namespace

absl::StatusOr<Tensor> Tensor::FromProto(const TensorProto& proto,
                                         Allocator* allocator) {
  const DataType dtype = proto.dtype();
  absl::StatusOr<TensorShape> shape =
      TensorShape::FromProto(proto.tensor_shape());
  if (!shape.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("TensorProto of dtype ", DataTypeName(dtype),
                     " has a bad shape: ", shape.status().message()));
  }
  if (!shape->IsFullyDefined()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "TensorProto of dtype ", DataTypeName(dtype), " has partial shape ",
        shape->ToString(), "; a tensor value needs every dimension known"));
  }
  absl::StatusOr<Tensor> tensor = Allocate(allocator, dtype, *shape);
  if (!tensor.ok()) {
    return absl::Status(
        tensor.status().code(),
        absl::StrCat("cannot read TensorProto: ", tensor.status().message()));
  }

  if (dtype == DT_VARIANT) {
    // TensorFlow serializes a variant by its type's encoder; no graph
    // dflow reads has one as a constant.
    return absl::UnimplementedError(absl::StrCat(
        "TensorProto for a ", Describe(dtype, *shape),
        ": dflow does not read variant values from protos; variants "
        "(TensorLists) are made by ops at run time"));
  }
  const std::string& content = proto.tensor_content();
  if (content.empty()) {
    absl::Status status = ReadTypedField(proto, &*tensor);
    if (!status.ok()) return status;
    return tensor;
  }
  if (dtype == DT_STRING) {
    return absl::InvalidArgumentError(absl::StrCat(
        "TensorProto for a ", Describe(dtype, *shape),
        " uses tensor_content; dflow reads string tensors only from "
        "string_val"));
  }
  if (content.size() != tensor->TotalBytes()) {
    return absl::InvalidArgumentError(
        absl::StrCat("TensorProto for a ", Describe(dtype, *shape), " has ",
                     content.size(), " bytes of tensor_content but expected ",
                     tensor->TotalBytes(), " (", tensor->NumElements(),
                     " elements of ", tensor->ElementSize(), " bytes)"));
  }
  std::memcpy(tensor->raw_data(), content.data(), content.size());
  return tensor;
}

int64_t Tensor::ProtoBytes(const TensorProto& proto) {
  const DataType dtype = proto.dtype();
  if (!IsSupportedDataType(dtype)) return -1;
  absl::StatusOr<TensorShape> shape =
      TensorShape::FromProto(proto.tensor_shape());
  if (!shape.ok() || !shape->IsFullyDefined()) return -1;
  const int64_t n = shape->num_elements();
  int64_t bytes = 0;
  if (n < 0 || __builtin_mul_overflow(
                   n, static_cast<int64_t>(StorageSize(dtype)), &bytes)) {
    return -1;
  }
  return bytes;
}

void Tensor::ToProto(TensorProto* proto, bool use_tensor_content) const {
  proto->Clear();
  proto->set_dtype(dtype_);
  shape_.ToProto(proto->mutable_tensor_shape());
  // A variant has no bytes of its own to write: dtype and shape only.
  if (!IsInitialized() || dtype_ == DT_VARIANT) return;
  if (use_tensor_content && dtype_ != DT_STRING) {
    if (TotalBytes() > 0) {  // raw_data() is null for empty tensors
      proto->set_tensor_content(static_cast<const char*>(raw_data()),
                                TotalBytes());
    }
  } else {
    WriteTypedField(*this, proto);
  }
}

}  // namespace dflow
