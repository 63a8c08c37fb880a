// The array/math/logic kernels added for TensorFlow-written training graphs
// (floor division, comparisons, logic, Select/SelectV2, gathers, segment
// sums, DynamicStitch, Unique, Where, TopKV2, InTopKV2, BroadcastTo, ShapeN,
// Assert, StaticRegexFullMatch, stateless random numbers) against values
// TensorFlow 2.21 computed (testdata/tf_array_math_reference.inc, written by
// tools/tf_reference/make_array_math_reference.py), and their errors: bad
// shapes and indices give an InvalidArgument naming the node and op, never a
// crash.
#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "graph/ops/ops.h"
#include "graph/tensor.h"
#include "gtest/gtest.h"
#include "runtime/session.h"
#include "tests/kernels/kernel_test_util.h"

namespace dflow {
namespace {

using ::testing::HasSubstr;

constexpr long double kInf = std::numeric_limits<long double>::infinity();
constexpr long double kNaN = std::numeric_limits<long double>::quiet_NaN();

struct RefCase {
  const char* name;
  const char* dtype;
  std::vector<int64_t> shape;
  std::vector<long double> values;
  const char* message = "";
};

const std::vector<RefCase>& Cases() {
  static const auto* cases = new std::vector<RefCase>{
#include "tests/kernels/testdata/tf_array_math_reference.inc"
  };
  return *cases;
}

const RefCase& Ref(const std::string& name) {
  for (const RefCase& c : Cases()) {
    if (name == c.name) return c;
  }
  ADD_FAILURE() << "no reference case " << name;
  static const RefCase* none = new RefCase{"", "", {}, {}};
  return *none;
}

// `t`'s elements widened, for comparison with a reference.
std::vector<long double> Widened(const Tensor& t) {
  std::vector<long double> out;
  for (int64_t i = 0; i < t.NumElements(); ++i) {
    switch (t.dtype()) {
      case DT_FLOAT:
        out.push_back(t.data<float>()[i]);
        break;
      case DT_DOUBLE:
        out.push_back(t.data<double>()[i]);
        break;
      case DT_INT32:
        out.push_back(t.data<int32_t>()[i]);
        break;
      case DT_INT64:
        out.push_back(t.data<int64_t>()[i]);
        break;
      case DT_UINT64:
        out.push_back(t.data<uint64_t>()[i]);
        break;
      case DT_BOOL:
        out.push_back(t.data<bool>()[i] ? 1 : 0);
        break;
      default:
        ADD_FAILURE() << "unexpected dtype " << DataTypeName(t.dtype());
    }
  }
  return out;
}

// Exact equality (NaN equals NaN): TensorFlow's kernels compute these
// values with the same float operations.
void ExpectMatches(const Tensor& t, const std::string& name) {
  const RefCase& ref = Ref(name);
  std::vector<int64_t> dims(t.shape().dims().begin(), t.shape().dims().end());
  EXPECT_EQ(dims, ref.shape) << name;
  const std::vector<long double> got = Widened(t);
  ASSERT_EQ(got.size(), ref.values.size()) << name;
  for (size_t i = 0; i < got.size(); ++i) {
    if (std::isnan(ref.values[i])) {
      EXPECT_TRUE(std::isnan(got[i])) << name << "[" << i << "]";
    } else {
      // float results compare in float: the reference is the float's exact
      // double value.
      EXPECT_EQ(got[i], ref.values[i]) << name << "[" << i << "]";
    }
  }
}

Output Ph(const Scope& s, DataType dtype) { return ops::Placeholder(s, dtype); }

template <typename T>
Tensor Vec(const std::vector<T>& v, TensorShape shape = TensorShape::Unknown()) {
  return shape.rank() < 0 ? Tensor::FromVector<T>(v)
                          : Tensor::FromVector<T>(v, shape);
}

std::vector<Tensor> Run1(const Output& out, const std::vector<Tensor>& in) {
  absl::StatusOr<std::vector<Tensor>> r = RunKernel(out.node(), in);
  EXPECT_TRUE(r.ok()) << r.status();
  return r.ok() ? *r : std::vector<Tensor>(4);
}

absl::Status RunError(const Output& out, const std::vector<Tensor>& in) {
  absl::StatusOr<std::vector<Tensor>> r = RunKernel(out.node(), in);
  return r.status();
}

// --- Floor division. ---

template <typename T>
void CheckFloorOps(DataType dtype, const std::string& tag) {
  const std::vector<T> x = {-7, -7, 7, 7, -8, 0, 5, -1};
  const std::vector<T> y = {2, -2, 2, -2, 3, 3, -5, 7};
  Scope root = Scope::NewRootScope();
  Output a = Ph(root, dtype), b = Ph(root, dtype);
  ExpectMatches(Run1(ops::FloorDiv(root, a, b), {Vec(x), Vec(y)})[0],
                "FloorDiv_" + tag);
  ExpectMatches(Run1(ops::FloorMod(root, a, b), {Vec(x), Vec(y)})[0],
                "FloorMod_" + tag);
}

TEST(FloorOpsTest, PythonSignsForEveryType) {
  CheckFloorOps<int32_t>(DT_INT32, "int32");
  CheckFloorOps<int64_t>(DT_INT64, "int64");
  CheckFloorOps<float>(DT_FLOAT, "float");
  CheckFloorOps<double>(DT_DOUBLE, "double");
}

TEST(FloorOpsTest, FractionsFloorAndDivNoNan) {
  const std::vector<float> x = {-7.5f, 7.25f, -0.5f, 3.0f, 1e-3f, -2.75f};
  const std::vector<float> y = {2.0f, -2.0f, 0.3f, -1.5f, 0.7f, 0.5f};
  Scope root = Scope::NewRootScope();
  Output a = Ph(root, DT_FLOAT), b = Ph(root, DT_FLOAT);
  ExpectMatches(Run1(ops::FloorDiv(root, a, b), {Vec(x), Vec(y)})[0],
                "FloorDiv_float_frac");
  ExpectMatches(Run1(ops::FloorMod(root, a, b), {Vec(x), Vec(y)})[0],
                "FloorMod_float_frac");
  ExpectMatches(Run1(ops::Floor(root, a), {Vec(x)})[0], "Floor_float");
  ExpectMatches(Run1(ops::DivNoNan(root, a, b),
                     {Vec<float>({1, -2, 3, 0}), Vec<float>({0, 4, 0, 0})})[0],
                "DivNoNan_float");
}

TEST(FloorOpsTest, IntegerDivisionByZeroIsAnError) {
  Scope root = Scope::NewRootScope();
  Output a = Ph(root, DT_INT32), b = Ph(root, DT_INT32);
  for (const Output& op : {ops::FloorDiv(root, a, b), ops::FloorMod(root, a, b)}) {
    absl::Status s = RunError(op, {Vec<int32_t>({1, 2}), Vec<int32_t>({1, 0})});
    EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(s.message(), HasSubstr("Integer division by zero"));
  }
  // The most negative integer by -1 wraps instead of trapping.
  const int32_t min = std::numeric_limits<int32_t>::min();
  auto out = Run1(ops::FloorDiv(root, a, b), {Vec<int32_t>({min}), Vec<int32_t>({-1})});
  EXPECT_EQ(out[0].data<int32_t>()[0], min);
  out = Run1(ops::FloorMod(root, a, b), {Vec<int32_t>({min}), Vec<int32_t>({-1})});
  EXPECT_EQ(out[0].data<int32_t>()[0], 0);
}

// --- Comparisons and logic. ---

TEST(CompareLogicTest, ComparisonsBroadcast) {
  Scope root = Scope::NewRootScope();
  Output a = Ph(root, DT_INT64), b = Ph(root, DT_INT64);
  const Tensor x = Vec<int64_t>({1, 2, 3, 4, 5, 6}, {2, 3});
  const Tensor y = Vec<int64_t>({2, 5, 6});
  auto ge = Run1(ops::GreaterEqual(root, a, b), {x, y})[0];
  auto le = Run1(ops::LessEqual(root, a, b), {x, y})[0];
  auto ne = Run1(ops::NotEqual(root, a, b), {x, y})[0];
  const bool ge_want[] = {false, false, false, true, true, true};
  const bool le_want[] = {true, true, true, false, true, true};
  const bool ne_want[] = {true, true, true, true, false, false};
  for (int i = 0; i < 6; ++i) {
    EXPECT_EQ(ge.data<bool>()[i], ge_want[i]) << i;
    EXPECT_EQ(le.data<bool>()[i], le_want[i]) << i;
    EXPECT_EQ(ne.data<bool>()[i], ne_want[i]) << i;
  }
}

TEST(CompareLogicTest, NotEqualOfIncompatibleShapes) {
  Scope root = Scope::NewRootScope();
  Output a = Ph(root, DT_STRING), b = Ph(root, DT_STRING);
  Output lenient = ops::NotEqual(root, a, b,
                                 ops::EqualAttrs().IncompatibleShapeError(false));
  auto out = Run1(lenient, {Vec<std::string>({"a", "b"}),
                            Vec<std::string>({"a", "b", "c"})})[0];
  EXPECT_EQ(out.shape().rank(), 0);
  EXPECT_TRUE(out.data<bool>()[0]);
  out = Run1(lenient, {Vec<std::string>({"a", "b"}), Vec<std::string>({"a", "c"})})[0];
  EXPECT_FALSE(out.data<bool>()[0]);
  EXPECT_TRUE(out.data<bool>()[1]);
  Output strict = ops::NotEqual(root, a, b);
  EXPECT_EQ(RunError(strict, {Vec<std::string>({"a", "b"}),
                              Vec<std::string>({"a", "b", "c"})})
                .code(),
            absl::StatusCode::kInvalidArgument);
}

TEST(CompareLogicTest, LogicalOps) {
  Scope root = Scope::NewRootScope();
  Output a = Ph(root, DT_BOOL), b = Ph(root, DT_BOOL);
  const Tensor x = Vec<bool>({true, true, false, false}, {2, 2});
  const Tensor y = Vec<bool>({true, false});
  auto andv = Run1(ops::LogicalAnd(root, a, b), {x, y})[0];
  auto orv = Run1(ops::LogicalOr(root, a, b), {x, y})[0];
  auto notv = Run1(ops::LogicalNot(root, a), {x})[0];
  const bool and_want[] = {true, false, false, false};
  const bool or_want[] = {true, true, true, false};
  for (int i = 0; i < 4; ++i) {
    EXPECT_EQ(andv.data<bool>()[i], and_want[i]);
    EXPECT_EQ(orv.data<bool>()[i], or_want[i]);
    EXPECT_EQ(notv.data<bool>()[i], !x.data<bool>()[i]);
  }
}

// --- Select, SelectV2, BroadcastTo, ShapeN. ---

TEST(SelectTest, LegacySelectPicksRowsWithAVector) {
  Scope root = Scope::NewRootScope();
  Output c = Ph(root, DT_BOOL), t = Ph(root, DT_FLOAT), e = Ph(root, DT_FLOAT);
  Output sel = ops::Select(root, c, t, e);
  const Tensor tv = Vec<float>({1, 2, 3, 4, 5, 6}, {3, 2});
  const Tensor ev = Vec<float>({-1, -2, -3, -4, -5, -6}, {3, 2});
  auto out = Run1(sel, {Vec<bool>({true, false, true}), tv, ev})[0];
  const float want[] = {1, 2, -3, -4, 5, 6};
  for (int i = 0; i < 6; ++i) EXPECT_EQ(out.data<float>()[i], want[i]);
  out = Run1(sel, {Vec<bool>({false, true, true, false, true, false}, {3, 2}),
                   tv, ev})[0];
  const float want2[] = {-1, 2, 3, -4, 5, -6};
  for (int i = 0; i < 6; ++i) EXPECT_EQ(out.data<float>()[i], want2[i]);
  out = Run1(sel, {Tensor::Scalar<bool>(false), tv, ev})[0];
  EXPECT_EQ(out.data<float>()[0], -1);
  // A condition of another shape is an error, not a crash.
  absl::Status s = RunError(sel, {Vec<bool>({true, false}), tv, ev});
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("condition"));
  s = RunError(sel, {Vec<bool>({true, false, true}), tv, Vec<float>({1, 2})});
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
}

TEST(SelectTest, SelectV2BroadcastsAllThree) {
  Scope root = Scope::NewRootScope();
  Output c = Ph(root, DT_BOOL), t = Ph(root, DT_FLOAT), e = Ph(root, DT_FLOAT);
  Output sel = ops::SelectV2(root, c, t, e);
  ExpectMatches(Run1(sel, {Vec<bool>({true, false}, {2, 1}),
                           Vec<float>({1, 2, 3}), Tensor::Scalar<float>(-1)})[0],
                "SelectV2_broadcast");
  EXPECT_EQ(RunError(sel, {Vec<bool>({true, false, true}), Vec<float>({1, 2}),
                           Tensor::Scalar<float>(0)})
                .code(),
            absl::StatusCode::kInvalidArgument);
}

TEST(BroadcastToTest, MatchesTensorFlowAndChecksShapes) {
  Scope root = Scope::NewRootScope();
  Output x = Ph(root, DT_FLOAT), shape = Ph(root, DT_INT32);
  Output b = ops::BroadcastTo(root, x, shape);
  ExpectMatches(Run1(b, {Vec<float>({1, 2}, {2, 1}), Vec<int32_t>({2, 2, 3})})[0],
                "BroadcastTo");
  absl::Status s = RunError(b, {Vec<float>({1, 2}), Vec<int32_t>({3})});
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("Unable to broadcast"));
}

