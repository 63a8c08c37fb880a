// The checks and outputs the CTC kernels share (ctc_ops_common.h).
#include "kernels/cpu/ctc_ops_common.h"

#include <algorithm>
#include <cstdint>
#include <vector>

#include "absl/strings/str_cat.h"

namespace dflow {
namespace ctc {

absl::Status CheckLogitsAndLengths(const Tensor& inputs,
                                   const Tensor& sequence_length,
                                   bool allow_empty) {
  if (inputs.shape().rank() != 3) {
    return absl::InvalidArgumentError(absl::StrCat(
        "inputs is not a 3-Tensor [max_time, batch, num_classes]: got ",
        inputs.shape().ToString()));
  }
  if (!allow_empty && inputs.NumElements() == 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "inputs must not be empty, got ", inputs.shape().ToString()));
  }
  if (sequence_length.shape().rank() != 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("sequence_length is not a vector: got ",
                     sequence_length.shape().ToString()));
  }
  const int64_t max_time = inputs.shape().dim(0);
  const int64_t batch = inputs.shape().dim(1);
  if (sequence_length.shape().dim(0) != batch) {
    return absl::InvalidArgumentError(absl::StrCat(
        "len(sequence_length) != batch_size.  len(sequence_length):  ",
        sequence_length.shape().dim(0), " batch_size: ", batch,
        " (inputs' dimension 1)"));
  }
  const int32_t* len = sequence_length.data<int32_t>();
  for (int64_t b = 0; b < batch; ++b) {
    if (len[b] < 0 || len[b] > max_time) {
      return absl::InvalidArgumentError(absl::StrCat(
          "sequence_length[", b, "] = ", len[b],
          " is out of range: it must be in [0, max_time = ", max_time,
          "] (inputs' dimension 0)"));
    }
  }
  return absl::OkStatus();
}

absl::Status StoreDecoded(OpKernelContext* ctx,
                          const std::vector<std::vector<int>>& sequences,
                          int indices_out, int values_out, int shape_out) {
  const int64_t batch = static_cast<int64_t>(sequences.size());
  int64_t total = 0, longest = 0;
  for (const std::vector<int>& s : sequences) {
    total += static_cast<int64_t>(s.size());
    longest = std::max(longest, static_cast<int64_t>(s.size()));
  }
  Tensor* indices = nullptr;
  Tensor* values = nullptr;
  Tensor* shape = nullptr;
  absl::Status s =
      ctx->allocate_output(indices_out, TensorShape({total, 2}), &indices);
  if (!s.ok()) return s;
  s = ctx->allocate_output(values_out, TensorShape({total}), &values);
  if (!s.ok()) return s;
  s = ctx->allocate_output(shape_out, TensorShape({2}), &shape);
  if (!s.ok()) return s;
  int64_t* idx = indices->data<int64_t>();
  int64_t* val = values->data<int64_t>();
  int64_t at = 0;
  for (int64_t b = 0; b < batch; ++b) {
    const std::vector<int>& seq = sequences[b];
    for (size_t t = 0; t < seq.size(); ++t, ++at) {
      idx[2 * at] = b;
      idx[2 * at + 1] = static_cast<int64_t>(t);
      val[at] = seq[t];
    }
  }
  shape->data<int64_t>()[0] = batch;
  shape->data<int64_t>()[1] = longest;
  return absl::OkStatus();
}

}  // namespace ctc
}  // namespace dflow
