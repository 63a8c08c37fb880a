// The part of the every-op graph (all_ops_graph.h) with complex numbers,
// FFTs and audio: every op of graph/ops/math_ops_complex.cc,
// spectral_ops.h and audio_ops.h once.
#include "graph/ops/ops.h"
#include "tests/graph/all_ops_graph.h"

namespace dflow {

void BuildComplexAndSignalOps(const Scope& root) {
  const Scope s = root.NewSubScope("signal");
  Output re = ops::Placeholder(s.WithOpName("re"), DT_FLOAT,
                               ops::PlaceholderAttrs().Shape({4, 8, 8}));
  Output z = ops::Complex(s, re, ops::Neg(s, re));
  ops::Real(s, z);
  ops::Imag(s, z);
  ops::Angle(s, z);
  ops::ComplexAbs(s, ops::Conj(s, z));
  ops::IFFT(s, ops::FFT(s, z));
  ops::IFFT2D(s, ops::FFT2D(s, z));
  ops::IFFT3D(s, ops::FFT3D(s, z));
  ops::IRFFT(s, ops::RFFT(s, re, {8}), {8});
  ops::IRFFT2D(s, ops::RFFT2D(s, re, {8, 8}), {8, 8});
  ops::IRFFT3D(s, ops::RFFT3D(s, re, {4, 8, 8}), {4, 8, 8});

  Output wav = ops::Placeholder(s.WithOpName("wav"), DT_STRING,
                                ops::PlaceholderAttrs().Shape({}));
  ops::DecodeWavOutputs decoded = ops::DecodeWav(
      s, wav, ops::DecodeWavAttrs().DesiredChannels(1).DesiredSamples(16000));
  ops::EncodeWav(s, decoded.audio, decoded.sample_rate);
  Output spectrogram = ops::AudioSpectrogram(s, decoded.audio, 480, 160, true);
  ops::Mfcc(s, spectrogram, decoded.sample_rate,
            ops::MfccAttrs().DctCoefficientCount(40));
}

}  // namespace dflow
