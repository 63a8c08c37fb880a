// Schemas, shape functions and wrappers of the remaining geometric image
// ops (image_ops.h), following TensorFlow 2.21's core/ops/image_ops.cc,
// nn_ops.cc and array_ops.cc: ScaleAndTranslate and its gradient,
// Dilation2D and its gradients, ExtractVolumePatches, DrawBoundingBoxes /
// V2 and the SampleDistortedBoundingBox family. The CPU kernels are
// kernels/cpu/image_ops_scale_translate.cc, image_ops_morphology.cc,
// image_ops_volume_patches.cc and image_ops_boxes.cc.
#include <algorithm>
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

using shape_fn_util::AllOutputs;
using shape_fn_util::Build;
using shape_fn_util::FirstOutput;
using shape_fn_util::InputWithRank;
using shape_fn_util::InvalidArgument;

constexpr int64_t kUnknown = TensorShape::kUnknownDim;

// [batch, size[0], size[1], channels].
absl::Status ScaleAndTranslateShape(InferenceContext* c) {
  TensorShape images, size, v;
  DFLOW_RETURN_IF_ERROR(InputWithRank(*c, 0, 4, &images));
  DFLOW_RETURN_IF_ERROR(InputWithRank(*c, 1, 1, &size));
  DFLOW_RETURN_IF_ERROR(InputWithRank(*c, 2, 1, &v));
  DFLOW_RETURN_IF_ERROR(InputWithRank(*c, 3, 1, &v));
  std::vector<int64_t> hw;
  int64_t h = kUnknown, w = kUnknown;
  if (c->ConstantInputAsInts(1, &hw) && hw.size() == 2) {
    if (hw[0] <= 0 || hw[1] <= 0) {
      return InvalidArgument("size [", hw[0], ",", hw[1], "] must be positive");
    }
    h = hw[0];
    w = hw[1];
  }
  c->set_output(0, TensorShape({images.dim(0), h, w, images.dim(3)}));
  return absl::OkStatus();
}

absl::Status ScaleAndTranslateGradShape(InferenceContext* c) {
  TensorShape grads, original, v;
  DFLOW_RETURN_IF_ERROR(InputWithRank(*c, 0, 4, &grads));
  DFLOW_RETURN_IF_ERROR(InputWithRank(*c, 1, 4, &original));
  DFLOW_RETURN_IF_ERROR(InputWithRank(*c, 2, 1, &v));
  DFLOW_RETURN_IF_ERROR(InputWithRank(*c, 3, 1, &v));
  c->set_output(0, original);
  return absl::OkStatus();
}

// One spatial dimension of a windowed op; unknown stays unknown.
absl::Status WindowedDim(int64_t in, int64_t eff, int64_t stride, bool same,
                         int64_t* out) {
  if (in == kUnknown) {
    *out = kUnknown;
  } else if (same) {
    *out = (in + stride - 1) / stride;
  } else {
    if (in < eff) {
      return InvalidArgument("the input (", in, ") is smaller than the ",
                             "window (", eff, ") with VALID padding");
    }
    *out = (in - eff) / stride + 1;
  }
  return absl::OkStatus();
}

absl::Status Dilation2DShape(InferenceContext* c) {
  TensorShape in, filter;
  DFLOW_RETURN_IF_ERROR(InputWithRank(*c, 0, 4, &in));
  DFLOW_RETURN_IF_ERROR(InputWithRank(*c, 1, 3, &filter));
  std::vector<int64_t> strides, rates;
  std::string padding;
  DFLOW_RETURN_IF_ERROR(c->GetAttr("strides", &strides));
  DFLOW_RETURN_IF_ERROR(c->GetAttr("rates", &rates));
  DFLOW_RETURN_IF_ERROR(c->GetAttr("padding", &padding));
  if (strides.size() != 4 || rates.size() != 4 || strides[1] <= 0 ||
      strides[2] <= 0 || rates[1] <= 0 || rates[2] <= 0) {
    return InvalidArgument("strides [", absl::StrJoin(strides, ","),
                           "] and rates [", absl::StrJoin(rates, ","),
                           "] must have 4 entries, positive where spatial");
  }
  int64_t depth = kUnknown;
  DFLOW_RETURN_IF_ERROR(
      c->MergeDim(in.dim(3), filter.dim(2), "depth of input and filter", &depth));
  TensorShape out({in.dim(0), kUnknown, kUnknown, depth});
  for (int i = 1; i <= 2; ++i) {
    const int64_t k = filter.dim(i - 1);
    if (k == kUnknown) continue;
    int64_t o = kUnknown, eff = 0;
    if (__builtin_mul_overflow(k - 1, rates[i] - 1, &eff) ||
        __builtin_add_overflow(eff, k, &eff)) {
      return InvalidArgument("the dilated filter of ", k, " taps at rate ",
                             rates[i], " is too large");
    }
    DFLOW_RETURN_IF_ERROR(
        WindowedDim(in.dim(i), eff, strides[i], padding == "SAME", &o));
    out.set_dim(i, o);
  }
  c->set_output(0, out);
  return absl::OkStatus();
}

