// dflow's Saver and TensorFlow read each other's checkpoints. Runs python3
// (found on PATH) with TensorFlow; skips when TensorFlow is not importable.
#include <stdio.h>
#include <sys/wait.h>

#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "graph/ops/ops.h"
#include "graph/scope.h"
#include "gtest/gtest.h"
#include "runtime/saver.h"
#include "runtime/session.h"

namespace dflow {
namespace {

using ::testing::ElementsAre;

std::string TempDir() {
  const char* base = std::getenv("TEST_TMPDIR");
  std::string pattern =
      absl::StrCat(base != nullptr ? base : "/tmp", "/interop_XXXXXX");
  EXPECT_NE(mkdtemp(pattern.data()), nullptr);
  return pattern;
}

// Runs `script` with python3; its exit status and stdout.
int RunPython(const std::string& dir, const std::string& script,
              std::string* output) {
  const std::string path = dir + "/script.py";
  std::ofstream(path) << script;
  FILE* p = popen(("TF_CPP_MIN_LOG_LEVEL=3 python3 " + path + " 2>&1").c_str(),
                  "r");
  if (p == nullptr) return -1;
  char buf[4096];
  while (fgets(buf, sizeof(buf), p) != nullptr) *output += buf;
  const int status = pclose(p);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

bool HaveTensorFlow(const std::string& dir) {
  std::string out;
  return RunPython(dir, "import tensorflow\n", &out) == 0;
}

// w: float [2,3], n: int64 [], s: string [2], r: resource float [2].
GraphDef Model() {
  Scope root = Scope::NewRootScope();
  Output w = ops::Variable(root.WithOpName("w"), TensorShape({2, 3}), DT_FLOAT);
  Output n = ops::Variable(root.WithOpName("n"), TensorShape({}), DT_INT64);
  Output s = ops::Variable(root.WithOpName("s"), TensorShape({2}), DT_STRING);
  Output r = ops::VarHandleOp(root.WithOpName("r"), DT_FLOAT, TensorShape({2}));
  ops::Assign(root.WithOpName("init_w"), w,
              ops::Const(root, {1.f, 2.f, 3.f, 4.f, 5.f, 6.5f},
                         TensorShape({2, 3})));
  ops::Assign(root.WithOpName("init_n"), n, ops::Const(root, int64_t{42}));
  ops::Assign(root.WithOpName("init_s"), s,
              ops::Const(root, Tensor::FromVector<std::string>({"ab", ""})));
  ops::AssignVariableOp(root.WithOpName("init_r"), r,
                        ops::Const(root, {0.5f, -1.f}, TensorShape({2})));
  ops::Identity(root.WithOpName("w_value"), w);
  ops::Identity(root.WithOpName("n_value"), n);
  ops::Identity(root.WithOpName("s_value"), s);
  ops::ReadVariableOp(root.WithOpName("r_value"), r, DT_FLOAT);
  GraphDef def;
  EXPECT_TRUE(root.ToGraphDef(&def).ok());
  return def;
}

TEST(SaverTfInteropTest, TensorFlowReadsDflowCheckpoints) {
  const std::string dir = TempDir();
  if (!HaveTensorFlow(dir)) GTEST_SKIP() << "python3 cannot import tensorflow";
  const GraphDef def = Model();
  auto session = Session::Create(def);
  ASSERT_TRUE(session.ok()) << session.status();
  std::vector<Tensor> out;
  ASSERT_TRUE((*session)
                  ->Run({}, {}, {"init_w", "init_n", "init_s", "init_r"}, &out)
                  .ok());
  auto saver = Saver::Create(def);
  ASSERT_TRUE(saver.ok());
  auto path = saver->Save(session->get(), dir + "/model", 9);
  ASSERT_TRUE(path.ok()) << path.status();

  const std::string script = absl::StrCat(R"(
import numpy as np, tensorflow as tf
tf1 = tf.compat.v1
d = ")", dir, R"("
latest = tf.train.latest_checkpoint(d)
assert latest == d + "/model-9", latest
r = tf.train.load_checkpoint(latest)
assert sorted(r.get_variable_to_shape_map()) == ["n", "r", "s", "w"]
np.testing.assert_array_equal(r.get_tensor("w"), [[1, 2, 3], [4, 5, 6.5]])
assert r.get_tensor("n") == 42
assert list(r.get_tensor("s")) == [b"ab", b""], r.get_tensor("s")
np.testing.assert_array_equal(r.get_tensor("r"), [0.5, -1])
tf1.disable_eager_execution()
g = tf.Graph()
with g.as_default():
  w = tf1.Variable(np.zeros([2, 3], np.float32), name="w", use_resource=False)
  n = tf1.Variable(np.int64(0), name="n", use_resource=False)
  s = tf1.Variable(np.array([b"", b""]), name="s", use_resource=False)
  rv = tf1.Variable(np.zeros([2], np.float32), name="r", use_resource=True)
  saver = tf1.train.Saver()
  with tf1.Session() as sess:
    saver.restore(sess, latest)
    vals = sess.run([w, n, s, rv])
np.testing.assert_array_equal(vals[0], [[1, 2, 3], [4, 5, 6.5]])
assert vals[1] == 42 and list(vals[2]) == [b"ab", b""]
np.testing.assert_array_equal(vals[3], [0.5, -1])
print("TF-OK")
)");
  std::string output;
  EXPECT_EQ(RunPython(dir, script, &output), 0) << output;
  EXPECT_THAT(output, ::testing::HasSubstr("TF-OK"));
}

TEST(SaverTfInteropTest, DflowRestoresTensorFlowCheckpoints) {
  const std::string dir = TempDir();
  if (!HaveTensorFlow(dir)) GTEST_SKIP() << "python3 cannot import tensorflow";
  const std::string script = absl::StrCat(R"(
import numpy as np, tensorflow as tf
tf1 = tf.compat.v1
tf1.disable_eager_execution()
g = tf.Graph()
with g.as_default():
  tf1.Variable(np.array([[9, 8, 7], [6, 5, 4]], np.float32), name="w",
               use_resource=False)
  tf1.Variable(np.int64(-3), name="n", use_resource=False)
  tf1.Variable(np.array([b"x", b"yz"]), name="s", use_resource=False)
  tf1.Variable(np.array([2, 3], np.float32), name="r", use_resource=True)
  saver = tf1.train.Saver()
  with tf1.Session() as sess:
    sess.run(tf1.global_variables_initializer())
    saver.save(sess, ")", dir, R"(/tf_model", global_step=5)
)");
  std::string output;
  ASSERT_EQ(RunPython(dir, script, &output), 0) << output;

  const GraphDef def = Model();
  auto session = Session::Create(def);
  ASSERT_TRUE(session.ok()) << session.status();
  auto saver = Saver::Create(def);
  ASSERT_TRUE(saver.ok());
  // TF's own `checkpoint` index (absolute paths, timestamps) reads too.
  auto latest = Saver::LatestCheckpoint(dir);
  ASSERT_TRUE(latest.ok()) << latest.status();
  EXPECT_EQ(*latest, dir + "/tf_model-5");
  absl::Status s = saver->Restore(session->get(), *latest);
  ASSERT_TRUE(s.ok()) << s;
  std::vector<Tensor> out;
  ASSERT_TRUE((*session)
                  ->Run({}, {"w_value", "n_value", "s_value", "r_value"}, {},
                        &out)
                  .ok());
  EXPECT_THAT(out[0].flat<float>(), ElementsAre(9, 8, 7, 6, 5, 4));
  EXPECT_EQ(out[1].flat<int64_t>()[0], -3);
  EXPECT_THAT(out[2].flat<std::string>(), ElementsAre("x", "yz"));
  EXPECT_THAT(out[3].flat<float>(), ElementsAre(2, 3));
  // And dflow's next save keeps TF's index readable by both.
  ASSERT_TRUE(saver->Save(session->get(), dir + "/tf_model", 6).ok());
  latest = Saver::LatestCheckpoint(dir);
  ASSERT_TRUE(latest.ok()) << latest.status();
  EXPECT_EQ(*latest, dir + "/tf_model-6");
}

}  // namespace
}  // namespace dflow
