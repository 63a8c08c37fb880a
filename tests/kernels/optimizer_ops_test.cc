// Adagrad, RMSProp and the sparse optimizer kernels against TensorFlow's
// numbers (tools/tf_reference/make_optimizer_reference.py), bit for bit,
// in both the reference and the resource forms; and their errors.
#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "graph/ops/ops.h"
#include "graph/scope.h"
#include "gtest/gtest.h"
#include "runtime/variables.h"
#include "tests/kernels/kernel_test_util.h"

namespace dflow {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;

struct OptimizerCase {
  std::string op;
  DataType dtype;
  bool flag;  // update_slots or use_nesterov
  std::vector<int64_t> shape;
  std::vector<std::vector<double>> before;  // var, then slots
  std::vector<double> scalars;
  std::vector<double> grad;
  std::vector<int32_t> indices;
  std::vector<std::vector<double>> after;
};

const std::vector<OptimizerCase>& Cases() {
  static const auto* cases = new std::vector<OptimizerCase>{
#include "tests/kernels/optimizer_reference.inc"
  };
  return *cases;
}

// Input kinds in TensorFlow's order: v variable, s scalar, g grad,
// i indices.
std::string InputKinds(const std::string& op) {
  if (op == "ApplyAdagrad") return "vvsg";
  if (op == "ApplyAdagradV2") return "vvssg";
  if (op == "ApplyRMSProp") return "vvvssssg";
  if (op == "ApplyCenteredRMSProp") return "vvvvssssg";
  if (op == "SparseApplyAdagrad") return "vvsgi";
  if (op == "SparseApplyMomentum") return "vvsgis";
  return "vvvssssgi";  // SparseApplyRMSProp
}

Tensor Make(DataType dtype, const std::vector<double>& v,
            const TensorShape& shape) {
  Tensor t(dtype, shape);
  for (size_t i = 0; i < v.size(); ++i) {
    if (dtype == DT_FLOAT) {
      t.data<float>()[i] = static_cast<float>(v[i]);
    } else {
      t.data<double>()[i] = v[i];
    }
  }
  return t;
}

std::vector<double> Values(const Tensor& t) {
  std::vector<double> out;
  for (int64_t i = 0; i < t.NumElements(); ++i) {
    out.push_back(t.dtype() == DT_FLOAT ? t.data<float>()[i]
                                        : t.data<double>()[i]);
  }
  return out;
}

// Runs `c` as its reference or resource op; the variables hold `init`
// (an empty vector leaves that variable uninitialized).
absl::StatusOr<std::vector<std::vector<double>>> Step(
    const OptimizerCase& c, bool resource,
    const std::vector<std::vector<double>>& init,
    const std::vector<int32_t>& indices) {
  Scope root = Scope::NewRootScope();
  const TensorShape shape(c.shape);
  const std::string kinds = InputKinds(c.op);
  OpBuilder b(root, absl::StrCat(resource ? "Resource" : "", c.op), "train");
  std::vector<Tensor> inputs;
  std::vector<Var*> vars_in;
  std::vector<std::unique_ptr<Var>> vars;
  size_t scalar = 0;
  for (char k : kinds) {
    if (k == 'v') {
      const std::string name = absl::StrCat("v", vars.size());
      b.Input(resource ? ops::VarHandleOp(root.WithOpName(name), c.dtype, shape)
                       : ops::Variable(root.WithOpName(name), shape, c.dtype));
      vars.push_back(std::make_unique<Var>(name, c.dtype, shape));
      if (!init[vars.size() - 1].empty()) {
        *vars.back()->value() = Make(c.dtype, init[vars.size() - 1], shape);
      }
      inputs.push_back(Tensor());
      vars_in.push_back(vars.back().get());
      continue;
    }
    vars_in.push_back(nullptr);
    if (k == 's') {
      b.Input(ops::Placeholder(root, c.dtype));
      inputs.push_back(Make(c.dtype, {c.scalars[scalar++]}, TensorShape()));
    } else if (k == 'g') {
      b.Input(ops::Placeholder(root, c.dtype));
      std::vector<int64_t> g = c.shape;
      if (!c.indices.empty()) g[0] = static_cast<int64_t>(indices.size());
      inputs.push_back(Make(c.dtype, c.grad, TensorShape(g)));
    } else {
      b.Input(ops::Placeholder(root, DT_INT32));
      inputs.push_back(Tensor::FromVector<int32_t>(indices));
    }
  }
  if (c.op.find("Adagrad") != std::string::npos) {
    b.Attr("update_slots", c.flag);
  } else if (c.op.find("Momentum") != std::string::npos) {
    b.Attr("use_nesterov", c.flag);
  }
  Operation op = b.Finalize();
  if (!root.ok()) return root.status();
  absl::StatusOr<std::vector<Tensor>> out =
      RunKernel(op.node(), inputs, vars_in);
  if (!out.ok()) return out.status();
  std::vector<std::vector<double>> after;
  for (auto& v : vars) after.push_back(Values(*v->value()));
  return after;
}

TEST(OptimizerOpsTest, MatchTensorFlowBitForBit) {
  ASSERT_EQ(Cases().size(), 20u);
  for (const OptimizerCase& c : Cases()) {
    for (bool resource : {false, true}) {
      SCOPED_TRACE(absl::StrCat(resource ? "Resource" : "", c.op, " ",
                                DataTypeName(c.dtype), " flag ", c.flag));
      auto after = Step(c, resource, c.before, c.indices);
      ASSERT_TRUE(after.ok()) << after.status();
      ASSERT_EQ(after->size(), c.after.size());
      for (size_t k = 0; k < c.after.size(); ++k) {
        EXPECT_EQ((*after)[k], c.after[k]) << "variable " << k;
      }
    }
  }
}

const OptimizerCase& FindCase(const std::string& op) {
  for (const OptimizerCase& c : Cases()) {
    if (c.op == op) return c;
  }
  return Cases()[0];
}

TEST(OptimizerOpsTest, BadIndexIsNamedAndChangesNothing) {
  for (const char* op : {"SparseApplyAdagrad", "SparseApplyMomentum",
                         "SparseApplyRMSProp"}) {
    const OptimizerCase& c = FindCase(op);
    for (bool resource : {false, true}) {
      SCOPED_TRACE(absl::StrCat(op, resource));
      std::vector<int32_t> bad = c.indices;
      bad[2] = 7;
      auto after = Step(c, resource, c.before, bad);
      ASSERT_FALSE(after.ok());
      EXPECT_EQ(after.status().code(), absl::StatusCode::kInvalidArgument);
      EXPECT_THAT(std::string(after.status().message()),
                  AllOf(HasSubstr("'train'"), HasSubstr(op),
                        HasSubstr("indices[2] = 7 is not in [0, 5)")));
    }
  }
}

TEST(OptimizerOpsTest, UninitializedSlotIsTensorFlowsError) {
  for (const char* op : {"ApplyRMSProp", "SparseApplyMomentum"}) {
    const OptimizerCase& c = FindCase(op);
    for (bool resource : {false, true}) {
      std::vector<std::vector<double>> init = c.before;
      init[1].clear();
      auto after = Step(c, resource, init, c.indices);
      ASSERT_FALSE(after.ok());
      EXPECT_EQ(after.status().code(), absl::StatusCode::kFailedPrecondition);
      EXPECT_THAT(std::string(after.status().message()),
                  AllOf(HasSubstr("'train'"),
                        HasSubstr("Attempting to use uninitialized value v1")));
    }
  }
}

}  // namespace
}  // namespace dflow
