#!/usr/bin/env python3
"""TensorFlow 2.21's values for the fake-quantization and
quantize-dequantize ops of graph/ops/quantization_ops.cc.

Writes tests/testdata/tf_quantization/:
  graph.pb    one TF-written GraphDef (tf.compat.v1 graph mode): placeholders
              for each case's input, range and incoming gradient, the ops
              applied to them, each result named out_<case> by an Identity,
              and tf.gradients through FakeQuantWithMinMaxArgs/Vars/
              PerChannel and QuantizeAndDequantizeV4 (which write their
              *Gradient / V4Grad ops)
  cases.txt   the feeds and TensorFlow's values (value_cases.py's format)
Read by tests/kernels/quantization_ops_test.cc.

The inputs of every case hold the nudged range's ends, points on the grid,
the ties half way between grid points (nudged_min + (k + 0.5) * scale, as
float32 computes it) and values outside the range, so a kernel that rounds
the other way, nudges differently or clamps at the unnudged range fails.
TensorFlow's CPU kernels of QuantizeAndDequantize* are float and double only
(half and bfloat16 have none), so those are the dtypes here.

Run: python3 tools/tf_reference/make_quantization_reference.py
"""
import os
import sys

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
os.environ.setdefault("CUDA_VISIBLE_DEVICES", "")

import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from value_cases import fmt, head  # noqa: E402

tf1 = tf.compat.v1
R = tf.raw_ops
OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                   "tests", "testdata", "tf_quantization")
f32 = np.float32


def nudge(lo, hi, bits, narrow):
  """FakeQuant's nudged range in float32 (only to place test points)."""
  qmin, qmax = f32(1 if narrow else 0), f32((1 << bits) - 1)
  scale = f32(f32(hi) - f32(lo)) / f32(qmax - qmin)
  zp = f32(qmin - f32(lo) / scale)
  zp = qmin if zp < qmin else qmax if zp > qmax else np.round(zp)
  return f32((qmin - zp) * scale), f32((qmax - zp) * scale), f32(scale)


