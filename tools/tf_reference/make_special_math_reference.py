#!/usr/bin/env python3
"""TensorFlow 2.21's values for the element-wise ops of
graph/ops/math_ops_special.cc and graph/ops/nn_ops_activations.cc.

Writes tests/testdata/tf_special_math/:
  graph.pb      one TF-written GraphDef (tf.compat.v1 graph mode): a few
                placeholders over each op's domain, every op applied to
                them (float32, and some float64, float16 and int32), each
                result named out_<case> by an Identity
  cases.txt     the feeds and TensorFlow's values, one per line:
                  feed <name> <dtype> | v0 v1 ...
                  fetch <name> <dtype> | v0 v1 ...
                (floats printed with %.9g / %.17g: exact; nan, inf, -inf)
Read by tests/kernels/special_math_ops_test.cc.

Run: python3 tools/tf_reference/make_special_math_reference.py
"""
import os

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
os.environ.setdefault("CUDA_VISIBLE_DEVICES", "")

import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402

tf1 = tf.compat.v1
OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                   "tests", "testdata", "tf_special_math")

FEEDS = {
    # any real: halves (rounding), both softplus thresholds, +-0
    "x_any": np.array([-20.0, -15.0, -3.7, -2.5, -1.2, -0.5, -0.0, 0.0, 0.3,
                       0.5, 1.5, 2.5, 3.49, 7.9, 15.0, 20.0], np.float32),
    "x_unit": np.array([-0.99, -0.5, -0.1, 0.0, 0.25, 0.7, 0.95], np.float32),
    "x_ge1": np.array([1.0, 1.1, 2.0, 10.0, 100.0], np.float32),
    "x_pos": np.array([0.1, 0.5, 1.0, 2.5, 7.0, 30.0], np.float32),
    "x_neg": np.array([-0.5, -1.5, -2.25, -7.3], np.float32),
    "x_odd": np.array([np.nan, np.inf, -np.inf, 1.0, -2.0, 0.0], np.float32),
    "g_any": np.linspace(-1.5, 2.0, 16).astype(np.float32),
    "g_pos": np.linspace(0.5, -0.7, 6).astype(np.float32),
    "i_any": np.array([-2147483648, -7, -1, 0, 3, 2147483647], np.int32),
}


def build():
  ph = {k: tf1.placeholder(tf.as_dtype(v.dtype), [len(v)], name=k)
        for k, v in FEEDS.items()}
  x, u, ge1, pos, neg, odd = (ph["x_any"], ph["x_unit"], ph["x_ge1"],
                              ph["x_pos"], ph["x_neg"], ph["x_odd"])
  g, gp, i = ph["g_any"], ph["g_pos"], ph["i_any"]
  R = tf.raw_ops
  cases = {
      "Abs": R.Abs(x=x), "Sign": R.Sign(x=x), "Sign_odd": R.Sign(x=odd),
      "Sin": R.Sin(x=x), "Cos": R.Cos(x=x), "Tan": R.Tan(x=u),
      "Asin": R.Asin(x=u), "Acos": R.Acos(x=u), "Atan": R.Atan(x=x),
      "Sinh": R.Sinh(x=u * 3.0), "Cosh": R.Cosh(x=u * 3.0),
      "Asinh": R.Asinh(x=x), "Acosh": R.Acosh(x=ge1), "Atanh": R.Atanh(x=u),
      "Log1p": R.Log1p(x=pos), "Log1p_small": R.Log1p(x=u * 1e-6),
      "Expm1": R.Expm1(x=u), "Reciprocal": R.Reciprocal(x=x),
      "Inv": R.Inv(x=pos), "Round": R.Round(x=x), "Rint": R.Rint(x=x),
      "Ceil": R.Ceil(x=x), "Erf": R.Erf(x=x), "Erfc": R.Erfc(x=x),
      "Lgamma": R.Lgamma(x=pos), "Lgamma_neg": R.Lgamma(x=neg),
      "Digamma": R.Digamma(x=pos), "Digamma_neg": R.Digamma(x=neg),
      "IsFinite": R.IsFinite(x=odd), "IsNan": R.IsNan(x=odd),
      "IsInf": R.IsInf(x=odd),
      "RsqrtGrad": R.RsqrtGrad(y=pos, dy=gp),
      "SqrtGrad": R.SqrtGrad(y=pos, dy=gp),
      "ReciprocalGrad": R.ReciprocalGrad(y=pos, dy=gp),
      "Softplus": R.Softplus(features=x), "Softsign": R.Softsign(features=x),
      "Relu6": R.Relu6(features=x * 2.0), "Elu": R.Elu(features=x),
      "Selu": R.Selu(features=x), "LeakyRelu": R.LeakyRelu(features=x),
      "LeakyRelu_03": R.LeakyRelu(features=x, alpha=0.3),
      "SoftplusGrad": R.SoftplusGrad(gradients=g, features=x),
      "SoftsignGrad": R.SoftsignGrad(gradients=g, features=x),
      "Relu6Grad": R.Relu6Grad(gradients=g, features=x * 2.0),
      "EluGrad": R.EluGrad(gradients=g, outputs=R.Elu(features=x)),
      "SeluGrad": R.SeluGrad(gradients=g, outputs=R.Selu(features=x)),
      "LeakyReluGrad": R.LeakyReluGrad(gradients=g, features=x, alpha=0.1),
      # other dtypes: double, half, int32
      "Sin_f64": R.Sin(x=tf.cast(x, tf.float64)),
      "Erf_f64": R.Erf(x=tf.cast(x, tf.float64)),
      "Softplus_f64": R.Softplus(features=tf.cast(x, tf.float64)),
      "Elu_f16": tf.cast(R.Elu(features=tf.cast(x, tf.float16)),
                                tf.float32),
      "Abs_i32": R.Abs(x=i), "Sign_i32": R.Sign(x=i),
      "Relu6_i32": R.Relu6(features=i),
  }
  return {k: tf.identity(v, name="out_" + k) for k, v in cases.items()}


def fmt(a):
  a = np.asarray(a)
  if a.dtype == np.bool_:
    return " ".join("1" if v else "0" for v in a.flat)
  if a.dtype.kind in "iu":
    return " ".join(str(int(v)) for v in a.flat)
  spec = "%.17g" if a.dtype == np.float64 else "%.9g"
  return " ".join(spec % v for v in a.flat)


def main():
  os.makedirs(OUT, exist_ok=True)
  g = tf.Graph()
  with g.as_default():
    outs = build()
    with tf1.Session() as s:
      values = s.run(outs, {g.get_tensor_by_name(k + ":0"): v
                            for k, v in FEEDS.items()})
  with open(os.path.join(OUT, "graph.pb"), "wb") as f:
    f.write(g.as_graph_def().SerializeToString(deterministic=True))
  lines = ["# Written by tools/tf_reference/make_special_math_reference.py "
           "with TensorFlow %s." % tf.__version__]
  for k, v in FEEDS.items():
    lines.append("feed %s %s | %s" % (k, v.dtype.name, fmt(v)))
  for k in sorted(values):
    v = np.asarray(values[k])
    lines.append("fetch out_%s %s | %s" % (k, v.dtype.name, fmt(v)))
  with open(os.path.join(OUT, "cases.txt"), "w") as f:
    f.write("\n".join(lines) + "\n")
  print("wrote", OUT, len(values), "fetches")


if __name__ == "__main__":
  main()
