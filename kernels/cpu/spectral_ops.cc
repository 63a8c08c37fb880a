// The FFT ops on the CPU (graph/ops/spectral_ops.h), on FFTW 3
// (spectral_ops_fftw.h): FFT/IFFT/FFT2D/IFFT2D/FFT3D/IFFT3D and the real
// RFFT/IRFFT/RFFT2D/IRFFT2D/RFFT3D/IRFFT3D, over the innermost 1-3
// dimensions, with TensorFlow 2.21's checks and semantics:
//   - fft_length crops the input's innermost dimensions (IRFFT's innermost
//     to fft_length / 2 + 1); an input dimension shorter than that is an
//     error unless it is 0 (an empty input gives zeros);
//   - the inverse transforms divide by the number of output points, with
//     the factor in the element precision, as TensorFlow does;
//   - float pairs with complex64, double with complex128 (other pairs are
//     accepted by the OpDef and refused here, as TensorFlow's kernel does).
// Values differ from TensorFlow's (DUCC's pocketfft) in the last bits only:
// both are O(log n) accurate FFTs, with other operation orders.
#include <complex>
#include <cstdint>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "graph/tensor.h"
#include "graph/types.h"
#include "kernels/cpu/kernel_util.h"
#include "kernels/cpu/spectral_ops_fftw.h"
#include "runtime/kernel_registry.h"
#include "runtime/op_kernel.h"

namespace dflow {
namespace {

// Copies the leading box `dst_dims` of each of `batch` row-major arrays of
// `src_dims` (dst_dims[i] <= src_dims[i]) into a compact array.
template <typename T>
void CropInnerDims(const T* src, const std::vector<int64_t>& src_dims,
                   const std::vector<int64_t>& dst_dims, int64_t batch,
                   T* dst) {
  const int rank = static_cast<int>(src_dims.size());
  const int64_t row = dst_dims[rank - 1];
  int64_t rows = batch;  // rows of `row` elements to copy
  for (int i = 0; i + 1 < rank; ++i) rows *= dst_dims[i];
  std::vector<int64_t> index(rank, 0);  // over [batch, dst_dims[:-1]]
  for (int64_t r = 0; r < rows; ++r) {
    // The source offset of row r: decompose r over dst_dims[:-1] and the
    // batch, then weigh with the source strides.
    int64_t rest = r, offset = 0, stride = src_dims[rank - 1];
    for (int i = rank - 2; i >= 0; --i) {
      offset += (rest % dst_dims[i]) * stride;
      rest /= dst_dims[i];
      stride *= src_dims[i];
    }
    offset += rest * stride;
    std::copy(src + offset, src + offset + row, dst + r * row);
  }
}

// The factor is rounded to the element precision first, as TensorFlow's
// kernel passes it to DUCC.
template <typename R>
void Scale(R* data, int64_t n, double factor) {
  const R f = static_cast<R>(factor);
  for (int64_t i = 0; i < n; ++i) data[i] *= f;
}
template <typename R>
void Scale(std::complex<R>* data, int64_t n, double factor) {
  Scale(reinterpret_cast<R*>(data), 2 * n, factor);
}

template <int kRank, bool kForward, bool kReal>
class FftOp : public OpKernel {
 public:
  explicit FftOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}

