#!/usr/bin/env python3
"""TensorFlow 2.21's values for the special functions TensorFlow computes
with Eigen's SpecialFunctions module and for a few counting and bit ops:

  special   Igamma, Igammac, IgammaGradA, RandomGammaGrad, Betainc, Zeta,
            Polygamma, the Bessel functions (I0, I0e, I1, I1e, J0, J1, K0,
            K0e, K1, K1e, Y0, Y1), Dawsn, Expint, FresnelCos, FresnelSin,
            Spence, float32 and float64, with broadcasting and the
            gradients tf.gradients writes through them;
  counting  CumulativeLogsumexp (exclusive, reverse, its gradient),
            PopulationCount, Bitcast, Bincount, DenseBincount (weights,
            binary_output, 2-D input) and HistogramFixedWidth.

Writes tests/testdata/tf_special_functions/ and
tests/testdata/tf_count_bits/, each:
  graph.pb      one TF-written GraphDef (tf.compat.v1 graph mode): shaped
                placeholders, every op applied to them, each result named
                out_<case> by an Identity
  cases.txt     the feeds and TensorFlow's values, one per line:
                  feed <name> <dtype> [<dims>] | v0 v1 ...
                  fetch <name> <dtype> [<dims>] | v0 v1 ...
                (floats printed with %.9g / %.17g: exact)
Read by tests/kernels/special_functions_ops_test.cc.

Run: python3 tools/tf_reference/make_special_functions_reference.py
"""
import os

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
os.environ.setdefault("CUDA_VISIBLE_DEVICES", "")

import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402

from value_cases import fmt, head  # noqa: E402

tf1 = tf.compat.v1
TESTDATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..",
                        "..", "tests", "testdata")

F32 = np.float32

SPECIAL_FEEDS = {
    # Shape parameters of the incomplete gamma and beta functions: small,
    # near 1, large (Igamma switches between its series and its continued
    # fraction at x = a and x = 1).
    "a": np.array([0.1, 0.5, 1.0, 1.5, 2.5, 4.0, 9.5, 30.0], F32),
    "x": np.array([0.05, 0.7, 1.0, 2.0, 0.3, 6.0, 12.0, 25.0], F32),
    "x_row": np.array([[0.0], [0.4], [3.0]], F32),
    "b": np.array([0.3, 2.0, 1.0, 5.0, 0.7, 3.5, 1.2, 20.0], F32),
    "u": np.array([0.0, 0.1, 0.5, 0.9, 0.25, 0.75, 0.99, 1.0], F32),
    # Zeta(x, q): x > 1; Polygamma(n, x): integer orders.
    "zx": np.array([1.5, 2.0, 3.0, 4.5, 2.0, 7.0], F32),
    "zq": np.array([0.5, 1.0, 2.0, 3.5, 10.0, 0.25], F32),
    "pn": np.array([0.0, 1.0, 2.0, 3.0, 1.0, 4.0], F32),
    "px": np.array([0.3, 1.0, 2.5, 4.0, -1.5, 7.0], F32),
    # Any real (Bessel I and J, Dawson, Fresnel): both signs, 0, large.
    "r": np.array([-30.0, -7.5, -2.0, -0.5, 0.0, 0.25, 1.0, 3.3, 8.0, 12.0,
                   40.0], F32),
    # Positive (Bessel K and Y, Spence, Expint): small to large.
    "pos": np.array([0.01, 0.2, 0.5, 1.0, 2.0, 3.7, 8.0, 15.0, 60.0], F32),
    # Expint of negative arguments, Spence of 0 and of 1.
    "neg": np.array([-0.1, -1.0, -3.0, -10.0], F32),
    "sp": np.array([0.0, 0.5, 1.0, 1.5, 4.0, 100.0], F32),
    # RandomGammaGrad(alpha, sample).
    "ga": np.array([0.5, 1.0, 2.0, 5.0, 0.2, 10.0], F32),
    "gs": np.array([0.3, 1.2, 0.8, 7.0, 0.01, 9.0], F32),
    # Weights for the gradient losses.
    "w8": np.linspace(-1.0, 1.5, 8).astype(F32),
    "w6": np.linspace(0.5, -1.0, 6).astype(F32),
    "w11": np.linspace(-1.2, 1.0, 11).astype(F32),
    "w9": np.linspace(0.3, 1.3, 9).astype(F32),
}


