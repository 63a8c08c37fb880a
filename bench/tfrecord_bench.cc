// TFRecord read and write throughput (formats/tfrecord): a 64 MiB file of
// 1 KiB records (65,536 of them), plain and GZIP, the shape of a typical
// tf.Example input file. MB_per_s counts bytes of the uncompressed stream
// (records and framing) in 10^6 bytes per second of wall time;
// records_per_s alongside.
// The file sits in the page cache after the first pass, so this measures
// the reader, not the disk, which is also how TensorFlow's TFRecordDataset
// is usually compared (a peer reading the same file from a warm cache).
//
//   Read        TfRecordReader::Next into one reused string
//   ReadAll     ReadAllTfRecords (a string per record)
//   Write       TfRecordWriter::Write of every record, then Close
//
//   bazel run //bench:tfrecord_bench
//   bazel run //bench:tfrecord_bench -- --benchmark_filter=BM_Read/none
#include <stdlib.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "benchmark/benchmark.h"
#include "formats/tfrecord.h"

namespace dflow {
namespace {

constexpr size_t kRecordBytes = 1 << 10;
constexpr size_t kFileBytes = 64 << 20;
constexpr size_t kRecords = kFileBytes / kRecordBytes;

// {file name part, compression_type}.
const char* const kCompressions[][2] = {{"none", ""}, {"gzip", "GZIP"}};

std::string& Dir() {
  static std::string* dir = new std::string;
  return *dir;
}

std::string PathFor(int compression) {
  return absl::StrCat(Dir(), "/", kCompressions[compression][0], ".tfrecord");
}

TfRecordOptions OptionsFor(int compression) {
  TfRecordOptions options;
  options.compression_type = kCompressions[compression][1];
  return options;
}

// Record i: letters from a 16-letter alphabet, so GZIP has roughly the 2x
// to gain that it has on real serialized examples, not 0x or 100x.
std::vector<std::string> MakeRecords() {
  std::vector<std::string> records(kRecords, std::string(kRecordBytes, 'a'));
  uint64_t x = 88172645463325252u;
  for (std::string& record : records) {
    for (char& c : record) {
      x ^= x << 13;
      x ^= x >> 7;
      x ^= x << 17;
      c = static_cast<char>('a' + (x & 15));
    }
  }
  return records;
}

const std::vector<std::string>& Records() {
  static const auto* records = new std::vector<std::string>(MakeRecords());
  return *records;
}

bool WriteFile(const std::string& path, const TfRecordOptions& options,
               std::string* error) {
  auto writer = TfRecordWriter::Open(path, options);
  if (!writer.ok()) {
    *error = std::string(writer.status().message());
    return false;
  }
  for (const std::string& record : Records()) {
    absl::Status status = (*writer)->Write(record);
    if (!status.ok()) {
      *error = std::string(status.message());
      return false;
    }
  }
  absl::Status status = (*writer)->Close();
  if (!status.ok()) *error = std::string(status.message());
  return status.ok();
}

void SetRates(benchmark::State& state) {
  const double stream_bytes = kRecords * (kRecordBytes + 16.0);
  state.counters["MB_per_s"] = benchmark::Counter(
      stream_bytes * state.iterations() / 1e6, benchmark::Counter::kIsRate);
  state.counters["records_per_s"] =
      benchmark::Counter(static_cast<double>(kRecords) * state.iterations(),
                         benchmark::Counter::kIsRate);
}

void BM_Read(benchmark::State& state, int compression) {
  std::string record;
  for (auto _ : state) {
    auto reader =
        TfRecordReader::Open(PathFor(compression), OptionsFor(compression));
    if (!reader.ok()) {
      state.SkipWithError(std::string(reader.status().message()).c_str());
      return;
    }
    size_t count = 0;
    while (true) {
      absl::StatusOr<bool> more = (*reader)->Next(&record);
      if (!more.ok()) {
        state.SkipWithError(std::string(more.status().message()).c_str());
        return;
      }
      if (!*more) break;
      ++count;
    }
    if (count != kRecords) {
      state.SkipWithError("wrong record count");
      return;
    }
    benchmark::DoNotOptimize(record.data());
  }
  SetRates(state);
}

void BM_ReadAll(benchmark::State& state, int compression) {
  for (auto _ : state) {
    auto records =
        ReadAllTfRecords(PathFor(compression), OptionsFor(compression));
    if (!records.ok() || records->size() != kRecords) {
      state.SkipWithError("ReadAllTfRecords failed");
      return;
    }
    benchmark::DoNotOptimize(records->data());
  }
  SetRates(state);
}

void BM_Write(benchmark::State& state, int compression) {
  const std::string path = PathFor(compression) + ".written";
  std::string error;
  for (auto _ : state) {
    if (!WriteFile(path, OptionsFor(compression), &error)) {
      state.SkipWithError(error.c_str());
      return;
    }
  }
  unlink(path.c_str());
  SetRates(state);
}

BENCHMARK_CAPTURE(BM_Read, none, 0)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
BENCHMARK_CAPTURE(BM_Read, gzip, 1)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
BENCHMARK_CAPTURE(BM_ReadAll, none, 0)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
BENCHMARK_CAPTURE(BM_ReadAll, gzip, 1)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
BENCHMARK_CAPTURE(BM_Write, none, 0)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
BENCHMARK_CAPTURE(BM_Write, gzip, 1)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

}  // namespace
}  // namespace dflow

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  // The files live in a fresh temporary directory, removed at the end.
  const char* tmp = getenv("TMPDIR");
  std::string dir =
      absl::StrCat(tmp != nullptr ? tmp : "/tmp", "/tfrecord_bench_XXXXXX");
  if (mkdtemp(dir.data()) == nullptr) {
    fprintf(stderr, "cannot create a directory for the benchmark files\n");
    return 1;
  }
  dflow::Dir() = dir;
  for (int c = 0; c < 2; ++c) {
    std::string error;
    if (!dflow::WriteFile(dflow::PathFor(c), dflow::OptionsFor(c), &error)) {
      fprintf(stderr, "cannot write the benchmark file: %s\n", error.c_str());
      return 1;
    }
  }
  benchmark::RunSpecifiedBenchmarks();
  for (int c = 0; c < 2; ++c) unlink(dflow::PathFor(c).c_str());
  rmdir(dir.c_str());
  return 0;
}
