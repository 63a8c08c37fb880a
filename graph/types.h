// Element types of tensors: names, sizes and categories of dflow::DataType,
// the 2-byte storage types for half and bfloat16, and the compile-time mapping
// between C++ element types and DataType values that kernels and Tensor use.
//
// DataType numbers and names follow TensorFlow so GraphDefs written by either
// system read in the other ("float", "int32", "float_ref", ...).

#ifndef DFLOW_GRAPH_TYPES_H_
#define DFLOW_GRAPH_TYPES_H_

#include <complex>
#include <cstdint>
#include <string>
#include <type_traits>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "proto/types.pb.h"

namespace dflow {

// TensorFlow encodes "reference to a value of type T" as T + 100.
inline constexpr int kDataTypeRefOffset = 100;

// "float", "int32", "float_ref", ...; "unknown dtype <n>" for values that are
// not DataType enumerators.
std::string DataTypeName(DataType dtype);

// Accepts the names DataTypeName prints (case-insensitively), TensorFlow's
// enum spelling ("DT_FLOAT", "DT_INT32_REF") and the numpy-style aliases
// "float16", "float32" and "float64".
absl::StatusOr<DataType> ParseDataType(absl::string_view name);

// Bytes per element for fixed-size types; 0 for string, resource, variant,
// DT_INVALID and unknown values (their elements have no fixed size). Ref
// types report the size of their base type.
int DataTypeSize(DataType dtype);

bool IsRefType(DataType dtype);
// Returns `dtype` unchanged if it already is a ref type; DT_INVALID stays
// DT_INVALID.
DataType MakeRefType(DataType dtype);
// Removes the ref marker, if any.
DataType BaseType(DataType dtype);

// The categories look through ref types: IsFloatingType(DT_FLOAT_REF) is true.
// half, bfloat16, float, double. (float8 types are storage-only in dflow.)
bool IsFloatingType(DataType dtype);
// Signed and unsigned 8..64-bit integers and int4/uint4; not the quantized
// types, not bool.
bool IsIntegerType(DataType dtype);
// Anything arithmetic kernels may accept: floating, integer, complex,
// quantized and float8 types.
bool IsNumericType(DataType dtype);
bool IsComplexType(DataType dtype);
bool IsQuantizedType(DataType dtype);

// IEEE 754 binary16, stored as raw bits. Kernels reinterpret arrays of it as
// Eigen::half, so it must stay exactly 2 bytes and trivially copyable: no
// constructors, no virtuals, one member.
struct float16 {
  uint16_t bits;

  float ToFloat() const;
  // Rounds to nearest, ties to even; overflow becomes +-inf, tiny values
  // become half denormals or signed zero, NaN stays NaN.
  static float16 FromFloat(float value);
};

// The upper 16 bits of an IEEE float (Google Brain's bfloat16), stored as raw
// bits; reinterpreted as Eigen::bfloat16 by kernels.
struct bfloat16 {
  uint16_t bits;

