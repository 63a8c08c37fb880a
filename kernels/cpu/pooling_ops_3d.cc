// MaxPool3D, AvgPool3D and their gradients MaxPool3DGrad and AvgPool3DGrad
// on CPU (NDHWC, as TensorFlow's CPU kernels), with TensorFlow 2.21's
// semantics: AvgPool3D divides by the input elements a window covers (the
// padding does not count), and so does its gradient; MaxPool3DGrad gives a
// window's grad to the first of its equal maxima in row-major order (as
// TensorFlow's oneDNN kernels do). It finds the maxima in orig_input again;
// orig_output only has its shape checked.
// half and bfloat16 accumulate in float.
#include <array>
#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "graph/tensor.h"
#include "graph/types.h"
#include "kernels/cpu/pooling_ops_common.h"
#include "runtime/kernel_registry.h"
#include "runtime/op_kernel.h"

namespace dflow {
namespace {

using pooling::EigenElement;

// What one 3-D pooling slides over: an NDHWC volume, a window per spatial
// dimension (planes, rows, cols).
struct Pool3DGeometry {
  int64_t batch = 0, depth = 0;
  std::array<int64_t, 3> in{}, out{}, window{}, stride{}, pad{};

  int64_t InputVolume() const { return in[0] * in[1] * in[2] * depth; }
  int64_t OutputVolume() const { return out[0] * out[1] * out[2] * depth; }
  TensorShape input_shape() const {
    return TensorShape({batch, in[0], in[1], in[2], depth});
  }
  TensorShape output_shape() const {
    return TensorShape({batch, out[0], out[1], out[2], depth});
  }
};

// Reads ksize, strides, padding and data_format (NDHWC only).
class Pool3DBase : public OpKernel {
 public:
  explicit Pool3DBase(OpKernelConstruction* ctx) : OpKernel(ctx) {
    std::string format;
    OP_REQUIRES_OK(ctx, ctx->GetAttr("ksize", &ksize_));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("strides", &strides_));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("padding", &padding_));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("data_format", &format));
    OP_REQUIRES(ctx, format == "NDHWC",
                absl::UnimplementedError(absl::StrCat(
                    ctx->node().op(), " on CPU supports only data_format ",
                    "NDHWC, but the node asks for ", format,
                    " (as TensorFlow's CPU kernel)")));
    bool ok = ksize_.size() == 5 && strides_.size() == 5;
    for (size_t i = 0; ok && i < 5; ++i)
      ok = ksize_[i] >= 1 && strides_[i] >= 1;
    ok = ok && ksize_[0] == 1 && strides_[0] == 1 && ksize_[4] == 1 &&
         strides_[4] == 1;
    OP_REQUIRES(ctx, ok,
                absl::InvalidArgumentError(absl::StrCat(
                    "ksize [", absl::StrJoin(ksize_, ","), "] and strides [",
                    absl::StrJoin(strides_, ","),
                    "] must have 5 positive entries (NDHWC) with 1 for the "
                    "batch and channels")));
  }

 protected:
  absl::Status ComputeGeometry(const TensorShape& input,
                               Pool3DGeometry* g) const {
    if (input.rank() != 5) {
      return absl::InvalidArgumentError(absl::StrCat(
          "input must be 5-D [batch, planes, rows, cols, channels] (NDHWC), ",
          "but has shape ", input.ToString()));
    }
    g->batch = input.dim(0);
    g->depth = input.dim(4);
    for (int i = 0; i < 3; ++i) {
      const int64_t in = input.dim(i + 1), k = ksize_[i + 1],
                    s = strides_[i + 1];
      g->in[i] = in;
      g->window[i] = k;
      g->stride[i] = s;
      if (padding_ == "SAME") {
        g->out[i] = (in + s - 1) / s;
        const int64_t total = (g->out[i] - 1) * s + k - in;
        g->pad[i] = total > 0 ? total / 2 : 0;
      } else {
        if (in < k) {
          return absl::InvalidArgumentError(absl::StrCat(
              "input ", input.ToString(), " is smaller than the window ",
              absl::StrJoin(ksize_, ","), " in dimension ", i + 1,
              " with VALID padding"));
        }
        g->out[i] = (in - k) / s + 1;
        g->pad[i] = 0;
      }
    }
    return absl::OkStatus();
  }

  // Calls visit(output offset, input begin[3], input end[3]) for every
  // output position of image b, the window clipped to the input.
  template <typename Visit>
  static void ForEachWindow(const Pool3DGeometry& g, Visit&& visit) {
    std::array<int64_t, 3> begin, end;
    for (int64_t b = 0; b < g.batch; ++b) {
      for (int64_t op = 0; op < g.out[0]; ++op) {
        for (int64_t orow = 0; orow < g.out[1]; ++orow) {
          for (int64_t oc = 0; oc < g.out[2]; ++oc) {
            const std::array<int64_t, 3> o = {op, orow, oc};
            for (int i = 0; i < 3; ++i) {
              const int64_t start = o[i] * g.stride[i] - g.pad[i];
              begin[i] = start < 0 ? 0 : start;
              end[i] =
                  start + g.window[i] < g.in[i] ? start + g.window[i] : g.in[i];
            }
            const int64_t at =
                (((b * g.out[0] + op) * g.out[1] + orow) * g.out[2] + oc) *
                g.depth;
            visit(b, at, begin, end);
          }
        }
      }
    }
  }

  // Calls f(input offset) for the pixels of a clipped window in image b.
  template <typename F>
  static void ForEachPixel(const Pool3DGeometry& g, int64_t b,
                           const std::array<int64_t, 3>& begin,
                           const std::array<int64_t, 3>& end, F&& f) {
    for (int64_t p = begin[0]; p < end[0]; ++p) {
      for (int64_t r = begin[1]; r < end[1]; ++r) {
        for (int64_t c = begin[2]; c < end[2]; ++c) {
          f((((b * g.in[0] + p) * g.in[1] + r) * g.in[2] + c) * g.depth);
        }
      }
    }
  }

  std::vector<int64_t> ksize_, strides_;
  std::string padding_;
};

