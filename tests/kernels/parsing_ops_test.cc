// tf.Example parsing (ParseExampleV2, ParseSingleExample), DecodeRaw and
// RandomShuffle through sessions: dense features with and without
// defaults, sparse features, batches, and the errors a bad record gets.
#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "graph/ops/ops.h"
#include "graph/scope.h"
#include "gtest/gtest.h"
#include "proto/example.pb.h"
#include "runtime/session.h"

namespace dflow {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

std::string Record(const std::string& image, int64_t label,
                   std::vector<float> tags) {
  Example e;
  auto& f = *e.mutable_features()->mutable_feature();
  f["image_raw"].mutable_bytes_list()->add_value(image);
  f["label"].mutable_int64_list()->add_value(label);
  for (float t : tags) f["tags"].mutable_float_list()->add_value(t);
  return e.SerializeAsString();
}

Tensor Strings(std::vector<std::string> v) {
  const int64_t n = static_cast<int64_t>(v.size());
  return Tensor::FromVector<std::string>(v, TensorShape({n}));
}

// ParseExampleV2 of "records" with dense "image_raw" (string, required),
// "label" (int64, default -1) and sparse "tags" (float): outputs
// parse:0 indices, parse:1 values, parse:2 shape, parse:3 image, parse:4
// label.
std::unique_ptr<Session> ParseSession() {
  Scope root = Scope::NewRootScope();
  Output records = ops::Placeholder(root.WithOpName("records"), DT_STRING);
  OpBuilder(root.WithOpName("parse"), "ParseExampleV2")
      .Input(records)
      .Input(Strings({}))
      .Input(Strings({"tags"}))
      .Input(Strings({"image_raw", "label"}))
      .Input(Strings({}))
      .InputList({ops::Const(root, Tensor::FromVector<std::string>(
                                       {}, TensorShape({0}))),
                  ops::Const(root, Tensor::FromVector<int64_t>(
                                       {-1}, TensorShape({})))})
      .Attr("num_sparse", 1)
      .Attr("sparse_types", std::vector<DataType>{DT_FLOAT})
      .Attr("ragged_value_types", std::vector<DataType>{})
      .Attr("ragged_split_types", std::vector<DataType>{})
      .Attr("dense_shapes",
            std::vector<TensorShape>{TensorShape({}), TensorShape({})})
      .Finalize();
  Output bytes = ops::Placeholder(root.WithOpName("bytes"), DT_STRING);
  OpBuilder(root.WithOpName("decode"), "DecodeRaw")
      .Input(bytes)
      .Attr("out_type", DT_UINT16)
      .Finalize();
  OpBuilder(root.WithOpName("decode_big"), "DecodeRaw")
      .Input(bytes)
      .Attr("out_type", DT_UINT16)
      .Attr("little_endian", false)
      .Finalize();
  Output values = ops::Placeholder(root.WithOpName("values"), DT_INT32);
  OpBuilder(root.WithOpName("shuffle"), "RandomShuffle")
      .Input(values)
      .Attr("seed", 3)
      .Attr("seed2", 4)
      .Finalize();
  GraphDef def;
  EXPECT_TRUE(root.ToGraphDef(&def).ok()) << root.status();
  absl::StatusOr<std::unique_ptr<Session>> s =
      Session::Create(def, SessionOptions());
  EXPECT_TRUE(s.ok()) << s.status();
  return s.ok() ? *std::move(s) : nullptr;
}

TEST(ParseExampleTest, DenseSparseAndDefaultsOverABatch) {
  auto s = ParseSession();
  ASSERT_NE(s, nullptr);
  Example no_label;
  (*no_label.mutable_features()->mutable_feature())["image_raw"]
      .mutable_bytes_list()
      ->add_value("zz");
  std::vector<Tensor> out;
  absl::Status st = s->Run(
      {{"records",
        Strings({Record("ab", 3, {0.5f, 1.5f}), no_label.SerializeAsString(),
                 Record("cd", 7, {2.5f})})}},
      {"parse:0", "parse:1", "parse:2", "parse:3", "parse:4"}, {}, &out);
  ASSERT_TRUE(st.ok()) << st;
  // Sparse tags: (record, position) indices, values, dense shape [3, 2].
  EXPECT_EQ(out[0].shape(), TensorShape({3, 2}));
  auto idx = out[0].flat<int64_t>();
  EXPECT_THAT(std::vector<int64_t>(idx.begin(), idx.end()),
              ElementsAre(0, 0, 0, 1, 2, 0));
  auto tags = out[1].flat<float>();
  EXPECT_THAT(std::vector<float>(tags.begin(), tags.end()),
              ElementsAre(0.5f, 1.5f, 2.5f));
  auto shape = out[2].flat<int64_t>();
  EXPECT_THAT(std::vector<int64_t>(shape.begin(), shape.end()),
              ElementsAre(3, 2));
  // Dense: one value per record; the missing label takes its default.
  EXPECT_EQ(out[3].shape(), TensorShape({3}));
  auto images = out[3].flat<std::string>();
  EXPECT_THAT(std::vector<std::string>(images.begin(), images.end()),
              ElementsAre("ab", "zz", "cd"));
  auto labels = out[4].flat<int64_t>();
  EXPECT_THAT(std::vector<int64_t>(labels.begin(), labels.end()),
              ElementsAre(3, -1, 7));
}

TEST(ParseExampleTest, BadRecordsNameTheFeatureOrRecord) {
  auto s = ParseSession();
  ASSERT_NE(s, nullptr);
  std::vector<Tensor> out;
  // The required image is missing.
  Example e;
  (*e.mutable_features()->mutable_feature())["label"]
      .mutable_int64_list()
      ->add_value(1);
  absl::Status missing = s->Run({{"records", Strings({e.SerializeAsString()})}},
                                {"parse:3"}, {}, &out);
  ASSERT_FALSE(missing.ok());
  EXPECT_THAT(missing.message(),
              HasSubstr("feature 'image_raw' (bytes_list) is required"));
  // The label holds floats.
  Example wrong;
  auto& f = *wrong.mutable_features()->mutable_feature();
  f["image_raw"].mutable_bytes_list()->add_value("x");
  f["label"].mutable_float_list()->add_value(1.0f);
  absl::Status mistyped =
      s->Run({{"records", Strings({wrong.SerializeAsString()})}}, {"parse:4"},
             {}, &out);
  ASSERT_FALSE(mistyped.ok());
  EXPECT_THAT(mistyped.message(),
              HasSubstr("feature 'label' holds float_list but the parser "
                        "asks for int64_list"));
  // Not an Example at all.
  absl::Status garbage =
      s->Run({{"records", Strings({std::string("\xff\xff\xff", 3)})}},
             {"parse:3"}, {}, &out);
  ASSERT_FALSE(garbage.ok());
  EXPECT_THAT(garbage.message(), HasSubstr("record 0 is not a serialized"));
}

TEST(DecodeRawTest, LittleAndBigEndianAndUnevenStrings) {
  auto s = ParseSession();
  ASSERT_NE(s, nullptr);
  std::vector<Tensor> out;
  const std::string two("\x01\x02\x03\x04", 4);
  ASSERT_TRUE(s->Run({{"bytes", Strings({two, two})}}, {"decode", "decode_big"},
                     {}, &out)
                  .ok());
  EXPECT_EQ(out[0].shape(), TensorShape({2, 2}));
  auto little = out[0].flat<uint16_t>();
  EXPECT_THAT(std::vector<uint16_t>(little.begin(), little.end()),
              ElementsAre(0x0201, 0x0403, 0x0201, 0x0403));
  auto big = out[1].flat<uint16_t>();
  EXPECT_THAT(std::vector<uint16_t>(big.begin(), big.end()),
              ElementsAre(0x0102, 0x0304, 0x0102, 0x0304));
  absl::Status uneven =
      s->Run({{"bytes", Strings({two, "ab"})}}, {"decode"}, {}, &out);
  ASSERT_FALSE(uneven.ok());
  EXPECT_THAT(uneven.message(), HasSubstr("element 1 has size 2 != 4"));
  absl::Status odd =
      s->Run({{"bytes", Strings({"abc"})}}, {"decode"}, {}, &out);
  ASSERT_FALSE(odd.ok());
  EXPECT_THAT(odd.message(), HasSubstr("not a whole number of uint16"));
}

TEST(RandomShuffleTest, APermutationThatChangesBetweenRuns) {
  auto s = ParseSession();
  ASSERT_NE(s, nullptr);
  std::vector<int32_t> values(50);
  for (int i = 0; i < 50; ++i) values[i] = i;
  std::vector<std::vector<int32_t>> runs;
  for (int r = 0; r < 2; ++r) {
    std::vector<Tensor> out;
    ASSERT_TRUE(s->Run({{"values", Tensor::FromVector<int32_t>(values)}},
                       {"shuffle"}, {}, &out)
                    .ok());
    auto flat = out[0].flat<int32_t>();
    runs.emplace_back(flat.begin(), flat.end());
    std::vector<int32_t> sorted = runs.back();
    std::sort(sorted.begin(), sorted.end());
    EXPECT_EQ(sorted, values);
    EXPECT_NE(runs.back(), values);
  }
  // The op's stream moves on: the second run permutes differently.
  EXPECT_NE(runs[0], runs[1]);
}

}  // namespace
}  // namespace dflow
