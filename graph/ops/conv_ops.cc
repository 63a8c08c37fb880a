// Schemas and shape functions of the 2-D convolution, pooling and local
// response normalization ops (their builder wrappers are
// conv_ops_builders.cc). Shape functions follow
// TensorFlow's (common_shape_fns.cc) and add the consistency checks
// TensorFlow's kernels only make at run time (gradient shapes against their
// forward op) when every size involved is known.
#include "graph/ops/conv_ops.h"

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/string_view.h"
#include "graph/attr_value_util.h"
#include "graph/op_registry.h"
#include "graph/ops/shape_fn_util.h"
#include "graph/shape_inference.h"
#include "graph/tensor_shape.h"

namespace dflow {
namespace {

template <typename... Args>
absl::Status InvalidArg(const Args&... args) {
  return absl::InvalidArgumentError(absl::StrCat(args...));
}

constexpr int64_t kUnknown = TensorShape::kUnknownDim;

std::string ListStr(const std::vector<int64_t>& v) {
  return absl::StrCat("[", absl::StrJoin(v, ","), "]");
}

absl::Status Prefixed(const absl::Status& s, absl::string_view prefix) {
  if (s.ok()) return s;
  return absl::Status(s.code(), absl::StrCat(prefix, s.message()));
}

using shape_fn_util::InputWithRank;
using shape_fn_util::SameShapeInputs;

// Input `i` is an int32 vector holding a 4-D shape (filter_sizes,
// orig_input_shape): what is known of that shape.
absl::Status ShapeInput4(const InferenceContext& c, int i, TensorShape* out) {
  const std::string& name = c.op_def().input_arg(i).name();
  TensorShape v;
  DFLOW_RETURN_IF_ERROR(InputWithRank(c, i, 1, &v));
  if (v.dim(0) >= 0 && v.dim(0) != 4) {
    return InvalidArg("input '", name, "' has shape ", v.ToString(),
                      " but must hold the 4 sizes of a shape");
  }
  DFLOW_RETURN_IF_ERROR(c.ShapeFromShapeTensor(i, out));
  return c.WithRank(*out, 4, absl::StrCat("input '", name, "'"), out);
}

// --- Image layouts, window attrs, padding. ---

// Where each dimension of an image tensor is. The 4-entry attr lists
// (strides, ksize, dilations, explicit_paddings pairs) use the same indices.
struct ImageLayout {
  std::string name;
  int rank = 4, n = 0, h = 1, w = 2, c = 3;
  int vect = -1;  // NCHW_VECT_C: the inner channel dimension
};

absl::Status GetLayout(const InferenceContext& c, ImageLayout* l) {
  DFLOW_RETURN_IF_ERROR(c.GetAttr("data_format", &l->name));
  if (l->name == "NHWC") return absl::OkStatus();
  if (l->name != "NCHW" && l->name != "NCHW_VECT_C") {
    return InvalidArg("data_format '", l->name, "' is not NHWC or NCHW");
  }
  l->c = 1;
  l->h = 2;
  l->w = 3;
  if (l->name == "NCHW_VECT_C") {
    l->rank = 5;
    l->vect = 4;
  }
  return absl::OkStatus();
}

TensorShape MakeImageShape(const ImageLayout& l, int64_t n, int64_t h,
                           int64_t w, int64_t ch, int64_t vect = kUnknown) {
  TensorShape s = TensorShape::UnknownWithRank(l.rank);
  s.set_dim(l.n, n);
  s.set_dim(l.h, h);
  s.set_dim(l.w, w);
  s.set_dim(l.c, ch);
  if (l.vect >= 0) s.set_dim(l.vect, vect);
  return s;
}

// Reads a window attr (strides, ksize, dilations): 4 entries in [1, 2^31),
// 1 for the batch and (unless `allow_channel`) the channel dimension.
absl::Status GetWindowAttr(const InferenceContext& c, absl::string_view name,
                           const ImageLayout& l, bool allow_channel,
                           std::vector<int64_t>* v) {
  DFLOW_RETURN_IF_ERROR(c.GetAttr(name, v));
  bool ok = v->size() == 4;
  for (int64_t x : *v) ok = ok && x >= 1 && x <= INT32_MAX;
  if (!ok) {
    return InvalidArg("attr '", name, "' is ", ListStr(*v), " but must have ",
                      "4 entries in [1, 2^31), one per dimension in ", l.name,
                      " order");
  }
  if ((*v)[l.n] != 1 || (!allow_channel && (*v)[l.c] != 1)) {
    return InvalidArg("attr '", name, "' is ", ListStr(*v), " but its batch",
                      allow_channel ? "" : " and channel",
                      " entries must be 1 (", l.name, " order)");
  }
  return absl::OkStatus();
}

enum class Padding { kSame, kValid, kExplicit };

struct PaddingSpec {
  Padding type = Padding::kValid;
  std::string name;
  // (before, after) per dimension, indexed like the layout's attr lists.
  int64_t before[4] = {0, 0, 0, 0}, after[4] = {0, 0, 0, 0};
};

// Reads `padding` and, for ops that have it, `explicit_paddings`, with
// TensorFlow's rules: 8 non-negative values with zero batch and channel
// padding under EXPLICIT, none otherwise.
absl::Status GetPadding(const InferenceContext& c, const ImageLayout& l,
                        bool has_explicit, PaddingSpec* p) {
  DFLOW_RETURN_IF_ERROR(c.GetAttr("padding", &p->name));
  if (p->name == "SAME") {
    p->type = Padding::kSame;
  } else if (p->name == "VALID") {
    p->type = Padding::kValid;
  } else if (p->name == "EXPLICIT" && has_explicit) {
    p->type = Padding::kExplicit;
  } else {
    return InvalidArg("padding '", p->name, "' is not one of SAME, VALID",
                      has_explicit ? ", EXPLICIT" : "");
  }
  if (!has_explicit) return absl::OkStatus();
  std::vector<int64_t> pads;
  DFLOW_RETURN_IF_ERROR(c.GetAttr("explicit_paddings", &pads));
  if (p->type != Padding::kExplicit) {
    if (pads.empty()) return absl::OkStatus();
    return InvalidArg("explicit_paddings ", ListStr(pads), " must be empty ",
                      "when padding is ", p->name, ", not EXPLICIT");
  }
  bool ok = pads.size() == 8;
  for (int64_t x : pads) ok = ok && x >= 0 && x <= INT32_MAX;
  if (ok) {
    for (int d = 0; d < 4; ++d) {
      p->before[d] = pads[2 * d];
      p->after[d] = pads[2 * d + 1];
    }
    ok = p->before[l.n] == 0 && p->after[l.n] == 0 && p->before[l.c] == 0 &&
         p->after[l.c] == 0;
  }
  if (!ok) {
    return InvalidArg("explicit_paddings is ", ListStr(pads), " but padding ",
                      "EXPLICIT needs 8 values in [0, 2^31), (before, after) ",
                      "per dimension in ", l.name, " order, with 0 for the ",
                      "batch and channel dimensions");
  }
  return absl::OkStatus();
}

// TensorFlow's windowed output size along dimension `d`: kUnknown when `in`
// is unknown, or `window` is unknown and padding is not SAME.
absl::Status WindowedOutputSize(int64_t in, int64_t window, int64_t dilation,
                                int64_t stride, const PaddingSpec& pad, int d,
                                absl::string_view dim_name, int64_t* out) {
  *out = kUnknown;
  if (in < 0 || (window < 0 && pad.type != Padding::kSame)) {
    return absl::OkStatus();
  }
  using Wide = __int128;  // sizes come from user files: no overflow
  Wide result = (Wide{in} + stride - 1) / stride;
  if (pad.type != Padding::kSame) {
    const Wide effective = window == 0 ? 0 : Wide{window - 1} * dilation + 1;
    const Wide padded = Wide{in} + pad.before[d] + pad.after[d];
    if (padded < effective) {
      return InvalidArg(
          "the window of size ", window,
          dilation > 1 ? absl::StrCat(" dilated by ", dilation, " (",
                                      static_cast<int64_t>(effective), ")")
                       : "",
          " does not fit in the ", dim_name, " ", in,
          pad.type == Padding::kExplicit
              ? absl::StrCat(" padded by ", pad.before[d], "+", pad.after[d])
              : "",
          " with ", pad.name, " padding; use a smaller window or SAME");
    }
    result = (padded - effective + stride) / stride;
  }
  if (result > INT64_MAX) {
    return InvalidArg("the output ", dim_name, " overflows int64");
  }
  *out = static_cast<int64_t>(result);
  return absl::OkStatus();
}

// --- Convolution. ---

struct ConvAttrs {
  ImageLayout layout;
  std::vector<int64_t> strides, dilations;
  PaddingSpec padding;
};

absl::Status GetConvAttrs(const InferenceContext& c, ConvAttrs* a) {
  DFLOW_RETURN_IF_ERROR(GetLayout(c, &a->layout));
  if (a->layout.rank != 4) {
    return InvalidArg("data_format ", a->layout.name, " is not supported");
  }
  DFLOW_RETURN_IF_ERROR(
      GetWindowAttr(c, "strides", a->layout, false, &a->strides));
  DFLOW_RETURN_IF_ERROR(
      GetWindowAttr(c, "dilations", a->layout, false, &a->dilations));
  return GetPadding(c, a->layout, /*has_explicit=*/true, &a->padding);
}

// The output Conv2D computes from an input of shape `in` and `filter`
// ([height, width, in_channels, out_channels]). The input channels must
// equal the filter's in_channels, or be a multiple of them (a grouped
// convolution, whose group count must divide out_channels). `what` names
// the shapes involved in errors.
absl::Status ConvOutput(const ConvAttrs& a, const TensorShape& in,
                        const TensorShape& filter, absl::string_view what,
                        TensorShape* shape) {
  const ImageLayout& l = a.layout;
  const int64_t in_c = in.dim(l.c), f_in = filter.dim(2), f_out = filter.dim(3);
  if (f_in == 0) {
    return InvalidArg(what, ": the filter has 0 input channels (dimension 2)");
  }
  // 0 is a multiple of every filter depth, but it would make a grouped
  // convolution of 0 groups (each kernel divides by the group count).
  if (in_c == 0) {
    return InvalidArg(what, ": the input has 0 channels; a convolution needs ",
                      "at least one input channel (the filter expects ", f_in,
                      ")");
  }
  if (in_c >= 0 && f_in > 0 && in_c % f_in != 0) {
    return InvalidArg(what, ": the input has ", in_c, " channels but the ",
                      "filter expects ", f_in, " (filter dimension 2); they ",
                      "must be equal (or, for a grouped convolution, the ",
                      "input channels a multiple)");
  }
  const int64_t groups = in_c >= 0 && f_in > 0 ? in_c / f_in : 1;
  if (groups > 1 && f_out >= 0 && f_out % groups != 0) {
    return InvalidArg(what, ": a grouped convolution with ", groups,
                      " groups needs out_channels (", f_out,
                      ", filter dimension 3) to be a multiple of ", groups);
  }
  int64_t out[2];  // height, width
  for (int k = 0, d = l.h; k < 2; ++k, d = l.w) {
    DFLOW_RETURN_IF_ERROR(
        Prefixed(WindowedOutputSize(in.dim(d), filter.dim(k), a.dilations[d],
                                    a.strides[d], a.padding, d,
                                    k ? "width" : "height", &out[k]),
                 absl::StrCat(what, ": ")));
  }
  *shape = MakeImageShape(l, in.dim(l.n), out[0], out[1], f_out);
  return absl::OkStatus();
}

absl::Status Conv2DShape(InferenceContext* c) {
  ConvAttrs a;
  DFLOW_RETURN_IF_ERROR(GetConvAttrs(*c, &a));
  TensorShape in, filter, out;
  DFLOW_RETURN_IF_ERROR(InputWithRank(*c, 0, 4, &in));
  DFLOW_RETURN_IF_ERROR(InputWithRank(*c, 1, 4, &filter));
  DFLOW_RETURN_IF_ERROR(
      ConvOutput(a, in, filter,
                 absl::StrCat("input ", in.ToString(), " (", a.layout.name,
                              ") and filter ", filter.ToString()),
                 &out));
  c->set_output(0, std::move(out));
  return absl::OkStatus();
}

// Conv2D's output; the bias (input 2) a vector of its channels.
absl::Status FusedConv2DShape(InferenceContext* c) {
  DFLOW_RETURN_IF_ERROR(Conv2DShape(c));
  TensorShape bias;
  DFLOW_RETURN_IF_ERROR(InputWithRank(*c, 2, 1, &bias));
  const int64_t channels = c->output(0).dim(3);  // NHWC only
  if (bias.dim(0) >= 0 && channels >= 0 && bias.dim(0) != channels) {
    return InvalidArg("the bias ", bias.ToString(),
                      " must have one value per output channel (", channels,
                      ")");
  }
  return absl::OkStatus();
}

// For the gradient ops: `out_backprop` must have the shape Conv2D gives
// for `in` and `filter`.
absl::Status CheckConvBackprop(const ConvAttrs& a, const TensorShape& in,
                               const TensorShape& filter,
                               const TensorShape& out_backprop) {
  const std::string what = absl::StrCat(
      "input ", in.ToString(), " (", a.layout.name, "), filter ",
      filter.ToString(), " and out_backprop ", out_backprop.ToString());
  TensorShape expected;
  DFLOW_RETURN_IF_ERROR(ConvOutput(a, in, filter, what, &expected));
  if (expected.IsCompatibleWith(out_backprop)) return absl::OkStatus();
  return InvalidArg(what, ": out_backprop must match the convolution's ",
                    "output ", expected.ToString(), " (strides ",
                    ListStr(a.strides), ", dilations ", ListStr(a.dilations),
                    ", padding ", a.padding.name, ")");
}

absl::Status Conv2DBackpropInputShape(InferenceContext* c) {
  ConvAttrs a;
  DFLOW_RETURN_IF_ERROR(GetConvAttrs(*c, &a));
  const ImageLayout& l = a.layout;
  TensorShape sizes, filter, grad, in;
  DFLOW_RETURN_IF_ERROR(InputWithRank(*c, 0, 1, &sizes));
  DFLOW_RETURN_IF_ERROR(InputWithRank(*c, 1, 4, &filter));
  DFLOW_RETURN_IF_ERROR(InputWithRank(*c, 2, 4, &grad));
  if (sizes.dim(0) >= 0 && sizes.dim(0) != 4 && sizes.dim(0) != 2) {
    return InvalidArg("input_sizes has shape ", sizes.ToString(),
                      " but must hold 4 sizes (or the 2 spatial ones)");
  }
  DFLOW_RETURN_IF_ERROR(c->ShapeFromShapeTensor(0, &in));
  if (in.rank() == 2) {
    // Only the spatial sizes: batch from out_backprop, channels from filter.
    in = MakeImageShape(l, kUnknown, in.dim(0), in.dim(1), filter.dim(2));
  }
  DFLOW_RETURN_IF_ERROR(c->WithRank(in, 4, "input_sizes", &in));
  DFLOW_RETURN_IF_ERROR(CheckConvBackprop(a, in, filter, grad));
  if (in.dim(l.n) < 0) in.set_dim(l.n, grad.dim(l.n));
  c->set_output(0, std::move(in));
  return absl::OkStatus();
}

absl::Status Conv2DBackpropFilterShape(InferenceContext* c) {
  ConvAttrs a;
  DFLOW_RETURN_IF_ERROR(GetConvAttrs(*c, &a));
  TensorShape in, grad, filter;
  DFLOW_RETURN_IF_ERROR(InputWithRank(*c, 0, 4, &in));
  DFLOW_RETURN_IF_ERROR(ShapeInput4(*c, 1, &filter));
  DFLOW_RETURN_IF_ERROR(InputWithRank(*c, 2, 4, &grad));
  DFLOW_RETURN_IF_ERROR(CheckConvBackprop(a, in, filter, grad));
  if (filter.dim(3) < 0) filter.set_dim(3, grad.dim(a.layout.c));
  c->set_output(0, std::move(filter));
  return absl::OkStatus();
}

// --- Depthwise convolution. ---

// The Conv2D that a depthwise filter [height, width, in_channels,
// multiplier] amounts to: one filter of in_channels * multiplier outputs
// (the input channels must equal the filter's, no groups).
absl::Status DepthwiseAsConvFilter(const TensorShape& in,
                                   const TensorShape& filter,
                                   const ImageLayout& l,
                                   TensorShape* conv_filter) {
  const int64_t in_c = in.dim(l.c), f_in = filter.dim(2), mult = filter.dim(3);
  if (in_c >= 0 && f_in >= 0 && in_c != f_in) {
    return InvalidArg("input ", in.ToString(), " (", l.name, ") has ", in_c,
                      " channels but the depthwise filter ", filter.ToString(),
                      " expects ", f_in, " (filter dimension 2)");
  }
  const int64_t channels = f_in >= 0 ? f_in : in_c;
  *conv_filter =
      TensorShape({filter.dim(0), filter.dim(1), channels,
                   channels >= 0 && mult >= 0 ? channels * mult : kUnknown});
  return absl::OkStatus();
}

absl::Status DepthwiseOutput(const ConvAttrs& a, const TensorShape& in,
                             const TensorShape& filter, TensorShape* out) {
  TensorShape conv_filter;
  DFLOW_RETURN_IF_ERROR(
      DepthwiseAsConvFilter(in, filter, a.layout, &conv_filter));
  return ConvOutput(a, in, conv_filter,
                    absl::StrCat("input ", in.ToString(), " (", a.layout.name,
                                 ") and depthwise filter ", filter.ToString()),
                    out);
}

absl::Status DepthwiseConv2dNativeShape(InferenceContext* c) {
  ConvAttrs a;
  DFLOW_RETURN_IF_ERROR(GetConvAttrs(*c, &a));
  TensorShape in, filter, out;
  DFLOW_RETURN_IF_ERROR(InputWithRank(*c, 0, 4, &in));
  DFLOW_RETURN_IF_ERROR(InputWithRank(*c, 1, 4, &filter));
  DFLOW_RETURN_IF_ERROR(DepthwiseOutput(a, in, filter, &out));
  c->set_output(0, std::move(out));
  return absl::OkStatus();
}

// The gradients: the shape the sizes input (0 for the input's, 1 for the
// filter's) holds, checked against out_backprop when all is known.
absl::Status DepthwiseBackpropShape(InferenceContext* c, int sizes_input) {
  ConvAttrs a;
  DFLOW_RETURN_IF_ERROR(GetConvAttrs(*c, &a));
  TensorShape sized, other, grad;
  DFLOW_RETURN_IF_ERROR(ShapeInput4(*c, sizes_input, &sized));
  DFLOW_RETURN_IF_ERROR(InputWithRank(*c, 1 - sizes_input, 4, &other));
  DFLOW_RETURN_IF_ERROR(InputWithRank(*c, 2, 4, &grad));
  const TensorShape& in = sizes_input == 0 ? sized : other;
  const TensorShape& filter = sizes_input == 0 ? other : sized;
  TensorShape expected;
  DFLOW_RETURN_IF_ERROR(DepthwiseOutput(a, in, filter, &expected));
  if (!expected.IsCompatibleWith(grad)) {
    return InvalidArg("out_backprop ", grad.ToString(), " must match the ",
                      "depthwise convolution's output ", expected.ToString(),
                      " for input ", in.ToString(), " and filter ",
                      filter.ToString());
  }
  c->set_output(0, std::move(sized));
  return absl::OkStatus();
}

// --- Pooling. ---

struct PoolAttrs {
  ImageLayout layout;
  std::vector<int64_t> ksize, strides;
  PaddingSpec padding;
};

// MaxPool and MaxPoolGrad have explicit padding and may pool across
// channels; AvgPool and AvgPoolGrad do neither.
absl::Status GetPoolAttrs(const InferenceContext& c, bool is_max,
                          PoolAttrs* a) {
  DFLOW_RETURN_IF_ERROR(GetLayout(c, &a->layout));
  DFLOW_RETURN_IF_ERROR(
      GetWindowAttr(c, "ksize", a->layout, is_max, &a->ksize));
  DFLOW_RETURN_IF_ERROR(
      GetWindowAttr(c, "strides", a->layout, is_max, &a->strides));
  return GetPadding(c, a->layout, is_max, &a->padding);
}

// Input `i` as an image of the layout's rank.
absl::Status PoolInput(const InferenceContext& c, const PoolAttrs& a, int i,
                       TensorShape* out) {
  DFLOW_RETURN_IF_ERROR(InputWithRank(c, i, a.layout.rank, out));
  const int64_t v = a.layout.vect >= 0 ? out->dim(a.layout.vect) : kUnknown;
  if (v >= 0 && v != 4 && v != 32) {
    return InvalidArg("input ", out->ToString(), " is NCHW_VECT_C, so its ",
                      "last dimension must be 4 or 32");
  }
  return absl::OkStatus();
}

// The output shape of pooling `in`. Pooling across channels follows
// TensorFlow's kernel rules: channel window == channel stride, dividing the
// channels, and no spatial pooling at the same time.
absl::Status PoolOutputShape(const PoolAttrs& a, const TensorShape& in,
                             TensorShape* out) {
  const ImageLayout& l = a.layout;
  const std::string what =
      absl::StrCat("input ", in.ToString(), " (", l.name, ") with ksize ",
                   ListStr(a.ksize), " and strides ", ListStr(a.strides));
  int64_t out_c = in.dim(l.c);
  if (a.ksize[l.c] != 1 || a.strides[l.c] != 1) {
    const int64_t k = a.ksize[l.c];
    if (l.vect >= 0 || k != a.strides[l.c] || a.ksize[l.h] != 1 ||
        a.ksize[l.w] != 1 || a.strides[l.h] != 1 || a.strides[l.w] != 1 ||
        (out_c >= 0 && out_c % k != 0)) {
      return InvalidArg(what, ": pooling across channels needs a channel ",
                        "window equal to the channel stride and dividing the ",
                        "channels, and no spatial pooling");
    }
    if (out_c >= 0) out_c /= k;
  }
  int64_t hw[2];
  for (int k = 0, d = l.h; k < 2; ++k, d = l.w) {
    DFLOW_RETURN_IF_ERROR(Prefixed(
        WindowedOutputSize(in.dim(d), a.ksize[d], 1, a.strides[d], a.padding, d,
                           k ? "width" : "height", &hw[k]),
        absl::StrCat(what, ": ")));
  }
  *out = MakeImageShape(l, in.dim(l.n), hw[0], hw[1], out_c,
                        l.vect >= 0 ? in.dim(l.vect) : kUnknown);
  return absl::OkStatus();
}

absl::Status PoolShape(InferenceContext* c, bool is_max) {
  PoolAttrs a;
  DFLOW_RETURN_IF_ERROR(GetPoolAttrs(*c, is_max, &a));
  TensorShape in, out;
  DFLOW_RETURN_IF_ERROR(PoolInput(*c, a, 0, &in));
  DFLOW_RETURN_IF_ERROR(PoolOutputShape(a, in, &out));
  c->set_output(0, std::move(out));
  return absl::OkStatus();
}

// For the gradient ops: `shape` (named `name`) must be the pool output of
// the original input `in`.
absl::Status CheckPoolGrad(const PoolAttrs& a, const TensorShape& in,
                           absl::string_view name, const TensorShape& shape) {
  TensorShape expected;
  DFLOW_RETURN_IF_ERROR(PoolOutputShape(a, in, &expected));
  if (expected.IsCompatibleWith(shape)) return absl::OkStatus();
  return InvalidArg(name, " ", shape.ToString(), " must match the pool ",
                    "output ", expected.ToString(), " of the original input ",
                    in.ToString(), " (ksize ", ListStr(a.ksize), ", strides ",
                    ListStr(a.strides), ", padding ", a.padding.name, ", ",
                    a.layout.name, ")");
}

absl::Status MaxPoolGradShape(InferenceContext* c) {
  PoolAttrs a;
  DFLOW_RETURN_IF_ERROR(GetPoolAttrs(*c, /*is_max=*/true, &a));
  TensorShape in, orig_out, grad;
  DFLOW_RETURN_IF_ERROR(PoolInput(*c, a, 0, &in));
  DFLOW_RETURN_IF_ERROR(PoolInput(*c, a, 1, &orig_out));
  DFLOW_RETURN_IF_ERROR(PoolInput(*c, a, 2, &grad));
  DFLOW_RETURN_IF_ERROR(CheckPoolGrad(a, in, "orig_output", orig_out));
  DFLOW_RETURN_IF_ERROR(CheckPoolGrad(a, in, "grad", grad));
  c->set_output(0, std::move(in));
  return absl::OkStatus();
}

absl::Status AvgPoolGradShape(InferenceContext* c) {
  PoolAttrs a;
  DFLOW_RETURN_IF_ERROR(GetPoolAttrs(*c, /*is_max=*/false, &a));
  const ImageLayout& l = a.layout;
  TensorShape in, grad;
  DFLOW_RETURN_IF_ERROR(ShapeInput4(*c, 0, &in));
  DFLOW_RETURN_IF_ERROR(PoolInput(*c, a, 1, &grad));
  DFLOW_RETURN_IF_ERROR(CheckPoolGrad(a, in, "grad", grad));
  // Batch and channels pass through pooling unchanged.
  if (in.dim(l.n) < 0) in.set_dim(l.n, grad.dim(l.n));
  if (in.dim(l.c) < 0) in.set_dim(l.c, grad.dim(l.c));
  c->set_output(0, std::move(in));
  return absl::OkStatus();
}

// --- Registrations. ---

constexpr char kDataFormat[] = "data_format: {'NHWC', 'NCHW'} = 'NHWC'";
constexpr char kPadding[] = "padding: {'SAME', 'VALID'}";
constexpr char kPaddingWithExplicit[] =
    "padding: {'SAME', 'VALID', 'EXPLICIT'}";
constexpr char kExplicitPaddings[] = "explicit_paddings: list(int) = []";
constexpr char kFloatTypes[] = "T: {half, bfloat16, float, double}";

DFLOW_REGISTER_OP("Conv2D")
    .Input("input: T")
    .Input("filter: T")
    .Output("output: T")
    .Attr("T: {half, bfloat16, float, double, int32}")
    .Attr("strides: list(int)")
    .Attr("use_cudnn_on_gpu: bool = true")
    .Attr(kPaddingWithExplicit)
    .Attr(kExplicitPaddings)
    .Attr(kDataFormat)
    .Attr("dilations: list(int) = [1, 1, 1, 1]")
    .SetShapeFn(Conv2DShape);

// Internal: only compiler/fuse_bias_activation.h makes it, from Conv2D,
// BiasAdd and Relu on a CPU (TensorFlow's grappler has an op of this name
// with a list of fused ops instead; this one is dflow's own).
DFLOW_REGISTER_OP("_FusedConv2D")
    .Input("input: T")
    .Input("filter: T")
    .Input("bias: T")
    .Output("output: T")
    .Attr("T: {float}")
    .Attr("strides: list(int)")
    .Attr(kPaddingWithExplicit)
    .Attr(kExplicitPaddings)
    .Attr("data_format: {'NHWC'} = 'NHWC'")
    .Attr("dilations: list(int) = [1, 1, 1, 1]")
    .Attr("activation: string = ''")
    .SetShapeFn(FusedConv2DShape)
    .Doc(
        "activation(Conv2D(input, filter) + bias), activation '' (none) or "
        "'Relu'; made by the compiler from Conv2D, BiasAdd and Relu.");

DFLOW_REGISTER_OP("Conv2DBackpropInput")
    .Input("input_sizes: int32")
    .Input("filter: T")
    .Input("out_backprop: T")
    .Output("output: T")
    .Attr("T: {half, bfloat16, float, double, int32}")
    .Attr("strides: list(int)")
    .Attr("use_cudnn_on_gpu: bool = true")
    .Attr(kPaddingWithExplicit)
    .Attr(kExplicitPaddings)
    .Attr(kDataFormat)
    .Attr("dilations: list(int) = [1, 1, 1, 1]")
    .SetShapeFn(Conv2DBackpropInputShape);

DFLOW_REGISTER_OP("Conv2DBackpropFilter")
    .Input("input: T")
    .Input("filter_sizes: int32")
    .Input("out_backprop: T")
    .Output("output: T")
    .Attr("T: {half, bfloat16, float, double}")
    .Attr("strides: list(int)")
    .Attr("use_cudnn_on_gpu: bool = true")
    .Attr(kPaddingWithExplicit)
    .Attr(kExplicitPaddings)
    .Attr(kDataFormat)
    .Attr("dilations: list(int) = [1, 1, 1, 1]")
    .SetShapeFn(Conv2DBackpropFilterShape);

DFLOW_REGISTER_OP("DepthwiseConv2dNative")
    .Input("input: T")
    .Input("filter: T")
    .Output("output: T")
    .Attr(kFloatTypes)
    .Attr("strides: list(int)")
    .Attr(kPaddingWithExplicit)
    .Attr(kExplicitPaddings)
    .Attr(kDataFormat)
    .Attr("dilations: list(int) = [1, 1, 1, 1]")
    .SetShapeFn(DepthwiseConv2dNativeShape)
    .Doc(
        "Convolves each input channel with its own filters [height, width, "
        "in_channels, multiplier]: output channel c * multiplier + m.");

DFLOW_REGISTER_OP("DepthwiseConv2dNativeBackpropInput")
    .Input("input_sizes: int32")
    .Input("filter: T")
    .Input("out_backprop: T")
    .Output("output: T")
    .Attr(kFloatTypes)
    .Attr("strides: list(int)")
    .Attr(kPaddingWithExplicit)
    .Attr(kExplicitPaddings)
    .Attr(kDataFormat)
    .Attr("dilations: list(int) = [1, 1, 1, 1]")
    .SetShapeFn([](InferenceContext* c) {
      return DepthwiseBackpropShape(c, 0);
    });

DFLOW_REGISTER_OP("DepthwiseConv2dNativeBackpropFilter")
    .Input("input: T")
    .Input("filter_sizes: int32")
    .Input("out_backprop: T")
    .Output("output: T")
    .Attr(kFloatTypes)
    .Attr("strides: list(int)")
    .Attr(kPaddingWithExplicit)
    .Attr(kExplicitPaddings)
    .Attr(kDataFormat)
    .Attr("dilations: list(int) = [1, 1, 1, 1]")
    .SetShapeFn([](InferenceContext* c) {
      return DepthwiseBackpropShape(c, 1);
    });

DFLOW_REGISTER_OP("MaxPool")
    .Attr(
        "T: {half, bfloat16, float, double, int32, int64, uint8, int16, "
        "int8, uint16, qint8} = DT_FLOAT")
    .Attr("ksize: list(int) >= 4")
    .Attr("strides: list(int) >= 4")
    .Attr(kPaddingWithExplicit)
    .Attr(kExplicitPaddings)
    .Attr("data_format: {'NHWC', 'NCHW', 'NCHW_VECT_C'} = 'NHWC'")
    .Input("input: T")
    .Output("output: T")
    .SetShapeFn([](InferenceContext* c) { return PoolShape(c, true); });

DFLOW_REGISTER_OP("AvgPool")
    .Input("value: T")
    .Output("output: T")
    .Attr("ksize: list(int) >= 4")
    .Attr("strides: list(int) >= 4")
    .Attr(kPadding)
    .Attr(kDataFormat)
    .Attr(kFloatTypes)
    .SetShapeFn([](InferenceContext* c) { return PoolShape(c, false); });

DFLOW_REGISTER_OP("MaxPoolGrad")
    .Attr("ksize: list(int) >= 4")
    .Attr("strides: list(int) >= 4")
    .Attr(kPaddingWithExplicit)
    .Attr(kExplicitPaddings)
    .Attr(kDataFormat)
    .Input("orig_input: T")
    .Input("orig_output: T")
    .Input("grad: T")
    .Output("output: T")
    .Attr("T: realnumbertype = DT_FLOAT")
    .SetShapeFn(MaxPoolGradShape);

DFLOW_REGISTER_OP("AvgPoolGrad")
    .Input("orig_input_shape: int32")
    .Input("grad: T")
    .Output("output: T")
    .Attr("ksize: list(int) >= 4")
    .Attr("strides: list(int) >= 4")
    .Attr(kPadding)
    .Attr(kDataFormat)
    .Attr(kFloatTypes)
    .SetShapeFn(AvgPoolGradShape);

DFLOW_REGISTER_OP("LRN")
    .Input("input: T")
    .Output("output: T")
    .Attr("depth_radius: int = 5")
    .Attr("bias: float = 1.0")
    .Attr("alpha: float = 1.0")
    .Attr("beta: float = 0.5")
    .Attr("T: {half, bfloat16, float} = DT_FLOAT")
    .SetShapeFn([](InferenceContext* c) { return SameShapeInputs(c, 4); });

DFLOW_REGISTER_OP("LRNGrad")
    .Input("input_grads: T")
    .Input("input_image: T")
    .Input("output_image: T")
    .Output("output: T")
    .Attr("depth_radius: int = 5")
    .Attr("bias: float = 1.0")
    .Attr("alpha: float = 1.0")
    .Attr("beta: float = 0.5")
    .Attr("T: {half, bfloat16, float} = DT_FLOAT")
    .SetShapeFn([](InferenceContext* c) { return SameShapeInputs(c, 4); });

}  // namespace
}  // namespace dflow
