#!/usr/bin/env python3
"""TensorFlow 2.21's values for Einsum (with the gradients tf.gradients
writes through it, themselves Einsums) and the text of StringFormat.

Writes tests/testdata/tf_einsum/:
  graph.pb      one TF-written GraphDef (tf.compat.v1 graph mode): float32,
                float64 and int32 placeholders, tf.einsum in many forms
                (products, batch products with broadcast ellipses, outer
                products, transposes, traces and diagonals, sums, implicit
                outputs, three operands), gradients through some, each result
                named out_<case>; and StringFormat nodes (tf.strings.format)
                of constants named fmt_<case>
  cases.txt     the feeds and TensorFlow's values, one per line:
                  feed <name> <dtype> [<dims>] | v0 v1 ...
                  fetch <name> <dtype> [<dims>] | v0 v1 ...
                (floats printed with %.9g / %.17g: exact)
  formats.txt   TensorFlow's StringFormat outputs: "<node> <hex of bytes>"
Read by tests/kernels/einsum_test.cc.

Run: python3 tools/tf_reference/make_einsum_reference.py
"""
import os

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
os.environ.setdefault("CUDA_VISIBLE_DEVICES", "")

import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402

from value_cases import fmt, head  # noqa: E402

tf1 = tf.compat.v1
OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                   "tests", "testdata", "tf_einsum")

rng = np.random.RandomState(11)


def uniform(*shape):
  return np.round(rng.uniform(-2.0, 2.0, shape), 3).astype(np.float32)


FEEDS = {
    "a": uniform(3, 4),
    "b": uniform(4, 5),
    "q": uniform(2, 3, 4),
    "k": uniform(2, 5, 4),
    "sq": uniform(4, 4),
    "bsq": uniform(2, 3, 3),
    "e1": uniform(2, 1, 3, 4),
    "e2": uniform(3, 4, 2),
    "v": uniform(4),
    "w": uniform(5),
    "t4": uniform(2, 3, 2, 3),
    "c": uniform(5, 2),
    "ai": rng.randint(-5, 6, (3, 4)).astype(np.int32),
    "bi": rng.randint(-5, 6, (4, 2)).astype(np.int32),
    "zk": np.zeros((3, 0), np.float32),
    "zn": np.zeros((0, 2), np.float32),
}