  float ToFloat() const;
  // Rounds to nearest, ties to even; NaN stays NaN.
  static bfloat16 FromFloat(float value);
};

static_assert(sizeof(float16) == 2 && std::is_trivially_copyable_v<float16>,
              "float16 must be a 2-byte POD so kernels can reinterpret it");
static_assert(sizeof(bfloat16) == 2 && std::is_trivially_copyable_v<bfloat16>,
              "bfloat16 must be a 2-byte POD so kernels can reinterpret it");

using complex64 = std::complex<float>;
using complex128 = std::complex<double>;

// DataTypeToEnum<float>::value == DT_FLOAT, and
// EnumToDataType<DT_FLOAT>::Type is float. Types without a mapping fail to
// compile, which is the point: a kernel cannot silently use the wrong type.
// Quantized and float8 types have no C++ type of their own; Tensor stores
// them as the integer of the same width.
template <typename T>
struct DataTypeToEnum;
template <DataType DT>
struct EnumToDataType;

class Variant;  // graph/variant.h

#define DFLOW_MATCH_TYPE_AND_ENUM(TYPE, ENUM) \
  template <>                                 \
  struct DataTypeToEnum<TYPE> {               \
    static constexpr DataType value = ENUM;   \
  };                                          \
  template <>                                 \
  struct EnumToDataType<ENUM> {               \
    using Type = TYPE;                        \
  }

DFLOW_MATCH_TYPE_AND_ENUM(float, DT_FLOAT);
DFLOW_MATCH_TYPE_AND_ENUM(double, DT_DOUBLE);
DFLOW_MATCH_TYPE_AND_ENUM(float16, DT_HALF);
DFLOW_MATCH_TYPE_AND_ENUM(bfloat16, DT_BFLOAT16);
DFLOW_MATCH_TYPE_AND_ENUM(int8_t, DT_INT8);
DFLOW_MATCH_TYPE_AND_ENUM(int16_t, DT_INT16);
DFLOW_MATCH_TYPE_AND_ENUM(int32_t, DT_INT32);
DFLOW_MATCH_TYPE_AND_ENUM(int64_t, DT_INT64);
DFLOW_MATCH_TYPE_AND_ENUM(uint8_t, DT_UINT8);
DFLOW_MATCH_TYPE_AND_ENUM(uint16_t, DT_UINT16);
DFLOW_MATCH_TYPE_AND_ENUM(uint32_t, DT_UINT32);
DFLOW_MATCH_TYPE_AND_ENUM(uint64_t, DT_UINT64);
DFLOW_MATCH_TYPE_AND_ENUM(bool, DT_BOOL);
DFLOW_MATCH_TYPE_AND_ENUM(std::string, DT_STRING);
DFLOW_MATCH_TYPE_AND_ENUM(complex64, DT_COMPLEX64);
DFLOW_MATCH_TYPE_AND_ENUM(complex128, DT_COMPLEX128);
DFLOW_MATCH_TYPE_AND_ENUM(Variant, DT_VARIANT);

#undef DFLOW_MATCH_TYPE_AND_ENUM

// The DataType whose C++ type stores elements of `dtype`: quantized types
// use the integer of their width (DT_QUINT8 -> DT_UINT8) and float8 types
// use DT_UINT8. Ref markers are removed; every other type maps to itself.
DataType StorageDataType(DataType dtype);

// Calls `visit(static_cast<T*>(nullptr))`, where T is the C++ type that
// stores elements of `dtype` (see StorageDataType), and returns true; returns
// false without calling it when dtype has no such type (DT_INVALID,
// resource, variant, int4/uint4, unknown values). The pointer is only a type
// tag:
//
//   VisitStorageType(t.dtype(), [&](auto* tag) {
//     using T = std::remove_pointer_t<decltype(tag)>;
//     Fill(t.flat<T>());
//   });
template <typename Visitor>
bool VisitStorageType(DataType dtype, Visitor&& visit) {
  switch (StorageDataType(dtype)) {
    case DT_FLOAT:
      visit(static_cast<float*>(nullptr));
      return true;
    case DT_DOUBLE:
      visit(static_cast<double*>(nullptr));
      return true;
    case DT_HALF:
      visit(static_cast<float16*>(nullptr));
      return true;
    case DT_BFLOAT16:
      visit(static_cast<bfloat16*>(nullptr));
      return true;
    case DT_INT8:
      visit(static_cast<int8_t*>(nullptr));
      return true;
    case DT_INT16:
      visit(static_cast<int16_t*>(nullptr));
      return true;
    case DT_INT32:
      visit(static_cast<int32_t*>(nullptr));
      return true;
    case DT_INT64:
      visit(static_cast<int64_t*>(nullptr));
      return true;
    case DT_UINT8:
      visit(static_cast<uint8_t*>(nullptr));
      return true;
    case DT_UINT16:
      visit(static_cast<uint16_t*>(nullptr));
      return true;
    case DT_UINT32:
      visit(static_cast<uint32_t*>(nullptr));
      return true;
    case DT_UINT64:
      visit(static_cast<uint64_t*>(nullptr));
      return true;
    case DT_BOOL:
      visit(static_cast<bool*>(nullptr));
      return true;
    case DT_STRING:
      visit(static_cast<std::string*>(nullptr));
      return true;
    case DT_COMPLEX64:
      visit(static_cast<complex64*>(nullptr));
      return true;
    case DT_COMPLEX128:
      visit(static_cast<complex128*>(nullptr));
      return true;
    default:
      return false;
  }
}

}  // namespace dflow

#endif  // DFLOW_GRAPH_TYPES_H_
