#include "formats/tensor_bundle.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <limits>
#include <set>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "formats/crc32c.h"
#include "formats/file_util.h"
#include "leveldb/env.h"
#include "leveldb/iterator.h"
#include "leveldb/options.h"
#include "leveldb/table.h"
#include "leveldb/table_builder.h"

namespace dflow {
namespace {

using file_util::ErrnoError;

// The format version TensorFlow writes (kTensorBundleVersion) and the oldest
// consumer it asks for.
constexpr int kBundleVersion = 1;
constexpr int kBundleMinConsumer = 0;
// Bytes buffered before a write(2) of the data shard.
constexpr size_t kWriteBufferBytes = 1 << 20;

// --- LevelDB file adapters: the index is built in memory and written
// atomically by file_util, and read whole before LevelDB parses it, so
// LevelDB never touches the file system itself.

class StringSink : public leveldb::WritableFile {
 public:
  leveldb::Status Append(const leveldb::Slice& data) override {
    contents_.append(data.data(), data.size());
    return leveldb::Status::OK();
  }
  leveldb::Status Close() override { return leveldb::Status::OK(); }
  leveldb::Status Flush() override { return leveldb::Status::OK(); }
  leveldb::Status Sync() override { return leveldb::Status::OK(); }
  std::string* contents() { return &contents_; }

 private:
  std::string contents_;
};

class StringSource : public leveldb::RandomAccessFile {
 public:
  explicit StringSource(std::string contents)
      : contents_(std::move(contents)) {}
  leveldb::Status Read(uint64_t offset, size_t n, leveldb::Slice* result,
                       char* /*scratch*/) const override {
    if (offset > contents_.size()) {
      *result = leveldb::Slice();
      return leveldb::Status::IOError("read past the end of the index");
    }
    n = std::min<size_t>(n, contents_.size() - offset);
    *result = leveldb::Slice(contents_.data() + offset, n);
    return leveldb::Status::OK();
  }
  uint64_t size() const { return contents_.size(); }

