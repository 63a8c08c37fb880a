// TF1's image, audio and tensor summaries on the CPU (TensorFlow's
// summary_image_op.cc, summary_audio_op.cc, summary_tensor_op.cc): each
// writes a serialized Summary into a DT_STRING scalar. Images are PNGs
// (libpng, zlib's default compression) of uint8 pixels, float/half/double
// images scaled as TensorFlow scales them; clips are 16-bit WAVs; a tensor
// summary holds the tensor (numbers in tensor_content) and, for
// TensorSummaryV2, the plugin metadata tf.summary.text and TensorBoard's
// plugins write.
#include <cstdint>
#include <string>

#include "absl/strings/str_cat.h"
#include "graph/tensor.h"
#include "graph/types.h"
#include "kernels/cpu/summary_ops_util.h"
#include "proto/summary.pb.h"
#include "runtime/kernel_registry.h"
#include "runtime/op_kernel.h"

namespace dflow {
namespace {

// TensorFlow's IsLegacyScalar: a scalar, or a vector of one.
bool IsLegacyScalar(const TensorShape& s) {
  return s.rank() == 0 || (s.rank() == 1 && s.dim(0) == 1);
}

class ImageSummaryOp : public OpKernel {
 public:
  explicit ImageSummaryOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("max_images", &max_images_));
    OP_REQUIRES(ctx, max_images_ >= 1 && max_images_ < (int64_t{1} << 31),
                absl::InvalidArgumentError(absl::StrCat(
                    "max_images must be in [1, 2^31), got ", max_images_)));
    const AttrValue* color = ctx->node().FindAttr("bad_color");
    if (color == nullptr) {  // the OpDef's default: opaque red
      bad_color_ = Tensor::FromVector<uint8_t>({255, 0, 0, 255});
    } else {
      absl::StatusOr<Tensor> t = Tensor::FromProto(color->tensor());
      OP_REQUIRES_OK(ctx, t.status());
      bad_color_ = *std::move(t);
    }
    OP_REQUIRES(ctx, bad_color_.dtype() == DT_UINT8,
                absl::InvalidArgumentError(
                    absl::StrCat("bad_color must be uint8, got ",
                                 DataTypeName(bad_color_.dtype()))));
    OP_REQUIRES(ctx, bad_color_.shape().rank() == 1,
                absl::InvalidArgumentError(
                    absl::StrCat("bad_color must be a vector, got shape ",
                                 bad_color_.shape().ToString())));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& tag = ctx->input(0);
    OP_REQUIRES(ctx, IsLegacyScalar(tag.shape()),
                absl::InvalidArgumentError(absl::StrCat(
                    "Tags must be a scalar, got shape ",
                    tag.shape().ToString())));
    Summary s;
    OP_REQUIRES_OK(ctx, summary_util::AddImages(
                            ctx->input(1), *tag.data<std::string>(),
                            max_images_, bad_color_, &s));
    OP_REQUIRES_OK(ctx, summary_util::SetSummaryOutput(ctx, s));
  }

 private:
  int64_t max_images_ = 3;
  Tensor bad_color_;
};

// AudioSummaryV2 (the rate an input) and AudioSummary (an attr).
class AudioSummaryOp : public OpKernel {
 public:
  explicit AudioSummaryOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("max_outputs", &max_outputs_));
    OP_REQUIRES(ctx, max_outputs_ > 0,
                absl::InvalidArgumentError(absl::StrCat(
                    "max_outputs must be > 0, got ", max_outputs_)));
    has_rate_attr_ = ctx->GetAttr("sample_rate", &rate_attr_).ok();
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& tag = ctx->input(0);
    OP_REQUIRES(ctx, IsLegacyScalar(tag.shape()),
                absl::InvalidArgumentError(absl::StrCat(
                    "Tag must be a scalar, got shape ",
                    tag.shape().ToString())));
    float rate = rate_attr_;
    if (!has_rate_attr_) {
      const Tensor& r = ctx->input(2);
      OP_REQUIRES(ctx, r.NumElements() == 1,
                  absl::InvalidArgumentError(absl::StrCat(
                      "sample_rate must be a scalar, got shape ",
                      r.shape().ToString())));
      rate = r.data<float>()[0];
    }
    Summary s;
    OP_REQUIRES_OK(ctx,
                   summary_util::AddAudio(ctx->input(1),
                                          *tag.data<std::string>(),
                                          max_outputs_, rate, &s));
    OP_REQUIRES_OK(ctx, summary_util::SetSummaryOutput(ctx, s));
  }

 private:
  int64_t max_outputs_ = 3;
  bool has_rate_attr_ = false;
  float rate_attr_ = 0;
};

class TensorSummaryV2Op : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    const Tensor& tag = ctx->input(0);
    const Tensor& metadata = ctx->input(2);
    OP_REQUIRES(ctx, tag.shape().rank() == 0,
                absl::InvalidArgumentError(absl::StrCat(
                    "tag must be scalar, got shape ", tag.shape().ToString())));
    OP_REQUIRES(ctx, metadata.shape().rank() == 0,
                absl::InvalidArgumentError(absl::StrCat(
                    "serialized_summary_metadata must be scalar, got shape ",
                    metadata.shape().ToString())));
    Summary s;
    Summary::Value* v = s.add_value();
    v->set_tag(*tag.data<std::string>());
    summary_util::TensorToSummaryProto(ctx->input(1), v->mutable_tensor());
    // TensorFlow ignores metadata that does not parse (it keeps what did).
    const bool parsed =
        v->mutable_metadata()->ParseFromString(*metadata.data<std::string>());
    (void)parsed;
    OP_REQUIRES_OK(ctx, summary_util::SetSummaryOutput(ctx, s));
  }
};

class TensorSummaryOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    Summary s;
    Summary::Value* v = s.add_value();
    v->set_node_name(name());
    summary_util::TensorToSummaryProto(ctx->input(0), v->mutable_tensor());
    OP_REQUIRES_OK(ctx, summary_util::SetSummaryOutput(ctx, s));
  }
};

DFLOW_REGISTER_KERNEL(KernelDefBuilder("ImageSummary")
                          .Device(kDeviceCpu)
                          .TypeConstraint("T", {DT_UINT8, DT_FLOAT, DT_HALF,
                                                DT_DOUBLE}),
                      ImageSummaryOp);
DFLOW_REGISTER_KERNEL(KernelDefBuilder("AudioSummaryV2").Device(kDeviceCpu),
                      AudioSummaryOp);
DFLOW_REGISTER_KERNEL(KernelDefBuilder("AudioSummary").Device(kDeviceCpu),
                      AudioSummaryOp);
DFLOW_REGISTER_KERNEL(KernelDefBuilder("TensorSummaryV2").Device(kDeviceCpu),
                      TensorSummaryV2Op);
DFLOW_REGISTER_KERNEL(KernelDefBuilder("TensorSummary").Device(kDeviceCpu),
                      TensorSummaryOp);

}  // namespace
}  // namespace dflow
