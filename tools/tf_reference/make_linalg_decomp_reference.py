#!/usr/bin/env python3
"""TensorFlow 2.21's values for the matrix decompositions and banded
solvers: Qr, Svd, SelfAdjointEigV2, Lu, MatrixSquareRoot, MatrixSolveLs,
TridiagonalSolve, TridiagonalMatMul and BandedTriangularSolve (float32 and
float64, batched), the gradients tf.gradients writes through them, and
tf.compat.v1.orthogonal_initializer (a Qr of seeded normal numbers).

Writes tests/testdata/tf_linalg_decomp/ (the ops and the initializer) and
tests/testdata/tf_linalg_decomp_grad/ (the gradients), each:
  graph.pb      one TF-written GraphDef (tf.compat.v1 graph mode): shaped
                placeholders, every op applied to them, tf.gradients of a
                loss through each, each result named out_<case> by an
                Identity
  cases.txt     the feeds and TensorFlow's values, one per line:
                  feed <name> <dtype> [<dims>] | v0 v1 ...
                  fetch <name> <dtype> [<dims>] | v0 v1 ...
                (floats printed with %.9g / %.17g: exact)
Fetches whose name contains "_signfree" are singular vectors or
eigenvectors: each column is determined up to its sign only, so the test
compares them column by column up to a sign (what TensorFlow's own tests
compare); everything else, including reconstructions and the gradients
(which do not depend on the signs), is compared as it is.
Read by tests/kernels/linalg_decomp_ops_test.cc.

Run: python3 tools/tf_reference/make_linalg_decomp_reference.py
"""
import os

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
os.environ.setdefault("CUDA_VISIBLE_DEVICES", "")

import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402

from value_cases import fmt, head  # noqa: E402

tf1 = tf.compat.v1
OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                   "tests", "testdata", "tf_linalg_decomp")

rng = np.random.RandomState(23)


def uniform(*shape, lo=-2.0, hi=2.0):
  return np.round(rng.uniform(lo, hi, shape), 3).astype(np.float32)


def spd(batch, n):
  a = uniform(batch, n, n)
  return (a @ a.transpose(0, 2, 1) + 2 * np.eye(n)).astype(np.float32)


FEEDS = {
    # General matrices: tall, wide and square, batched.
    "tall": uniform(2, 5, 3),
    "wide": uniform(2, 3, 5),
    "sq": uniform(2, 4, 4),
    # Symmetric (for eigh; TF reads the lower triangle only) and SPD.
    "spd": spd(2, 4),
    # Diagonally dominant tridiagonal systems (compact [.., 3, n] form) and
    # one whose first pivot is 0 (needs partial pivoting).
    "tri_diags": np.concatenate([uniform(2, 1, 5), uniform(2, 1, 5, lo=3,
                                                           hi=4),
                                 uniform(2, 1, 5)], axis=1),
    "tri_piv": np.array([[[1.0, 2.0, -1.0, 0.5, 0.0],
                          [0.0, 1.0, 3.0, -2.0, 1.5],
                          [0.0, 2.0, 1.0, 0.5, -1.0]]], np.float32),
    "tri_rhs": uniform(2, 5, 2),
    "tri_rhs1": uniform(1, 5, 2),
    # Banded triangular: 3 bands of a 5 x 5 matrix (diagonal well away
    # from 0), batched, and right-hand sides.
    "band": np.concatenate([uniform(2, 1, 5, lo=2, hi=3),
                            uniform(2, 2, 5)], axis=1),
    "band_rhs": uniform(2, 5, 3),
    # Least squares.
    "ls_rhs_tall": uniform(2, 5, 2),
    "ls_rhs_wide": uniform(2, 3, 2),
    # Weights for the losses the gradients are taken of.
    "w53": uniform(2, 5, 3),
    "w33": uniform(2, 3, 3),
    "w44": uniform(2, 4, 4),
    "w3": uniform(2, 3),
    "w4": uniform(2, 4),
}


