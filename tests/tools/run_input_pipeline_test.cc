// `dflow run` with a TensorFlow input pipeline and summaries: a .meta's
// queue runners feed training (the corpus's input_fifo graph gives
// TensorFlow's losses), and --summary_dir writes the graph and each
// step's summaries (seed 001's histograms) as an event file.
#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "formats/tfrecord.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "proto/event.pb.h"
#include "tests/tools/tool_test_util.h"
#include "tools/run.h"

namespace dflow {
namespace {

using ::testing::HasSubstr;
using tool_testing::Result;
using tool_testing::TempPath;

Result RunVerb(const std::vector<std::string>& args) {
  return tool_testing::RunVerb(RunRun, args);
}

constexpr char kCorpus[] = "tests/testdata/tf_corpus/";

TEST(RunInputPipelineTest, QueueRunnersOfAMetaGraphFeedTraining) {
  // The graph names its TFRecord file relative to its directory.
  const std::string cwd = std::filesystem::current_path().string();
  std::filesystem::current_path(std::string(kCorpus) + "input_fifo_ref");
  Result r = RunVerb({"--graph", "model.meta", "--init", "init", "--target",
                      "train", "--fetch", "loss:0", "--steps", "3"});
  std::filesystem::current_path(cwd);
  ASSERT_EQ(r.rc, 0) << r.out << r.err;
  EXPECT_THAT(r.out, HasSubstr("queue runners: 2 started (input_producer, "
                               "batch/fifo_queue)\n"));
  // TensorFlow's losses (input_fifo_ref/reference.txt).
  EXPECT_THAT(r.out, HasSubstr("values: 2.50709\n"));
  EXPECT_THAT(r.out, HasSubstr("values: 2.51452\n"));
  EXPECT_THAT(r.out, HasSubstr("values: 2.43425\n"));

  // Without its queue runners the first step would wait for input forever;
  // --no_queue_runners is for graphs fed another way, so it is not run
  // here. A missing file is named.
  r = RunVerb({"--graph", std::string(kCorpus) + "input_fifo_ref/model.meta",
               "--init", "init", "--target", "train", "--steps", "2"});
  EXPECT_EQ(r.rc, 1);
  EXPECT_THAT(r.err, HasSubstr("input_fifo.tfrecords"));
}

TEST(RunInputPipelineTest, NumEpochsEndsTheRunWhereTensorFlowsEnds) {
  // string_input_producer(num_epochs=2) over 48 records, batches of 8:
  // TensorFlow ran 12 steps before OutOfRange (input_epochs_res's
  // epoch_steps); its init also sets the local epoch counter.
  const std::string cwd = std::filesystem::current_path().string();
  std::filesystem::current_path(std::string(kCorpus) + "input_epochs_res");
  Result r = RunVerb({"--graph", "model.meta", "--init", "init_2", "--target",
                      "train", "--fetch", "loss:0", "--steps", "50"});
  std::filesystem::current_path(cwd);
  ASSERT_EQ(r.rc, 0) << r.out << r.err;
  EXPECT_THAT(r.out, HasSubstr("step 13: the input queues are exhausted"));
  EXPECT_THAT(r.out, HasSubstr("stopping after 12 steps"));
  // TensorFlow's first losses (reference.txt).
  EXPECT_THAT(r.out, HasSubstr("values: 2.55176\n"));
}

TEST(RunInputPipelineTest, AnExhaustedIteratorEndsTheRunWhereTensorFlowsEnds) {
  // tools/tf_reference/make_dataset_reference.py's training step, fed by a
  // one-shot iterator over 10 examples, batches of 4, two epochs: TensorFlow
  // ran 6 steps, the 7th found the iterator at the end of its sequence
  // (tf_dataset/steps.txt). The graph names no files for this pipeline.
  Result r = RunVerb({"--graph", "tests/testdata/tf_dataset/graph.pb",
                      "--init", "train/init", "--target",
                      "train/GradientDescent", "--fetch", "train/loss:0",
                      "--steps", "20"});
  ASSERT_EQ(r.rc, 0) << r.out << r.err;
  EXPECT_THAT(r.out, HasSubstr("step 7: the input is exhausted"));
  EXPECT_THAT(r.out, HasSubstr("End of sequence); stopping after 6 steps"));
  // TensorFlow's first and last losses (steps.txt).
  EXPECT_THAT(r.out, HasSubstr("values: 2.59625\n"));
  EXPECT_THAT(r.out, HasSubstr("values: 0.160945\n"));
}

TEST(RunInputPipelineTest, SummaryDirWritesTheGraphAndEachStepsSummaries) {
  const std::string logdir = TempPath("run_summaries");
  std::filesystem::remove_all(logdir);
  const std::string d = std::string(kCorpus) + "mlp_towers_ref/";
  Result r =
      RunVerb({"--graph", d + "model.meta", "--init", "init", "--target",
               "train", "--feed", "x-input:0=" + d + "inputs/x-input.npy",
               "--feed", "y-input:0=" + d + "inputs/y-input.npy", "--steps",
               "3", "--soft_placement", "--summary_dir", logdir});
  ASSERT_EQ(r.rc, 0) << r.out << r.err;
  EXPECT_THAT(r.out, HasSubstr("summaries: gradients_on_average/"));
  std::vector<std::string> files;
  for (const auto& entry : std::filesystem::directory_iterator(logdir)) {
    files.push_back(entry.path().string());
  }
  ASSERT_EQ(files.size(), 1u);
  EXPECT_THAT(files[0], HasSubstr("/events.out.tfevents."));
  auto records = ReadAllTfRecords(files[0], {});
  ASSERT_TRUE(records.ok()) << records.status();
  // The version, the graph, then 8 histogram summaries per step.
  ASSERT_EQ(records->size(), 2u + 3 * 8);
  Event event;
  ASSERT_TRUE(event.ParseFromString((*records)[0]));
  EXPECT_EQ(event.file_version(), "brain.Event:2");
  ASSERT_TRUE(event.ParseFromString((*records)[1]));
  EXPECT_FALSE(event.graph_def().empty());
  std::vector<int64_t> steps;
  for (size_t i = 2; i < records->size(); ++i) {
    ASSERT_TRUE(event.ParseFromString((*records)[i]));
    ASSERT_EQ(event.summary().value_size(), 1);
    EXPECT_TRUE(event.summary().value(0).has_histo());
    steps.push_back(event.step());
  }
  EXPECT_EQ(std::count(steps.begin(), steps.end(), 3), 8);

  // A GraphDef has no summaries collection: --summary names them.
  r = RunVerb({"--graph", d + "graph.pb", "--init", "init", "--target", "train",
               "--feed", "x-input:0=" + d + "inputs/x-input.npy", "--feed",
               "y-input:0=" + d + "inputs/y-input.npy", "--soft_placement",
               "--summary_dir", logdir});
  EXPECT_EQ(r.rc, 1);
  EXPECT_THAT(r.err, HasSubstr("--summary_dir needs summary tensors"));
}

}  // namespace
}  // namespace dflow