// The gradients have the shape of input `which`.
absl::Status ShapeOfInput(InferenceContext* c, int which, int rank) {
  TensorShape s;
  DFLOW_RETURN_IF_ERROR(InputWithRank(*c, which, rank, &s));
  c->set_output(0, s);
  return absl::OkStatus();
}

absl::Status ExtractVolumePatchesShape(InferenceContext* c) {
  TensorShape in;
  DFLOW_RETURN_IF_ERROR(InputWithRank(*c, 0, 5, &in));
  std::vector<int64_t> ksizes, strides;
  std::string padding;
  DFLOW_RETURN_IF_ERROR(c->GetAttr("ksizes", &ksizes));
  DFLOW_RETURN_IF_ERROR(c->GetAttr("strides", &strides));
  DFLOW_RETURN_IF_ERROR(c->GetAttr("padding", &padding));
  bool ok = ksizes.size() == 5 && strides.size() == 5;
  for (size_t i = 0; ok && i < 5; ++i) ok = ksizes[i] >= 1 && strides[i] >= 1;
  if (!ok || ksizes[0] != 1 || ksizes[4] != 1 || strides[0] != 1 ||
      strides[4] != 1) {
    return InvalidArgument("ksizes [", absl::StrJoin(ksizes, ","),
                           "] and strides [", absl::StrJoin(strides, ","),
                           "] must have 5 positive entries, 1 for the batch "
                           "and depth");
  }
  TensorShape out({in.dim(0), kUnknown, kUnknown, kUnknown, kUnknown});
  for (int i = 1; i <= 3; ++i) {
    int64_t o = kUnknown;
    DFLOW_RETURN_IF_ERROR(
        WindowedDim(in.dim(i), ksizes[i], strides[i], padding == "SAME", &o));
    out.set_dim(i, o);
  }
  int64_t depth = in.dim(4);
  for (int i = 1; i <= 3 && depth != kUnknown; ++i) {
    if (__builtin_mul_overflow(depth, ksizes[i], &depth)) {
      return InvalidArgument("patches of ksizes [", absl::StrJoin(ksizes, ","),
                             "] are too large");
    }
  }
  out.set_dim(4, depth);
  c->set_output(0, out);
  return absl::OkStatus();
}

absl::Status DrawBoundingBoxesShape(InferenceContext* c) {
  TensorShape images, boxes;
  DFLOW_RETURN_IF_ERROR(InputWithRank(*c, 0, 4, &images));
  DFLOW_RETURN_IF_ERROR(InputWithRank(*c, 1, 3, &boxes));
  if (images.dim(3) != kUnknown && images.dim(3) != 1 && images.dim(3) != 3 &&
      images.dim(3) != 4) {
    return InvalidArgument("images ", images.ToString(),
                           " must have 1, 3 or 4 channels");
  }
  c->set_output(0, images);
  return absl::OkStatus();
}

