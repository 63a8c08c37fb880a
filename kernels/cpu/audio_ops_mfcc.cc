// Mfcc on the CPU: mel-frequency cepstral coefficients of each frame of a
// squared-magnitude spectrogram (AudioSpectrogram's output, float
// [channels, frames, bins]), float [channels, frames,
// dct_coefficient_count]. The algorithm is TensorFlow 2.21's (its
// mfcc.cc, mfcc_mel_filterbank.cc and mfcc_dct.cc), step for step in
// double precision so the values agree to the last bit or so:
//   1. mel(f) = 1127 ln(1 + f / 700); filterbank_channel_count + 1 centres
//      evenly spaced in mel above mel(lower_frequency_limit) (the last one
//      only closes the top triangle);
//   2. bins k in [start, end], start = floor(1.5 + lower / hz_per_bin)
//      (DC always excluded, as HTK does), end = floor(upper / hz_per_bin),
//      hz_per_bin = sample_rate / 2 / (bins - 1); each such bin adds
//      sqrt(power) * w to the channel whose centre lies at or below it and
//      sqrt(power) * (1 - w) to the next, w falling linearly in mel from 1
//      at a centre to 0 at the next;
//   3. ln(max(channel, 1e-12));
//   4. DCT-II with sqrt(2 / N) normalization: c_i = sqrt(2 / N)
//      sum_j cos(i pi (j + 0.5) / N) x_j, i < dct_coefficient_count.
// Where `end` lies past the spectrogram (an upper limit above the Nyquist
// frequency) TensorFlow's filterbank gives up (it only logs) and its DCT
// sums nothing: every coefficient is 0. dflow gives those zeros too.
#include <cmath>
#include <cstdint>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "graph/tensor.h"
#include "kernels/cpu/kernel_util.h"
#include "runtime/kernel_registry.h"
#include "runtime/op_kernel.h"

namespace dflow {
namespace {

double FreqToMel(double freq) { return 1127.0 * std::log1p(freq / 700.0); }

// The triangular mel filterbank over `bins` spectrogram bins.
struct MelFilterbank {
  int channels = 0;
  int start = 0, end = 0;
  std::vector<int> band;         // per bin: the channel on its right slope
  std::vector<double> weights;   // per bin: its weight in that channel

  absl::Status Init(int bins, double sample_rate, int channel_count,
                    double lower, double upper) {
    channels = channel_count;
    if (channels < 1) {
      return absl::InvalidArgumentError(absl::StrCat(
          "filterbank_channel_count must be positive, got ", channels));
    }
    if (sample_rate <= 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("sample_rate must be positive, got ", sample_rate));
    }
    if (bins < 2) {
      return absl::InvalidArgumentError(absl::StrCat(
          "the spectrogram must have at least 2 frequency bins (its "
          "dimension 2), got ",
          bins));
    }
    if (lower < 0) {
      return absl::InvalidArgumentError(absl::StrCat(
          "lower_frequency_limit must be nonnegative, got ", lower));
    }
    if (upper <= lower) {
      return absl::InvalidArgumentError(absl::StrCat(
          "upper_frequency_limit (", upper,
          ") must be greater than lower_frequency_limit (", lower, ")"));
    }
    std::vector<double> centres(channels + 1);
    const double mel_low = FreqToMel(lower);
    const double mel_span = FreqToMel(upper) - mel_low;
    const double spacing = mel_span / static_cast<double>(channels + 1);
    for (int i = 0; i <= channels; ++i) centres[i] = mel_low + spacing * (i + 1);
    const double hz_per_bin = 0.5 * sample_rate / static_cast<double>(bins - 1);
    start = static_cast<int>(1.5 + lower / hz_per_bin);
    end = static_cast<int>(upper / hz_per_bin);
    band.assign(bins, -2);
    weights.assign(bins, 0.0);
    int channel = 0;
    for (int i = 0; i < bins; ++i) {
      if (i < start || i > end) continue;
      const double mel = FreqToMel(i * hz_per_bin);
      while (channel < channels && centres[channel] < mel) ++channel;
      band[i] = channel - 1;
      const int c = band[i];
      weights[i] = c >= 0 ? (centres[c + 1] - mel) / (centres[c + 1] - centres[c])
                          : (centres[0] - mel) / (centres[0] - mel_low);
    }
    return absl::OkStatus();
  }

