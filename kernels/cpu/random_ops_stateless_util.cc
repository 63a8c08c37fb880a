// The shared input checks of the random kernels (random_ops_stateless_util.h).
#include "kernels/cpu/random_ops_stateless_util.h"

#include <algorithm>
#include <cstdint>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "graph/types.h"

namespace dflow {
namespace {

constexpr int kAlgPhilox = 1;
constexpr int kAlgThreefry = 2;
constexpr int kAlgAutoSelect = 3;

}  // namespace

absl::Status RandomShapeFromTensor(const Tensor& t, TensorShape* shape) {
  if (t.dtype() != DT_INT32 && t.dtype() != DT_INT64) {
    return absl::InvalidArgumentError(absl::StrCat(
        "shape must be int32 or int64, got ", DataTypeName(t.dtype())));
  }
  if (t.shape().rank() != 1) {
    return absl::InvalidArgumentError(absl::StrCat(
        "shape must be a vector, got a tensor of shape ",
        t.shape().ToString()));
  }
  *shape = TensorShape(std::vector<int64_t>{});
  for (int64_t i = 0; i < t.NumElements(); ++i) {
    const int64_t d = t.dtype() == DT_INT32 ? t.data<int32_t>()[i]
                                            : t.data<int64_t>()[i];
    if (d < 0) {
      return absl::InvalidArgumentError(absl::StrCat(
          "shape has a negative dimension ", d, " at index ", i,
          "; sizes must be >= 0"));
    }
    shape->AddDim(d);
  }
  if (shape->num_elements() < 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "shape ", shape->ToString(), " has more elements than an int64 counts"));
  }
  return absl::OkStatus();
}

absl::Status PhiloxFromSeedTensor(const Tensor& seed, PhiloxRandom* gen) {
  if (seed.shape().rank() != 1 || seed.shape().dim(0) != 2) {
    return absl::InvalidArgumentError(absl::StrCat(
        "seed must have shape [2], not ", seed.shape().ToString()));
  }
  uint64_t s0, s1;
  if (seed.dtype() == DT_INT32) {
    s0 = static_cast<uint64_t>(static_cast<int64_t>(seed.data<int32_t>()[0]));
    s1 = static_cast<uint64_t>(static_cast<int64_t>(seed.data<int32_t>()[1]));
  } else if (seed.dtype() == DT_INT64) {
    s0 = static_cast<uint64_t>(seed.data<int64_t>()[0]);
    s1 = static_cast<uint64_t>(seed.data<int64_t>()[1]);
  } else {
    return absl::InvalidArgumentError(absl::StrCat(
        "seed must be int32 or int64, got ", DataTypeName(seed.dtype())));
  }
  *gen = PhiloxFromSeedPair(s0, s1);
  return absl::OkStatus();
}

absl::Status CheckPhiloxAlgorithm(int64_t alg) {
  if (alg == kAlgThreefry) {
    return absl::UnimplementedError(
        "the ThreeFry algorithm (alg 2) is not implemented; use Philox (1) "
        "or auto-select (3)");
  }
  if (alg != kAlgPhilox && alg != kAlgAutoSelect) {
    return absl::InvalidArgumentError(
        absl::StrCat("Unsupported algorithm id: ", alg));
  }
  return absl::OkStatus();
}

absl::Status ReadAndSkipGeneratorState(OpKernelContext* ctx, Var* var,
                                       uint64_t skip_blocks,
                                       PhiloxRandom* before,
                                       int64_t* before_words) {
  if (var == nullptr) {
    return absl::InternalError("the resource input is not a variable");
  }
  std::lock_guard<std::mutex> lock(var->mu());
  if (!var->initialized()) return UninitializedValueError(var->name());
  Tensor* value = var->value();
  if (value->dtype() != DT_INT64 || value->shape().rank() != 1 ||
      value->NumElements() < 3) {
    return absl::InvalidArgumentError(absl::StrCat(
        "the generator state '", var->name(),
        "' must be an int64 vector of at least 3 (Philox's counter and key), "
        "got ", DataTypeName(value->dtype()), " ",
        value->shape().ToString()));
  }
  if (value->RefCount() > 1) {
    // Copy on write: someone else still reads the old state.
    Tensor copy;
    absl::Status s = ctx->allocate_temp(DT_INT64, value->shape(), &copy);
    if (!s.ok()) return s;
    std::copy_n(value->data<int64_t>(), value->NumElements(),
                copy.data<int64_t>());
    *value = std::move(copy);
  }
  int64_t* words = value->data<int64_t>();
  const uint64_t c0 = static_cast<uint64_t>(words[0]);
  const uint64_t c1 = static_cast<uint64_t>(words[1]);
  const uint64_t k = static_cast<uint64_t>(words[2]);
  if (before_words != nullptr) std::copy_n(words, 3, before_words);
  *before = PhiloxRandom(
      {static_cast<uint32_t>(c0), static_cast<uint32_t>(c0 >> 32),
       static_cast<uint32_t>(c1), static_cast<uint32_t>(c1 >> 32)},
      {static_cast<uint32_t>(k), static_cast<uint32_t>(k >> 32)});
  PhiloxRandom after = *before;
  after.Skip(skip_blocks);
  const PhiloxRandom::Block& c = after.counter();
  words[0] = static_cast<int64_t>(c[0] | uint64_t{c[1]} << 32);
  words[1] = static_cast<int64_t>(c[2] | uint64_t{c[3]} << 32);
  return absl::OkStatus();
}

