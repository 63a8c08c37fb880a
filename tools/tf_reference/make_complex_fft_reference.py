#!/usr/bin/env python3
"""TensorFlow 2.21's values for complex numbers, FFTs, tf.signal and the
audio ops (graph/ops/math_ops_complex.cc, spectral_ops.cc, audio_ops.cc).

Writes two directories under tests/testdata/, each
  graph.pb      one TF-written GraphDef (tf.compat.v1 graph mode): shaped
                placeholders, the ops applied to them, tf.gradients through
                the differentiable ones, each result named out_<case> by an
                Identity
  cases.txt     the feeds and TensorFlow's values, one per line:
                  feed <name> <dtype> [<dims>] | v0 v1 ...
                  fetch <name> <dtype> [<dims>] | v0 v1 ...
                (complex elements as "re im" pairs; floats %.9g / %.17g)
tf_complex_fft/   Complex/Real/Imag/Angle/ComplexAbs/Conj, complex
                  arithmetic, reductions, products and casts, the 12 FFT
                  ops in both precisions (cropping, padding, odd lengths,
                  IRFFT of non-Hermitian input), and the gradients
                  TensorFlow writes through them.
tf_audio_signal/  tf.signal's stft, inverse_stft, frame, overlap_and_add,
                  linear_to_mel_weight_matrix and
                  mfccs_from_log_mel_spectrograms (with the gradient of the
                  MFCC pipeline), and EncodeWav (bytes through DecodeRaw),
                  DecodeWav (of TF's own encoding and of a hand-made file
                  with a JUNK chunk and an 18-byte format chunk),
                  AudioSpectrogram and Mfcc.
Read by tests/kernels/complex_fft_ops_test.cc.

Run: python3 tools/tf_reference/make_complex_fft_reference.py
"""
import os
import struct

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
os.environ.setdefault("CUDA_VISIBLE_DEVICES", "")

import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402

from value_cases import fmt, head  # noqa: E402

tf1 = tf.compat.v1
TESTDATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..",
                        "..", "tests", "testdata")

rng = np.random.RandomState(2021)


def uniform(*shape, dtype=np.float32):
  return rng.uniform(-1.0, 1.0, shape).astype(dtype)


def cuniform(*shape, dtype=np.complex64):
  return (rng.uniform(-1.0, 1.0, shape) +
          1j * rng.uniform(-1.0, 1.0, shape)).astype(dtype)


COMPLEX_FEEDS = {
    "x": uniform(3, 10),
    "y": uniform(3, 10),
    "x64": uniform(2, 6, dtype=np.float64),
    "z": cuniform(3, 8),
    "w": cuniform(3, 8),
    "z128": cuniform(2, 4, 6, dtype=np.complex128),
    # Parts with zeros, signed zeros, large and tiny magnitudes.
    "zodd": np.array([0, -0.0, 1j, -1, -1 - 0j, complex(-1, -0.0), 3e30 + 4e30j,
                      1e-30 - 2e-30j, 0.5 - 2j], np.complex64),
    "vol": uniform(2, 4, 6, 5),
    "zvol": cuniform(2, 3, 4, 5),
    "vol64": uniform(2, 3, 4, dtype=np.float64),
    "m": cuniform(2, 3, 4),
    "n": cuniform(2, 4, 3),
}