def build_forward(p):
  L = tf.linalg
  R = tf.raw_ops
  f64 = lambda t: tf.cast(t, tf.float64)  # noqa: E731
  tall, wide, sq, sym = p["tall"], p["wide"], p["sq"], p["spd"]
  cases = {}

  # --- Qr: reduced and full, tall, wide and square; float64. ---
  for name, a in [("tall", tall), ("wide", wide), ("sq", sq)]:
    q, r = L.qr(a)
    cases["Qr_%s_q" % name], cases["Qr_%s_r" % name] = q, r
    q, r = L.qr(a, full_matrices=True)
    cases["Qr_%s_full_q" % name], cases["Qr_%s_full_r" % name] = q, r
  q, r = L.qr(f64(tall))
  cases["Qr_tall_f64_q"], cases["Qr_tall_f64_r"] = q, r
  q, r = L.qr(f64(wide), full_matrices=True)
  cases["Qr_wide_full_f64_q"], cases["Qr_wide_full_f64_r"] = q, r

  # --- Svd: values only, thin and full vectors, float64. ---
  for name, a in [("tall", tall), ("wide", wide), ("sq", sq)]:
    cases["Svd_%s_s" % name] = L.svd(a, compute_uv=False)
    s, u, v = L.svd(a)
    cases["Svd_%s_thin_s" % name] = s
    cases["Svd_%s_thin_u_signfree" % name] = u
    cases["Svd_%s_thin_v_signfree" % name] = v
    cases["Svd_%s_recon" % name] = u @ L.diag(s) @ L.adjoint(v)
  s, u, v = L.svd(tall, full_matrices=True)
  cases["Svd_tall_full_u_signfree"], cases["Svd_tall_full_v_signfree"] = u, v
  # The full U's last columns span the orthogonal complement: compare
  # U^T U (the identity) rather than those columns' values.
  cases["Svd_tall_full_utu"] = L.adjoint(u) @ u
  s, u, v = L.svd(f64(wide))
  cases["Svd_wide_f64_s"] = s
  cases["Svd_wide_f64_recon"] = u @ L.diag(s) @ L.adjoint(v)

  # --- SelfAdjointEigV2: values only, vectors, float64. ---
  cases["Eigvalsh"] = L.eigvalsh(sym)
  e, v = L.eigh(sym)
  cases["Eigh_e"], cases["Eigh_v_signfree"] = e, v
  cases["Eigh_recon"] = v @ L.diag(e) @ L.adjoint(v)
  e, v = L.eigh(f64(sq + L.adjoint(sq)))
  cases["Eigh_f64_e"], cases["Eigh_f64_v_signfree"] = e, v

  # --- Lu, both index types; float64. ---
  lu, perm = L.lu(f64(sq), output_idx_type=tf.int64)
  cases["Lu_f64_lu"], cases["Lu_f64_perm"] = lu, perm
  lu, perm = L.lu(sq)
  cases["Lu_lu"], cases["Lu_perm"] = lu, perm
  # P A = L U, with L (unit diagonal) and U packed in lu.
  eye = tf.eye(4, batch_shape=[2])
  lower = L.band_part(lu, -1, 0) - L.band_part(lu, 0, 0) + eye
  cases["Lu_recon"] = tf.gather(
      lower @ L.band_part(lu, 0, -1),
      tf.argsort(perm), batch_dims=1)

  # --- MatrixSquareRoot (SPD input: a real square root exists). ---
  cases["Sqrtm"] = L.sqrtm(sym)
  cases["Sqrtm_f64"] = L.sqrtm(f64(sym))
  cases["Sqrtm_upper"] = L.sqrtm(L.band_part(sym, 0, -1) +
                                 3 * tf.eye(4))

  # --- MatrixSolveLs: fast (normal equations) and not (complete
  # orthogonal decomposition), over- and underdetermined, regularized. ---
  cases["Lstsq_tall"] = L.lstsq(tall, p["ls_rhs_tall"])
  cases["Lstsq_tall_l2"] = L.lstsq(tall, p["ls_rhs_tall"],
                                   l2_regularizer=0.5)
  cases["Lstsq_wide"] = L.lstsq(wide, p["ls_rhs_wide"])
  cases["Lstsq_tall_slow"] = L.lstsq(tall, p["ls_rhs_tall"], fast=False)
  cases["Lstsq_wide_slow"] = L.lstsq(wide, p["ls_rhs_wide"], fast=False)
  cases["Lstsq_tall_f64"] = L.lstsq(f64(tall), f64(p["ls_rhs_tall"]),
                                    l2_regularizer=0.25)

  # --- Tridiagonal solve and product. ---
  td, trhs = p["tri_diags"], p["tri_rhs"]
  cases["TriSolve_piv"] = L.tridiagonal_solve(td, trhs)
  cases["TriSolve_thomas"] = L.tridiagonal_solve(td, trhs,
                                                 partial_pivoting=False)
  cases["TriSolve_needs_piv"] = L.tridiagonal_solve(p["tri_piv"],
                                                    p["tri_rhs1"])
  cases["TriSolve_perturb"] = L.tridiagonal_solve(
      p["tri_piv"], p["tri_rhs1"], perturb_singular=True)
  cases["TriSolve_f64"] = L.tridiagonal_solve(f64(td), f64(trhs))
  cases["TriSolve_n1"] = R.TridiagonalSolve(diagonals=td[:, :, :1],
                                            rhs=trhs[:, :1, :])
  sup, main, sub = td[:, 0:1, :], td[:, 1:2, :], td[:, 2:3, :]
  cases["TriMatMul"] = R.TridiagonalMatMul(superdiag=sup, maindiag=main,
                                           subdiag=sub, rhs=trhs)
  cases["TriMatMul_f64"] = R.TridiagonalMatMul(
      superdiag=f64(sup), maindiag=f64(main), subdiag=f64(sub),
      rhs=f64(trhs))

  # --- BandedTriangularSolve: lower/upper, adjoint, broadcast. ---
  band, brhs = p["band"], p["band_rhs"]
  for lower in (True, False):
    for adjoint in (False, True):
      k = "BandSolve_%s%s" % ("lower" if lower else "upper",
                              "_adj" if adjoint else "")
      cases[k] = L.banded_triangular_solve(band, brhs, lower=lower,
                                           adjoint=adjoint)
  cases["BandSolve_bcast"] = L.banded_triangular_solve(band[0], brhs)
  cases["BandSolve_f64"] = L.banded_triangular_solve(f64(band), f64(brhs),
                                                     lower=False)

  return cases


