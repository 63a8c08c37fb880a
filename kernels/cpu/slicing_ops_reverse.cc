// CPU kernel for ReverseV2: the input with its elements in reverse order
// along the `axis` dimensions. The dimensions after the last reversed one
// form a contiguous block that moves whole (one copy per block); the outer
// dimension is split over the thread pool.
#include <algorithm>
#include <cstdint>
#include <string>
#include <type_traits>
#include <utility>

#include "absl/container/inlined_vector.h"
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

// Copies `in` to `out` reversing dims[d] where reverse[d], for the
// dimensions before `inner_dim`; blocks of `block` elements move whole.
template <typename T>
class Reverser {
 public:
  Reverser(IndexVec dims, absl::InlinedVector<bool, 8> reverse, int inner_dim,
           int64_t block)
      : dims_(std::move(dims)),
        reverse_(std::move(reverse)),
        inner_dim_(inner_dim),
        block_(block),
        strides_(inner_dim) {
    int64_t stride = block;
    for (int d = inner_dim - 1; d >= 0; --d) {
      strides_[d] = stride;
      stride *= dims_[d];
    }
  }

  void Run(const T* in, T* out, ThreadPool* pool) const {
    const int64_t cost = strides_[0] * 2;
    pool->ParallelFor(dims_[0], cost, [&](int64_t lo, int64_t hi) {
      for (int64_t i = lo; i < hi; ++i) {
        const int64_t from = reverse_[0] ? dims_[0] - 1 - i : i;
        Copy(1, in + from * strides_[0], out + i * strides_[0]);
      }
    });
  }

 private:
  void Copy(int d, const T* in, T* out) const {
    if (d == inner_dim_) {
      std::copy_n(in, block_, out);
      return;
    }
    for (int64_t i = 0; i < dims_[d]; ++i) {
      const int64_t from = reverse_[d] ? dims_[d] - 1 - i : i;
      Copy(d + 1, in + from * strides_[d], out + i * strides_[d]);
    }
  }

  const IndexVec dims_;
  const absl::InlinedVector<bool, 8> reverse_;
  const int inner_dim_;  // the last reversed dimension + 1
  const int64_t block_;  // elements of the dimensions from inner_dim_ on
  IndexVec strides_;
};

class ReverseV2Op : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    const Tensor& axis_t = ctx->input(1);
    const TensorShape& shape = input.shape();
    const int rank = shape.rank();
    OP_REQUIRES(ctx, axis_t.shape().rank() == 1,
                absl::InvalidArgumentError(absl::StrCat(
                    "axis must be a vector of dimensions to reverse, got a "
                    "tensor of shape ",
                    axis_t.shape().ToString())));
    IndexVec axis;
    OP_REQUIRES_OK(ctx, array_kernels::ReadIndexVector(axis_t, "axis", &axis));
    absl::InlinedVector<bool, 8> reverse(rank, false);
    for (int64_t a : axis) {
      int d = 0;
      OP_REQUIRES_OK(ctx,
                     array_kernels::CanonicalAxis(a, rank, shape, "axis", &d));
      OP_REQUIRES(ctx, !reverse[d],
                  absl::InvalidArgumentError(absl::StrCat(
                      "axis [", absl::StrJoin(axis, ","), "] names dimension ",
                      d, " of input ", shape.ToString(),
                      " twice; each may be reversed once")));
      reverse[d] = true;
    }
    // A dimension of size 1 reads the same either way.
    int inner_dim = 0;
    for (int d = 0; d < rank; ++d) {
      if (reverse[d] && shape.dim(d) > 1) inner_dim = d + 1;
    }
    if (inner_dim == 0 || input.NumElements() == 0) {
      ctx->set_output(0, input);
      return;
    }
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, shape, &out));
    IndexVec dims(shape.dims().begin(), shape.dims().end());
    const int64_t block = array_kernels::DimProduct(shape, inner_dim, rank);
    array_kernels::VisitCopyType(input.dtype(), [&](auto* tag) {
      using T = std::remove_pointer_t<decltype(tag)>;
      Reverser<T>(dims, reverse, inner_dim, block)
          .Run(array_kernels::CopyData<T>(input),
               array_kernels::CopyData<T>(out), ctx->thread_pool());
    });
  }
};

DFLOW_REGISTER_KERNEL(KernelDefBuilder("ReverseV2")
                          .Device(kDeviceCpu)
                          .TypeConstraint("T", array_kernels::AllTensorTypes())
                          .TypeConstraint("Tidx", {DT_INT32, DT_INT64}),
                      ReverseV2Op);

}  // namespace
}  // namespace dflow
