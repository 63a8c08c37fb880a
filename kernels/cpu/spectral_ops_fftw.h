// Batched discrete Fourier transforms on FFTW 3 for the CPU kernels: the
// FFT ops (spectral_ops.cc) and AudioSpectrogram (audio_ops_spectrogram.cc).
//
// Each function transforms `batch` contiguous row-major arrays of the
// logical shape `dims` (rank 1 to 3), unnormalized (the inverse transforms
// do not divide by the number of points: callers scale), forward with
// exp(-2 pi i jk / n). The real transforms keep the innermost dimension's
// dims.back() / 2 + 1 non-negative frequencies. Arrays are sharded over the
// kernel's thread pool, one whole transform per task, so the result does
// not depend on the thread count.
//
// Plans are made with FFTW_ESTIMATE (no timing runs: the same plan, so the
// same bits, every run) and FFTW_UNALIGNED (valid for any address, so
// tensors of any alignment give the same bits), cached per shape and kind.
// FFTW's planner is not thread-safe, its new-array execute functions are:
// planning is serialized here, execution is not.
#ifndef DFLOW_KERNELS_CPU_SPECTRAL_OPS_FFTW_H_
#define DFLOW_KERNELS_CPU_SPECTRAL_OPS_FFTW_H_

#include <complex>
#include <cstdint>

#include "absl/status/status.h"
#include "absl/types/span.h"
#include "runtime/op_kernel.h"

namespace dflow {
namespace fftw {

// The largest element count of one transform (FFTW's sizes are ints).
inline constexpr int64_t kMaxPoints = int64_t{1} << 30;

// out = DFT(in) (forward) or the unnormalized inverse. in and out do not
// overlap; both hold batch * prod(dims) elements.
template <typename R>
absl::Status ComplexToComplex(OpKernelContext* ctx,
                              absl::Span<const int64_t> dims, int64_t batch,
                              bool forward, const std::complex<R>* in,
                              std::complex<R>* out);

// in: batch * prod(dims) reals; out: batch * prod(dims[:-1]) *
// (dims.back() / 2 + 1) complex numbers.
template <typename R>
absl::Status RealToComplex(OpKernelContext* ctx,
                           absl::Span<const int64_t> dims, int64_t batch,
                           const R* in, std::complex<R>* out);

// The unnormalized inverse of RealToComplex: in has RealToComplex's output
// layout and is left unchanged (the transforms run on copies); the
// imaginary parts of the innermost dimension's zero frequency (and, for an
// even length, its last) do not contribute, as in every c2r transform.
template <typename R>
absl::Status ComplexToReal(OpKernelContext* ctx,
                           absl::Span<const int64_t> dims, int64_t batch,
                           const std::complex<R>* in, R* out);

}  // namespace fftw
}  // namespace dflow

#endif  // DFLOW_KERNELS_CPU_SPECTRAL_OPS_FFTW_H_
