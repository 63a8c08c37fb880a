#include "data/idx_file.h"

#include <sys/stat.h>
#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <limits>
#include <memory>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/string_view.h"
#include "graph/tensor_shape.h"

namespace dflow {
namespace {

// zlib's own buffer is 8 KiB by default; a larger one means fewer read()
// calls on a 26 MB file. Reads of whole tensors go straight into the
// tensor's memory (zlib inflates into the caller's buffer when it is large),
// so this is the only staging memory.
constexpr unsigned kGzBufferBytes = 1u << 20;
// gzread takes an unsigned count; read at most this much per call.
constexpr size_t kMaxReadChunk = size_t{1} << 30;
// IDX dimension counts dflow reads: labels (1) up to images (3).
constexpr int kMaxIdxRank = 3;

struct GzCloser {
  void operator()(gzFile file) const { gzclose(file); }
};
using GzFile = std::unique_ptr<gzFile_s, GzCloser>;

absl::Status IdxError(absl::string_view path, absl::string_view problem) {
  return absl::InvalidArgumentError(
      absl::StrCat("IDX file '", path, "': ", problem));
}

std::string Magic(uint32_t magic) {
  return absl::StrFormat("0x%08X", magic);
}

std::string MagicWithMeaning(uint32_t magic) {
  const int rank = magic & 0xFF;
  return absl::StrCat(Magic(magic), " (uint8, ", rank,
                      rank == 1 ? " dimension)" : " dimensions)");
}

// What the type byte of a magic number means, for error messages.
absl::string_view IdxTypeName(uint8_t type) {
  switch (type) {
    case 0x08:
      return "uint8";
    case 0x09:
      return "int8";
    case 0x0B:
      return "int16";
    case 0x0C:
      return "int32";
    case 0x0D:
      return "float32";
    case 0x0E:
      return "float64";
    default:
      return "no IDX type";
  }
}

uint32_t BigEndian32(const unsigned char* bytes) {
  return (uint32_t{bytes[0]} << 24) | (uint32_t{bytes[1]} << 16) |
         (uint32_t{bytes[2]} << 8) | uint32_t{bytes[3]};
}

// Reads up to `n` bytes, fewer only at the end of the data. A gzip stream
// that stops early (a truncated download) also reads short: zlib reports it
// as Z_BUF_ERROR, and the caller's byte count says the rest. Other zlib or
// I/O failures are errors.
absl::StatusOr<size_t> ReadUpTo(gzFile file, void* dst, size_t n,
                                absl::string_view path) {
  char* out = static_cast<char*>(dst);
  size_t done = 0;
  while (done < n) {
    const unsigned chunk =
        static_cast<unsigned>(std::min(n - done, kMaxReadChunk));
    const int got = gzread(file, out + done, chunk);
    if (got <= 0) break;
    done += static_cast<size_t>(got);
  }
  int err = Z_OK;
  const char* message = gzerror(file, &err);
  if (err == Z_OK || err == Z_BUF_ERROR) return done;
  if (err == Z_ERRNO) {
    const int saved = errno;
    return absl::ErrnoToStatus(
        saved, absl::StrCat("cannot read IDX file '", path, "'"));
  }
  if (err == Z_MEM_ERROR) {
    return absl::ResourceExhaustedError(absl::StrCat(
        "out of memory while decompressing IDX file '", path, "'"));
  }
  return absl::DataLossError(absl::StrCat(
      "IDX file '", path, "' is not a valid gzip stream (zlib: ", message,
      "); download it again, or gunzip it to see what it holds"));
}

// Counts the bytes left in `file` without keeping them.
absl::StatusOr<uint64_t> CountRemaining(gzFile file, absl::string_view path) {
  std::vector<char> scratch(kGzBufferBytes);
  uint64_t total = 0;
  while (true) {
    absl::StatusOr<size_t> got =
        ReadUpTo(file, scratch.data(), scratch.size(), path);
    if (!got.ok()) return got.status();
    total += *got;
    if (*got < scratch.size()) return total;
  }
}

}  // namespace

absl::StatusOr<Tensor> ReadIdxFile(const std::string& path,
                                   int expected_rank) {
  if (expected_rank < 0 || expected_rank > kMaxIdxRank) {
    return absl::InvalidArgumentError(absl::StrCat(
        "ReadIdxFile('", path, "') got expected_rank ", expected_rank,
        "; pass 1 (labels), 3 (images), 1..3, or 0 for any"));
  }
  // stat first: gzopen on a missing file and on a directory fails late or
  // vaguely, and "does not exist" is the common mistake worth naming.
  struct stat info;
  if (stat(path.c_str(), &info) != 0) {
    const int saved = errno;
    if (saved == ENOENT || saved == ENOTDIR) {
      return absl::NotFoundError(
          absl::StrCat("IDX file '", path, "' does not exist"));
    }
    return absl::ErrnoToStatus(saved,
                               absl::StrCat("cannot open IDX file '", path,
                                            "'"));
  }
  if (S_ISDIR(info.st_mode)) {
    return IdxError(path, "is a directory; name the IDX file inside it");
  }
  errno = 0;
  GzFile file(gzopen(path.c_str(), "rb"));
  if (file == nullptr) {
    const int saved = errno;
    if (saved == 0) {
      return absl::ResourceExhaustedError(absl::StrCat(
          "out of memory while opening IDX file '", path, "'"));
    }
    return absl::ErrnoToStatus(
        saved, absl::StrCat("cannot open IDX file '", path, "'"));
  }
  gzbuffer(file.get(), kGzBufferBytes);

  unsigned char magic_bytes[4];
  absl::StatusOr<size_t> got =
      ReadUpTo(file.get(), magic_bytes, sizeof(magic_bytes), path);
  if (!got.ok()) return got.status();
  if (*got < sizeof(magic_bytes)) {
    return IdxError(path, absl::StrCat("has ", *got,
                                       " bytes, fewer than the 4-byte magic "
                                       "number every IDX file starts with"));
  }
  const uint32_t magic = BigEndian32(magic_bytes);
  const uint8_t type = (magic >> 8) & 0xFF;
  const int rank = magic & 0xFF;

  std::vector<uint32_t> accepted;
  for (int r = 1; r <= kMaxIdxRank; ++r) {
    if (expected_rank == 0 || expected_rank == r) {
      accepted.push_back((uint32_t{kIdxTypeUint8} << 8) | r);
    }
  }
  if (std::find(accepted.begin(), accepted.end(), magic) == accepted.end()) {
    std::string found = Magic(magic);
    if ((magic >> 16) != 0) {
      absl::StrAppend(&found, ", which is not an IDX header (its first two "
                              "bytes must be zero)");
    } else if (type != kIdxTypeUint8) {
      absl::StrAppend(&found,
                      absl::StrFormat(" (element type 0x%02X: ", type),
                      IdxTypeName(type), "; dflow reads uint8 IDX files)");
    } else {
      found = MagicWithMeaning(magic);
    }
    std::vector<std::string> expected;
    for (uint32_t m : accepted) expected.push_back(MagicWithMeaning(m));
    return IdxError(path, absl::StrCat("magic number is ", found,
                                       "; expected ",
                                       absl::StrJoin(expected, " or ")));
  }

  unsigned char dim_bytes[4 * kMaxIdxRank];
  const size_t dim_bytes_size = 4 * static_cast<size_t>(rank);
  got = ReadUpTo(file.get(), dim_bytes, dim_bytes_size, path);
  if (!got.ok()) return got.status();
  if (*got < dim_bytes_size) {
    return IdxError(path, absl::StrCat("ends inside its header: ", rank,
                                       " dimension sizes need ",
                                       dim_bytes_size, " bytes, found ",
                                       *got));
  }
  const uint64_t header_bytes = sizeof(magic_bytes) + dim_bytes_size;
  TensorShape shape;
  for (int d = 0; d < rank; ++d) {
    // Sizes are int32 in the format; the high bit set means a negative (or
    // corrupt) size.
    const uint32_t size = BigEndian32(dim_bytes + 4 * d);
    if (size > static_cast<uint32_t>(std::numeric_limits<int32_t>::max())) {
      return IdxError(path, absl::StrCat("dimension ", d, " has size ",
                                         static_cast<int32_t>(size),
                                         "; sizes must be >= 0"));
    }
    shape.AddDim(size);
  }
  // At most three int32 sizes: the product fits in int64.
  const uint64_t expected_bytes = static_cast<uint64_t>(shape.num_elements());

  absl::StatusOr<Tensor> tensor =
      Tensor::Allocate(DefaultCpuAllocator(), DT_UINT8, shape);
  if (!tensor.ok()) {
    return absl::Status(tensor.status().code(),
                        absl::StrCat("IDX file '", path, "' of shape ",
                                     shape.ToString(), ": ",
                                     tensor.status().message()));
  }
  got = ReadUpTo(file.get(), tensor->raw_data(), expected_bytes, path);
  if (!got.ok()) return got.status();
  uint64_t found_bytes = *got;
  if (found_bytes == expected_bytes) {
    absl::StatusOr<uint64_t> extra = CountRemaining(file.get(), path);
    if (!extra.ok()) return extra.status();
    found_bytes += *extra;
  }
  if (found_bytes != expected_bytes) {
    const bool gzipped = gzdirect(file.get()) == 0;
    return IdxError(
        path,
        absl::StrCat(found_bytes < expected_bytes ? "is truncated" :
                                                    "has trailing bytes",
                     ": shape ", shape.ToString(), " needs ", expected_bytes,
                     " bytes of data after the ", header_bytes,
                     "-byte header, found ", found_bytes,
                     gzipped ? " (after decompression)" : "",
                     found_bytes < expected_bytes
                         ? "; the file is incomplete, download it again"
                         : "; the header does not describe this file"));
  }
  return tensor;
}

}  // namespace dflow
