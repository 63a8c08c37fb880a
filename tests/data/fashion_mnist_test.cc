// The real Fashion-MNIST, as Debian's dataset-fashion-mnist package installs
// it (gzipped IDX files in /usr/share/datasets/fashion-mnist): both splits
// load with their published sizes, balanced classes 0..9 and pixels in
// [0, 1], and batch. Skipped where the package is not installed.
#include <sys/stat.h>

#include <algorithm>
#include <cstdint>
#include <vector>

#include "data/batcher.h"
#include "data/mnist.h"
#include "gtest/gtest.h"

namespace dflow {
namespace {

class FashionMnistTest : public ::testing::Test {
 protected:
  void SetUp() override {
    struct stat info;
    if (stat(kFashionMnistDir, &info) != 0) {
      GTEST_SKIP() << kFashionMnistDir
                   << " does not exist; `apt-get install "
                      "dataset-fashion-mnist` (tools/setup.sh) provides it";
    }
  }
};

void ExpectSplit(const MnistSplit& split, int64_t n) {
  EXPECT_EQ(split.num_examples, n);
  EXPECT_EQ(split.rows, 28);
  EXPECT_EQ(split.cols, 28);
  ASSERT_EQ(split.images.shape(), TensorShape({n, 784}));
  ASSERT_EQ(split.labels.shape(), TensorShape({n}));
  // Fashion-MNIST has the same number of examples of each of its 10 classes.
  std::vector<int64_t> per_class(10, 0);
  for (int32_t label : split.labels.flat<int32_t>()) {
    ASSERT_TRUE(label >= 0 && label <= 9) << label;
    ++per_class[label];
  }
  EXPECT_EQ(per_class, std::vector<int64_t>(10, n / 10));
  absl::Span<const float> pixels = split.images.flat<float>();
  const auto [min, max] = std::minmax_element(pixels.begin(), pixels.end());
  EXPECT_EQ(*min, 0.0f);
  EXPECT_EQ(*max, 1.0f);
}

TEST_F(FashionMnistTest, BothSplitsLoad) {
  absl::StatusOr<MnistDataset> data = LoadMnist(kFashionMnistDir);
  ASSERT_TRUE(data.ok()) << data.status();
  ExpectSplit(data->train, 60000);
  ExpectSplit(data->test, 10000);
}

TEST_F(FashionMnistTest, TrainingBatchesCoverAnEpoch) {
  absl::StatusOr<MnistSplit> train = LoadMnistSplit(kFashionMnistDir, "train");
  ASSERT_TRUE(train.ok()) << train.status();
  BatcherOptions options;
  options.batch_size = 128;
  options.seed = 2024;
  absl::StatusOr<std::unique_ptr<Batcher>> batcher =
      Batcher::Create(train->images, train->labels, options);
  ASSERT_TRUE(batcher.ok()) << batcher.status();
  EXPECT_EQ((*batcher)->batches_per_epoch(), 60000 / 128);
  std::vector<int64_t> per_class(10, 0);
  for (int64_t b = 0; b < (*batcher)->batches_per_epoch(); ++b) {
    absl::StatusOr<Batch> batch = (*batcher)->Next();
    ASSERT_TRUE(batch.ok()) << batch.status();
    ASSERT_EQ(batch->images.shape(), TensorShape({128, 784}));
    for (int32_t label : batch->labels.flat<int32_t>()) ++per_class[label];
  }
  int64_t total = 0;
  for (int64_t count : per_class) {
    EXPECT_LE(count, 6000);
    total += count;
  }
  EXPECT_EQ(total, 60000 / 128 * 128);  // 96 examples dropped
}

}  // namespace
}  // namespace dflow
