// CPU kernel for Roll: output[..., (i + shift) mod n, ...] = input[..., i,
// ...] along each axis named in `axis` (shifts of a repeated axis add up),
// as TensorFlow 2.21's. Along the last rolled dimension the roll is two
// contiguous copies; the dimensions after it move whole with it. The outer
// dimension is split over the thread pool.
#include <algorithm>
#include <cstdint>
#include <string>
#include <type_traits>
#include <utility>

#include "absl/strings/str_cat.h"
#include "graph/tensor.h"
#include "graph/types.h"
#include "kernels/cpu/kernel_util_array.h"
#include "runtime/kernel_registry.h"
#include "runtime/op_kernel.h"
#include "runtime/thread_pool.h"

namespace dflow {
namespace {

using array_kernels::IndexVec;

// Copies `in` to `out` rolled by shifts[d] (in [0, dims[d])) along the
// dimensions before `inner_dim`.
template <typename T>
class Roller {
 public:
  Roller(IndexVec dims, IndexVec shifts, int inner_dim)
      : dims_(std::move(dims)),
        shifts_(std::move(shifts)),
        inner_dim_(inner_dim),
        strides_(dims_.size()) {
    int64_t stride = 1;
    for (int d = static_cast<int>(dims_.size()) - 1; d >= 0; --d) {
      strides_[d] = stride;
      stride *= dims_[d];
    }
  }

  void Run(const T* in, T* out, ThreadPool* pool) const {
    if (inner_dim_ == 1) {
      Copy(0, in, out);
      return;
    }
    pool->ParallelFor(dims_[0], strides_[0] * 2, [&](int64_t lo, int64_t hi) {
      for (int64_t i = lo; i < hi; ++i) {
        const int64_t from = (i - shifts_[0] + dims_[0]) % dims_[0];
        Copy(1, in + from * strides_[0], out + i * strides_[0]);
      }
    });
  }

 private:
  void Copy(int d, const T* in, T* out) const {
    const int64_t n = dims_[d], s = shifts_[d], stride = strides_[d];
    if (d == inner_dim_ - 1) {
      // out[s, n) = in[0, n - s); out[0, s) = in[n - s, n).
      std::copy_n(in, (n - s) * stride, out + s * stride);
      std::copy_n(in + (n - s) * stride, s * stride, out);
      return;
    }
    for (int64_t i = 0; i < n; ++i) {
      const int64_t from = (i - s + n) % n;
      Copy(d + 1, in + from * stride, out + i * stride);
    }
  }

  const IndexVec dims_;
  const IndexVec shifts_;
  const int inner_dim_;  // the last rolled dimension + 1
  IndexVec strides_;
};

class RollOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    const TensorShape& shape = input.shape();
    const int rank = shape.rank();
    OP_REQUIRES(ctx, rank >= 1,
                absl::InvalidArgumentError(absl::StrCat(
                    "input must be at least a vector, but has shape ",
                    shape.ToString())));
    IndexVec shift, axis;
    OP_REQUIRES_OK(
        ctx, array_kernels::ReadIndexVector(ctx->input(1), "shift", &shift));
    OP_REQUIRES_OK(
        ctx, array_kernels::ReadIndexVector(ctx->input(2), "axis", &axis));
    OP_REQUIRES(ctx, shift.size() == axis.size(),
                absl::InvalidArgumentError(absl::StrCat(
                    "shift and axis must have the same size, got shift of "
                    "shape ",
                    ctx->input(1).shape().ToString(), " and axis of shape ",
                    ctx->input(2).shape().ToString())));
    IndexVec dims(shape.dims().begin(), shape.dims().end());
    IndexVec shifts(rank, 0);
    for (size_t i = 0; i < axis.size(); ++i) {
      int d = 0;
      OP_REQUIRES_OK(
          ctx, array_kernels::CanonicalAxis(axis[i], rank, shape, "axis", &d));
      if (dims[d] > 0) shifts[d] = (shifts[d] + shift[i] % dims[d]) % dims[d];
    }
    int inner_dim = 0;
    for (int d = 0; d < rank; ++d) {
      if (dims[d] > 0) shifts[d] = (shifts[d] + dims[d]) % dims[d];
      if (shifts[d] != 0) inner_dim = d + 1;
    }
    if (inner_dim == 0 || input.NumElements() == 0) {
      ctx->set_output(0, input);
      return;
    }
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, shape, &out));
    array_kernels::VisitCopyType(input.dtype(), [&](auto* tag) {
      using T = std::remove_pointer_t<decltype(tag)>;
      Roller<T>(dims, shifts, inner_dim)
          .Run(array_kernels::CopyData<T>(input),
               array_kernels::CopyData<T>(out), ctx->thread_pool());
    });
  }
};

DFLOW_REGISTER_KERNEL(KernelDefBuilder("Roll")
                          .Device(kDeviceCpu)
                          .TypeConstraint("T", array_kernels::AllTensorTypes())
                          .TypeConstraint("Tshift", {DT_INT32, DT_INT64})
                          .TypeConstraint("Taxis", {DT_INT32, DT_INT64}),
                      RollOp);

}  // namespace
}  // namespace dflow
