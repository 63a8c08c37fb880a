#include "python/numpy_tensor.h"

#include <array>
#include <cstring>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "graph/allocator.h"
#include "graph/tensor_shape.h"

namespace py = pybind11;

namespace dflow {
namespace python {
namespace {

// A fetched tensor exposed through the buffer protocol. NumPy arrays made
// from it keep it (and so the tensor's buffer) alive as their base.
class TensorBufferView {
 public:
  TensorBufferView(Tensor tensor, std::string format, ssize_t itemsize)
      : tensor_(std::move(tensor)),
        format_(std::move(format)),
        itemsize_(itemsize) {}

  py::buffer_info Info() {
    std::vector<ssize_t> shape, strides;
    const auto dims = tensor_.shape().dims();
    shape.assign(dims.begin(), dims.end());
    strides.resize(shape.size());
    ssize_t stride = itemsize_;
    for (size_t i = shape.size(); i-- > 0;) {
      strides[i] = stride;
      stride *= shape[i];
    }
    // An empty tensor has no memory; the protocol still wants a pointer.
    static char empty_data[16];
    void* data = tensor_.raw_data();
    if (data == nullptr) data = empty_data;
    return py::buffer_info(data, itemsize_, format_,
                           static_cast<ssize_t>(shape.size()), shape, strides,
                           /*readonly=*/false);
  }

