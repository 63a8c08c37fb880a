// Seed 001's record format: one tf.Example per image with the features
//   image_raw  bytes  the rows*cols pixels, one uint8 each, row-major
//   label      int64  the class index
//   pixels     int64  rows*cols (784)
// as its convert_to_records step writes them; train.batch or shuffle_batch
// read them back through parse_single_example + decode_raw.
#ifndef DFLOW_EXAMPLES_MNIST_TFRECORD_H_
#define DFLOW_EXAMPLES_MNIST_TFRECORD_H_

#include <cstdint>
#include <string>

#include "absl/status/statusor.h"
#include "data/mnist.h"

namespace dflow {

// Writes the first `limit` examples of `split` (all when limit < 0) to the
// TFRecord file `path`; returns how many were written.
absl::StatusOr<int64_t> WriteMnistTfRecords(const MnistSplit& split,
                                            const std::string& path,
                                            int64_t limit = -1);

}  // namespace dflow

#endif  // DFLOW_EXAMPLES_MNIST_TFRECORD_H_
