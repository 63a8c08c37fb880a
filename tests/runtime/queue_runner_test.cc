// QueueRunner and Coordinator over a two-queue pipeline: a source queue
// (filled and closed up front) feeds a buffer queue through an enqueue op
// run by the runner's threads. The pipeline drains and ends with
// OutOfRange; an enqueue that fails stops everything with its error; a
// stop while an enqueue waits on a full queue ends without a hang.
#include "runtime/queue_runner.h"

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "graph/ops/ops.h"
#include "graph/scope.h"
#include "gtest/gtest.h"

namespace dflow {
namespace {

using ::testing::HasSubstr;

// source (int32, filled by "fill" from "values" and closed by
// "close_source") -> "move" (Enqueue(buffer, Dequeue(source) * check)) ->
// buffer (capacity `capacity`), drained by "take".
struct Pipeline {
  std::unique_ptr<Session> session;
  QueueRunnerDef def;
};

Pipeline MakePipeline(int64_t capacity, int threads, bool failing) {
  Scope root = Scope::NewRootScope();
  const std::vector<DataType> int_type = {DT_INT32};
  Output source = OpBuilder(root.WithOpName("source"), "FIFOQueueV2")
                      .Attr("component_types", int_type)
                      .Finalize()
                      .output(0);
  Output buffer = OpBuilder(root.WithOpName("buffer"), "FIFOQueueV2")
                      .Attr("component_types", int_type)
                      .Attr("capacity", capacity)
                      .Finalize()
                      .output(0);
  Output values = ops::Placeholder(root.WithOpName("values"), DT_INT32);
  OpBuilder(root.WithOpName("fill"), "QueueEnqueueManyV2")
      .Input(source)
      .InputList({values})
      .Finalize();
  OpBuilder(root.WithOpName("close_source"), "QueueCloseV2")
      .Input(source)
      .Finalize();
  Output item = OpBuilder(root.WithOpName("next"), "QueueDequeueV2")
                    .Input(source)
                    .Attr("component_types", int_type)
                    .Finalize()
                    .output(0);
  if (failing) {
    // A bad element: reshaping a scalar to [2] fails in the enqueue step.
    item = ops::Reshape(root.WithOpName("bad"), item, {2});
  }
  OpBuilder(root.WithOpName("move"), "QueueEnqueueV2")
      .Input(buffer)
      .InputList({item})
      .Finalize();
  OpBuilder(root.WithOpName("close_buffer"), "QueueCloseV2")
      .Input(buffer)
      .Finalize();
  OpBuilder(root.WithOpName("cancel_buffer"), "QueueCloseV2")
      .Input(buffer)
      .Attr("cancel_pending_enqueues", true)
      .Finalize();
  OpBuilder(root.WithOpName("take"), "QueueDequeueV2")
      .Input(buffer)
      .Attr("component_types", int_type)
      .Finalize();
  GraphDef graph;
  EXPECT_TRUE(root.ToGraphDef(&graph).ok()) << root.status();
  Pipeline p;
  auto s = Session::Create(graph, SessionOptions());
  EXPECT_TRUE(s.ok()) << s.status();
  if (s.ok()) p.session = *std::move(s);
  p.def.set_queue_name("buffer");
  for (int i = 0; i < threads; ++i) p.def.add_enqueue_op_name("move");
  p.def.set_close_op_name("close_buffer");
  p.def.set_cancel_op_name("cancel_buffer");
  return p;
}

void Fill(Session* s, int n) {
  std::vector<int32_t> v(n);
  for (int i = 0; i < n; ++i) v[i] = i;
  ASSERT_TRUE(s->Run({{"values", Tensor::FromVector<int32_t>(v)}}, {}, {"fill"},
                     nullptr)
                  .ok());
  ASSERT_TRUE(s->Run({}, {}, {"close_source"}, nullptr).ok());
}

TEST(QueueRunnerTest, ThePipelineDrainsThenEndsWithOutOfRange) {
  Pipeline p = MakePipeline(/*capacity=*/3, /*threads=*/2, false);
  ASSERT_NE(p.session, nullptr);
  Fill(p.session.get(), 20);
  Coordinator coord;
  std::vector<std::unique_ptr<QueueRunner>> runners;
  ASSERT_TRUE(
      StartQueueRunners(p.session.get(), {p.def}, &coord, &runners).ok());
  std::vector<int32_t> got;
  absl::Status end;
  while (true) {
    std::vector<Tensor> out;
    end = p.session->Run({}, {"take"}, {}, &out);
    if (!end.ok()) break;
    got.push_back(out[0].flat<int32_t>()[0]);
  }
  EXPECT_EQ(end.code(), absl::StatusCode::kOutOfRange) << end;
  std::sort(got.begin(), got.end());
  ASSERT_EQ(got.size(), 20u);
  for (int i = 0; i < 20; ++i) EXPECT_EQ(got[i], i);
  EXPECT_TRUE(coord.Join().ok());
}

TEST(QueueRunnerTest, AFailingEnqueueStopsThePipelineWithItsError) {
  Pipeline p = MakePipeline(/*capacity=*/3, /*threads=*/2, true);
  ASSERT_NE(p.session, nullptr);
  Fill(p.session.get(), 5);
  Coordinator coord;
  std::vector<std::unique_ptr<QueueRunner>> runners;
  ASSERT_TRUE(
      StartQueueRunners(p.session.get(), {p.def}, &coord, &runners).ok());
  // The consumer waits on the buffer: the cancel op ends its wait.
  std::vector<Tensor> out;
  absl::Status take = p.session->Run({}, {"take"}, {}, &out);
  EXPECT_FALSE(take.ok());
  coord.WaitForStop();
  absl::Status pipeline = coord.Join();
  ASSERT_FALSE(pipeline.ok());
  EXPECT_THAT(pipeline.message(), HasSubstr("queue runner of 'buffer' (move)"));
  EXPECT_THAT(pipeline.message(), HasSubstr("bad"));
}

TEST(QueueRunnerTest, StopEndsAnEnqueueWaitingOnAFullQueue) {
  Pipeline p = MakePipeline(/*capacity=*/1, /*threads=*/1, false);
  ASSERT_NE(p.session, nullptr);
  Fill(p.session.get(), 10);
  Coordinator coord;
  std::vector<std::unique_ptr<QueueRunner>> runners;
  ASSERT_TRUE(
      StartQueueRunners(p.session.get(), {p.def}, &coord, &runners).ok());
  // One element in: the runner's next enqueue waits for room.
  std::vector<Tensor> out;
  ASSERT_TRUE(p.session->Run({}, {"take"}, {}, &out).ok());
  EXPECT_EQ(out[0].flat<int32_t>()[0], 0);
  coord.RequestStop();
  EXPECT_TRUE(coord.Join().ok());
  EXPECT_TRUE(coord.ShouldStop());
}

}  // namespace
}  // namespace dflow