 private:
  Tensor tensor_;
  std::string format_;
  ssize_t itemsize_;
};

// The buffer format NumPy reads for a dtype; empty for dtypes it has none.
const char* BufferFormatOf(DataType dtype) {
  switch (dtype) {
    case DT_HALF:
      return "e";
    case DT_FLOAT:
      return "f";
    case DT_DOUBLE:
      return "d";
    case DT_COMPLEX64:
      return "Zf";
    case DT_COMPLEX128:
      return "Zd";
    case DT_BOOL:
      return "?";
    case DT_INT8:
      return "b";
    case DT_INT16:
      return "h";
    case DT_INT32:
      return "i";
    case DT_INT64:
      return "q";
    case DT_UINT8:
      return "B";
    case DT_UINT16:
    case DT_BFLOAT16:  // bit patterns; the Python side views them
      return "H";
    case DT_UINT32:
      return "I";
    case DT_UINT64:
      return "Q";
    default:
      return "";
  }
}

// NumPy's scalar type per DataType (index), or null; set once at import.
std::array<PyObject*, 32> numpy_scalar_types{};

// `value` (or, when `overflow` > 0, the unsigned `big`) as a T scalar;
// `overflow` < 0: below long long's range.
template <typename T>
absl::StatusOr<Tensor> IntegerScalar(long long value, int overflow,
                                     unsigned long long big) {
  using Limits = std::numeric_limits<T>;
  bool in_range;
  if (overflow < 0) {
    in_range = false;
  } else if (overflow > 0) {
    in_range = !Limits::is_signed &&
               big <= static_cast<unsigned long long>(Limits::max());
  } else if (value < 0) {
    in_range =
        Limits::is_signed && value >= static_cast<long long>(Limits::min());
  } else {
    in_range = static_cast<unsigned long long>(value) <=
               static_cast<unsigned long long>(Limits::max());
  }
  if (!in_range) {
    return absl::InvalidArgumentError(absl::StrCat(
        "the Python integer ",
        overflow > 0
            ? absl::StrCat(big)
            : (overflow < 0 ? std::string("below -2^63") : absl::StrCat(value)),
        " is out of range for ", DataTypeName(DataTypeToEnum<T>::value)));
  }
  return Tensor::Scalar<T>(overflow > 0 ? static_cast<T>(big)
                                        : static_cast<T>(value));
}

}  // namespace

std::optional<absl::StatusOr<Tensor>> ScalarTensorFromLiteral(py::handle value,
                                                              DataType dtype) {
  PyObject* o = value.ptr();
  const bool is_bool = PyBool_Check(o);
  const bool is_int = !is_bool && PyLong_CheckExact(o);
  const bool is_float = PyFloat_CheckExact(o);
  if (!is_bool && !is_int && !is_float) return std::nullopt;
  if (dtype == DT_BOOL) {
    if (!is_bool) return std::nullopt;
    return absl::StatusOr<Tensor>(Tensor::Scalar<bool>(o == Py_True));
  }
  if (is_float && !IsFloatingType(dtype) && !IsComplexType(dtype)) {
    return std::nullopt;  // NumPy truncates floats to ints its own way
  }
  double real = 0;
  if (is_bool) {
    real = o == Py_True ? 1 : 0;
  } else if (is_float) {
    real = PyFloat_AS_DOUBLE(o);
  }
  if ((is_int || is_bool) && dtype != DT_FLOAT && dtype != DT_DOUBLE &&
      dtype != DT_COMPLEX64 && dtype != DT_COMPLEX128) {
    int overflow = 0;
    const long long v =
        is_bool ? (o == Py_True) : PyLong_AsLongLongAndOverflow(o, &overflow);
    unsigned long long big = 0;
    if (overflow > 0) {
      big = PyLong_AsUnsignedLongLong(o);
      if (PyErr_Occurred()) {
        PyErr_Clear();
        return absl::StatusOr<Tensor>(absl::InvalidArgumentError(absl::StrCat(
            "a Python integer is out of range for ", DataTypeName(dtype))));
      }
    }
    switch (dtype) {
      case DT_INT8:
        return IntegerScalar<int8_t>(v, overflow, big);
      case DT_INT16:
        return IntegerScalar<int16_t>(v, overflow, big);
      case DT_INT32:
        return IntegerScalar<int32_t>(v, overflow, big);
      case DT_INT64:
        return IntegerScalar<int64_t>(v, overflow, big);
      case DT_UINT8:
        return IntegerScalar<uint8_t>(v, overflow, big);
      case DT_UINT16:
        return IntegerScalar<uint16_t>(v, overflow, big);
      case DT_UINT32:
        return IntegerScalar<uint32_t>(v, overflow, big);
      case DT_UINT64:
        return IntegerScalar<uint64_t>(v, overflow, big);
      default:
        return std::nullopt;
    }
  }
  if (is_int) real = PyLong_AsDouble(o);
  if (PyErr_Occurred()) {  // an int too large for a double
    PyErr_Clear();
    return std::nullopt;
  }
  switch (dtype) {
    case DT_FLOAT:
      return absl::StatusOr<Tensor>(
          Tensor::Scalar<float>(static_cast<float>(real)));
    case DT_DOUBLE:
      return absl::StatusOr<Tensor>(Tensor::Scalar<double>(real));
    case DT_COMPLEX64:
      return absl::StatusOr<Tensor>(
          Tensor::Scalar<complex64>(complex64(static_cast<float>(real), 0)));
    case DT_COMPLEX128:
      return absl::StatusOr<Tensor>(
          Tensor::Scalar<complex128>(complex128(real, 0)));
    default:
      return std::nullopt;  // half types round differently through float
  }
}

void SetNumpyScalarTypes(const py::dict& types) {
  for (const auto& [name, type] : types) {
    absl::StatusOr<DataType> dtype = ParseDataType(name.cast<std::string>());
    if (!dtype.ok() || *dtype <= 0 ||
        *dtype >= static_cast<int>(numpy_scalar_types.size())) {
      continue;
    }
    Py_XDECREF(numpy_scalar_types[*dtype]);
    numpy_scalar_types[*dtype] = type.ptr();
    Py_INCREF(type.ptr());
  }
}

absl::StatusOr<DataType> DataTypeOfBufferFormat(absl::string_view format,
                                                ssize_t itemsize) {
  absl::string_view code = format;
  // Native and little-endian prefixes mean the same on the hosts dflow runs
  // on; big-endian data would need swapping, which NumPy does better
  // (a.astype(a.dtype.newbyteorder("=")).
  while (!code.empty() &&
         (code[0] == '@' || code[0] == '=' || code[0] == '<')) {
    code.remove_prefix(1);
  }
  auto bad = [&]() {
    return absl::InvalidArgumentError(absl::StrCat(
        "arrays of buffer format '", format, "' (", itemsize,
        "-byte elements) have no dflow dtype; use float16/32/64, "
        "(u)int8-64, bool, complex64/128, bytes or bfloat16, in native "
        "byte order"));
  };
  if (code.size() == 2 && code[0] == 'Z') {
    if (code[1] == 'f' && itemsize == 8) return DT_COMPLEX64;
    if (code[1] == 'd' && itemsize == 16) return DT_COMPLEX128;
    return bad();
  }
  if (code.size() != 1) return bad();
  switch (code[0]) {
    case 'e':
      if (itemsize == 2) return DT_HALF;
      break;
    case 'f':
      if (itemsize == 4) return DT_FLOAT;
      break;
    case 'd':
      if (itemsize == 8) return DT_DOUBLE;
      break;
    case '?':
      if (itemsize == 1) return DT_BOOL;
      break;
    // C integer codes: their width is the itemsize (long is 8 bytes on
    // Linux, 4 on Windows), so go by it.
    case 'b':
    case 'h':
    case 'i':
    case 'l':
    case 'q':
      switch (itemsize) {
        case 1:
          return DT_INT8;
        case 2:
          return DT_INT16;
        case 4:
          return DT_INT32;
        case 8:
          return DT_INT64;
      }
      break;
    case 'B':
    case 'H':
    case 'I':
    case 'L':
    case 'Q':
      switch (itemsize) {
        case 1:
          return DT_UINT8;
        case 2:
          return DT_UINT16;
        case 4:
          return DT_UINT32;
        case 8:
          return DT_UINT64;
      }
      break;
  }
  return bad();
}

absl::StatusOr<Tensor> TensorFromBuffer(const py::buffer& array,
                                        DataType as_type) {
  py::buffer_info info = array.request();
  absl::StatusOr<DataType> dtype =
      DataTypeOfBufferFormat(info.format, info.itemsize);
  if (!dtype.ok()) return dtype.status();
  if (as_type != DT_INVALID) {
    if (DataTypeSize(as_type) != info.itemsize) {
      return absl::InvalidArgumentError(absl::StrCat(
          "bit patterns of ", DataTypeName(as_type), " need ",
          DataTypeSize(as_type), "-byte elements, not ", info.itemsize));
    }
    *dtype = as_type;
  }
  std::vector<int64_t> dims(info.shape.begin(), info.shape.end());
  ssize_t expected_stride = info.itemsize;
  for (size_t i = dims.size(); i-- > 0;) {
    if (dims[i] > 1 && info.strides[i] != expected_stride) {
      return absl::InvalidArgumentError(
          "the array is not C-contiguous; pass numpy.ascontiguousarray(a)");
    }
    expected_stride *= info.shape[i];
  }
  absl::StatusOr<Tensor> tensor =
      Tensor::Allocate(DefaultCpuAllocator(), *dtype, TensorShape(dims));
  if (!tensor.ok()) return tensor.status();
  if (tensor->NumElements() > 0) {
    std::memcpy(tensor->raw_data(), info.ptr, tensor->TotalBytes());
  }
  return tensor;
}

absl::StatusOr<Tensor> StringTensorFromList(const py::sequence& shape,
                                            const py::sequence& values) {
  std::vector<int64_t> dims;
  dims.reserve(shape.size());
  for (py::handle d : shape) dims.push_back(d.cast<int64_t>());
  absl::StatusOr<Tensor> tensor =
      Tensor::Allocate(DefaultCpuAllocator(), DT_STRING, TensorShape(dims));
  if (!tensor.ok()) return tensor.status();
  if (static_cast<int64_t>(values.size()) != tensor->NumElements()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "a string array of shape ", tensor->shape().ToString(), " needs ",
        tensor->NumElements(), " values, not ", values.size()));
  }
  std::string* out = tensor->data<std::string>();
  for (size_t i = 0; i < values.size(); ++i) {
    py::handle v = values[i];
    if (py::isinstance<py::bytes>(v)) {
      char* data = nullptr;
      ssize_t size = 0;
      PyBytes_AsStringAndSize(v.ptr(), &data, &size);
      out[i].assign(data, static_cast<size_t>(size));
    } else if (py::isinstance<py::str>(v)) {
      out[i] = v.cast<std::string>();  // UTF-8
    } else {
      return absl::InvalidArgumentError(absl::StrCat(
          "string tensors hold bytes or str values, not ",
          std::string(py::str(py::type::handle_of(v).attr("__name__")))));
    }
  }
  return tensor;
}