TEST(ShapeNTest, ShapesOfEveryInput) {
  Scope root = Scope::NewRootScope();
  Output a = Ph(root, DT_FLOAT), b = Ph(root, DT_FLOAT);
  OutputList shapes =
      ops::ShapeN(root, {a, b}, ops::ShapeAttrs().OutType(DT_INT64));
  ASSERT_TRUE(root.ok()) << root.status();
  auto out = Run1(shapes[0], {Tensor(DT_FLOAT, {2, 3, 4}), Vec<float>({1})});
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(Widened(out[0]), (std::vector<long double>{2, 3, 4}));
  EXPECT_EQ(Widened(out[1]), (std::vector<long double>{1}));
}

// --- Gathers, segment sums, stitches. ---

TEST(GatherTest, AxisAndBatchDimsMatchTensorFlow) {
  Scope root = Scope::NewRootScope();
  Output p = Ph(root, DT_FLOAT), i = Ph(root, DT_INT32);
  std::vector<float> params(24);
  for (int k = 0; k < 24; ++k) params[k] = static_cast<float>(k);
  const Tensor pv = Vec(params, {2, 3, 4});
  const Tensor iv = Vec<int32_t>({2, 0, 1, 1}, {2, 2});
  const Tensor one = Tensor::Scalar<int32_t>(1);
  ExpectMatches(Run1(ops::GatherV2(root, p, i, 1), {pv, iv, one})[0],
                "GatherV2_axis1");
  ExpectMatches(Run1(ops::GatherV2(root, p, i, 1,
                                   ops::GatherV2Attrs().BatchDims(1)),
                     {pv, iv, one})[0],
                "GatherV2_batch1");
  // Legacy Gather is axis 0.
  auto rows = Run1(ops::Gather(root, p, i), {pv, Vec<int32_t>({1})})[0];
  EXPECT_EQ(rows.shape(), TensorShape({1, 3, 4}));
  EXPECT_EQ(rows.data<float>()[0], 12);
}