 private:
  const std::string contents_;
};

leveldb::Options TableOptions() {
  leveldb::Options options;
  // TensorFlow writes its indexes uncompressed; LevelDB's default is Snappy.
  options.compression = leveldb::kNoCompression;
  // Check every block's CRC when reading.
  options.paranoid_checks = true;
  return options;
}

// Builds the bytes of an index table: the header under "", then `entries`
// (a std::map, so already in bytewise key order as LevelDB requires).
absl::StatusOr<std::string> BuildIndex(
    const BundleHeaderProto& header,
    const std::map<std::string, BundleEntryProto>& entries,
    const std::string& path) {
  StringSink sink;
  leveldb::TableBuilder builder(TableOptions(), &sink);
  builder.Add("", header.SerializeAsString());
  for (const auto& [name, entry] : entries) {
    builder.Add(name, entry.SerializeAsString());
  }
  leveldb::Status s = builder.Finish();
  if (!s.ok()) {
    return absl::InternalError(absl::StrCat("cannot build checkpoint index '",
                                            path, "': ", s.ToString()));
  }
  return std::move(*sink.contents());
}

BundleHeaderProto MakeHeader(int num_shards) {
  BundleHeaderProto header;
  header.set_num_shards(num_shards);
  header.set_endianness(BundleHeaderProto::LITTLE);
  header.mutable_version()->set_producer(kBundleVersion);
  header.mutable_version()->set_min_consumer(kBundleMinConsumer);
  return header;
}

void PutVarint64(std::string* out, uint64_t v) {
  while (v >= 0x80) {
    out->push_back(static_cast<char>((v & 0x7f) | 0x80));
    v >>= 7;
  }
  out->push_back(static_cast<char>(v));
}

bool GetVarint64(absl::string_view* in, uint64_t* v) {
  uint64_t result = 0;
  for (int shift = 0; shift <= 63 && !in->empty(); shift += 7) {
    const uint8_t byte = static_cast<uint8_t>((*in)[0]);
    in->remove_prefix(1);
    result |= static_cast<uint64_t>(byte & 0x7f) << shift;
    if ((byte & 0x80) == 0) {
      *v = result;
      return true;
    }
  }
  return false;
}

// Checks the block handles of a LevelDB table's footer (its last 48 bytes:
// the metaindex and index blocks' offsets and sizes, then the magic number)
// against the table's size. LevelDB allocates a block's size before reading
// it and the footer has no checksum, so a corrupt size would otherwise reach
// operator new (std::bad_alloc, an abort) or allocate gigabytes for a file
// of a few bytes. Every other block is found through the index block, whose
// checksum paranoid_checks verifies.
absl::Status CheckTableFooter(absl::string_view table) {
  constexpr size_t kFooterBytes = 48;
  constexpr size_t kBlockTrailerBytes = 5;  // compression type, CRC32C
  if (table.size() < kFooterBytes) {
    return absl::DataLossError(absl::StrCat(
        "it has ", table.size(), " bytes, fewer than a LevelDB table's ",
        kFooterBytes, "-byte footer"));
  }
  const absl::string_view footer = table.substr(table.size() - kFooterBytes);
  const uint64_t limit = table.size() - kFooterBytes;
  absl::string_view handles = footer;
  for (const char* block : {"metaindex", "index"}) {
    uint64_t offset = 0;
    uint64_t bytes = 0;
    if (!GetVarint64(&handles, &offset) || !GetVarint64(&handles, &bytes) ||
        offset > limit || bytes > limit - offset ||
        kBlockTrailerBytes > limit - offset - bytes) {
      return absl::DataLossError(absl::StrCat(
          "its footer's ", block, " block (offset ", offset, ", ", bytes,
          " bytes) does not lie within its ", table.size(), " bytes"));
    }
  }
  return absl::OkStatus();
}

// The CRC of string lengths covers each length as a 4-byte little-endian
// number (8 bytes past 4 GiB), not its varint: TensorFlow's rule, kept so
// that older checkpoints with 32-bit lengths still verify.
uint32_t ExtendWithLength(uint32_t crc, uint64_t length) {
  if (length <= std::numeric_limits<uint32_t>::max()) {
    const uint32_t l32 = static_cast<uint32_t>(length);
    return crc32c::Extend(
        crc, absl::string_view(reinterpret_cast<const char*>(&l32), 4));
  }
  return crc32c::Extend(
      crc, absl::string_view(reinterpret_cast<const char*>(&length), 8));
}

bool IsStorableDtype(DataType dtype) {
  return dtype != DT_INVALID && dtype != DT_RESOURCE && dtype != DT_VARIANT &&
         !IsRefType(dtype) && Tensor::IsSupportedDataType(dtype);
}

// Names of `names` closest to `wanted`: the longest common prefix first.
std::vector<std::string> NearNames(
    const std::map<std::string, BundleEntryProto>& names,
    absl::string_view wanted, size_t count) {
  std::vector<std::pair<size_t, std::string>> scored;
  for (const auto& [name, entry] : names) {
    size_t common = 0;
    while (common < name.size() && common < wanted.size() &&
           name[common] == wanted[common]) {
      ++common;
    }
    scored.emplace_back(common, name);
  }
  std::stable_sort(
      scored.begin(), scored.end(),
      [](const auto& a, const auto& b) { return a.first > b.first; });
  std::vector<std::string> out;
  for (size_t i = 0; i < scored.size() && i < count; ++i) {
    out.push_back(scored[i].second);
  }
  return out;
}

absl::Status DataLossIn(absl::string_view file, absl::string_view what) {
  return absl::DataLossError(
      absl::StrCat("checkpoint file '", file, "' is damaged: ", what,
                   "; restore an older checkpoint or save this one again"));
}

}  // namespace

std::string BundleIndexFilename(absl::string_view prefix) {
  return absl::StrCat(prefix, ".index");
}

std::string BundleDataFilename(absl::string_view prefix, int shard,
                               int num_shards) {
  return absl::StrFormat("%s.data-%05d-of-%05d", prefix, shard, num_shards);
}

// --- BundleWriter ---

BundleWriter::BundleWriter(std::string prefix) : prefix_(std::move(prefix)) {
  if (prefix_.empty() || file_util::SplitPath(prefix_).second.empty()) {
    status_ = absl::InvalidArgumentError(absl::StrCat(
        "checkpoint prefix '", prefix_,
        "' names no file; give a path and a file name prefix such as "
        "'/tmp/train/model'"));
  }
}

BundleWriter::~BundleWriter() {
  if (!finished_) Abandon();
}

void BundleWriter::Abandon() {
  if (fd_ >= 0) {
    close(fd_);
    fd_ = -1;
  }
  if (!data_tmp_.empty()) unlink(data_tmp_.c_str());
  data_tmp_.clear();
  finished_ = true;
}

absl::Status BundleWriter::Open() {
  if (fd_ >= 0) return absl::OkStatus();
  absl::Status status =
      file_util::CreateDirs(file_util::SplitPath(prefix_).first);
  if (!status.ok()) return status;
  data_tmp_ = file_util::TempPath(BundleDataFilename(prefix_, 0, 1));
  fd_ = open(data_tmp_.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd_ < 0) {
    status = ErrnoError("cannot create checkpoint data file", data_tmp_);
    data_tmp_.clear();
  }
  return status;
}

absl::Status BundleWriter::Flush() {
  absl::Status status = file_util::WriteAll(fd_, buffer_, data_tmp_);
  buffer_.clear();
  return status;
}

absl::Status BundleWriter::Append(absl::string_view bytes) {
  if (buffer_.size() + bytes.size() > kWriteBufferBytes) {
    absl::Status status = Flush();
    if (!status.ok()) return status;
    if (bytes.size() > kWriteBufferBytes) {
      return file_util::WriteAll(fd_, bytes, data_tmp_);
    }
  }
  buffer_.append(bytes.data(), bytes.size());
  return absl::OkStatus();
}

absl::Status BundleWriter::Add(absl::string_view name, const Tensor& tensor) {
  if (!status_.ok()) return status_;
  if (finished_) {
    return absl::FailedPreconditionError(absl::StrCat(
        "BundleWriter for '", prefix_, "' is finished; make a new one"));
  }
  if (name.empty()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "cannot add a tensor with an empty name to checkpoint '", prefix_,
        "' (the empty key holds the header); name the tensor"));
  }
  if (entries_.count(std::string(name)) > 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("tensor '", name, "' is added twice to checkpoint '",
                     prefix_, "'; give every tensor its own name"));
  }
  if (!tensor.IsInitialized() || !IsStorableDtype(tensor.dtype())) {
    return absl::InvalidArgumentError(absl::StrCat(
        "cannot save tensor '", name, "' of dtype ",
        DataTypeName(tensor.dtype()), " to checkpoint '", prefix_,
        "': checkpoints hold initialized number, bool and string tensors"));
  }
  status_ = Open();
  if (!status_.ok()) return status_;

  BundleEntryProto entry;
  entry.set_dtype(tensor.dtype());
  tensor.shape().ToProto(entry.mutable_shape());
  entry.set_shard_id(0);
  entry.set_offset(size_);
  uint32_t crc = 0;
  int64_t bytes = 0;
  if (tensor.dtype() == DT_STRING) {
    auto strings = tensor.flat<std::string>();
    std::string lengths;
    for (const std::string& s : strings) {
      PutVarint64(&lengths, s.size());
      crc = ExtendWithLength(crc, s.size());
    }
    const uint32_t length_checksum = crc32c::Mask(crc);
    char le[4];
    std::memcpy(le, &length_checksum, 4);  // x86/ARM: little-endian
    crc = crc32c::Extend(crc, absl::string_view(le, 4));
    status_ = Append(lengths);
    if (status_.ok()) status_ = Append(absl::string_view(le, 4));
    bytes = static_cast<int64_t>(lengths.size()) + 4;
    for (const std::string& s : strings) {
      if (!status_.ok()) break;
      status_ = Append(s);
      crc = crc32c::Extend(crc, s);
      bytes += static_cast<int64_t>(s.size());
    }
  } else {
    absl::string_view data(static_cast<const char*>(tensor.raw_data()),
                           tensor.TotalBytes());
    crc = crc32c::Crc32c(data);
    status_ = Append(data);
    bytes = static_cast<int64_t>(data.size());
  }
  if (!status_.ok()) return status_;
  entry.set_size(bytes);
  entry.set_crc32c(crc32c::Mask(crc));
  size_ += bytes;
  entries_.emplace(std::string(name), std::move(entry));
  return absl::OkStatus();
}

