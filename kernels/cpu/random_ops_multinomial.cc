// Multinomial (tf.random.categorical, tf.compat.v1.multinomial) and
// StatelessMultinomial (tf.random.stateless_categorical) on the CPU, drawing
// TensorFlow's samples for a given seed.
//
// Per row of logits [batch, classes]: the largest finite logit m, the
// running sums cdf[j] of exp(logit - m) over the finite logits (in double;
// NaN and infinite logits add nothing), and for each sample a double u in
// [0, 1) from two 32-bit words (PhiloxWords::RandDouble); the sample is
// the first class whose cdf exceeds u * cdf[last]. The words are read in
// order, rows after one another, from one generator: TensorFlow's kernel
// does so when it runs the rows as one shard, as it did in every
// configuration tried (1 to 8 intra-op threads, up to 4096 rows x 100
// samples). Were it to split the rows, a shard starting at row r would
// skip r * (samples + 3) / 4 blocks instead, a layout that depends on the
// split; dflow always reads as the single shard does.
//
// The stateful op reserves batch * ceil4(samples) * 2 * 256 blocks per run
// as TensorFlow does, so later runs continue TensorFlow's stream; the
// stateless one starts at the scrambled seed's generator.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "graph/tensor.h"
#include "graph/types.h"
#include "kernels/cpu/random_ops_philox.h"
#include "kernels/cpu/random_ops_stateless_util.h"
#include "kernels/cpu/random_ops_words.h"
#include "runtime/kernel_registry.h"
#include "runtime/op_kernel.h"

namespace dflow {
namespace {

template <typename T>
double AsDouble(T v) {
  if constexpr (std::is_same_v<T, float16> || std::is_same_v<T, bfloat16>) {
    return v.ToFloat();
  } else {
    return static_cast<double>(v);
  }
}

// Checks the inputs and allocates the [batch, num_samples] output; null
// (with the status set) on bad input.
Tensor* PrepareOutput(OpKernelContext* ctx, int64_t* batch,
                      int64_t* classes, int64_t* num_samples) {
  const Tensor& logits = ctx->input(0);
  const Tensor& num = ctx->input(1);
  if (logits.shape().rank() != 2) {
    ctx->SetStatus(absl::InvalidArgumentError(absl::StrCat(
        "logits must be a matrix [batch, classes], got shape ",
        logits.shape().ToString())));
    return nullptr;
  }
  if (num.shape().rank() != 0) {
    ctx->SetStatus(absl::InvalidArgumentError(absl::StrCat(
        "num_samples must be a scalar, got shape ", num.shape().ToString())));
    return nullptr;
  }
  *num_samples = num.data<int32_t>()[0];
  *batch = logits.shape().dim(0);
  *classes = logits.shape().dim(1);
  if (*num_samples < 0) {
    ctx->SetStatus(absl::InvalidArgumentError(absl::StrCat(
        "num_samples must be >= 0, got ", *num_samples)));
    return nullptr;
  }
  if (*classes <= 0) {
    ctx->SetStatus(absl::InvalidArgumentError(absl::StrCat(
        "logits must have at least one class, got shape ",
        logits.shape().ToString())));
    return nullptr;
  }
  if (*batch > INT32_MAX || *classes > INT32_MAX) {
    ctx->SetStatus(absl::InvalidArgumentError(absl::StrCat(
        "logits shape ", logits.shape().ToString(),
        " has a dimension beyond int32's range")));
    return nullptr;
  }
  Tensor* out = nullptr;
  if (!ctx->allocate_output(0, TensorShape({*batch, *num_samples}), &out)
           .ok()) {
    return nullptr;
  }
  return out;
}

// The samples of every row from `gen` onwards (see the file comment).
template <typename T, typename OutT>
void Sample(const Tensor& logits_t, int64_t batch, int64_t classes,
            int64_t num_samples, PhiloxRandom gen, Tensor* out) {
  const T* logits = logits_t.data<T>();
  OutT* samples = out->data<OutT>();
  PhiloxWords words(&gen);
  std::vector<double> cdf(classes);
  for (int64_t b = 0; b < batch; ++b) {
    const T* row = logits + b * classes;
    double max_logit = -INFINITY;
    bool any_finite = false;
    for (int64_t j = 0; j < classes; ++j) {
      const double v = AsDouble(row[j]);
      if (std::isfinite(v)) {
        max_logit = any_finite ? std::max(max_logit, v) : v;
        any_finite = true;
      }
    }
    // TensorFlow starts its maximum at the lowest finite value of T, which
    // is where it stays when no logit is finite.
    if (!any_finite) {
      if constexpr (std::is_same_v<T, float16>) {
        max_logit = -65504.0;
      } else if constexpr (std::is_same_v<T, bfloat16>) {
        max_logit = -0x1.fep+127;
      } else {
        max_logit = static_cast<double>(std::numeric_limits<T>::lowest());
      }
    }
    double total = 0;
    for (int64_t j = 0; j < classes; ++j) {
      const double v = AsDouble(row[j]);
      if (std::isfinite(v)) total += std::exp(v - max_logit);
      cdf[j] = total;
    }
    for (int64_t s = 0; s < num_samples; ++s) {
      const double to_find = words.RandDouble() * total;
      samples[b * num_samples + s] = static_cast<OutT>(
          std::upper_bound(cdf.begin(), cdf.end(), to_find) - cdf.begin());
    }
  }
}

template <typename T, typename OutT>
class MultinomialOp : public OpKernel {
 public:
  explicit MultinomialOp(OpKernelConstruction* ctx)
      : OpKernel(ctx), stream_(ctx) {}