def build_special(p):
  R = tf.raw_ops
  M = tf.math
  S = tf.math.special
  f64 = lambda t: tf.cast(t, tf.float64)  # noqa: E731
  a, x, b, u = p["a"], p["x"], p["b"], p["u"]
  r, pos, neg = p["r"], p["pos"], p["neg"]
  c = {}
  c["Igamma"] = M.igamma(a, x)
  c["Igamma_bcast"] = M.igamma(a, p["x_row"])
  c["Igamma_f64"] = M.igamma(f64(a), f64(x))
  c["Igammac"] = M.igammac(a, x)
  c["Igammac_f64"] = M.igammac(f64(a), f64(x))
  c["IgammaGradA"] = R.IgammaGradA(a=a, x=x)
  c["IgammaGradA_f64"] = R.IgammaGradA(a=f64(a), x=f64(x))
  c["RandomGammaGrad"] = R.RandomGammaGrad(alpha=p["ga"], sample=p["gs"])
  c["RandomGammaGrad_f64"] = R.RandomGammaGrad(alpha=f64(p["ga"]),
                                               sample=f64(p["gs"]))
  c["Betainc"] = M.betainc(a, b, u)
  c["Betainc_f64"] = M.betainc(f64(a), f64(b), f64(u))
  c["Betainc_scalar_ab"] = M.betainc(2.0, 3.0, u)
  c["Zeta"] = M.zeta(p["zx"], p["zq"])
  c["Zeta_f64"] = M.zeta(f64(p["zx"]), f64(p["zq"]))
  c["Polygamma"] = M.polygamma(p["pn"], p["px"])
  c["Polygamma_f64"] = M.polygamma(f64(p["pn"]), f64(p["px"]))
  c["Polygamma_bcast"] = M.polygamma(2.0, p["px"])
  unary_any = {"BesselI0": S.bessel_i0, "BesselI0e": S.bessel_i0e,
               "BesselI1": S.bessel_i1, "BesselI1e": S.bessel_i1e,
               "BesselJ0": S.bessel_j0, "BesselJ1": S.bessel_j1,
               "Dawsn": S.dawsn, "FresnelCos": S.fresnel_cos,
               "FresnelSin": S.fresnel_sin}
  unary_pos = {"BesselK0": S.bessel_k0, "BesselK0e": S.bessel_k0e,
               "BesselK1": S.bessel_k1, "BesselK1e": S.bessel_k1e,
               "BesselY0": S.bessel_y0, "BesselY1": S.bessel_y1,
               "Expint": S.expint, "Spence": S.spence}
  for name, fn in unary_any.items():
    c[name] = fn(r)
    c[name + "_f64"] = fn(f64(r))
  for name, fn in unary_pos.items():
    c[name] = fn(pos)
    c[name + "_f64"] = fn(f64(pos))
  c["Expint_neg"] = S.expint(neg)
  c["Spence_edges"] = S.spence(p["sp"])
  c["BesselK0_neg"] = S.bessel_k0(neg)  # NaN for x < 0
  # Gradients: IgammaGradA for a, exp/lgamma forms for x, Betainc for x,
  # Zeta for q, Polygamma for x, each Bessel function's neighbours.
  loss = (tf.reduce_sum(M.igamma(a, x) * p["w8"]) +
          tf.reduce_sum(M.igammac(a, x) ** 2) +
          tf.reduce_sum(M.betainc(a, b, u * 0.8 + 0.1) * p["w8"]) +
          tf.reduce_sum(M.zeta(p["zx"], p["zq"]) * p["w6"]) +
          tf.reduce_sum(M.polygamma(p["pn"], p["px"] + 5.0) * p["w6"]))
  g = tf.gradients(loss, [a, x, u, p["zq"], p["px"]])
  for name, t in zip(["a", "x", "u", "zq", "px"], g):
    c["Grad_binary_d" + name] = t
  loss = 0.0
  for fn, w in [(S.bessel_i0, 1.0), (S.bessel_i0e, 0.5), (S.bessel_i1, -1.0),
                (S.bessel_i1e, 2.0), (S.bessel_j0, 1.5), (S.bessel_j1, -0.7),
                (S.dawsn, 0.3), (S.fresnel_cos, 1.1), (S.fresnel_sin, -0.4)]:
    loss += w * tf.reduce_sum(fn(r * 0.3 + 0.01) * p["w11"])
  for fn, w in [(S.bessel_k0, 1.0), (S.bessel_k0e, 0.5), (S.bessel_k1, -1.0),
                (S.bessel_k1e, 2.0), (S.bessel_y0, 1.5), (S.bessel_y1, -0.7),
                (S.expint, 0.3), (S.spence, 1.1)]:
    loss += w * tf.reduce_sum(fn(pos) * p["w9"])
  g = tf.gradients(loss, [r, pos])
  c["Grad_unary_dr"], c["Grad_unary_dpos"] = g
  return c


