// Bitcast on the CPU (tf.bitcast): the bytes of the input, unchanged, as a
// tensor of another type. Same-size types keep the shape; a narrower
// output type adds a last dimension of size_in / size_out (each element's
// bytes in memory order, little-endian on the hosts dflow runs on, as in
// TensorFlow); a wider one consumes a last dimension of size_out /
// size_in. TensorFlow shares the buffer; dflow's tensors carry one dtype
// per buffer, so the bytes are copied (a bitcast is rarely on a hot path).
#include <cstdint>
#include <cstring>
#include <vector>

#include "absl/strings/str_cat.h"
#include "graph/types.h"
#include "kernels/cpu/kernel_util.h"
#include "runtime/kernel_registry.h"
#include "runtime/op_kernel.h"

namespace dflow {
namespace {

class BitcastOp : public OpKernel {
 public:
  explicit BitcastOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("T", &in_type_));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("type", &out_type_));
    in_size_ = DataTypeSize(in_type_);
    out_size_ = DataTypeSize(out_type_);
    OP_REQUIRES(ctx, in_size_ > 0 && out_size_ > 0,
                absl::InvalidArgumentError(absl::StrCat(
                    "Cannot bitcast types ", DataTypeName(in_type_), " to ",
                    DataTypeName(out_type_),
                    " because one of the type sizes is zero.")));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& in = ctx->input(0);
    TensorShape shape = in.shape();
    if (in_size_ > out_size_) {
      shape.AddDim(in_size_ / out_size_);
    } else if (in_size_ < out_size_) {
      const int64_t ratio = out_size_ / in_size_;
      OP_REQUIRES(
          ctx, shape.rank() > 0 && shape.dim(shape.rank() - 1) == ratio,
          absl::InvalidArgumentError(absl::StrCat(
              "Cannot bitcast ", DataTypeName(in_type_), " ", shape.ToString(),
              " to ", DataTypeName(out_type_), ": the last dimension must be ",
              ratio, " (one output element's worth of input elements)")));
      shape.RemoveDim(shape.rank() - 1);
    }
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, shape, &out));
    if (in.TotalBytes() > 0) {
      std::memcpy(out->raw_data(), in.raw_data(), in.TotalBytes());
    }
  }

 private:
  DataType in_type_ = DT_INVALID;
  DataType out_type_ = DT_INVALID;
  int in_size_ = 0;
  int out_size_ = 0;
};

// The numeric types both ways (the quantized ones share their integer
// storage).
const std::vector<DataType>& BitcastTypes() {
  static const std::vector<DataType>* types = new std::vector<DataType>{
      DT_BFLOAT16, DT_HALF,   DT_FLOAT,     DT_DOUBLE,     DT_INT64,
      DT_INT32,    DT_UINT8,  DT_UINT16,    DT_UINT32,     DT_UINT64,
      DT_INT8,     DT_INT16,  DT_COMPLEX64, DT_COMPLEX128, DT_QINT8,
      DT_QUINT8,   DT_QINT16, DT_QUINT16,   DT_QINT32};
  return *types;
}

DFLOW_REGISTER_KERNEL(KernelDefBuilder("Bitcast")
                          .Device(kDeviceCpu)
                          .TypeConstraint("T", BitcastTypes())
                          .TypeConstraint("type", BitcastTypes()),
                      BitcastOp);

}  // namespace
}  // namespace dflow