  void Compute(OpKernelContext* ctx) override {
    const Tensor& in = ctx->input(0);
    const TensorShape& in_shape = in.shape();
    const int rank = in_shape.rank();
    OP_REQUIRES(ctx, rank >= kRank,
                absl::InvalidArgumentError(absl::StrCat(
                    "Input must have rank of at least ", kRank, " but got: ",
                    in_shape.ToString())));
    OP_REQUIRES_OK(ctx, CheckTypes(in.dtype(), output_type(0)));
    TensorShape out_shape = in_shape;
    std::vector<int64_t> fft(kRank);  // the transform's (real side's) lengths
    if (kReal) {
      OP_REQUIRES_OK(ctx, RealLengths(ctx->input(1), in_shape, &fft));
      for (int i = 0; i < kRank; ++i) {
        const bool inner = i == kRank - 1;
        out_shape.set_dim(rank - kRank + i, kForward && inner && fft[i] != 0
                                                ? fft[i] / 2 + 1
                                                : fft[i]);
      }
    } else {
      for (int i = 0; i < kRank; ++i) fft[i] = in_shape.dim(rank - kRank + i);
    }
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, out_shape, &out));
    if (out->NumElements() == 0) return;
    if (in.NumElements() == 0) {
      // An empty innermost input dimension (allowed by TensorFlow's check)
      // is all padding: the transform of zeros.
      std::fill_n(static_cast<char*>(out->raw_data()), out->TotalBytes(), 0);
      return;
    }
    int64_t batch = 1;
    for (int i = 0; i < rank - kRank; ++i) batch *= in_shape.dim(i);
    std::vector<int64_t> in_inner(kRank);
    for (int i = 0; i < kRank; ++i) in_inner[i] = in_shape.dim(rank - kRank + i);
    if (in.dtype() == DT_FLOAT || in.dtype() == DT_COMPLEX64) {
      OP_REQUIRES_OK(ctx, Run<float>(ctx, in, in_inner, fft, batch, out));
    } else {
      OP_REQUIRES_OK(ctx, Run<double>(ctx, in, in_inner, fft, batch, out));
    }
  }

 private:
  static absl::Status CheckTypes(DataType in, DataType out) {
    const bool ok =
        kReal ? (kForward ? (in == DT_FLOAT && out == DT_COMPLEX64) ||
                                (in == DT_DOUBLE && out == DT_COMPLEX128)
                          : (in == DT_COMPLEX64 && out == DT_FLOAT) ||
                                (in == DT_COMPLEX128 && out == DT_DOUBLE))
              : (in == DT_COMPLEX64 && out == DT_COMPLEX64) ||
                    (in == DT_COMPLEX128 && out == DT_COMPLEX128);
    if (ok) return absl::OkStatus();
    return absl::InvalidArgumentError(absl::StrCat(
        "Wrong types for ", kReal ? (kForward ? "forward real " : "backward real ")
                                  : "",
        "FFT: in=", DataTypeName(in), " out=", DataTypeName(out),
        kReal ? " (float pairs with complex64, double with complex128)" : ""));
  }

  // fft_length: int32 [kRank], each >= 0, and every innermost input
  // dimension at least that long (IRFFT's innermost: fft_length / 2 + 1)
  // unless it is empty.
  static absl::Status RealLengths(const Tensor& lengths,
                                  const TensorShape& in_shape,
                                  std::vector<int64_t>* fft) {
    if (lengths.shape().rank() != 1 || lengths.shape().dim(0) != kRank) {
      return absl::InvalidArgumentError(
          absl::StrCat("fft_length must have shape [", kRank, "] but has ",
                       lengths.shape().ToString()));
    }
    const int rank = in_shape.rank();
    for (int i = 0; i < kRank; ++i) {
      const int64_t n = lengths.data<int32_t>()[i];
      if (n < 0) {
        return absl::InvalidArgumentError(
            absl::StrCat("fft_length[", i, "] must be >= 0, but got: ", n));
      }
      (*fft)[i] = n;
      const bool inner = i == kRank - 1;
      const int64_t need = !kForward && inner ? n / 2 + 1 : n;
      const int64_t have = in_shape.dim(rank - kRank + i);
      if (have != 0 && have < need) {
        return absl::InvalidArgumentError(absl::StrCat(
            "Input dimension ", rank - kRank + i,
            " must have length of at least ", need, " but got: ", have,
            " (input ", in_shape.ToString(), ", fft_length [",
            absl::StrJoin(lengths.flat<int32_t>(), ","),
            "]); the kernel only crops: pad the input to the FFT length"));
      }
    }
    return absl::OkStatus();
  }

  template <typename R>
  static absl::Status Run(OpKernelContext* ctx, const Tensor& in,
                          const std::vector<int64_t>& in_inner,
                          const std::vector<int64_t>& fft, int64_t batch,
                          Tensor* out) {
    using C = std::complex<R>;
    int64_t points = 1;
    for (int64_t n : fft) points *= n;
    if (!kReal) {
      C* o = out->data<C>();
      absl::Status s = fftw::ComplexToComplex<R>(ctx, fft, batch, kForward,
                                                 in.data<C>(), o);
      if (s.ok() && !kForward) Scale(o, out->NumElements(), 1.0 / points);
      return s;
    }
    // The input's innermost dims as the transform reads them.
    std::vector<int64_t> want = fft;
    if (!kForward) want.back() = fft.back() / 2 + 1;
    if (kForward) {
      const R* src = in.data<R>();
      std::vector<R> cropped;
      if (want != in_inner) {
        cropped.resize(batch * points);
        CropInnerDims(src, in_inner, want, batch, cropped.data());
        src = cropped.data();
      }
      return fftw::RealToComplex<R>(ctx, fft, batch, src, out->data<C>());
    }
    const C* src = in.data<C>();
    std::vector<C> cropped;
    if (want != in_inner) {
      int64_t n = batch;
      for (int64_t d : want) n *= d;
      cropped.resize(n);
      CropInnerDims(src, in_inner, want, batch, cropped.data());
      src = cropped.data();
    }
    R* o = out->data<R>();
    absl::Status s = fftw::ComplexToReal<R>(ctx, fft, batch, src, o);
    if (s.ok()) Scale(o, out->NumElements(), 1.0 / points);
    return s;
  }
};