COUNT_FEEDS = {
    "cl": np.array([[-1.0, 2.0, 0.5, -30.0, 3.0],
                    [100.0, 99.0, -np.inf, 1.0, 1e-3]], F32),
    "cw": np.linspace(-1.0, 1.0, 10).astype(F32).reshape(2, 5),
    "bits": np.array([0, 1, -1, 255, -128, 12345, 2147483647, -2147483648,
                      7, 1 << 20], np.int64),
    "f": np.array([1.0, -2.5, 0.0, -0.0, np.inf, 3.1415927], F32),
    "i32": np.array([[1, -1, 1065353216, 0], [7, 256, -65536, 2]], np.int32),
    "vals": np.array([1, 1, 4, 2, 0, 4, 4, 9], np.int32),
    "vals2": np.array([[0, 3, 3, 1], [2, 2, 5, 0], [1, 1, 1, 4]], np.int32),
    "bw": np.array([0.5, 1.5, -2.0, 0.25, 3.0, 1.0, -1.0, 2.0], F32),
    "bw2": np.arange(12).astype(F32).reshape(3, 4) * 0.5 - 1.0,
    "hv": np.array([-1.0, 0.0, 0.2, 0.5, 1.99, 2.0, 2.5, 4.99, 5.0, 7.0,
                    np.inf, -np.inf, 3.3], F32),
    "hi": np.array([-3, 0, 1, 2, 9, 10, 11, 4, 5], np.int32),
}