// begin [3], size [3], bboxes [1, 1, 4].
absl::Status SampleDistortedShape(InferenceContext* c) {
  TensorShape size, boxes;
  DFLOW_RETURN_IF_ERROR(InputWithRank(*c, 0, 1, &size));
  DFLOW_RETURN_IF_ERROR(InputWithRank(*c, 1, 3, &boxes));
  if (size.dim(0) != kUnknown && size.dim(0) != 3) {
    return InvalidArgument("image_size ", size.ToString(),
                           " must be [height, width, channels]");
  }
  if (boxes.dim(2) != kUnknown && boxes.dim(2) != 4) {
    return InvalidArgument("bounding_boxes ", boxes.ToString(),
                           " must be [batch, num_boxes, 4]");
  }
  for (int i = 2; i < c->num_inputs(); ++i) {
    TensorShape s;
    DFLOW_RETURN_IF_ERROR(InputWithRank(*c, i, i == 3 ? 1 : 0, &s));
  }
  c->set_output(0, TensorShape({3}));
  c->set_output(1, TensorShape({3}));
  c->set_output(2, TensorShape({1, 1, 4}));
  return absl::OkStatus();
}

constexpr char kRealTypes[] =
    "T: {float, double, int32, uint8, int16, int8, int64, bfloat16, uint16, "
    "half, uint32, uint64}";

}  // namespace

DFLOW_REGISTER_OP("ScaleAndTranslate")
    .Input("images: T")
    .Input("size: int32")
    .Input("scale: float")
    .Input("translation: float")
    .Output("resized_images: float")
    .Attr(
        "T: {int8, uint8, int16, uint16, int32, int64, bfloat16, half, float, "
        "double}")
    .Attr("kernel_type: string = 'lanczos3'")
    .Attr("antialias: bool = true")
    .SetShapeFn(ScaleAndTranslateShape)
    .Doc(
        "Resamples images to `size` under a scale and translation with a "
        "filter kernel (tf.image.resize's lanczos, gaussian, mitchellcubic "
        "and antialiased methods).");

DFLOW_REGISTER_OP("ScaleAndTranslateGrad")
    .Input("grads: T")
    .Input("original_image: T")
    .Input("scale: float")
    .Input("translation: float")
    .Output("output: T")
    .Attr("T: {float}")
    .Attr("kernel_type: string = 'lanczos3'")
    .Attr("antialias: bool = true")
    .SetShapeFn(ScaleAndTranslateGradShape)
    .Doc("ScaleAndTranslate's gradient with respect to its images.");

DFLOW_REGISTER_OP("Dilation2D")
    .Input("input: T")
    .Input("filter: T")
    .Output("output: T")
    .Attr(kRealTypes)
    .Attr("strides: list(int) >= 4")
    .Attr("rates: list(int) >= 4")
    .Attr("padding: {'SAME', 'VALID'}")
    .SetShapeFn(Dilation2DShape)
    .Doc("Grayscale morphological dilation: max over the window of x + filter.");

DFLOW_REGISTER_OP("Dilation2DBackpropInput")
    .Input("input: T")
    .Input("filter: T")
    .Input("out_backprop: T")
    .Output("in_backprop: T")
    .Attr(kRealTypes)
    .Attr("strides: list(int) >= 4")
    .Attr("rates: list(int) >= 4")
    .Attr("padding: {'SAME', 'VALID'}")
    .SetShapeFn([](InferenceContext* c) { return ShapeOfInput(c, 0, 4); })
    .Doc("Dilation2D's gradient with respect to its input.");

DFLOW_REGISTER_OP("Dilation2DBackpropFilter")
    .Input("input: T")
    .Input("filter: T")
    .Input("out_backprop: T")
    .Output("filter_backprop: T")
    .Attr(kRealTypes)
    .Attr("strides: list(int) >= 4")
    .Attr("rates: list(int) >= 4")
    .Attr("padding: {'SAME', 'VALID'}")
    .SetShapeFn([](InferenceContext* c) { return ShapeOfInput(c, 1, 3); })
    .Doc("Dilation2D's gradient with respect to its filter.");

DFLOW_REGISTER_OP("ExtractVolumePatches")
    .Input("input: T")
    .Output("patches: T")
    .Attr("ksizes: list(int) >= 5")
    .Attr("strides: list(int) >= 5")
    .Attr(kRealTypes)
    .Attr("padding: {'SAME', 'VALID'}")
    .SetShapeFn(ExtractVolumePatchesShape)
    .Doc("The 3-D patches of NDHWC volumes, flattened into the depth.");

DFLOW_REGISTER_OP("DrawBoundingBoxes")
    .Input("images: T")
    .Input("boxes: float")
    .Output("output: T")
    .Attr("T: {float, half} = float")
    .SetShapeFn(DrawBoundingBoxesShape)
    .Doc("Outlines boxes on images in TensorFlow's default colors.");