template <typename T>
using Acc = std::conditional_t<std::is_same_v<T, double>, double, float>;

template <typename T, bool kMax>
class Pool3DOp : public Pool3DBase {
 public:
  using Pool3DBase::Pool3DBase;

  void Compute(OpKernelContext* ctx) override {
    using E = typename EigenElement<T>::type;
    const Tensor& input = ctx->input(0);
    Pool3DGeometry g;
    OP_REQUIRES_OK(ctx, ComputeGeometry(input.shape(), &g));
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, g.output_shape(), &out));
    const E* in = reinterpret_cast<const E*>(input.data<T>());
    E* o = reinterpret_cast<E*>(out->data<T>());
    std::vector<Acc<T>> acc(g.depth);
    ForEachWindow(
        g, [&](int64_t b, int64_t at, const std::array<int64_t, 3>& begin,
               const std::array<int64_t, 3>& end) {
          bool first = true;
          int64_t count = 0;
          ForEachPixel(g, b, begin, end, [&](int64_t pix) {
            const E* v = in + pix;
            if (first) {
              for (int64_t c = 0; c < g.depth; ++c) {
                acc[c] = static_cast<Acc<T>>(v[c]);
              }
              first = false;
            } else if constexpr (kMax) {
              for (int64_t c = 0; c < g.depth; ++c) {
                const Acc<T> x = static_cast<Acc<T>>(v[c]);
                acc[c] = x > acc[c] ? x : acc[c];
              }
            } else {
              for (int64_t c = 0; c < g.depth; ++c) {
                acc[c] += static_cast<Acc<T>>(v[c]);
              }
            }
            ++count;
          });
          const Acc<T> scale = kMax ? Acc<T>(1) : Acc<T>(1) / Acc<T>(count);
          for (int64_t c = 0; c < g.depth; ++c) {
            o[at + c] = static_cast<E>(kMax ? acc[c] : acc[c] * scale);
          }
        });
  }
};

template <typename T>
class MaxPool3DGradOp : public Pool3DBase {
 public:
  using Pool3DBase::Pool3DBase;

  void Compute(OpKernelContext* ctx) override {
    using E = typename EigenElement<T>::type;
    const Tensor& orig_in = ctx->input(0);
    const Tensor& orig_out = ctx->input(1);
    const Tensor& grad = ctx->input(2);
    Pool3DGeometry g;
    OP_REQUIRES_OK(ctx, ComputeGeometry(orig_in.shape(), &g));
    const TensorShape pooled = g.output_shape();
    OP_REQUIRES(
        ctx, orig_out.shape() == pooled && grad.shape() == pooled,
        absl::InvalidArgumentError(absl::StrCat(
            "orig_output ", orig_out.shape().ToString(), " and grad ",
            grad.shape().ToString(), " must have the pooled shape ",
            pooled.ToString(), " of orig_input ", orig_in.shape().ToString())));
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, orig_in.shape(), &out));
    const E* in = reinterpret_cast<const E*>(orig_in.data<T>());
    const E* gr = reinterpret_cast<const E*>(grad.data<T>());
    std::vector<float> sum(orig_in.NumElements(), 0.0f);
    std::vector<float> best(g.depth);
    std::vector<int64_t> where(g.depth);
    ForEachWindow(
        g, [&](int64_t b, int64_t at, const std::array<int64_t, 3>& begin,
               const std::array<int64_t, 3>& end) {
          bool first = true;
          ForEachPixel(g, b, begin, end, [&](int64_t pix) {
            for (int64_t c = 0; c < g.depth; ++c) {
              const float v = static_cast<float>(in[pix + c]);
              if (first || v > best[c]) {
                best[c] = v;
                where[c] = pix + c;
              }
            }
            first = false;
          });
          for (int64_t c = 0; c < g.depth; ++c) {
            sum[where[c]] += static_cast<float>(gr[at + c]);
          }
        });
    E* o = reinterpret_cast<E*>(out->data<T>());
    for (size_t i = 0; i < sum.size(); ++i) o[i] = static_cast<E>(sum[i]);
  }
};

