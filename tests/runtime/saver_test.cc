// Saver: checkpoints of a session's variables, their index and their
// errors (saving while training runs and crash safety: saver_crash_test.cc).
#include "runtime/saver.h"

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
#include "gmock/gmock.h"
#include "graph/ops/ops.h"
#include "graph/scope.h"
#include "gtest/gtest.h"
#include "formats/tensor_bundle.h"
#include "tests/runtime/saver_test_util.h"
#include "runtime/session.h"

extern char** environ;

namespace dflow {
namespace {

using ::testing::AllOf;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using namespace saver_test;  // NOLINT: the Saver tests' helpers

// Both files of the one-shard checkpoint `prefix`.
bool CheckpointExists(const std::string& prefix) {
  return FileExists(prefix + ".index") &&
         FileExists(prefix + ".data-00000-of-00001");
}
bool AnyCheckpointFile(const std::string& prefix) {
  return FileExists(prefix + ".index") ||
         FileExists(prefix + ".data-00000-of-00001");
}

// The names the checkpoint `prefix` holds, sorted.
std::vector<std::string> TensorNames(const std::string& prefix) {
  std::vector<std::string> names;
  auto reader = BundleReader::Open(prefix);
  EXPECT_TRUE(reader.ok()) << reader.status();
  if (!reader.ok()) return names;
  for (const auto& info : (*reader)->ListTensors()) names.push_back(info.name);
  return names;
}

std::string ReadAll(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

void WriteAll(const std::string& path, const std::string& contents) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << contents;
}

template <typename T>
std::vector<T> Values(const Tensor& t) {
  auto f = t.flat<T>();
  return std::vector<T>(f.begin(), f.end());
}

// Variables of every kind the Saver handles:
//   w      VariableV2 float [2,3]
//   d      VariableV2 double [2]
//   step   VariableV2 int64 []          (train adds 1)
//   r      VarHandleOp float [3]        (train adds [1,1,1])
//   s      VarHandleOp int64 [2] in container "c", shared_name "shared"
// "init" initializes all of them, "train" updates step and r, and
// "*_value" read them.
GraphDef ModelGraph() {
  Scope root = Scope::NewRootScope();
  Output w = ops::Variable(root.WithOpName("w"), TensorShape({2, 3}), DT_FLOAT);
  Output d = ops::Variable(root.WithOpName("d"), TensorShape({2}), DT_DOUBLE);
  Output step =
      ops::Variable(root.WithOpName("step"), TensorShape({}), DT_INT64);
  Output r = ops::VarHandleOp(root.WithOpName("r"), DT_FLOAT, TensorShape({3}));
  Output s = ops::VarHandleOp(
      root.WithOpName("s"), DT_INT64, TensorShape({2}),
      ops::VarHandleOpAttrs().Container("c").SharedName("shared"));
  auto init_w = ops::Assign(
      root.WithOpName("init_w"), w,
      ops::Const(root, {1.f, 2.f, 3.f, 4.f, 5.f, 6.f}, TensorShape({2, 3})));
  Tensor d_init = Tensor::FromVector<double>({0.25, -1e300});
  auto init_d =
      ops::Assign(root.WithOpName("init_d"), d, ops::Const(root, d_init));
  auto init_step = ops::Assign(root.WithOpName("init_step"), step,
                               ops::Const(root, int64_t{0}));
  auto init_r = ops::AssignVariableOp(root.WithOpName("init_r"), r,
                                      ops::Const(root, {7.f, 8.f, 9.f}));
  auto init_s =
      ops::AssignVariableOp(root.WithOpName("init_s"), s,
                            ops::Const(root, {int64_t{1} << 40, int64_t{-3}}));
  ops::NoOp(root.WithOpName("init").WithControlDependencies(
      {init_w.op(), init_d.op(), init_step.op(), init_r, init_s}));
  auto train_step = ops::AssignAdd(root.WithOpName("train_step"), step,
                                   ops::Const(root, int64_t{1}));
  auto train_r = ops::AssignAddVariableOp(root.WithOpName("train_r"), r,
                                          ops::Const(root, {1.f, 1.f, 1.f}));
  ops::NoOp(root.WithOpName("train").WithControlDependencies(
      {train_step.op(), train_r}));
  ops::Identity(root.WithOpName("w_value"), w);
  ops::Identity(root.WithOpName("d_value"), d);
  ops::Identity(root.WithOpName("step_value"), step);
  ops::ReadVariableOp(root.WithOpName("r_value"), r, DT_FLOAT);
  ops::ReadVariableOp(root.WithOpName("s_value"), s, DT_INT64);
  return ToDef(root);
}

TEST(SaverTest, FindsEveryVariableOfTheGraph) {
  Saver saver = MakeSaver(ModelGraph());
  std::vector<std::string> names;
  for (const CheckpointVariable& v : saver.variables()) names.push_back(v.name);
  EXPECT_THAT(names, ElementsAre("c/shared", "d", "r", "step", "w"));
  const CheckpointVariable& shared = saver.variables()[0];
  EXPECT_EQ(shared.node, "s");
  EXPECT_EQ(shared.op, "VarHandleOp");
  EXPECT_EQ(shared.dtype, DT_INT64);
  EXPECT_EQ(shared.shape, TensorShape({2}));
}

TEST(SaverTest, RoundTripIntoAFreshSessionThatNeverRan) {
  const GraphDef def = ModelGraph();
  const std::string dir = NewTempDir();
  Saver saver = MakeSaver(def);
  std::string path;
  {
    auto trained = MakeSession(def);
    RunTargets(trained.get(), {"init"});
    RunTargets(trained.get(), {"train"});
    RunTargets(trained.get(), {"train"});
    absl::StatusOr<std::string> saved =
        saver.Save(trained.get(), dir + "/model");
    ASSERT_TRUE(saved.ok()) << saved.status();
    path = *saved;
    EXPECT_EQ(path, dir + "/model");
  }  // the first session is gone: only the file remains

  auto fresh = MakeSession(def);
  absl::Status s = saver.Restore(fresh.get(), path);
  ASSERT_TRUE(s.ok()) << s;
  std::vector<Tensor> out = Fetch(
      fresh.get(), {"w_value", "d_value", "step_value", "r_value", "s_value"});
  ASSERT_EQ(out.size(), 5u);
  EXPECT_EQ(out[0].shape(), TensorShape({2, 3}));
  EXPECT_THAT(Values<float>(out[0]), ElementsAre(1, 2, 3, 4, 5, 6));
  EXPECT_THAT(Values<double>(out[1]), ElementsAre(0.25, -1e300));
  EXPECT_THAT(Values<int64_t>(out[2]), ElementsAre(2));
  EXPECT_THAT(Values<float>(out[3]), ElementsAre(9, 10, 11));
  EXPECT_THAT(Values<int64_t>(out[4]), ElementsAre(int64_t{1} << 40, -3));

  // Training goes on from the restored values, without the initializer.
  RunTargets(fresh.get(), {"train"});
  out = Fetch(fresh.get(), {"step_value", "r_value"});
  EXPECT_THAT(Values<int64_t>(out[0]), ElementsAre(3));
  EXPECT_THAT(Values<float>(out[1]), ElementsAre(10, 11, 12));
}

TEST(SaverTest, RestoreOverwritesTrainedValues) {
  const GraphDef def = ModelGraph();
  const std::string dir = NewTempDir();
  Saver saver = MakeSaver(def);
  auto session = MakeSession(def);
  RunTargets(session.get(), {"init"});
  absl::StatusOr<std::string> path = saver.Save(session.get(), dir + "/m", 0);
  ASSERT_TRUE(path.ok()) << path.status();
  RunTargets(session.get(), {"train"});
  RunTargets(session.get(), {"train"});
  ASSERT_TRUE(saver.Restore(session.get(), *path).ok());
  std::vector<Tensor> out = Fetch(session.get(), {"step_value", "r_value"});
  EXPECT_THAT(Values<int64_t>(out[0]), ElementsAre(0));
  EXPECT_THAT(Values<float>(out[1]), ElementsAre(7, 8, 9));
}

TEST(SaverTest, GlobalStepNamesTheFileAndIsRecorded) {
  const GraphDef def = ModelGraph();
  const std::string dir = NewTempDir();
  Saver saver = MakeSaver(def);
  auto session = MakeSession(def);
  RunTargets(session.get(), {"init"});

  absl::StatusOr<std::string> path = saver.Save(session.get(), dir + "/m", 42);
  ASSERT_TRUE(path.ok()) << path.status();
  EXPECT_EQ(*path, dir + "/m-42");
  // TensorFlow's file names: <prefix>-<step>.index and .data-00000-of-00001.
  EXPECT_TRUE(CheckpointExists(dir + "/m-42"));
  EXPECT_FALSE(FileExists(dir + "/m-42"));
  EXPECT_THAT(TensorNames(*path),
              ElementsAre("c/shared", "d", "r", "step", "w"));

  path = saver.Save(session.get(), dir + "/plain");
  ASSERT_TRUE(path.ok()) << path.status();
  EXPECT_EQ(*path, dir + "/plain");
  EXPECT_TRUE(CheckpointExists(dir + "/plain"));
}

TEST(SaverTest, MaxToKeepDeletesTheOldestAndTheIndexListsTheKept) {
  const GraphDef def = ModelGraph();
  const std::string dir = NewTempDir();
  Saver saver = MakeSaver(def, /*max_to_keep=*/2);
  auto session = MakeSession(def);
  RunTargets(session.get(), {"init"});
  for (int step = 1; step <= 4; ++step) {
    ASSERT_TRUE(saver.Save(session.get(), dir + "/model", step).ok());
  }
  EXPECT_FALSE(AnyCheckpointFile(dir + "/model-1"));
  EXPECT_FALSE(AnyCheckpointFile(dir + "/model-2"));
  EXPECT_TRUE(CheckpointExists(dir + "/model-3"));
  EXPECT_TRUE(CheckpointExists(dir + "/model-4"));
  absl::StatusOr<CheckpointState> state = ReadCheckpointState(dir);
  ASSERT_TRUE(state.ok()) << state.status();
  EXPECT_EQ(state->model_checkpoint_path(), "model-4");
  EXPECT_THAT(state->all_model_checkpoint_paths(),
              ElementsAre("model-3", "model-4"));
  // The index is text, readable by people.
  EXPECT_THAT(ReadAll(dir + "/checkpoint"),
              HasSubstr("model_checkpoint_path: \"model-4\""));

  // Saving a kept path again makes it the newest instead of listing it twice.
  ASSERT_TRUE(saver.Save(session.get(), dir + "/model", 3).ok());
  state = ReadCheckpointState(dir);
  ASSERT_TRUE(state.ok()) << state.status();
  EXPECT_EQ(state->model_checkpoint_path(), "model-3");
  EXPECT_THAT(state->all_model_checkpoint_paths(),
              ElementsAre("model-4", "model-3"));

  // A new Saver (a restarted process) continues from the index.
  Saver again = MakeSaver(def, /*max_to_keep=*/2);
  ASSERT_TRUE(again.Save(session.get(), dir + "/model", 5).ok());
  EXPECT_FALSE(AnyCheckpointFile(dir + "/model-4"));
  EXPECT_FALSE(AnyCheckpointFile(dir + "/model-3.replaced"));
  state = ReadCheckpointState(dir);
  ASSERT_TRUE(state.ok()) << state.status();
  EXPECT_THAT(state->all_model_checkpoint_paths(),
              ElementsAre("model-3", "model-5"));
}

TEST(SaverTest, MaxToKeepZeroKeepsEverything) {
  const GraphDef def = ModelGraph();
  const std::string dir = NewTempDir();
  Saver saver = MakeSaver(def, /*max_to_keep=*/0);
  auto session = MakeSession(def);
  RunTargets(session.get(), {"init"});
  for (int step = 1; step <= 7; ++step) {
    ASSERT_TRUE(saver.Save(session.get(), dir + "/model", step).ok());
  }
  for (int step = 1; step <= 7; ++step) {
    EXPECT_TRUE(CheckpointExists(absl::StrCat(dir, "/model-", step)));
  }
  absl::StatusOr<CheckpointState> state = ReadCheckpointState(dir);
  ASSERT_TRUE(state.ok()) << state.status();
  EXPECT_EQ(state->all_model_checkpoint_paths_size(), 7);
}

TEST(SaverTest, LatestCheckpoint) {
  const GraphDef def = ModelGraph();
  const std::string dir = NewTempDir();
  absl::StatusOr<std::string> latest = Saver::LatestCheckpoint(dir);
  EXPECT_TRUE(absl::IsNotFound(latest.status())) << latest.status();

  Saver saver = MakeSaver(def);
  auto session = MakeSession(def);
  RunTargets(session.get(), {"init"});
  ASSERT_TRUE(saver.Save(session.get(), dir + "/model", 10).ok());
  ASSERT_TRUE(saver.Save(session.get(), dir + "/model", 20).ok());
  latest = Saver::LatestCheckpoint(dir);
  ASSERT_TRUE(latest.ok()) << latest.status();
  EXPECT_EQ(*latest, dir + "/model-20");
  // The index names files, so it follows its directory when that moves.
  const std::string moved = dir + "_moved";
  ASSERT_EQ(rename(dir.c_str(), moved.c_str()), 0);
  latest = Saver::LatestCheckpoint(moved);
  ASSERT_TRUE(latest.ok()) << latest.status();
  EXPECT_EQ(*latest, moved + "/model-20");
  EXPECT_TRUE(saver.Restore(session.get(), *latest).ok());
}

TEST(SaverTest, SaveCreatesMissingDirectories) {
  const GraphDef def = ModelGraph();
  const std::string dir = NewTempDir() + "/a/b";
  Saver saver = MakeSaver(def);
  auto session = MakeSession(def);
  RunTargets(session.get(), {"init"});
  absl::StatusOr<std::string> path = saver.Save(session.get(), dir + "/m", 1);
  ASSERT_TRUE(path.ok()) << path.status();
  EXPECT_TRUE(CheckpointExists(dir + "/m-1"));
}

// --- Errors. ---

TEST(SaverErrorTest, SavingAnUninitializedVariable) {
  const GraphDef def = ModelGraph();
  const std::string dir = NewTempDir();
  Saver saver = MakeSaver(def);
  auto session = MakeSession(def);
  absl::StatusOr<std::string> path = saver.Save(session.get(), dir + "/m");
  EXPECT_TRUE(absl::IsFailedPrecondition(path.status())) << path.status();
  EXPECT_THAT(path.status().message(),
              AllOf(HasSubstr("'c/shared'"), HasSubstr("not initialized"),
                    HasSubstr("run the initializer first")));
  // Created by a step but never assigned is not initialized either.
  RunTargets(session.get(), {"init_w"});
  path = saver.Save(session.get(), dir + "/m");
  EXPECT_TRUE(absl::IsFailedPrecondition(path.status())) << path.status();
  EXPECT_FALSE(AnyCheckpointFile(dir + "/m"));
  EXPECT_FALSE(FileExists(dir + "/checkpoint"));
}

// The model graph with w declared as `w_dtype` and `w_shape`, and an extra
// variable when `extra`.
GraphDef VariantGraph(DataType w_dtype, const TensorShape& w_shape,
                      bool extra) {
  Scope root = Scope::NewRootScope();
  ops::Variable(root.WithOpName("w"), w_shape, w_dtype);
  ops::Variable(root.WithOpName("d"), TensorShape({2}), DT_DOUBLE);
  Output step =
      ops::Variable(root.WithOpName("step"), TensorShape({}), DT_INT64);
  ops::VarHandleOp(root.WithOpName("r"), DT_FLOAT, TensorShape({3}));
  ops::VarHandleOp(root.WithOpName("s"), DT_INT64, TensorShape({2}),
                   ops::VarHandleOpAttrs().Container("c").SharedName("shared"));
  ops::Assign(root.WithOpName("init_step"), step,
              ops::Const(root, int64_t{100}));
  ops::Identity(root.WithOpName("step_value"), step);
  if (extra) {
    ops::Variable(root.WithOpName("extra"), TensorShape({1}), DT_FLOAT);
  }
  return ToDef(root);
}

class SaverRestoreErrorTest : public ::testing::Test {
 protected:
  void SetUp() override {
    def_ = ModelGraph();
    dir_ = NewTempDir();
    Saver saver = MakeSaver(def_);
    auto session = MakeSession(def_);
    RunTargets(session.get(), {"init"});
    absl::StatusOr<std::string> path = saver.Save(session.get(), dir_ + "/m");
    ASSERT_TRUE(path.ok()) << path.status();
    path_ = *path;
  }
  // Restores path_ into a session of `def`.
  absl::Status RestoreInto(const GraphDef& def, const std::string& path) {
    absl::StatusOr<Saver> saver = Saver::Create(def);
    if (!saver.ok()) return saver.status();
    auto session = MakeSession(def);
    return saver->Restore(session.get(), path);
  }

