// What the ragged-tensor kernels (ragged_ops_*.cc) share: reading an
// int32/int64 row partition and checking that row splits describe rows of
// the values they partition.
#ifndef DFLOW_KERNELS_CPU_RAGGED_OPS_COMMON_H_
#define DFLOW_KERNELS_CPU_RAGGED_OPS_COMMON_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "graph/tensor.h"

namespace dflow {
namespace ragged {

// The values of an int32 or int64 tensor, widened.
std::vector<int64_t> ReadIndices(const Tensor& t);

// `splits` (named `what` in errors) must be a vector of at least one
// entry, start at 0 and never decrease; with `exact_end`, end at
// `num_values`, else at most at it.
absl::Status CheckSplits(const std::vector<int64_t>& splits,
                         const Tensor& tensor, absl::string_view what,
                         int64_t num_values, bool exact_end);

}  // namespace ragged
}  // namespace dflow

#endif  // DFLOW_KERNELS_CPU_RAGGED_OPS_COMMON_H_
