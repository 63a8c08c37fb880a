// What the CTC kernels (ctc_ops_loss.cc, ctc_ops_decoder.cc) share: the
// log-space sum TensorFlow's CTC code uses, the checks of the logits and
// sequence lengths, and the SparseTensor outputs of a decoder.
#ifndef DFLOW_KERNELS_CPU_CTC_OPS_COMMON_H_
#define DFLOW_KERNELS_CPU_CTC_OPS_COMMON_H_

#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "absl/status/status.h"
#include "graph/tensor.h"
#include "runtime/op_kernel.h"

namespace dflow {
namespace ctc {

template <typename T>
constexpr T LogZero() {
  return -std::numeric_limits<T>::infinity();
}

// log(exp(a) + exp(b)). TensorFlow computes the correction term in single
// precision (log1pf(expf(.))) for doubles too; so does this, for the same
// values.
template <typename T>
inline T LogSumExp(T a, T b) {
  if (a == LogZero<T>()) return b;
  if (b == LogZero<T>()) return a;
  const T hi = a > b ? a : b;
  const T lo = a > b ? b : a;
  return hi + std::log1p(std::exp(static_cast<float>(lo - hi)));
}

// inputs: [max_time, batch, num_classes]; sequence_length: int32 [batch],
// each in [0, max_time]. `allow_empty`: the loss accepts zero-size logits,
// the decoders do not.
absl::Status CheckLogitsAndLengths(const Tensor& inputs,
                                   const Tensor& sequence_length,
                                   bool allow_empty);

// The decoded label sequences of every batch entry for one path, as a
// SparseTensor: outputs `indices_out` (int64 [n, 2]: (batch, position)),
// `values_out` (int64 [n]) and `shape_out` (int64 [2]: batch, longest).
absl::Status StoreDecoded(OpKernelContext* ctx,
                          const std::vector<std::vector<int>>& sequences,
                          int indices_out, int values_out, int shape_out);

}  // namespace ctc
}  // namespace dflow

#endif  // DFLOW_KERNELS_CPU_CTC_OPS_COMMON_H_
