// The input pipeline builders end to end: StringInputProducer over a
// TFRecord file of tf.Examples, ReadTfRecord, parsing, then Batch and
// ShuffleBatch, run through their queue runners; and the errors of bad
// arguments.
#include "graph/training/input_pipeline.h"

#include <cstdlib>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "formats/tfrecord.h"
#include "gmock/gmock.h"
#include "graph/ops/ops.h"
#include "gtest/gtest.h"
#include "proto/example.pb.h"
#include "runtime/queue_runner.h"
#include "runtime/session.h"

namespace dflow {
namespace {

using ::testing::HasSubstr;

// 20 examples: label i, image_raw four bytes of value i.
std::string WriteExamples() {
  const char* tmp = std::getenv("TEST_TMPDIR");
  const std::string path =
      std::string(tmp ? tmp : "/tmp") + "/input_pipeline.tfrecords";
  auto writer = TfRecordWriter::Open(path, {});
  EXPECT_TRUE(writer.ok()) << writer.status();
  for (int i = 0; i < 20; ++i) {
    Example e;
    auto& f = *e.mutable_features()->mutable_feature();
    f["label"].mutable_int64_list()->add_value(i);
    f["image_raw"].mutable_bytes_list()->add_value(
        std::string(4, static_cast<char>(i)));
    EXPECT_TRUE((*writer)->Write(e.SerializeAsString()).ok());
  }
  EXPECT_TRUE((*writer)->Close().ok());
  return path;
}

// image [4] float and label [] int32 of one record.
std::vector<Output> Parse(const Scope& root, const Output& record) {
  std::vector<Output> parsed = ops::ParseSingleExample(
      root, record, {"image_raw", "label"}, {DT_STRING, DT_INT64},
      {TensorShape({}), TensorShape({})});
  Output pixels = ops::DecodeRaw(root, parsed[0], DT_UINT8);
  Output image = ops::Cast(root, ops::Reshape(root, pixels, {4}), DT_FLOAT);
  Output label = ops::Cast(root, parsed[1], DT_INT32);
  return {image, label};
}

TEST(InputPipelineTest, ShuffleBatchOfParsedRecordsThroughQueueRunners) {
  const std::string file = WriteExamples();
  for (bool shuffle : {false, true}) {
    SCOPED_TRACE(shuffle ? "shuffle_batch" : "batch");
    Scope root = Scope::NewRootScope();
    auto files = train::StringInputProducer(root, {file}, /*shuffle=*/true,
                                            /*seed=*/3);
    ASSERT_TRUE(files.ok()) << files.status();
    std::vector<Output> example =
        Parse(root, train::ReadTfRecord(root, files->queue));
    absl::StatusOr<train::Batches> batch =
        shuffle ? train::ShuffleBatch(root, example, 5, /*capacity=*/30,
                                      /*min_after_dequeue=*/10,
                                      /*num_threads=*/2, /*seed=*/7)
                : train::Batch(root, example, 5);
    ASSERT_TRUE(batch.ok()) << batch.status();
    ASSERT_TRUE(root.ok()) << root.status();
    GraphDef def;
    ASSERT_TRUE(root.ToGraphDef(&def).ok());
    auto session = Session::Create(def, SessionOptions());
    ASSERT_TRUE(session.ok()) << session.status();
    Coordinator coord;
    std::vector<std::unique_ptr<QueueRunner>> runners;
    ASSERT_TRUE(StartQueueRunners(session->get(),
                                  {files->runner, batch->runner}, &coord,
                                  &runners)
                    .ok());
    std::multiset<int32_t> labels;
    for (int step = 0; step < 8; ++step) {
      std::vector<Tensor> out;
      absl::Status s = (*session)->Run(
          {}, {batch->outputs[0].name(), batch->outputs[1].name()}, {}, &out);
      ASSERT_TRUE(s.ok()) << s;
      ASSERT_EQ(out[0].shape(), TensorShape({5, 4}));
      ASSERT_EQ(out[1].shape(), TensorShape({5}));
      for (int i = 0; i < 5; ++i) {
        const int32_t label = out[1].flat<int32_t>()[i];
        ASSERT_GE(label, 0);
        ASSERT_LT(label, 20);
        // Each image's pixels are its label: parsing kept them together.
        EXPECT_EQ(out[0].flat<float>()[i * 4 + 3], static_cast<float>(label));
        labels.insert(label);
      }
    }
    // 40 examples drawn: with a FIFO batch, two whole epochs in order.
    if (!shuffle) {
      for (int i = 0; i < 20; ++i) EXPECT_EQ(labels.count(i), 2u) << i;
    }
    EXPECT_TRUE(coord.Join().ok());
  }
}

TEST(InputPipelineTest, NumEpochsEndsTheInputWithOutOfRange) {
  const std::string file = WriteExamples();
  Scope root = Scope::NewRootScope();
  auto files = train::StringInputProducer(root, {file}, /*shuffle=*/false,
                                          /*seed=*/0, /*capacity=*/32,
                                          /*num_epochs=*/2);
  ASSERT_TRUE(files.ok()) << files.status();
  ASSERT_FALSE(files->local_init.empty());
  std::vector<Output> example =
      Parse(root, train::ReadTfRecord(root, files->queue));
  absl::StatusOr<train::Batches> batch = train::Batch(root, example, 5);
  ASSERT_TRUE(batch.ok()) << batch.status();
  ASSERT_TRUE(root.ok()) << root.status();
  GraphDef def;
  ASSERT_TRUE(root.ToGraphDef(&def).ok());
  auto session = Session::Create(def, SessionOptions());
  ASSERT_TRUE(session.ok()) << session.status();
  ASSERT_TRUE((*session)->Run({}, {}, {files->local_init}, nullptr).ok());
  Coordinator coord;
  std::vector<std::unique_ptr<QueueRunner>> runners;
  ASSERT_TRUE(StartQueueRunners(session->get(), {files->runner, batch->runner},
                                &coord, &runners)
                  .ok());
  // Two epochs of 20 examples: 8 batches of 5, each label twice, then the
  // closed, drained queues end the input.
  std::multiset<int32_t> labels;
  absl::Status s;
  int batches = 0;
  while (s.ok() && batches < 20) {
    std::vector<Tensor> out;
    s = (*session)->Run({}, {batch->outputs[1].name()}, {}, &out);
    if (!s.ok()) break;
    ++batches;
    for (int i = 0; i < 5; ++i) labels.insert(out[0].flat<int32_t>()[i]);
  }
  EXPECT_EQ(s.code(), absl::StatusCode::kOutOfRange) << s;
  EXPECT_EQ(batches, 8);
  for (int i = 0; i < 20; ++i) EXPECT_EQ(labels.count(i), 2u) << i;
  // The runners ended at the limit, which is no error.
  EXPECT_TRUE(coord.Join().ok());
}

TEST(InputPipelineTest, BadArgumentsAreRefused) {
  Scope root = Scope::NewRootScope();
  EXPECT_FALSE(train::StringInputProducer(root, {}).ok());
  absl::StatusOr<train::InputQueue> negative = train::StringInputProducer(
      root, {"a.tfrecords"}, true, 0, 32, /*num_epochs=*/-1);
  ASSERT_FALSE(negative.ok());
  EXPECT_THAT(negative.status().message(), HasSubstr("num_epochs is -1"));
  Output unknown = ops::Placeholder(root, DT_FLOAT);
  absl::StatusOr<train::Batches> batch = train::Batch(root, {unknown}, 4);
  ASSERT_FALSE(batch.ok());
  EXPECT_THAT(batch.status().message(),
              HasSubstr("every example needs a fully defined shape"));
  Output known = ops::Const(root, 1.0f);
  batch = train::ShuffleBatch(root, {known}, 4, /*capacity=*/10,
                              /*min_after_dequeue=*/10);
  ASSERT_FALSE(batch.ok());
  EXPECT_THAT(batch.status().message(),
              HasSubstr("min_after_dequeue (10) must be below capacity"));
}

}  // namespace
}  // namespace dflow
