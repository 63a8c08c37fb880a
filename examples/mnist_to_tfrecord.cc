// Writes Fashion-MNIST (or any MNIST-style IDX directory) as seed 001's
// TFRecord files, train.tfrecords and test.tfrecords (examples/
// mnist_tfrecord.h has the record format):
//
//   bazel-bin/examples/mnist_to_tfrecord --out_dir /tmp/fashion_records
//       [--data_dir /usr/share/datasets/fashion-mnist] [--limit N]
#include <iostream>
#include <string>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/flags/usage.h"
#include "data/mnist.h"
#include "examples/mnist_tfrecord.h"

ABSL_FLAG(std::string, data_dir, dflow::kFashionMnistDir,
          "directory of the IDX files (train-images-idx3-ubyte[.gz], ...)");
ABSL_FLAG(std::string, out_dir, "/tmp/fashion_records",
          "where train.tfrecords and test.tfrecords go (must exist)");
ABSL_FLAG(int64_t, limit, -1,
          "write only the first N examples of each split (-1: all)");

int main(int argc, char** argv) {
  absl::SetProgramUsageMessage(
      "Writes an MNIST-style dataset as seed 001's TFRecord files.");
  absl::ParseCommandLine(argc, argv);
  const std::string out = absl::GetFlag(FLAGS_out_dir);
  for (const char* split_name : {"train", "test"}) {
    absl::StatusOr<dflow::MnistSplit> split =
        dflow::LoadMnistSplit(absl::GetFlag(FLAGS_data_dir), split_name);
    if (!split.ok()) {
      std::cerr << "error: " << split.status().message() << "\n";
      return 1;
    }
    const std::string path = out + "/" + split_name + ".tfrecords";
    absl::StatusOr<int64_t> written =
        dflow::WriteMnistTfRecords(*split, path, absl::GetFlag(FLAGS_limit));
    if (!written.ok()) {
      std::cerr << "error: " << written.status().message() << "\n";
      return 1;
    }
    std::cout << "wrote " << *written << " examples to " << path << "\n";
  }
  return 0;
}
