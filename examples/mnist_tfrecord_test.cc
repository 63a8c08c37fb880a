// Seed 001's records written from Fashion-MNIST read back as the IDX files
// hold them: every byte of every image, the label and the pixel count.
#include "examples/mnist_tfrecord.h"

#include <cstdlib>
#include <string>

#include "formats/tfrecord.h"
#include "gtest/gtest.h"
#include "proto/example.pb.h"

namespace dflow {
namespace {

TEST(MnistTfRecordTest, RecordsHoldTheImagesBytesLabelsAndPixelCount) {
  absl::StatusOr<MnistSplit> split = LoadMnistSplit(kFashionMnistDir, "test");
  if (!split.ok()) GTEST_SKIP() << "no Fashion-MNIST: " << split.status();
  const char* tmp = std::getenv("TEST_TMPDIR");
  const std::string path = std::string(tmp ? tmp : "/tmp") + "/test.tfrecords";
  absl::StatusOr<int64_t> written = WriteMnistTfRecords(*split, path, 50);
  ASSERT_TRUE(written.ok()) << written.status();
  EXPECT_EQ(*written, 50);
  auto records = ReadAllTfRecords(path, {});
  ASSERT_TRUE(records.ok()) << records.status();
  ASSERT_EQ(records->size(), 50u);
  for (int i = 0; i < 50; ++i) {
    Example e;
    ASSERT_TRUE(e.ParseFromString((*records)[i]));
    const auto& f = e.features().feature();
    const std::string& raw = f.at("image_raw").bytes_list().value(0);
    ASSERT_EQ(raw.size(), 784u);
    for (int p = 0; p < 784; ++p) {
      ASSERT_EQ(static_cast<uint8_t>(raw[p]) / 255.0f,
                split->images.data<float>()[i * 784 + p])
          << "image " << i << " pixel " << p;
    }
    EXPECT_EQ(f.at("label").int64_list().value(0),
              split->labels.data<int32_t>()[i]);
    EXPECT_EQ(f.at("pixels").int64_list().value(0), 784);
  }
}

}  // namespace
}  // namespace dflow