TEST(GatherTest, BadIndexNamesTheIndexAndRange) {
  Scope root = Scope::NewRootScope();
  Output p = Ph(root, DT_FLOAT), i = Ph(root, DT_INT64);
  Output g = ops::GatherV2(root, p, i, 0);
  std::vector<float> ten(10, 1.0f);
  const Tensor zero = Tensor::Scalar<int32_t>(0);
  absl::Status s = RunError(g, {Vec(ten), Vec<int64_t>({1, 2, 3, 17}), zero});
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr(Ref("GatherV2_bad_index").message));
  s = RunError(g, {Vec(ten), Vec<int64_t>({1, 2, -3, 4}, {2, 2}), zero});
  EXPECT_THAT(s.message(), HasSubstr(Ref("GatherV2_bad_index_2d").message));
  s = RunError(ops::GatherV2(root, p, i, 3),
               {Vec(ten), Vec<int64_t>({1}), Tensor::Scalar<int32_t>(3)});
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
}

TEST(SegmentTest, UnsortedSegmentSumAndDynamicStitch) {
  Scope root = Scope::NewRootScope();
  Output d = Ph(root, DT_FLOAT), ids = Ph(root, DT_INT32);
  Output uss = ops::UnsortedSegmentSum(root, d, ids, 4);
  const Tensor data = Vec<float>({1, 2, 3, 4, 5, 6, 7, 8}, {4, 2});
  const Tensor four = Tensor::Scalar<int32_t>(4);
  ExpectMatches(Run1(uss, {data, Vec<int32_t>({2, 0, -1, 2}), four})[0],
                "UnsortedSegmentSum");
  absl::Status s = RunError(uss, {data, Vec<int32_t>({2, 0, 4, 2}), four});
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("segment_ids[2] = 4 is out of range [0, 4)"));
  s = RunError(uss, {data, Vec<int32_t>({2, 0}), four});
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);

  Output i0 = Ph(root, DT_INT32), i1 = Ph(root, DT_INT32);
  Output d0 = Ph(root, DT_FLOAT), d1 = Ph(root, DT_FLOAT);
  Output stitch = ops::DynamicStitch(root, {i0, i1}, {d0, d1});
  ExpectMatches(
      Run1(stitch, {Vec<int32_t>({0, 4}), Vec<int32_t>({1, 3, 2, 4}, {2, 2}),
                    Vec<float>({1, 1.5, 2, 2.5}, {2, 2}),
                    Vec<float>({3, 3.5, 4, 4.5, 5, 5.5, 6, 6.5}, {2, 2, 2})})[0],
      "DynamicStitch");
  s = RunError(stitch, {Vec<int32_t>({0, 4}), Vec<int32_t>({1}),
                        Vec<float>({1, 1.5, 2, 2.5}, {2, 2}),
                        Vec<float>({3, 3.5, 4}, {1, 3})});
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
}

