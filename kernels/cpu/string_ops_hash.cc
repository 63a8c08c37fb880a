// CPU kernels of the string hash buckets (graph/ops/string_ops_convert.cc):
// StringToHashBucketFast takes FarmHash's Fingerprint64 (TensorFlow's
// Fingerprint64, from Debian's libfarmhash) modulo num_buckets;
// StringToHashBucketStrong takes SipHash-2-4 under the `key` attr.
// TensorFlow's feature columns bucket with them, so dflow must give the
// same buckets bit for bit.
#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "farmhash.h"
#include "graph/tensor.h"
#include "kernels/cpu/string_ops_siphash.h"
#include "runtime/kernel_registry.h"
#include "runtime/op_kernel.h"

namespace dflow {
namespace {

class HashBucketOp : public OpKernel {
 public:
  HashBucketOp(OpKernelConstruction* ctx, bool strong)
      : OpKernel(ctx), strong_(strong) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("num_buckets", &num_buckets_));
    OP_REQUIRES(ctx, num_buckets_ >= 1,
                absl::InvalidArgumentError(absl::StrCat(
                    "num_buckets is ", num_buckets_, "; it must be >= 1")));
    if (strong) {
      std::vector<int64_t> key;
      OP_REQUIRES_OK(ctx, ctx->GetAttr("key", &key));
      OP_REQUIRES(ctx, key.size() == 2,
                  absl::InvalidArgumentError(absl::StrCat(
                      "Key must have 2 elements, got ", key.size())));
      k0_ = static_cast<uint64_t>(key[0]);
      k1_ = static_cast<uint64_t>(key[1]);
    }
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, input.shape(), &out));
    const std::string* in = input.data<std::string>();
    int64_t* o = out->data<int64_t>();
    const uint64_t buckets = static_cast<uint64_t>(num_buckets_);
    for (int64_t i = 0; i < input.NumElements(); ++i) {
      const uint64_t hash =
          strong_ ? SipHash24(k0_, k1_, in[i].data(), in[i].size())
                  : util::Fingerprint64(in[i].data(), in[i].size());
      o[i] = static_cast<int64_t>(hash % buckets);
    }
  }

 private:
  const bool strong_;
  int64_t num_buckets_ = 1;
  uint64_t k0_ = 0, k1_ = 0;
};

class StringToHashBucketFastOp : public HashBucketOp {
 public:
  explicit StringToHashBucketFastOp(OpKernelConstruction* ctx)
      : HashBucketOp(ctx, false) {}
};
class StringToHashBucketStrongOp : public HashBucketOp {
 public:
  explicit StringToHashBucketStrongOp(OpKernelConstruction* ctx)
      : HashBucketOp(ctx, true) {}
};

DFLOW_REGISTER_KERNEL(
    KernelDefBuilder("StringToHashBucketFast").Device(kDeviceCpu),
    StringToHashBucketFastOp);
DFLOW_REGISTER_KERNEL(
    KernelDefBuilder("StringToHashBucketStrong").Device(kDeviceCpu),
    StringToHashBucketStrongOp);

}  // namespace
}  // namespace dflow