def build_gradients(p):
  """tf.gradients through each op: what TensorFlow writes is MatMuls,
  triangular solves, bands and diagonals around the forward ops."""
  L = tf.linalg
  R = tf.raw_ops
  tall, wide, sq, sym = p["tall"], p["wide"], p["sq"], p["spd"]
  td, trhs = p["tri_diags"], p["tri_rhs"]
  sup, main, sub = td[:, 0:1, :], td[:, 1:2, :], td[:, 2:3, :]
  band, brhs = p["band"], p["band_rhs"]
  cases = {}
  q, r = L.qr(tall)
  qw, rw = L.qr(wide)
  qs, rs = L.qr(sq)
  loss_qr = (tf.reduce_sum(q * p["w53"]) + tf.reduce_sum(r * p["w33"]) +
             tf.reduce_sum(qw * p["w33"]) + tf.reduce_sum(rw ** 2) +
             tf.reduce_sum(qs * p["w44"]) + tf.reduce_sum(rs))
  g = tf.gradients(loss_qr, [tall, wide, sq])
  cases["Grad_qr_dtall"], cases["Grad_qr_dwide"], cases["Grad_qr_dsq"] = g
  s_only = L.svd(tall, compute_uv=False)
  s, u, v = L.svd(sq)
  loss_svd = (tf.reduce_sum(s_only * p["w3"]) + tf.reduce_sum(s * p["w4"]) +
              tf.reduce_sum((u @ L.diag(s) @ L.adjoint(v)) * p["w44"]))
  g = tf.gradients(loss_svd, [tall, sq])
  cases["Grad_svd_dtall"], cases["Grad_svd_dsq"] = g
  e_only = L.eigvalsh(sym)
  e, v = L.eigh(sq + L.adjoint(sq))
  loss_eig = (tf.reduce_sum(e_only * p["w4"]) + tf.reduce_sum(e ** 2) +
              tf.reduce_sum((v @ L.diag(e) @ L.adjoint(v)) * p["w44"]))
  g = tf.gradients(loss_eig, [sym, sq])
  cases["Grad_eig_dspd"], cases["Grad_eig_dsq"] = g
  loss_sqrtm = tf.reduce_sum(L.sqrtm(sym) * p["w44"])
  cases["Grad_sqrtm_dspd"] = tf.gradients(loss_sqrtm, sym)[0]
  loss_ls = (tf.reduce_sum(L.lstsq(tall, p["ls_rhs_tall"]) ** 2) +
             tf.reduce_sum(L.lstsq(wide, p["ls_rhs_wide"],
                                   l2_regularizer=0.5)))
  g = tf.gradients(loss_ls, [tall, wide, p["ls_rhs_tall"]])
  cases["Grad_ls_dtall"], cases["Grad_ls_dwide"] = g[0], g[1]
  cases["Grad_ls_drhs"] = g[2]
  loss_tri = (tf.reduce_sum(L.tridiagonal_solve(td, trhs) ** 2) +
              tf.reduce_sum(R.TridiagonalMatMul(superdiag=sup, maindiag=main,
                                                subdiag=sub, rhs=trhs) ** 2))
  g = tf.gradients(loss_tri, [td, trhs])
  cases["Grad_tri_ddiags"], cases["Grad_tri_drhs"] = g
  loss_band = tf.reduce_sum(L.banded_triangular_solve(band, brhs) ** 2)
  g = tf.gradients(loss_band, [band, brhs])
  if g[0] is not None:
    cases["Grad_band_dband"] = g[0]
  cases["Grad_band_drhs"] = g[1]

  return cases