// --- Unique, Where, TopKV2, InTopKV2. ---

TEST(IndexTest, UniqueAndWhere) {
  Scope root = Scope::NewRootScope();
  Output x = Ph(root, DT_INT32);
  ops::UniqueOutputs u =
      ops::Unique(root, x, ops::UniqueAttrs().OutIdx(DT_INT64));
  auto out = Run1(u.y, {Vec<int32_t>({4, 1, 4, -2, 1, 7, -2, 0})});
  ExpectMatches(out[0], "Unique_y");
  ExpectMatches(out[1], "Unique_idx");
  EXPECT_EQ(RunError(u.y, {Vec<int32_t>({1}, {1, 1})}).code(),
            absl::StatusCode::kInvalidArgument);

  Output b = Ph(root, DT_BOOL), f = Ph(root, DT_FLOAT);
  ExpectMatches(Run1(ops::Where(root, b),
                     {Vec<bool>({true, false, true, false, false, true},
                                {2, 3})})[0],
                "Where_bool");
  ExpectMatches(Run1(ops::Where(root, f),
                     {Vec<float>({0, 1.5, -2, 0, 0, 0, 3, 0}, {2, 2, 2})})[0],
                "Where_float");
}

TEST(IndexTest, TopKTiesToTheLowerIndex) {
  Scope root = Scope::NewRootScope();
  Output x = Ph(root, DT_FLOAT), k = Ph(root, DT_INT32);
  ops::TopKOutputs top = ops::TopKV2(root, x, k);
  const Tensor in = Vec<float>({1, 3, 3, 2, 3, 0.5, 5, -1, 5, 5, 0, 4}, {2, 6});
  auto out = Run1(top.values, {in, Tensor::Scalar<int32_t>(4)});
  ExpectMatches(out[0], "TopKV2_values");
  ExpectMatches(out[1], "TopKV2_indices");
  absl::Status s = RunError(top.values, {in, Tensor::Scalar<int32_t>(7)});
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("at least k columns"));
  EXPECT_EQ(RunError(top.values, {in, Tensor::Scalar<int32_t>(-1)}).code(),
            absl::StatusCode::kInvalidArgument);
}