absl::StatusOr<py::object> TensorToPython(Tensor tensor) {
  const DataType dtype = tensor.dtype();
  if (dtype == DT_STRING) {
    py::tuple shape(tensor.shape().dims().size());
    for (size_t i = 0; i < tensor.shape().dims().size(); ++i) {
      shape[i] = py::int_(tensor.shape().dims()[i]);
    }
    py::list values(tensor.NumElements());
    const std::string* data = tensor.data<std::string>();
    for (int64_t i = 0; i < tensor.NumElements(); ++i) {
      values[i] = py::bytes(data[i]);
    }
    return py::object(py::make_tuple("string", shape, values));
  }
  const char* format = BufferFormatOf(dtype);
  if (format[0] == '\0') {
    return absl::UnimplementedError(
        absl::StrCat("fetched a ", DataTypeName(dtype),
                     " tensor, which has no NumPy equivalent"));
  }
  if (tensor.shape().dims().empty() && tensor.IsInitialized() &&
      dtype < static_cast<int>(numpy_scalar_types.size()) &&
      numpy_scalar_types[dtype] != nullptr) {
    // Rank 0: TensorFlow gives a NumPy scalar; build it from a Python
    // number (exact for every type here) without an intermediate array.
    py::handle type(numpy_scalar_types[dtype]);
    switch (dtype) {
      case DT_FLOAT:
        return type(py::float_(*tensor.data<float>()));
      case DT_DOUBLE:
        return type(py::float_(*tensor.data<double>()));
      case DT_INT8:
        return type(py::int_(*tensor.data<int8_t>()));
      case DT_INT16:
        return type(py::int_(*tensor.data<int16_t>()));
      case DT_INT32:
        return type(py::int_(*tensor.data<int32_t>()));
      case DT_INT64:
        return type(py::int_(*tensor.data<int64_t>()));
      case DT_UINT8:
        return type(py::int_(*tensor.data<uint8_t>()));
      case DT_UINT16:
        return type(py::int_(*tensor.data<uint16_t>()));
      case DT_UINT32:
        return type(py::int_(*tensor.data<uint32_t>()));
      case DT_UINT64:
        return type(py::int_(*tensor.data<uint64_t>()));
      case DT_BOOL:
        return type(py::bool_(*tensor.data<bool>()));
      default:
        break;  // half types and complex: through the buffer below
    }
  }
  if (tensor.RefCount() > 1 && tensor.NumElements() > 0) {
    // The session still holds this buffer (a variable, a constant): give
    // Python its own copy so that writing into the array changes nothing.
    absl::StatusOr<Tensor> copy =
        Tensor::Allocate(DefaultCpuAllocator(), dtype, tensor.shape());
    if (!copy.ok()) return copy.status();
    std::memcpy(copy->raw_data(), tensor.raw_data(), tensor.TotalBytes());
    tensor = *std::move(copy);
  }
  const ssize_t itemsize = DataTypeSize(dtype);
  py::object view =
      py::cast(new TensorBufferView(std::move(tensor), format, itemsize),
               py::return_value_policy::take_ownership);
  if (dtype == DT_BFLOAT16) return py::object(py::make_tuple("bfloat16", view));
  return view;
}

void RegisterTensorBufferClass(py::module_& m) {
  py::class_<TensorBufferView>(m, "_TensorBuffer", py::buffer_protocol())
      .def_buffer(&TensorBufferView::Info);
}

}  // namespace python
}  // namespace dflow