def build_complex(p):
  R = tf.raw_ops
  s = tf.signal
  x, y, x64, z, w = p["x"], p["y"], p["x64"], p["z"], p["w"]
  z128, zodd, vol, zvol = p["z128"], p["zodd"], p["vol"], p["zvol"]
  c = {}
  # Building and taking apart.
  zx = tf.complex(x, y)
  c["Complex"] = zx
  c["Complex_bcast"] = tf.complex(x, y[0])
  c["Complex_f64"] = tf.complex(x64, -x64)
  # Complex constants as TensorFlow stores them: scomplex_val/dcomplex_val
  # pairs, a single pair for a splat.
  c["Const_content"] = z * tf.constant(
      [1 + 2j, -3 - 4j, 0.5j, 2, 1e-3 - 7j, -1, 1j, 3 + 3j], tf.complex64)
  c["Const_splat"] = z128 + tf.constant(0.25 - 2j, tf.complex128, [6])
  for name, t in (("z", z), ("z128", z128), ("zodd", zodd)):
    c["Real_" + name] = tf.math.real(t)
    c["Imag_" + name] = tf.math.imag(t)
    c["Angle_" + name] = tf.math.angle(t)
    c["Abs_" + name] = tf.abs(t)
    c["Conj_" + name] = tf.math.conj(t)
  # Arithmetic, unary functions, comparisons.
  c["Add"] = z + w
  c["Sub"] = z - w[0]
  c["Mul"] = z * w
  c["Div"] = z / w
  c["RealDiv"] = R.RealDiv(x=z128, y=z128 + 1)
  c["DivNoNan"] = tf.math.divide_no_nan(z, tf.concat([w[:2], 0 * w[2:]], 0))
  c["Neg"] = -z
  c["Square"] = tf.square(z)
  c["Sqrt"] = tf.sqrt(z)
  c["Rsqrt"] = tf.math.rsqrt(z)
  c["Exp"] = tf.exp(z)
  c["Log"] = tf.math.log(z)
  c["Log1p"] = tf.math.log1p(z * 1e-3)
  c["Expm1"] = tf.math.expm1(z * 1e-3)
  c["Reciprocal"] = tf.math.reciprocal(z)
  # tf.sign of a complex tensor is DivNoNan(z, |z|); the Sign op itself
  # is z / |z| too.
  c["Sign"] = tf.sign(zodd)
  c["Sign_op"] = R.Sign(x=zodd)
  c["Tanh"] = tf.tanh(z)
  c["Sigmoid"] = tf.sigmoid(z)
  c["Sin"] = tf.sin(z)
  c["Cos"] = tf.cos(z128)
  c["Pow"] = tf.pow(z, w)
  c["Equal"] = tf.equal(z, tf.concat([z[:1], w[1:]], 0))
  c["NotEqual"] = tf.not_equal(z, tf.concat([z[:1], w[1:]], 0))
  c["AddN"] = tf.add_n([z, w, z])
  # Reductions, products, casts.
  c["Sum"] = tf.reduce_sum(z, 1)
  c["Mean"] = tf.reduce_mean(z128, [0, 2])
  c["Prod"] = tf.reduce_prod(z, 0)
  c["MatMul"] = tf.matmul(z, w, transpose_b=True)
  c["MatMul_adj"] = tf.matmul(z, w, adjoint_b=True)
  c["BatchMatMul"] = tf.matmul(p["m"], p["n"])
  c["BatchMatMul_adj"] = tf.matmul(p["m"], p["m"], adjoint_a=True)
  c["Cast_c64_to_f32"] = tf.cast(z, tf.float32)
  c["Cast_f32_to_c64"] = tf.cast(x, tf.complex64)
  c["Cast_c64_to_c128"] = tf.cast(z, tf.complex128)
  # Moving complex elements around.
  c["Gather"] = tf.gather(z, [2, 0, 2], axis=0)
  c["SelectV2"] = tf.where(tf.abs(z) > 0.7, z, w)
  c["UnsortedSegmentSum"] = tf.math.unsorted_segment_sum(z128, [1, 0], 3)
  c["MatrixDiag"] = tf.linalg.diag(z[:2, :3])
  c["MatrixBandPart"] = tf.linalg.band_part(p["m"], 0, 1)
  c["TensorScatterAdd"] = tf.tensor_scatter_nd_add(z, [[1, 2], [0, 0]],
                                                   w[0, :2])
  c["DynamicStitch"] = tf.dynamic_stitch([[2, 0], [1]], [z[:2], z[2:]])
  # The FFTs.
  c["FFT"] = s.fft(z)
  c["IFFT"] = s.ifft(z)
  c["FFT_c128"] = s.fft(z128)
  c["IFFT_c128"] = s.ifft(z128)
  c["FFT2D"] = s.fft2d(zvol)
  c["IFFT2D"] = s.ifft2d(zvol)
  c["FFT2D_c128"] = s.fft2d(z128)
  c["FFT3D"] = s.fft3d(zvol)
  c["IFFT3D"] = s.ifft3d(zvol)
  c["IFFT3D_c128"] = s.ifft3d(tf.reshape(z128, [2, 2, 2, 6]))
  c["RFFT"] = s.rfft(x)
  c["RFFT_crop"] = s.rfft(x, [7])
  c["RFFT_pad"] = s.rfft(x, [16])
  c["RFFT_f64"] = s.rfft(x64)
  c["RFFT_f64_odd"] = s.rfft(x64, [5])
  c["IRFFT"] = s.irfft(s.rfft(x))
  c["IRFFT_odd"] = s.irfft(s.rfft(x, [9]), [9])
  c["IRFFT_crop"] = s.irfft(z, [6])
  # Not the RFFT of a real signal: the imaginary parts of the zero and
  # Nyquist frequencies are ignored (c2r).
  c["IRFFT_nonhermitian"] = s.irfft(z)
  c["IRFFT_f64"] = s.irfft(z128)
  c["RFFT2D"] = s.rfft2d(vol)
  c["RFFT2D_crop"] = s.rfft2d(vol, [3, 4])
  c["IRFFT2D"] = s.irfft2d(s.rfft2d(vol), [6, 5])
  c["IRFFT2D_nonhermitian"] = s.irfft2d(zvol)
  c["RFFT3D"] = s.rfft3d(vol)
  c["RFFT3D_f64"] = s.rfft3d(p["vol64"])
  c["IRFFT3D"] = s.irfft3d(s.rfft3d(vol), [4, 6, 5])
  c["IRFFT3D_nonhermitian"] = s.irfft3d(zvol, [3, 4, 7])
  # Gradients through the complex ops and the FFTs (TensorFlow has none
  # for RFFT3D and IRFFT3D).
  loss = (tf.reduce_sum(tf.abs(s.fft(tf.complex(x, y)))) +
          tf.reduce_sum(tf.math.angle(s.ifft(tf.complex(y, x)))) +
          tf.reduce_sum(tf.square(s.irfft(s.rfft(x * y, [12]), [12]))) +
          tf.reduce_sum(tf.math.real(tf.exp(tf.complex(x, -y)))) +
          tf.reduce_sum(tf.math.imag(tf.complex(x, y) * tf.complex(y, x))))
  g = tf.gradients(loss, [x, y])
  c["Grad_fft_dx"], c["Grad_fft_dy"] = g
  loss2 = (tf.reduce_sum(tf.abs(s.rfft2d(vol))) +
           tf.reduce_sum(tf.abs(s.fft2d(tf.complex(vol, vol * vol)))) +
           tf.reduce_sum(s.irfft2d(tf.complex(vol, 0.5 * vol), [6, 8])) +
           tf.reduce_sum(tf.abs(s.fft3d(tf.complex(vol, -vol)))))
  c["Grad_fft2d_dvol"] = tf.gradients(loss2, vol)[0]
  loss3 = tf.reduce_sum(tf.abs(s.rfft(x64, [8])) ** 2)
  c["Grad_rfft_f64"] = tf.gradients(loss3, x64)[0]
  return c


