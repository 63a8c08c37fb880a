// CheckNumerics and CheckNumericsV2 on the CPU (V2 names -Inf and +Inf
// apart: "Tensor had -Inf and NaN values"): forwards its input when every element is
// finite; else fails the step with InvalidArgument "<message> : Tensor had
// NaN values" (or "Inf values", or "Inf and NaN values"), TensorFlow's
// words; the executor puts the node's name and op in front.
#include <Eigen/Core>
#include <cmath>
#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

#include "absl/strings/str_cat.h"
#include "graph/tensor.h"
#include "graph/types.h"
#include "kernels/cpu/kernel_util.h"
#include "runtime/kernel_registry.h"
#include "runtime/op_kernel.h"

namespace dflow {
namespace {

template <typename T>
class CheckNumericsOp : public OpKernel {
 public:
  explicit CheckNumericsOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    v2_ = type_string() == "CheckNumericsV2";
    OP_REQUIRES_OK(ctx, ctx->GetAttr("message", &message_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    const EigenElement<T>* x = EigenData<T>(input);
    const int64_t n = input.NumElements();
    if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>) {
      // x * 0 is NaN exactly for NaN and +-inf, so one vectorized sum says
      // whether the tensor is finite; only a bad one is read again.
      const Eigen::Map<const Eigen::Array<T, Eigen::Dynamic, 1>> a(x, n);
      if (!std::isnan((a * T(0)).sum())) {
        ctx->set_output(0, input);
        return;
      }
    }
    bool has_nan = false, has_inf = false, has_neg_inf = false,
         has_pos_inf = false;
    for (int64_t i = 0; i < n; ++i) {
      const double v = static_cast<double>(x[i]);
      if (!std::isfinite(v)) {
        has_nan |= std::isnan(v);
        has_inf |= std::isinf(v);
        has_neg_inf |= v == -INFINITY;
        has_pos_inf |= v == INFINITY;
      }
    }
    if (v2_ && (has_nan || has_inf)) {
      // V2's words: "-Inf", "+Inf" and "NaN" in that order, joined as a
      // list ("-Inf and NaN", "-Inf, +Inf, and NaN").
      std::vector<std::string> found;
      if (has_neg_inf) found.push_back("-Inf");
      if (has_pos_inf) found.push_back("+Inf");
      if (has_nan) found.push_back("NaN");
      const std::string what =
          found.size() == 3   ? absl::StrCat(found[0], ", ", found[1],
                                             ", and ", found[2])
          : found.size() == 2 ? absl::StrCat(found[0], " and ", found[1])
                              : found[0];
      ctx->SetStatus(absl::InvalidArgumentError(
          absl::StrCat(message_, " : Tensor had ", what, " values")));
      return;
    }
    OP_REQUIRES(ctx, !has_nan && !has_inf,
                absl::InvalidArgumentError(
                    absl::StrCat(message_, " : Tensor had ",
                                 has_inf && has_nan ? "Inf and NaN"
                                 : has_inf          ? "Inf"
                                                    : "NaN",
                                 " values")));
    ctx->set_output(0, input);
  }

 private:
  std::string message_;
  bool v2_ = false;
};

#define DFLOW_REGISTER_CHECK_NUMERICS(T)                    \
  DFLOW_REGISTER_KERNEL(KernelDefBuilder("CheckNumerics")   \
                            .Device(kDeviceCpu)             \
                            .TypeConstraint<T>("T"),        \
                        CheckNumericsOp<T>);                \
  DFLOW_REGISTER_KERNEL(KernelDefBuilder("CheckNumericsV2") \
                            .Device(kDeviceCpu)             \
                            .TypeConstraint<T>("T"),        \
                        CheckNumericsOp<T>)

DFLOW_REGISTER_CHECK_NUMERICS(float16);
DFLOW_REGISTER_CHECK_NUMERICS(bfloat16);
DFLOW_REGISTER_CHECK_NUMERICS(float);
DFLOW_REGISTER_CHECK_NUMERICS(double);

#undef DFLOW_REGISTER_CHECK_NUMERICS

}  // namespace
}  // namespace dflow
