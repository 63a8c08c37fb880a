// ClipByValue on the CPU: output = max(min(t, clip_value_max),
// clip_value_min) element-wise, the order TensorFlow 2.21's kernel applies
// them in (so a min above the max gives the min). The bounds are scalars or
// have t's shape. The real number types; half and bfloat16 compare as float.
#include <cstdint>
#include <type_traits>
#include <utility>

#include "absl/strings/str_cat.h"
#include "graph/tensor.h"
#include "graph/types.h"
#include "kernels/cpu/kernel_util.h"
#include "runtime/kernel_registry.h"
#include "runtime/op_kernel.h"

namespace dflow {
namespace {

template <typename T>
bool Less(const T& a, const T& b) {
  if constexpr (std::is_same_v<T, float16> || std::is_same_v<T, bfloat16>) {
    return a.ToFloat() < b.ToFloat();
  } else {
    return a < b;
  }
}

template <typename T>
class ClipByValueOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    const Tensor& t = ctx->input(0);
    const Tensor& lo = ctx->input(1);
    const Tensor& hi = ctx->input(2);
    for (const auto& [bound, name] :
         {std::pair<const Tensor*, const char*>{&lo, "clip_value_min"},
          std::pair<const Tensor*, const char*>{&hi, "clip_value_max"}}) {
      OP_REQUIRES(ctx,
                  bound->shape().rank() == 0 || bound->shape() == t.shape(),
                  absl::InvalidArgumentError(absl::StrCat(
                      name, " must be a scalar or have the shape of t ",
                      t.shape().ToString(), ", but has shape ",
                      bound->shape().ToString())));
    }
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, t.shape(), &out));
    const T* in = t.data<T>();
    const T* lp = lo.data<T>();
    const T* hp = hi.data<T>();
    const bool lo_step = lo.shape().rank() != 0;
    const bool hi_step = hi.shape().rank() != 0;
    T* o = out->data<T>();
    ParallelForElements(ctx, t.NumElements(), 2,
                        [=](int64_t begin, int64_t end) {
                          for (int64_t i = begin; i < end; ++i) {
                            const T& h = hp[hi_step ? i : 0];
                            const T& l = lp[lo_step ? i : 0];
                            const T v = Less(h, in[i]) ? h : in[i];
                            o[i] = Less(v, l) ? l : v;
                          }
                        });
  }
};

#define DFLOW_REGISTER_CLIP(T)                          \
  DFLOW_REGISTER_KERNEL(KernelDefBuilder("ClipByValue") \
                            .Device(kDeviceCpu)         \
                            .TypeConstraint<T>("T"),    \
                        ClipByValueOp<T>)

DFLOW_REGISTER_CLIP(float);
DFLOW_REGISTER_CLIP(double);
DFLOW_REGISTER_CLIP(float16);
DFLOW_REGISTER_CLIP(bfloat16);
DFLOW_REGISTER_CLIP(int8_t);
DFLOW_REGISTER_CLIP(int16_t);
DFLOW_REGISTER_CLIP(int32_t);
DFLOW_REGISTER_CLIP(int64_t);
DFLOW_REGISTER_CLIP(uint8_t);
DFLOW_REGISTER_CLIP(uint16_t);
DFLOW_REGISTER_CLIP(uint32_t);
DFLOW_REGISTER_CLIP(uint64_t);

#undef DFLOW_REGISTER_CLIP

}  // namespace
}  // namespace dflow