  void Compute(OpKernelContext* ctx) override {
    int64_t batch, classes, num_samples;
    Tensor* out = PrepareOutput(ctx, &batch, &classes, &num_samples);
    if (out == nullptr || out->NumElements() == 0) return;
    // TensorFlow reserves 256 blocks per double sample (two words), with
    // the samples of a row rounded up to a multiple of 4.
    const uint64_t per_row = static_cast<uint64_t>((num_samples + 3) / 4 * 4);
    const PhiloxRandom gen =
        stream_.Reserve(static_cast<uint64_t>(batch) * per_row * 2 * 256);
    Sample<T, OutT>(ctx->input(0), batch, classes, num_samples, gen, out);
  }

 private:
  PhiloxReservations stream_;
};

template <typename T, typename OutT>
class StatelessMultinomialOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    PhiloxRandom gen;
    OP_REQUIRES_OK(ctx, PhiloxFromSeedTensor(ctx->input(2), &gen));
    int64_t batch, classes, num_samples;
    Tensor* out = PrepareOutput(ctx, &batch, &classes, &num_samples);
    if (out == nullptr || out->NumElements() == 0) return;
    Sample<T, OutT>(ctx->input(0), batch, classes, num_samples, gen, out);
  }
};

#define DFLOW_REGISTER_MULTINOMIAL(T, OutT)                                 \
  DFLOW_REGISTER_KERNEL(KernelDefBuilder("Multinomial")                     \
                            .Device(kDeviceCpu)                             \
                            .TypeConstraint<T>("T")                         \
                            .TypeConstraint<OutT>("output_dtype"),          \
                        MultinomialOp<T, OutT>);                            \
  DFLOW_REGISTER_KERNEL(KernelDefBuilder("StatelessMultinomial")            \
                            .Device(kDeviceCpu)                             \
                            .TypeConstraint<T>("T")                         \
                            .TypeConstraint<OutT>("output_dtype")           \
                            .TypeConstraint("Tseed", {DT_INT32, DT_INT64}), \
                        StatelessMultinomialOp<T, OutT>)
#define DFLOW_REGISTER_MULTINOMIAL_BOTH(T) \
  DFLOW_REGISTER_MULTINOMIAL(T, int32_t);  \
  DFLOW_REGISTER_MULTINOMIAL(T, int64_t)

DFLOW_REGISTER_MULTINOMIAL_BOTH(float16);
DFLOW_REGISTER_MULTINOMIAL_BOTH(bfloat16);
DFLOW_REGISTER_MULTINOMIAL_BOTH(float);
DFLOW_REGISTER_MULTINOMIAL_BOTH(double);

#undef DFLOW_REGISTER_MULTINOMIAL_BOTH
#undef DFLOW_REGISTER_MULTINOMIAL

}  // namespace
}  // namespace dflow
