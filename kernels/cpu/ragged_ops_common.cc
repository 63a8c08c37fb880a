// Row-partition helpers of the ragged kernels (ragged_ops_common.h).
#include "kernels/cpu/ragged_ops_common.h"

#include "absl/strings/str_cat.h"

namespace dflow {
namespace ragged {

std::vector<int64_t> ReadIndices(const Tensor& t) {
  std::vector<int64_t> out(t.NumElements());
  for (int64_t i = 0; i < t.NumElements(); ++i) {
    out[i] = t.dtype() == DT_INT32 ? t.data<int32_t>()[i]
                                   : t.data<int64_t>()[i];
  }
  return out;
}

absl::Status CheckSplits(const std::vector<int64_t>& splits,
                         const Tensor& tensor, absl::string_view what,
                         int64_t num_values, bool exact_end) {
  if (tensor.shape().rank() != 1 || splits.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat(what, " must be a non-empty vector of row splits, got ",
                     tensor.shape().ToString()));
  }
  if (splits[0] != 0) {
    return absl::InvalidArgumentError(
        absl::StrCat(what, " must start with 0, got ", splits[0]));
  }
  for (size_t i = 1; i < splits.size(); ++i) {
    if (splits[i] < splits[i - 1]) {
      return absl::InvalidArgumentError(absl::StrCat(
          what, " must be sorted (row splits): ", what, "[", i,
          "] = ", splits[i], " < ", splits[i - 1]));
    }
  }
  const int64_t last = splits.back();
  if (last > num_values || (exact_end && last != num_values)) {
    return absl::InvalidArgumentError(absl::StrCat(
        what, " ends at ", last, " but what it partitions has ", num_values,
        " rows (Ragged splits must not point past values)"));
  }
  return absl::OkStatus();
}

}  // namespace ragged
}  // namespace dflow
