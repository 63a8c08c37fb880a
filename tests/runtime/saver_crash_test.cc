// Saver under stress: saving while training steps run, and crash safety (a
// child process killed in the middle of saving,
// tests/runtime/saver_crash_child.cc).
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "formats/tensor_bundle.h"
#include "gmock/gmock.h"
#include "graph/ops/ops.h"
#include "graph/scope.h"
#include "gtest/gtest.h"
#include "runtime/saver.h"
#include "runtime/session.h"
#include "tests/runtime/saver_test_util.h"

extern char** environ;

namespace dflow {
namespace {

using namespace saver_test;  // NOLINT: the Saver tests' helpers

// --- Saving while training runs. ---

// Training adds 1 to every element of a large variable while the main thread
// saves: every checkpoint must hold one step's value in all elements. (A
// save that read the buffer while AssignAdd updates it in place would catch
// some elements before the update and some after.)
TEST(SaverConcurrencyTest, EachVariableIsOneSnapshotWhileTrainingRuns) {
  constexpr int kElements = 2 << 20;
  constexpr int kSaves = 40;
  Scope root = Scope::NewRootScope();
  Output v =
      ops::Variable(root.WithOpName("v"), TensorShape({kElements}), DT_FLOAT);
  Output dims = ops::Const(root, {kElements});
  ops::Assign(root.WithOpName("init"), v,
              ops::Fill(root, dims, ops::Const(root, 0.0f)));
  ops::AssignAdd(root.WithOpName("train"), v,
                 ops::Fill(root, dims, ops::Const(root, 1.0f)));
  const GraphDef def = ToDef(root);
  auto session = MakeSession(def);
  RunTargets(session.get(), {"init"});
  Saver saver = MakeSaver(def, /*max_to_keep=*/1);
  const std::string dir = NewTempDir();

  std::atomic<bool> stop{false};
  std::atomic<int> steps{0};
  std::thread trainer([&] {
    std::vector<Tensor> out;
    while (!stop.load()) {
      if (!session->Run({}, {}, {"train"}, &out).ok()) return;
      steps.fetch_add(1);
    }
  });
  float last = -1;
  for (int i = 0; i < kSaves; ++i) {
    absl::StatusOr<std::string> path = saver.Save(session.get(), dir + "/m", i);
    ASSERT_TRUE(path.ok()) << path.status();
    auto reader = BundleReader::Open(*path);
    ASSERT_TRUE(reader.ok()) << reader.status();
    ASSERT_EQ((*reader)->entries().size(), 1u);
    absl::StatusOr<Tensor> value =
        (*reader)->Read((*reader)->entries().begin()->first);
    ASSERT_TRUE(value.ok()) << value.status();
    auto f = value->flat<float>();
    ASSERT_EQ(f.size(), static_cast<size_t>(kElements));
    for (size_t k = 1; k < f.size(); ++k) {
      ASSERT_EQ(f[k], f[0]) << "save " << i << ", element " << k;
    }
    EXPECT_GE(f[0], last);
    last = f[0];
  }
  stop.store(true);
  trainer.join();
  EXPECT_GT(steps.load(), 0);
}

// --- Crash safety. ---

// Waits up to `timeout` for `pid` to exit; its wait status, or -1.
int WaitForExit(pid_t pid, absl::Duration timeout) {
  const absl::Time deadline = absl::Now() + timeout;
  while (absl::Now() < deadline) {
    int status = 0;
    pid_t r = waitpid(pid, &status, WNOHANG);
    if (r == pid) return status;
    if (r < 0) return -1;
    absl::SleepFor(absl::Milliseconds(2));
  }
  return -1;
}

// The value of the "global_step" variable in the checkpoint `path`, -1 if
// it cannot be read.
int64_t StepVariable(BundleReader* reader) {
  absl::StatusOr<Tensor> value = reader->Read("global_step");
  if (value.ok() && value->dtype() == DT_INT64 && value->NumElements() == 1) {
    return value->flat<int64_t>()[0];
  }
  return -1;
}

// The step of `dir`'s latest checkpoint, -1 if there is none (yet).
int64_t LatestStep(const std::string& dir) {
  absl::StatusOr<std::string> path = Saver::LatestCheckpoint(dir);
  if (!path.ok()) return -1;
  auto reader = BundleReader::Open(*path);
  return reader.ok() ? StepVariable(reader->get()) : -1;
}

// What saver_crash_child writes: every element of "weights" equals the
// "global_step" variable, and so does the step in the file name if any.
void ExpectConsistent(const std::string& path) {
  auto reader = BundleReader::Open(path);
  ASSERT_TRUE(reader.ok()) << reader.status();
  const int64_t step = StepVariable(reader->get());
  ASSERT_GT(step, 0) << path;
  const size_t dash = path.rfind('-');
  if (dash != std::string::npos && path.find("/model-") != std::string::npos &&
      path.find(".replaced") == std::string::npos) {
    EXPECT_EQ(path.substr(dash + 1), absl::StrCat(step)) << path;
  }
  ASSERT_EQ((*reader)->entries().size(), 2u) << path;
  absl::StatusOr<Tensor> value = (*reader)->Read("weights");
  ASSERT_TRUE(value.ok()) << value.status();
  auto f = value->flat<float>();
  ASSERT_EQ(f.size(), 8u * 1024 * 1024);
  for (size_t i = 0; i < f.size(); ++i) {
    ASSERT_EQ(f[i], static_cast<float>(step)) << path << " element " << i;
  }
}

TEST(SaverCrashTest, KilledWhileSavingLeavesOnlyCompleteCheckpoints) {
  const char* srcdir = std::getenv("TEST_SRCDIR");
  const char* workspace = std::getenv("TEST_WORKSPACE");
  const std::string child =
      srcdir != nullptr && workspace != nullptr
          ? absl::StrCat(srcdir, "/", workspace,
                         "/tests/runtime/saver_crash_child")
          : "tests/runtime/saver_crash_child";
  ASSERT_TRUE(FileExists(child)) << child;
  const std::string dir = NewTempDir();

  // Kill the child at different moments after a checkpoint lands: at once
  // (the next step or the start of the next save) and later, into the
  // serialization, the write, the syncs and the index update. Rounds
  // alternate between new files per step and replacing one file.
  const std::vector<int> delays_ms = {0,  0,  1,  3,  5,   10,  20,
                                      30, 45, 60, 80, 130, 200, 300};
  int64_t last_step = 0;
  for (size_t round = 0; round < delays_ms.size(); ++round) {
    const int delay = delays_ms[round];
    std::string max_saves = "100000";
    std::string mode = round % 2 == 0 ? "stepped" : "fixed";
    std::vector<char*> argv = {const_cast<char*>(child.c_str()),
                               const_cast<char*>(dir.c_str()), max_saves.data(),
                               mode.data(), nullptr};
    pid_t pid = 0;
    ASSERT_EQ(posix_spawn(&pid, child.c_str(), nullptr, nullptr, argv.data(),
                          environ),
              0);
    // Wait (bounded) for a checkpoint newer than the last round's: the child
    // resumed from the index and saved at least once more.
    const absl::Time deadline = absl::Now() + absl::Seconds(120);
    int64_t step = -1;
    int exited = 0;
    while (absl::Now() < deadline) {
      step = LatestStep(dir);
      if (step > last_step) break;
      int status = 0;
      if (waitpid(pid, &status, WNOHANG) == pid) {
        exited = 1;
        ADD_FAILURE() << "the child exited early with status " << status;
        break;
      }
      absl::SleepFor(absl::Milliseconds(1));
    }
    if (!exited) {
      absl::SleepFor(absl::Milliseconds(delay));
      kill(pid, SIGKILL);
      int status = WaitForExit(pid, absl::Seconds(60));
      ASSERT_NE(status, -1) << "the child did not die";
      EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL)
          << "status " << status;
    }
    ASSERT_GT(step, last_step)
        << "round " << round << " (" << mode << ") saved no new checkpoint";

    // What the kill left: an index naming only complete, consistent
    // checkpoints, the latest last.
    absl::StatusOr<CheckpointState> state = ReadCheckpointState(dir);
    ASSERT_TRUE(state.ok()) << state.status();
    ASSERT_GE(state->all_model_checkpoint_paths_size(), 1);
    ASSERT_LE(state->all_model_checkpoint_paths_size(), 3);
    EXPECT_EQ(state->model_checkpoint_path(),
              *state->all_model_checkpoint_paths().rbegin());
    for (const std::string& kept : state->all_model_checkpoint_paths()) {
      ExpectConsistent(dir + "/" + kept);
      if (HasFailure()) {
        ADD_FAILURE() << "after round " << round << " (" << mode << "), killed "
                      << delay << " ms after a save";
        return;
      }
    }
    last_step = LatestStep(dir);
  }

  // A fresh process (here: a fresh session) restores the latest checkpoint.
  Scope root = Scope::NewRootScope();
  ops::Variable(root.WithOpName("weights"), TensorShape({8 * 1024 * 1024}),
                DT_FLOAT);
  Output step =
      ops::Variable(root.WithOpName("global_step"), TensorShape({}), DT_INT64);
  ops::Identity(root.WithOpName("step_value"), step);
  const GraphDef def = ToDef(root);
  Saver saver = MakeSaver(def);
  auto session = MakeSession(def);
  absl::StatusOr<std::string> latest = Saver::LatestCheckpoint(dir);
  ASSERT_TRUE(latest.ok()) << latest.status();
  absl::Status s = saver.Restore(session.get(), *latest);
  ASSERT_TRUE(s.ok()) << s;
  std::vector<Tensor> out = Fetch(session.get(), {"step_value"});
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].flat<int64_t>()[0], last_step);
}

}  // namespace
}  // namespace dflow