  // `out` gets `channels` sums, or none when the bins stop before `end`.
  void Apply(const std::vector<double>& power, std::vector<double>* out) const {
    out->clear();
    if (static_cast<int>(power.size()) <= end) return;
    out->assign(channels, 0.0);
    for (int i = start; i <= end; ++i) {
      const double magnitude = std::sqrt(power[i]);
      const double weighted = magnitude * weights[i];
      const int c = band[i];
      if (c >= 0) (*out)[c] += weighted;
      if (c + 1 < channels) (*out)[c + 1] += magnitude - weighted;
    }
  }
};

class MfccOp : public OpKernel {
 public:
  explicit MfccOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    ctx->SetStatus(ctx->GetAttr("upper_frequency_limit", &upper_));
    if (ctx->status().ok()) {
      ctx->SetStatus(ctx->GetAttr("lower_frequency_limit", &lower_));
    }
    if (ctx->status().ok()) {
      ctx->SetStatus(ctx->GetAttr("filterbank_channel_count", &channels_));
    }
    if (ctx->status().ok()) {
      ctx->SetStatus(ctx->GetAttr("dct_coefficient_count", &coefficients_));
    }
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& spectrogram = ctx->input(0);
    const Tensor& rate = ctx->input(1);
    OP_REQUIRES(ctx, spectrogram.shape().rank() == 3,
                absl::InvalidArgumentError(absl::StrCat(
                    "spectrogram must be 3-dimensional [channels, frames, "
                    "bins], got ",
                    spectrogram.shape().ToString())));
    OP_REQUIRES(ctx, rate.shape().rank() == 0,
                absl::InvalidArgumentError(absl::StrCat(
                    "sample_rate must be a scalar, got shape ",
                    rate.shape().ToString())));
    const int64_t audio_channels = spectrogram.shape().dim(0);
    const int64_t frames = spectrogram.shape().dim(1);
    const int64_t bins = spectrogram.shape().dim(2);
    const int32_t sample_rate = rate.data<int32_t>()[0];
    OP_REQUIRES(ctx, bins <= (int64_t{1} << 30) && channels_ <= (1 << 20),
                absl::InvalidArgumentError(absl::StrCat(
                    "Mfcc of ", bins, " bins into ", channels_,
                    " filterbank channels is too large")));
    MelFilterbank bank;
    OP_REQUIRES_OK(ctx, bank.Init(static_cast<int>(bins), sample_rate,
                                  static_cast<int>(channels_), lower_, upper_));
    OP_REQUIRES(ctx, coefficients_ >= 1 && coefficients_ <= channels_,
                absl::InvalidArgumentError(absl::StrCat(
                    "dct_coefficient_count must be in [1, "
                    "filterbank_channel_count = ",
                    channels_, "], got ", coefficients_)));
    // The DCT's cosines, computed in TensorFlow's order of operations.
    const int n = static_cast<int>(channels_);
    const int k = static_cast<int>(coefficients_);
    std::vector<double> cosines(static_cast<size_t>(k) * n);
    const double norm = std::sqrt(2.0 / n);
    const double arg = (std::atan(1) * 4) / n;
    for (int i = 0; i < k; ++i) {
      for (int j = 0; j < n; ++j) {
        cosines[i * n + j] = norm * std::cos(i * arg * (j + 0.5));
      }
    }
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(
                            0, TensorShape({audio_channels, frames, k}), &out));
    const float* in = spectrogram.data<float>();
    float* o = out->data<float>();
    ParallelForShards(
        ctx, audio_channels * frames, bins * 4 + k * n * 2,
        [&](int64_t f0, int64_t f1) {
          std::vector<double> power(bins), mel;
          for (int64_t f = f0; f < f1; ++f) {
            power.assign(in + f * bins, in + (f + 1) * bins);
            bank.Apply(power, &mel);
            for (double& v : mel) v = std::log(v < 1e-12 ? 1e-12 : v);
            const int length = static_cast<int>(mel.size());
            for (int i = 0; i < k; ++i) {
              double sum = 0.0;
              for (int j = 0; j < length; ++j) sum += cosines[i * n + j] * mel[j];
              o[f * k + i] = static_cast<float>(sum);
            }
          }
        });
  }

 private:
  float upper_ = 4000;
  float lower_ = 20;
  int64_t channels_ = 40;
  int64_t coefficients_ = 13;
};

DFLOW_REGISTER_KERNEL(KernelDefBuilder("Mfcc").Device(kDeviceCpu), MfccOp);

}  // namespace
}  // namespace dflow
