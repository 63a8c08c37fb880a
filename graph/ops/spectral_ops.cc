// Schemas, shape functions and wrappers of the FFT ops (spectral_ops.h),
// following TensorFlow 2.21's core/ops/spectral_ops.cc.
#include <cstdint>
#include <vector>

#include "absl/status/status.h"
#include "graph/op_registry.h"
#include "graph/ops/shape_fn_util.h"
#include "graph/ops/spectral_ops.h"
#include "graph/shape_inference.h"
#include "graph/tensor_shape.h"

namespace dflow {
namespace {

using shape_fn_util::FirstOutput;
using shape_fn_util::InvalidArgument;

constexpr char kComplexTypes[] =
    "Tcomplex: {complex64, complex128} = complex64";
constexpr char kRealTypes[] = "Treal: {float, double} = float";

// The complex transforms keep the shape; it must have rank >= `rank`.
absl::Status ComplexFftShape(InferenceContext* c, int rank) {
  TensorShape input;
  DFLOW_RETURN_IF_ERROR(
      c->WithRankAtLeast(c->input(0), rank, "input 'input'", &input));
  c->set_output(0, input);
  return absl::OkStatus();
}

// The real transforms replace the innermost `rank` dims by fft_length
// (for RFFT, the innermost by fft_length / 2 + 1, or 0 for a length of 0),
// or by unknown dims when fft_length is only known at run time.
absl::Status RealFftShape(InferenceContext* c, int rank, bool forward) {
  TensorShape out;
  DFLOW_RETURN_IF_ERROR(
      c->WithRankAtLeast(c->input(0), rank, "input 'input'", &out));
  TensorShape lengths;
  DFLOW_RETURN_IF_ERROR(
      c->WithRank(c->input(1), 1, "input 'fft_length'", &lengths));
  if (lengths.dim(0) != TensorShape::kUnknownDim && lengths.dim(0) != rank) {
    return InvalidArgument("fft_length must have shape [", rank, "] but has ",
                           lengths.ToString());
  }
  if (out.unknown_rank()) {
    c->set_output(0, out);
    return absl::OkStatus();
  }
  std::vector<int64_t> fft_length;
  const bool known = c->ConstantInputAsInts(1, &fft_length);
  if (known && static_cast<int>(fft_length.size()) != rank) {
    return InvalidArgument("fft_length must have ", rank,
                           " elements but has ", fft_length.size());
  }
  for (int i = 0; i < rank; ++i) {
    const int d = out.rank() - rank + i;
    if (!known) {
      out.set_dim(d, TensorShape::kUnknownDim);
      continue;
    }
    int64_t n = fft_length[i];
    if (n < 0) {
      return InvalidArgument("fft_length[", i, "] must be >= 0 but is ", n);
    }
    if (forward && i == rank - 1 && n != 0) n = n / 2 + 1;
    out.set_dim(d, n);
  }
  c->set_output(0, out);
  return absl::OkStatus();
}

#define DFLOW_COMPLEX_FFT_OP(name, rank, doc)                    \
  DFLOW_REGISTER_OP(name)                                        \
      .Input("input: Tcomplex")                                  \
      .Output("output: Tcomplex")                                \
      .Attr(kComplexTypes)                                       \
      .SetShapeFn([](InferenceContext* c) {                      \
        return ComplexFftShape(c, rank);                         \
      })                                                         \
      .Doc(doc)

DFLOW_COMPLEX_FFT_OP("FFT", 1, "The DFT over the innermost dimension.");
DFLOW_COMPLEX_FFT_OP("IFFT", 1,
                     "The inverse DFT over the innermost dimension.");
DFLOW_COMPLEX_FFT_OP("FFT2D", 2, "The DFT over the innermost 2 dimensions.");
DFLOW_COMPLEX_FFT_OP("IFFT2D", 2,
                     "The inverse DFT over the innermost 2 dimensions.");
DFLOW_COMPLEX_FFT_OP("FFT3D", 3, "The DFT over the innermost 3 dimensions.");
DFLOW_COMPLEX_FFT_OP("IFFT3D", 3,
                     "The inverse DFT over the innermost 3 dimensions.");

#undef DFLOW_COMPLEX_FFT_OP

#define DFLOW_REAL_FFT_OP(name, rank, doc)                       \
  DFLOW_REGISTER_OP(name)                                        \
      .Input("input: Treal")                                     \
      .Input("fft_length: int32")                                \
      .Output("output: Tcomplex")                                \
      .Attr(kRealTypes)                                          \
      .Attr(kComplexTypes)                                       \
      .SetShapeFn([](InferenceContext* c) {                      \
        return RealFftShape(c, rank, /*forward=*/true);          \
      })                                                         \
      .Doc(doc)

#define DFLOW_INVERSE_REAL_FFT_OP(name, rank, doc)               \
  DFLOW_REGISTER_OP(name)                                        \
      .Input("input: Tcomplex")                                  \
      .Input("fft_length: int32")                                \
      .Output("output: Treal")                                   \
      .Attr(kRealTypes)                                          \
      .Attr(kComplexTypes)                                       \
      .SetShapeFn([](InferenceContext* c) {                      \
        return RealFftShape(c, rank, /*forward=*/false);         \
      })                                                         \
      .Doc(doc)

DFLOW_REAL_FFT_OP("RFFT", 1,
                  "The DFT of a real signal over the innermost dimension: "
                  "its fft_length / 2 + 1 non-negative frequencies.");
DFLOW_INVERSE_REAL_FFT_OP("IRFFT", 1,
                          "The real signal of fft_length samples whose RFFT "
                          "is the input (its innermost dimension).");
DFLOW_REAL_FFT_OP("RFFT2D", 2,
                  "The DFT of a real signal over the innermost 2 "
                  "dimensions (the innermost halved, as in RFFT).");
DFLOW_INVERSE_REAL_FFT_OP("IRFFT2D", 2, "The inverse of RFFT2D.");
DFLOW_REAL_FFT_OP("RFFT3D", 3,
                  "The DFT of a real signal over the innermost 3 "
                  "dimensions (the innermost halved, as in RFFT).");
DFLOW_INVERSE_REAL_FFT_OP("IRFFT3D", 3, "The inverse of RFFT3D.");

#undef DFLOW_REAL_FFT_OP
#undef DFLOW_INVERSE_REAL_FFT_OP

DataType DtypeOf(const Input& x) {
  return BaseType(x.is_const() ? x.tensor().dtype() : x.output().dtype());
}

Output ComplexFft(const Scope& scope, const char* op, const Input& input) {
  return FirstOutput(OpBuilder(scope, op).Input(input).Finalize());
}

// Treal and Tcomplex pair up (float with complex64, double with
// complex128); the one the input does not set follows the other.
Output RealFft(const Scope& scope, const char* op, bool forward,
               const Input& input, const Input& fft_length) {
  OpBuilder b(scope, op);
  b.Input(input).Input(fft_length);
  const DataType t = DtypeOf(input);
  if (forward && t == DT_DOUBLE) b.Attr("Tcomplex", DT_COMPLEX128);
  if (!forward && t == DT_COMPLEX128) b.Attr("Treal", DT_DOUBLE);
  return FirstOutput(b.Finalize());
}

}  // namespace

namespace ops {

Output FFT(const Scope& scope, Input input) {
  return ComplexFft(scope, "FFT", input);
}
Output IFFT(const Scope& scope, Input input) {
  return ComplexFft(scope, "IFFT", input);
}
Output FFT2D(const Scope& scope, Input input) {
  return ComplexFft(scope, "FFT2D", input);
}
Output IFFT2D(const Scope& scope, Input input) {
  return ComplexFft(scope, "IFFT2D", input);
}
Output FFT3D(const Scope& scope, Input input) {
  return ComplexFft(scope, "FFT3D", input);
}
Output IFFT3D(const Scope& scope, Input input) {
  return ComplexFft(scope, "IFFT3D", input);
}

Output RFFT(const Scope& scope, Input input, Input fft_length) {
  return RealFft(scope, "RFFT", true, input, fft_length);
}
Output IRFFT(const Scope& scope, Input input, Input fft_length) {
  return RealFft(scope, "IRFFT", false, input, fft_length);
}
Output RFFT2D(const Scope& scope, Input input, Input fft_length) {
  return RealFft(scope, "RFFT2D", true, input, fft_length);
}
Output IRFFT2D(const Scope& scope, Input input, Input fft_length) {
  return RealFft(scope, "IRFFT2D", false, input, fft_length);
}
Output RFFT3D(const Scope& scope, Input input, Input fft_length) {
  return RealFft(scope, "RFFT3D", true, input, fft_length);
}
Output IRFFT3D(const Scope& scope, Input input, Input fft_length) {
  return RealFft(scope, "IRFFT3D", false, input, fft_length);
}

}  // namespace ops
}  // namespace dflow