def build():
  p = {k: tf1.placeholder(tf.as_dtype(v.dtype), v.shape, name=k)
       for k, v in FEEDS.items()}
  ad = tf.cast(p["a"], tf.float64)
  bd = tf.cast(p["b"], tf.float64)
  cases = {}
  cases["matmul"] = tf.einsum("ij,jk->ik", p["a"], p["b"])
  cases["matmul_t"] = tf.einsum("ij,kj->ki", p["a"], tf.transpose(p["b"]))
  cases["attention"] = tf.einsum("bqd,bkd->bqk", p["q"], p["k"])
  cases["attention_out"] = tf.einsum("bqk,bkd->bqd",
                                     tf.einsum("bqd,bkd->bqk", p["q"], p["k"]),
                                     p["k"])
  cases["outer"] = tf.einsum("i,j->ij", p["v"], p["w"])
  cases["dot"] = tf.einsum("i,i->", p["v"], p["v"])
  cases["transpose"] = tf.einsum("bij->jbi", p["q"])
  cases["sum_all"] = tf.einsum("ij->", p["a"])
  cases["row_sum"] = tf.einsum("ij->i", p["a"])
  cases["trace"] = tf.einsum("ii", p["sq"])
  cases["diag"] = tf.einsum("ii->i", p["sq"])
  cases["batch_diag"] = tf.einsum("bii->bi", p["bsq"])
  cases["batch_trace"] = tf.einsum("bii->b", p["bsq"])
  cases["ellipsis_bcast"] = tf.einsum("...ij,...jk->...ik", p["e1"], p["e2"])
  cases["ellipsis_left"] = tf.einsum("ij...,jk->ik...", p["e2"],
                                     tf.ones([4, 2]))
  cases["implicit"] = tf.einsum("ij,jk", p["a"], p["b"])
  cases["implicit_transpose"] = tf.einsum("ba", p["a"])
  cases["mul_bcast"] = tf.einsum("ij,j->ij", p["a"], p["v"])
  cases["mat_vec"] = tf.einsum("ij,j->i", p["a"], p["v"])
  cases["reduce_other"] = tf.einsum("ij,kl->ik", p["a"], p["b"])
  cases["four_d"] = tf.einsum("abcd,cdb->a", p["t4"],
                              tf.ones([2, 3, 3]))
  cases["three"] = tf.einsum("ij,jk,kl->il", p["a"], p["b"], p["c"])
  cases["f64"] = tf.einsum("ij,jk->ki", ad, bd)
  cases["int32"] = tf.einsum("ij,jk->ik", p["ai"], p["bi"])
  cases["empty_k"] = tf.einsum("ik,kj->ij", p["zk"], p["zn"])
  # Gradients: TensorFlow writes them as Einsums (and reductions).
  loss = tf.reduce_sum(tf.square(
      tf.einsum("bqd,bkd->bqk", p["q"], p["k"])))
  cases["grad_q"], cases["grad_k"] = tf.gradients(loss, [p["q"], p["k"]])
  loss2 = tf.reduce_sum(tf.sin(tf.einsum("...ij,...jk->...ik", p["e1"],
                                         p["e2"])))
  cases["grad_e1"], cases["grad_e2"] = tf.gradients(loss2, [p["e1"], p["e2"]])
  cases["grad_diag"] = tf.gradients(
      tf.reduce_sum(tf.einsum("ii->i", p["sq"]) * p["v"]), p["sq"])[0]
  outs = {k: tf.identity(v, name="out_" + k) for k, v in cases.items()}

  formats = {
      "int_scalar": ("{}", [tf.constant(3)]),
      "float_scalar": ("{}", [tf.constant(1.5)]),
      "float_third": ("{}", [tf.constant(1.0 / 3)]),
      "double_third": ("{}", [tf.constant(np.float64(1.0 / 3))]),
      "vector": ("{}", [tf.constant([1, 2, 3])]),
      "long_vector": ("{}", [tf.range(10)]),
      "matrix": ("{}", [tf.reshape(tf.range(12), [3, 4])]),
      "big_matrix": ("{}", [tf.reshape(tf.range(100), [10, 10])]),
      "cube": ("{}", [tf.reshape(tf.range(60.0), [3, 4, 5])]),
      "bools": ("{}", [tf.constant([True, False])]),
      "strings": ("{}", [tf.constant(["ab", "c'd\n"])]),
      "string_scalar": ("{}", [tf.constant("hi")]),
      "empty": ("{}", [tf.zeros([0])]),
      "empty_rows": ("{}", [tf.zeros([2, 0])]),
      "exponents": ("{}", [tf.constant([1.0, 2.5e10, 1e-7, -0.0])]),
      "nan_inf": ("{}", [tf.constant([np.nan, np.inf, -np.inf])]),
      "two_inputs": ("x={} y={}!", [tf.constant(1), tf.constant([2., 3.])]),
      "summarize_all": ("{}", [tf.range(10)], -1),
      "summarize_one": ("{}", [tf.reshape(tf.range(12), [3, 4])], 1),
      "summarize_zero": ("{}", [tf.range(10)], 0),
      "int64": ("v: {}", [tf.constant([7, -8], tf.int64)]),
      "no_inputs": ("plain text", []),
  }
  fmts = {}
  for name, spec in formats.items():
    template, inputs = spec[0], spec[1]
    summarize = spec[2] if len(spec) > 2 else 3
    fmts[name] = tf.strings.format(template, inputs, summarize=summarize,
                                   name="fmt_" + name)
  return outs, fmts


def main():
  os.makedirs(OUT, exist_ok=True)
  g = tf.Graph()
  with g.as_default():
    outs, fmts = build()
    with tf1.Session() as s:
      values, texts = s.run(
          (outs, fmts),
          {g.get_tensor_by_name(k + ":0"): v for k, v in FEEDS.items()})
  with open(os.path.join(OUT, "graph.pb"), "wb") as f:
    f.write(g.as_graph_def().SerializeToString(deterministic=True))
  lines = ["# Written by tools/tf_reference/make_einsum_reference.py "
           "with TensorFlow %s." % tf.__version__]
  for k, v in FEEDS.items():
    lines.append("%s | %s" % (head("feed", k, v), fmt(v)))
  for k in sorted(values):
    lines.append("%s | %s" % (head("fetch", "out_" + k, values[k]),
                              fmt(values[k])))
  with open(os.path.join(OUT, "cases.txt"), "w") as f:
    f.write("\n".join(lines) + "\n")
  with open(os.path.join(OUT, "formats.txt"), "w") as f:
    for k in sorted(texts):
      f.write("fmt_%s %s\n" % (k, texts[k].hex()))
  print("wrote", OUT, len(values), "fetches,", len(texts), "formats")


if __name__ == "__main__":
  main()