def fq_points(lo, hi, bits, narrow, rng):
  """Grid ends, grid points, ties and outsiders of a FakeQuant range."""
  nmin, nmax, s = nudge(lo, hi, bits, narrow)
  steps = int(round((nmax - nmin) / s))
  ks = sorted(set([0, 1, 2, steps // 2, steps - 2, steps - 1]) |
              set(int(k) for k in rng.integers(0, max(steps, 1), 6)))
  ks = [k for k in ks if 0 <= k < steps]
  pts = [nmin, nmax, f32(lo), f32(hi), nmin - s, nmax + s, f32(0),
         nmin - f32(100), nmax + f32(100)]
  pts += [f32(nmin + f32(k) * s) for k in ks]
  pts += [f32(nmin + f32(k + 0.5) * s) for k in ks]
  pts += [f32(nmin + f32(k + 0.5) * s) * f32(1 + 2 ** -23) for k in ks[:3]]
  pts += list(rng.uniform(lo - 0.5, hi + 0.5, 6).astype(f32))
  return np.array(pts, f32)


def qdq_points(lo, hi, rng, dtype):
  """Values across [lo, hi] and past it, with ties of power-of-two scales."""
  pts = [lo, hi, 0.0, lo * 0.5, hi * 0.5, lo - 1, hi + 1]
  pts += [(k + 0.5) / 64.0 for k in range(-6, 6)]
  pts += [(k + 0.5) / 16.0 for k in range(-3, 3)]
  pts += list(rng.uniform(lo - 0.25, hi + 0.25, 8))
  return np.array(pts, dtype)


class Builder:
  def __init__(self):
    self.feeds = {}   # name -> value
    self.outs = {}    # case -> tensor

  def feed(self, name, value):
    value = np.asarray(value)
    self.feeds[name] = value
    return tf1.placeholder(tf.as_dtype(value.dtype), value.shape, name=name)

  def out(self, case, t):
    self.outs[case] = tf.identity(t, name="out_" + case)


def fake_quant_cases(b, rng):
  # (min, max, num_bits, narrow_range): symmetric, TFLite's 8-bit ranges,
  # ranges whose zero point must be nudged, all-positive and all-negative
  # ranges (zero point clamped to the grid's ends), every num_bits 2..16,
  # and a 16-bit range whose zero point wraps TensorFlow's uint8.
  configs = [(-6.0, 6.0, 8, False), (-1.0, 1.0, 8, True),
             (-1.0, 2.984375, 8, False), (-0.3, 2.7, 3, False),
             (0.5, 2.0, 8, False), (-3.0, -1.0, 8, True),
             (-1000.0, 0.5, 16, False), (-0.5, 1000.0, 16, True)]
  configs += [(-1.7, 3.1, bits, bits % 2 == 0) for bits in range(2, 17)]
  for i, (lo, hi, bits, narrow) in enumerate(configs):
    x = fq_points(lo, hi, bits, narrow, rng)
    tag = "%d_b%d%s" % (i, bits, "n" if narrow else "")
    xa = b.feed("fq_x_" + tag, x)
    g = b.feed("fq_g_" + tag, rng.uniform(-2, 2, x.shape).astype(f32))
    mn = b.feed("fq_min_" + tag, f32(lo))
    mx = b.feed("fq_max_" + tag, f32(hi))
    args = R.FakeQuantWithMinMaxArgs(inputs=xa, min=lo, max=hi,
                                     num_bits=bits, narrow_range=narrow)
    b.out("Args_" + tag, args)
    b.out("ArgsGrad_" + tag, tf.gradients(args, xa, grad_ys=g)[0])
    var = R.FakeQuantWithMinMaxVars(inputs=xa, min=mn, max=mx,
                                    num_bits=bits, narrow_range=narrow)
    b.out("Vars_" + tag, var)
    dx, dmin, dmax = tf.gradients(var, [xa, mn, mx], grad_ys=g)
    b.out("VarsGradX_" + tag, dx)
    b.out("VarsGradMin_" + tag, dmin)
    b.out("VarsGradMax_" + tag, dmax)
  # A range of zeros (TensorFlow gives 0 and passes every gradient), NaN.
  x = np.array([-1, -0.3, 0, 0.2, 0.7, 1.5, np.nan], f32)
  xz = b.feed("fq_x_zero", x)
  gz = b.feed("fq_g_zero", np.linspace(-1, 1, 7).astype(f32))
  var = R.FakeQuantWithMinMaxVars(inputs=xz, min=f32(0), max=f32(0))
  b.out("Vars_zero_range", var)
  b.out("VarsGradX_zero_range",
        R.FakeQuantWithMinMaxVarsGradient(gradients=gz, inputs=xz,
                                          min=f32(0), max=f32(0))[0])
  b.out("Vars_nan", R.FakeQuantWithMinMaxVars(inputs=xz, min=f32(-1),
                                              max=f32(1)))
  b.out("Args_nan", R.FakeQuantWithMinMaxArgs(inputs=xz, min=-1, max=1))


def per_channel_cases(b, rng):
  # One range per channel of the last dimension, each from the configs
  # above; ranks 1, 2 and 4.
  chans = [(-6.0, 6.0), (-1.0, 2.984375), (0.5, 2.0), (-3.0, -1.0),
           (-0.3, 2.7), (0.0, 0.0)]
  for bits, narrow in [(8, False), (4, True), (2, False), (16, False),
                       (11, True)]:
    lo = np.array([c[0] for c in chans], f32)
    hi = np.array([c[1] for c in chans], f32)
    cols = [fq_points(l, h, bits, narrow, rng)[:24] for l, h in chans[:-1]]
    cols.append(np.linspace(-2, 2, 24).astype(f32))
    x = np.stack(cols, axis=1)   # [24, 6]
    tag = "b%d%s" % (bits, "n" if narrow else "")
    for rank, shape in [(2, (24, 6)), (4, (2, 3, 4, 6))]:
      if rank == 4 and bits not in (8, 4):
        continue
      t = "%s_r%d" % (tag, rank)
      xa = b.feed("pc_x_" + t, x.reshape(shape))
      g = b.feed("pc_g_" + t, rng.uniform(-2, 2, shape).astype(f32))
      mn = b.feed("pc_min_" + t, lo)
      mx = b.feed("pc_max_" + t, hi)
      y = R.FakeQuantWithMinMaxVarsPerChannel(
          inputs=xa, min=mn, max=mx, num_bits=bits, narrow_range=narrow)
      b.out("PerChannel_" + t, y)
      dx, dmin, dmax = tf.gradients(y, [xa, mn, mx], grad_ys=g)
      b.out("PerChannelGradX_" + t, dx)
      b.out("PerChannelGradMin_" + t, dmin)
      b.out("PerChannelGradMax_" + t, dmax)
  x1 = b.feed("pc_x_rank1", np.array([-0.7, 0.33, 2.5, -9.0], f32))
  b.out("PerChannel_rank1", R.FakeQuantWithMinMaxVarsPerChannel(
      inputs=x1, min=np.array([-1, 0, 0.5, -3], f32),
      max=np.array([1, 0.5, 2, -1], f32)))


def qdq_cases(b, rng):
  # V2/V4 (attrs) and V3 (num_bits an input) over signed_input,
  # narrow_range, num_bits, range_given, round_mode, axis, float and double.
  shape = (2, 3, 4)
  for dtype in (np.float32, np.float64):
    dt = "f32" if dtype == np.float32 else "f64"
    base = np.concatenate([qdq_points(-2.0, 1.0, rng, dtype)] * 1)[:24]
    x_np = base.reshape(shape)
    x = b.feed("qdq_x_" + dt, x_np)
    g = b.feed("qdq_g_" + dt, rng.uniform(-1, 1, shape).astype(dtype))
    lo = b.feed("qdq_min_" + dt, dtype(-2.0))
    hi = b.feed("qdq_max_" + dt, dtype(1.0))
    lo_u = b.feed("qdq_min_u_" + dt, dtype(-0.5))
    hi_u = b.feed("qdq_max_u_" + dt, dtype(1.5))
    i = 0
    for signed in (True, False):
      for narrow in (False, True):
        for bits in (1, 2, 4, 8, 16, 30):
          if bits == 1 and not signed:
            continue
          for given in (True, False):
            for mode in ("HALF_TO_EVEN", "HALF_UP"):
              i += 1
              if (i % 3 != 0 and bits not in (8, 2)) or (
                  dtype == np.float64 and i % 2):
                continue   # a sample of the cross product keeps it small
              mn, mx = (lo, hi) if signed else (lo_u, hi_u)
              tag = "%s_%s%s_b%d_%s_%s" % (
                  dt, "s" if signed else "u", "n" if narrow else "", bits,
                  "given" if given else "auto",
                  "even" if mode == "HALF_TO_EVEN" else "up")
              kw = dict(input=x, input_min=mn, input_max=mx,
                        signed_input=signed, num_bits=bits,
                        range_given=given, narrow_range=narrow)
              b.out("V2_" + tag, R.QuantizeAndDequantizeV2(
                  round_mode=mode, **kw))
              if mode == "HALF_TO_EVEN":
                kw3 = dict(kw)
                kw3["num_bits"] = tf.constant(bits, tf.int32)
                b.out("V3_" + tag, R.QuantizeAndDequantizeV3(**kw3))
              v4 = R.QuantizeAndDequantizeV4(round_mode=mode, **kw)
              b.out("V4_" + tag, v4)
    # Per axis: ranges computed from the input, or given per index.
    for axis in (0, 1, 2):
      depth = shape[axis]
      lo_v = np.linspace(-2.0, -0.25, depth).astype(dtype)
      hi_v = np.linspace(0.5, 1.75, depth).astype(dtype)
      mn = b.feed("qdq_min_a%d_%s" % (axis, dt), lo_v)
      mx = b.feed("qdq_max_a%d_%s" % (axis, dt), hi_v)
      for given in (True, False):
        for signed, narrow, bits, mode in [(True, False, 8, "HALF_TO_EVEN"),
                                           (False, False, 4, "HALF_UP"),
                                           (True, True, 3, "HALF_UP")]:
          tag = "%s_axis%d_%s_%s%s_b%d_%s" % (
              dt, axis, "given" if given else "auto",
              "s" if signed else "u", "n" if narrow else "", bits, mode)
          kw = dict(input=x, input_min=mn, input_max=mx, signed_input=signed,
                    num_bits=bits, range_given=given, narrow_range=narrow,
                    axis=axis)
          if not given:
            # TensorFlow 2.21's V2/V4 kernels refuse every given range with
            # an axis ("input_min must be a scalar"); V3 takes one.
            b.out("V2_" + tag,
                  R.QuantizeAndDequantizeV2(round_mode=mode, **kw))
            b.out("V4_" + tag,
                  R.QuantizeAndDequantizeV4(round_mode=mode, **kw))
          kw3 = dict(kw)
          kw3["num_bits"] = tf.constant(bits, tf.int32)
          b.out("V3_" + tag, R.QuantizeAndDequantizeV3(**kw3))
      # V4's gradient per axis (tf.gradients writes QuantizeAndDequantizeV4Grad).
      v4 = R.QuantizeAndDequantizeV4(input=x, input_min=mn, input_max=mx,
                                     range_given=False, axis=axis)
      dx, dmin, dmax = tf.gradients(v4, [x, mn, mx], grad_ys=g)
      b.out("V4GradX_%s_axis%d" % (dt, axis), dx)
      b.out("V4GradMin_%s_axis%d" % (dt, axis), dmin)
      b.out("V4GradMax_%s_axis%d" % (dt, axis), dmax)
    v4 = R.QuantizeAndDequantizeV4(input=x, input_min=lo, input_max=hi,
                                   range_given=False, num_bits=4)
    dx, dmin, dmax = tf.gradients(v4, [x, lo, hi], grad_ys=g)
    b.out("V4GradX_" + dt, dx)
    b.out("V4GradMin_" + dt, dmin)
    b.out("V4GradMax_" + dt, dmax)
    # tf.quantization's wrappers (V2 and V4 ops, as users write them).
    b.out("tfq_qdq_" + dt, tf.quantization.quantize_and_dequantize(
        x, -2.0, 1.0, range_given=True, round_mode="HALF_UP"))
    b.out("tfq_qdq_v2_" + dt, tf.quantization.quantize_and_dequantize_v2(
        x, -2.0, 1.0, num_bits=5, narrow_range=True))


def main():
  rng = np.random.default_rng(20261129)
  os.makedirs(OUT, exist_ok=True)
  g = tf.Graph()
  b = Builder()
  with g.as_default():
    fake_quant_cases(b, rng)
    per_channel_cases(b, rng)
    qdq_cases(b, rng)
    ops = set(n.op for n in g.as_graph_def().node)
    with tf1.Session() as s:
      values = s.run(b.outs, {g.get_tensor_by_name(k + ":0"): v
                              for k, v in b.feeds.items()})
  want = {"FakeQuantWithMinMaxArgs", "FakeQuantWithMinMaxArgsGradient",
          "FakeQuantWithMinMaxVars", "FakeQuantWithMinMaxVarsGradient",
          "FakeQuantWithMinMaxVarsPerChannel",
          "FakeQuantWithMinMaxVarsPerChannelGradient",
          "QuantizeAndDequantizeV2", "QuantizeAndDequantizeV3",
          "QuantizeAndDequantizeV4", "QuantizeAndDequantizeV4Grad"}
  assert want <= ops, want - ops
  with open(os.path.join(OUT, "graph.pb"), "wb") as f:
    f.write(g.as_graph_def().SerializeToString(deterministic=True))
  lines = ["# Written by tools/tf_reference/make_quantization_reference.py "
           "with TensorFlow %s." % tf.__version__]
  for k, v in b.feeds.items():
    lines.append("%s | %s" % (head("feed", k, v), fmt(v)))
  for k in sorted(values):
    v = np.asarray(values[k])
    lines.append("%s | %s" % (head("fetch", "out_" + k, v), fmt(v)))
  with open(os.path.join(OUT, "cases.txt"), "w") as f:
    f.write("\n".join(lines) + "\n")
  print("wrote", OUT, len(values), "fetches")


if __name__ == "__main__":
  main()
