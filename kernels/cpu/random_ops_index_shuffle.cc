// RandomIndexShuffle (tf.random.experimental.index_shuffle) on the CPU:
// where `index` goes under the permutation of [0, max_index] a [3] seed
// selects, TensorFlow's values. The permutation is a cycle-walking cipher
// (Black and Rogaway, "Ciphers with arbitrary finite domains"): a Simon
// block cipher (Beaulieu et al., 2013) with the seed as its key, on blocks
// of B = max(16, ceil(log2(max_index)) rounded up to even) bits, applied
// again until the value is <= max_index. Each round pair of the Feistel
// network on words (left, right) of W = B / 2 bits does
//   left ^= f(right) ^ k[i];  right ^= f(left) ^ k[i + 1]
// with f(x) = (rotl(x, 1) & rotl(x, 8)) ^ rotl(x, 2), and the round keys
// come from Simon's key schedule (constant 0xfffffffc and the z sequence
// 0x7369f885192c0ef5, both cut to W bits as TensorFlow's std::bitset<W>
// cuts them). `rounds` (even, >= 4) counts rounds.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "graph/tensor.h"
#include "graph/types.h"
#include "runtime/kernel_registry.h"
#include "runtime/op_kernel.h"

namespace dflow {
namespace {

class SimonPermutation {
 public:
  SimonPermutation(int word_bits, const std::array<uint32_t, 3>& key,
                   int rounds)
      : w_(word_bits),
        mask_(word_bits == 64 ? ~uint64_t{0}
                              : (uint64_t{1} << word_bits) - 1) {
    const uint64_t c = uint64_t{0xfffffffc} & mask_;
    uint64_t z = uint64_t{0x7369f885192c0ef5} & mask_;
    keys_ = {key[0] & mask_, key[1] & mask_, key[2] & mask_};
    for (int i = 3; i < rounds; ++i) {
      keys_.push_back(c ^ (z & 1) ^ keys_[i - 3] ^ Rotr(keys_[i - 1], 3) ^
                      Rotr(keys_[i - 1], 4));
      z >>= 1;
    }
    keys_.resize(rounds);
  }

  uint64_t Encrypt(uint64_t value) const {
    uint64_t left = (value >> w_) & mask_;
    uint64_t right = value & mask_;
    for (size_t i = 0; i + 1 < keys_.size(); i += 2) {
      left ^= F(right);
      left ^= keys_[i];
      right ^= F(left);
      right ^= keys_[i + 1];
    }
    return (left << w_) | right;
  }

 private:
  uint64_t Rotl(uint64_t x, int r) const {
    return ((x << r) | (x >> (w_ - r))) & mask_;
  }
  uint64_t Rotr(uint64_t x, int r) const {
    return ((x >> r) | (x << (w_ - r))) & mask_;
  }
  uint64_t F(uint64_t x) const {
    return (Rotl(x, 1) & Rotl(x, 8)) ^ Rotl(x, 2);
  }