absl::Status BundleWriter::Finish() {
  if (finished_) {
    return status_.ok() ? absl::FailedPreconditionError(absl::StrCat(
                              "BundleWriter for '", prefix_,
                              "' is already finished; make a new one"))
                        : status_;
  }
  if (!status_.ok()) {
    Abandon();
    return status_;
  }
  // An empty bundle still has its (empty) data shard, as in TensorFlow.
  status_ = Open();
  if (status_.ok()) status_ = Flush();
  if (status_.ok()) {
    const std::string data_path = BundleDataFilename(prefix_, 0, 1);
    status_ = file_util::CommitTempFile(fd_, data_tmp_, data_path);
    fd_ = -1;
    data_tmp_.clear();
  }
  if (status_.ok()) {
    const std::string index_path = BundleIndexFilename(prefix_);
    absl::StatusOr<std::string> index =
        BuildIndex(MakeHeader(1), entries_, index_path);
    status_ = index.ok() ? file_util::WriteFileAtomically(index_path, *index)
                         : index.status();
  }
  Abandon();
  entries_.clear();
  return status_;
}

// --- BundleReader ---

absl::StatusOr<std::unique_ptr<BundleReader>> BundleReader::Open(
    absl::string_view prefix) {
  const std::string path = BundleIndexFilename(prefix);
  absl::StatusOr<std::string> contents =
      file_util::ReadFile(path, "checkpoint index");
  if (!contents.ok()) {
    if (absl::IsNotFound(contents.status())) {
      return absl::NotFoundError(absl::StrCat(
          "checkpoint '", prefix, "' has no index file '", path,
          "'; pass the prefix of a V2 checkpoint (the path without .index), "
          "e.g. the one the directory's `checkpoint` file names"));
    }
    return contents.status();
  }
  if (absl::Status footer = CheckTableFooter(*contents); !footer.ok()) {
    return DataLossIn(path,
                      absl::StrCat("it is not a readable checkpoint index "
                                   "(LevelDB table): ",
                                   footer.message()));
  }
  const uint64_t size = contents->size();
  auto source = std::make_unique<StringSource>(*std::move(contents));
  leveldb::Table* raw_table = nullptr;
  leveldb::Status s =
      leveldb::Table::Open(TableOptions(), source.get(), size, &raw_table);
  if (!s.ok()) {
    return DataLossIn(path, absl::StrCat("it is not a readable checkpoint "
                                         "index (LevelDB table): ",
                                         s.ToString()));
  }
  std::unique_ptr<leveldb::Table> table(raw_table);
  leveldb::ReadOptions read_options;
  read_options.verify_checksums = true;
  std::unique_ptr<leveldb::Iterator> it(table->NewIterator(read_options));
  std::unique_ptr<BundleReader> reader(new BundleReader(std::string(prefix)));
  it->SeekToFirst();
  if (!it->Valid() || !it->key().empty()) {
    return DataLossIn(
        path, absl::StrCat("it has no header entry",
                           it->status().ok() ? std::string()
                                             : ": " + it->status().ToString()));
  }
  if (!reader->header_.ParseFromArray(it->value().data(),
                                      static_cast<int>(it->value().size()))) {
    return DataLossIn(path, "its header does not parse");
  }
  const BundleHeaderProto& header = reader->header_;
  if (header.endianness() != BundleHeaderProto::LITTLE) {
    return absl::UnimplementedError(absl::StrCat(
        "checkpoint '", prefix,
        "' was written on a big-endian machine; dflow reads little-endian "
        "checkpoints only (convert it with TensorFlow on this machine)"));
  }
  if (header.version().min_consumer() > kBundleVersion ||
      std::count(header.version().bad_consumers().begin(),
                 header.version().bad_consumers().end(), kBundleVersion) > 0) {
    return absl::UnimplementedError(absl::StrCat(
        "checkpoint '", prefix, "' needs a tensor bundle reader of version ",
        header.version().min_consumer(), " or newer; this dflow reads version ",
        kBundleVersion));
  }
  if (header.num_shards() < 1) {
    return DataLossIn(path, absl::StrCat("its header names ",
                                         header.num_shards(), " data shards"));
  }
  for (it->Next(); it->Valid(); it->Next()) {
    BundleEntryProto entry;
    const std::string name = it->key().ToString();
    if (!entry.ParseFromArray(it->value().data(),
                              static_cast<int>(it->value().size()))) {
      return DataLossIn(
          path, absl::StrCat("the entry of '", name, "' does not parse"));
    }
    reader->entries_.emplace(name, std::move(entry));
  }
  if (!it->status().ok()) {
    return DataLossIn(path, it->status().ToString());
  }
  return reader;
}

