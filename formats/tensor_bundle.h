// TensorFlow's V2 checkpoint format, the "tensor bundle": a set of named
// tensors in files that TensorFlow (tf.train.Saver, tf.train.Checkpoint,
// tf.train.load_checkpoint) and dflow both read and write.
//
// A bundle with prefix P is
//   P.index                    a LevelDB-format table (LevelDB's own table
//                              code writes and reads it, uncompressed):
//                              "" -> BundleHeaderProto, then each tensor's
//                              name -> BundleEntryProto, keys sorted bytewise;
//   P.data-00000-of-0000N ...  N data shards: each tensor's bytes at the
//                              entry's offset, numbers raw little-endian,
//                              strings as varint64 lengths, a masked CRC32C
//                              of the lengths, then the bytes.
// Every entry carries the masked CRC32C of its tensor's bytes, which Read
// checks. Partitioned (sliced) tensors are refused with a clear error.
//
//   BundleWriter writer("/ckpt/model-100");
//   writer.Add("w", w);  writer.Add("b", b);
//   absl::Status s = writer.Finish();   // data shard, then the index
//
//   auto reader = BundleReader::Open("/ckpt/model-100");
//   absl::StatusOr<Tensor> w = (*reader)->Read("w");
#ifndef DFLOW_FORMATS_TENSOR_BUNDLE_H_
#define DFLOW_FORMATS_TENSOR_BUNDLE_H_

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "graph/tensor.h"
#include "graph/tensor_shape.h"
#include "graph/types.h"
#include "proto/tensor_bundle.pb.h"

namespace dflow {

// "<prefix>.index".
std::string BundleIndexFilename(absl::string_view prefix);
// "<prefix>.data-<shard>-of-<num_shards>", both five digits wide.
std::string BundleDataFilename(absl::string_view prefix, int shard,
                               int num_shards);

// What a bundle says about one tensor without reading it.
struct BundleTensorInfo {
  std::string name;
  DataType dtype = DT_INVALID;
  TensorShape shape;
};

// Writes a one-shard bundle. Add streams each tensor's bytes to a temporary
// data file; Finish syncs it and renames it into place, then writes the index
// the same way (temporary file, sync, rename, directory sync), so an index
// only ever names data that is complete on disk. A writer dropped before
// Finish deletes its temporary files and leaves the prefix as it was.
class BundleWriter {
 public:
  explicit BundleWriter(std::string prefix);
  ~BundleWriter();
  BundleWriter(const BundleWriter&) = delete;
  BundleWriter& operator=(const BundleWriter&) = delete;

  // Appends `tensor` under `name` (non-empty, not added before). Numbers,
  // bool and strings; not resource/variant tensors.
  absl::Status Add(absl::string_view name, const Tensor& tensor);
  // Writes the data shard and then the index. After an error, the writer
  // is finished and every later call fails.
  absl::Status Finish();

  const std::string& prefix() const { return prefix_; }

 private:
  absl::Status Open();
  absl::Status Append(absl::string_view bytes);
  absl::Status Flush();
  void Abandon();

  std::string prefix_;
  absl::Status status_;
  bool finished_ = false;
  int fd_ = -1;
  std::string data_tmp_;
  std::string buffer_;
  int64_t size_ = 0;
  std::map<std::string, BundleEntryProto> entries_;
};

class BundleReader {
 public:
  // Reads and checks `<prefix>.index`: NotFound if it does not exist,
  // DataLoss if it is not a readable bundle index (both name the file).
  // Data shards are opened when a tensor in them is first read.
  static absl::StatusOr<std::unique_ptr<BundleReader>> Open(
      absl::string_view prefix);
  ~BundleReader();

  // Every tensor, sorted by name.
  std::vector<BundleTensorInfo> ListTensors() const;
  bool Contains(absl::string_view name) const;
  // A tensor's dtype and shape; the errors of Read about names, slices and
  // entries (not about the data).
  absl::StatusOr<BundleTensorInfo> Lookup(absl::string_view name) const;
  // Reads one tensor, checking its size and CRC32C. NotFound (naming the
  // closest names the bundle holds) if there is no such tensor; DataLoss
  // naming the tensor and file when a shard is short or its bytes do not
  // match their checksum; Unimplemented for partitioned tensors.
  absl::StatusOr<Tensor> Read(absl::string_view name);

  const std::string& prefix() const { return prefix_; }
  int num_shards() const { return header_.num_shards(); }
  const BundleHeaderProto& header() const { return header_; }
  // The raw entries, keyed by name (MergeBundles rewrites them).
  const std::map<std::string, BundleEntryProto>& entries() const {
    return entries_;
  }

 private:
  explicit BundleReader(std::string prefix) : prefix_(std::move(prefix)) {}
  absl::StatusOr<const BundleEntryProto*> FindEntry(
      absl::string_view name) const;
  absl::StatusOr<int> ShardFd(int shard);

  std::string prefix_;
  BundleHeaderProto header_;
  std::map<std::string, BundleEntryProto> entries_;
  std::map<int, int> shard_fds_;
};

// Merges the bundles at `prefixes` into one at `merged_prefix`, as
// TensorFlow's MergeV2Checkpoints does after a sharded save: each input's
// data shards are renamed (their bytes untouched) to the merged prefix's
// shard names, an index naming them with new shard ids is written, and the
// inputs' index files are deleted. A tensor name in two inputs is an error.
// With allow_missing_files, prefixes without an index are skipped (but at
// least one must exist).
absl::Status MergeBundles(absl::Span<const std::string> prefixes,
                          absl::string_view merged_prefix,
                          bool allow_missing_files = false);

// Deletes the index and every data shard of the bundle at `prefix` (files
// named `<prefix>.data-NNNNN-of-NNNNN` in its directory). Best effort:
// returns the first error, but tries every file.
absl::Status DeleteBundle(absl::string_view prefix);

}  // namespace dflow

#endif  // DFLOW_FORMATS_TENSOR_BUNDLE_H_
