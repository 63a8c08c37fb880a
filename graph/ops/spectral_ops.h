// Spectral ops (tf.signal's FFTs): complex-to-complex transforms over the
// innermost 1, 2 or 3 dimensions (FFT, IFFT, FFT2D, ...) and the real ones
// (RFFT: real input, the fft_length / 2 + 1 non-negative frequencies of the
// innermost dimension; IRFFT: back), with TensorFlow 2.21's op names,
// arguments and attrs. The inverse transforms divide by the number of
// points, as TensorFlow's and NumPy's do.
//
// fft_length (an int32 vector of 1, 2 or 3 lengths) crops the input's
// innermost dimensions (for IRFFT the innermost to fft_length / 2 + 1);
// the kernels do not pad: an input dimension shorter than that is an error,
// as in TensorFlow, whose Python wrappers pad the input with a Pad node.
//
// complex64 pairs with float, complex128 with double. CPU kernels:
// kernels/cpu/spectral_ops.cc (FFTW3).
#ifndef DFLOW_GRAPH_OPS_SPECTRAL_OPS_H_
#define DFLOW_GRAPH_OPS_SPECTRAL_OPS_H_

#include "graph/scope.h"

namespace dflow {
namespace ops {

// Complex to complex, same shape and dtype.
Output FFT(const Scope& scope, Input input);
Output IFFT(const Scope& scope, Input input);
Output FFT2D(const Scope& scope, Input input);
Output IFFT2D(const Scope& scope, Input input);
Output FFT3D(const Scope& scope, Input input);
Output IFFT3D(const Scope& scope, Input input);

// Real (float, double) to complex (complex64, complex128) and back.
Output RFFT(const Scope& scope, Input input, Input fft_length);
Output IRFFT(const Scope& scope, Input input, Input fft_length);
Output RFFT2D(const Scope& scope, Input input, Input fft_length);
Output IRFFT2D(const Scope& scope, Input input, Input fft_length);
Output RFFT3D(const Scope& scope, Input input, Input fft_length);
Output IRFFT3D(const Scope& scope, Input input, Input fft_length);

}  // namespace ops
}  // namespace dflow

#endif  // DFLOW_GRAPH_OPS_SPECTRAL_OPS_H_