TEST(IndexTest, InTopKTiesAndNonFinite) {
  Scope root = Scope::NewRootScope();
  Output p = Ph(root, DT_FLOAT), t = Ph(root, DT_INT32), k = Ph(root, DT_INT32);
  Output in = ops::InTopKV2(root, p, t, k);
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float inf = std::numeric_limits<float>::infinity();
  const Tensor preds = Vec<float>({0.1, 0.3, 0.3, 0.2, 0.4, 0.4, 0.4, 0.1, 0.1,
                                   nan, 0.9, 0.2, 0.5, 0.2, inf, 0.1, 0.3, 0.2,
                                   0.1, 0.0, 0.25, 0.25, 0.25, 0.25},
                                  {6, 4});
  const Tensor targets = Vec<int32_t>({2, 0, 2, 0, 1, 3});
  for (int kv : {1, 2}) {
    ExpectMatches(Run1(in, {preds, targets, Tensor::Scalar<int32_t>(kv)})[0],
                  "InTopKV2_k" + std::to_string(kv));
  }
  // A target out of range is "not in", not an error (TensorFlow's rule).
  auto out = Run1(in, {preds, Vec<int32_t>({9, 0, 0, 0, 0, 0}),
                       Tensor::Scalar<int32_t>(4)})[0];
  EXPECT_FALSE(out.data<bool>()[0]);
  EXPECT_EQ(RunError(in, {preds, Vec<int32_t>({1, 2}),
                          Tensor::Scalar<int32_t>(1)})
                .code(),
            absl::StatusCode::kInvalidArgument);
}