DFLOW_REGISTER_OP("DrawBoundingBoxesV2")
    .Input("images: T")
    .Input("boxes: float")
    .Input("colors: float")
    .Output("output: T")
    .Attr("T: {float, half} = float")
    .SetShapeFn(DrawBoundingBoxesShape)
    .Doc("Outlines boxes on images in the given colors.");

DFLOW_REGISTER_OP("SampleDistortedBoundingBox")
    .Input("image_size: T")
    .Input("bounding_boxes: float")
    .Output("begin: T")
    .Output("size: T")
    .Output("bboxes: float")
    .Attr("T: {uint8, int8, int16, int32, int64}")
    .Attr("seed: int = 0")
    .Attr("seed2: int = 0")
    .Attr("min_object_covered: float = 0.1")
    .Attr("aspect_ratio_range: list(float) = [0.75, 1.33]")
    .Attr("area_range: list(float) = [0.05, 1]")
    .Attr("max_attempts: int = 100")
    .Attr("use_image_if_no_bounding_boxes: bool = false")
    .SetIsStateful()
    .SetShapeFn(SampleDistortedShape)
    .Doc(
        "A random crop covering enough of a bounding box (Inception "
        "preprocessing): Slice's begin and size, and the crop as a box.");

DFLOW_REGISTER_OP("SampleDistortedBoundingBoxV2")
    .Input("image_size: T")
    .Input("bounding_boxes: float")
    .Input("min_object_covered: float")
    .Output("begin: T")
    .Output("size: T")
    .Output("bboxes: float")
    .Attr("T: {uint8, int8, int16, int32, int64}")
    .Attr("seed: int = 0")
    .Attr("seed2: int = 0")
    .Attr("aspect_ratio_range: list(float) = [0.75, 1.33]")
    .Attr("area_range: list(float) = [0.05, 1]")
    .Attr("max_attempts: int = 100")
    .Attr("use_image_if_no_bounding_boxes: bool = false")
    .SetIsStateful()
    .SetShapeFn(SampleDistortedShape)
    .Doc("SampleDistortedBoundingBox with min_object_covered as an input.");

DFLOW_REGISTER_OP("StatelessSampleDistortedBoundingBox")
    .Input("image_size: T")
    .Input("bounding_boxes: float")
    .Input("min_object_covered: float")
    .Input("seed: Tseed")
    .Output("begin: T")
    .Output("size: T")
    .Output("bboxes: float")
    .Attr("T: {uint8, int8, int16, int32, int64}")
    .Attr("Tseed: {int32, int64}")
    .Attr("aspect_ratio_range: list(float) = [0.75, 1.33]")
    .Attr("area_range: list(float) = [0.05, 1]")
    .Attr("max_attempts: int = 100")
    .Attr("use_image_if_no_bounding_boxes: bool = false")
    .SetShapeFn(SampleDistortedShape)
    .Doc("SampleDistortedBoundingBoxV2 as a pure function of a [2] seed.");

