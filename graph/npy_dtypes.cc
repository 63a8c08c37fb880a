#include "graph/npy_dtypes.h"

#include <algorithm>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"

namespace dflow {

namespace {

absl::Status NpyError(absl::string_view source, absl::string_view problem) {
  return absl::InvalidArgumentError(
      absl::StrCat("npy file '", source, "': ", problem));
}

}  // namespace

// "<f4" and friends for every type a .npy can hold; nullptr otherwise.
const char* NpyDescrFor(DataType dtype) {
  switch (dtype) {
    case DT_BOOL:
      return "|b1";
    case DT_INT8:
      return "|i1";
    case DT_UINT8:
      return "|u1";
    case DT_INT16:
      return "<i2";
    case DT_UINT16:
      return "<u2";
    case DT_INT32:
      return "<i4";
    case DT_UINT32:
      return "<u4";
    case DT_INT64:
      return "<i8";
    case DT_UINT64:
      return "<u8";
    case DT_HALF:
      return "<f2";
    case DT_FLOAT:
      return "<f4";
    case DT_DOUBLE:
      return "<f8";
    case DT_COMPLEX64:
      return "<c8";
    case DT_COMPLEX128:
      return "<c16";
    default:
      return nullptr;
  }
}


// Maps a descr string ("<f4", "|b1", ...) to a DataType, or explains why
// dflow cannot hold it.
absl::StatusOr<DataType> DataTypeForNpyDescr(absl::string_view descr,
                                          absl::string_view source) {
  absl::string_view rest = descr;
  char order = '=';
  if (!rest.empty() &&
      absl::string_view("<>|=").find(rest[0]) != absl::string_view::npos) {
    order = rest[0];
    rest.remove_prefix(1);
  }
  if (rest.empty()) {
    return NpyError(source, absl::StrCat("descr '", descr, "' is not a dtype"));
  }
  const char kind = rest[0];
  rest.remove_prefix(1);
  int size = 0;
  if (rest.empty() || rest.size() > 4 ||
      !std::all_of(rest.begin(), rest.end(), [](char c) {
        return absl::ascii_isdigit(static_cast<unsigned char>(c));
      })) {
    size = -1;  // a structured or otherwise unusual descr, explained below
  } else {
    for (char c : rest) size = size * 10 + (c - '0');
  }
  switch (kind) {
    case 'U':
      // graph/npy_strings.h reads the little-endian ones.
      return NpyError(
          source, absl::StrCat("holds big-endian unicode strings (descr '",
                               descr, "'); dflow reads little-endian only: "
                               "save a.astype('<", descr.substr(1),
                               "') instead"));
    case 'S':
    case 'a':
      return NpyError(source,
                      absl::StrCat("descr '", descr,
                                   "' is not a fixed-width string type"));
    case 'O':
      return NpyError(
          source, absl::StrCat("holds Python objects (descr '", descr,
                               "'), which need pickle; dflow loads numeric and "
                               "bool arrays only: "
                               "save e.g. np.asarray(a, dtype=np.float32)"));
    case 'V':
      return NpyError(
          source,
          absl::StrCat(
              "holds raw void records (descr '", descr,
              "'), as NumPy writes bfloat16 and other extension types; convert "
              "to a standard type first, e.g. a.astype(np.float32)"));
    case 'M':
    case 'm':
      return NpyError(
          source,
          absl::StrCat(
              "holds datetime64/timedelta64 values (descr '", descr,
              "'); convert them to integers first, e.g. a.astype(np.int64)"));
    default:
      break;
  }
  DataType dtype = DT_INVALID;
  switch (kind) {
    case 'b':
      if (size == 1) dtype = DT_BOOL;
      break;
    case 'i':
      if (size == 1) dtype = DT_INT8;
      if (size == 2) dtype = DT_INT16;
      if (size == 4) dtype = DT_INT32;
      if (size == 8) dtype = DT_INT64;
      break;
    case 'u':
      if (size == 1) dtype = DT_UINT8;
      if (size == 2) dtype = DT_UINT16;
      if (size == 4) dtype = DT_UINT32;
      if (size == 8) dtype = DT_UINT64;
      break;
    case 'f':
      if (size == 2) dtype = DT_HALF;
      if (size == 4) dtype = DT_FLOAT;
      if (size == 8) dtype = DT_DOUBLE;
      break;
    case 'c':
      if (size == 8) dtype = DT_COMPLEX64;
      if (size == 16) dtype = DT_COMPLEX128;
      break;
    default:
      break;
  }
  if (dtype == DT_INVALID) {
    return NpyError(
        source,
        absl::StrCat(
            "descr '", descr,
            "' is not a type dflow can load (bool, int8..64, "
            "uint8..64, float16/32/64, complex64/128); convert the array, e.g. "
            "a.astype(np.float32)"));
  }
  if (order == '>' && size > 1) {
    return NpyError(source,
                    absl::StrCat("holds big-endian data (descr '", descr,
                                 "'); dflow reads "
                                 "little-endian only: save a.astype('<",
                                 descr.substr(1), "') instead"));
  }
  if (order == '|' && size > 1) {
    return NpyError(
        source,
        absl::StrCat("descr '", descr, "' gives no byte order for a ", size,
                     "-byte type; expected '<", descr.substr(1), "'"));
  }
  return dtype;
}

std::string NumpyTypeName(DataType dtype) {
  switch (dtype) {
    case DT_HALF:
      return "float16";
    case DT_FLOAT:
      return "float32";
    case DT_DOUBLE:
      return "float64";
    case DT_BOOL:
    case DT_INT8:
    case DT_INT16:
    case DT_INT32:
    case DT_INT64:
    case DT_UINT8:
    case DT_UINT16:
    case DT_UINT32:
    case DT_UINT64:
    case DT_COMPLEX64:
    case DT_COMPLEX128:
      return DataTypeName(dtype);
    default:
      return absl::StrCat(DataTypeName(dtype), " (no NumPy equivalent)");
  }
}


}  // namespace dflow
