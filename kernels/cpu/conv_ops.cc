// Conv2D on CPU, and the attr and shape checks its gradient kernels share
// (conv_ops_backprop.cc). The arithmetic is in conv_ops_core.cc.
#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "graph/tensor.h"
#include "graph/types.h"
#include "kernels/cpu/conv_ops_common.h"
#include "kernels/cpu/kernel_util_window.h"
#include "runtime/kernel_registry.h"
#include "runtime/op_kernel.h"

namespace dflow {
namespace conv {

ConvOpBase::ConvOpBase(OpKernelConstruction* ctx) : OpKernel(ctx) {
  absl::Status s = window::RequireNhwc(*ctx);
  if (s.ok()) s = window::GetWindowAttr(*ctx, "strides", false, &strides_);
  if (s.ok()) {
    s = window::GetWindowAttr(*ctx, "dilations", false, &dilations_);
  }
  if (s.ok()) s = window::GetPadding(*ctx, /*has_explicit=*/true, &padding_);
  ctx->SetStatus(s);
}

absl::Status ConvOpBase::ComputeGeometry(const TensorShape& input,
                                         const TensorShape& filter,
                                         ConvGeometry* g) const {
  g->batch = input.dim(0);
  g->in_rows = input.dim(1);
  g->in_cols = input.dim(2);
  g->in_depth = input.dim(3);
  g->filter_rows = filter.dim(0);
  g->filter_cols = filter.dim(1);
  g->filter_depth = filter.dim(2);
  g->out_depth = filter.dim(3);
  auto what = [&] {
    return absl::StrCat("input ", input.ToString(), " (NHWC) and filter ",
                        filter.ToString());
  };
  if (g->filter_depth == 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        what(), ": the filter has 0 input channels (dimension 2)"));
  }
  // 0 channels pass the divisibility check below but make 0 groups, which
  // the kernels divide by.
  if (g->in_depth == 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        what(), ": the input has 0 channels; a convolution needs at least ",
        "one input channel (the filter expects ", g->filter_depth, ")"));
  }
  if (g->in_depth % g->filter_depth != 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        what(), ": the input has ", g->in_depth, " channels but the filter ",
        "expects ", g->filter_depth, " (filter dimension 2); they must be ",
        "equal (or, for a grouped convolution, the input channels a "
        "multiple)"));
  }
  g->groups = g->in_depth / g->filter_depth;
  if (g->groups > 1 && g->out_depth % g->groups != 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        what(), ": a grouped convolution with ", g->groups, " groups needs ",
        "out_channels (", g->out_depth, ", filter dimension 3) to be a ",
        "multiple of ", g->groups));
  }
  g->stride_rows = strides_[window::kRowDim];
  g->stride_cols = strides_[window::kColDim];
  g->dilation_rows = dilations_[window::kRowDim];
  g->dilation_cols = dilations_[window::kColDim];
  window::WindowDim rows, cols;
  absl::Status s =
      window::ComputeWindow(g->in_rows, g->filter_rows, g->dilation_rows,
                            g->stride_rows, padding_, 0, &rows);
  if (s.ok()) {
    s = window::ComputeWindow(g->in_cols, g->filter_cols, g->dilation_cols,
                              g->stride_cols, padding_, 1, &cols);
  }
  if (!s.ok()) {
    return absl::InvalidArgumentError(absl::StrCat(what(), ": ", s.message()));
  }
  g->out_rows = rows.out;
  g->out_cols = cols.out;
  g->pad_top = rows.pad_before;
  g->pad_left = cols.pad_before;
  // BLAS takes int sizes: a patch (a GEMM dimension) must fit.
  const __int128 patch =
      static_cast<__int128>(g->filter_rows) * g->filter_cols * g->filter_depth;
  if (patch > INT32_MAX || g->out_depth > INT32_MAX ||
      g->in_depth > INT32_MAX) {
    return absl::InvalidArgumentError(absl::StrCat(
        what(), ": a filter patch (rows * cols * in_channels) and the channel ",
        "counts must be below 2^31"));
  }
  return absl::OkStatus();
}

absl::Status ReadShapeInput(const Tensor& t, const char* name, int expected,
                            int alternative, std::vector<int64_t>* dims) {
  const int64_t n = t.NumElements();
  if (t.dtype() != DT_INT32 || t.shape().rank() != 1 ||
      (n != expected && (alternative <= 0 || n != alternative))) {
    return absl::InvalidArgumentError(absl::StrCat(
        name, " must be an int32 vector of ", expected,
        alternative > 0 ? absl::StrCat(" (or ", alternative, ")") : "",
        " sizes, got ", DataTypeName(t.dtype()), " ", t.shape().ToString()));
  }
  dims->assign(t.data<int32_t>(), t.data<int32_t>() + n);
  for (int64_t i = 0; i < n; ++i) {
    if ((*dims)[i] < 0) {
      return absl::InvalidArgumentError(absl::StrCat(
          name, "[", i, "] is ", (*dims)[i], " but sizes must be >= 0"));
    }
  }
  return absl::OkStatus();
}

absl::Status CheckRank4(const Tensor& t, const char* name, const char* layout) {
  if (t.shape().rank() == 4) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrCat(
      name, " must be 4-D ", layout, ", got shape ", t.shape().ToString()));
}

namespace {

template <typename T>
class Conv2DOp : public ConvOpBase {
 public:
  using ConvOpBase::ConvOpBase;

  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    const Tensor& filter = ctx->input(1);
    OP_REQUIRES_OK(ctx, CheckRank4(input, "input", kImageLayout));
    OP_REQUIRES_OK(ctx, CheckRank4(filter, "filter", kFilterLayout));
    ConvGeometry g;
    OP_REQUIRES_OK(ctx, ComputeGeometry(input.shape(), filter.shape(), &g));
    Tensor* output = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, g.output_shape(), &output));
    if (output->NumElements() == 0) return;
    using C = typename ComputeType<T>::type;
    Tensor input_holder, filter_holder, output_holder;
    const C* in = nullptr;
    const C* w = nullptr;
    C* out = nullptr;
    OP_REQUIRES_OK(ctx, ComputeInput<T>(ctx, input, &input_holder, &in));
    OP_REQUIRES_OK(ctx, ComputeInput<T>(ctx, filter, &filter_holder, &w));
    OP_REQUIRES_OK(ctx, ComputeOutput<T>(ctx, output, &output_holder, &out));
    ConvForward<C>(ctx, g, in, w, out);
    if (ctx->status().ok()) FinishOutput<T>(output_holder, output);
  }
};

#define DFLOW_REGISTER_CONV2D(T)                                            \
  DFLOW_REGISTER_KERNEL(                                                    \
      KernelDefBuilder("Conv2D").Device(kDeviceCpu).TypeConstraint<T>("T"), \
      Conv2DOp<T>)

DFLOW_REGISTER_CONV2D(float);
DFLOW_REGISTER_CONV2D(double);
DFLOW_REGISTER_CONV2D(int32_t);
DFLOW_REGISTER_CONV2D(float16);
DFLOW_REGISTER_CONV2D(bfloat16);

#undef DFLOW_REGISTER_CONV2D

}  // namespace
}  // namespace conv
}  // namespace dflow
