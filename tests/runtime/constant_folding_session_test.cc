// Constant folding inside a session, with the real CPU kernels as the
// evaluator: results are the same with the pipeline off, on, and with
// constant folding alone turned off; the pass dumps show what was folded;
// shapes fold from what the graph declares, never from the first feed.
#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "google/protobuf/text_format.h"
#include "graph/ops/ops.h"
#include "graph/scope.h"
#include "gtest/gtest.h"
#include "proto/graph.pb.h"
#include "runtime/session.h"

namespace dflow {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Not;

std::vector<float> Floats(const Tensor& t) {
  return std::vector<float>(t.flat<float>().begin(), t.flat<float>().end());
}

// y = (Reshape(x, Shape(x)) + w * Fill([2,3], 0.5)) * ((3 * 2) + 1), with
// x fed [2,3]; z = x2 * float(Size(x2)) + Rank(x2) with x2 declared [?,3];
// big: a Fill of 64 floats, over the limit the sessions below set.
GraphDef Build() {
  Scope root = Scope::NewRootScope();
  Output x = ops::Placeholder(root.WithOpName("x"), DT_FLOAT,
                              ops::PlaceholderAttrs().Shape({2, 3}));
  Output w = ops::Const(root.WithOpName("w"),
                        {1.0f, 2.0f, 3.0f, 4.0f, 5.0f, 6.0f},
                        TensorShape({2, 3}));
  Output half = ops::Fill(root.WithOpName("half"),
                          ops::Const(root.WithOpName("dims"), {2, 3}), 0.5f);
  Output wk = ops::Mul(root.WithOpName("wk"), w, half);
  Output scale = ops::AddV2(
      root.WithOpName("scale"),
      ops::Mul(root.WithOpName("six"), ops::Const(root.WithOpName("three"),
                                                   3.0f),
               ops::Const(root.WithOpName("two"), 2.0f)),
      ops::Const(root.WithOpName("one"), 1.0f));
  Output shape = ops::Shape(root.WithOpName("shape"), x);
  Output rs = ops::Reshape(root.WithOpName("rs"), x, shape);
  ops::Mul(root.WithOpName("y"), ops::AddV2(root.WithOpName("sum"), rs, wk),
           scale);

  Output x2 = ops::Placeholder(
      root.WithOpName("x2"), DT_FLOAT,
      ops::PlaceholderAttrs().Shape(TensorShape({TensorShape::kUnknownDim, 3})));
  Output size = ops::Cast(root.WithOpName("size_f"),
                          ops::Size(root.WithOpName("size"), x2), DT_FLOAT);
  Output rank = ops::Cast(root.WithOpName("rank_f"),
                          ops::Rank(root.WithOpName("rank"), x2), DT_FLOAT);
  ops::AddV2(root.WithOpName("z"), ops::Mul(root.WithOpName("xs"), x2, size),
             rank);

  Output big = ops::Fill(root.WithOpName("big"),
                         ops::Const(root.WithOpName("big_dims"), {64}), 1.0f);
  ops::AddV2(root.WithOpName("big_plus"), big, 1.0f);
  GraphDef def;
  EXPECT_TRUE(root.ToGraphDef(&def).ok()) << root.status();
  return def;
}

struct Results {
  std::vector<float> y, z_first, z_second, big_plus;
};

Results RunAll(const SessionOptions& options) {
  Results r;
  absl::StatusOr<std::unique_ptr<Session>> session =
      Session::Create(Build(), options);
  EXPECT_TRUE(session.ok()) << session.status();
  if (!session.ok()) return r;
  const Tensor x =
      Tensor::FromVector<float>({1, 2, 3, 4, 5, 6}, TensorShape({2, 3}));
  std::vector<Tensor> out;
  absl::Status s =
      (*session)->Run({{"x", x}, {"x2", x}}, {"y", "z", "big_plus"}, {}, &out);
  EXPECT_TRUE(s.ok()) << s;
  if (!s.ok()) return r;
  r.y = Floats(out[0]);
  r.z_first = Floats(out[1]);
  r.big_plus = Floats(out[2]);
  // The same signature fed another shape that fits [?,3]: Size must not
  // have been folded from the first feed.
  out.clear();
  s = (*session)->Run(
      {{"x", x}, {"x2", Tensor::FromVector<float>({1, 2, 3}, TensorShape({1, 3}))}},
      {"y", "z", "big_plus"}, {}, &out);
  EXPECT_TRUE(s.ok()) << s;
  if (s.ok()) r.z_second = Floats(out[1]);
  return r;
}

std::string ReadFile(const std::string& path) {
  std::ifstream file(path);
  std::stringstream text;
  text << file.rdbuf();
  return text.str();
}

// The dumps of signature 0, sorted by name (the pipeline's order).
std::vector<std::string> Dumps(const std::string& dir) {
  std::vector<std::string> files;
  for (const auto& entry :
       std::filesystem::directory_iterator(dir + "/sig_0")) {
    if (entry.path().extension() == ".pbtxt") {
      files.push_back(entry.path().string());
    }
  }
  std::sort(files.begin(), files.end());
  return files;
}

GraphDef ParseDump(const std::string& path) {
  GraphDef def;
  EXPECT_TRUE(
      google::protobuf::TextFormat::ParseFromString(ReadFile(path), &def))
      << path;
  return def;
}

const NodeDef* FindNode(const GraphDef& def, const std::string& name) {
  for (const NodeDef& n : def.node()) {
    if (n.name() == name) return &n;
  }
  return nullptr;
}

std::string OpOf(const GraphDef& def, const std::string& name) {
  const NodeDef* n = FindNode(def, name);
  return n == nullptr ? "<none>" : n->op();
}

std::string TempDir(const std::string& name) {
  const char* base = std::getenv("TEST_TMPDIR");
  std::string dir = absl::StrCat(base != nullptr ? base : "/tmp", "/", name);
  std::filesystem::remove_all(dir);
  return dir;
}

TEST(ConstantFoldingSessionTest, SameResultsWithAndWithoutFolding) {
  SessionOptions off;
  off.optimize_graph = false;
  SessionOptions on;
  on.constant_folding_max_bytes = 128;  // 32 floats: `big` stays
  on.dump_passes_dir = TempDir("folding_on");
  SessionOptions disabled = on;
  disabled.disabled_passes = {"constant_folding"};
  disabled.dump_passes_dir = TempDir("folding_disabled");

  const Results expected = RunAll(off);
  const Results folded = RunAll(on);
  const Results unfolded = RunAll(disabled);
  // (x + w/2) * 7
  EXPECT_THAT(expected.y, ElementsAre(10.5f, 21.0f, 31.5f, 42.0f, 52.5f, 63.0f));
  EXPECT_THAT(expected.z_first, ElementsAre(8, 14, 20, 26, 32, 38));  // x*6+2
  EXPECT_THAT(expected.z_second, ElementsAre(5, 8, 11));              // x*3+2
  EXPECT_EQ(expected.big_plus, std::vector<float>(64, 2.0f));
  for (const Results* r : {&folded, &unfolded}) {
    EXPECT_EQ(r->y, expected.y);
    EXPECT_EQ(r->z_first, expected.z_first);
    EXPECT_EQ(r->z_second, expected.z_second);
    EXPECT_EQ(r->big_plus, expected.big_plus);
  }

  // What the pass did, as the dumps show it.
  const std::string passes = ReadFile(on.dump_passes_dir + "/sig_0/passes.txt");
  EXPECT_THAT(passes, HasSubstr("constant_folding: "));
  EXPECT_THAT(passes, HasSubstr("1 skipped over the size limit"));
  std::string folding_dump;
  for (const std::string& f : Dumps(on.dump_passes_dir)) {
    if (f.find("_constant_folding") != std::string::npos) folding_dump = f;
  }
  ASSERT_FALSE(folding_dump.empty());
  const GraphDef after = ParseDump(folding_dump);
  for (const char* name : {"scale", "wk", "shape", "rank_f"}) {
    EXPECT_EQ(OpOf(after, name), "Const") << name;
  }
  EXPECT_EQ(OpOf(after, "size"), "Size");  // of [?,3]: known only when fed
  EXPECT_EQ(OpOf(after, "rank"), "<none>");  // folded into rank_f
  EXPECT_EQ(OpOf(after, "six"), "<none>");   // folded into scale
  EXPECT_EQ(OpOf(after, "half"), "<none>");  // folded into wk
  EXPECT_EQ(OpOf(after, "big"), "Fill");     // over the limit
  EXPECT_EQ(OpOf(after, "y"), "Mul");
  const NodeDef* scale = FindNode(after, "scale");
  ASSERT_NE(scale, nullptr);
  absl::StatusOr<Tensor> seven = Tensor::FromProto(scale->attr().at("value").tensor());
  ASSERT_TRUE(seven.ok());
  EXPECT_THAT(Floats(*seven), ElementsAre(7.0f));

  // Turned off by name: no dump of it, and the graph after the last
  // device-independent pass keeps the nodes (device-specific fusions may
  // rewrite them further).
  const std::string passes_disabled =
      ReadFile(disabled.dump_passes_dir + "/sig_0/passes.txt");
  EXPECT_THAT(passes_disabled, Not(HasSubstr("constant_folding")));
  std::string last_independent;
  for (const std::string& f : Dumps(disabled.dump_passes_dir)) {
    if (f.find("_CPU_") == std::string::npos) last_independent = f;
  }
  ASSERT_FALSE(last_independent.empty());
  const GraphDef last = ParseDump(last_independent);
  EXPECT_EQ(OpOf(last, "scale"), "AddV2");
  EXPECT_EQ(OpOf(last, "half"), "Fill");
  EXPECT_EQ(OpOf(last, "shape"), "Shape");
}

}  // namespace
}  // namespace dflow
