// The in-process rendezvous: values meet their receivers whichever side
// comes first, share their buffers, keys are used once, and an abort fails
// every pending and later receiver with the first abort status.
#include "runtime/rendezvous.h"

#include <atomic>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/notification.h"
#include "gtest/gtest.h"
#include "runtime/device.h"

namespace dflow {
namespace {

// What a receiver got.
struct Received {
  int calls = 0;
  absl::Status status;
  Tensor value;
};

Rendezvous::DoneCallback Into(Received* r) {
  return [r](const absl::Status& s, const Tensor& v) {
    ++r->calls;
    r->status = s;
    r->value = v;
  };
}

TEST(RendezvousTest, SendThenRecvSharesTheBuffer) {
  Rendezvous rendezvous;
  Tensor sent = Tensor::Scalar<float>(3.5f);
  ASSERT_TRUE(rendezvous.Send("a", sent).ok());
  Received r;
  rendezvous.RecvAsync("a", Into(&r));
  EXPECT_EQ(r.calls, 1);  // at once: the value was there
  ASSERT_TRUE(r.status.ok()) << r.status;
  EXPECT_EQ(r.value.data<float>()[0], 3.5f);
  EXPECT_TRUE(r.value.SharesBufferWith(sent));
}

TEST(RendezvousTest, RecvThenSendRunsTheReceiverInSend) {
  Rendezvous rendezvous;
  Received r;
  rendezvous.RecvAsync("a", Into(&r));
  EXPECT_EQ(r.calls, 0);
  Tensor sent = Tensor::Scalar<int32_t>(7);
  ASSERT_TRUE(rendezvous.Send("a", sent).ok());
  EXPECT_EQ(r.calls, 1);
  ASSERT_TRUE(r.status.ok()) << r.status;
  EXPECT_EQ(r.value.data<int32_t>()[0], 7);
  EXPECT_TRUE(r.value.SharesBufferWith(sent));
}

TEST(RendezvousTest, KeysAreIndependent) {
  Rendezvous rendezvous;
  Received a, b;
  rendezvous.RecvAsync("a", Into(&a));
  ASSERT_TRUE(rendezvous.Send("b", Tensor::Scalar<float>(2)).ok());
  EXPECT_EQ(a.calls, 0);
  rendezvous.RecvAsync("b", Into(&b));
  EXPECT_EQ(b.calls, 1);
  EXPECT_EQ(b.value.data<float>()[0], 2.0f);
  ASSERT_TRUE(rendezvous.Send("a", Tensor::Scalar<float>(1)).ok());
  EXPECT_EQ(a.calls, 1);
  EXPECT_EQ(a.value.data<float>()[0], 1.0f);
}

TEST(RendezvousTest, KeySentTwiceIsAnErrorNamingTheKey) {
  Rendezvous rendezvous;
  ASSERT_TRUE(rendezvous.Send("dev0;dev1;x:0", Tensor::Scalar<float>(1)).ok());
  absl::Status s = rendezvous.Send("dev0;dev1;x:0", Tensor::Scalar<float>(2));
  EXPECT_EQ(s.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_NE(s.message().find("'dev0;dev1;x:0'"), std::string::npos) << s;
  EXPECT_NE(s.message().find("sent twice"), std::string::npos) << s;
  // Also after the value was received.
  Received r;
  rendezvous.RecvAsync("dev0;dev1;x:0", Into(&r));
  EXPECT_EQ(r.value.data<float>()[0], 1.0f);
  EXPECT_FALSE(rendezvous.Send("dev0;dev1;x:0", Tensor::Scalar<float>(3)).ok());
  // The errors concern the key, not the step.
  EXPECT_FALSE(rendezvous.aborted());
}

TEST(RendezvousTest, KeyReceivedTwiceFailsTheSecondReceiver) {
  Rendezvous rendezvous;
  Received first, second;
  rendezvous.RecvAsync("k", Into(&first));
  rendezvous.RecvAsync("k", Into(&second));
  EXPECT_EQ(second.calls, 1);
  EXPECT_EQ(second.status.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_NE(second.status.message().find("'k'"), std::string::npos);
  ASSERT_TRUE(rendezvous.Send("k", Tensor::Scalar<float>(1)).ok());
  EXPECT_EQ(first.calls, 1);
  EXPECT_TRUE(first.status.ok());
}

TEST(RendezvousTest, AbortFailsPendingAndLaterReceivers) {
  Rendezvous rendezvous;
  std::vector<Received> pending(5);
  for (int i = 0; i < 5; ++i) {
    rendezvous.RecvAsync(absl::StrCat("k", i), Into(&pending[i]));
  }
  ASSERT_TRUE(rendezvous.Send("sent", Tensor::Scalar<float>(1)).ok());
  EXPECT_FALSE(rendezvous.aborted());
  rendezvous.StartAbort(absl::InternalError("node 'x' (Op): first"));
  EXPECT_TRUE(rendezvous.aborted());
  for (const Received& r : pending) {
    EXPECT_EQ(r.calls, 1);
    EXPECT_EQ(r.status.code(), absl::StatusCode::kInternal);
    EXPECT_EQ(r.status.message(), "node 'x' (Op): first");
    EXPECT_FALSE(r.value.IsInitialized());
  }
  // A value sent before the abort is dropped, not received.
  Received later;
  rendezvous.RecvAsync("sent", Into(&later));
  EXPECT_EQ(later.calls, 1);
  EXPECT_EQ(later.status.message(), "node 'x' (Op): first");
  // Later sends fail too.
  EXPECT_EQ(rendezvous.Send("new", Tensor::Scalar<float>(1)).message(),
            "node 'x' (Op): first");
  // Idempotent; the first status wins.
  rendezvous.StartAbort(absl::CancelledError("second"));
  EXPECT_EQ(rendezvous.status().message(), "node 'x' (Op): first");
  for (const Received& r : pending) EXPECT_EQ(r.calls, 1);
}

TEST(RendezvousTest, AbortWithOkStillAborts) {
  Rendezvous rendezvous;
  Received r;
  rendezvous.RecvAsync("k", Into(&r));
  rendezvous.StartAbort(absl::OkStatus());
  EXPECT_EQ(r.calls, 1);
  EXPECT_FALSE(r.status.ok());
  EXPECT_FALSE(rendezvous.status().ok());
}

TEST(RendezvousTest, AbortFreesWaitingValues) {
  TrackingAllocator* allocator = ProcessAllocator("RendezvousTest:0");
  const int64_t baseline = allocator->Stats().live_bytes;
  Rendezvous rendezvous;
  {
    Tensor t(allocator, DT_FLOAT, TensorShape({1024}));
    ASSERT_TRUE(rendezvous.Send("k", t).ok());
  }
  EXPECT_GE(allocator->Stats().live_bytes, baseline + 4096);
  rendezvous.StartAbort(absl::CancelledError("stop"));
  // Freed by the abort, not when the step's rendezvous goes away.
  EXPECT_EQ(allocator->Stats().live_bytes, baseline);
}

TEST(RendezvousTest, DestructionCancelsPendingReceivers) {
  Received r;
  {
    Rendezvous rendezvous;
    rendezvous.RecvAsync("k", Into(&r));
  }
  EXPECT_EQ(r.calls, 1);
  EXPECT_EQ(r.status.code(), absl::StatusCode::kCancelled);
}

TEST(RendezvousTest, ReceiverCanSendFromItsCallback) {
  // A receiver that goes on computing and sends on (as a partition's Recv
  // does, continuing the step on the sender's thread) must not deadlock.
  Rendezvous rendezvous;
  Received final;
  rendezvous.RecvAsync("a", [&](const absl::Status& s, const Tensor& v) {
    ASSERT_TRUE(s.ok());
    EXPECT_TRUE(rendezvous.Send("b", v).ok());
  });
  rendezvous.RecvAsync("b", Into(&final));
  ASSERT_TRUE(rendezvous.Send("a", Tensor::Scalar<float>(4)).ok());
  EXPECT_EQ(final.calls, 1);
  EXPECT_EQ(final.value.data<float>()[0], 4.0f);
  // And an abort from a callback run by an abort.
  Rendezvous r2;
  int calls = 0;
  r2.RecvAsync("x", [&](const absl::Status&, const Tensor&) {
    ++calls;
    r2.StartAbort(absl::CancelledError("again"));
  });
  r2.RecvAsync("y", [&](const absl::Status&, const Tensor&) { ++calls; });
  r2.StartAbort(absl::AbortedError("first"));
  EXPECT_EQ(calls, 2);
  EXPECT_EQ(r2.status().code(), absl::StatusCode::kAborted);
}

TEST(RendezvousTest, ManyThreadsManyKeys) {
  constexpr int kThreads = 8;
  constexpr int kKeys = 2000;
  for (int round = 0; round < 3; ++round) {
    Rendezvous rendezvous;
    std::atomic<int> received{0};
    std::atomic<int> wrong{0};
    std::vector<std::thread> threads;
    // Half the threads send, half receive, over the same keys in different
    // orders, so both meeting orders happen.
    for (int t = 0; t < kThreads; ++t) {
      threads.emplace_back([&, t] {
        const bool sender = t % 2 == 0;
        const int part = t / 2;
        for (int j = 0; j < kKeys; ++j) {
          const int i = sender ? j : kKeys - 1 - j;
          const int value = part * kKeys + i;
          const std::string key = absl::StrCat("p", part, "/k", i);
          if (sender) {
            if (!rendezvous.Send(key, Tensor::Scalar<int32_t>(value)).ok()) {
              ++wrong;
            }
          } else {
            rendezvous.RecvAsync(
                key, [&, value](const absl::Status& s, const Tensor& v) {
                  if (!s.ok() || v.data<int32_t>()[0] != value) ++wrong;
                  ++received;
                });
          }
        }
      });
    }
    for (std::thread& t : threads) t.join();
    EXPECT_EQ(wrong.load(), 0);
    EXPECT_EQ(received.load(), kThreads / 2 * kKeys);
  }
}

TEST(RendezvousTest, AbortRacingWithSendsCallsEveryReceiverOnce) {
  for (int round = 0; round < 20; ++round) {
    auto rendezvous = std::make_unique<Rendezvous>();
    constexpr int kKeys = 500;
    std::vector<std::atomic<int>> calls(kKeys);
    for (auto& c : calls) c.store(0);
    for (int i = 0; i < kKeys; ++i) {
      rendezvous->RecvAsync(absl::StrCat(i),
                            [&calls, i](const absl::Status&, const Tensor&) {
                              ++calls[i];
                            });
    }
    std::thread sender([&] {
      for (int i = 0; i < kKeys; ++i) {
        (void)rendezvous->Send(absl::StrCat(i), Tensor::Scalar<float>(1));
      }
    });
    std::thread aborter(
        [&] { rendezvous->StartAbort(absl::CancelledError("stop")); });
    sender.join();
    aborter.join();
    for (int i = 0; i < kKeys; ++i) EXPECT_EQ(calls[i].load(), 1) << i;
  }
}

}  // namespace
}  // namespace dflow
