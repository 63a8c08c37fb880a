// A tensor's values as text, the way TensorFlow's Tensor::SummarizeValue
// writes them: Assert's messages (the first style) and StringFormat /
// tf.print (the second), so dflow's text matches TensorFlow's exactly.
#ifndef DFLOW_KERNELS_CPU_KERNEL_UTIL_SUMMARIZE_H_
#define DFLOW_KERNELS_CPU_KERNEL_UTIL_SUMMARIZE_H_

#include <cstdint>
#include <string>

#include "graph/tensor.h"

namespace dflow {

// The first `max_entries` elements (all when < 0) in row-major order, in
// nested brackets for rank >= 1, "..." where elements were left out; no
// newlines; strings C-escaped without quotes. Assert's style.
std::string SummarizeTensor(const Tensor& t, int64_t max_entries);

// The first and last `max_entries` entries of every dimension (all when <
// 0), "..." between them, a row per line for rank >= 2 (blank lines
// between blocks of higher rank), strings quoted and C-escaped. tf.print's
// and StringFormat's style.
std::string SummarizeTensorV2(const Tensor& t, int64_t max_entries);

}  // namespace dflow

#endif  // DFLOW_KERNELS_CPU_KERNEL_UTIL_SUMMARIZE_H_