def build_initializer(p):
  """tf.compat.v1.orthogonal_initializer: seeded normal numbers, a Qr and
  the signs of R's diagonal. dflow's RandomStandardNormal gives
  TensorFlow's numbers for a seed, so the values are TensorFlow's."""
  del p
  init = tf1.orthogonal_initializer(gain=1.5, seed=7)
  return {"Orthogonal_init": init([6, 4], dtype=tf.float32),
          "Orthogonal_init_wide": init([3, 5], dtype=tf.float32)}


def write(out, builders):
  os.makedirs(out, exist_ok=True)
  g = tf.Graph()
  with g.as_default():
    tf1.set_random_seed(1234)
    p = {k: tf1.placeholder(tf.as_dtype(v.dtype), v.shape, name=k)
         for k, v in FEEDS.items()}
    cases = {}
    for b in builders:
      cases.update(b(p))
    outs = {k: tf.identity(v, name="out_" + k) for k, v in cases.items()}
    # Feed only the placeholders some fetch reads.
    used = {i.name.split(":")[0] for n in g.get_operations()
            for i in n.inputs}
    feeds = {k: v for k, v in FEEDS.items() if k in used}
    with tf1.Session() as s:
      values = s.run(outs, {g.get_tensor_by_name(k + ":0"): v
                            for k, v in feeds.items()})
  with open(os.path.join(out, "graph.pb"), "wb") as f:
    f.write(g.as_graph_def().SerializeToString(deterministic=True))
  lines = ["# Written by tools/tf_reference/make_linalg_decomp_reference.py "
           "with TensorFlow %s." % tf.__version__]
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
  write(OUT, [build_forward, build_initializer])
  write(OUT + "_grad", [build_gradients])


if __name__ == "__main__":
  main()