absl::Status PhiloxFromKeyCounterAlg(const Tensor& key_t,
                                     const Tensor& counter_t,
                                     const Tensor& alg_t, PhiloxRandom* gen) {
  if (alg_t.shape().rank() != 0 || alg_t.dtype() != DT_INT32) {
    return absl::InvalidArgumentError(absl::StrCat(
        "alg must be an int32 scalar, got shape ", alg_t.shape().ToString()));
  }
  if (absl::Status s = CheckPhiloxAlgorithm(alg_t.data<int32_t>()[0]);
      !s.ok()) {
    return s;
  }
  if (key_t.shape().rank() != 1 || key_t.NumElements() != 1) {
    return absl::InvalidArgumentError(absl::StrCat(
        "key must have shape [1], not ", key_t.shape().ToString()));
  }
  if (counter_t.shape().rank() != 1 || counter_t.NumElements() < 2) {
    return absl::InvalidArgumentError(absl::StrCat(
        "counter must be a vector of at least 2 elements (Philox), got shape ",
        counter_t.shape().ToString()));
  }
  const uint64_t k = key_t.data<uint64_t>()[0];
  const uint64_t c0 = counter_t.data<uint64_t>()[0];
  const uint64_t c1 = counter_t.data<uint64_t>()[1];
  *gen = PhiloxRandom(
      {static_cast<uint32_t>(c0), static_cast<uint32_t>(c0 >> 32),
       static_cast<uint32_t>(c1), static_cast<uint32_t>(c1 >> 32)},
      {static_cast<uint32_t>(k), static_cast<uint32_t>(k >> 32)});
  return absl::OkStatus();
}

bool ShapeEndsWith(const TensorShape& shape, const TensorShape& tail) {
  if (tail.rank() > shape.rank()) return false;
  const int offset = shape.rank() - tail.rank();
  for (int i = 0; i < tail.rank(); ++i) {
    if (shape.dim(offset + i) != tail.dim(i)) return false;
  }
  return true;
}

absl::StatusOr<ParamBroadcast> ParamBroadcast::Make(
    const std::vector<TensorShape>& shapes) {
  int rank = 0;
  for (const TensorShape& s : shapes) rank = std::max(rank, s.rank());
  ParamBroadcast b;
  b.dims_.assign(rank, 1);
  for (const TensorShape& s : shapes) {
    const int offset = rank - s.rank();
    for (int i = 0; i < s.rank(); ++i) {
      int64_t& d = b.dims_[offset + i];
      if (s.dim(i) == d || s.dim(i) == 1) continue;
      if (d != 1) {
        std::vector<std::string> all;
        for (const TensorShape& t : shapes) all.push_back(t.ToString());
        return absl::InvalidArgumentError(absl::StrCat(
            "parameter shapes ", absl::StrJoin(all, ", "),
            " do not broadcast"));
      }
      d = s.dim(i);
    }
  }
  b.shape_ = TensorShape(absl::MakeConstSpan(b.dims_));
  for (const TensorShape& s : shapes) {
    std::vector<int64_t> strides(rank, 0);
    int64_t stride = 1;
    const int offset = rank - s.rank();
    for (int i = s.rank() - 1; i >= 0; --i) {
      if (s.dim(i) != 1) strides[offset + i] = stride;
      stride *= s.dim(i);
    }
    b.strides_.push_back(std::move(strides));
  }
  return b;
}

}  // namespace dflow
