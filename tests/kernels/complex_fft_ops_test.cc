// Complex numbers, FFTs, tf.signal and the audio ops on graphs TensorFlow
// 2.21 wrote, against TensorFlow's values
// (tools/tf_reference/make_complex_fft_reference.py): tf_complex_fft holds
// the complex ops, complex arithmetic and the 12 FFT ops (cropping,
// padding, odd lengths, non-Hermitian IRFFT input) with the gradients
// TensorFlow writes through them; tf_audio_signal holds tf.signal's
// stft/inverse_stft/frame/overlap_and_add/mel matrix/MFCCs (and the MFCC
// pipeline's gradient) and EncodeWav, DecodeWav, AudioSpectrogram, Mfcc.
//
// Tolerance: integers, bools and bytes exactly; floating values within
// rtol * (|want| + max |want| of the fetch), rtol 4e-6 for float32 and
// complex64, 1e-12 for float64 and complex128. An FFT's rounding error is
// relative to the norm of the whole transform, not to each element, hence
// the fetch's scale; dflow's FFTW and TensorFlow's DUCC (pocketfft) order
// their operations differently, so the last bits differ.
//
// Then: transforms of prime and composite lengths against a direct DFT in
// long double, the same bits on every run, and the bad inputs, each an
// InvalidArgument saying what is wrong.
#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdint>
#include <cstring>
#include <iostream>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "graph/ops/ops.h"
#include "graph/tensor.h"
#include "gtest/gtest.h"
#include "runtime/session.h"
#include "tests/kernels/kernel_test_util.h"
#include "tests/kernels/tf_value_cases.h"