namespace ops {

Output ScaleAndTranslate(const Scope& scope, Input images, Input size,
                         Input scale, Input translation,
                         const std::string& kernel_type, bool antialias) {
  return FirstOutput(Build(scope, "ScaleAndTranslate",
                           {images, size, scale, translation},
                           {{"kernel_type", MakeAttr(kernel_type)},
                            {"antialias", MakeAttr(antialias)}}));
}

Output ScaleAndTranslateGrad(const Scope& scope, Input grads,
                             Input original_image, Input scale,
                             Input translation, const std::string& kernel_type,
                             bool antialias) {
  return FirstOutput(Build(scope, "ScaleAndTranslateGrad",
                           {grads, original_image, scale, translation},
                           {{"kernel_type", MakeAttr(kernel_type)},
                            {"antialias", MakeAttr(antialias)}}));
}

namespace {

shape_fn_util::AttrList DilationAttrs(const std::vector<int64_t>& strides,
                                      const std::vector<int64_t>& rates,
                                      const std::string& padding) {
  return {{"strides", MakeAttr(absl::MakeConstSpan(strides))},
          {"rates", MakeAttr(absl::MakeConstSpan(rates))},
          {"padding", MakeAttr(padding)}};
}

}  // namespace

Output Dilation2D(const Scope& scope, Input input, Input filter,
                  const std::vector<int64_t>& strides,
                  const std::vector<int64_t>& rates,
                  const std::string& padding) {
  return FirstOutput(Build(scope, "Dilation2D", {input, filter},
                           DilationAttrs(strides, rates, padding)));
}

Output Dilation2DBackpropInput(const Scope& scope, Input input, Input filter,
                               Input out_backprop,
                               const std::vector<int64_t>& strides,
                               const std::vector<int64_t>& rates,
                               const std::string& padding) {
  return FirstOutput(Build(scope, "Dilation2DBackpropInput",
                           {input, filter, out_backprop},
                           DilationAttrs(strides, rates, padding)));
}

Output Dilation2DBackpropFilter(const Scope& scope, Input input, Input filter,
                                Input out_backprop,
                                const std::vector<int64_t>& strides,
                                const std::vector<int64_t>& rates,
                                const std::string& padding) {
  return FirstOutput(Build(scope, "Dilation2DBackpropFilter",
                           {input, filter, out_backprop},
                           DilationAttrs(strides, rates, padding)));
}

Output ExtractVolumePatches(const Scope& scope, Input input,
                            const std::vector<int64_t>& ksizes,
                            const std::vector<int64_t>& strides,
                            const std::string& padding) {
  return FirstOutput(Build(scope, "ExtractVolumePatches", {input},
                           {{"ksizes", MakeAttr(absl::MakeConstSpan(ksizes))},
                            {"strides", MakeAttr(absl::MakeConstSpan(strides))},
                            {"padding", MakeAttr(padding)}}));
}

Output DrawBoundingBoxes(const Scope& scope, Input images, Input boxes) {
  return FirstOutput(Build(scope, "DrawBoundingBoxes", {images, boxes}));
}

Output DrawBoundingBoxesV2(const Scope& scope, Input images, Input boxes,
                           Input colors) {
  return FirstOutput(
      Build(scope, "DrawBoundingBoxesV2", {images, boxes, colors}));
}

namespace {

shape_fn_util::AttrList SampleAttrs(const SampleDistortedAttrs& a) {
  return {{"aspect_ratio_range", MakeAttr(absl::MakeConstSpan(a.aspect_ratio_range))},
          {"area_range", MakeAttr(absl::MakeConstSpan(a.area_range))},
          {"max_attempts", MakeAttr(int64_t{a.max_attempts})},
          {"use_image_if_no_bounding_boxes",
           MakeAttr(a.use_image_if_no_bounding_boxes)}};
}

}  // namespace

OutputList SampleDistortedBoundingBox(const Scope& scope, Input image_size,
                                      Input bounding_boxes,
                                      const SampleDistortedAttrs& attrs) {
  shape_fn_util::AttrList list = SampleAttrs(attrs);
  list.push_back({"seed", MakeAttr(attrs.seed)});
  list.push_back({"seed2", MakeAttr(attrs.seed2)});
  list.push_back({"min_object_covered", MakeAttr(attrs.min_object_covered)});
  return AllOutputs(Build(scope, "SampleDistortedBoundingBox",
                          {image_size, bounding_boxes}, list),
                    3);
}

OutputList SampleDistortedBoundingBoxV2(const Scope& scope, Input image_size,
                                        Input bounding_boxes,
                                        Input min_object_covered,
                                        const SampleDistortedAttrs& attrs) {
  shape_fn_util::AttrList list = SampleAttrs(attrs);
  list.push_back({"seed", MakeAttr(attrs.seed)});
  list.push_back({"seed2", MakeAttr(attrs.seed2)});
  return AllOutputs(Build(scope, "SampleDistortedBoundingBoxV2",
                          {image_size, bounding_boxes, min_object_covered},
                          list),
                    3);
}

OutputList StatelessSampleDistortedBoundingBox(
    const Scope& scope, Input image_size, Input bounding_boxes,
    Input min_object_covered, Input seed, const SampleDistortedAttrs& attrs) {
  return AllOutputs(
      Build(scope, "StatelessSampleDistortedBoundingBox",
            {image_size, bounding_boxes, min_object_covered, seed},
            SampleAttrs(attrs)),
      3);
}

}  // namespace ops
}  // namespace dflow