#define DFLOW_REGISTER_COMPLEX_FFT(name, rank, forward)                       \
  DFLOW_REGISTER_KERNEL(KernelDefBuilder(name)                                \
                            .Device(kDeviceCpu)                               \
                            .TypeConstraint("Tcomplex", {DT_COMPLEX64,        \
                                                         DT_COMPLEX128}),     \
                        FftOp<rank, forward, false>)

#define DFLOW_REGISTER_REAL_FFT(name, rank, forward)                          \
  DFLOW_REGISTER_KERNEL(KernelDefBuilder(name)                                \
                            .Device(kDeviceCpu)                               \
                            .TypeConstraint("Treal", {DT_FLOAT, DT_DOUBLE})   \
                            .TypeConstraint("Tcomplex", {DT_COMPLEX64,        \
                                                         DT_COMPLEX128}),     \
                        FftOp<rank, forward, true>)

DFLOW_REGISTER_COMPLEX_FFT("FFT", 1, true);
DFLOW_REGISTER_COMPLEX_FFT("IFFT", 1, false);
DFLOW_REGISTER_COMPLEX_FFT("FFT2D", 2, true);
DFLOW_REGISTER_COMPLEX_FFT("IFFT2D", 2, false);
DFLOW_REGISTER_COMPLEX_FFT("FFT3D", 3, true);
DFLOW_REGISTER_COMPLEX_FFT("IFFT3D", 3, false);
DFLOW_REGISTER_REAL_FFT("RFFT", 1, true);
DFLOW_REGISTER_REAL_FFT("IRFFT", 1, false);
DFLOW_REGISTER_REAL_FFT("RFFT2D", 2, true);
DFLOW_REGISTER_REAL_FFT("IRFFT2D", 2, false);
DFLOW_REGISTER_REAL_FFT("RFFT3D", 3, true);
DFLOW_REGISTER_REAL_FFT("IRFFT3D", 3, false);

#undef DFLOW_REGISTER_COMPLEX_FFT
#undef DFLOW_REGISTER_REAL_FFT

}  // namespace
}  // namespace dflow