namespace dflow {
namespace {

using ::testing::HasSubstr;
using testing_tf_values::DtypeOf;
using testing_tf_values::FlatValue;
using testing_tf_values::Line;
using testing_tf_values::NumValues;

// The largest error seen relative to its fetch's scale, and where.
struct Worst {
  double error = 0;
  std::string fetch;
  void Update(double e, const std::string& name) {
    if (e > error) {
      error = e;
      fetch = name;
    }
  }
};

// Runs dir's graph and compares every fetch; records the largest errors
// per precision (single, double).
void ExpectTensorFlowsValues(const std::string& dir, size_t min_lines,
                             Worst* worst_single, Worst* worst_double) {
  const std::vector<Line> lines =
      testing_tf_values::ReadLines(dir + "cases.txt");
  ASSERT_GT(lines.size(), min_lines);
  std::vector<const Line*> fetched;
  std::vector<Tensor> outputs;
  testing_tf_values::RunGraph(dir, lines, &fetched, &outputs);
  ASSERT_EQ(outputs.size(), fetched.size());
  for (size_t f = 0; f < fetched.size(); ++f) {
    const Line& want = *fetched[f];
    const Tensor& got = outputs[f];
    SCOPED_TRACE(want.name);
    ASSERT_EQ(got.dtype(), DtypeOf(want.dtype));
    EXPECT_EQ(got.shape(), TensorShape(want.shape));
    ASSERT_EQ(NumValues(got), static_cast<int64_t>(want.values.size()));
    const bool single = want.dtype == "float32" || want.dtype == "complex64";
    const bool floating = single || want.dtype == "float64" ||
                          want.dtype == "complex128";
    const double rtol = single ? 4e-6 : 1e-12;
    double scale = 0;
    for (double w : want.values) {
      if (std::isfinite(w)) scale = std::max(scale, std::fabs(w));
    }
    Worst* worst = single ? worst_single : worst_double;
    for (int64_t i = 0; i < NumValues(got); ++i) {
      const double w = want.values[i];
      const double g = FlatValue(got, i);
      if (!floating) {
        EXPECT_EQ(g, w) << "value " << i;
      } else if (std::isnan(w) || std::isinf(w)) {
        EXPECT_TRUE(std::isnan(w) ? std::isnan(g) : g == w)
            << "value " << i << ": " << g << " vs " << w;
      } else {
        EXPECT_NEAR(g, w, rtol * (std::fabs(w) + scale)) << "value " << i;
        if (scale > 0) worst->Update(std::fabs(g - w) / scale, want.name);
      }
    }
  }
}

void Report(const Worst& single, const Worst& dbl) {
  std::cout << "largest error / fetch scale: single " << single.error << " ("
            << single.fetch << "), double " << dbl.error << " (" << dbl.fetch
            << ")\n";
}

TEST(ComplexFftOpsTest, ComplexAndFftGraphGivesTensorFlowsValues) {
  Worst single, dbl;
  ExpectTensorFlowsValues("tests/testdata/tf_complex_fft/", 80, &single,
                          &dbl);
  Report(single, dbl);
}

TEST(ComplexFftOpsTest, SignalAndAudioGraphGivesTensorFlowsValues) {
  Worst single, dbl;
  ExpectTensorFlowsValues("tests/testdata/tf_audio_signal/", 20, &single,
                          &dbl);
  Report(single, dbl);
}

// --- Against a direct DFT. ---

template <typename T>
std::vector<T> Values(const Tensor& t) {
  return std::vector<T>(t.data<T>(), t.data<T>() + t.NumElements());
}

// sum_j x_j exp(-2 pi i jk / n) in long double.
std::vector<std::complex<long double>> DirectDft(
    const std::vector<std::complex<double>>& x) {
  const size_t n = x.size();
  const long double pi = std::acos(-1.0L);
  std::vector<std::complex<long double>> out(n);
  for (size_t k = 0; k < n; ++k) {
    std::complex<long double> sum = 0;
    for (size_t j = 0; j < n; ++j) {
      const long double a = -2 * pi * static_cast<long double>((j * k) % n) / n;
      sum += std::complex<long double>(x[j].real(), x[j].imag()) *
             std::complex<long double>(std::cos(a), std::sin(a));
    }
    out[k] = sum;
  }
  return out;
}

TEST(ComplexFftOpsTest, TransformsOfAnyLengthMatchADirectDft) {
  for (int n : {1, 2, 3, 7, 12, 97, 100, 243, 1000}) {
    SCOPED_TRACE(n);
    Scope root = Scope::NewRootScope();
    Output z = ops::Placeholder(root, DT_COMPLEX128);
    Output fft = ops::FFT(root, z);
    Output x = ops::Placeholder(root, DT_DOUBLE);
    Output rfft = ops::RFFT(root, x, {n});
    ASSERT_TRUE(root.status().ok()) << root.status();
    std::vector<std::complex<double>> input(n);
    Tensor zt(DT_COMPLEX128, TensorShape({n}));
    Tensor xt(DT_DOUBLE, TensorShape({n}));
    for (int j = 0; j < n; ++j) {
      input[j] = {std::sin(0.37 * j * j + 1), std::cos(1.3 * j)};
      zt.data<complex128>()[j] = input[j];
      xt.data<double>()[j] = input[j].real();
    }
    absl::StatusOr<std::vector<Tensor>> got = RunKernel(fft.node(), {zt});
    ASSERT_TRUE(got.ok()) << got.status();
    const std::vector<std::complex<long double>> want = DirectDft(input);
    const std::vector<complex128> g = Values<complex128>((*got)[0]);
    for (int k = 0; k < n; ++k) {
      EXPECT_NEAR(g[k].real(), static_cast<double>(want[k].real()), 1e-12 * n);
      EXPECT_NEAR(g[k].imag(), static_cast<double>(want[k].imag()), 1e-12 * n);
    }
    std::vector<std::complex<double>> real_input(n);
    for (int j = 0; j < n; ++j) real_input[j] = input[j].real();
    const std::vector<std::complex<long double>> want_r = DirectDft(real_input);
    got = RunKernel(rfft.node(), {xt, Tensor::FromVector<int32_t>({n})});
    ASSERT_TRUE(got.ok()) << got.status();
    ASSERT_EQ((*got)[0].dtype(), DT_COMPLEX128);
    ASSERT_EQ((*got)[0].NumElements(), n / 2 + 1);
    const std::vector<complex128> gr = Values<complex128>((*got)[0]);
    for (int k = 0; k <= n / 2; ++k) {
      EXPECT_NEAR(gr[k].real(), static_cast<double>(want_r[k].real()),
                  1e-12 * n);
      EXPECT_NEAR(gr[k].imag(), static_cast<double>(want_r[k].imag()),
                  1e-12 * n);
    }
  }
}

// Frames of several channels, more than one chunk of transforms, against
// the definition: |sum_j x[start + j] w_j exp(-2 pi i jk / 512)|^2.
TEST(ComplexFftOpsTest, SpectrogramFramesMatchADirectDft) {
  constexpr int kSamples = 20000, kChannels = 3, kWindow = 300, kStride = 100;
  Scope root = Scope::NewRootScope();
  Output x = ops::Placeholder(root, DT_FLOAT);
  Output spec = ops::AudioSpectrogram(root, x, kWindow, kStride, true);
  ASSERT_TRUE(root.status().ok()) << root.status();
  Tensor xt(DT_FLOAT, TensorShape({kSamples, kChannels}));
  for (int64_t i = 0; i < xt.NumElements(); ++i) {
    xt.data<float>()[i] = std::sin(0.37f * i) * std::cos(0.0011f * i);
  }
  absl::StatusOr<std::vector<Tensor>> got = RunKernel(spec.node(), {xt});
  ASSERT_TRUE(got.ok()) << got.status();
  const int frames = 1 + (kSamples - kWindow) / kStride;
  ASSERT_EQ((*got)[0].shape(), TensorShape({kChannels, frames, 257}));
  const long double pi = std::acos(-1.0L);
  for (int c : {0, 1, 2}) {
    for (int f : {0, 100, frames - 1}) {
      SCOPED_TRACE(absl::StrCat("channel ", c, " frame ", f));
      std::vector<std::complex<double>> frame(512, 0.0);
      for (int j = 0; j < kWindow; ++j) {
        const long double w = 0.5L - 0.5L * std::cos(2 * pi * j / kWindow);
        frame[j] = static_cast<double>(
            w * xt.data<float>()[(f * kStride + j) * kChannels + c]);
      }
      const std::vector<std::complex<long double>> want = DirectDft(frame);
      const float* row = (*got)[0].data<float>() + (c * frames + f) * 257;
      for (int k = 0; k < 257; ++k) {
        const double power = static_cast<double>(std::norm(want[k]));
        EXPECT_NEAR(row[k], power, 1e-6 * power + 1e-9) << "bin " << k;
      }
    }
  }
}

TEST(ComplexFftOpsTest, RealRoundTripsAndEmptyInputs) {
  Scope root = Scope::NewRootScope();
  Output x = ops::Placeholder(root, DT_FLOAT);
  Output len = ops::Placeholder(root, DT_INT32);
  Output back = ops::IRFFT2D(root, ops::RFFT2D(root, x, len), len);
  Output rfft = ops::RFFT(root, x, len);
  ASSERT_TRUE(root.status().ok()) << root.status();
  std::unique_ptr<Session> session = MakeSession(root);
  ASSERT_NE(session, nullptr);
  Tensor xt(DT_FLOAT, TensorShape({3, 5, 9}));
  for (int64_t i = 0; i < xt.NumElements(); ++i) {
    xt.data<float>()[i] = std::sin(0.5f * i);
  }
  std::vector<Tensor> out;
  ASSERT_TRUE(session
                  ->Run({{x.name(), xt},
                         {len.name(), Tensor::FromVector<int32_t>({5, 9})}},
                        {back.name()}, {}, &out)
                  .ok());
  ASSERT_EQ(out[0].shape(), TensorShape({3, 5, 9}));
  for (int64_t i = 0; i < xt.NumElements(); ++i) {
    EXPECT_NEAR(out[0].data<float>()[i], xt.data<float>()[i], 1e-5);
  }
  // An empty innermost dimension passes TensorFlow's check: the transform
  // of nothing but padding is zeros.
  absl::StatusOr<std::vector<Tensor>> empty =
      RunKernel(rfft.node(), {Tensor(DT_FLOAT, TensorShape({2, 0})),
                              Tensor::FromVector<int32_t>({6})});
  ASSERT_TRUE(empty.ok()) << empty.status();
  ASSERT_EQ((*empty)[0].shape(), TensorShape({2, 4}));
  for (const complex64& v : Values<complex64>((*empty)[0])) {
    EXPECT_EQ(v, complex64(0, 0));
  }
  // fft_length 0 gives an empty innermost dimension.
  empty = RunKernel(rfft.node(), {Tensor(DT_FLOAT, TensorShape({2, 3})),
                                  Tensor::FromVector<int32_t>({0})});
  ASSERT_TRUE(empty.ok()) << empty.status();
  EXPECT_EQ((*empty)[0].shape(), TensorShape({2, 0}));
}

TEST(ComplexFftOpsTest, SameBitsEveryRun) {
  Scope root = Scope::NewRootScope();
  Output z = ops::Placeholder(root.WithOpName("z"), DT_COMPLEX64);
  Output f = ops::FFT2D(root.WithOpName("f"), z);
  Output x = ops::Placeholder(root.WithOpName("x"), DT_FLOAT);
  Output spec = ops::AudioSpectrogram(root.WithOpName("spec"), x, 400, 160);
  ASSERT_TRUE(root.status().ok()) << root.status();
  Tensor zt(DT_COMPLEX64, TensorShape({32, 24, 60}));
  for (int64_t i = 0; i < zt.NumElements(); ++i) {
    zt.data<complex64>()[i] = {std::sin(0.1f * i), std::cos(0.7f * i)};
  }
  Tensor xt(DT_FLOAT, TensorShape({16000, 2}));
  for (int64_t i = 0; i < xt.NumElements(); ++i) {
    xt.data<float>()[i] = std::sin(0.013f * i);
  }
  std::vector<std::vector<Tensor>> runs(3);
  for (auto& out : runs) {
    std::unique_ptr<Session> session = MakeSession(root);
    ASSERT_NE(session, nullptr);
    ASSERT_TRUE(
        session->Run({{"z", zt}, {"x", xt}}, {"f", "spec"}, {}, &out).ok());
  }
  for (int r = 1; r < 3; ++r) {
    for (int k = 0; k < 2; ++k) {
      ASSERT_EQ(runs[r][k].TotalBytes(), runs[0][k].TotalBytes());
      EXPECT_EQ(std::memcmp(runs[r][k].raw_data(), runs[0][k].raw_data(),
                            runs[0][k].TotalBytes()),
                0);
    }
  }
  // And one kernel on one thread gives the same bits as the session.
  absl::StatusOr<std::vector<Tensor>> single = RunKernel(f.node(), {zt});
  ASSERT_TRUE(single.ok()) << single.status();
  EXPECT_EQ(std::memcmp((*single)[0].raw_data(), runs[0][0].raw_data(),
                        runs[0][0].TotalBytes()),
            0);
}

// --- Bad inputs. ---

absl::Status RunError(const Output& out, const std::vector<Tensor>& in) {
  absl::StatusOr<std::vector<Tensor>> r = RunKernel(out.node(), in);
  return r.status();
}

void ExpectInvalid(const absl::Status& s, const std::string& text) {
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << s;
  EXPECT_THAT(std::string(s.message()), HasSubstr(text));
}

TEST(ComplexFftOpsTest, FftsRefuseBadInputs) {
  Scope root = Scope::NewRootScope();
  Output z = ops::Placeholder(root, DT_COMPLEX64);
  Output x = ops::Placeholder(root, DT_FLOAT);
  Output len = ops::Placeholder(root, DT_INT32);
  const Tensor z8(DT_COMPLEX64, TensorShape({2, 8}));
  const Tensor x8(DT_FLOAT, TensorShape({2, 8}));
  ExpectInvalid(RunError(ops::FFT(root, z),
                         {Tensor(DT_COMPLEX64, TensorShape({}))}),
                "Input must have rank of at least 1 but got: []");
  ExpectInvalid(RunError(ops::IFFT3D(root, z), {z8}),
                "Input must have rank of at least 3 but got: [2,8]");
  ExpectInvalid(RunError(ops::RFFT(root, x, len),
                         {x8, Tensor::FromVector<int32_t>({8, 8})}),
                "fft_length must have shape [1] but has [2]");
  ExpectInvalid(RunError(ops::RFFT(root, x, len),
                         {x8, Tensor::FromVector<int32_t>({16})}),
                "Input dimension 1 must have length of at least 16 but got: "
                "8");
  ExpectInvalid(RunError(ops::RFFT2D(root, x, len),
                         {x8, Tensor::FromVector<int32_t>({3, 8})}),
                "Input dimension 0 must have length of at least 3 but got: 2");
  ExpectInvalid(RunError(ops::RFFT(root, x, len),
                         {x8, Tensor::FromVector<int32_t>({-4})}),
                "fft_length[0] must be >= 0, but got: -4");
  // IRFFT reads fft_length / 2 + 1 values of the innermost dimension.
  ExpectInvalid(RunError(ops::IRFFT(root, z, len),
                         {z8, Tensor::FromVector<int32_t>({16})}),
                "must have length of at least 9 but got: 8");
  // A float input asking for a complex128 result: the OpDef allows the
  // pair, the kernel does not.
  Output mixed(OpBuilder(root, "RFFT")
                   .Input(x)
                   .Input(len)
                   .Attr("Tcomplex", DT_COMPLEX128)
                   .Finalize());
  ASSERT_TRUE(root.status().ok()) << root.status();
  ExpectInvalid(RunError(mixed, {x8, Tensor::FromVector<int32_t>({8})}),
                "Wrong types for forward real FFT: in=float out=complex128");
  // A constant fft_length is checked when the graph is built.
  Scope bad = Scope::NewRootScope();
  ops::RFFT(bad, ops::Placeholder(bad, DT_FLOAT), {4, 4});
  EXPECT_THAT(std::string(bad.status().message()),
              HasSubstr("fft_length must have shape [1]"));
}

TEST(ComplexFftOpsTest, ComplexPartsRefuseMismatchedTypes) {
  Scope root = Scope::NewRootScope();
  Output x = ops::Placeholder(root, DT_FLOAT);
  Output z = ops::Placeholder(root, DT_COMPLEX64);
  Output wide(OpBuilder(root, "Complex")
                  .Input(x)
                  .Input(x)
                  .Attr("Tout", DT_COMPLEX128)
                  .Finalize());
  Output real(
      OpBuilder(root, "Real").Input(z).Attr("Tout", DT_DOUBLE).Finalize());
  ASSERT_TRUE(root.status().ok()) << root.status();
  const Tensor x2 = Tensor::FromVector<float>({1, 2});
  ExpectInvalid(RunError(wide, {x2, x2}),
                "Complex of float parts makes complex64, not complex128");
  ExpectInvalid(RunError(real, {Tensor(DT_COMPLEX64, TensorShape({2}))}),
                "Real of complex64 gives float, not double");
  ExpectInvalid(RunError(ops::Complex(root, x, x),
                         {x2, Tensor::FromVector<float>({1, 2, 3})}),
                "Incompatible shapes");
  // The builder pairs the types itself.
  Output zd = ops::Complex(root, ops::Placeholder(root, DT_DOUBLE), 1.0);
  EXPECT_EQ(zd.dtype(), DT_COMPLEX128);
  EXPECT_EQ(ops::Angle(root, zd).dtype(), DT_DOUBLE);
}

// A WAV file: RIFF header, format chunk and data chunk, with every field
// settable so tests can break one at a time.
struct WavBytes {
  std::string riff = "RIFF", wave = "WAVE", fmt = "fmt ", data = "data";
  uint32_t fmt_size = 16;
  uint16_t format = 1, channels = 1, bits = 16;
  uint32_t rate = 8000;
  int16_t block_align_delta = 0;
  std::vector<int16_t> samples = {0, 16384, -32768, 32767};
  int32_t data_size_delta = 0;
  std::string extra;  // appended after the data chunk

