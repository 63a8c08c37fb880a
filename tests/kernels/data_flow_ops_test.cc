// The queue kernels through a Session: FIFO order, DequeueMany stacking,
// a dequeue that waits (on another thread) for later enqueues, Close with
// pending and later dequeues, DequeueUpTo's partial batch, the random
// shuffle queue's min_after_dequeue and permutation, padding, and errors.
#include <algorithm>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "gmock/gmock.h"
#include "graph/ops/ops.h"
#include "graph/scope.h"
#include "gtest/gtest.h"
#include "runtime/session.h"

namespace dflow {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

// A queue of int32 scalars (or vectors with `padded`) and its ops, named
// "q", "enqueue" (fed "x"), "enqueue_many" (fed "xs"), "dequeue",
// "dequeue_many" (fed "n"), "dequeue_up_to" (fed "n"), "close", "size".
std::unique_ptr<Session> QueueSession(const std::string& queue_op,
                                      int64_t capacity = -1,
                                      int64_t min_after_dequeue = 0) {
  Scope root = Scope::NewRootScope();
  const std::vector<DataType> types = {DT_INT32};
  OpBuilder queue(root.WithOpName("q"), queue_op);
  queue.Attr("component_types", types).Attr("capacity", capacity);
  if (queue_op == "RandomShuffleQueueV2") {
    queue.Attr("min_after_dequeue", min_after_dequeue)
        .Attr("seed", 7)
        .Attr("seed2", 11);
  }
  if (queue_op == "PaddingFIFOQueueV2") {
    queue.Attr("shapes", std::vector<TensorShape>{TensorShape({-1})});
  }
  Output q = queue.Finalize().output(0);
  Output x = ops::Placeholder(root.WithOpName("x"), DT_INT32);
  Output xs = ops::Placeholder(root.WithOpName("xs"), DT_INT32);
  Output n = ops::Placeholder(root.WithOpName("n"), DT_INT32);
  OpBuilder(root.WithOpName("enqueue"), "QueueEnqueueV2")
      .Input(q)
      .InputList({x})
      .Finalize();
  OpBuilder(root.WithOpName("enqueue_many"), "QueueEnqueueManyV2")
      .Input(q)
      .InputList({xs})
      .Finalize();
  OpBuilder(root.WithOpName("dequeue"), "QueueDequeueV2")
      .Input(q)
      .Attr("component_types", types)
      .Finalize();
  for (const char* many : {"dequeue_many", "dequeue_up_to"}) {
    OpBuilder(root.WithOpName(many), std::string(many) == "dequeue_many"
                                         ? "QueueDequeueManyV2"
                                         : "QueueDequeueUpToV2")
        .Input(q)
        .Input(n)
        .Attr("component_types", types)
        .Finalize();
  }
  OpBuilder(root.WithOpName("close"), "QueueCloseV2").Input(q).Finalize();
  OpBuilder(root.WithOpName("size"), "QueueSizeV2").Input(q).Finalize();
  GraphDef def;
  EXPECT_TRUE(root.ToGraphDef(&def).ok()) << root.status();
  absl::StatusOr<std::unique_ptr<Session>> session =
      Session::Create(def, SessionOptions());
  EXPECT_TRUE(session.ok()) << session.status();
  return session.ok() ? *std::move(session) : nullptr;
}

absl::Status EnqueueMany(Session* s, std::vector<int32_t> values) {
  const int64_t count = static_cast<int64_t>(values.size());
  return s->Run(
      {{"xs", Tensor::FromVector<int32_t>(values, TensorShape({count}))}}, {},
      {"enqueue_many"}, nullptr);
}

absl::StatusOr<std::vector<int32_t>> DequeueMany(
    Session* s, int32_t n, const char* op = "dequeue_many") {
  std::vector<Tensor> out;
  absl::Status st = s->Run({{"n", Tensor::Scalar(n)}}, {op}, {}, &out);
  if (!st.ok()) return st;
  auto flat = out[0].flat<int32_t>();
  return std::vector<int32_t>(flat.begin(), flat.end());
}

int32_t Size(Session* s) {
  std::vector<Tensor> out;
  EXPECT_TRUE(s->Run({}, {"size"}, {}, &out).ok());
  return out.empty() ? -1 : out[0].flat<int32_t>()[0];
}

TEST(QueueTest, FifoOrderAndStacking) {
  auto s = QueueSession("FIFOQueueV2");
  ASSERT_NE(s, nullptr);
  ASSERT_TRUE(EnqueueMany(s.get(), {1, 2, 3}).ok());
  ASSERT_TRUE(
      s->Run({{"x", Tensor::Scalar<int32_t>(4)}}, {}, {"enqueue"}, nullptr)
          .ok());
  EXPECT_EQ(Size(s.get()), 4);
  std::vector<Tensor> out;
  ASSERT_TRUE(s->Run({}, {"dequeue"}, {}, &out).ok());
  EXPECT_EQ(out[0].shape(), TensorShape({}));
  EXPECT_EQ(out[0].flat<int32_t>()[0], 1);
  absl::StatusOr<std::vector<int32_t>> batch = DequeueMany(s.get(), 3);
  ASSERT_TRUE(batch.ok()) << batch.status();
  EXPECT_THAT(*batch, ElementsAre(2, 3, 4));
  EXPECT_EQ(Size(s.get()), 0);
}

TEST(QueueTest, DequeueWaitsForLaterEnqueuesWithoutAThread) {
  auto s = QueueSession("FIFOQueueV2");
  ASSERT_NE(s, nullptr);
  absl::StatusOr<std::vector<int32_t>> batch;
  std::thread consumer([&] { batch = DequeueMany(s.get(), 4); });
  // Each enqueue is its own step; the dequeue completes with the fourth.
  for (int32_t v : {10, 20, 30, 40}) {
    ASSERT_TRUE(
        s->Run({{"x", Tensor::Scalar(v)}}, {}, {"enqueue"}, nullptr).ok());
  }
  consumer.join();
  ASSERT_TRUE(batch.ok()) << batch.status();
  EXPECT_THAT(*batch, ElementsAre(10, 20, 30, 40));
}

TEST(QueueTest, CloseEndsPendingAndLaterDequeues) {
  auto s = QueueSession("FIFOQueueV2");
  ASSERT_NE(s, nullptr);
  ASSERT_TRUE(EnqueueMany(s.get(), {1, 2}).ok());
  absl::StatusOr<std::vector<int32_t>> waiting;
  std::thread consumer([&] { waiting = DequeueMany(s.get(), 3); });
  // The consumer may or may not have queued its request before the close;
  // either way it fails and the two elements stay in the queue.
  ASSERT_TRUE(s->Run({}, {}, {"close"}, nullptr).ok());
  consumer.join();
  ASSERT_FALSE(waiting.ok());
  EXPECT_EQ(waiting.status().code(), absl::StatusCode::kOutOfRange);
  EXPECT_THAT(waiting.status().message(),
              HasSubstr("FIFOQueue 'q' is closed and has insufficient "
                        "elements (requested 3"));
  EXPECT_EQ(Size(s.get()), 2);
  // DequeueUpTo takes what is left, then fails.
  absl::StatusOr<std::vector<int32_t>> rest =
      DequeueMany(s.get(), 3, "dequeue_up_to");
  ASSERT_TRUE(rest.ok()) << rest.status();
  EXPECT_THAT(*rest, ElementsAre(1, 2));
  EXPECT_EQ(DequeueMany(s.get(), 1, "dequeue_up_to").status().code(),
            absl::StatusCode::kOutOfRange);
  // Enqueues into a closed queue fail.
  absl::Status closed = EnqueueMany(s.get(), {5});
  EXPECT_EQ(closed.code(), absl::StatusCode::kCancelled);
  EXPECT_THAT(closed.message(), HasSubstr("FIFOQueue 'q' is closed"));
}

TEST(QueueTest, RandomShuffleKeepsMinAfterDequeueUntilClosed) {
  auto s = QueueSession("RandomShuffleQueueV2", /*capacity=*/100,
                        /*min_after_dequeue=*/5);
  ASSERT_NE(s, nullptr);
  std::vector<int32_t> values(20);
  for (int i = 0; i < 20; ++i) values[i] = i;
  ASSERT_TRUE(EnqueueMany(s.get(), values).ok());
  absl::StatusOr<std::vector<int32_t>> first = DequeueMany(s.get(), 15);
  ASSERT_TRUE(first.ok()) << first.status();
  EXPECT_EQ(Size(s.get()), 5);
  // Not in enqueue order (a fixed seed makes this deterministic).
  EXPECT_NE(*first, std::vector<int32_t>(values.begin(), values.begin() + 15));
  // Closing lets the last five out.
  ASSERT_TRUE(s->Run({}, {}, {"close"}, nullptr).ok());
  absl::StatusOr<std::vector<int32_t>> last = DequeueMany(s.get(), 5);
  ASSERT_TRUE(last.ok()) << last.status();
  std::vector<int32_t> all = *first;
  all.insert(all.end(), last->begin(), last->end());
  std::sort(all.begin(), all.end());
  EXPECT_EQ(all, values);
}

TEST(QueueTest, PaddingQueuePadsToTheLongestElement) {
  auto s = QueueSession("PaddingFIFOQueueV2");
  ASSERT_NE(s, nullptr);
  ASSERT_TRUE(s->Run({{"x", Tensor::FromVector<int32_t>({1, 2, 3})}}, {},
                     {"enqueue"}, nullptr)
                  .ok());
  ASSERT_TRUE(s->Run({{"x", Tensor::FromVector<int32_t>({4})}}, {}, {"enqueue"},
                     nullptr)
                  .ok());
  std::vector<Tensor> out;
  ASSERT_TRUE(
      s->Run({{"n", Tensor::Scalar<int32_t>(2)}}, {"dequeue_many"}, {}, &out)
          .ok());
  EXPECT_EQ(out[0].shape(), TensorShape({2, 3}));
  auto flat = out[0].flat<int32_t>();
  EXPECT_THAT(std::vector<int32_t>(flat.begin(), flat.end()),
              ElementsAre(1, 2, 3, 4, 0, 0));
}

TEST(QueueTest, BadElementsAreRefusedNamingTheQueue) {
  auto s = QueueSession("FIFOQueueV2");
  ASSERT_NE(s, nullptr);
  absl::Status wrong =
      s->Run({{"x", Tensor::Scalar(1.5f)}}, {}, {"enqueue"}, nullptr);
  // The placeholder is int32: feeding a float fails before the queue; a
  // scalar for enqueue_many fails in the queue's kernel.
  EXPECT_FALSE(wrong.ok());
  absl::Status scalar = s->Run({{"xs", Tensor::Scalar<int32_t>(3)}}, {},
                               {"enqueue_many"}, nullptr);
  ASSERT_FALSE(scalar.ok());
  EXPECT_THAT(scalar.message(), HasSubstr("FIFOQueue 'q'"));
  EXPECT_THAT(scalar.message(), HasSubstr("0th dimension"));
}

}  // namespace
}  // namespace dflow