BundleReader::~BundleReader() {
  for (const auto& [shard, fd] : shard_fds_) close(fd);
}

std::vector<BundleTensorInfo> BundleReader::ListTensors() const {
  std::vector<BundleTensorInfo> out;
  for (const auto& [name, entry] : entries_) {
    // The slices of a partitioned tensor are stored under encoded keys
    // beside the full tensor's entry; list only the full tensor.
    BundleTensorInfo info;
    info.name = name;
    info.dtype = entry.dtype();
    absl::StatusOr<TensorShape> shape = TensorShape::FromProto(entry.shape());
    info.shape = shape.ok() ? *shape : TensorShape::Unknown();
    out.push_back(std::move(info));
  }
  return out;
}

bool BundleReader::Contains(absl::string_view name) const {
  return entries_.count(std::string(name)) > 0;
}

absl::StatusOr<const BundleEntryProto*> BundleReader::FindEntry(
    absl::string_view name) const {
  auto it = entries_.find(std::string(name));
  if (it == entries_.end()) {
    std::vector<std::string> near = NearNames(entries_, name, 5);
    return absl::NotFoundError(absl::StrCat(
        "tensor '", name, "' is not in checkpoint '", prefix_, "' (",
        entries_.size(), " tensors",
        near.empty() ? std::string()
                     : absl::StrCat("; the closest names are '",
                                    absl::StrJoin(near, "', '"), "'"),
        "); check the variable's name, or restore a checkpoint saved from "
        "this graph"));
  }
  const BundleEntryProto& entry = it->second;
  if (entry.slices_size() > 0) {
    return absl::UnimplementedError(absl::StrCat(
        "tensor '", name, "' in checkpoint '", prefix_,
        "' is partitioned (saved as ", entry.slices_size(),
        " slices, e.g. a tf.compat.v1 partitioned variable); dflow reads "
        "whole tensors only: save the variable unpartitioned"));
  }
  return &entry;
}