  static void Put(std::string* s, uint64_t v, int n) {
    for (int i = 0; i < n; ++i) s->push_back(static_cast<char>(v >> (8 * i)));
  }
  std::string Build() const {
    std::string body = wave + fmt;
    Put(&body, fmt_size, 4);
    const uint16_t align = channels * 2 + block_align_delta;
    Put(&body, format, 2);
    Put(&body, channels, 2);
    Put(&body, rate, 4);
    Put(&body, uint64_t{align} * rate, 4);
    Put(&body, align, 2);
    Put(&body, bits, 2);
    if (fmt_size == 18) Put(&body, 0, 2);
    body += data;
    Put(&body, samples.size() * 2 + data_size_delta, 4);
    for (int16_t v : samples) Put(&body, static_cast<uint16_t>(v), 2);
    body += extra;
    std::string file = riff;
    Put(&file, body.size(), 4);
    return file + body;
  }
};

TEST(ComplexFftOpsTest, DecodeWavReadsGoodFilesAndNamesWhatIsWrong) {
  Scope root = Scope::NewRootScope();
  Output contents = ops::Placeholder(root, DT_STRING);
  ops::DecodeWavOutputs decoded = ops::DecodeWav(root, contents);
  ASSERT_TRUE(root.status().ok()) << root.status();
  auto decode = [&](const std::string& file) {
    return RunKernel(decoded.audio.node(),
                     {Tensor::Scalar<std::string>(file)});
  };
  absl::StatusOr<std::vector<Tensor>> good = decode(WavBytes().Build());
  ASSERT_TRUE(good.ok()) << good.status();
  EXPECT_EQ((*good)[0].shape(), TensorShape({4, 1}));
  EXPECT_EQ(Values<float>((*good)[0]),
            (std::vector<float>{0.0f, 0.5f, -1.0f, 32767.0f / 32768}));
  EXPECT_EQ((*good)[1].data<int32_t>()[0], 8000);

  WavBytes w;
  w.riff = "RIFX";
  ExpectInvalid(decode(w.Build()).status(),
                "malformed WAV: expected 'RIFF' (the RIFF chunk id) but found "
                "'RIFX'");
  ExpectInvalid(decode(WavBytes().Build().substr(0, 30)).status(),
                "malformed WAV: the file ends inside");
  w = WavBytes();
  w.bits = 8;
  ExpectInvalid(decode(w.Build()).status(),
                "8 bits per sample; only 16-bit files can be decoded");
  w = WavBytes();
  w.format = 3;
  ExpectInvalid(decode(w.Build()).status(), "audio format 3; only PCM");
  w = WavBytes();
  w.fmt_size = 20;
  ExpectInvalid(decode(w.Build()).status(),
                "the format chunk has 20 bytes; expected 16 or 18");
  w = WavBytes();
  w.block_align_delta = 2;
  ExpectInvalid(decode(w.Build()).status(), "block align 4 but 1 channels");
  w = WavBytes();
  w.data = "dat@";
  ExpectInvalid(decode(w.Build()).status(), "no 'data' chunk");
  w = WavBytes();
  w.data_size_delta = 100;
  ExpectInvalid(decode(w.Build()).status(),
                "the file ends inside the 'data' chunk");
  w = WavBytes();
  w.extra = "data" + std::string("\x02\0\0\0\x01\0", 6);
  ExpectInvalid(decode(w.Build()).status(), "more than one 'data' chunk");
  w = WavBytes();
  w.fmt = "LIST";
  ExpectInvalid(decode(w.Build()).status(),
                "unexpected chunk 'LIST' before the 'fmt ' chunk");
  ExpectInvalid(RunKernel(decoded.audio.node(),
                          {Tensor::FromVector<std::string>({"a", "b"})})
                    .status(),
                "contents must be a scalar (one WAV file), got shape [2]");
}

TEST(ComplexFftOpsTest, AudioOpsRefuseBadInputs) {
  Scope root = Scope::NewRootScope();
  Output audio = ops::Placeholder(root, DT_FLOAT);
  Output rate = ops::Placeholder(root, DT_INT32);
  Output encode = ops::EncodeWav(root, audio, rate);
  Output spec = ops::AudioSpectrogram(root, audio, 16, 8);
  Output mfcc = ops::Mfcc(root, audio, rate);
  Output mfcc_wide =
      ops::Mfcc(root, audio, rate, ops::MfccAttrs().DctCoefficientCount(41));
  Output mfcc_limits = ops::Mfcc(
      root, audio, rate, ops::MfccAttrs().UpperFrequencyLimit(10));
  ASSERT_TRUE(root.status().ok()) << root.status();
  const Tensor mono(DT_FLOAT, TensorShape({100, 1}));
  ExpectInvalid(RunError(encode, {Tensor(DT_FLOAT, TensorShape({100})),
                                  Tensor::Scalar<int32_t>(8000)}),
                "audio must be 2-dimensional [samples, channels], got [100]");
  ExpectInvalid(RunError(encode, {mono, Tensor::Scalar<int32_t>(0)}),
                "sample_rate must be in (0, 2^31), got 0");
  ExpectInvalid(RunError(encode, {Tensor(DT_FLOAT, TensorShape({100, 0})),
                                  Tensor::Scalar<int32_t>(8000)}),
                "the channel count (audio's dimension 1) must be in (0, 2^16)");
  ExpectInvalid(RunError(spec, {Tensor(DT_FLOAT, TensorShape({100}))}),
                "input must be 2-dimensional [samples, channels]");
  const Tensor spectrogram(DT_FLOAT, TensorShape({1, 3, 257}));
  ExpectInvalid(RunError(mfcc, {Tensor(DT_FLOAT, TensorShape({3, 257})),
                                Tensor::Scalar<int32_t>(16000)}),
                "spectrogram must be 3-dimensional");
  ExpectInvalid(RunError(mfcc, {spectrogram, Tensor::Scalar<int32_t>(0)}),
                "sample_rate must be positive, got 0");
  ExpectInvalid(
      RunError(mfcc_wide, {spectrogram, Tensor::Scalar<int32_t>(16000)}),
      "dct_coefficient_count must be in [1, filterbank_channel_count = 40], "
      "got 41");
  ExpectInvalid(
      RunError(mfcc_limits, {spectrogram, Tensor::Scalar<int32_t>(16000)}),
      "upper_frequency_limit (10) must be greater than lower_frequency_limit "
      "(20)");
  // A window of one sample is refused when the graph is built.
  Scope bad = Scope::NewRootScope();
  ops::AudioSpectrogram(bad, ops::Placeholder(bad, DT_FLOAT), 1, 1);
  EXPECT_THAT(std::string(bad.status().message()),
              HasSubstr("window_size must be > 1, got 1"));
}

TEST(ComplexFftOpsTest, RunErrorsNameTheNodeAndOp) {
  Scope root = Scope::NewRootScope();
  Output x = ops::Placeholder(root.WithOpName("x"), DT_FLOAT);
  ops::RFFT(root.WithOpName("spectrum"), x, {32});
  ASSERT_TRUE(root.status().ok()) << root.status();
  std::unique_ptr<Session> session = MakeSession(root);
  ASSERT_NE(session, nullptr);
  std::vector<Tensor> out;
  const absl::Status s =
      session->Run({{"x", Tensor(DT_FLOAT, TensorShape({4, 20}))}},
                   {"spectrum"}, {}, &out);
  ExpectInvalid(s, "must have length of at least 32 but got: 20");
  EXPECT_THAT(std::string(s.message()), HasSubstr("'spectrum' (RFFT)"));
}

}  // namespace
}  // namespace dflow
