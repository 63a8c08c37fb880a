// CPU kernels of the string hash buckets (graph/ops/string_ops_convert.cc):
// StringToHashBucketFast takes FarmHash's Fingerprint64 (TensorFlow's
// Fingerprint64, from Debian's libfarmhash) modulo num_buckets;
// StringToHashBucketStrong takes SipHash-2-4 under the `key` attr, and the
// legacy StringToHashBucket TensorFlow's Hash64 (MurmurHash64A).
// TensorFlow's feature columns bucket with them, so dflow must give the
// same buckets bit for bit. Fingerprint: Fingerprint64 of each row's bytes
// (of a row of several strings: of their fingerprints), little-endian.
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "farmhash.h"
#include "graph/tensor.h"
#include "graph/types.h"
#include "kernels/cpu/string_ops_murmurhash.h"
#include "kernels/cpu/string_ops_siphash.h"
#include "runtime/kernel_registry.h"
#include "runtime/op_kernel.h"

namespace dflow {
namespace {

enum class BucketHash { kFarmHash, kSipHash, kMurmurHash };

class HashBucketOp : public OpKernel {
 public:
  HashBucketOp(OpKernelConstruction* ctx, BucketHash hash)
      : OpKernel(ctx), hash_(hash) {
    const bool strong = hash == BucketHash::kSipHash;
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
      const std::string& t = in[i];
      const uint64_t hash =
          hash_ == BucketHash::kFarmHash
              ? util::Fingerprint64(t.data(), t.size())
          : hash_ == BucketHash::kSipHash
              ? SipHash24(k0_, k1_, t.data(), t.size())
              : MurmurHash64A(t.data(), t.size(), kTensorFlowHash64Seed);
      o[i] = static_cast<int64_t>(hash % buckets);
    }
  }

 private:
  const BucketHash hash_;
  int64_t num_buckets_ = 1;
  uint64_t k0_ = 0, k1_ = 0;
};

class StringToHashBucketFastOp : public HashBucketOp {
 public:
  explicit StringToHashBucketFastOp(OpKernelConstruction* ctx)
      : HashBucketOp(ctx, BucketHash::kFarmHash) {}
};
class StringToHashBucketStrongOp : public HashBucketOp {
 public:
  explicit StringToHashBucketStrongOp(OpKernelConstruction* ctx)
      : HashBucketOp(ctx, BucketHash::kSipHash) {}
};
class StringToHashBucketOp : public HashBucketOp {
 public:
  explicit StringToHashBucketOp(OpKernelConstruction* ctx)
      : HashBucketOp(ctx, BucketHash::kMurmurHash) {}
};

void PutLittleEndian(uint64_t v, uint8_t* out) {
  for (int b = 0; b < 8; ++b) out[b] = static_cast<uint8_t>(v >> (8 * b));
}

class FingerprintOp : public OpKernel {
 public:
  explicit FingerprintOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}

  void Compute(OpKernelContext* ctx) override {
    const Tensor& data = ctx->input(0);
    const Tensor& method = ctx->input(1);
    OP_REQUIRES(ctx, method.shape().rank() == 0,
                absl::InvalidArgumentError(
                    absl::StrCat("`method` should be a scalar string: ",
                                 method.shape().ToString())));
    const std::string& name = *method.data<std::string>();
    OP_REQUIRES(ctx, name == "farmhash64",
                absl::InvalidArgumentError(
                    absl::StrCat("Unsupported fingerprint method: ", name,
                                 " (farmhash64 is the one there is)")));
    OP_REQUIRES(ctx, data.shape().rank() >= 1,
                absl::InvalidArgumentError(
                    absl::StrCat("`data` should have at least one dimension: ",
                                 data.shape().ToString())));
    const bool strings = data.dtype() == DT_STRING;
    OP_REQUIRES(ctx, strings || DataTypeSize(data.dtype()) > 0,
                absl::InvalidArgumentError(absl::StrCat(
                    "Data type not supported: ", DataTypeName(data.dtype()))));
    const int64_t rows = data.shape().dim(0);
    const int64_t per_row = rows == 0 ? 0 : data.NumElements() / rows;
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape({rows, 8}), &out));
    uint8_t* o = out->data<uint8_t>();
    if (!strings) {
      const char* bytes = static_cast<const char*>(data.raw_data());
      const size_t row_bytes = per_row * DataTypeSize(data.dtype());
      for (int64_t r = 0; r < rows; ++r) {
        PutLittleEndian(util::Fingerprint64(bytes + r * row_bytes, row_bytes),
                        o + 8 * r);
      }
      return;
    }
    const std::string* in = data.data<std::string>();
    // A row of several strings: the fingerprint of their fingerprints.
    std::string row(8 * per_row, '\0');
    for (int64_t r = 0; r < rows; ++r) {
      if (per_row == 1) {
        PutLittleEndian(util::Fingerprint64(in[r].data(), in[r].size()),
                        o + 8 * r);
        continue;
      }
      for (int64_t j = 0; j < per_row; ++j) {
        const std::string& t = in[r * per_row + j];
        PutLittleEndian(util::Fingerprint64(t.data(), t.size()),
                        reinterpret_cast<uint8_t*>(&row[8 * j]));
      }
      PutLittleEndian(util::Fingerprint64(row.data(), row.size()), o + 8 * r);
    }
  }
};

DFLOW_REGISTER_KERNEL(
    KernelDefBuilder("StringToHashBucketFast").Device(kDeviceCpu),
    StringToHashBucketFastOp);
DFLOW_REGISTER_KERNEL(
    KernelDefBuilder("StringToHashBucketStrong").Device(kDeviceCpu),
    StringToHashBucketStrongOp);
DFLOW_REGISTER_KERNEL(KernelDefBuilder("StringToHashBucket").Device(kDeviceCpu),
                      StringToHashBucketOp);
DFLOW_REGISTER_KERNEL(KernelDefBuilder("Fingerprint").Device(kDeviceCpu),
                      FingerprintOp);

}  // namespace
}  // namespace dflow
