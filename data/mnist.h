// MNIST-style datasets (MNIST, Fashion-MNIST, KMNIST) loaded from a
// directory of IDX files into the tensors a model trains on: images as
// float32 [N, rows*cols] scaled to [0, 1] (a 28x28 digit is one row of 784)
// and labels as int32 [N].
//
// A directory holds the standard file names, each with or without ".gz":
//   train-images-idx3-ubyte  train-labels-idx1-ubyte   ("train", 60000)
//   t10k-images-idx3-ubyte   t10k-labels-idx1-ubyte    ("test", 10000)
// (the "train-images.idx3-ubyte" spelling of some mirrors is found too).
// Debian's dataset-fashion-mnist package installs the gzipped files in
// kFashionMnistDir.
#ifndef DFLOW_DATA_MNIST_H_
#define DFLOW_DATA_MNIST_H_

#include <cstdint>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "graph/tensor.h"

namespace dflow {

// Where `apt-get install dataset-fashion-mnist` puts Fashion-MNIST.
inline constexpr char kFashionMnistDir[] = "/usr/share/datasets/fashion-mnist";

// One split: images[i] is labelled labels[i].
struct MnistSplit {
  Tensor images;  // DT_FLOAT [N, rows*cols], pixel / 255
  Tensor labels;  // DT_INT32 [N], the class index as stored (0..9 for MNIST)
  int64_t num_examples = 0;  // N
  int64_t rows = 0;  // image height and width in the file (28 for MNIST)
  int64_t cols = 0;
  std::string images_path;  // the files it came from
  std::string labels_path;
};

struct MnistDataset {
  MnistSplit train;
  MnistSplit test;
};

// `split` is "train" or "test". Errors: NotFound naming the directory and
// the file names tried; the IDX reader's errors (see idx_file.h); images and
// labels files that disagree on N (both files and counts named).
absl::StatusOr<MnistSplit> LoadMnistSplit(const std::string& dir,
                                          absl::string_view split);
// Both splits.
absl::StatusOr<MnistDataset> LoadMnist(const std::string& dir);

}  // namespace dflow

#endif  // DFLOW_DATA_MNIST_H_
