// DynamicPartition: output p holds, in order, the slices data[i...] whose
// partitions[i...] == p (partitions' shape a prefix of data's), as
// TensorFlow 2.21's CPU kernel. A partition outside [0, num_partitions) is
// an InvalidArgument naming its position.
#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

#include "absl/strings/str_cat.h"
#include "graph/types.h"
#include "kernels/cpu/index_ops_common.h"
#include "kernels/cpu/kernel_util_array.h"
#include "runtime/kernel_registry.h"
#include "runtime/op_kernel.h"

namespace dflow {
namespace {

using index_ops::Position;
using index_ops::Product;

class DynamicPartitionOp : public OpKernel {
 public:
  explicit DynamicPartitionOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}

  void Compute(OpKernelContext* ctx) override {
    const Tensor& data = ctx->input(0);
    const Tensor& partitions = ctx->input(1);
    const TensorShape& ds = data.shape();
    const TensorShape& ps = partitions.shape();
    const int num = ctx->num_outputs();
    bool prefix = ps.rank() <= ds.rank();
    for (int i = 0; prefix && i < ps.rank(); ++i) {
      prefix = ps.dim(i) == ds.dim(i);
    }
    OP_REQUIRES(ctx, prefix,
                absl::InvalidArgumentError(absl::StrCat(
                    "data.shape must start with partitions.shape, got "
                    "data.shape = ",
                    ds.ToString(), ", partitions.shape = ", ps.ToString())));
    const int64_t n = partitions.NumElements();
    const int32_t* part = partitions.data<int32_t>();
    std::vector<int64_t> counts(num, 0);
    for (int64_t i = 0; i < n; ++i) {
      OP_REQUIRES(ctx, part[i] >= 0 && part[i] < num,
                  absl::InvalidArgumentError(
                      absl::StrCat("partitions", Position(ps, i), " = ",
                                   part[i], " is not in [0, ", num, ")")));
      ++counts[part[i]];
    }
    const int64_t inner = Product(ds, ps.rank(), ds.rank());
    std::vector<Tensor*> outs(num);
    for (int p = 0; p < num; ++p) {
      TensorShape shape({counts[p]});
      for (int i = ps.rank(); i < ds.rank(); ++i) shape.AddDim(ds.dim(i));
      OP_REQUIRES_OK(ctx, ctx->allocate_output(p, shape, &outs[p]));
    }
    array_kernels::VisitCopyType(data.dtype(), [&](auto* tag) {
      using T = std::remove_pointer_t<decltype(tag)>;
      std::vector<T*> next(num);
      for (int p = 0; p < num; ++p) {
        next[p] = array_kernels::CopyData<T>(outs[p]);
      }
      const T* d = array_kernels::CopyData<T>(data);
      for (int64_t i = 0; i < n; ++i) {
        index_ops::CopyElements(d + i * inner, inner, next[part[i]]);
        next[part[i]] += inner;
      }
    });
  }
};

DFLOW_REGISTER_KERNEL(KernelDefBuilder("DynamicPartition")
                          .Device(kDeviceCpu)
                          .TypeConstraint("T", array_kernels::AllTensorTypes()),
                      DynamicPartitionOp);

}  // namespace
}  // namespace dflow