template <typename T>
class AvgPool3DGradOp : public Pool3DBase {
 public:
  using Pool3DBase::Pool3DBase;

  void Compute(OpKernelContext* ctx) override {
    using E = typename EigenElement<T>::type;
    const Tensor& shape_t = ctx->input(0);
    const Tensor& grad = ctx->input(1);
    OP_REQUIRES(ctx, shape_t.shape().rank() == 1 && shape_t.NumElements() == 5,
                absl::InvalidArgumentError(absl::StrCat(
                    "orig_input_shape must be a vector of 5 sizes, but has "
                    "shape ",
                    shape_t.shape().ToString())));
    TensorShape in_shape;
    for (int i = 0; i < 5; ++i) {
      const int32_t d = shape_t.data<int32_t>()[i];
      OP_REQUIRES(ctx, d >= 0,
                  absl::InvalidArgumentError(absl::StrCat(
                      "orig_input_shape has a negative size ", d, " at ", i)));
      in_shape.AddDim(d);
    }
    Pool3DGeometry g;
    OP_REQUIRES_OK(ctx, ComputeGeometry(in_shape, &g));
    OP_REQUIRES(ctx, grad.shape() == g.output_shape(),
                absl::InvalidArgumentError(absl::StrCat(
                    "grad ", grad.shape().ToString(),
                    " must have the pooled shape ", g.output_shape().ToString(),
                    " of orig_input_shape ", in_shape.ToString())));
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, in_shape, &out));
    const E* gr = reinterpret_cast<const E*>(grad.data<T>());
    std::vector<Acc<T>> sum(out->NumElements(), Acc<T>(0));
    ForEachWindow(
        g, [&](int64_t b, int64_t at, const std::array<int64_t, 3>& begin,
               const std::array<int64_t, 3>& end) {
          const int64_t count =
              (end[0] - begin[0]) * (end[1] - begin[1]) * (end[2] - begin[2]);
          const Acc<T> scale = Acc<T>(1) / Acc<T>(count);
          ForEachPixel(g, b, begin, end, [&](int64_t pix) {
            for (int64_t c = 0; c < g.depth; ++c) {
              sum[pix + c] += static_cast<Acc<T>>(gr[at + c]) * scale;
            }
          });
        });
    E* o = reinterpret_cast<E*>(out->data<T>());
    for (size_t i = 0; i < sum.size(); ++i) o[i] = static_cast<E>(sum[i]);
  }
};

#define DFLOW_REGISTER_POOL3D(OP, T, ...)                             \
  DFLOW_REGISTER_KERNEL(                                              \
      KernelDefBuilder(OP).Device(kDeviceCpu).TypeConstraint<T>("T"), \
      __VA_ARGS__)

DFLOW_REGISTER_POOL3D("MaxPool3D", float, Pool3DOp<float, true>);
DFLOW_REGISTER_POOL3D("MaxPool3D", float16, Pool3DOp<float16, true>);
DFLOW_REGISTER_POOL3D("MaxPool3D", bfloat16, Pool3DOp<bfloat16, true>);
DFLOW_REGISTER_POOL3D("AvgPool3D", float, Pool3DOp<float, false>);
DFLOW_REGISTER_POOL3D("AvgPool3D", double, Pool3DOp<double, false>);
DFLOW_REGISTER_POOL3D("AvgPool3D", float16, Pool3DOp<float16, false>);
DFLOW_REGISTER_POOL3D("AvgPool3D", bfloat16, Pool3DOp<bfloat16, false>);
DFLOW_REGISTER_POOL3D("AvgPool3DGrad", float, AvgPool3DGradOp<float>);
DFLOW_REGISTER_POOL3D("AvgPool3DGrad", double, AvgPool3DGradOp<double>);
DFLOW_REGISTER_POOL3D("AvgPool3DGrad", float16, AvgPool3DGradOp<float16>);
DFLOW_REGISTER_POOL3D("AvgPool3DGrad", bfloat16, AvgPool3DGradOp<bfloat16>);
// TensorFlow's CPU kernel takes the same type for the inputs and grad.
DFLOW_REGISTER_KERNEL(KernelDefBuilder("MaxPool3DGrad")
                          .Device(kDeviceCpu)
                          .TypeConstraint<float>("T")
                          .TypeConstraint<float>("TInput"),
                      MaxPool3DGradOp<float>);
DFLOW_REGISTER_KERNEL(KernelDefBuilder("MaxPool3DGrad")
                          .Device(kDeviceCpu)
                          .TypeConstraint<float16>("T")
                          .TypeConstraint<float16>("TInput"),
                      MaxPool3DGradOp<float16>);
DFLOW_REGISTER_KERNEL(KernelDefBuilder("MaxPool3DGrad")
                          .Device(kDeviceCpu)
                          .TypeConstraint<bfloat16>("T")
                          .TypeConstraint<bfloat16>("TInput"),
                      MaxPool3DGradOp<bfloat16>);

#undef DFLOW_REGISTER_POOL3D

}  // namespace
}  // namespace dflow
