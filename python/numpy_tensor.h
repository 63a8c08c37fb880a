// Converting between NumPy arrays and dflow Tensors for the `dflow` Python
// module.
//
// Numbers cross through Python's buffer protocol (PEP 3118) rather than
// NumPy's C API: the extension then builds against no particular NumPy and
// loads under NumPy 1.x and 2.x alike (NumPy 2 changed the C structs that
// pybind11 2.10's numpy.h reads). A feed is copied once into a Tensor the
// session owns (a kernel may keep it, e.g. in a variable, so it must not
// alias memory the caller can change); a fetched Tensor is handed to NumPy
// without a copy when the fetch is its only owner, and copied when it shares
// its buffer with the session (a variable's value), so writes into the
// array never change the session's state.
//
// Strings and bfloat16 have no buffer-protocol format NumPy reads: strings
// go as (shape, list of bytes) and bfloat16 as its uint16 bit patterns,
// which the Python side (python/dflow_init.py) turns into object arrays and
// ml_dtypes.bfloat16 arrays.
#ifndef DFLOW_PYTHON_NUMPY_TENSOR_H_
#define DFLOW_PYTHON_NUMPY_TENSOR_H_

#include <pybind11/pybind11.h>

#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "graph/tensor.h"
#include "graph/types.h"

namespace dflow {
namespace python {

// The DataType of a buffer-protocol format ("f", "<i8"-style codes as
// NumPy exports them: "e", "f", "d", "Zf", "Zd", "?", "b".."Q") with
// `itemsize` bytes per element. InvalidArgument for formats dflow has no
// type for (big-endian, long double, records, objects).
absl::StatusOr<DataType> DataTypeOfBufferFormat(absl::string_view format,
                                                ssize_t itemsize);

// A Tensor holding a copy of `array`'s elements (any object exporting a
// buffer; it must be C-contiguous). With `as_type` set (DT_BFLOAT16), the
// buffer holds that type's bit patterns in elements of the same size.
absl::StatusOr<Tensor> TensorFromBuffer(const pybind11::buffer& array,
                                        DataType as_type = DT_INVALID);

// A DT_STRING tensor of `shape` from a sequence of bytes (or str, UTF-8
// encoded) objects, row-major. InvalidArgument when the count does not
// match the shape or an element is neither.
absl::StatusOr<Tensor> StringTensorFromList(const pybind11::sequence& shape,
                                            const pybind11::sequence& values);

// A scalar tensor of `dtype` from a Python bool, int or float fed as a
// literal, converted as numpy.asarray(value, dtype) would (ints range-checked,
// OverflowError there, InvalidArgument here). Returns nullopt where this
// shortcut does not apply (half types, float or int to bool, float to int,
// strings): the caller converts through NumPy instead. Python's literal
// scalars are the common feed (learning rates, flags), and NumPy's asarray
// costs more than the rest of a small step's Python side.
std::optional<absl::StatusOr<Tensor>> ScalarTensorFromLiteral(
    pybind11::handle value, DataType dtype);

// Sets the NumPy scalar types (numpy.float32, ...) that rank-0 fetches are
// built with, keyed by NumPy dtype name; the Python side passes them once.
void SetNumpyScalarTypes(const pybind11::dict& types);

// A fetched tensor for Python: a NumPy scalar for rank-0 numbers (not
// half types) once SetNumpyScalarTypes ran; an object exporting its elements
// through the buffer protocol (numpy.asarray views it without a copy) for
// numbers and bool; for DT_BFLOAT16 the tuple ("bfloat16", view of uint16); for
// DT_STRING the tuple ("string", shape, list of bytes). Unimplemented for
// dtypes NumPy cannot hold (variant, resource, quantized types).
absl::StatusOr<pybind11::object> TensorToPython(Tensor tensor);

// Registers the buffer-exporting class TensorToPython returns.
void RegisterTensorBufferClass(pybind11::module_& m);

}  // namespace python
}  // namespace dflow

#endif  // DFLOW_PYTHON_NUMPY_TENSOR_H_