# Audio: a 0.06 s two-tone at 16 kHz plus noise, as int16-exact floats.
RATE = 16000


def tone(seconds, channels):
  t = np.arange(int(seconds * RATE)) / RATE
  a = 0.4 * np.sin(2 * np.pi * 440 * t) + 0.2 * np.sin(2 * np.pi * 1300 * t)
  a = a[:, None] + 0.05 * rng.uniform(-1, 1, (len(t), channels))
  return (np.round(a * 32768) / 32768).astype(np.float32)


def handmade_wav():
  """Stereo 8 kHz, 5 frames: a JUNK chunk before an 18-byte "fmt " chunk,
  a LIST chunk before the data and an odd trailing chunk after it."""
  samples = np.array([[0, -32768], [32767, 1], [-1, 1000], [12345, -12345],
                      [7, -7]], np.int16)
  junk = b"JUNK" + struct.pack("<I", 6) + b"\0" * 6
  fmt_chunk = b"fmt " + struct.pack("<IHHIIHHH", 18, 1, 2, 8000, 8000 * 4, 4,
                                    16, 0)
  info = b"LIST" + struct.pack("<I", 4) + b"INFO"
  data = b"data" + struct.pack("<I", samples.nbytes) + samples.tobytes()
  tail = b"abcd" + struct.pack("<I", 2) + b"xy"
  body = b"WAVE" + junk + fmt_chunk + info + data + tail
  return b"RIFF" + struct.pack("<I", len(body)) + body


AUDIO_FEEDS = {
    "signal": uniform(2, 520),
    "mono": tone(0.06, 1),
    "stereo": tone(0.03, 2),
    "loud": np.array([[0.5, -1.0], [1.5, -1.5], [0.25, 1e-5],
                      [-0.99999, 0.99999], [3.0517578e-05, -0.0]],
                     np.float32),
}