// --- Assert, StaticRegexFullMatch. ---

TEST(CheckOpsTest, AssertSummarizesLikeTensorFlow) {
  Scope root = Scope::NewRootScope();
  Output c = Ph(root, DT_BOOL);
  Output s = ops::Const(root, "x is");
  Output m = ops::Const(root, {1.5f, 2.0f, 3.0f, 4.0f}, {2, 2});
  Output b = ops::Const(root, true);
  Output r = ops::Const(root, {int64_t{0}, int64_t{1}, int64_t{2}, int64_t{3},
                               int64_t{4}});
  Operation a = ops::Assert(root, c, {s, m, b, r});
  auto node_inputs = [&](bool cond) {
    return std::vector<Tensor>{Tensor::Scalar<bool>(cond),
                               Tensor::Scalar<std::string>("x is"),
                               Vec<float>({1.5f, 2, 3, 4}, {2, 2}),
                               Tensor::Scalar<bool>(true),
                               Vec<int64_t>({0, 1, 2, 3, 4})};
  };
  EXPECT_TRUE(RunKernel(a.node(), node_inputs(true)).ok());
  absl::Status st = RunKernel(a.node(), node_inputs(false)).status();
  EXPECT_EQ(st.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(st.message()),
              ::testing::EndsWith(std::string(": ") +
                                  Ref("Assert_message").message));
}

