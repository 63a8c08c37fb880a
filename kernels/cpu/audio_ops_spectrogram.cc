// AudioSpectrogram on the CPU: for each channel of a float [samples,
// channels] signal, frames of window_size samples every `stride` samples,
// each multiplied by a periodic Hann window (0.5 - 0.5 cos(2 pi i / W)),
// zero-padded to the next power of two and transformed; the output is
// |X_k|^2 (magnitude_squared) or |X_k| for the non-negative frequencies k,
// float [channels, frames, fft_length / 2 + 1].
//
// As in TensorFlow 2.21's kernel (core/kernels/spectrogram.cc), the
// window, the products and the transform are double precision and
// re^2 + im^2 is rounded to float once (|X| is then sqrtf of that float).
// TensorFlow transforms with Ooura's rdft, dflow with FFTW: the doubles
// differ in their last bits, the floats rarely by one ulp.
#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdint>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "graph/tensor.h"
#include "kernels/cpu/kernel_util.h"
#include "kernels/cpu/spectral_ops_fftw.h"
#include "runtime/kernel_registry.h"
#include "runtime/op_kernel.h"

namespace dflow {
namespace {

int64_t NextPowerOfTwo(int64_t n) {
  int64_t p = 1;
  while (p < n) p <<= 1;
  return p;
}

class AudioSpectrogramOp : public OpKernel {
 public:
  explicit AudioSpectrogramOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    ctx->SetStatus(ctx->GetAttr("window_size", &window_size_));
    if (ctx->status().ok()) ctx->SetStatus(ctx->GetAttr("stride", &stride_));
    if (ctx->status().ok()) {
      ctx->SetStatus(ctx->GetAttr("magnitude_squared", &magnitude_squared_));
    }
    if (!ctx->status().ok()) return;
    if (window_size_ < 2 || window_size_ > fftw::kMaxPoints / 2) {
      ctx->SetStatus(absl::InvalidArgumentError(absl::StrCat(
          "window_size must be in [2, 2^29], got ", window_size_)));
      return;
    }
    if (stride_ < 1) {
      ctx->SetStatus(absl::InvalidArgumentError(
          absl::StrCat("stride must be > 0, got ", stride_)));
      return;
    }
    // The periodic Hann window, with pi as TensorFlow computes it.
    const double pi = std::atan(1) * 4;
    window_.resize(window_size_);
    for (int64_t i = 0; i < window_size_; ++i) {
      window_[i] = 0.5 - 0.5 * std::cos((2 * pi * i) / window_size_);
    }
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    OP_REQUIRES(ctx, input.shape().rank() == 2,
                absl::InvalidArgumentError(absl::StrCat(
                    "input must be 2-dimensional [samples, channels], got ",
                    input.shape().ToString())));
    const int64_t samples = input.shape().dim(0);
    const int64_t channels = input.shape().dim(1);
    const int64_t fft_length = NextPowerOfTwo(window_size_);
    const int64_t bins = fft_length / 2 + 1;
    const int64_t frames =
        samples < window_size_ ? 0 : 1 + (samples - window_size_) / stride_;
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(
                            0, TensorShape({channels, frames, bins}), &out));
    const int64_t count = channels * frames;  // transforms, channel-major
    if (count == 0) return;
    // Windowed, zero-padded frames in double, transformed a chunk at a time
    // (bounded scratch memory however long the signal).
    constexpr int64_t kChunk = 256;
    const float* x = input.data<float>();
    float* o = out->data<float>();
    const bool squared = magnitude_squared_;
    std::vector<double> windowed(std::min(count, kChunk) * fft_length, 0.0);
    std::vector<std::complex<double>> spectrum(std::min(count, kChunk) * bins);
    for (int64_t first = 0; first < count; first += kChunk) {
      const int64_t n = std::min(kChunk, count - first);
      ParallelForShards(ctx, n, 2 * window_size_, [&](int64_t b0, int64_t b1) {
        for (int64_t b = b0; b < b1; ++b) {
          const int64_t frame = first + b;
          const int64_t c = frame / frames;
          const int64_t start = (frame % frames) * stride_;
          double* w = windowed.data() + b * fft_length;
          for (int64_t j = 0; j < window_size_; ++j) {
            w[j] = static_cast<double>(x[(start + j) * channels + c]) *
                   window_[j];
          }
        }
      });
      OP_REQUIRES_OK(ctx, fftw::RealToComplex<double>(
                              ctx, {fft_length}, n, windowed.data(),
                              spectrum.data()));
      float* chunk_out = o + first * bins;
      ParallelForElements(ctx, n * bins, 4, [&](int64_t i0, int64_t i1) {
        for (int64_t i = i0; i < i1; ++i) {
          const double re = spectrum[i].real(), im = spectrum[i].imag();
          const float power = static_cast<float>(re * re + im * im);
          chunk_out[i] = squared ? power : std::sqrt(power);
        }
      });
    }
  }

 private:
  int64_t window_size_ = 0;
  int64_t stride_ = 0;
  bool magnitude_squared_ = false;
  std::vector<double> window_;
};

DFLOW_REGISTER_KERNEL(
    KernelDefBuilder("AudioSpectrogram").Device(kDeviceCpu),
    AudioSpectrogramOp);

}  // namespace
}  // namespace dflow
