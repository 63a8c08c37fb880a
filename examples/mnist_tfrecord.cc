#include "examples/mnist_tfrecord.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "formats/tfrecord.h"
#include "proto/example.pb.h"

namespace dflow {

absl::StatusOr<int64_t> WriteMnistTfRecords(const MnistSplit& split,
                                            const std::string& path,
                                            int64_t limit) {
  absl::StatusOr<std::unique_ptr<TfRecordWriter>> writer =
      TfRecordWriter::Open(path, TfRecordOptions());
  if (!writer.ok()) return writer.status();
  const int64_t pixels = split.rows * split.cols;
  const int64_t n =
      limit < 0 ? split.num_examples : std::min(limit, split.num_examples);
  const float* images = split.images.data<float>();
  const int32_t* labels = split.labels.data<int32_t>();
  std::string raw(pixels, '\0');
  for (int64_t i = 0; i < n; ++i) {
    // The loader scaled the file's bytes to [0, 1]: scale back exactly.
    for (int64_t p = 0; p < pixels; ++p) {
      raw[p] = static_cast<char>(
          static_cast<uint8_t>(std::lround(images[i * pixels + p] * 255.0f)));
    }
    Example example;
    auto& features = *example.mutable_features()->mutable_feature();
    features["image_raw"].mutable_bytes_list()->add_value(raw);
    features["label"].mutable_int64_list()->add_value(labels[i]);
    features["pixels"].mutable_int64_list()->add_value(pixels);
    if (absl::Status s = (*writer)->Write(example.SerializeAsString());
        !s.ok()) {
      return s;
    }
  }
  if (absl::Status s = (*writer)->Close(); !s.ok()) return s;
  return n;
}

}  // namespace dflow