TEST(CheckOpsTest, AssertFailsTheStepNamingTheNode) {
  Scope root = Scope::NewRootScope();
  Output x = ops::Placeholder(root.WithOpName("x"), DT_FLOAT);
  Operation a = ops::Assert(root.WithOpName("check_positive"),
                            ops::Greater(root, ops::Min(root, x, {0}), 0.0f),
                            {x});
  ops::Identity(root.WithOpName("y").WithControlDependencies(a), x);
  GraphDef def;
  ASSERT_TRUE(root.ToGraphDef(&def).ok()) << root.status();
  auto session = Session::Create(def);
  ASSERT_TRUE(session.ok()) << session.status();
  std::vector<Tensor> out;
  EXPECT_TRUE((*session)->Run({{"x", Vec<float>({1, 2})}}, {"y"}, {}, &out).ok());
  absl::Status s =
      (*session)->Run({{"x", Vec<float>({1, -2, 3, 4})}}, {"y"}, {}, &out);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("check_positive"));
  EXPECT_THAT(s.message(), HasSubstr("Assert"));
  EXPECT_THAT(s.message(), HasSubstr("assertion failed: [1 -2 3...]"));
}

TEST(CheckOpsTest, GatherErrorInASessionNamesTheNode) {
  Scope root = Scope::NewRootScope();
  Output p = ops::Placeholder(root.WithOpName("p"), DT_FLOAT);
  Output i = ops::Placeholder(root.WithOpName("i"), DT_INT32);
  ops::GatherV2(root.WithOpName("lookup"), p, i, 0);
  GraphDef def;
  ASSERT_TRUE(root.ToGraphDef(&def).ok());
  auto session = Session::Create(def);
  ASSERT_TRUE(session.ok()) << session.status();
  std::vector<Tensor> out;
  absl::Status s = (*session)->Run(
      {{"p", Vec<float>({1, 2, 3})}, {"i", Vec<int32_t>({0, 5})}}, {"lookup"},
      {}, &out);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("lookup"));
  EXPECT_THAT(s.message(), HasSubstr("GatherV2"));
  EXPECT_THAT(s.message(), HasSubstr("indices[1] = 5 is not in [0, 3)"));
}

TEST(StringOpsTest, StaticRegexFullMatchIsRe2FullMatch) {
  Scope root = Scope::NewRootScope();
  Output in = Ph(root, DT_STRING);
  ExpectMatches(Run1(ops::StaticRegexFullMatch(root, in, "^s3://.*"),
                     {Vec<std::string>({"s3://b/x", "gs://b", "s3:/", "xs3://b"})})[0],
                "StaticRegexFullMatch");
  ExpectMatches(Run1(ops::StaticRegexFullMatch(root, in, "a.c"),
                     {Vec<std::string>({"abc", "abcd", "xabc"})})[0],
                "StaticRegexFullMatch_partial");
  // A bad pattern fails when the kernel is built, not with a crash.
  EXPECT_FALSE(RunKernel(ops::StaticRegexFullMatch(root, in, "(").node(),
                         {Vec<std::string>({"a"})})
                   .ok());
}

// --- Stateless random numbers, bit for bit. ---

struct SeedCase {
  std::string tag;
  std::vector<int64_t> seed;
  DataType dtype;
};

