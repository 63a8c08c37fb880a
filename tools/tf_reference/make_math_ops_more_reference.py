#!/usr/bin/env python3
"""TensorFlow 2.21's values for TruncateDiv/Mod, Xdivy, Xlogy, Xlog1py,
Atan2, ApproximateEqual, tf.bitwise, MatrixBandPart, MatrixSetDiagV3 (and
bands of diagonals in MatrixDiagV3/MatrixDiagPartV3), Cross, CheckNumerics,
BiasAddV1 and the batched linear algebra (Cholesky, MatrixInverse,
MatrixDeterminant, LogMatrixDeterminant, MatrixSolve,
MatrixTriangularSolve), including the gradients TensorFlow writes for them.

Writes tests/testdata/tf_math_ops_more/:
  graph.pb      one TF-written GraphDef (tf.compat.v1 graph mode): shaped
                placeholders, every op applied to them (narrow integer
                types by Cast from int32 and back), tf.gradients through
                the differentiable ones, each result named out_<case> by
                an Identity
  cases.txt     the feeds and TensorFlow's values, one per line:
                  feed <name> <dtype> [<dims>] | v0 v1 ...
                  fetch <name> <dtype> [<dims>] | v0 v1 ...
                (floats printed with %.9g / %.17g: exact)
Read by tests/kernels/math_ops_more_test.cc.

Run: python3 tools/tf_reference/make_math_ops_more_reference.py
"""
import os

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
os.environ.setdefault("CUDA_VISIBLE_DEVICES", "")

import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402

from value_cases import fmt, head  # noqa: E402

tf1 = tf.compat.v1
OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                   "tests", "testdata", "tf_math_ops_more")

rng = np.random.RandomState(11)


def uniform(*shape, lo=-2.0, hi=2.0):
  return np.round(rng.uniform(lo, hi, shape), 3).astype(np.float32)


def well_conditioned(batch, n):
  """Random matrices plus 3 * identity: far from singular."""
  return (uniform(batch, n, n) + 3 * np.eye(n, dtype=np.float32))


def spd(batch, n):
  a = uniform(batch, n, n)
  return (a @ a.transpose(0, 2, 1) + 2 * np.eye(n)).astype(np.float32)


FEEDS = {
    # Truncating division: every sign combination, exact quotients.
    "ti": np.array([7, -7, 7, -7, 0, 13, -13, 2147483647], np.int32),
    "tj": np.array([2, 2, -2, -2, 3, -4, 5, 2], np.int32),
    "tf": np.array([7.5, -7.5, 7.5, -7.5, 3.0, -3.0, 0.0, 5.25], np.float32),
    "tg": np.array([2.0, 2.0, -2.0, -2.0, 1.5, 1.5, 3.0, -0.5], np.float32),
    # x * f(y) forms: zeros in x (with y = 0 too), broadcasting y.
    "xa": np.array([[0.0, 1.5, -2.0, 0.0], [3.0, 0.0, 0.25, -1.0]],
                   np.float32),
    "ya": np.array([[0.0, 2.0, 0.5, 3.0], [1.5, 0.0, 4.0, 0.75]], np.float32),
    "yrow": np.array([0.5, 2.0, 1.25, 3.0], np.float32),
    "at_y": uniform(3, 4),
    "at_x": uniform(4),
    # ApproximateEqual.
    "ae_x": np.array([1.0, 2.0, 3.0, -4.0, 0.0], np.float32),
    "ae_y": np.array([1.000001, 2.1, 3.0, -4.00002, 1e-6], np.float32),
    # tf.bitwise.
    "ba": np.array([-1000, -7, 0, 5, 12, 255, 1023, 2147483647], np.int32),
    "bb": np.array([3, -2, 7, 9, -12, 15, 512, -1], np.int32),
    "bs": np.array([0, 1, 3, 31, 35, -1, 8, 4], np.int32),
    # Matrix bands and diagonals.
    "m": uniform(2, 4, 5),
    "md": uniform(2, 4),
    "mband": uniform(2, 3, 4),
    # Cross.
    "cu": uniform(4, 3),
    "cv": uniform(4, 3),
    "ci": np.array([[1, 2, 3], [-4, 5, 6]], np.int32),
    "cj": np.array([[7, -8, 9], [1, 0, -2]], np.int32),
    # BiasAddV1.
    "bv": uniform(2, 3, 5),
    "bbias": uniform(5),
    # Linear algebra: well-conditioned matrices, SPD matrices, rhs.
    "la": well_conditioned(2, 4),
    "lspd": spd(2, 4),
    "lrhs": uniform(2, 4, 3),
    "lrhs1": uniform(1, 4, 2),
}