absl::StatusOr<BundleTensorInfo> BundleReader::Lookup(
    absl::string_view name) const {
  absl::StatusOr<const BundleEntryProto*> entry = FindEntry(name);
  if (!entry.ok()) return entry.status();
  BundleTensorInfo info;
  info.name = std::string(name);
  info.dtype = (*entry)->dtype();
  absl::StatusOr<TensorShape> shape = TensorShape::FromProto((*entry)->shape());
  if (!shape.ok() || !shape->IsFullyDefined()) {
    return DataLossIn(BundleIndexFilename(prefix_),
                      absl::StrCat("tensor '", name, "' has an invalid shape"));
  }
  if (!IsStorableDtype(info.dtype)) {
    return absl::UnimplementedError(absl::StrCat(
        "tensor '", name, "' in checkpoint '", prefix_, "' has dtype ",
        DataTypeName(info.dtype), ", which dflow cannot restore"));
  }
  info.shape = *std::move(shape);
  return info;
}

absl::StatusOr<int> BundleReader::ShardFd(int shard) {
  auto it = shard_fds_.find(shard);
  if (it != shard_fds_.end()) return it->second;
  const std::string path = BundleDataFilename(prefix_, shard, num_shards());
  int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    if (errno == ENOENT) {
      return absl::NotFoundError(
          absl::StrCat("checkpoint '", prefix_, "' is missing its data file '",
                       path, "' (shard ", shard, " of ", num_shards(),
                       "); copy every .data-* file along with the .index"));
    }
    return ErrnoError("cannot open checkpoint data file", path);
  }
  shard_fds_.emplace(shard, fd);
  return fd;
}

