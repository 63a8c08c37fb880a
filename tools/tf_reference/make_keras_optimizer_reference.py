#!/usr/bin/env python3
"""TensorFlow 2.21's values for the update ops Keras's optimizers write:
ResourceApplyKerasMomentum (SGD with momentum, plain and Nesterov),
ResourceSparseApplyKerasMomentum (the same on embedding rows),
ResourceApplyAdamWithAmsgrad (Adam(amsgrad=True)) and ResourceApplyAdaMax
(Adamax), plus ApplyAdaMax on a reference variable (the raw op: no Keras
optimizer writes the reference form).

Writes tests/testdata/tf_keras_optimizers/:
  graph.pb   one TF-written GraphDef (tf.compat.v1 graph mode, tf_keras's
             legacy optimizers' get_updates, what model.fit builds in graph
             mode): per case a variable, a loss on it, the optimizer's update
             ops grouped in `train`; `init` initializes every variable and
             out_<case> reads each one
  cases.txt  the feeds and each variable's value after STEPS runs of
             `train` (tests/kernels/tf_value_cases.h's format)
Read by tests/kernels/keras_optimizer_ops_test.cc.

Run: python3 tools/tf_reference/make_keras_optimizer_reference.py
"""
import os

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
os.environ.setdefault("CUDA_VISIBLE_DEVICES", "")

import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402
import tf_keras as keras  # noqa: E402

from value_cases import fmt, head  # noqa: E402

tf1 = tf.compat.v1
OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                   "tests", "testdata", "tf_keras_optimizers")
STEPS = 3

rng = np.random.RandomState(17)


def uniform(*shape):
  return np.round(rng.uniform(-1.5, 1.5, shape), 3).astype(np.float32)


FEEDS = {
    "target": uniform(6, 3),
    "scale": uniform(6, 3),
    # Row 2 twice: Keras sums duplicate rows of an IndexedSlices gradient
    # before the sparse update only when asked; the op sees them as they are.
    "ids": np.array([2, 5, 2, 0], np.int32),
}

legacy = keras.optimizers.legacy
OPTIMIZERS = {
    "sgd_momentum": lambda: legacy.SGD(0.1, momentum=0.9),
    "sgd_nesterov": lambda: legacy.SGD(0.05, momentum=0.8, nesterov=True),
    "adam_amsgrad": lambda: legacy.Adam(0.05, amsgrad=True),
    "adamax": lambda: legacy.Adamax(0.05, beta_1=0.8, beta_2=0.95),
}


def loss_of(v, p, sparse):
  if sparse:
    rows = tf.gather(v, p["ids"])
    return tf.reduce_sum(tf.square(rows - tf.gather(
        p["target"], tf.range(tf.size(p["ids"])))))
  return tf.reduce_sum(tf.square(v * p["scale"] - p["target"]))


def build():
  p = {k: tf1.placeholder(tf.as_dtype(v.dtype), v.shape, name=k)
       for k, v in FEEDS.items()}
  init_value = uniform(6, 3)
  outs, updates = {}, []
  for name, make in OPTIMIZERS.items():
    for sparse in (False, True):
      if sparse and not name.startswith("sgd"):
        continue  # Adam and Adamax densify nothing: their sparse path is ops
      case = "%s_%s" % (name, "sparse" if sparse else "dense")
      with tf1.variable_scope(case):
        v = tf1.get_variable("w", initializer=init_value, use_resource=True)
        loss = loss_of(v, p, sparse)
        updates += make().get_updates(loss, [v])
        outs[case] = v
  # The reference form, as a raw op (slots made by hand).
  with tf1.variable_scope("adamax_ref_raw"):
    v = tf1.get_variable("w", initializer=init_value, use_resource=False)
    m = tf1.get_variable("m", initializer=np.zeros((6, 3), np.float32),
                         use_resource=False)
    u = tf1.get_variable("u", initializer=np.zeros((6, 3), np.float32),
                         use_resource=False)
    grad = tf.gradients(loss_of(v, p, False), v)[0]
    updates.append(tf.raw_ops.ApplyAdaMax(
        var=v, m=m, v=u, beta1_power=tf.constant(0.9), lr=tf.constant(0.05),
        beta1=tf.constant(0.9), beta2=tf.constant(0.99),
        epsilon=tf.constant(1e-7), grad=grad))
    outs["adamax_ref_raw"] = v
    outs["adamax_ref_raw_u"] = u
  train = tf.group(*updates, name="train")
  init = tf1.global_variables_initializer()
  assert init.name == "init", init.name
  reads = {}
  for k, v in outs.items():
    value = v.read_value() if hasattr(v, "handle") else tf.identity(v)
    reads[k] = tf.identity(value, name="out_" + k)
  return reads, train


def main():
  os.makedirs(OUT, exist_ok=True)
  g = tf.Graph()
  with g.as_default():
    reads, train = build()
    feed = {g.get_tensor_by_name(k + ":0"): v for k, v in FEEDS.items()}
    with tf1.Session() as s:
      s.run("init")
      for _ in range(STEPS):
        s.run(train, feed)
      values = s.run(reads, feed)
  ops = sorted({n.op for n in g.as_graph_def().node})
  for want in ("ResourceApplyKerasMomentum",
               "ResourceSparseApplyKerasMomentum",
               "ResourceApplyAdamWithAmsgrad", "ResourceApplyAdaMax",
               "ApplyAdaMax"):
    assert want in ops, (want, ops)
  with open(os.path.join(OUT, "graph.pb"), "wb") as f:
    f.write(g.as_graph_def().SerializeToString(deterministic=True))
  lines = ["# Written by tools/tf_reference/make_keras_optimizer_reference.py "
           "with TensorFlow %s: the variables after %d runs of `train`."
           % (tf.__version__, STEPS)]
  for k, v in FEEDS.items():
    lines.append("%s | %s" % (head("feed", k, v), fmt(v)))
  for k in sorted(values):
    lines.append("%s | %s" % (head("fetch", "out_" + k, values[k]),
                              fmt(values[k])))
  with open(os.path.join(OUT, "cases.txt"), "w") as f:
    f.write("\n".join(lines) + "\n")
  print("wrote", OUT, len(values), "fetches")


if __name__ == "__main__":
  main()
