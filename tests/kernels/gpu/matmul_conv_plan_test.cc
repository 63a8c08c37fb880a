// The host-side plans of the cuBLAS and cuDNN launchers, without a GPU:
//   - PlanMatMul: the column-major GEMM (swapped operands, transposes,
//     leading dimensions), run here by a column-major reference GEMM that
//     follows BLAS's definition, equals the CPU MatMul kernel;
//   - PlanConvolution: for the CPU kernels' geometries (SAME/VALID/
//     EXPLICIT, strides, dilations, groups), cuDNN's symmetric padding plus
//     the extra zeros give the CPU's output size and alignment, and the
//     plan's layouts, run here through a reference of cuDNN's legacy
//     semantics (cudnnTransformTensor as a strided copy, cross-correlation
//     with symmetric padding on KRSC filters), give the CPU kernels'
//     Conv2D, Conv2DBackpropInput and Conv2DBackpropFilter.
#include <algorithm>
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "graph/ops/ops.h"
#include "graph/scope.h"
#include "graph/tensor.h"
#include "gtest/gtest.h"
#include "kernels/gpu/conv_ops_gpu.h"
#include "kernels/gpu/matmul_gpu.h"
#include "tests/kernels/gpu/conv_test_cases.h"
#include "tests/kernels/kernel_test_util.h"
#include "tests/kernels/math_kernel_test_util.h"