absl::StatusOr<Tensor> BundleReader::Read(absl::string_view name) {
  absl::StatusOr<BundleTensorInfo> info = Lookup(name);
  if (!info.ok()) return info.status();
  const BundleEntryProto& entry = entries_.find(std::string(name))->second;
  const std::string index_path = BundleIndexFilename(prefix_);
  if (entry.shard_id() < 0 || entry.shard_id() >= num_shards() ||
      entry.offset() < 0 || entry.size() < 0) {
    return DataLossIn(
        index_path,
        absl::StrCat("the entry of tensor '", name, "' names shard ",
                     entry.shard_id(), " of ", num_shards(), ", offset ",
                     entry.offset(), ", size ", entry.size()));
  }
  const std::string data_path =
      BundleDataFilename(prefix_, entry.shard_id(), num_shards());
  // Sizes are checked against the shape and the shard before anything is
  // allocated: an entry may claim any shape and size.
  const int64_t elements = info->shape.num_elements();
  if (info->dtype != DT_STRING) {
    int64_t expected = 0;
    if (elements < 0 ||
        __builtin_mul_overflow(elements,
                               static_cast<int64_t>(DataTypeSize(info->dtype)),
                               &expected) ||
        entry.size() != expected) {
      return DataLossIn(
          index_path,
          absl::StrCat("tensor '", name, "' (", DataTypeName(info->dtype), " ",
                       info->shape.ToString(), ") should take ",
                       elements < 0 || expected < 0 ? std::string("?")
                                                    : absl::StrCat(expected),
                       " bytes but its entry says ", entry.size()));
    }
  } else if (elements < 0 || entry.size() < elements + 4) {
    return DataLossIn(
        index_path,
        absl::StrCat("string tensor '", name, "' of ", elements,
                     " elements cannot fit in ", entry.size(), " bytes"));
  }
  absl::StatusOr<int> fd = ShardFd(entry.shard_id());
  if (!fd.ok()) return fd.status();
  struct stat st;
  if (fstat(*fd, &st) != 0) {
    return ErrnoError("cannot read checkpoint data file", data_path);
  }
  if (entry.offset() > st.st_size ||
      entry.size() > st.st_size - entry.offset()) {
    return DataLossIn(data_path,
                      absl::StrCat("it is truncated: tensor '", name,
                                   "' needs bytes [", entry.offset(), ", ",
                                   static_cast<uint64_t>(entry.offset()) +
                                       static_cast<uint64_t>(entry.size()),
                                   ") but the file has ", st.st_size));
  }
  absl::StatusOr<Tensor> tensor =
      Tensor::Allocate(DefaultCpuAllocator(), info->dtype, info->shape);
  if (!tensor.ok()) return tensor.status();

  std::string bytes(static_cast<size_t>(entry.size()), '\0');
  size_t done = 0;
  while (done < bytes.size()) {
    ssize_t n = pread(*fd, bytes.data() + done, bytes.size() - done,
                      static_cast<off_t>(entry.offset() + done));
    if (n < 0) {
      if (errno == EINTR) continue;
      return ErrnoError("cannot read checkpoint data file", data_path);
    }
    if (n == 0) {
      return DataLossIn(
          data_path,
          absl::StrCat("it is truncated: tensor '", name, "' needs bytes [",
                       entry.offset(), ", ", entry.offset() + entry.size(),
                       ") but the file ends at ", entry.offset() + done));
    }
    done += static_cast<size_t>(n);
  }

  uint32_t crc = 0;
  if (info->dtype != DT_STRING) {
    crc = crc32c::Crc32c(bytes);
    if (!bytes.empty())
      std::memcpy(tensor->raw_data(), bytes.data(), bytes.size());
  } else {
    absl::string_view in(bytes);
    std::vector<uint64_t> lengths(static_cast<size_t>(elements));
    uint64_t total = 0;
    for (uint64_t& length : lengths) {
      if (!GetVarint64(&in, &length)) {
        return DataLossIn(data_path, absl::StrCat("the string lengths of "
                                                  "tensor '",
                                                  name, "' are malformed"));
      }
      crc = ExtendWithLength(crc, length);
      total += length;
    }
    if (in.size() < 4) {
      return DataLossIn(data_path, absl::StrCat("tensor '", name,
                                                "' lacks its length checksum"));
    }
    uint32_t length_checksum;
    std::memcpy(&length_checksum, in.data(), 4);
    if (crc32c::Unmask(length_checksum) != crc) {
      return DataLossIn(data_path,
                        absl::StrCat("the checksum of tensor '", name,
                                     "''s string lengths does not match"));
    }
    crc = crc32c::Extend(crc, in.substr(0, 4));
    in.remove_prefix(4);
    if (total != in.size()) {
      return DataLossIn(data_path, absl::StrCat("string tensor '", name,
                                                "' holds ", in.size(),
                                                " bytes of text, its lengths "
                                                "add up to ",
                                                total));
    }
    crc = crc32c::Extend(crc, in);
    auto out = tensor->flat<std::string>();
    for (size_t i = 0; i < lengths.size(); ++i) {
      out[i].assign(in.data(), static_cast<size_t>(lengths[i]));
      in.remove_prefix(static_cast<size_t>(lengths[i]));
    }
  }
  if (crc != crc32c::Unmask(entry.crc32c())) {
    return DataLossIn(
        data_path,
        absl::StrFormat("the bytes of tensor '%s' (%d bytes at offset %d) do "
                        "not match their CRC32C (stored %08x, computed %08x)",
                        std::string(name), entry.size(), entry.offset(),
                        crc32c::Unmask(entry.crc32c()), crc));
  }
  return tensor;
}

