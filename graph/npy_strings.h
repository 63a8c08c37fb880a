// Fixed-width string arrays in `.npy` files <-> DT_STRING tensors, so
// `dflow run --feed words=words.npy` takes what `np.save(np.array([b"a",
// b"bc"]))` or `np.array(["a", "bc"])` writes, and `--out` writes string
// fetches NumPy reads back.
//
// NumPy stores strings at a fixed width: '|S<n>' (n bytes each, shorter
// ones padded with NULs) and '<U<n>' (n UCS-4 code points each, NUL-padded,
// little-endian). NumPy drops trailing NULs when it reads an element, and
// so does dflow; a 'U' element becomes its UTF-8 encoding, as TensorFlow
// encodes a unicode array fed to a string placeholder. dflow writes '|S<n>'
// with n the longest string's length, and refuses a string that ends in a
// NUL byte (NumPy would read it back shorter).
#ifndef DFLOW_GRAPH_NPY_STRINGS_H_
#define DFLOW_GRAPH_NPY_STRINGS_H_

#include <cstdint>
#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "graph/tensor.h"
#include "graph/tensor_shape.h"

namespace dflow {

struct NpyStringLayout {
  char kind = 'S';     // 'S': bytes; 'U': UCS-4 code points
  int64_t width = 0;   // characters per element
  // Bytes per element in the file.
  int64_t item_bytes() const { return kind == 'U' ? 4 * width : width; }
};

// The layout a descr names ("|S5", "S5", "a5", "<U3", "=U3", "|U3"), or
// nullopt when it is not a fixed-width string (big-endian '>U' included:
// the caller's error explains it).
std::optional<NpyStringLayout> NpyStringLayoutForDescr(absl::string_view descr);

// A DT_STRING tensor of `shape` from the file's `data` (exactly
// shape.num_elements() * layout.item_bytes() bytes). A 'U' element that is
// not a Unicode code point is an InvalidArgument naming `source`.
absl::StatusOr<Tensor> DecodeNpyStrings(const NpyStringLayout& layout,
                                        const TensorShape& shape,
                                        absl::string_view data,
                                        absl::string_view source);

// A DT_STRING tensor as '|S<n>' data: its descr and its bytes.
struct EncodedNpyStrings {
  std::string descr;
  std::string data;
};
absl::StatusOr<EncodedNpyStrings> EncodeNpyStrings(const Tensor& tensor);

}  // namespace dflow

#endif  // DFLOW_GRAPH_NPY_STRINGS_H_
