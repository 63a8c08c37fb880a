#include "examples/cifar10_input.h"

#include <cmath>
#include <fstream>
#include <limits>
#include <random>
#include <utility>

#include "absl/strings/str_cat.h"
#include "graph/ops/control_flow_builders.h"
#include "graph/ops/ops.h"
#include "graph/scope.h"
#include "graph/training/input_pipeline.h"

namespace dflow {
namespace cifar10 {
namespace {

// tf.random_crop(image, [24, 24, 3]) as TensorFlow builds it: offsets
// RandomUniformInt(0, int32 max) mod (shape - size + 1), then Slice.
Output RandomCrop(const Scope& s, const Output& image, int64_t seed) {
  Output offsets = ops::FloorMod(
      s,
      ops::RandomUniformInt(s, {3}, 0, std::numeric_limits<int32_t>::max(),
                            ops::RandomAttrs().Seed(seed).Seed2(1)),
      ops::Const(s,
                 {kImageSize - kCropSize + 1, kImageSize - kCropSize + 1, 1}));
  return ops::Slice(s, image, offsets, {kCropSize, kCropSize, 3});
}

// One uniform draw on [lo, hi), as tf.random_uniform([], lo, hi).
Output UniformScalar(const Scope& s, float lo, float hi, int64_t seed,
                     int64_t seed2) {
  Output u = ops::RandomUniform(
      s, ops::Const(s, Tensor::FromVector<int32_t>({}, TensorShape({0}))),
      DT_FLOAT, ops::RandomAttrs().Seed(seed).Seed2(seed2));
  return ops::Add(s, ops::Mul(s, u, hi - lo), lo);
}

// tf.image.per_image_standardization: (x - mean) / max(stddev,
// 1 / sqrt(pixels)), over the whole image.
Output Standardize(const Scope& s, const Output& image) {
  const ops::ReductionAttrs keep = ops::ReductionAttrs().KeepDims(true);
  Output mean = ops::Mean(s, image, {0, 1, 2}, keep);
  Output centered = ops::Sub(s, image, mean);
  Output stddev =
      ops::Sqrt(s, ops::Mean(s, ops::Square(s, centered), {0, 1, 2}, keep));
  const float min_stddev = 1.0f / std::sqrt(float{kCropSize * kCropSize * 3});
  return ops::RealDiv(s, centered, ops::Maximum(s, stddev, min_stddev));
}

// One record's label (int32 scalar) and image ([32, 32, 3] float).
std::vector<Output> DecodeRecord(const Scope& s, const Output& record) {
  Output bytes = ops::DecodeRaw(s, record, DT_UINT8);
  Output label = ops::Reshape(
      s, ops::Cast(s, ops::StridedSlice(s, bytes, {0}, {1}, {1}), DT_INT32),
      ops::Const(s, Tensor::FromVector<int32_t>({}, TensorShape({0}))));
  Output depth_major =
      ops::Reshape(s, ops::StridedSlice(s, bytes, {1}, {kRecordBytes}, {1}),
                   {3, kImageSize, kImageSize});
  Output image =
      ops::Cast(s, ops::Transpose(s, depth_major, {1, 2, 0}), DT_FLOAT);
  return {label, image};
}

// One record's distorted image [24, 24, 3] and its label (int32 scalar).
absl::StatusOr<std::vector<Output>> DistortedExample(const Scope& s,
                                                     const Output& record,
                                                     int64_t seed) {
  const std::vector<Output> decoded = DecodeRecord(s, record);
  const Output& label = decoded[0];
  Output cropped = RandomCrop(s, decoded[1], seed);
  // random_flip_left_right: a cond on a uniform draw (only the taken
  // branch runs), its output given the image's shape again as TensorFlow's
  // fix_image_flip_shape does.
  Output flip = ops::Less(s, UniformScalar(s, 0, 1, seed, 2), 0.5f);
  BranchResult branches = ops::Cond(
      s, flip,
      [&](const Scope& b) -> BranchResult {
        return std::vector<Output>{ops::ReverseV2(b, cropped, {1})};
      },
      [&](const Scope& b) -> BranchResult {
        return std::vector<Output>{ops::Identity(b, cropped)};
      });
  if (!branches.ok()) return branches.status();
  Output flipped = ops::Reshape(s, (*branches)[0], {kCropSize, kCropSize, 3});
  Output bright = ops::Add(s, flipped, UniformScalar(s, -63, 63, seed, 3));
  Output contrast =
      ops::AdjustContrastv2(s, bright, UniformScalar(s, 0.2f, 1.8f, seed, 4));
  return std::vector<Output>{Standardize(s, contrast), label};
}

}  // namespace

std::vector<std::string> TrainingFiles(const std::string& data_dir) {
  std::vector<std::string> files;
  for (int i = 1; i <= 5; ++i) {
    files.push_back(absl::StrCat(data_dir, "/data_batch_", i, ".bin"));
  }
  return files;
}

absl::StatusOr<std::vector<QueueRunnerDef>> AddDistortedInputs(
    const DistortedInputOptions& options, GraphDef* graph) {
  if (options.files.empty()) {
    return absl::InvalidArgumentError("no CIFAR-10 files for the input");
  }
  for (const std::string& f : options.files) {
    if (!std::ifstream(f).good()) {
      return absl::NotFoundError(absl::StrCat(
          "CIFAR-10 file '", f,
          "' is missing; point --data_dir at cifar-10-batches-bin, or write "
          "synthetic files there with --write_synthetic_data"));
    }
  }
  Scope root = Scope::NewRootScope();
  Scope input = root.NewSubScope("input").WithDevice("/cpu:0");
  absl::StatusOr<train::InputQueue> files = train::StringInputProducer(
      input, options.files, /*shuffle=*/true, options.seed);
  if (!files.ok()) return files.status();
  Output record =
      train::ReadFixedLengthRecord(input, files->queue, kRecordBytes);
  absl::StatusOr<std::vector<Output>> example =
      DistortedExample(input, record, options.seed);
  if (!example.ok()) return example.status();
  absl::StatusOr<train::Batches> batch = train::ShuffleBatch(
      input, *example, options.batch_size,
      options.min_after_dequeue + 3 * options.batch_size,
      options.min_after_dequeue, options.reader_threads, options.seed);
  if (!batch.ok()) return batch.status();
  if (absl::Status s = train::AttachInputPipeline(
          root, {{"images", batch->outputs[0]}, {"labels", batch->outputs[1]}},
          graph);
      !s.ok()) {
    return s;
  }
  return std::vector<QueueRunnerDef>{files->runner, batch->runner};
}

absl::StatusOr<EvalInputs> AddEvalInputs(const Scope& scope,
                                         const std::string& file,
                                         int batch_size) {
  if (!std::ifstream(file).good()) {
    return absl::NotFoundError(
        absl::StrCat("CIFAR-10 test file '", file,
                     "' is missing; point --data_dir at cifar-10-batches-bin"));
  }
  const Scope s = scope.NewSubScope("eval_input").WithDevice("/cpu:0");
  absl::StatusOr<train::InputQueue> files =
      train::StringInputProducer(s, {file}, /*shuffle=*/false);
  if (!files.ok()) return files.status();
  const std::vector<Output> decoded = DecodeRecord(
      s, train::ReadFixedLengthRecord(s, files->queue, kRecordBytes));
  // resize_image_with_crop_or_pad(image, 24, 24): the central crop.
  constexpr int kOffset = (kImageSize - kCropSize) / 2;
  Output image = Standardize(s, ops::Slice(s, decoded[1], {kOffset, kOffset, 0},
                                           {kCropSize, kCropSize, 3}));
  absl::StatusOr<train::Batches> batch =
      train::Batch(s, {image, decoded[0]}, batch_size, 3 * batch_size, 1);
  if (!batch.ok()) return batch.status();
  return EvalInputs{
      batch->outputs[0], batch->outputs[1], {files->runner, batch->runner}};
}

absl::Status WriteSyntheticData(const std::string& data_dir, int records,
                                uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<std::string> paths = TrainingFiles(data_dir);
  paths.push_back(data_dir + "/test_batch.bin");
  for (const std::string& path : paths) {
    std::string bytes;
    bytes.reserve(static_cast<size_t>(records) * kRecordBytes);
    for (int r = 0; r < records; ++r) {
      const int label = static_cast<int>(rng() % kNumClasses);
      bytes.push_back(static_cast<char>(label));
      // Channel-major like the real files: rows [3 * label, 3 * label + 8)
      // of channel label % 3 are bright, so a crop still shows the band.
      for (int c = 0; c < 3; ++c) {
        for (int y = 0; y < kImageSize; ++y) {
          const bool band =
              c == label % 3 && y >= 3 * label && y < 3 * label + 8;
          for (int x = 0; x < kImageSize; ++x) {
            const int noise = static_cast<int>(rng() % 64);
            bytes.push_back(static_cast<char>(band ? 160 + noise : noise));
          }
        }
      }
    }
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out << bytes;
    if (!out.good()) {
      return absl::InternalError(absl::StrCat("cannot write '", path,
                                              "' (does ", data_dir,
                                              " exist and is it writable?)"));
    }
  }
  return absl::OkStatus();
}

}  // namespace cifar10
}  // namespace dflow
