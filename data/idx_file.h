// IDX files -> Tensor: the container format of MNIST, Fashion-MNIST, EMNIST
// and KMNIST (http://yann.lecun.com/exdb/mnist/, "THE IDX FILE FORMAT").
//
// An IDX file is a 4-byte magic number 0x0000TTDD (TT: element type, DD:
// number of dimensions), DD big-endian int32 sizes, then the elements in
// row-major order. dflow reads the unsigned-byte files these datasets ship
// (TT = 0x08): images 0x00000803 [N, rows, cols], labels 0x00000801 [N].
//
// Files may be gzipped or not: zlib reads both through one path, so
// "train-images-idx3-ubyte.gz" needs no unpacking. Files come from users and
// downloads, so every size is checked against the bytes really there, and a
// truncated or over-long file is an error rather than a silently short or
// padded tensor.
#ifndef DFLOW_DATA_IDX_FILE_H_
#define DFLOW_DATA_IDX_FILE_H_

#include <cstdint>
#include <string>

#include "absl/status/statusor.h"
#include "graph/tensor.h"

namespace dflow {

// The IDX element-type byte of unsigned bytes, the only type dflow reads.
inline constexpr uint8_t kIdxTypeUint8 = 0x08;
// Magic numbers of the MNIST files.
inline constexpr uint32_t kIdxMagicLabels = 0x00000801;  // uint8 [N]
inline constexpr uint32_t kIdxMagicImages = 0x00000803;  // uint8 [N,rows,cols]

// Reads a uint8 IDX file (gzipped or not) into a DT_UINT8 tensor of the shape
// the file declares. `expected_rank` 1..3 demands that many dimensions (1
// for label files, 3 for image files); 0 accepts any of 1..3.
//
// Errors, each naming `path`:
//   NotFound          the file does not exist;
//   InvalidArgument   a magic number other than the expected ones (both are
//                     shown), a dimension count or size that is out of
//                     range, or a payload that is shorter or longer than the
//                     dimensions say (expected and found byte counts);
//   DataLoss          a gzip stream that is corrupt;
//   others            the file cannot be opened or read (errno's message).
absl::StatusOr<Tensor> ReadIdxFile(const std::string& path,
                                   int expected_rank = 0);

}  // namespace dflow

#endif  // DFLOW_DATA_IDX_FILE_H_