def build_count(p):
  R = tf.raw_ops
  c = {}
  cl, cw = p["cl"], p["cw"]
  c["Cumlse"] = tf.math.cumulative_logsumexp(cl, axis=1)
  c["Cumlse_axis0"] = tf.math.cumulative_logsumexp(cl, axis=0)
  c["Cumlse_excl"] = tf.math.cumulative_logsumexp(cl, axis=1,
                                                  exclusive=True)
  c["Cumlse_rev"] = tf.math.cumulative_logsumexp(cl, axis=1, reverse=True)
  c["Cumlse_excl_rev"] = tf.math.cumulative_logsumexp(
      cl, axis=-1, exclusive=True, reverse=True)
  c["Cumlse_f64"] = tf.math.cumulative_logsumexp(tf.cast(cl, tf.float64),
                                                 axis=1)
  finite = tf.where(tf.math.is_finite(cl), cl, tf.zeros_like(cl)) * 0.1
  loss = (tf.reduce_sum(tf.math.cumulative_logsumexp(finite, axis=1) * cw) +
          tf.reduce_sum(tf.math.cumulative_logsumexp(
              finite, axis=0, exclusive=True, reverse=True)[:1] * cw[:1]))
  c["Grad_cumlse"] = tf.gradients(loss, cl)[0]
  bits = p["bits"]
  for name, dt in [("i8", tf.int8), ("i16", tf.int16), ("i32", tf.int32),
                   ("i64", tf.int64), ("u8", tf.uint8), ("u16", tf.uint16),
                   ("u32", tf.uint32), ("u64", tf.uint64)]:
    c["PopCount_" + name] = tf.raw_ops.PopulationCount(x=tf.cast(bits, dt))
  f, i32 = p["f"], p["i32"]
  c["Bitcast_f2i"] = tf.bitcast(f, tf.int32)
  c["Bitcast_i2f"] = tf.bitcast(i32, tf.float32)
  c["Bitcast_i2u8"] = tf.bitcast(i32, tf.uint8)
  c["Bitcast_u8_i32"] = tf.bitcast(tf.bitcast(i32, tf.uint8), tf.int32)
  c["Bitcast_i16_i32"] = tf.cast(
      tf.bitcast(tf.cast(tf.reshape(i32, [4, 2]), tf.int16), tf.int32),
      tf.int64)
  c["Bitcast_i2i64"] = tf.bitcast(tf.reshape(i32, [2, 2, 2]), tf.int64)
  c["Bitcast_f64"] = tf.bitcast(tf.cast(f, tf.float64), tf.int64)
  c["Bitcast_u16_f16"] = tf.cast(
      tf.bitcast(tf.cast(tf.reshape(i32, [8]) % 65536, tf.uint16),
                 tf.float16), tf.float32)
  vals, bw = p["vals"], p["bw"]
  c["Bincount"] = R.Bincount(arr=vals, size=6, weights=tf.zeros([0]))
  c["Bincount_w"] = R.Bincount(arr=vals, size=12, weights=bw)
  c["Bincount_tf"] = tf.math.bincount(vals)
  c["Bincount_tf_min"] = tf.math.bincount(vals, minlength=12)
  c["Bincount_tf_max"] = tf.math.bincount(vals, maxlength=3)
  c["Bincount_tf_w"] = tf.math.bincount(vals, weights=bw)
  c["Bincount_tf1"] = tf1.bincount(vals)
  c["DenseBincount"] = R.DenseBincount(input=vals, size=10,
                                       weights=tf.zeros([0]))
  c["DenseBincount_w"] = R.DenseBincount(input=vals, size=5, weights=bw)
  c["DenseBincount_bin"] = R.DenseBincount(input=vals, size=10,
                                           weights=tf.zeros([0]),
                                           binary_output=True)
  c["DenseBincount_i64_f64"] = R.DenseBincount(
      input=tf.cast(vals, tf.int64), size=tf.constant(7, tf.int64),
      weights=tf.cast(bw, tf.float64))
  c["DenseBincount_2d"] = R.DenseBincount(input=p["vals2"], size=6,
                                          weights=tf.zeros([0]))
  c["DenseBincount_2d_w"] = R.DenseBincount(input=p["vals2"], size=6,
                                            weights=p["bw2"])
  c["DenseBincount_2d_bin"] = R.DenseBincount(
      input=p["vals2"], size=4, weights=p["bw2"], binary_output=True)
  c["DenseBincount_i32w"] = R.DenseBincount(
      input=vals, size=10, weights=tf.cast(bw * 2, tf.int32))
  c["Bincount_tf_2d_axis"] = tf.math.bincount(p["vals2"], axis=-1)
  hv = p["hv"]
  c["Hist"] = tf.histogram_fixed_width(hv, [0.0, 5.0], nbins=5)
  c["Hist_i64"] = tf.histogram_fixed_width(hv, [0.0, 5.0], nbins=4,
                                           dtype=tf.int64)
  c["Hist_f64"] = tf.histogram_fixed_width(tf.cast(hv, tf.float64),
                                           tf.constant([-1.0, 3.0],
                                                       tf.float64), nbins=7)
  c["Hist_int"] = tf.histogram_fixed_width(p["hi"], [0, 10], nbins=5)
  c["Hist_bins"] = tf.histogram_fixed_width_bins(hv, [0.0, 5.0], nbins=5)
  return c


def write(out, feeds, build):
  os.makedirs(out, exist_ok=True)
  g = tf.Graph()
  with g.as_default():
    tf1.set_random_seed(1234)
    p = {k: tf1.placeholder(tf.as_dtype(v.dtype), v.shape, name=k)
         for k, v in feeds.items()}
    outs = {k: tf.identity(v, name="out_" + k) for k, v in build(p).items()}
    with tf1.Session() as s:
      values = s.run(outs, {p[k]: v for k, v in feeds.items()})
  with open(os.path.join(out, "graph.pb"), "wb") as f:
    f.write(g.as_graph_def().SerializeToString(deterministic=True))
  lines = ["# Written by tools/tf_reference/make_special_functions_reference"
           ".py with TensorFlow %s." % tf.__version__]
  for k, v in feeds.items():
    lines.append("%s | %s" % (head("feed", k, v), fmt(v)))
  for k in sorted(values):
    lines.append("%s | %s" % (head("fetch", "out_" + k, values[k]),
                              fmt(values[k])))
  with open(os.path.join(out, "cases.txt"), "w") as f:
    f.write("\n".join(lines) + "\n")
  ops = sorted({n.op for n in g.as_graph_def().node})
  print("wrote", out, len(values), "fetches; ops:", " ".join(ops))


def main():
  write(os.path.join(TESTDATA, "tf_special_functions"), SPECIAL_FEEDS,
        build_special)
  write(os.path.join(TESTDATA, "tf_count_bits"), COUNT_FEEDS, build_count)


if __name__ == "__main__":
  main()
