// The element types `.npy` files hold and dflow's DataTypes: NumPy's descr
// strings ("<f4", "|b1", ...) both ways, and NumPy's names for errors.
// (Fixed-width strings are graph/npy_strings.h's.)
#ifndef DFLOW_GRAPH_NPY_DTYPES_H_
#define DFLOW_GRAPH_NPY_DTYPES_H_

#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "graph/types.h"

namespace dflow {

// "<f4" and friends for every numeric or bool type a .npy can hold;
// nullptr otherwise.
const char* NpyDescrFor(DataType dtype);

// The DataType a descr names, or an InvalidArgument naming `source` that
// says what the file holds and how to convert it.
absl::StatusOr<DataType> DataTypeForNpyDescr(absl::string_view descr,
                                             absl::string_view source);

// NumPy's name for a dtype ("float32", "int64", "bool"), or the dflow name
// with "(no NumPy equivalent)" for types `.npy` files cannot hold.
std::string NumpyTypeName(DataType dtype);

}  // namespace dflow

#endif  // DFLOW_GRAPH_NPY_DTYPES_H_