// --- MergeBundles, DeleteBundle ---

absl::Status MergeBundles(absl::Span<const std::string> prefixes,
                          absl::string_view merged_prefix,
                          bool allow_missing_files) {
  absl::Status status =
      file_util::CreateDirs(file_util::SplitPath(merged_prefix).first);
  if (!status.ok()) return status;
  std::map<std::string, BundleEntryProto> merged;
  // (old data file, new shard id), in shard-id order.
  std::vector<std::string> renames;
  std::vector<std::string> merged_indexes;
  for (const std::string& prefix : prefixes) {
    if (!file_util::FileExists(BundleIndexFilename(prefix))) {
      if (allow_missing_files) continue;
      return absl::InvalidArgumentError(absl::StrCat(
          "cannot merge checkpoint '", prefix, "' into '", merged_prefix,
          "': its index '", BundleIndexFilename(prefix),
          "' does not exist (set allow_missing_files to skip it)"));
    }
    absl::StatusOr<std::unique_ptr<BundleReader>> reader =
        BundleReader::Open(prefix);
    if (!reader.ok()) return reader.status();
    const int offset = static_cast<int>(renames.size());
    const int shards = (*reader)->num_shards();
    for (int i = 0; i < shards; ++i) {
      renames.push_back(BundleDataFilename(prefix, i, shards));
    }
    for (const auto& [name, entry] : (*reader)->entries()) {
      if (merged.count(name) > 0) {
        return absl::InvalidArgumentError(absl::StrCat(
            "tensor '", name, "' is in two of the checkpoints merged into '",
            merged_prefix, "' (again in '", prefix,
            "'); each tensor must be saved by one shard"));
      }
      BundleEntryProto moved = entry;
      moved.set_shard_id(offset + entry.shard_id());
      merged.emplace(name, std::move(moved));
    }
    merged_indexes.push_back(BundleIndexFilename(prefix));
  }
  if (merged_indexes.empty()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "none of the ", prefixes.size(), " checkpoints to merge into '",
        merged_prefix, "' exists; at least one must"));
  }
  const int total = static_cast<int>(renames.size());
  for (int i = 0; i < total; ++i) {
    const std::string to = BundleDataFilename(merged_prefix, i, total);
    if (rename(renames[i].c_str(), to.c_str()) != 0) {
      return ErrnoError(absl::StrCat("cannot rename checkpoint data file '",
                                     renames[i], "' to"),
                        to);
    }
  }
  const std::string index_path = BundleIndexFilename(merged_prefix);
  absl::StatusOr<std::string> index =
      BuildIndex(MakeHeader(total), merged, index_path);
  if (!index.ok()) return index.status();
  status = file_util::WriteFileAtomically(index_path, *index);
  if (!status.ok()) return status;
  for (const std::string& path : merged_indexes) {
    if (path != index_path) unlink(path.c_str());
  }
  return absl::OkStatus();
}

