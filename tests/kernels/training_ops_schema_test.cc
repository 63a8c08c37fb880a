// The optimizer update ops: schemas and shape functions
// (graph/ops/training_ops.cc), which kernels are registered, and the errors
// the CPU kernels (kernels/cpu/training_ops.cc) report for bad variables,
// gradients and hyperparameters. Their numbers are checked in
// training_ops_test.cc.

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "graph/graph.h"
#include "graph/node_def_util.h"
#include "graph/op_registry.h"
#include "graph/ops/ops.h"
#include "graph/scope.h"
#include "graph/tensor.h"
#include "graph/types.h"
#include "gtest/gtest.h"
#include "runtime/kernel_registry.h"
#include "runtime/op_kernel.h"
#include "runtime/session.h"
#include "runtime/variables.h"
#include "tests/kernels/kernel_test_util.h"
#include "tests/kernels/math_kernel_test_util.h"
#include "tests/kernels/training_ops_test_util.h"

namespace dflow {
namespace {

using ::testing::AllOf;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using testing_math::AsDoubles;
using testing_math::CpuDeviceWithThreads;
using testing_math::ExpectAllNear;
using testing_math::FromDoubles;
using testing_math::RandomValues;
using testing_training::AllModes;
using testing_training::ApplyHarness;
using testing_training::BuildApply;
using testing_training::DefaultScalars;
using testing_training::Initial;
using testing_training::LayoutOf;
using testing_training::ModeName;
using testing_training::OpLayout;
using testing_training::OpMode;
using testing_training::RunOnDevice;

// --- Schemas. ---

const OpDef& GetOpDef(const std::string& name) {
  absl::StatusOr<const OpRegistration*> reg =
      OpRegistry::Global()->LookUp(name);
  EXPECT_TRUE(reg.ok()) << reg.status();
  static const OpDef* const kEmpty = new OpDef;
  return reg.ok() ? (*reg)->op_def : *kEmpty;
}

std::vector<std::string> InputNames(const OpDef& op) {
  std::vector<std::string> names;
  for (const auto& a : op.input_arg()) names.push_back(a.name());
  return names;
}

std::vector<std::string> AttrNames(const OpDef& op) {
  std::vector<std::string> names;
  for (const auto& a : op.attr()) names.push_back(a.name());
  return names;
}

TEST(TrainingOpsSchemaTest, RegistersWithoutErrors) {
  for (const absl::Status& s : OpRegistry::Global()->InitErrors()) {
    ADD_FAILURE() << s;
  }
}

TEST(TrainingOpsSchemaTest, InputsAndAttrsAreTensorFlows) {
  EXPECT_THAT(InputNames(GetOpDef("ApplyGradientDescent")),
              ElementsAre("var", "alpha", "delta"));
  EXPECT_THAT(InputNames(GetOpDef("ApplyMomentum")),
              ElementsAre("var", "accum", "lr", "grad", "momentum"));
  EXPECT_THAT(InputNames(GetOpDef("ApplyAdam")),
              ElementsAre("var", "m", "v", "beta1_power", "beta2_power", "lr",
                          "beta1", "beta2", "epsilon", "grad"));
  for (const char* op :
       {"ApplyGradientDescent", "ApplyMomentum", "ApplyAdam"}) {
    SCOPED_TRACE(op);
    const OpDef& ref = GetOpDef(op);
    const OpDef& res = GetOpDef(absl::StrCat("Resource", op));
    EXPECT_EQ(InputNames(ref), InputNames(res));
    // Reference form: not stateful (like Assign), returns the variable.
    EXPECT_FALSE(ref.is_stateful());
    ASSERT_EQ(ref.output_arg_size(), 1);
    EXPECT_EQ(ref.output_arg(0).name(), "out");
    EXPECT_TRUE(ref.output_arg(0).is_ref());
    // Resource form: stateful, no outputs.
    EXPECT_TRUE(res.is_stateful());
    EXPECT_EQ(res.output_arg_size(), 0);
    const int num_vars = static_cast<int>(LayoutOf(op).vars.size());
    for (int i = 0; i < ref.input_arg_size(); ++i) {
      EXPECT_EQ(ref.input_arg(i).is_ref(), i < num_vars) << i;
      EXPECT_EQ(res.input_arg(i).type() == DT_RESOURCE, i < num_vars) << i;
    }
    const std::vector<std::string> attrs =
        std::string(op) == "ApplyGradientDescent"
            ? std::vector<std::string>{"T", "use_locking"}
            : std::vector<std::string>{"T", "use_locking", "use_nesterov"};
    EXPECT_EQ(AttrNames(ref), attrs);
    EXPECT_EQ(AttrNames(res), attrs);
    for (const auto& a : ref.attr()) {
      if (a.name() == "T") {
        // numbertype: the float types, complex and integers.
        const auto& allowed = a.allowed_values().list().type();
        for (DataType t :
             {DT_FLOAT, DT_DOUBLE, DT_HALF, DT_COMPLEX64, DT_INT32}) {
          EXPECT_NE(std::find(allowed.begin(), allowed.end(), t), allowed.end())
              << DataTypeName(t);
        }
        EXPECT_EQ(std::find(allowed.begin(), allowed.end(), DT_BOOL),
                  allowed.end());
      } else {
        EXPECT_FALSE(a.default_value().b()) << a.name();
      }
    }
  }
}

TEST(TrainingOpsSchemaTest, WrappersWriteNonDefaultAttrs) {
  Scope root = Scope::NewRootScope();
  Output var = ops::Variable(root, {3}, DT_FLOAT);
  Output accum = ops::Variable(root, {3}, DT_FLOAT);
  Output out = ops::ApplyMomentum(
      root, var, accum, 0.1f, ops::Const(root, {1.0f, 2.0f, 3.0f}), 0.9f,
      ops::ApplyMomentumAttrs().UseNesterov(true).UseLocking(true));
  ASSERT_TRUE(root.ok()) << root.status();
  bool nesterov = false, locking = false;
  DataType t = DT_INVALID;
  ASSERT_TRUE(out.node()->GetAttr("use_nesterov", &nesterov).ok());
  ASSERT_TRUE(out.node()->GetAttr("use_locking", &locking).ok());
  ASSERT_TRUE(out.node()->GetAttr("T", &t).ok());
  EXPECT_TRUE(nesterov);
  EXPECT_TRUE(locking);
  EXPECT_EQ(t, DT_FLOAT);
  EXPECT_EQ(out.dtype(), DT_FLOAT_REF);
}

// --- Kernel availability. ---

TEST(TrainingOpsSchemaTest, KernelsForFloatAndDoubleOnCpuDefinitionsOnGpu) {
  Scope root = Scope::NewRootScope();
  for (DataType dtype : {DT_FLOAT, DT_DOUBLE, DT_INT32}) {
    for (bool resource : {false, true}) {
      for (const char* op :
           {"ApplyGradientDescent", "ApplyMomentum", "ApplyAdam"}) {
        SCOPED_TRACE(absl::StrCat(resource ? "Resource" : "", op, " ",
                                  DataTypeName(dtype)));
        Node* node =
            BuildApply(root.NewSubScope("s"), op, dtype, resource, false, {2});
        ASSERT_NE(node, nullptr) << root.status();
        const KernelRegistry& reg = *KernelRegistry::Global();
        if (dtype == DT_INT32) {  // TensorFlow has no int32 kernels either
          EXPECT_THAT(reg.SupportedDeviceTypes(*node), ::testing::IsEmpty());
          continue;
        }
        EXPECT_THAT(reg.SupportedDeviceTypes(*node),
                    ::testing::UnorderedElementsAre("CPU", "GPU"));
        EXPECT_TRUE(reg.IsKernelBuilt(*node, "CPU"));
        // On a GPU only the resource handles are host values; scalars and
        // the gradient stay on the device, as in TensorFlow.
        const OpLayout layout = LayoutOf(op);
        for (const std::string& var : layout.vars) {
          EXPECT_EQ(reg.IsHostMemoryArg(*node, "GPU", var), resource) << var;
        }
        const OpDef& def = node->op_def();
        for (int i : layout.scalar_inputs) {
          EXPECT_FALSE(
              reg.IsHostMemoryArg(*node, "GPU", def.input_arg(i).name()));
        }
        EXPECT_FALSE(reg.IsHostMemoryArg(
            *node, "GPU", def.input_arg(layout.grad_input).name()));
      }
    }
  }
}

// --- Shape functions. ---

TEST(TrainingOpsShapeTest, RefOpsReturnTheVariablesShape) {
  Scope root = Scope::NewRootScope();
  Output var = ops::Variable(root, {2, 3}, DT_FLOAT);
  Output accum = ops::Variable(root, {2, 3}, DT_FLOAT);
  Output grad = ops::Placeholder(root, DT_FLOAT);  // unknown: fine
  Output gd = ops::ApplyGradientDescent(root, var, 0.5f, grad);
  Output mom = ops::ApplyMomentum(root, var, accum, 0.1f, grad, 0.9f);
  ASSERT_TRUE(root.ok()) << root.status();
  EXPECT_EQ(gd.shape(), TensorShape({2, 3}));
  EXPECT_EQ(mom.shape(), TensorShape({2, 3}));
  // Partial shapes merge: [?,3] and [2,?] give [2,3].
  Output partial = ops::Placeholder(
      root, DT_FLOAT, ops::PlaceholderAttrs().Shape(TensorShape({-1, 3})));
  Output var2 = ops::Variable(root, TensorShape({2, -1}), DT_FLOAT);
  EXPECT_EQ(ops::ApplyGradientDescent(root, var2, 0.5f, partial).shape(),
            TensorShape({2, 3}));
  EXPECT_TRUE(root.ok()) << root.status();
}

// Building `build` fails with InvalidArgument naming the node and `parts`.
void ExpectBuildError(const std::function<void(const Scope&)>& build,
                      const std::vector<std::string>& parts) {
  Scope root = Scope::NewRootScope();
  build(root);
  const absl::Status s = root.status();
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << s;
  EXPECT_THAT(std::string(s.message()), HasSubstr("'train'")) << s;
  for (const std::string& p : parts) {
    EXPECT_THAT(std::string(s.message()), HasSubstr(p)) << s;
  }
}

TEST(TrainingOpsShapeTest, GradientMustHaveTheVariablesShape) {
  ExpectBuildError(
      [](const Scope& root) {
        Output var = ops::Variable(root.WithOpName("w"), {2, 3}, DT_FLOAT);
        ops::ApplyGradientDescent(root.WithOpName("train"), var, 0.5f,
                                  ops::Const(root, {1.0f, 2.0f, 3.0f}));
      },
      {"ApplyGradientDescent", "'var' is [2,3]", "'delta' is [3]"});
  ExpectBuildError(
      [](const Scope& root) {
        Output var = ops::VarHandleOp(root, DT_FLOAT, {2, 3});
        ops::ResourceApplyGradientDescent(root.WithOpName("train"), var, 0.5f,
                                          ops::Const(root, {1.0f, 2.0f}));
      },
      {"ResourceApplyGradientDescent", "'var' is [2,3]", "'delta' is [2]"});
}

TEST(TrainingOpsShapeTest, SlotsMustHaveTheVariablesShape) {
  ExpectBuildError(
      [](const Scope& root) {
        Output var = ops::Variable(root, {2, 3}, DT_FLOAT);
        Output accum = ops::Variable(root, {3, 2}, DT_FLOAT);
        ops::ApplyMomentum(root.WithOpName("train"), var, accum, 0.1f,
                           ops::Placeholder(root, DT_FLOAT), 0.9f);
      },
      {"ApplyMomentum", "'var' is [2,3]", "'accum' is [3,2]"});
  ExpectBuildError(
      [](const Scope& root) {
        Output var = ops::VarHandleOp(root, DT_FLOAT, {4});
        Output m = ops::VarHandleOp(root, DT_FLOAT, {4});
        Output v = ops::VarHandleOp(root, DT_FLOAT, {5});
        ops::ResourceApplyAdam(root.WithOpName("train"), var, m, v, 0.9f,
                               0.999f, 0.01f, 0.9f, 0.999f, 1e-7f,
                               ops::Placeholder(root, DT_FLOAT));
      },
      {"ResourceApplyAdam", "'v' is [5]", "'var' is [4]"});
}

TEST(TrainingOpsShapeTest, ScalarsMustBeScalars) {
  ExpectBuildError(
      [](const Scope& root) {
        Output var = ops::Variable(root, {2}, DT_FLOAT);
        Output accum = ops::Variable(root, {2}, DT_FLOAT);
        ops::ApplyMomentum(root.WithOpName("train"), var, accum, {0.1f, 0.2f},
                           ops::Placeholder(root, DT_FLOAT), 0.9f);
      },
      {"input 'lr' must be a scalar", "[2]"});
  ExpectBuildError(
      [](const Scope& root) {
        Output var = ops::VarHandleOp(root, DT_FLOAT, {2});
        ops::ResourceApplyAdam(root.WithOpName("train"), var, var, var, 0.9f,
                               0.999f, 0.01f, 0.9f, 0.999f,
                               ops::Const(root, {1e-7f}), {1.0f, 2.0f});
      },
      {"input 'epsilon' must be a scalar", "[1]"});
}

// --- Errors. ---

TEST(TrainingOpsKernelTest, UninitializedVariablesAreNamed) {
  for (const OpMode& mode : AllModes()) {
    for (bool resource : {false, true}) {
      const int num_vars = static_cast<int>(LayoutOf(mode.op).vars.size());
      for (int missing = 0; missing < num_vars; ++missing) {
        const std::string name = LayoutOf(mode.op).vars[missing];
        SCOPED_TRACE(absl::StrCat(ModeName(mode, DT_FLOAT, resource), " ", name,
                                  " uninitialized"));
        ApplyHarness h(mode.op, DT_FLOAT, resource, mode.nesterov);
        const auto start = Initial(mode.op, 6, 1);
        for (int k = 0; k < num_vars; ++k) {
          if (k != missing) h.Set(k, start[k]);
        }
        absl::Status s = h.Step(DefaultScalars(mode.op), RandomValues(6, 20));
        EXPECT_EQ(s.code(), absl::StatusCode::kFailedPrecondition) << s;
        EXPECT_THAT(std::string(s.message()),
                    AllOf(HasSubstr("'train'"),
                          HasSubstr(absl::StrCat("Attempting to use uninitialized value ", name)),
                          HasSubstr("run its initializer first")));
        // Nothing changed.
        for (int k = 0; k < num_vars; ++k) {
          if (k != missing) {
            EXPECT_EQ(h.Get(k), testing_math::Rounded(DT_FLOAT, start[k]));
          }
        }
      }
    }
  }
}

TEST(TrainingOpsKernelTest, SlotShapeMismatchNamesBothVariablesAndShapes) {
  for (const char* op : {"ApplyMomentum", "ApplyAdam"}) {
    for (bool resource : {false, true}) {
      SCOPED_TRACE(absl::StrCat(op, resource ? " resource" : ""));
      ApplyHarness h(op, DT_FLOAT, resource, false);
      const auto start = Initial(op, 6, 1);
      for (int k = 0; k < h.num_vars(); ++k) h.Set(k, start[k]);
      h.Set(1, FromDoubles(DT_FLOAT, {1, 2, 3}, {3}));
      absl::Status s = h.Step(DefaultScalars(op), RandomValues(6, 20));
      EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << s;
      EXPECT_THAT(std::string(s.message()),
                  AllOf(HasSubstr("'train'"), HasSubstr("variable 'var'"),
                        HasSubstr(absl::StrCat("variable '",
                                               LayoutOf(op).vars[1], "'")),
                        HasSubstr("[3]"), HasSubstr("[2,3]")));
    }
  }
}

TEST(TrainingOpsKernelTest, GradientShapeMismatchNamesTheVariable) {
  for (const OpMode& mode : AllModes()) {
    for (bool resource : {false, true}) {
      SCOPED_TRACE(ModeName(mode, DT_FLOAT, resource));
      ApplyHarness h(mode.op, DT_FLOAT, resource, mode.nesterov);
      const auto start = Initial(mode.op, 6, 1);
      for (int k = 0; k < h.num_vars(); ++k) h.Set(k, start[k]);
      std::vector<Tensor> scalars;
      for (double x : DefaultScalars(mode.op)) {
        scalars.push_back(Tensor::Scalar<float>(static_cast<float>(x)));
      }
      absl::Status s =
          h.Step(scalars, FromDoubles(DT_FLOAT, {1, 2, 3, 4, 5, 6}, {3, 2}));
      EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << s;
      EXPECT_THAT(std::string(s.message()),
                  AllOf(HasSubstr("'train'"), HasSubstr("variable 'var'"),
                        HasSubstr("[3,2]"), HasSubstr("[2,3]")));
      EXPECT_EQ(h.Get(0), testing_math::Rounded(DT_FLOAT, start[0]));
    }
  }
}

TEST(TrainingOpsKernelTest, NonScalarHyperparametersAreRejected) {
  for (const OpMode& mode : AllModes()) {
    const OpLayout layout = LayoutOf(mode.op);
    const OpDef& def = GetOpDef(mode.op);
    for (size_t bad = 0; bad < layout.scalar_inputs.size(); ++bad) {
      const std::string name = def.input_arg(layout.scalar_inputs[bad]).name();
      SCOPED_TRACE(absl::StrCat(mode.op, " ", name));
      ApplyHarness h(mode.op, DT_FLOAT, false, mode.nesterov);
      const auto start = Initial(mode.op, 6, 1);
      for (int k = 0; k < h.num_vars(); ++k) h.Set(k, start[k]);
      std::vector<Tensor> scalars;
      for (double x : DefaultScalars(mode.op)) {
        scalars.push_back(Tensor::Scalar<float>(static_cast<float>(x)));
      }
      scalars[bad] = FromDoubles(DT_FLOAT, {0.1, 0.2}, {2});
      absl::Status s =
          h.Step(scalars, FromDoubles(DT_FLOAT, RandomValues(6, 20), {2, 3}));
      EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << s;
      EXPECT_THAT(
          std::string(s.message()),
          AllOf(HasSubstr(absl::StrCat("'", name, "' must be a scalar")),
                HasSubstr("[2]")));
    }
  }
}

TEST(TrainingOpsKernelTest, ResourceVariableOfAnotherDtypeIsRejected) {
  Scope root = Scope::NewRootScope();
  Output handle = ops::VarHandleOp(root, DT_DOUBLE, {2});
  Operation train = ops::ResourceApplyGradientDescent(
      root.WithOpName("train"), handle, 0.5f, ops::Placeholder(root, DT_FLOAT));
  ASSERT_TRUE(root.ok()) << root.status();
  VariableStore store;
  Var* var = *store.LookupOrCreate("d", DT_DOUBLE, {2});
  {
    std::lock_guard<std::mutex> lock(var->mu());
    *var->value() = Tensor::FromVector<double>({1, 2});
  }
  absl::Status s = RunOnDevice(TestCpuDevice(), train.node(),
                               {Tensor(), Tensor::Scalar<float>(0.5f),
                                Tensor::FromVector<float>({1, 1})},
                               {var});
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << s;
  EXPECT_THAT(std::string(s.message()),
              AllOf(HasSubstr("variable 'd'"), HasSubstr("double"),
                    HasSubstr("float")));
  EXPECT_EQ(AsDoubles(var->Read()), std::vector<double>({1, 2}));
}

}  // namespace
}  // namespace dflow