def build():
  p = {k: tf1.placeholder(tf.as_dtype(v.dtype), v.shape, name=k)
       for k, v in FEEDS.items()}
  R = tf.raw_ops
  f64 = lambda v: tf.cast(v, tf.float64)  # noqa: E731
  i64 = lambda v: tf.cast(v, tf.int64)  # noqa: E731
  i32 = lambda v: tf.cast(v, tf.int32)  # noqa: E731
  cases = {}
  # Truncating division.
  cases["TruncDiv_i32"] = tf.truncatediv(p["ti"], p["tj"])
  cases["TruncMod_i32"] = tf.truncatemod(p["ti"], p["tj"])
  cases["TruncDiv_i64"] = tf.truncatediv(i64(p["ti"]) * 3, i64(p["tj"]))
  cases["TruncMod_i64"] = tf.truncatemod(i64(p["ti"]) * 3, i64(p["tj"]))
  cases["TruncDiv_f32"] = tf.truncatediv(p["tf"], p["tg"])
  cases["TruncMod_f32"] = tf.truncatemod(p["tf"], p["tg"])
  cases["TruncMod_f64_bcast"] = tf.truncatemod(f64(p["tf"]), f64(2.5))
  cases["TruncDiv_scalar"] = tf.truncatediv(p["ti"], 3)
  # x * f(y) forms and atan2, with their gradients.
  xa, ya, yrow = p["xa"], p["ya"], p["yrow"]
  cases["Xlogy"] = tf.math.xlogy(xa, ya)
  cases["Xlogy_bcast"] = tf.math.xlogy(xa, yrow)
  cases["Xlogy_f64"] = tf.math.xlogy(f64(xa), f64(ya))
  cases["Xdivy"] = tf.math.xdivy(xa, ya)
  cases["Xdivy_bcast"] = tf.math.xdivy(xa, yrow)
  cases["Xlog1py"] = tf.math.xlog1py(xa, ya)
  cases["Xlog1py_bcast"] = tf.math.xlog1py(f64(xa), f64(yrow))
  cases["Atan2"] = tf.atan2(p["at_y"], p["at_x"])
  cases["Atan2_f64"] = tf.atan2(f64(p["at_y"]), f64(p["at_x"]))
  loss = (tf.reduce_sum(tf.math.xlogy(xa, yrow + 1.0)) +
          tf.reduce_sum(tf.math.xdivy(xa, yrow)) +
          tf.reduce_sum(tf.math.xlog1py(xa, yrow)) +
          tf.reduce_sum(tf.atan2(p["at_y"], p["at_x"])))
  g = tf.gradients(loss, [xa, yrow, p["at_y"], p["at_x"]])
  for name, t in zip(["xa", "yrow", "at_y", "at_x"], g):
    cases["Grad_binary_d" + name] = t
  cases["ApproxEqual"] = R.ApproximateEqual(x=p["ae_x"], y=p["ae_y"],
                                            tolerance=1e-5)
  cases["ApproxEqual_loose"] = R.ApproximateEqual(x=f64(p["ae_x"]),
                                                  y=f64(p["ae_y"]),
                                                  tolerance=0.2)
  # tf.bitwise: int32, int64, and the narrow types through casts.
  ba, bb, bs = p["ba"], p["bb"], p["bs"]
  B = tf.bitwise
  cases["BitAnd"] = B.bitwise_and(ba, bb)
  cases["BitOr"] = B.bitwise_or(ba, bb)
  cases["BitXor"] = B.bitwise_xor(ba, bb)
  cases["Invert"] = B.invert(ba)
  cases["LeftShift"] = B.left_shift(ba, bs)
  cases["RightShift"] = B.right_shift(ba, bs)
  cases["BitAnd_i64"] = B.bitwise_and(i64(ba) * 4096, i64(bb))
  cases["LeftShift_i64"] = B.left_shift(i64(ba), i64(bs) * 2)
  cases["RightShift_i64_bcast"] = B.right_shift(i64(ba) * 65536,
                                                tf.constant(5, tf.int64))
  for t in (tf.uint8, tf.int8, tf.int16, tf.uint16):
    u, v = tf.cast(ba, t), tf.cast(bb, t)
    n = t.name
    cases["BitXor_" + n] = i32(B.bitwise_xor(u, v))
    cases["Invert_" + n] = i32(B.invert(u))
    cases["RightShift_" + n] = i32(B.right_shift(u, tf.constant(3, t)))
    cases["LeftShift_" + n] = i32(B.left_shift(u, tf.cast(bs, t)))
  # Matrix bands and diagonals, and the gradients through them.
  m, md = p["m"], p["md"]
  cases["Band_01"] = tf.linalg.band_part(m, 0, 1)
  cases["Band_lower"] = tf.linalg.band_part(m, -1, 0)
  cases["Band_upper2"] = tf.linalg.band_part(m, 2, -1)
  cases["Band_i64_idx"] = R.MatrixBandPart(
      input=i32(m * 10), num_lower=tf.constant(1, tf.int64),
      num_upper=tf.constant(0, tf.int64))
  cases["SetDiag"] = tf.linalg.set_diag(m, md)
  cases["SetDiag_k1"] = tf.linalg.set_diag(m, md, k=1)
  cases["SetDiag_band"] = tf.linalg.set_diag(
      m, tf.linalg.diag_part(m * 2, k=(-1, 2)), k=(-1, 2))
  cases["SetDiag_band_align"] = tf.linalg.set_diag(
      m, tf.linalg.diag_part(m + 1, k=(-2, 1), align="LEFT_LEFT"), k=(-2, 1),
      align="LEFT_LEFT")
  cases["DiagPart_band"] = tf.linalg.diag_part(m, k=(-1, 1))
  cases["DiagPart_band_pad"] = tf.linalg.diag_part(m, k=(-3, 2),
                                                   padding_value=9.0,
                                                   align="LEFT_RIGHT")
  cases["Diag_band"] = tf.linalg.diag(p["mband"], k=(-1, 1))
  cases["Diag_band_rect"] = tf.linalg.diag(p["mband"], k=(0, 2), num_rows=4,
                                           num_cols=6, padding_value=-1.0)
  loss = (tf.reduce_sum(tf.linalg.band_part(m, 1, 1) ** 2) +
          tf.reduce_sum(tf.linalg.set_diag(m, md) * 3) +
          tf.reduce_sum(tf.linalg.diag_part(m, k=(-1, 1)) ** 2))
  g = tf.gradients(loss, [m, md])
  cases["Grad_band_dm"], cases["Grad_band_dmd"] = g
  # Cross, CheckNumerics, BiasAddV1.
  cases["Cross"] = tf.linalg.cross(p["cu"], p["cv"])
  cases["Cross_f64"] = tf.linalg.cross(f64(p["cu"]), f64(p["cv"]))
  cases["Cross_i32"] = tf.linalg.cross(p["ci"], p["cj"])
  cases["Grad_cross_du"] = tf.gradients(
      tf.reduce_sum(tf.linalg.cross(p["cu"], p["cv"]) ** 2), p["cu"])[0]
  cases["CheckNumerics"] = tf.debugging.check_numerics(p["bv"], "bv bad")
  cases["BiasAddV1"] = R.BiasAddV1(value=p["bv"], bias=p["bbias"])
  cases["BiasAddV1_f64"] = R.BiasAddV1(value=f64(p["bv"]),
                                       bias=f64(p["bbias"]))
  # Linear algebra (float32 and float64) and its gradients.
  la, lspd, lrhs = p["la"], p["lspd"], p["lrhs"]
  L = tf.linalg
  ch = L.cholesky(lspd)
  cases["Cholesky"] = ch
  cases["Cholesky_f64"] = L.cholesky(f64(lspd))
  cases["Inverse"] = L.inv(la)
  cases["Inverse_adj"] = L.inv(la, adjoint=True)
  cases["Inverse_f64"] = L.inv(f64(la))
  cases["Det"] = L.det(la)
  cases["Det_f64"] = L.det(f64(la))
  sign, logdet = L.slogdet(la)
  cases["SlogDet_sign"], cases["SlogDet_log"] = sign, logdet
  sign, logdet = L.slogdet(f64(-la))
  cases["SlogDet_f64_sign"], cases["SlogDet_f64_log"] = sign, logdet
  cases["Solve"] = L.solve(la, lrhs)
  cases["Solve_adj"] = L.solve(la, lrhs, adjoint=True)
  cases["Solve_f64"] = L.solve(f64(la), f64(lrhs))
  cases["TriSolve_lower"] = L.triangular_solve(ch, lrhs, lower=True)
  cases["TriSolve_upper"] = L.triangular_solve(L.adjoint(ch), lrhs,
                                               lower=False)
  cases["TriSolve_lower_adj"] = L.triangular_solve(ch, lrhs, lower=True,
                                                   adjoint=True)
  cases["TriSolve_upper_adj_f64"] = L.triangular_solve(
      f64(L.adjoint(ch)), f64(lrhs), lower=False, adjoint=True)
  cases["TriSolve_bcast"] = L.triangular_solve(ch, p["lrhs1"], lower=True)
  cases["TriSolve_rank2"] = L.triangular_solve(ch[0], lrhs[0], lower=True)
  cases["CholeskySolve"] = L.cholesky_solve(ch, lrhs)
  cases["LogDet"] = L.logdet(lspd)
  loss = (tf.reduce_sum(L.inv(la) ** 2) + tf.reduce_sum(L.det(la)) +
          tf.reduce_sum(L.cholesky(lspd)) +
          tf.reduce_sum(L.solve(la, lrhs)) +
          tf.reduce_sum(L.slogdet(la)[1]) +
          tf.reduce_sum(L.triangular_solve(L.band_part(la, -1, 0), lrhs)) +
          tf.reduce_sum(L.triangular_solve(L.band_part(la, 0, -1), lrhs,
                                           lower=False, adjoint=True)))
  g = tf.gradients(loss, [la, lspd, lrhs])
  cases["Grad_linalg_dla"], cases["Grad_linalg_dspd"] = g[0], g[1]
  cases["Grad_linalg_drhs"] = g[2]
  return {k: tf.identity(v, name="out_" + k) for k, v in cases.items()}


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
  lines = ["# Written by tools/tf_reference/make_math_ops_more_reference.py "
           "with TensorFlow %s." % tf.__version__]
  for k, v in FEEDS.items():
    lines.append("%s | %s" % (head("feed", k, v), fmt(v)))
  for k in sorted(values):
    lines.append("%s | %s" % (head("fetch", "out_" + k, values[k]),
                              fmt(values[k])))
  with open(os.path.join(OUT, "cases.txt"), "w") as f:
    f.write("\n".join(lines) + "\n")
  ops = sorted({n.op for n in g.as_graph_def().node})
  print("wrote", OUT, len(values), "fetches; ops:", " ".join(ops))


if __name__ == "__main__":
  main()