def build_audio(p):
  R = tf.raw_ops
  s = tf.signal
  c = {}
  sig = p["signal"]
  stft = s.stft(sig, 256, 128)
  c["stft"] = stft
  c["stft_pad_end"] = s.stft(sig[0], 200, 150, fft_length=256, pad_end=True)
  c["inverse_stft"] = s.inverse_stft(
      stft, 256, 128, window_fn=s.inverse_stft_window_fn(128))
  frames = s.frame(sig, 60, 50, pad_end=True)
  c["frame"] = frames
  c["overlap_and_add"] = s.overlap_and_add(frames, 50)
  mel_matrix = s.linear_to_mel_weight_matrix(40, 129, 16000, 20.0, 4000.0)
  c["mel_matrix"] = mel_matrix
  mel = tf.tensordot(tf.abs(stft), mel_matrix, 1)
  log_mel = tf.math.log(mel + 1e-6)
  mfcc = s.mfccs_from_log_mel_spectrograms(log_mel)[..., :13]
  c["mfccs"] = mfcc
  c["Grad_mfcc_dsignal"] = tf.gradients(
      tf.reduce_sum(mfcc) + tf.reduce_sum(c["inverse_stft"]), sig)[0]
  # The audio ops.
  wav = tf.audio.encode_wav(p["mono"], RATE)
  c["EncodeWav_bytes"] = tf.io.decode_raw(wav, tf.uint8)
  c["EncodeWav_clip_bytes"] = tf.io.decode_raw(
      tf.audio.encode_wav(p["loud"], 44100), tf.uint8)
  audio, rate = tf.audio.decode_wav(wav)
  c["DecodeWav"], c["DecodeWav_rate"] = audio, rate
  c["DecodeWav_resized"] = tf.audio.decode_wav(
      tf.audio.encode_wav(p["stereo"], 8000), desired_channels=3,
      desired_samples=300).audio
  c["DecodeWav_mono_of_stereo"] = tf.audio.decode_wav(
      tf.audio.encode_wav(p["stereo"], 8000), desired_channels=1,
      desired_samples=100).audio
  hand = tf.audio.decode_wav(tf.constant(handmade_wav()))
  c["DecodeWav_handmade"], c["DecodeWav_handmade_rate"] = hand
  spec = R.AudioSpectrogram(input=audio, window_size=480, stride=160,
                            magnitude_squared=True)
  c["AudioSpectrogram"] = spec
  c["AudioSpectrogram_magnitude"] = R.AudioSpectrogram(
      input=p["stereo"], window_size=300, stride=100)
  c["AudioSpectrogram_short"] = R.AudioSpectrogram(
      input=p["stereo"][:100], window_size=256, stride=64)
  c["Mfcc"] = R.Mfcc(spectrogram=spec, sample_rate=rate)
  c["Mfcc_40"] = R.Mfcc(spectrogram=spec, sample_rate=rate,
                        dct_coefficient_count=40, upper_frequency_limit=7600,
                        lower_frequency_limit=60)
  c["Mfcc_stereo"] = R.Mfcc(
      spectrogram=R.AudioSpectrogram(input=p["stereo"], window_size=256,
                                     stride=128, magnitude_squared=True),
      sample_rate=RATE, filterbank_channel_count=20,
      dct_coefficient_count=10)
  # An upper limit above the Nyquist frequency: TensorFlow's zeros.
  c["Mfcc_above_nyquist"] = R.Mfcc(spectrogram=spec, sample_rate=6000)
  return c


def write(name, feeds, build):
  out_dir = os.path.join(TESTDATA, name)
  os.makedirs(out_dir, exist_ok=True)
  g = tf.Graph()
  with g.as_default():
    ph = {k: tf1.placeholder(tf.as_dtype(v.dtype), v.shape, name=k)
          for k, v in feeds.items()}
    cases = build(ph)
    outs = {k: tf.identity(v, name="out_" + k) for k, v in cases.items()}
    with tf1.Session() as s:
      values = s.run(outs, {ph[k]: v for k, v in feeds.items()})
  with open(os.path.join(out_dir, "graph.pb"), "wb") as f:
    f.write(g.as_graph_def().SerializeToString(deterministic=True))
  lines = ["# Written by tools/tf_reference/make_complex_fft_reference.py "
           "with TensorFlow %s." % tf.__version__]
  for k, v in feeds.items():
    lines.append("%s | %s" % (head("feed", k, v), fmt(v)))
  for k in sorted(values):
    lines.append("%s | %s" % (head("fetch", "out_" + k, values[k]),
                              fmt(values[k])))
  with open(os.path.join(out_dir, "cases.txt"), "w") as f:
    f.write("\n".join(lines) + "\n")
  ops = sorted({n.op for n in g.as_graph_def().node})
  print("wrote", out_dir, len(values), "fetches; ops:", " ".join(ops))


def main():
  write("tf_complex_fft", COMPLEX_FEEDS, build_complex)
  write("tf_audio_signal", AUDIO_FEEDS, build_audio)


if __name__ == "__main__":
  main()
