// Batcher: argument checks, the order of examples (seeded, reshuffled per
// epoch, each example once per epoch minus the dropped remainder), that
// prefetching keeps a slow consumer from waiting, and that cancelling and
// destroying never hang.
#include "data/batcher.h"

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <memory>
#include <numeric>
#include <set>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace dflow {
namespace {

using ::testing::HasSubstr;

std::string Message(const absl::Status& status) {
  return std::string(status.message());
}

// n examples: image i is the row {i, i + 0.25, i + 0.5}, label i is i, so a
// batch shows which examples it holds and whether rows stayed paired.
struct Dataset {
  Tensor images;
  Tensor labels;
};

Dataset MakeDataset(int64_t n) {
  std::vector<float> images;
  std::vector<int32_t> labels;
  for (int64_t i = 0; i < n; ++i) {
    images.insert(images.end(), {i + 0.0f, i + 0.25f, i + 0.5f});
    labels.push_back(static_cast<int32_t>(i));
  }
  return {Tensor::FromVector(images, TensorShape({n, 3})),
          Tensor::FromVector(labels, TensorShape({n}))};
}

std::unique_ptr<Batcher> MakeBatcher(const Dataset& data,
                                     const BatcherOptions& options) {
  absl::StatusOr<std::unique_ptr<Batcher>> batcher =
      Batcher::Create(data.images, data.labels, options);
  EXPECT_TRUE(batcher.ok()) << batcher.status();
  return batcher.ok() ? *std::move(batcher) : nullptr;
}

// The labels of a batch, after checking its shapes and that every image
// row belongs to its label.
std::vector<int32_t> CheckedLabels(const Batch& batch, int64_t batch_size) {
  EXPECT_EQ(batch.images.shape(), TensorShape({batch_size, 3}));
  EXPECT_EQ(batch.labels.shape(), TensorShape({batch_size}));
  std::vector<int32_t> labels(batch.labels.flat<int32_t>().begin(),
                              batch.labels.flat<int32_t>().end());
  const float* rows = batch.images.data<float>();
  for (int64_t i = 0; i < batch_size; ++i) {
    EXPECT_EQ(rows[3 * i], labels[i] + 0.0f);
    EXPECT_EQ(rows[3 * i + 1], labels[i] + 0.25f);
    EXPECT_EQ(rows[3 * i + 2], labels[i] + 0.5f);
  }
  return labels;
}

// The labels of each of `epochs` epochs, in the order served.
std::vector<std::vector<int32_t>> EpochOrders(Batcher* batcher,
                                              int64_t batch_size,
                                              int epochs) {
  std::vector<std::vector<int32_t>> orders(epochs);
  for (int e = 0; e < epochs; ++e) {
    for (int64_t b = 0; b < batcher->batches_per_epoch(); ++b) {
      absl::StatusOr<Batch> batch = batcher->Next();
      if (!batch.ok()) {
        ADD_FAILURE() << batch.status();
        return orders;
      }
      EXPECT_EQ(batch->epoch, e);
      EXPECT_EQ(batch->index_in_epoch, b);
      std::vector<int32_t> labels = CheckedLabels(*batch, batch_size);
      orders[e].insert(orders[e].end(), labels.begin(), labels.end());
    }
  }
  return orders;
}

// Polls until the background thread has `count` batches ready. Not a timing
// assertion: the deadline only turns a broken producer into a failure
// instead of a hang.
bool WaitUntilQueued(const Batcher& batcher, int64_t count) {
  const auto deadline =
      std::chrono::steady_clock::now() + std::chrono::seconds(120);
  while (batcher.stats().queued < count) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  return true;
}

TEST(BatcherTest, RejectsBadArguments) {
  const Dataset data = MakeDataset(10);
  struct Case {
    Tensor images;
    Tensor labels;
    BatcherOptions options;
    std::string message;
  };
  BatcherOptions ok;
  ok.batch_size = 4;
  BatcherOptions zero = ok, too_big = ok, negative_prefetch = ok,
                 negative_epochs = ok;
  zero.batch_size = 0;
  too_big.batch_size = 11;
  negative_prefetch.prefetch = -1;
  negative_epochs.num_epochs = -2;
  const std::vector<Case> cases = {
      {data.images, data.labels, zero, "batch_size 0 is not in 1..10"},
      {data.images, data.labels, too_big, "batch_size 11 is not in 1..10"},
      {data.images, data.labels.Slice(0, 9), ok,
       "images hold 10 examples (shape [10,3]) but labels hold 9"},
      {data.images, Tensor::Scalar(1), ok, "labels tensor is a scalar"},
      {Tensor(), data.labels, ok, "images tensor is uninitialized"},
      {data.images, Tensor::FromVector(std::vector<std::string>(10, "x")), ok,
       "labels tensor holds strings"},
      {data.images, data.labels, negative_prefetch, "prefetch -1"},
      {data.images, data.labels, negative_epochs, "num_epochs -2"},
  };
  for (const Case& c : cases) {
    absl::StatusOr<std::unique_ptr<Batcher>> batcher =
        Batcher::Create(c.images, c.labels, c.options);
    ASSERT_FALSE(batcher.ok()) << c.message;
    EXPECT_EQ(batcher.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(Message(batcher.status()), HasSubstr(c.message));
  }
}

TEST(BatcherTest, EveryExampleOncePerEpochRemainderDropped) {
  const Dataset data = MakeDataset(10);
  BatcherOptions options;
  options.batch_size = 3;
  options.seed = 7;
  std::unique_ptr<Batcher> batcher = MakeBatcher(data, options);
  ASSERT_NE(batcher, nullptr);
  EXPECT_EQ(batcher->num_examples(), 10);
  EXPECT_EQ(batcher->batches_per_epoch(), 3);  // 10 / 3, one example dropped
  std::set<int32_t> dropped;
  for (const std::vector<int32_t>& order : EpochOrders(batcher.get(), 3, 5)) {
    ASSERT_EQ(order.size(), 9u);
    const std::set<int32_t> distinct(order.begin(), order.end());
    EXPECT_EQ(distinct.size(), 9u);  // no example twice
    for (int32_t label = 0; label < 10; ++label) {
      if (distinct.count(label) == 0) dropped.insert(label);
    }
    EXPECT_TRUE(*distinct.begin() >= 0 && *distinct.rbegin() < 10);
  }
  // With shuffling, the dropped example is not always the same one.
  EXPECT_GT(dropped.size(), 1u);
}

TEST(BatcherTest, WholeEpochsWhenBatchSizeDividesN) {
  const Dataset data = MakeDataset(12);
  BatcherOptions options;
  options.batch_size = 4;
  std::unique_ptr<Batcher> batcher = MakeBatcher(data, options);
  ASSERT_NE(batcher, nullptr);
  for (std::vector<int32_t> order : EpochOrders(batcher.get(), 4, 3)) {
    std::sort(order.begin(), order.end());
    std::vector<int32_t> all(12);
    std::iota(all.begin(), all.end(), 0);
    EXPECT_EQ(order, all);
  }
}

TEST(BatcherTest, SameSeedSameBatchesOtherSeedOtherBatches) {
  const Dataset data = MakeDataset(50);
  BatcherOptions options;
  options.batch_size = 8;
  options.seed = 1234;
  std::unique_ptr<Batcher> a = MakeBatcher(data, options);
  std::unique_ptr<Batcher> b = MakeBatcher(data, options);
  options.seed = 1235;
  std::unique_ptr<Batcher> c = MakeBatcher(data, options);
  // Without prefetching the batches are the same too: the order depends on
  // the seed only.
  options.seed = 1234;
  options.prefetch = 0;
  std::unique_ptr<Batcher> d = MakeBatcher(data, options);
  ASSERT_TRUE(a && b && c && d);
  const auto orders_a = EpochOrders(a.get(), 8, 3);
  EXPECT_EQ(orders_a, EpochOrders(b.get(), 8, 3));
  EXPECT_EQ(orders_a, EpochOrders(d.get(), 8, 3));
  EXPECT_NE(orders_a, EpochOrders(c.get(), 8, 3));
}

TEST(BatcherTest, ReshufflesEveryEpoch) {
  const Dataset data = MakeDataset(100);
  BatcherOptions options;
  options.batch_size = 10;
  options.seed = 99;
  std::unique_ptr<Batcher> batcher = MakeBatcher(data, options);
  ASSERT_NE(batcher, nullptr);
  std::vector<std::vector<int32_t>> orders = EpochOrders(batcher.get(), 10, 3);
  std::vector<int32_t> identity(100);
  std::iota(identity.begin(), identity.end(), 0);
  EXPECT_NE(orders[0], identity);  // shuffled at all
  EXPECT_NE(orders[0], orders[1]);
  EXPECT_NE(orders[1], orders[2]);
  for (std::vector<int32_t>& order : orders) {
    std::sort(order.begin(), order.end());
    EXPECT_EQ(order, identity);  // same multiset every epoch
  }
}

TEST(BatcherTest, WithoutShuffleEveryEpochIsInOrder) {
  const Dataset data = MakeDataset(7);
  BatcherOptions options;
  options.batch_size = 2;
  options.shuffle = false;
  std::unique_ptr<Batcher> batcher = MakeBatcher(data, options);
  ASSERT_NE(batcher, nullptr);
  for (const std::vector<int32_t>& order : EpochOrders(batcher.get(), 2, 3)) {
    EXPECT_EQ(order, (std::vector<int32_t>{0, 1, 2, 3, 4, 5}));
  }
}

TEST(BatcherTest, EndsAfterNumEpochs) {
  const Dataset data = MakeDataset(6);
  for (int prefetch : {0, 3}) {
    BatcherOptions options;
    options.batch_size = 3;
    options.num_epochs = 2;
    options.prefetch = prefetch;
    std::unique_ptr<Batcher> batcher = MakeBatcher(data, options);
    ASSERT_NE(batcher, nullptr);
    EpochOrders(batcher.get(), 3, 2);
    for (int i = 0; i < 2; ++i) {  // the end repeats
      absl::StatusOr<Batch> batch = batcher->Next();
      ASSERT_FALSE(batch.ok()) << "prefetch " << prefetch;
      EXPECT_EQ(batch.status().code(), absl::StatusCode::kOutOfRange);
      EXPECT_THAT(Message(batch.status()), HasSubstr("after 2 epochs"));
    }
    EXPECT_EQ(batcher->stats().batches_returned, 4);
  }
}

TEST(BatcherTest, BatchesAreFreshCopiesWithTheDatasetsTrailingShape) {
  // Images [n, 2, 2] and one-hot labels [n, 2], as a slice of a larger
  // tensor (its rows start at an offset into the buffer).
  std::vector<uint8_t> pixels;
  std::vector<float> one_hot;
  for (int i = 0; i < 8; ++i) {
    pixels.insert(pixels.end(), 4, static_cast<uint8_t>(i));
    one_hot.insert(one_hot.end(), {i % 2 == 0 ? 1.0f : 0.0f,
                                   i % 2 == 0 ? 0.0f : 1.0f});
  }
  const Tensor all_images = Tensor::FromVector(pixels, TensorShape({8, 2, 2}));
  const Tensor images = all_images.Slice(2, 8);
  const Tensor labels =
      Tensor::FromVector(one_hot, TensorShape({8, 2})).Slice(2, 8);
  BatcherOptions options;
  options.batch_size = 3;
  options.seed = 5;
  absl::StatusOr<std::unique_ptr<Batcher>> batcher =
      Batcher::Create(images, labels, options);
  ASSERT_TRUE(batcher.ok()) << batcher.status();
  std::set<int> seen;
  for (int b = 0; b < 2; ++b) {
    absl::StatusOr<Batch> batch = (*batcher)->Next();
    ASSERT_TRUE(batch.ok()) << batch.status();
    EXPECT_EQ(batch->images.dtype(), DT_UINT8);
    EXPECT_EQ(batch->images.shape(), TensorShape({3, 2, 2}));
    EXPECT_EQ(batch->labels.shape(), TensorShape({3, 2}));
    EXPECT_FALSE(batch->images.SharesBufferWith(all_images));
    for (int i = 0; i < 3; ++i) {
      const int example = batch->images.data<uint8_t>()[4 * i];
      seen.insert(example);
      for (int k = 1; k < 4; ++k) {
        EXPECT_EQ(batch->images.data<uint8_t>()[4 * i + k], example);
      }
      EXPECT_EQ(batch->labels.data<float>()[2 * i], example % 2 == 0 ? 1 : 0);
    }
    // Writing into a batch leaves the dataset alone.
    batch->images.data<uint8_t>()[0] = 255;
  }
  EXPECT_EQ(seen, (std::set<int>{2, 3, 4, 5, 6, 7}));
  for (int i = 0; i < 6; ++i) {
    EXPECT_EQ(images.data<uint8_t>()[4 * i], i + 2);
  }
}

// A consumer slower than the producer: after the first batch (the thread
// may not have made it yet), every Next() finds its batch ready. The
// consumer's slowness is modelled by waiting until the queue is full, so the
// assertion holds however slow the machine is.
TEST(BatcherTest, PrefetchKeepsASlowConsumerFromWaiting) {
  const Dataset data = MakeDataset(64);
  BatcherOptions options;
  options.batch_size = 4;
  options.prefetch = 3;
  std::unique_ptr<Batcher> batcher = MakeBatcher(data, options);
  ASSERT_NE(batcher, nullptr);
  ASSERT_TRUE(batcher->Next().ok());  // warm-up
  const int64_t waits_after_warmup = batcher->stats().waits;
  EXPECT_LE(waits_after_warmup, 1);
  for (int step = 0; step < 40; ++step) {  // 2.5 epochs
    ASSERT_TRUE(WaitUntilQueued(*batcher, 3)) << "step " << step;
    ASSERT_TRUE(batcher->Next().ok());
  }
  // Bursts: a full queue serves `prefetch` calls back to back.
  for (int burst = 0; burst < 5; ++burst) {
    ASSERT_TRUE(WaitUntilQueued(*batcher, 3));
    for (int i = 0; i < 3; ++i) ASSERT_TRUE(batcher->Next().ok());
  }
  const BatcherStats stats = batcher->stats();
  EXPECT_EQ(stats.waits, waits_after_warmup);
  EXPECT_EQ(stats.batches_returned, 1 + 40 + 15);
  // The queue never holds more than `prefetch` batches.
  ASSERT_TRUE(WaitUntilQueued(*batcher, 3));
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  EXPECT_EQ(batcher->stats().queued, 3);
}

TEST(BatcherTest, WithoutPrefetchEveryCallCountsAsAWait) {
  const Dataset data = MakeDataset(8);
  BatcherOptions options;
  options.batch_size = 2;
  options.prefetch = 0;
  std::unique_ptr<Batcher> batcher = MakeBatcher(data, options);
  ASSERT_NE(batcher, nullptr);
  for (int i = 0; i < 5; ++i) ASSERT_TRUE(batcher->Next().ok());
  EXPECT_EQ(batcher->stats().waits, 5);
  EXPECT_EQ(batcher->stats().queued, 0);
}

TEST(BatcherTest, DestroyedMidEpochWithAFullQueue) {
  const Dataset data = MakeDataset(40);
  BatcherOptions options;
  options.batch_size = 4;
  options.prefetch = 2;
  std::unique_ptr<Batcher> batcher = MakeBatcher(data, options);
  ASSERT_NE(batcher, nullptr);
  ASSERT_TRUE(batcher->Next().ok());
  ASSERT_TRUE(batcher->Next().ok());
  // The thread is now blocked on the full queue; nobody will take more.
  ASSERT_TRUE(WaitUntilQueued(*batcher, 2));
  batcher.reset();  // must return (the test's timeout catches a hang)
}

TEST(BatcherTest, DestroyedRightAfterCreation) {
  const Dataset data = MakeDataset(40);
  for (int prefetch : {0, 1, 8}) {
    BatcherOptions options;
    options.batch_size = 5;
    options.prefetch = prefetch;
    MakeBatcher(data, options).reset();
  }
}

TEST(BatcherTest, CancelWakesABlockedConsumer) {
  // Large batches, so the consumer often finds the queue empty and blocks.
  const int64_t n = 2000;
  std::vector<float> values(n * 512, 1.0f);
  const Tensor images = Tensor::FromVector(values, TensorShape({n, 512}));
  const Tensor labels = Tensor::FromVector(std::vector<int32_t>(n, 0));
  BatcherOptions options;
  options.batch_size = 1000;
  options.prefetch = 1;
  absl::StatusOr<std::unique_ptr<Batcher>> created =
      Batcher::Create(images, labels, options);
  ASSERT_TRUE(created.ok()) << created.status();
  std::unique_ptr<Batcher> batcher = *std::move(created);
  int64_t served = 0;
  absl::Status last;
  std::thread consumer([&] {
    while (true) {
      absl::StatusOr<Batch> batch = batcher->Next();
      if (!batch.ok()) {
        last = batch.status();
        return;
      }
      ++served;
    }
  });
  while (batcher->stats().batches_returned < 10) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  batcher->Cancel();
  consumer.join();
  EXPECT_EQ(last.code(), absl::StatusCode::kCancelled);
  EXPECT_GE(served, 10);
  EXPECT_EQ(batcher->Next().status().code(), absl::StatusCode::kCancelled);
  batcher.reset();
}

// Consumers on several threads share one sequence: every (epoch, index)
// is served once.
TEST(BatcherTest, ConcurrentConsumersShareOneSequence) {
  const Dataset data = MakeDataset(30);
  for (int prefetch : {0, 2}) {
    BatcherOptions options;
    options.batch_size = 3;
    options.prefetch = prefetch;
    options.num_epochs = 4;
    std::unique_ptr<Batcher> batcher = MakeBatcher(data, options);
    ASSERT_NE(batcher, nullptr);
    std::vector<std::vector<std::pair<int64_t, int64_t>>> got(3);
    std::vector<std::thread> threads;
    for (int t = 0; t < 3; ++t) {
      threads.emplace_back([&, t] {
        while (true) {
          absl::StatusOr<Batch> batch = batcher->Next();
          if (!batch.ok()) return;
          got[t].emplace_back(batch->epoch, batch->index_in_epoch);
        }
      });
    }
    for (std::thread& thread : threads) thread.join();
    std::set<std::pair<int64_t, int64_t>> all;
    size_t total = 0;
    for (const auto& list : got) {
      all.insert(list.begin(), list.end());
      total += list.size();
    }
    EXPECT_EQ(total, 40u) << "prefetch " << prefetch;
    EXPECT_EQ(all.size(), 40u);
    EXPECT_EQ(*all.rbegin(), std::make_pair(int64_t{3}, int64_t{9}));
  }
}

}  // namespace
}  // namespace dflow
