// Input checks the random kernels share: the `shape` input, the generator
// of a stateless op's [2] seed or of its key, counter and algorithm inputs,
// the state of a tf.random.Generator, and the broadcasting of distribution parameters (binomial counts and
// probabilities, truncated-normal bounds) over the batch dimensions. Each
// returns InvalidArgument naming the input and the problem; the executor
// adds the node and op.
#ifndef DFLOW_KERNELS_CPU_RANDOM_OPS_STATELESS_UTIL_H_
#define DFLOW_KERNELS_CPU_RANDOM_OPS_STATELESS_UTIL_H_

#include <cstdint>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "graph/tensor.h"
#include "graph/tensor_shape.h"
#include "kernels/cpu/random_ops_philox.h"
#include "runtime/op_kernel.h"
#include "runtime/variables.h"

namespace dflow {

// A `shape` input: an int32 or int64 vector of sizes >= 0.
absl::Status RandomShapeFromTensor(const Tensor& t, TensorShape* shape);

// The generator of a [2] int32 or int64 seed (int32 words widen with their
// sign, as in TensorFlow): PhiloxFromSeedPair.
absl::Status PhiloxFromSeedTensor(const Tensor& seed, PhiloxRandom* gen);

// The generator at a [1] uint64 key and a uint64 counter of at least 2
// words, for a scalar int32 algorithm: Philox (1) or auto-select (3, which
// is Philox on CPUs as on GPUs). ThreeFry (2) is Unimplemented.
absl::Status PhiloxFromKeyCounterAlg(const Tensor& key, const Tensor& counter,
                                     const Tensor& alg, PhiloxRandom* gen);

// An algorithm id: Philox (1) or auto-select (3) are OK, ThreeFry (2) is
// Unimplemented, anything else InvalidArgument.
absl::Status CheckPhiloxAlgorithm(int64_t alg);

// tf.random.Generator's state variable (an int64 vector of at least 3:
// counter low and high words, key): with its lock held, checks it, sets
// `*before` to its generator and `before_words` (when not null) to its
// first three words, and moves its counter on by `skip_blocks` (copying
// the value first when another tensor still shares its buffer).
absl::Status ReadAndSkipGeneratorState(OpKernelContext* ctx, Var* var,
                                       uint64_t skip_blocks,
                                       PhiloxRandom* before,
                                       int64_t* before_words);

// `shape` ends with `tail` (the parameters' shape a stateless op's draws
// are laid out over: [samples..., batch...]).
bool ShapeEndsWith(const TensorShape& shape, const TensorShape& tail);

// NumPy broadcasting of several parameter tensors: their common shape and,
// for each element of it, the element of each parameter it reads.
class ParamBroadcast {
 public:
  // Fails when two shapes differ in an aligned dimension neither has 1 in.
  static absl::StatusOr<ParamBroadcast> Make(
      const std::vector<TensorShape>& shapes);

  const TensorShape& shape() const { return shape_; }
  // The flat index into parameter `p` of element `flat` of shape().
  int64_t Index(int p, int64_t flat) const {
    int64_t index = 0;
    for (int d = static_cast<int>(dims_.size()) - 1; d >= 0; --d) {
      const int64_t coord = flat % dims_[d];
      flat /= dims_[d];
      index += coord * strides_[p][d];
    }
    return index;
  }

 private:
  TensorShape shape_;
  std::vector<int64_t> dims_;
  // Per parameter, per dimension of shape(): its stride, 0 where it
  // repeats.
  std::vector<std::vector<int64_t>> strides_;
};

}  // namespace dflow

#endif  // DFLOW_KERNELS_CPU_RANDOM_OPS_STATELESS_UTIL_H_
