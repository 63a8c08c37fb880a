// LoadMnist / LoadMnistSplit on tiny synthetic datasets the test writes in
// temporary directories: the file names found, the conversion to float
// pixels in [0, 1] and int32 labels, and the errors for missing files,
// mismatched counts and wrong files.
#include "data/mnist.h"

#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/data/idx_test_util.h"

namespace dflow {
namespace {

using ::dflow::idx_testing::IdxBytes;
using ::dflow::idx_testing::MakeTempDir;
using ::dflow::idx_testing::Uint8Idx;
using ::dflow::idx_testing::Uint8Payload;
using ::dflow::idx_testing::WriteFile;
using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::Not;

std::string Message(const absl::Status& status) {
  return std::string(status.message());
}

// Writes one split's two files: n images of rows x cols and n labels
// (label i is i % 10).
void WriteSplit(const std::string& dir, const std::string& prefix, uint32_t n,
                uint32_t rows, uint32_t cols, bool gzip,
                const std::string& images_name = "-images-idx3-ubyte",
                const std::string& labels_name = "-labels-idx1-ubyte") {
  const std::string suffix = gzip ? ".gz" : "";
  WriteFile(absl::StrCat(dir, "/", prefix, images_name, suffix),
            Uint8Idx({n, rows, cols}), gzip);
  std::string labels;
  for (uint32_t i = 0; i < n; ++i) labels.push_back(static_cast<char>(i % 10));
  WriteFile(absl::StrCat(dir, "/", prefix, labels_name, suffix),
            IdxBytes(0x00000801, {n}, labels), gzip);
}

void ExpectSplit(const MnistSplit& split, int64_t n, int64_t rows,
                 int64_t cols) {
  EXPECT_EQ(split.num_examples, n);
  EXPECT_EQ(split.rows, rows);
  EXPECT_EQ(split.cols, cols);
  ASSERT_EQ(split.images.dtype(), DT_FLOAT);
  ASSERT_EQ(split.images.shape(), TensorShape({n, rows * cols}));
  ASSERT_EQ(split.labels.dtype(), DT_INT32);
  ASSERT_EQ(split.labels.shape(), TensorShape({n}));
  const std::string pixels = Uint8Payload(n * rows * cols);
  const float* images = split.images.data<float>();
  for (int64_t i = 0; i < n * rows * cols; ++i) {
    ASSERT_EQ(images[i],
              static_cast<float>(static_cast<uint8_t>(pixels[i])) / 255.0f)
        << "pixel " << i;
  }
  for (int64_t i = 0; i < n; ++i) {
    EXPECT_EQ(split.labels.data<int32_t>()[i], i % 10) << "label " << i;
  }
}

TEST(MnistTest, LoadsBothSplitsPlainAndGzipped) {
  const std::string dir = MakeTempDir("mixed");
  WriteSplit(dir, "train", 12, 28, 28, /*gzip=*/false);
  WriteSplit(dir, "t10k", 5, 28, 28, /*gzip=*/true);
  absl::StatusOr<MnistDataset> data = LoadMnist(dir);
  ASSERT_TRUE(data.ok()) << data.status();
  ExpectSplit(data->train, 12, 28, 28);
  ExpectSplit(data->test, 5, 28, 28);
  EXPECT_EQ(data->train.images_path, dir + "/train-images-idx3-ubyte");
  EXPECT_EQ(data->test.labels_path, dir + "/t10k-labels-idx1-ubyte.gz");
}

TEST(MnistTest, ImagesOfAnySizeFlattenToRowsTimesCols) {
  const std::string dir = MakeTempDir("small_images");
  WriteSplit(dir, "train", 4, 2, 3, /*gzip=*/true);
  absl::StatusOr<MnistSplit> train = LoadMnistSplit(dir, "train");
  ASSERT_TRUE(train.ok()) << train.status();
  ExpectSplit(*train, 4, 2, 3);
}

TEST(MnistTest, PixelsScaleExactlyToZeroAndOne) {
  const std::string dir = MakeTempDir("scale");
  WriteFile(dir + "/train-images-idx3-ubyte",
            IdxBytes(0x00000803, {1, 1, 3}, std::string("\x00\x80\xff", 3)));
  WriteFile(dir + "/train-labels-idx1-ubyte",
            IdxBytes(0x00000801, {1}, std::string("\x07", 1)));
  absl::StatusOr<MnistSplit> train = LoadMnistSplit(dir, "train");
  ASSERT_TRUE(train.ok()) << train.status();
  const float* pixels = train->images.data<float>();
  EXPECT_EQ(pixels[0], 0.0f);
  EXPECT_FLOAT_EQ(pixels[1], 128.0f / 255.0f);
  EXPECT_EQ(pixels[2], 1.0f);
  EXPECT_EQ(train->labels.data<int32_t>()[0], 7);
}

TEST(MnistTest, FindsTheDottedSpellingOfSomeMirrors) {
  const std::string dir = MakeTempDir("dotted");
  WriteSplit(dir, "t10k", 3, 28, 28, /*gzip=*/false, "-images.idx3-ubyte",
             "-labels.idx1-ubyte");
  absl::StatusOr<MnistSplit> test = LoadMnistSplit(dir, "test");
  ASSERT_TRUE(test.ok()) << test.status();
  ExpectSplit(*test, 3, 28, 28);
}

TEST(MnistTest, PlainFileWinsOverGzipped) {
  const std::string dir = MakeTempDir("both");
  WriteSplit(dir, "train", 3, 28, 28, /*gzip=*/false);
  WriteSplit(dir, "train", 9, 28, 28, /*gzip=*/true);
  absl::StatusOr<MnistSplit> train = LoadMnistSplit(dir, "train");
  ASSERT_TRUE(train.ok()) << train.status();
  EXPECT_EQ(train->num_examples, 3);
}

TEST(MnistTest, ZeroExamplesLoad) {
  const std::string dir = MakeTempDir("empty");
  WriteSplit(dir, "train", 0, 28, 28, /*gzip=*/false);
  absl::StatusOr<MnistSplit> train = LoadMnistSplit(dir, "train");
  ASSERT_TRUE(train.ok()) << train.status();
  EXPECT_EQ(train->images.shape(), TensorShape({0, 784}));
  EXPECT_EQ(train->labels.shape(), TensorShape({0}));
}

TEST(MnistTest, MismatchedCountsNameBothFiles) {
  const std::string dir = MakeTempDir("mismatch");
  WriteFile(dir + "/train-images-idx3-ubyte.gz", Uint8Idx({6, 28, 28}),
            /*gzip=*/true);
  WriteFile(dir + "/train-labels-idx1-ubyte.gz", Uint8Idx({5}),
            /*gzip=*/true);
  absl::StatusOr<MnistSplit> train = LoadMnistSplit(dir, "train");
  ASSERT_FALSE(train.ok());
  EXPECT_EQ(train.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(Message(train.status()),
              AllOf(HasSubstr(dir + "/train-images-idx3-ubyte.gz"),
                    HasSubstr(dir + "/train-labels-idx1-ubyte.gz"),
                    HasSubstr("6 images"), HasSubstr("5 labels")));
}

TEST(MnistTest, MissingFilesAreNotFoundNamingDirectoryAndNames) {
  const std::string dir = MakeTempDir("nothing_here");
  absl::StatusOr<MnistDataset> data = LoadMnist(dir);
  ASSERT_FALSE(data.ok());
  EXPECT_EQ(data.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(Message(data.status()),
              AllOf(HasSubstr(dir), HasSubstr("'train-images-idx3-ubyte'"),
                    HasSubstr("'train-images-idx3-ubyte.gz'"),
                    HasSubstr("dataset-fashion-mnist")));

  // Images present, labels missing: the labels are what is named.
  WriteFile(dir + "/t10k-images-idx3-ubyte", Uint8Idx({2, 28, 28}));
  absl::StatusOr<MnistSplit> test = LoadMnistSplit(dir, "test");
  ASSERT_FALSE(test.ok());
  EXPECT_EQ(test.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(Message(test.status()),
              AllOf(HasSubstr("'t10k-labels-idx1-ubyte.gz'"),
                    Not(HasSubstr("images"))));

  absl::StatusOr<MnistDataset> nowhere = LoadMnist(dir + "/does/not/exist");
  ASSERT_FALSE(nowhere.ok());
  EXPECT_EQ(nowhere.status().code(), absl::StatusCode::kNotFound);
}

TEST(MnistTest, SwappedFilesFailOnTheirMagicNumber) {
  const std::string dir = MakeTempDir("swapped");
  // A labels file where the images belong.
  WriteFile(dir + "/train-images-idx3-ubyte", Uint8Idx({4}));
  WriteFile(dir + "/train-labels-idx1-ubyte", Uint8Idx({4}));
  absl::StatusOr<MnistSplit> train = LoadMnistSplit(dir, "train");
  ASSERT_FALSE(train.ok());
  EXPECT_EQ(train.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(Message(train.status()),
              AllOf(HasSubstr(dir + "/train-images-idx3-ubyte"),
                    HasSubstr("0x00000801"), HasSubstr("expected 0x00000803")));
}

TEST(MnistTest, UnknownSplitName) {
  absl::StatusOr<MnistSplit> split = LoadMnistSplit("/tmp", "validation");
  ASSERT_FALSE(split.ok());
  EXPECT_EQ(split.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(Message(split.status()),
              AllOf(HasSubstr("'validation'"), HasSubstr("\"train\""),
                    HasSubstr("\"test\"")));
}

}  // namespace
}  // namespace dflow
