// The in-process rendezvous: values meet their receivers whichever side
// comes first, share their buffers, keys are used once, and an abort fails
// every pending and later receiver with the first abort status. Then the
// _Send/_Recv kernels (kernels/cpu/transfer_ops.cc) between two executors
// run with Executor::RunAsync, as a session runs the partitions of a step.
#include "runtime/rendezvous.h"

#include <atomic>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "compiler/partition.h"
#include "gmock/gmock.h"
#include "graph/attr_value_util.h"
#include "graph/graph_def_import.h"
#include "gtest/gtest.h"
#include "runtime/call_frame.h"
#include "runtime/device.h"
#include "runtime/executor.h"

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

TEST(RendezvousTest, OnAbortRunsOnceAfterThePendingReceivers) {
  std::vector<std::string> events;
  {
    Rendezvous rendezvous([&](const absl::Status& s) {
      events.push_back(absl::StrCat("abort: ", s.message()));
    });
    rendezvous.RecvAsync("k", [&](const absl::Status& s, const Tensor&) {
      events.push_back(absl::StrCat("recv: ", s.message()));
    });
    rendezvous.StartAbort(absl::InternalError("first"));
    rendezvous.StartAbort(absl::InternalError("second"));
    rendezvous.RecvAsync("late", [&](const absl::Status& s, const Tensor&) {
      events.push_back(absl::StrCat("late: ", s.message()));
    });
  }
  EXPECT_EQ(events, (std::vector<std::string>{"recv: first", "abort: first",
                                              "late: first"}));
  // Destruction aborts pending receivers but does not call on_abort.
  int aborts = 0;
  Received r;
  {
    Rendezvous rendezvous([&](const absl::Status&) { ++aborts; });
    rendezvous.RecvAsync("k", Into(&r));
  }
  EXPECT_EQ(r.calls, 1);
  EXPECT_EQ(aborts, 0);
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
      rendezvous->RecvAsync(
          absl::StrCat(i),
          [&calls, i](const absl::Status&, const Tensor&) { ++calls[i]; });
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

// Two partitions by hand: CPU:0 computes `x` (or fails first) and sends
// it; CPU:1 receives it, negates it and returns it.
constexpr char kCpu0[] = "/job:localhost/replica:0/task:0/device:CPU:0";
constexpr char kCpu1[] = "/job:localhost/replica:0/task:0/device:CPU:1";

void SetTransferAttrs(NodeDef* n, const char* type_attr) {
  (*n->mutable_attr())[type_attr] = MakeAttr(DT_FLOAT);
  (*n->mutable_attr())["tensor_name"] = MakeAttr("x:0");
  (*n->mutable_attr())["send_device"] = MakeAttr(kCpu0);
  (*n->mutable_attr())["recv_device"] = MakeAttr(kCpu1);
  (*n->mutable_attr())["send_device_incarnation"] = MakeAttr(int64_t{1});
}

std::unique_ptr<Graph> SenderGraph(bool fail) {
  GraphDef def;
  NodeDef* x = def.add_node();
  x->set_name("x");
  x->set_op("Const");
  (*x->mutable_attr())["dtype"] = MakeAttr(DT_FLOAT);
  TensorProto* value = (*x->mutable_attr())["value"].mutable_tensor();
  Tensor::FromVector<float>({1.5f, -2.0f}).ToProto(value);
  std::string sent = "x";
  if (fail) {
    NodeDef* f = def.add_node();
    f->set_name("f");
    f->set_op("TestFail");
    f->add_input("x");
    sent = "f";
  }
  NodeDef* send = def.add_node();
  send->set_name("send");
  send->set_op(kSendOp);
  send->add_input(sent);
  SetTransferAttrs(send, "T");
  auto g = std::make_unique<Graph>();
  absl::Status s = ImportGraphDef(def, ImportOptions(), g.get());
  EXPECT_TRUE(s.ok()) << s;
  return g;
}

std::unique_ptr<Graph> ReceiverGraph() {
  GraphDef def;
  NodeDef* recv = def.add_node();
  recv->set_name("recv");
  recv->set_op(kRecvOp);
  SetTransferAttrs(recv, "tensor_type");
  NodeDef* neg = def.add_node();
  neg->set_name("neg");
  neg->set_op("Neg");
  neg->add_input("recv");
  (*neg->mutable_attr())["T"] = MakeAttr(DT_FLOAT);
  NodeDef* ret = def.add_node();
  ret->set_name("ret");
  ret->set_op(kRetvalOp);
  ret->add_input("neg");
  (*ret->mutable_attr())["T"] = MakeAttr(DT_FLOAT);
  (*ret->mutable_attr())["index"] = MakeAttr(int64_t{0});
  auto g = std::make_unique<Graph>();
  absl::Status s = ImportGraphDef(def, ImportOptions(), g.get());
  EXPECT_TRUE(s.ok()) << s;
  return g;
}

struct TwoPartitions {
  std::unique_ptr<Device> cpu0 = NewCpuDevice(0);
  std::unique_ptr<Device> cpu1 = NewCpuDevice(1);
  std::shared_ptr<Executor> sender;
  std::shared_ptr<Executor> receiver;

  explicit TwoPartitions(bool fail) {
    absl::StatusOr<std::unique_ptr<Executor>> a =
        Executor::Create(*SenderGraph(fail), cpu0.get());
    absl::StatusOr<std::unique_ptr<Executor>> b =
        Executor::Create(*ReceiverGraph(), cpu1.get());
    EXPECT_TRUE(a.ok()) << a.status();
    EXPECT_TRUE(b.ok()) << b.status();
    if (a.ok()) sender = *std::move(a);
    if (b.ok()) receiver = *std::move(b);
  }

  // Runs one step of both, the receiver first or second; returns their
  // statuses.
  std::vector<absl::Status> Run(Rendezvous* rendezvous, CallFrame* frame,
                                bool receiver_first,
                                std::vector<NodeExecStats>* stats = nullptr) {
    // std::mutex, not absl::Notification: the system Abseil is not built
    // for ThreadSanitizer, which would not see the hand-over.
    std::mutex mu;
    std::condition_variable cv;
    std::vector<absl::Status> status(2);
    int finished = 0;
    std::vector<NodeExecStats> part_stats[2];  // each executor its own
    Executor::Args args;
    args.variables = nullptr;
    args.rendezvous = rendezvous;
    auto run = [&](int i) {
      Executor::Args a = args;
      a.call_frame = i == 1 ? frame : nullptr;
      if (stats != nullptr) a.stats = &part_stats[i];
      (i == 0 ? sender : receiver)
          ->RunAsync(
              a,
              [&, i](absl::Status s) {
                std::lock_guard<std::mutex> lock(mu);
                status[i] = std::move(s);
                ++finished;
                cv.notify_all();
              },
              i == 0 ? Executor::StartOn::kThisThread
                     : Executor::StartOn::kPool);
    };
    if (receiver_first) {
      run(1);
      run(0);
    } else {
      run(0);
      run(1);
    }
    std::unique_lock<std::mutex> lock(mu);
    cv.wait(lock, [&] { return finished == 2; });
    if (stats != nullptr) {
      for (auto& part : part_stats) {
        stats->insert(stats->end(), part.begin(), part.end());
      }
    }
    return status;
  }
};

TEST(TransferKernelsTest, ValueCrossesBetweenExecutors) {
  TwoPartitions parts(/*fail=*/false);
  ASSERT_NE(parts.sender, nullptr);
  ASSERT_NE(parts.receiver, nullptr);
  for (int i = 0; i < 200; ++i) {
    Rendezvous rendezvous;
    CallFrame frame({}, 1);
    std::vector<absl::Status> s =
        parts.Run(&rendezvous, &frame, /*receiver_first=*/i % 2 == 0);
    ASSERT_TRUE(s[0].ok()) << s[0];
    ASSERT_TRUE(s[1].ok()) << s[1];
    std::vector<Tensor> out;
    ASSERT_TRUE(frame.TakeRetvals(&out).ok());
    ASSERT_EQ(out[0].NumElements(), 2);
    EXPECT_EQ(out[0].flat<float>()[0], -1.5f);
    EXPECT_EQ(out[0].flat<float>()[1], 2.0f);
  }
}

TEST(TransferKernelsTest, StatsNameTheRendezvousKeyParts) {
  TwoPartitions parts(/*fail=*/false);
  ASSERT_NE(parts.receiver, nullptr);
  Rendezvous rendezvous;
  CallFrame frame({}, 1);
  std::vector<NodeExecStats> stats;
  std::vector<absl::Status> s =
      parts.Run(&rendezvous, &frame, /*receiver_first=*/true, &stats);
  ASSERT_TRUE(s[0].ok() && s[1].ok());
  int transfers = 0;
  for (const NodeExecStats& st : stats) {
    if (st.op != kSendOp && st.op != kRecvOp) continue;
    ++transfers;
    EXPECT_THAT(st.details,
                ::testing::ElementsAre(
                    std::pair<std::string, std::string>("tensor_name", "x:0"),
                    std::pair<std::string, std::string>("send_device", kCpu0),
                    std::pair<std::string, std::string>("recv_device", kCpu1)))
        << st.node;
  }
  EXPECT_EQ(transfers, 2);
}

TEST(TransferKernelsTest, SenderErrorFailsThePendingReceiver) {
  TwoPartitions parts(/*fail=*/true);
  ASSERT_NE(parts.sender, nullptr);
  ASSERT_NE(parts.receiver, nullptr);
  for (int i = 0; i < 200; ++i) {
    Rendezvous rendezvous;
    CallFrame frame({}, 1);
    std::vector<absl::Status> s =
        parts.Run(&rendezvous, &frame, /*receiver_first=*/i % 2 == 0);
    EXPECT_EQ(s[0].message(), "node 'f' (TestFail): boom");
    // The receiver fails with the sender's error: through its waiting
    // _Recv, or before its first node when the abort came first.
    EXPECT_EQ(s[1].code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(s[1].message(), ::testing::HasSubstr("boom"));
    // The step's root cause is the rendezvous's abort status.
    EXPECT_EQ(rendezvous.status().message(), "node 'f' (TestFail): boom");
  }
}

TEST(TransferKernelsTest, AbortFromOutsideEndsAWaitingReceiver) {
  TwoPartitions parts(/*fail=*/false);
  ASSERT_NE(parts.receiver, nullptr);
  Rendezvous rendezvous;
  CallFrame frame({}, 1);
  std::mutex mu;
  std::condition_variable cv;
  bool done = false;
  absl::Status status;
  Executor::Args args;
  args.rendezvous = &rendezvous;
  args.call_frame = &frame;
  parts.receiver->RunAsync(args, [&](absl::Status s) {
    std::lock_guard<std::mutex> lock(mu);
    status = std::move(s);
    done = true;
    cv.notify_all();
  });
  rendezvous.StartAbort(absl::CancelledError("the caller gave up"));
  std::unique_lock<std::mutex> lock(mu);
  cv.wait(lock, [&] { return done; });
  EXPECT_EQ(status.code(), absl::StatusCode::kCancelled);
  EXPECT_THAT(status.message(), ::testing::HasSubstr("the caller gave up"));
}

TEST(TransferKernelsTest, WithoutARendezvousTheKernelsFailClearly) {
  TwoPartitions parts(/*fail=*/false);
  ASSERT_NE(parts.sender, nullptr);
  Executor::Args args;
  absl::Status s = parts.sender->Run(args);
  EXPECT_EQ(s.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(s.message(), ::testing::HasSubstr("node 'send' (_Send)"));
  EXPECT_THAT(s.message(), ::testing::HasSubstr("without a rendezvous"));
}

}  // namespace
}  // namespace dflow