namespace dflow {
namespace {

using ::testing::HasSubstr;
using testing_conv::Case;
using testing_math::AsDoubles;
using testing_math::ExpectAllNear;
using testing_math::FromDoubles;
using testing_math::RandomValues;

// --- MatMul
// -------------------------------------------------------------------

// BLAS's column-major GEMM: out[i + j * ld_out] = sum_l op1(A)[i, l] *
// op2(B)[l, j], op(X)[i, l] = X[i + l * ld] or, transposed, X[l + i * ld].
std::vector<double> ColumnMajorGemmRef(const ColumnMajorGemm& g,
                                       const std::vector<double>& first,
                                       const std::vector<double>& second) {
  std::vector<double> out(static_cast<size_t>(g.ld_out * g.cols), 0.0);
  for (int64_t j = 0; j < g.cols; ++j) {
    for (int64_t i = 0; i < g.rows; ++i) {
      double sum = 0;
      for (int64_t l = 0; l < g.depth; ++l) {
        const double a = g.transpose_first ? first[l + i * g.ld_first]
                                           : first[i + l * g.ld_first];
        const double b = g.transpose_second ? second[j + l * g.ld_second]
                                            : second[l + j * g.ld_second];
        sum += a * b;
      }
      out[i + j * g.ld_out] = sum;
    }
  }
  return out;
}

TEST(MatMulPlanTest, ColumnMajorGemmOfSwappedOperandsIsTheRowMajorProduct) {
  uint32_t seed = 1;
  for (auto [m, n, k] :
       {std::array<int64_t, 3>{1, 1, 1}, {3, 5, 7}, {8, 2, 9}, {6, 6, 1}}) {
    for (bool ta : {false, true}) {
      for (bool tb : {false, true}) {
        SCOPED_TRACE(absl::StrCat(m, "x", n, "x", k, " ta=", ta, " tb=", tb));
        GpuMatMulParams p;
        p.m = m;
        p.n = n;
        p.k = k;
        p.transpose_a = ta;
        p.transpose_b = tb;
        absl::StatusOr<ColumnMajorGemm> g = PlanMatMul(p);
        ASSERT_TRUE(g.ok()) << g.status();
        EXPECT_EQ(g->rows, n);
        EXPECT_EQ(g->cols, m);
        EXPECT_EQ(g->depth, k);
        const TensorShape a_shape =
            ta ? TensorShape({k, m}) : TensorShape({m, k});
        const TensorShape b_shape =
            tb ? TensorShape({n, k}) : TensorShape({k, n});
        const Tensor a = FromDoubles(
            DT_DOUBLE, RandomValues(a_shape.num_elements(), seed++), a_shape);
        const Tensor b = FromDoubles(
            DT_DOUBLE, RandomValues(b_shape.num_elements(), seed++), b_shape);
        Scope root = Scope::NewRootScope();
        Output product =
            ops::MatMul(root, ops::Placeholder(root, DT_DOUBLE),
                        ops::Placeholder(root, DT_DOUBLE),
                        ops::MatMulAttrs().TransposeA(ta).TransposeB(tb));
        absl::StatusOr<std::vector<Tensor>> cpu =
            RunKernel(product.node(), {a, b});
        ASSERT_TRUE(cpu.ok()) << cpu.status();
        // cuBLAS reads b's bytes as the first operand, a's as the second,
        // and writes c's bytes as the [n, m] column-major result.
        ExpectAllNear(ColumnMajorGemmRef(*g, AsDoubles(b), AsDoubles(a)),
                      AsDoubles((*cpu)[0]), 1e-12, 1e-12);
      }
    }
  }
}

TEST(MatMulPlanTest, Errors) {
  GpuMatMulParams p;
  p.m = p.n = p.k = 2;
  for (DataType bad : {DT_INT32, DT_INT64, DT_BOOL, DT_STRING}) {
    p.dtype = bad;
    absl::StatusOr<ColumnMajorGemm> g = PlanMatMul(p);
    EXPECT_EQ(g.status().code(), absl::StatusCode::kUnimplemented);
    EXPECT_THAT(std::string(g.status().message()),
                HasSubstr("place it on CPU"));
  }
  p.dtype = DT_HALF;
  EXPECT_TRUE(PlanMatMul(p).ok());
  p.n = int64_t{1} << 31;
  EXPECT_EQ(PlanMatMul(p).status().code(), absl::StatusCode::kInvalidArgument);
  p.n = -1;
  EXPECT_EQ(PlanMatMul(p).status().code(), absl::StatusCode::kInvalidArgument);
}

TEST(MatMulPlanTest, TensorFloat32IsOffByDefaultAndSettable) {
  EXPECT_FALSE(GpuTensorFloat32Enabled());
  SetGpuTensorFloat32(true);
  EXPECT_TRUE(GpuTensorFloat32Enabled());
  SetGpuTensorFloat32(false);
  EXPECT_FALSE(GpuTensorFloat32Enabled());
}

// --- Convolution
// --------------------------------------------------------------

// cudnnTransformTensor: y[layout_y(n, c, h, w)] = x[layout_x(n, c, h, w)].
void Transform(const DnnTensorLayout& xl, const double* x,
               const DnnTensorLayout& yl, double* y) {
  ASSERT_EQ(xl.n, yl.n);
  ASSERT_EQ(xl.c, yl.c);
  ASSERT_EQ(xl.h, yl.h);
  ASSERT_EQ(xl.w, yl.w);
  for (int64_t n = 0; n < xl.n; ++n)
    for (int64_t c = 0; c < xl.c; ++c)
      for (int64_t h = 0; h < xl.h; ++h)
        for (int64_t w = 0; w < xl.w; ++w)
          y[yl.Offset(n, c, h, w)] = x[xl.Offset(n, c, h, w)];
}

// cuDNN's cross-correlation on packed NHWC x (the padded input), KRSC
// filter and NHWC y, with symmetric padding and groups; `visit(xi, wi,
// yi)` sees every (input, filter, output) triple it sums.
template <typename Visit>
void CudnnConvolution(const GpuConvParams& p, const ConvDnnPlan& plan,
                      Visit visit) {
  const DnnTensorLayout& x = plan.padded_input;
  const DnnTensorLayout& w = plan.filter_krsc;
  const DnnTensorLayout& y = plan.output;
  const int64_t per_group = p.out_depth / plan.groups;
  for (int64_t n = 0; n < y.n; ++n)
    for (int64_t oh = 0; oh < y.h; ++oh)
      for (int64_t ow = 0; ow < y.w; ++ow)
        for (int64_t k = 0; k < y.c; ++k)
          for (int64_t r = 0; r < w.h; ++r)
            for (int64_t s = 0; s < w.w; ++s) {
              const int64_t ih =
                  oh * p.stride_rows - plan.pad_rows + r * p.dilation_rows;
              const int64_t iw =
                  ow * p.stride_cols - plan.pad_cols + s * p.dilation_cols;
              if (ih < 0 || ih >= x.h || iw < 0 || iw >= x.w) continue;
              for (int64_t c = 0; c < w.c; ++c) {
                const int64_t ic = k / per_group * w.c + c;
                visit(x.Offset(n, ic, ih, iw), w.Offset(k, c, r, s),
                      y.Offset(n, k, oh, ow));
              }
            }
}

class ConvPlanTest : public ::testing::TestWithParam<Case> {};

TEST_P(ConvPlanTest, PaddingAndSizesFollowTheCpuRules) {
  const Case& c = GetParam();
  absl::StatusOr<GpuConvParams> p = testing_conv::ParamsFor(c, DT_FLOAT);
  ASSERT_TRUE(p.ok()) << p.status();
  absl::StatusOr<ConvDnnPlan> plan = PlanConvolution(*p);
  ASSERT_TRUE(plan.ok()) << plan.status();
  // cuDNN's output size on the padded input with its symmetric padding.
  const int64_t eff_h = (c.kh - 1) * c.dh + 1, eff_w = (c.kw - 1) * c.dw + 1;
  EXPECT_EQ((plan->padded_input.h + 2 * plan->pad_rows - eff_h) / c.sh + 1,
            p->out_rows);
  EXPECT_EQ((plan->padded_input.w + 2 * plan->pad_cols - eff_w) / c.sw + 1,
            p->out_cols);
  // Output (0, 0) starts where the CPU's does: pad_top before the input.
  EXPECT_EQ(plan->pad_rows + plan->extra_top, p->pad_top);
  EXPECT_EQ(plan->pad_cols + plan->extra_left, p->pad_left);
  // Extra zeros only where cuDNN's symmetric padding cannot do it.
  EXPECT_EQ(std::min(plan->extra_top, plan->extra_bottom), 0);
  EXPECT_EQ(std::min(plan->extra_left, plan->extra_right), 0);
  if (c.padding == "VALID") {
    EXPECT_FALSE(plan->padded());
  }
  if (c.padding == "SAME" && c.sh == 1 && c.sw == 1 && c.kh % 2 == 1 &&
      c.kw % 2 == 1 && c.dh == 1 && c.dw == 1) {
    EXPECT_FALSE(plan->padded()) << "odd filters at stride 1 pad evenly";
  }
  EXPECT_EQ(plan->groups, c.c / c.kc);
}

TEST_P(ConvPlanTest, LayoutsComputeTheCpuKernels) {
  const Case& c = GetParam();
  absl::StatusOr<GpuConvParams> params = testing_conv::ParamsFor(c, DT_DOUBLE);
  ASSERT_TRUE(params.ok()) << params.status();
  const GpuConvParams& p = *params;
  absl::StatusOr<ConvDnnPlan> plan = PlanConvolution(p);
  ASSERT_TRUE(plan.ok()) << plan.status();
  const TensorShape y_shape({p.batch, p.out_rows, p.out_cols, p.out_depth});
  const std::vector<double> x = RandomValues(c.input_shape().num_elements(), 1);
  const std::vector<double> w =
      RandomValues(c.filter_shape().num_elements(), 2);
  const std::vector<double> dy = RandomValues(y_shape.num_elements(), 3);
  const Tensor xt = FromDoubles(DT_DOUBLE, x, c.input_shape());
  const Tensor wt = FromDoubles(DT_DOUBLE, w, c.filter_shape());
  const Tensor dyt = FromDoubles(DT_DOUBLE, dy, y_shape);

  // What the launchers enqueue, step by step.
  std::vector<double> krsc(w.size());
  Transform(plan->filter_hwio, w.data(), plan->filter_krsc, krsc.data());
  std::vector<double> padded(plan->padded_input.num_elements(), 0.0);
  Transform(plan->input, x.data(), plan->padded_interior,
            padded.data() + plan->interior_offset);

  std::vector<double> y(y_shape.num_elements(), 0.0);
  std::vector<double> dx_padded(padded.size(), 0.0);
  std::vector<double> dw_krsc(w.size(), 0.0);
  CudnnConvolution(p, *plan, [&](int64_t xi, int64_t wi, int64_t yi) {
    y[yi] += padded[xi] * krsc[wi];
    dx_padded[xi] += dy[yi] * krsc[wi];
    dw_krsc[wi] += dy[yi] * padded[xi];
  });
  std::vector<double> dx(x.size()), dw(w.size());
  Transform(plan->padded_interior, dx_padded.data() + plan->interior_offset,
            plan->input, dx.data());
  Transform(plan->filter_krsc, dw_krsc.data(), plan->filter_hwio, dw.data());

  Scope root = Scope::NewRootScope();
  auto forward =
      RunKernel(testing_conv::ForwardNode(root, DT_DOUBLE, c).node(), {xt, wt});
  auto input_grad =
      RunKernel(testing_conv::InputGradNode(root, DT_DOUBLE, c).node(),
                {testing_conv::ShapeTensor(c.input_shape()), wt, dyt});
  auto filter_grad =
      RunKernel(testing_conv::FilterGradNode(root, DT_DOUBLE, c).node(),
                {xt, testing_conv::ShapeTensor(c.filter_shape()), dyt});
  ASSERT_TRUE(forward.ok()) << forward.status();
  ASSERT_TRUE(input_grad.ok()) << input_grad.status();
  ASSERT_TRUE(filter_grad.ok()) << filter_grad.status();
  ExpectAllNear(y, AsDoubles((*forward)[0]), 1e-12, 1e-12, "Conv2D");
  ExpectAllNear(dx, AsDoubles((*input_grad)[0]), 1e-12, 1e-12,
                "Conv2DBackpropInput");
  ExpectAllNear(dw, AsDoubles((*filter_grad)[0]), 1e-12, 1e-12,
                "Conv2DBackpropFilter");
}

INSTANTIATE_TEST_SUITE_P(Cases, ConvPlanTest,
                         ::testing::ValuesIn(testing_conv::Cases()),
                         [](const ::testing::TestParamInfo<Case>& info) {
                           return info.param.name;
                         });

TEST(ConvPlanErrorsTest, InconsistentOrOversizedGeometry) {
  absl::StatusOr<GpuConvParams> p =
      testing_conv::ParamsFor(testing_conv::Cases()[1], DT_FLOAT);
  ASSERT_TRUE(p.ok());
  GpuConvParams bad = *p;
  // Fewer outputs than the input and leading padding give. (More would be
  // trailing padding, as EXPLICIT padding may give.)
  bad.out_rows -= 3;
  EXPECT_THAT(std::string(PlanConvolution(bad).status().message()),
              HasSubstr("output height 5 does not follow"));
  bad = *p;
  bad.stride_cols = 0;
  EXPECT_EQ(PlanConvolution(bad).status().code(),
            absl::StatusCode::kInvalidArgument);
  bad = *p;
  bad.filter_depth = 2;  // does not divide 3 input channels
  EXPECT_EQ(PlanConvolution(bad).status().code(),
            absl::StatusCode::kInvalidArgument);
  bad = *p;
  bad.batch = int64_t{1} << 25;  // 2^25 * 8 * 9 * 3 elements
  absl::Status s = PlanConvolution(bad).status();
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(s.message()), HasSubstr("too large for cuDNN"));
}

TEST(ConvPlanErrorsTest, AutotuneIsOnByDefaultAndSettable) {
  EXPECT_TRUE(GpuConvAutotuneEnabled());
  SetGpuConvAutotune(false);
  EXPECT_FALSE(GpuConvAutotuneEnabled());
  SetGpuConvAutotune(true);
}

}  // namespace
}  // namespace dflow
