// Schema, shape function and wrapper of ExtractImagePatches (image_ops.h),
// following TensorFlow 2.21's core/ops/array_ops.cc. The CPU kernel is
// kernels/cpu/image_ops_patches.cc.
#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_join.h"
#include "graph/attr_value_util.h"
#include "graph/op_registry.h"
#include "graph/ops/image_ops.h"
#include "graph/ops/shape_fn_util.h"
#include "graph/shape_inference.h"
#include "graph/tensor_shape.h"

namespace dflow {
namespace {

using shape_fn_util::Build;
using shape_fn_util::FirstOutput;
using shape_fn_util::InputWithRank;
using shape_fn_util::InvalidArgument;

constexpr int64_t kUnknown = TensorShape::kUnknownDim;

// [batch, out_rows, out_cols, ksize_rows * ksize_cols * depth].
absl::Status ExtractImagePatchesShape(InferenceContext* c) {
  std::vector<int64_t> ksizes, strides, rates;
  std::string padding;
  DFLOW_RETURN_IF_ERROR(c->GetAttr("ksizes", &ksizes));
  DFLOW_RETURN_IF_ERROR(c->GetAttr("strides", &strides));
  DFLOW_RETURN_IF_ERROR(c->GetAttr("rates", &rates));
  DFLOW_RETURN_IF_ERROR(c->GetAttr("padding", &padding));
  bool ok = ksizes.size() == 4 && strides.size() == 4 && rates.size() == 4;
  for (size_t i = 0; ok && i < 4; ++i) {
    ok = ksizes[i] >= 1 && strides[i] >= 1 && rates[i] >= 1;
  }
  ok = ok && ksizes[0] == 1 && ksizes[3] == 1 && strides[0] == 1 &&
       strides[3] == 1 && rates[0] == 1 && rates[3] == 1;
  if (!ok) {
    return InvalidArgument("ksizes [", absl::StrJoin(ksizes, ","),
                           "], strides [", absl::StrJoin(strides, ","),
                           "] and rates [", absl::StrJoin(rates, ","),
                           "] must have 4 positive entries, 1 for the batch "
                           "and depth");
  }
  TensorShape in;
  DFLOW_RETURN_IF_ERROR(InputWithRank(*c, 0, 4, &in));
  TensorShape out({in.dim(0), kUnknown, kUnknown, kUnknown});
  if (in.dim(3) != kUnknown) out.set_dim(3, in.dim(3) * ksizes[1] * ksizes[2]);
  for (int i = 1; i <= 2; ++i) {
    const int64_t v = in.dim(i);
    if (v == kUnknown) continue;
    const int64_t span = (ksizes[i] - 1) * rates[i] + 1;
    if (padding == "SAME") {
      out.set_dim(i, (v + strides[i] - 1) / strides[i]);
    } else if (v < span) {
      return InvalidArgument("images ", in.ToString(), " are smaller than ",
                             "the dilated patch (", span, ") in dimension ", i,
                             " with VALID padding");
    } else {
      out.set_dim(i, (v - span) / strides[i] + 1);
    }
  }
  c->set_output(0, out);
  return absl::OkStatus();
}

}  // namespace

DFLOW_REGISTER_OP("ExtractImagePatches")
    .Input("images: T")
    .Output("patches: T")
    .Attr("ksizes: list(int) >= 4")
    .Attr("strides: list(int) >= 4")
    .Attr("rates: list(int) >= 4")
    .Attr(
        "T: {bfloat16, half, float, double, int8, int16, int32, int64, "
        "uint8, uint16, uint32, uint64, complex64, complex128, bool}")
    .Attr("padding: {'SAME', 'VALID'}")
    .SetShapeFn(ExtractImagePatchesShape)
    .Doc(
        "The ksizes patches (dilated by rates, every strides) of NHWC "
        "images, each flattened into the depth.");

namespace ops {

Output ExtractImagePatches(const Scope& scope, Input images,
                           const std::vector<int64_t>& ksizes,
                           const std::vector<int64_t>& strides,
                           const std::vector<int64_t>& rates,
                           const std::string& padding) {
  return FirstOutput(Build(scope, "ExtractImagePatches", {images},
                           {{"ksizes", MakeAttr(ksizes)},
                            {"strides", MakeAttr(strides)},
                            {"rates", MakeAttr(rates)},
                            {"padding", MakeAttr(padding)}}));
}

}  // namespace ops
}  // namespace dflow
