// Schemas, shape functions and wrappers of the audio ops (audio_ops.h),
// following TensorFlow 2.21's core/ops/audio_ops.cc.
#include <cstdint>

#include "absl/status/status.h"
#include "graph/op_registry.h"
#include "graph/ops/audio_ops.h"
#include "graph/ops/shape_fn_util.h"
#include "graph/shape_inference.h"
#include "graph/tensor_shape.h"

namespace dflow {
namespace {

using shape_fn_util::AllOutputs;
using shape_fn_util::FirstOutput;
using shape_fn_util::InvalidArgument;

absl::Status DecodeWavShape(InferenceContext* c) {
  TensorShape contents;
  DFLOW_RETURN_IF_ERROR(
      c->WithRank(c->input(0), 0, "input 'contents'", &contents));
  int64_t channels = -1, samples = -1;
  DFLOW_RETURN_IF_ERROR(c->GetAttr("desired_channels", &channels));
  DFLOW_RETURN_IF_ERROR(c->GetAttr("desired_samples", &samples));
  c->set_output(0, TensorShape({samples < 0 ? TensorShape::kUnknownDim : samples,
                                channels < 0 ? TensorShape::kUnknownDim
                                             : channels}));
  c->set_output(1, TensorShape({}));
  return absl::OkStatus();
}

absl::Status EncodeWavShape(InferenceContext* c) {
  TensorShape unused;
  DFLOW_RETURN_IF_ERROR(c->WithRank(c->input(0), 2, "input 'audio'", &unused));
  DFLOW_RETURN_IF_ERROR(
      c->WithRank(c->input(1), 0, "input 'sample_rate'", &unused));
  c->set_output(0, TensorShape({}));
  return absl::OkStatus();
}

int64_t NextPowerOfTwo(int64_t n) {
  int64_t p = 1;
  while (p < n) p <<= 1;
  return p;
}

absl::Status AudioSpectrogramShape(InferenceContext* c) {
  TensorShape input;
  DFLOW_RETURN_IF_ERROR(c->WithRank(c->input(0), 2, "input 'input'", &input));
  int64_t window_size = 0, stride = 0;
  DFLOW_RETURN_IF_ERROR(c->GetAttr("window_size", &window_size));
  DFLOW_RETURN_IF_ERROR(c->GetAttr("stride", &stride));
  if (window_size < 2) {
    return InvalidArgument("window_size must be > 1, got ", window_size);
  }
  if (stride < 1) return InvalidArgument("stride must be > 0, got ", stride);
  const int64_t samples = input.dim(0);
  int64_t frames = TensorShape::kUnknownDim;
  if (samples >= 0) {
    frames = samples < window_size ? 0 : 1 + (samples - window_size) / stride;
  }
  c->set_output(0, TensorShape({input.dim(1), frames,
                                NextPowerOfTwo(window_size) / 2 + 1}));
  return absl::OkStatus();
}

absl::Status MfccShape(InferenceContext* c) {
  TensorShape spectrogram, unused;
  DFLOW_RETURN_IF_ERROR(
      c->WithRank(c->input(0), 3, "input 'spectrogram'", &spectrogram));
  DFLOW_RETURN_IF_ERROR(
      c->WithRank(c->input(1), 0, "input 'sample_rate'", &unused));
  int64_t coefficients = 0;
  DFLOW_RETURN_IF_ERROR(c->GetAttr("dct_coefficient_count", &coefficients));
  c->set_output(
      0, TensorShape({spectrogram.dim(0), spectrogram.dim(1), coefficients}));
  return absl::OkStatus();
}

}  // namespace

DFLOW_REGISTER_OP("DecodeWav")
    .Input("contents: string")
    .Output("audio: float")
    .Output("sample_rate: int32")
    .Attr("desired_channels: int = -1")
    .Attr("desired_samples: int = -1")
    .SetShapeFn(DecodeWavShape)
    .Doc("Decodes a 16-bit PCM WAV file to float samples in [-1, 1).");

DFLOW_REGISTER_OP("EncodeWav")
    .Input("audio: float")
    .Input("sample_rate: int32")
    .Output("contents: string")
    .SetShapeFn(EncodeWavShape)
    .Doc("Encodes float samples [samples, channels] as a 16-bit PCM WAV "
         "file.");

DFLOW_REGISTER_OP("AudioSpectrogram")
    .Input("input: float")
    .Output("spectrogram: float")
    .Attr("window_size: int")
    .Attr("stride: int")
    .Attr("magnitude_squared: bool = false")
    .SetShapeFn(AudioSpectrogramShape)
    .Doc("The (squared) magnitude spectrogram of Hann-windowed frames.");

DFLOW_REGISTER_OP("Mfcc")
    .Input("spectrogram: float")
    .Input("sample_rate: int32")
    .Output("output: float")
    .Attr("upper_frequency_limit: float = 4000")
    .Attr("lower_frequency_limit: float = 20")
    .Attr("filterbank_channel_count: int = 40")
    .Attr("dct_coefficient_count: int = 13")
    .SetShapeFn(MfccShape)
    .Doc("Mel-frequency cepstral coefficients of a squared-magnitude "
         "spectrogram.");

namespace ops {

DecodeWavOutputs DecodeWav(const Scope& scope, Input contents,
                           const DecodeWavAttrs& attrs) {
  OutputList out =
      AllOutputs(OpBuilder(scope, "DecodeWav")
                     .Input(contents)
                     .Attr("desired_channels", attrs.desired_channels)
                     .Attr("desired_samples", attrs.desired_samples)
                     .Finalize(),
                 2);
  return {out[0], out[1]};
}

Output EncodeWav(const Scope& scope, Input audio, Input sample_rate) {
  return FirstOutput(
      OpBuilder(scope, "EncodeWav").Input(audio).Input(sample_rate).Finalize());
}

Output AudioSpectrogram(const Scope& scope, Input input, int64_t window_size,
                        int64_t stride, bool magnitude_squared) {
  return FirstOutput(OpBuilder(scope, "AudioSpectrogram")
                         .Input(input)
                         .Attr("window_size", window_size)
                         .Attr("stride", stride)
                         .Attr("magnitude_squared", magnitude_squared)
                         .Finalize());
}

Output Mfcc(const Scope& scope, Input spectrogram, Input sample_rate,
            const MfccAttrs& attrs) {
  return FirstOutput(
      OpBuilder(scope, "Mfcc")
          .Input(spectrogram)
          .Input(sample_rate)
          .Attr("upper_frequency_limit", attrs.upper_frequency_limit)
          .Attr("lower_frequency_limit", attrs.lower_frequency_limit)
          .Attr("filterbank_channel_count", attrs.filterbank_channel_count)
          .Attr("dct_coefficient_count", attrs.dct_coefficient_count)
          .Finalize());
}

}  // namespace ops
}  // namespace dflow