  GraphDef def_;
  std::string dir_;
  std::string path_;
};

TEST_F(SaverRestoreErrorTest, VariableMissingFromTheCheckpoint) {
  absl::Status s = RestoreInto(VariantGraph(DT_FLOAT, {2, 3}, true), path_);
  EXPECT_TRUE(absl::IsNotFound(s)) << s;
  EXPECT_THAT(s.message(), AllOf(HasSubstr("'extra'"), HasSubstr(path_),
                                 HasSubstr("run the variable's initializer")));
}

TEST_F(SaverRestoreErrorTest, FailedRestoreChangesNothing) {
  const GraphDef def = VariantGraph(DT_FLOAT, {2, 3}, true);
  Saver saver = MakeSaver(def);
  auto session = MakeSession(def);
  RunTargets(session.get(), {"init_step"});
  EXPECT_FALSE(saver.Restore(session.get(), path_).ok());
  std::vector<Tensor> out = Fetch(session.get(), {"step_value"});
  ASSERT_EQ(out.size(), 1u);
  EXPECT_THAT(Values<int64_t>(out[0]), ElementsAre(100));
}

TEST_F(SaverRestoreErrorTest, DtypeMismatch) {
  absl::Status s = RestoreInto(VariantGraph(DT_DOUBLE, {2, 3}, false), path_);
  EXPECT_TRUE(absl::IsInvalidArgument(s)) << s;
  EXPECT_THAT(s.message(), AllOf(HasSubstr("'w'"), HasSubstr("double"),
                                 HasSubstr("float"), HasSubstr(path_)));
}

TEST_F(SaverRestoreErrorTest, ShapeMismatch) {
  absl::Status s = RestoreInto(VariantGraph(DT_FLOAT, {3, 2}, false), path_);
  EXPECT_TRUE(absl::IsInvalidArgument(s)) << s;
  EXPECT_THAT(s.message(), AllOf(HasSubstr("'w'"), HasSubstr("[3,2]"),
                                 HasSubstr("[2,3]"), HasSubstr(path_)));
}

TEST_F(SaverRestoreErrorTest, PartialDeclaredShapeAcceptsAnyCompatibleValue) {
  absl::Status s =
      RestoreInto(VariantGraph(DT_FLOAT, TensorShape({-1, 3}), false), path_);
  EXPECT_TRUE(s.ok()) << s;
}

// Restores `path` into a session whose "step" holds 100 and expects the
// restore to fail without changing it (nor creating any other variable).
absl::Status RestoreFailsAndChangesNothing(const std::string& path) {
  const GraphDef def = VariantGraph(DT_FLOAT, {2, 3}, false);
  Saver saver = MakeSaver(def);
  auto session = MakeSession(def);
  RunTargets(session.get(), {"init_step"});
  const size_t vars_before = session->variables()->All().size();
  absl::Status s = saver.Restore(session.get(), path);
  EXPECT_FALSE(s.ok());
  std::vector<Tensor> out = Fetch(session.get(), {"step_value"});
  EXPECT_EQ(out.size(), 1u);
  if (out.size() == 1) {
    EXPECT_THAT(Values<int64_t>(out[0]), ElementsAre(100));
  }
  EXPECT_EQ(session->variables()->All().size(), vars_before + 0);
  return s;
}

// A copy of the checkpoint `from` at `to` with `edit` applied to its data
// shard (`data`) or its index.
void CopyCheckpoint(const std::string& from, const std::string& to,
                    const std::function<void(std::string*)>& edit_data,
                    const std::function<void(std::string*)>& edit_index) {
  std::string data = ReadAll(from + ".data-00000-of-00001");
  std::string index = ReadAll(from + ".index");
  if (edit_data) edit_data(&data);
  if (edit_index) edit_index(&index);
  WriteAll(to + ".data-00000-of-00001", data);
  WriteAll(to + ".index", index);
}

TEST_F(SaverRestoreErrorTest, DtypeMismatchChangesNothing) {
  // "step" is int64 in the checkpoint; here a float restore of w fails on
  // dtype after step was checked fine: nothing may have been written.
  const GraphDef def = VariantGraph(DT_DOUBLE, {2, 3}, false);
  Saver saver = MakeSaver(def);
  auto session = MakeSession(def);
  RunTargets(session.get(), {"init_step"});
  EXPECT_TRUE(absl::IsInvalidArgument(saver.Restore(session.get(), path_)));
  std::vector<Tensor> out = Fetch(session.get(), {"step_value"});
  ASSERT_EQ(out.size(), 1u);
  EXPECT_THAT(Values<int64_t>(out[0]), ElementsAre(100));
}

TEST_F(SaverRestoreErrorTest, CorruptedByte) {
  const std::string bad = dir_ + "/corrupted";
  // The last tensor in name order is "w"; flip a byte of its data.
  CopyCheckpoint(path_, bad,
                 [](std::string* d) { (*d)[d->size() - 3] ^= 0x40; }, nullptr);
  absl::Status s = RestoreFailsAndChangesNothing(bad);
  EXPECT_TRUE(absl::IsDataLoss(s)) << s;
  EXPECT_THAT(s.message(),
              AllOf(HasSubstr(bad + ".data-00000-of-00001"), HasSubstr("'w'"),
                    HasSubstr("CRC32C")));
}

TEST_F(SaverRestoreErrorTest, TruncatedDataAtEveryLength) {
  const std::string bytes = ReadAll(path_ + ".data-00000-of-00001");
  const std::string bad = dir_ + "/truncated";
  for (size_t n = 0; n < bytes.size(); ++n) {
    CopyCheckpoint(path_, bad, [n](std::string* d) { d->resize(n); }, nullptr);
    absl::Status s = RestoreFailsAndChangesNothing(bad);
    ASSERT_TRUE(absl::IsDataLoss(s)) << "length " << n << ": " << s;
    ASSERT_THAT(s.message(), HasSubstr(bad)) << "length " << n;
  }
}

TEST_F(SaverRestoreErrorTest, TruncatedIndexAtEveryLength) {
  const std::string bytes = ReadAll(path_ + ".index");
  const std::string bad = dir_ + "/truncated_index";
  for (size_t n = 0; n < bytes.size(); ++n) {
    CopyCheckpoint(path_, bad, nullptr,
                   [n](std::string* d) { d->resize(n); });
    absl::Status s = RestoreFailsAndChangesNothing(bad);
    ASSERT_TRUE(absl::IsDataLoss(s)) << "length " << n << ": " << s;
    ASSERT_THAT(s.message(), HasSubstr(bad + ".index")) << "length " << n;
  }
}

TEST_F(SaverRestoreErrorTest, NotACheckpoint) {
  const std::string text = dir_ + "/notes";
  WriteAll(text + ".index", "these are not the weights you are looking for\n");
  absl::Status s = RestoreFailsAndChangesNothing(text);
  EXPECT_TRUE(absl::IsDataLoss(s)) << s;
  EXPECT_THAT(s.message(), AllOf(HasSubstr(text + ".index"),
                                 HasSubstr("not a readable checkpoint index")));
  // The `checkpoint` index is not a checkpoint prefix.
  s = RestoreFailsAndChangesNothing(dir_ + "/checkpoint");
  EXPECT_TRUE(absl::IsNotFound(s)) << s;
  // Nor is a GraphDef (a protobuf of another kind).
  WriteAll(dir_ + "/graph.index", def_.SerializeAsString());
  s = RestoreFailsAndChangesNothing(dir_ + "/graph");
  EXPECT_TRUE(absl::IsDataLoss(s)) << s;
}

TEST_F(SaverRestoreErrorTest, MissingFiles) {
  absl::Status s = RestoreFailsAndChangesNothing(dir_ + "/nope");
  EXPECT_TRUE(absl::IsNotFound(s)) << s;
  EXPECT_THAT(s.message(), HasSubstr(dir_ + "/nope.index"));
  // An index without its data shard.
  const std::string lonely = dir_ + "/lonely";
  WriteAll(lonely + ".index", ReadAll(path_ + ".index"));
  s = RestoreFailsAndChangesNothing(lonely);
  EXPECT_TRUE(absl::IsNotFound(s)) << s;
  EXPECT_THAT(s.message(), HasSubstr(lonely + ".data-00000-of-00001"));
}

TEST(SaverErrorTest, BadOptionsAndGraphs) {
  SaverOptions options;
  options.max_to_keep = -1;
  EXPECT_TRUE(
      absl::IsInvalidArgument(Saver::Create(ModelGraph(), options).status()));

  Scope root = Scope::NewRootScope();
  ops::VarHandleOp(root.WithOpName("a"), DT_FLOAT, TensorShape({1}),
                   ops::VarHandleOpAttrs().SharedName("same"));
  ops::VarHandleOp(root.WithOpName("b"), DT_INT32, TensorShape({1}),
                   ops::VarHandleOpAttrs().SharedName("same"));
  absl::StatusOr<Saver> saver = Saver::Create(ToDef(root));
  EXPECT_TRUE(absl::IsInvalidArgument(saver.status())) << saver.status();
  EXPECT_THAT(saver.status().message(),
              AllOf(HasSubstr("'a'"), HasSubstr("'b'"), HasSubstr("'same'")));
}

TEST(SaverErrorTest, PrefixWithoutAFileName) {
  const GraphDef def = ModelGraph();
  Saver saver = MakeSaver(def);
  auto session = MakeSession(def);
  RunTargets(session.get(), {"init"});
  const std::string dir = NewTempDir();
  EXPECT_TRUE(
      absl::IsInvalidArgument(saver.Save(session.get(), dir + "/").status()));
  EXPECT_TRUE(absl::IsInvalidArgument(
      saver.Save(session.get(), dir + "/checkpoint").status()));
}

}  // namespace
}  // namespace dflow
