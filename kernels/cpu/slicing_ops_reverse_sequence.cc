// CPU kernel for ReverseSequence: for each entry b along batch_dim, the
// first seq_lengths[b] slices along seq_dim in reverse order, the rest in
// place. The input is seen as [outer, first, middle, second, inner], where
// first and second are the batch and sequence dimensions in the order they
// come; the inner block moves whole.
#include <algorithm>
#include <cstdint>
#include <type_traits>
#include <vector>

#include "absl/strings/str_cat.h"
#include "graph/tensor.h"
#include "graph/types.h"
#include "kernels/cpu/kernel_util_array.h"
#include "runtime/kernel_registry.h"
#include "runtime/op_kernel.h"
#include "runtime/thread_pool.h"

namespace dflow {
namespace {

class ReverseSequenceOp : public OpKernel {
 public:
  explicit ReverseSequenceOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    ctx->SetStatus(ctx->GetAttr("seq_dim", &seq_dim_));
    ctx->SetStatus(ctx->GetAttr("batch_dim", &batch_dim_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    const TensorShape& shape = input.shape();
    const int rank = shape.rank();
    OP_REQUIRES(ctx,
                seq_dim_ != batch_dim_ && seq_dim_ >= 0 && seq_dim_ < rank &&
                    batch_dim_ >= 0 && batch_dim_ < rank,
                absl::InvalidArgumentError(absl::StrCat(
                    "seq_dim ", seq_dim_, " and batch_dim ", batch_dim_,
                    " must be different dimensions in [0, ", rank,
                    ") of the input of shape ", shape.ToString())));
    const int seq = static_cast<int>(seq_dim_);
    const int batch = static_cast<int>(batch_dim_);
    const Tensor& lengths_t = ctx->input(1);
    array_kernels::IndexVec lengths;
    OP_REQUIRES_OK(ctx, array_kernels::ReadIndexVector(
                            lengths_t, "input 'seq_lengths'", &lengths));
    OP_REQUIRES(
        ctx,
        lengths_t.shape().rank() == 1 &&
            static_cast<int64_t>(lengths.size()) == shape.dim(batch),
        absl::InvalidArgumentError(absl::StrCat(
            "seq_lengths must be a vector of ", shape.dim(batch),
            " lengths (dimension ", batch, ", batch_dim, of the input ",
            shape.ToString(), "), got shape ", lengths_t.shape().ToString())));
    for (size_t b = 0; b < lengths.size(); ++b) {
      OP_REQUIRES(
          ctx, lengths[b] >= 0 && lengths[b] <= shape.dim(seq),
          absl::InvalidArgumentError(absl::StrCat(
              "seq_lengths[", b, "] is ", lengths[b], "; it must be in [0, ",
              shape.dim(seq), "], the size of dimension ", seq,
              " (seq_dim) of the input ", shape.ToString())));
    }
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, shape, &out));
    if (input.NumElements() == 0) return;

    const int lo = std::min(seq, batch);
    const int hi = std::max(seq, batch);
    const int64_t outer = array_kernels::DimProduct(shape, 0, lo);
    const int64_t first = shape.dim(lo);
    const int64_t middle = array_kernels::DimProduct(shape, lo + 1, hi);
    const int64_t second = shape.dim(hi);
    const int64_t inner = array_kernels::DimProduct(shape, hi + 1, rank);
    const bool batch_first = batch < seq;
    array_kernels::VisitCopyType(input.dtype(), [&](auto* tag) {
      using T = std::remove_pointer_t<decltype(tag)>;
      const T* in = array_kernels::CopyData<T>(input);
      T* dst = array_kernels::CopyData<T>(out);
      // One unit of work: an (outer, first) pair.
      const int64_t units = outer * first;
      const int64_t cost = middle * second * inner * 2;
      ctx->thread_pool()->ParallelFor(units, cost, [&](int64_t u0, int64_t u1) {
        for (int64_t u = u0; u < u1; ++u) {
          const int64_t i = u % first;
          for (int64_t m = 0; m < middle; ++m) {
            const int64_t base = (u * middle + m) * second;
            for (int64_t j = 0; j < second; ++j) {
              const int64_t b = batch_first ? i : j;
              const int64_t t = batch_first ? j : i;
              const int64_t from_t = t < lengths[b] ? lengths[b] - 1 - t : t;
              // Only the sequence coordinate changes between source and
              // destination.
              const int64_t from =
                  batch_first ? base + from_t
                              : ((u - i + from_t) * middle + m) * second + j;
              std::copy_n(in + from * inner, inner, dst + (base + j) * inner);
            }
          }
        }
      });
    });
  }

 private:
  int64_t seq_dim_ = 0;
  int64_t batch_dim_ = 0;
};

DFLOW_REGISTER_KERNEL(KernelDefBuilder("ReverseSequence")
                          .Device(kDeviceCpu)
                          .TypeConstraint("T", array_kernels::AllTensorTypes())
                          .TypeConstraint("Tlen", {DT_INT32, DT_INT64}),
                      ReverseSequenceOp);

}  // namespace
}  // namespace dflow
