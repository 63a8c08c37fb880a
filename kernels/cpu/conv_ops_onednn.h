// Float convolutions on oneDNN's direct convolution primitives: Conv2D and
// both of its gradients, NHWC images and HWIO filters as dflow keeps them.
//
// Why: im2col + GEMM copies every input pixel filter_rows * filter_cols
// times before multiplying; oneDNN's JIT kernels (chosen by CPU features,
// like its GEMM: kernel_util_gemm_library.h) convolve the NHWC image
// directly, with the filter reordered into the blocked layout they want.
// On seed 003's second layer (batch 32, 12x12x64, 5x5x64x64, SAME), one
// thread of an AMD EPYC Zen 4, ms per call (GFLOP/s):
//                        im2col + oneDNN sgemm    oneDNN direct
//   forward                  9.7 (97)              6.8 (140)
//   input gradient          10.0 (94)              6.8 (140)
//   filter gradient          9.8 (96)              7.2 (130)
// (with ONEDNN_MAX_CPU_ISA=AVX2 the direct kernels ran at 116, 116, 83).
//
// Threads: oneDNN runs single-threaded on the calling thread (its OpenMP
// runtime would fight dflow's pool, as kernel_util_blas.h explains); the
// batch is split into one part per pool thread. The filter gradient sums
// the parts' gradients in part order, so a given shape and thread count
// gives the same bits every run. Primitives are built once per shape and
// kept (their creation JIT-compiles code); each call brings its own
// scratch memory, so calls from several threads never share any.
#ifndef DFLOW_KERNELS_CPU_CONV_OPS_ONEDNN_H_
#define DFLOW_KERNELS_CPU_CONV_OPS_ONEDNN_H_

#include "absl/status/status.h"
#include "kernels/cpu/conv_ops_common.h"
#include "runtime/thread_pool.h"

namespace dflow {
namespace conv {

enum class ConvPass { kForward, kBackpropInput, kBackpropFilter };

// What forward adds to the convolution inside oneDNN's kernel, while each
// output block is still in registers (_FusedConv2D): a bias of out_depth
// values (null: none), then max(x, 0) when `relu`. oneDNN adds the bias to
// the finished sum and its Relu keeps NaNs, as BiasAdd and Relu do.
struct ConvEpilogue {
  const float* bias = nullptr;
  bool relu = false;
};

// Whether oneDNN computes this convolution: one group, padding that
// oneDNN can express (no trailing input rows or columns a stride skips),
// sizes within its int indexing; and DFLOW_CONV is not "im2col".
bool OneDnnConvolves(const ConvGeometry& g);

// One pass, over `pool` (null: the calling thread only):
//   kForward         a = input,  b = filter,       out = output
//   kBackpropInput   a = filter, b = out_backprop, out = in_backprop
//   kBackpropFilter  a = input,  b = out_backprop, out = filter_backprop
// An error (oneDNN refused the shape, or no memory) leaves `out` to the
// caller, who computes it another way. `epilogue` applies to kForward only.
absl::Status OneDnnConvolve(ThreadPool* pool, ConvPass pass,
                            const ConvGeometry& g, const float* a,
                            const float* b, float* out,
                            const ConvEpilogue& epilogue = {});

}  // namespace conv
}  // namespace dflow

#endif  // DFLOW_KERNELS_CPU_CONV_OPS_ONEDNN_H_