  int w_;
  uint64_t mask_;
  std::vector<uint64_t> keys_;
};

uint64_t IndexShuffle(uint64_t index, const std::array<uint32_t, 3>& key,
                      uint64_t max_index, int rounds) {
  if (max_index == 0) return 0;
  int block = static_cast<int>(
      std::ceil(std::log2(static_cast<double>(max_index))));
  block = std::min(std::max(block + block % 2, 16), 64);
  const SimonPermutation cipher(block / 2, key, rounds);
  uint64_t value = index;
  do {
    value = cipher.Encrypt(value);
  } while (value > max_index);
  return value;
}

template <typename T>
uint64_t ValueAt(const Tensor& t, int64_t i) {
  return static_cast<uint64_t>(t.data<T>()[t.shape().rank() == 0 ? 0 : i]);
}

uint32_t SeedWord(const Tensor& seed, int64_t i) {
  switch (seed.dtype()) {
    case DT_INT32:
      return static_cast<uint32_t>(seed.data<int32_t>()[i]);
    case DT_UINT32:
      return seed.data<uint32_t>()[i];
    case DT_INT64:
      return static_cast<uint32_t>(seed.data<int64_t>()[i]);
    default:
      return static_cast<uint32_t>(seed.data<uint64_t>()[i]);
  }
}

template <typename T>
class RandomIndexShuffleOp : public OpKernel {
 public:
  explicit RandomIndexShuffleOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    int64_t rounds = 4;
    ctx->SetStatus(ctx->GetAttr("rounds", &rounds));
    if (rounds < 4 || rounds % 2 != 0 || rounds > 1000) {
      ctx->SetStatus(absl::InvalidArgumentError(absl::StrCat(
          "rounds must be an even number >= 4 (and at most 1000), got ",
          rounds)));
    }
    rounds_ = static_cast<int>(rounds);
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& index = ctx->input(0);
    const Tensor& seed = ctx->input(1);
    const Tensor& max_index = ctx->input(2);
    const int64_t n = std::max({index.NumElements(), max_index.NumElements(),
                                seed.NumElements() / 3});
    OP_REQUIRES(ctx,
                index.shape().rank() == 0 ||
                    (index.shape().rank() == 1 && index.shape().dim(0) == n),
                absl::InvalidArgumentError(absl::StrCat(
                    "index must be a scalar or a vector of ", n,
                    " elements, got shape ", index.shape().ToString())));
    OP_REQUIRES(ctx,
                (seed.shape().rank() == 1 && seed.shape().dim(0) == 3) ||
                    (seed.shape().rank() == 2 && seed.shape().dim(0) == n &&
                     seed.shape().dim(1) == 3),
                absl::InvalidArgumentError(absl::StrCat(
                    "seed must be a vector of size [3] or a matrix of size [",
                    n, ", 3] but got ", seed.shape().ToString())));
    OP_REQUIRES(
        ctx,
        max_index.shape().rank() == 0 ||
            (max_index.shape().rank() == 1 && max_index.shape().dim(0) == n),
        absl::InvalidArgumentError(absl::StrCat(
            "max_index must be a scalar or a vector of ", n,
            " elements, got shape ", max_index.shape().ToString())));
    const bool all_scalar = index.shape().rank() == 0 &&
                            seed.shape().rank() == 1 &&
                            max_index.shape().rank() == 0;
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(
                            0, all_scalar ? TensorShape() : TensorShape({n}),
                            &out));
    for (int64_t i = 0; i < n; ++i) {
      const int64_t row = seed.shape().rank() == 1 ? 0 : i;
      const std::array<uint32_t, 3> key = {SeedWord(seed, 3 * row),
                                           SeedWord(seed, 3 * row + 1),
                                           SeedWord(seed, 3 * row + 2)};
      out->data<T>()[i] = static_cast<T>(IndexShuffle(
          ValueAt<T>(index, i), key, ValueAt<T>(max_index, i), rounds_));
    }
  }

 private:
  int rounds_ = 4;
};

#define DFLOW_REGISTER_INDEX_SHUFFLE(T)                                   \
  DFLOW_REGISTER_KERNEL(                                                  \
      KernelDefBuilder("RandomIndexShuffle")                              \
          .Device(kDeviceCpu)                                             \
          .TypeConstraint<T>("dtype")                                     \
          .TypeConstraint("Tseed",                                        \
                          {DT_INT32, DT_UINT32, DT_INT64, DT_UINT64}),    \
      RandomIndexShuffleOp<T>)

DFLOW_REGISTER_INDEX_SHUFFLE(int32_t);
DFLOW_REGISTER_INDEX_SHUFFLE(uint32_t);
DFLOW_REGISTER_INDEX_SHUFFLE(int64_t);
DFLOW_REGISTER_INDEX_SHUFFLE(uint64_t);

#undef DFLOW_REGISTER_INDEX_SHUFFLE

}  // namespace
}  // namespace dflow
