// NumPy `.npy` files <-> Tensor: how arrays get in and out of dflow
// (`dflow run --feed x=batch.npy`, `--out DIR`, tests comparing with NumPy).
//
// Reads format versions 1.0, 2.0 and 3.0; writes 1.0, or 2.0 when the header
// does not fit 1.0's 16-bit length, byte for byte as `numpy.save` does.
// Arrays are little-endian and C (row-major) order. Element types: bool,
// int8..int64, uint8..uint64, float16/32/64, complex64/128 and fixed-width
// strings (graph/npy_strings.h: 'S' and 'U' in, 'S' out). Everything else
// (big-endian data, Fortran order, objects, structured dtypes, bfloat16) is
// an error that says what the file holds and how to convert it.
// Files come from users, so every size in them is checked before it is used.
#ifndef DFLOW_GRAPH_NPY_H_
#define DFLOW_GRAPH_NPY_H_

#include <cstdint>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "graph/npy_dtypes.h"  // NumpyTypeName
#include "graph/npy_strings.h"
#include "graph/tensor.h"
#include "graph/tensor_shape.h"
#include "graph/types.h"

namespace dflow {

// A header longer than this is corruption, not an array (NumPy's own
// readers refuse more than 10000 bytes by default).
inline constexpr uint64_t kMaxNpyHeaderBytes = uint64_t{1} << 20;

// What the preamble and header of a `.npy` file say.
struct NpyHeader {
  int major_version = 1;
  int minor_version = 0;
  DataType dtype = DT_INVALID;
  TensorShape shape;
  // Bytes before the array data: magic, version, length field and header.
  uint64_t data_offset = 0;
  // For DT_STRING: the fixed-width layout (graph/npy_strings.h).
  NpyStringLayout strings;
};

// Parses the preamble and header at the start of `bytes` (which may hold
// more, e.g. the whole file). `source` names the file in error messages.
absl::StatusOr<NpyHeader> ParseNpyHeader(absl::string_view bytes,
                                         absl::string_view source);

// A whole `.npy` file held in memory.
absl::StatusOr<Tensor> ParseNpy(absl::string_view bytes,
                                absl::string_view source = "<memory>");
// Reads the data straight into the tensor (no second copy of the file).
absl::StatusOr<Tensor> ReadNpyFile(const std::string& path);

// The bytes `numpy.save` would write for this tensor's values.
absl::StatusOr<std::string> SerializeNpy(const Tensor& tensor);
// Writes atomically: a temporary file in the same directory, then rename.
absl::Status WriteNpyFile(const std::string& path, const Tensor& tensor);

}  // namespace dflow

#endif  // DFLOW_GRAPH_NPY_H_