TEST(StatelessRandomTest, KeyCounterAndNumbersMatchTensorFlow) {
  const std::vector<SeedCase> seeds = {{"i64_1_2", {1, 2}, DT_INT64},
                                       {"i32_m1_7", {-1, 7}, DT_INT32},
                                       {"i64_big", {123456789012, -5}, DT_INT64},
                                       {"i32_0_0", {0, 0}, DT_INT32}};
  for (const SeedCase& sc : seeds) {
    Scope root = Scope::NewRootScope();
    Output seed = Ph(root, sc.dtype);
    ops::KeyCounter kc = ops::StatelessRandomGetKeyCounter(root, seed);
    Tensor seed_t = sc.dtype == DT_INT64
                        ? Vec<int64_t>(sc.seed)
                        : Vec<int32_t>({static_cast<int32_t>(sc.seed[0]),
                                        static_cast<int32_t>(sc.seed[1])});
    auto kcv = Run1(kc.key, {seed_t});
    ASSERT_EQ(kcv.size(), 2u);
    ExpectMatches(kcv[0], "Key_" + sc.tag);
    ExpectMatches(kcv[1], "Counter_" + sc.tag);
    Output shape = Ph(root, DT_INT32), key = Ph(root, DT_UINT64),
           counter = Ph(root, DT_UINT64), alg = Ph(root, DT_INT32);
    struct Dist {
      const char* name;
      Output (*fn)(const Scope&, Input, Input, Input, Input, DataType);
    };
    for (const Dist& d :
         {Dist{"Uniform", &ops::StatelessRandomUniformV2},
          Dist{"Normal", &ops::StatelessRandomNormalV2},
          Dist{"TruncatedNormal", &ops::StatelessTruncatedNormalV2}}) {
      for (const auto& [dtype, dims] :
           std::vector<std::pair<DataType, std::vector<int32_t>>>{
               {DT_FLOAT, {2, 5}}, {DT_DOUBLE, {7}}, {DT_FLOAT, {3}}}) {
        Output r = d.fn(root, shape, key, counter, alg, dtype);
        std::string dims_name;
        for (int32_t v : dims) {
          dims_name += (dims_name.empty() ? "" : "x") + std::to_string(v);
        }
        const std::string name = absl::StrCat(
            d.name, "_", sc.tag, "_", dtype == DT_FLOAT ? "float32" : "float64",
            "_", dims_name);
        ExpectMatches(Run1(r, {Vec(dims), kcv[0], kcv[1],
                               Tensor::Scalar<int32_t>(1)})[0],
                      name);
        // Auto-select (3) is Philox too.
        ExpectMatches(Run1(r, {Vec(dims), kcv[0], kcv[1],
                               Tensor::Scalar<int32_t>(3)})[0],
                      name);
      }
    }
  }
}

TEST(StatelessRandomTest, BadInputsAreErrors) {
  Scope root = Scope::NewRootScope();
  Output seed = Ph(root, DT_INT64);
  ops::KeyCounter kc = ops::StatelessRandomGetKeyCounter(root, seed);
  EXPECT_EQ(RunError(kc.key, {Vec<int64_t>({1, 2, 3})}).code(),
            absl::StatusCode::kInvalidArgument);
  Output shape = Ph(root, DT_INT32), key = Ph(root, DT_UINT64),
         counter = Ph(root, DT_UINT64), alg = Ph(root, DT_INT32);
  Output r = ops::StatelessRandomUniformV2(root, shape, key, counter, alg);
  const Tensor k = Vec<uint64_t>({1}), c = Vec<uint64_t>({0, 1});
  EXPECT_EQ(RunError(r, {Vec<int32_t>({2}), k, c, Tensor::Scalar<int32_t>(7)})
                .code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(RunError(r, {Vec<int32_t>({2}), k, c, Tensor::Scalar<int32_t>(2)})
                .code(),
            absl::StatusCode::kUnimplemented);
  EXPECT_EQ(RunError(r, {Vec<int32_t>({-2}), k, c, Tensor::Scalar<int32_t>(1)})
                .code(),
            absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace dflow
