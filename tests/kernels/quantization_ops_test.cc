// The fake-quantization and quantize-dequantize kernels
// (kernels/cpu/quantization_ops*.cc): a graph TensorFlow 2.21 wrote, with
// TensorFlow's values (tools/tf_reference/make_quantization_reference.py):
// grid points, ties and range ends for num_bits 2..16 and narrow ranges,
// per-channel ranges of ranks 1, 2 and 4, QuantizeAndDequantizeV2/V3/V4 over
// signed_input, narrow_range, num_bits, range_given, round_mode and axis in
// float and double, and the gradient ops tf.gradients writes. Then the bad
// inputs each kernel refuses with InvalidArgument.
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "gtest/gtest.h"
#include "runtime/session.h"
#include "tests/kernels/cwise_test_util.h"
#include "tests/kernels/tf_value_cases.h"

namespace dflow {
namespace {

constexpr char kDir[] = "tests/testdata/tf_quantization/";

using testing_tf_values::DtypeOf;
using testing_tf_values::Element;
using testing_tf_values::Line;

TEST(QuantizationOpsTest, TensorFlowsGraphGivesTensorFlowsValues) {
  const std::vector<Line> lines =
      testing_tf_values::ReadLines(std::string(kDir) + "cases.txt");
  ASSERT_GT(lines.size(), 400u);
  std::vector<const Line*> fetched;
  std::vector<Tensor> outputs;
  testing_tf_values::RunGraph(kDir, lines, &fetched, &outputs);
  ASSERT_EQ(outputs.size(), fetched.size());
  ASSERT_GT(fetched.size(), 300u);
  size_t compared = 0;
  for (size_t f = 0; f < fetched.size(); ++f) {
    const Line& want = *fetched[f];
    const Tensor& got = outputs[f];
    SCOPED_TRACE(want.name);
    ++compared;
    ASSERT_EQ(got.dtype(), DtypeOf(want.dtype)) << want.dtype;
    ASSERT_EQ(got.NumElements(), static_cast<int64_t>(want.values.size()));
    // Quantized values are computed in TensorFlow's order and must match
    // bit for bit. The min/max gradients of the FakeQuant ops are sums,
    // whose order (Eigen's tree in TensorFlow) may move the last bits.
    const bool sum = absl::StrContains(want.name, "GradMin") ||
                     absl::StrContains(want.name, "GradMax");
    // A float32 value is written with 9 digits: exact once rounded back to
    // float, not as the double those digits spell.
    const bool f32 = want.dtype == "float32";
    for (int64_t i = 0; i < got.NumElements(); ++i) {
      const double g = Element(got, i);
      const double w = f32 ? static_cast<float>(want.values[i])
                           : want.values[i];
      if (std::isnan(w)) {
        EXPECT_TRUE(std::isnan(g)) << "element " << i << " is " << g;
      } else if (sum) {
        EXPECT_NEAR(g, w, 1e-6 * (std::fabs(w) + 1)) << "element " << i;
      } else {
        EXPECT_EQ(g, w) << "element " << i;
      }
    }
  }
  EXPECT_GT(compared, 200u);
}

// --- Bad inputs. ---

using cwise_test::Attrs;
using cwise_test::RunOpOutputs;

Tensor Floats(std::vector<float> v) { return Tensor::FromVector<float>(v); }

// The op fails with InvalidArgument and a message containing `what`.
void ExpectInvalid(const char* op, const std::vector<Tensor>& inputs,
                   const Attrs& attrs, const std::string& what) {
  absl::StatusOr<std::vector<Tensor>> out = RunOpOutputs(op, inputs, attrs);
  ASSERT_FALSE(out.ok()) << op;
  EXPECT_EQ(out.status().code(), absl::StatusCode::kInvalidArgument)
      << out.status();
  EXPECT_TRUE(absl::StrContains(out.status().message(), what))
      << out.status();
}

TEST(QuantizationOpsTest, FakeQuantNumBitsOutOfRange) {
  const Tensor x = Floats({0.1f, 0.5f});
  for (int64_t bits : {0, 1, 17, 32}) {
    SCOPED_TRACE(bits);
    ExpectInvalid("FakeQuantWithMinMaxArgs", {x},
                  {{"num_bits", MakeAttr(bits)}}, "num_bits");
    ExpectInvalid("FakeQuantWithMinMaxVars",
                  {x, Tensor::Scalar<float>(-1), Tensor::Scalar<float>(1)},
                  {{"num_bits", MakeAttr(bits)}}, "num_bits");
    ExpectInvalid("FakeQuantWithMinMaxVarsPerChannelGradient",
                  {x, x, Floats({-1, -1}), Floats({1, 1})},
                  {{"num_bits", MakeAttr(bits)}}, "num_bits");
  }
  // 2 and 16 are the ends of the allowed range.
  for (int64_t bits : {2, 16}) {
    EXPECT_TRUE(RunOpOutputs("FakeQuantWithMinMaxArgs", {x},
                             {{"num_bits", MakeAttr(bits)}})
                    .ok());
  }
}

TEST(QuantizationOpsTest, FakeQuantMinAboveMax) {
  const Tensor x = Floats({0.1f, 0.5f});
  ExpectInvalid("FakeQuantWithMinMaxArgs", {x},
                {{"min", MakeAttr(1.0f)}, {"max", MakeAttr(-1.0f)}},
                "smaller than max");
  ExpectInvalid("FakeQuantWithMinMaxArgsGradient", {x, x},
                {{"min", MakeAttr(2.0f)}, {"max", MakeAttr(2.0f)}},
                "smaller than max");
  ExpectInvalid("FakeQuantWithMinMaxVars",
                {x, Tensor::Scalar<float>(1), Tensor::Scalar<float>(-1)}, {},
                "min must not be greater than max");
  ExpectInvalid("FakeQuantWithMinMaxVarsGradient",
                {x, x, Tensor::Scalar<float>(1), Tensor::Scalar<float>(-1)},
                {}, "min must not be greater than max");
  ExpectInvalid("FakeQuantWithMinMaxVarsPerChannel",
                {x, Floats({-1, 3}), Floats({1, 2})}, {}, "channel 1");
}

TEST(QuantizationOpsTest, FakeQuantPerChannelRangeLengthMustMatch) {
  const Tensor x(DT_FLOAT, TensorShape({4, 3}));
  ExpectInvalid("FakeQuantWithMinMaxVarsPerChannel",
                {x, Floats({-1, -1}), Floats({1, 1, 1})}, {},
                "min must be a vector of 3 elements");
  ExpectInvalid("FakeQuantWithMinMaxVarsPerChannelGradient",
                {x, x, Floats({-1, -1, -1}), Floats({1, 1, 1, 1})}, {},
                "max must be a vector of 3 elements");
  ExpectInvalid("FakeQuantWithMinMaxVarsPerChannel",
                {Tensor::Scalar<float>(1), Floats({-1}), Floats({1})}, {},
                "rank at least 1");
  ExpectInvalid("FakeQuantWithMinMaxVars",
                {x, Floats({-1, -1}), Tensor::Scalar<float>(1)}, {},
                "must be scalars");
  ExpectInvalid("FakeQuantWithMinMaxVarsGradient",
                {Tensor(DT_FLOAT, TensorShape({3, 4})), x,
                 Tensor::Scalar<float>(-1), Tensor::Scalar<float>(1)},
                {}, "same shape");
}

TEST(QuantizationOpsTest, QuantizeAndDequantizeBadInputs) {
  const Tensor x(DT_FLOAT, TensorShape({2, 3}));
  const Tensor lo = Tensor::Scalar<float>(-1), hi = Tensor::Scalar<float>(1);
  for (const char* op : {"QuantizeAndDequantizeV2", "QuantizeAndDequantizeV4"}) {
    SCOPED_TRACE(op);
    ExpectInvalid(op, {x, lo, hi}, {{"axis", MakeAttr(int64_t{2})}},
                  "axis 2 is out of range");
    ExpectInvalid(op, {x, lo, hi}, {{"axis", MakeAttr(int64_t{-2})}},
                  "axis");
    ExpectInvalid(op, {x, hi, lo}, {{"range_given", MakeAttr(true)}},
                  "input_min 1 > input_max -1");
    ExpectInvalid(op, {x, Floats({-1, -1}), Floats({1, 1})},
                  {{"range_given", MakeAttr(true)},
                   {"axis", MakeAttr(int64_t{1})}},
                  "input_min must be a vector of 3 elements");
    ExpectInvalid(op, {x, lo, hi}, {{"num_bits", MakeAttr(int64_t{0})}},
                  "num_bits");
    ExpectInvalid(op, {x, lo, hi},
                  {{"num_bits", MakeAttr(int64_t{62})},
                   {"signed_input", MakeAttr(true)}},
                  "num_bits");
  }
  ExpectInvalid("QuantizeAndDequantizeV3",
                {x, lo, hi, Tensor::Scalar<int32_t>(63)},
                {{"signed_input", MakeAttr(false)}}, "num_bits");
  ExpectInvalid("QuantizeAndDequantizeV3",
                {x, lo, hi, Tensor::FromVector<int32_t>({8})}, {},
                "num_bits must be an int32 scalar");
  ExpectInvalid("QuantizeAndDequantizeV4Grad", {x, x, lo, hi},
                {{"axis", MakeAttr(int64_t{5})}}, "axis 5 is out of range");
  ExpectInvalid("QuantizeAndDequantizeV4Grad",
                {x, x, Floats({-1, -1}), Floats({1, 1})},
                {{"axis", MakeAttr(int64_t{1})}},
                "input_min must be a vector of 3 elements");
  ExpectInvalid("QuantizeAndDequantizeV4Grad",
                {Tensor(DT_FLOAT, TensorShape({3, 2})), x, lo, hi}, {},
                "same shape");
}

// A given range with an axis: TensorFlow 2.21's V2/V4 kernels refuse every
// one ("input_min must be a scalar"); dflow quantizes per index as V3 does.
TEST(QuantizationOpsTest, GivenRangePerAxisMatchesV3) {
  const Tensor x = Tensor::FromVector<float>(
      {-1.5f, 0.3f, 0.26f, 2.0f, -0.7f, 0.01f}, TensorShape({2, 3}));
  const Tensor lo = Floats({-1, -0.5f, -2}), hi = Floats({1, 0.5f, 0.25f});
  const Attrs attrs = {{"range_given", MakeAttr(true)},
                       {"axis", MakeAttr(int64_t{1})},
                       {"num_bits", MakeAttr(int64_t{3})}};
  absl::StatusOr<std::vector<Tensor>> v4 =
      RunOpOutputs("QuantizeAndDequantizeV4", {x, lo, hi}, attrs);
  ASSERT_TRUE(v4.ok()) << v4.status();
  absl::StatusOr<std::vector<Tensor>> v3 =
      RunOpOutputs("QuantizeAndDequantizeV3",
                   {x, lo, hi, Tensor::Scalar<int32_t>(3)},
                   {{"range_given", MakeAttr(true)},
                    {"axis", MakeAttr(int64_t{1})}});
  ASSERT_TRUE(v3.ok()) << v3.status();
  // 3 signed bits: [-4, 3]. Channel 0: scale 3 (max side), range
  // [-4/3, 1]; channel 1: scale 6, [-2/3, 1/2]; channel 2: scale 2 (min
  // side), [-2, 3/2].
  const std::vector<float> want = {-4.0f / 3, 1.0f / 3,  0.5f,
                                   1.0f,      -2.0f / 3, 0.0f};
  for (int i = 0; i < 6; ++i) {
    EXPECT_EQ((*v4)[0].data<float>()[i], (*v3)[0].data<float>()[i]) << i;
    EXPECT_FLOAT_EQ((*v4)[0].data<float>()[i], want[i]) << i;
  }
}

}  // namespace
}  // namespace dflow
