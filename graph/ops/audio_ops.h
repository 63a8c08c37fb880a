// Audio ops (tf.audio and the speech-commands ops of
// tf.raw_ops/contrib_audio): WAV decoding and encoding (16-bit PCM only, as
// TensorFlow's), the squared-magnitude spectrogram of a Hann-windowed
// signal (AudioSpectrogram) and mel-frequency cepstral coefficients of such
// a spectrogram (Mfcc, with its own HTK-style filterbank and DCT), with
// TensorFlow 2.21's op names, arguments and attrs. CPU kernels:
// kernels/cpu/audio_ops_*.cc.
#ifndef DFLOW_GRAPH_OPS_AUDIO_OPS_H_
#define DFLOW_GRAPH_OPS_AUDIO_OPS_H_

#include <cstdint>

#include "graph/scope.h"

namespace dflow {
namespace ops {

struct DecodeWavAttrs {
  // -1: as many channels (samples) as the file has; otherwise channels are
  // dropped or the last one repeated, samples cut or padded with zeros.
  int64_t desired_channels = -1;
  int64_t desired_samples = -1;
  DecodeWavAttrs& DesiredChannels(int64_t v) {
    desired_channels = v;
    return *this;
  }
  DecodeWavAttrs& DesiredSamples(int64_t v) {
    desired_samples = v;
    return *this;
  }
};
struct DecodeWavOutputs {
  Output audio;        // float [samples, channels] in [-1, 1)
  Output sample_rate;  // int32 scalar
};
// `contents`: a string scalar holding a whole WAV file.
DecodeWavOutputs DecodeWav(const Scope& scope, Input contents,
                           const DecodeWavAttrs& attrs = {});
// audio: float [samples, channels], clipped to [-1, 1] and written as
// 16-bit PCM; sample_rate: int32 scalar. A string scalar.
Output EncodeWav(const Scope& scope, Input audio, Input sample_rate);

// input: float [samples, channels]. Returns float [channels, frames,
// next_power_of_two(window_size) / 2 + 1]: frames of window_size samples
// every `stride`, Hann-windowed, their |DFT|^2 (or |DFT| unless
// magnitude_squared).
Output AudioSpectrogram(const Scope& scope, Input input, int64_t window_size,
                        int64_t stride, bool magnitude_squared = false);

struct MfccAttrs {
  float upper_frequency_limit = 4000;
  float lower_frequency_limit = 20;
  int64_t filterbank_channel_count = 40;
  int64_t dct_coefficient_count = 13;
  MfccAttrs& UpperFrequencyLimit(float v) {
    upper_frequency_limit = v;
    return *this;
  }
  MfccAttrs& LowerFrequencyLimit(float v) {
    lower_frequency_limit = v;
    return *this;
  }
  MfccAttrs& FilterbankChannelCount(int64_t v) {
    filterbank_channel_count = v;
    return *this;
  }
  MfccAttrs& DctCoefficientCount(int64_t v) {
    dct_coefficient_count = v;
    return *this;
  }
};
// spectrogram: AudioSpectrogram's output (magnitude_squared); sample_rate:
// int32 scalar. Returns float [channels, frames, dct_coefficient_count].
Output Mfcc(const Scope& scope, Input spectrogram, Input sample_rate,
            const MfccAttrs& attrs = {});

}  // namespace ops
}  // namespace dflow

#endif  // DFLOW_GRAPH_OPS_AUDIO_OPS_H_
