// CPU kernel for Tile: output dimension i holds multiples[i] copies of the
// input along it. Built from the inside out: each input row is written once
// and then doubled up as whole contiguous blocks, so the work is a few large
// memcpys rather than one index computation per element.
#include <algorithm>
#include <cstdint>
#include <string>
#include <type_traits>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "graph/tensor.h"
#include "graph/types.h"
#include "kernels/cpu/kernel_util_array.h"
#include "runtime/kernel_registry.h"
#include "runtime/op_kernel.h"
#include "runtime/thread_pool.h"

namespace dflow {
namespace {

using array_kernels::IndexVec;

template <typename T>
class Tiler {
 public:
  Tiler(const IndexVec& in_dims, const IndexVec& multiples)
      : in_dims_(in_dims), multiples_(multiples) {
    const int rank = static_cast<int>(in_dims.size());
    in_strides_.resize(rank);
    out_strides_.resize(rank);
    int64_t in_stride = 1, out_stride = 1;
    for (int i = rank - 1; i >= 0; --i) {
      in_strides_[i] = in_stride;
      out_strides_[i] = out_stride;
      in_stride *= in_dims[i];
      out_stride *= in_dims[i] * multiples[i];
    }
  }

  void Run(const T* in, T* out, ThreadPool* pool) const {
    // The outermost dimension in parallel, then its copies.
    const int64_t cost = out_strides_[0] * 2;
    pool->ParallelFor(in_dims_[0], cost, [&](int64_t lo, int64_t hi) {
      for (int64_t i = lo; i < hi; ++i) {
        Fill(1, in + i * in_strides_[0], out + i * out_strides_[0]);
      }
    });
    const int64_t block = in_dims_[0] * out_strides_[0];
    pool->ParallelFor(multiples_[0] - 1, block, [&](int64_t lo, int64_t hi) {
      for (int64_t m = lo + 1; m < hi + 1; ++m) {
        std::copy_n(out, block, out + m * block);
      }
    });
  }

 private:
  // Writes the tiling of the input sub-block at dimension d (d >= 1 is
  // within one outer index; d == rank copies a single element).
  void Fill(int d, const T* in, T* out) const {
    const int rank = static_cast<int>(in_dims_.size());
    if (d == rank) {
      *out = *in;
      return;
    }
    if (d == rank - 1) {
      for (int64_t m = 0; m < multiples_[d]; ++m) {
        std::copy_n(in, in_dims_[d], out + m * in_dims_[d]);
      }
      return;
    }
    for (int64_t i = 0; i < in_dims_[d]; ++i) {
      Fill(d + 1, in + i * in_strides_[d], out + i * out_strides_[d]);
    }
    const int64_t block = in_dims_[d] * out_strides_[d];
    for (int64_t m = 1; m < multiples_[d]; ++m) {
      std::copy_n(out, block, out + m * block);
    }
  }

  const IndexVec& in_dims_;
  const IndexVec& multiples_;
  IndexVec in_strides_, out_strides_;
};

class TileOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    const Tensor& multiples_t = ctx->input(1);
    const TensorShape& shape = input.shape();
    const int rank = shape.rank();
    OP_REQUIRES(
        ctx,
        multiples_t.shape().rank() == 1 && multiples_t.NumElements() == rank,
        absl::InvalidArgumentError(
            absl::StrCat("multiples must be a vector of ", rank,
                         " entries for an input of shape ", shape.ToString(),
                         ", but has shape ", multiples_t.shape().ToString())));
    IndexVec multiples;
    OP_REQUIRES_OK(ctx, array_kernels::ReadIndexVector(multiples_t, "multiples",
                                                       &multiples));
    TensorShape out_shape;
    bool identity = true;
    for (int i = 0; i < rank; ++i) {
      int64_t size = 0;
      OP_REQUIRES(
          ctx,
          multiples[i] >= 0 &&
              !__builtin_mul_overflow(shape.dim(i), multiples[i], &size),
          absl::InvalidArgumentError(absl::StrCat(
              "multiples [", absl::StrJoin(multiples, ","),
              "] for an input of shape ", shape.ToString(), ": entry ", i,
              " is negative or makes the dimension "
              "too large")));
      out_shape.AddDim(size);
      identity = identity && multiples[i] == 1;
    }
    if (identity) {
      ctx->set_output(0, input);
      return;
    }
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, out_shape, &out));
    if (out->NumElements() == 0) return;
    IndexVec in_dims(shape.dims().begin(), shape.dims().end());
    array_kernels::VisitCopyType(input.dtype(), [&](auto* tag) {
      using T = std::remove_pointer_t<decltype(tag)>;
      Tiler<T>(in_dims, multiples)
          .Run(array_kernels::CopyData<T>(input),
               array_kernels::CopyData<T>(out), ctx->thread_pool());
    });
  }
};

DFLOW_REGISTER_KERNEL(KernelDefBuilder("Tile")
                          .Device(kDeviceCpu)
                          .TypeConstraint("T", array_kernels::AllTensorTypes())
                          .TypeConstraint("Tmultiples", {DT_INT32, DT_INT64}),
                      TileOp);

}  // namespace
}  // namespace dflow
