#include "data/mnist.h"

#include <sys/stat.h>

#include <array>
#include <cstdint>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "data/idx_file.h"
#include "graph/tensor_shape.h"

namespace dflow {
namespace {

bool IsRegularFile(const std::string& path) {
  struct stat info;
  return stat(path.c_str(), &info) == 0 && S_ISREG(info.st_mode);
}

// The first of `dir`/name for each candidate name, plain before gzipped (a
// plain file reads faster, and someone who unpacked the files meant them).
absl::StatusOr<std::string> FindFile(const std::string& dir,
                                     absl::string_view split,
                                     const std::vector<std::string>& names) {
  std::vector<std::string> tried;
  for (const std::string& name : names) {
    for (const char* suffix : {"", ".gz"}) {
      const std::string file = absl::StrCat(name, suffix);
      const std::string path = absl::StrCat(dir, "/", file);
      if (IsRegularFile(path)) return path;
      tried.push_back(absl::StrCat("'", file, "'"));
    }
  }
  return absl::NotFoundError(absl::StrCat(
      "MNIST ", split, " split: directory '", dir, "' holds none of ",
      absl::StrJoin(tried, ", "),
      "; point at a directory with the IDX files (on Debian, `apt-get "
      "install dataset-fashion-mnist` puts Fashion-MNIST in ",
      kFashionMnistDir, ")"));
}

// Pixel bytes 0..255 -> floats in [0, 1], through a table: exactly v / 255
// for every byte, without a division per pixel.
std::array<float, 256> PixelScale() {
  std::array<float, 256> table;
  for (int v = 0; v < 256; ++v) table[v] = static_cast<float>(v) / 255.0f;
  return table;
}

}  // namespace

absl::StatusOr<MnistSplit> LoadMnistSplit(const std::string& dir,
                                          absl::string_view split) {
  std::string prefix;
  if (split == "train") {
    prefix = "train";
  } else if (split == "test") {
    prefix = "t10k";
  } else {
    return absl::InvalidArgumentError(
        absl::StrCat("MNIST split '", split, "' does not exist; ask for "
                     "\"train\" or \"test\""));
  }
  absl::StatusOr<std::string> images_path =
      FindFile(dir, split,
               {absl::StrCat(prefix, "-images-idx3-ubyte"),
                absl::StrCat(prefix, "-images.idx3-ubyte")});
  if (!images_path.ok()) return images_path.status();
  absl::StatusOr<std::string> labels_path =
      FindFile(dir, split,
               {absl::StrCat(prefix, "-labels-idx1-ubyte"),
                absl::StrCat(prefix, "-labels.idx1-ubyte")});
  if (!labels_path.ok()) return labels_path.status();

  absl::StatusOr<Tensor> raw_images = ReadIdxFile(*images_path, 3);
  if (!raw_images.ok()) return raw_images.status();
  absl::StatusOr<Tensor> raw_labels = ReadIdxFile(*labels_path, 1);
  if (!raw_labels.ok()) return raw_labels.status();

  const TensorShape& image_shape = raw_images->shape();
  const int64_t n = image_shape.dim(0);
  const int64_t n_labels = raw_labels->shape().dim(0);
  if (n != n_labels) {
    return absl::InvalidArgumentError(absl::StrCat(
        "MNIST ", split, " split: images file '", *images_path, "' holds ", n,
        " images but labels file '", *labels_path, "' holds ", n_labels,
        " labels; the two files must come from the same dataset and split"));
  }

  MnistSplit out;
  out.num_examples = n;
  out.rows = image_shape.dim(1);
  out.cols = image_shape.dim(2);
  out.images_path = *std::move(images_path);
  out.labels_path = *std::move(labels_path);
  const int64_t pixels = out.rows * out.cols;

  absl::StatusOr<Tensor> images = Tensor::Allocate(
      DefaultCpuAllocator(), DT_FLOAT, TensorShape({n, pixels}));
  if (!images.ok()) return images.status();
  static const std::array<float, 256> kScale = PixelScale();
  const uint8_t* src = raw_images->data<uint8_t>();
  float* dst = images->data<float>();
  for (int64_t i = 0, total = n * pixels; i < total; ++i) {
    dst[i] = kScale[src[i]];
  }
  absl::StatusOr<Tensor> labels =
      Tensor::Allocate(DefaultCpuAllocator(), DT_INT32, TensorShape({n}));
  if (!labels.ok()) return labels.status();
  const uint8_t* label_src = raw_labels->data<uint8_t>();
  int32_t* label_dst = labels->data<int32_t>();
  for (int64_t i = 0; i < n; ++i) label_dst[i] = label_src[i];

  out.images = *std::move(images);
  out.labels = *std::move(labels);
  return out;
}

absl::StatusOr<MnistDataset> LoadMnist(const std::string& dir) {
  MnistDataset dataset;
  absl::StatusOr<MnistSplit> train = LoadMnistSplit(dir, "train");
  if (!train.ok()) return train.status();
  absl::StatusOr<MnistSplit> test = LoadMnistSplit(dir, "test");
  if (!test.ok()) return test.status();
  dataset.train = *std::move(train);
  dataset.test = *std::move(test);
  return dataset;
}

}  // namespace dflow