absl::Status DeleteBundle(absl::string_view prefix) {
  absl::Status status = absl::OkStatus();
  const std::string index = BundleIndexFilename(prefix);
  if (unlink(index.c_str()) != 0 && errno != ENOENT) {
    status = ErrnoError("cannot delete", index);
  }
  const auto [dir, base] = file_util::SplitPath(prefix);
  const std::string data_start = absl::StrCat(base, ".data-");
  DIR* d = opendir(dir.empty() ? "." : dir.c_str());
  if (d == nullptr) {
    return status.ok() ? ErrnoError("cannot list directory", dir) : status;
  }
  std::vector<std::string> doomed;
  while (struct dirent* e = readdir(d)) {
    absl::string_view name(e->d_name);
    if (!absl::StartsWith(name, data_start)) continue;
    absl::string_view rest = name.substr(data_start.size());
    // NNNNN-of-NNNNN
    if (rest.size() != 14 || rest.substr(5, 4) != "-of-") continue;
    bool digits = true;
    for (size_t i : {0, 1, 2, 3, 4, 9, 10, 11, 12, 13}) {
      digits =
          digits && absl::ascii_isdigit(static_cast<unsigned char>(rest[i]));
    }
    if (digits) doomed.push_back(file_util::JoinPath(dir, name));
  }
  closedir(d);
  for (const std::string& path : doomed) {
    if (unlink(path.c_str()) != 0 && errno != ENOENT && status.ok()) {
      status = ErrnoError("cannot delete", path);
    }
  }
  return status;
}

}  // namespace dflow
