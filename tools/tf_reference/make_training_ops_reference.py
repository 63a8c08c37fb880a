#!/usr/bin/env python3
"""TensorFlow 2.21's values for the regularized optimizers: Adadelta, Ftrl,
FtrlV2, ProximalAdagrad, ProximalGradientDescent and AdagradDA, each in its
Apply*, ResourceApply*, SparseApply* and ResourceSparseApply* forms.

Writes tests/testdata/tf_training_ops/:
  graph.pb      one TF-written GraphDef (tf.compat.v1 graph mode): per case a
                variable (reference or resource, float32 or float64), a loss
                on it (dense: through a product; sparse: through tf.gather
                with a repeated id, so the gradient is IndexedSlices), the
                update the tf.compat.v1.train optimizer writes for it (or a
                raw op, for the attrs the optimizers never set), all grouped
                in `train`; `init` initializes every variable, and
                out_<case> reads each variable
  cases.txt     the feeds and each variable's value after STEPS runs of
                `train` (see tests/kernels/tf_value_cases.h for the format)
Read by tests/kernels/training_ops_regularized_test.cc.

Run: python3 tools/tf_reference/make_training_ops_reference.py
"""
import os

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
os.environ.setdefault("CUDA_VISIBLE_DEVICES", "")

import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402

from value_cases import fmt, head  # noqa: E402

tf1 = tf.compat.v1
OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                   "tests", "testdata", "tf_training_ops")
STEPS = 3

rng = np.random.RandomState(11)


def uniform(*shape):
  return np.round(rng.uniform(-1.5, 1.5, shape), 3).astype(np.float32)


FEEDS = {
    "target": uniform(6, 3),
    "scale": uniform(6, 3),
    # Row 2 twice: the optimizers sum duplicate rows before the update.
    "ids": np.array([2, 5, 2, 0], np.int32),
    "ids64": np.array([4, 1, 4], np.int64),
}

# name: (make the optimizer, or None for a raw-op case; its global step)
OPTIMIZERS = {
    "adadelta": lambda gs: tf1.train.AdadeltaOptimizer(1.5, rho=0.9,
                                                       epsilon=1e-4),
    "ftrl_l1l2": lambda gs: tf1.train.FtrlOptimizer(
        0.3, l1_regularization_strength=0.05,
        l2_regularization_strength=0.1),
    "ftrl_power": lambda gs: tf1.train.FtrlOptimizer(
        0.3, learning_rate_power=-0.7, initial_accumulator_value=0.2,
        l1_regularization_strength=0.02),
    "ftrlv2": lambda gs: tf1.train.FtrlOptimizer(
        0.3, l1_regularization_strength=0.01,
        l2_shrinkage_regularization_strength=0.2),
    "ftrlv2_power": lambda gs: tf1.train.FtrlOptimizer(
        0.2, learning_rate_power=-0.6, l2_regularization_strength=0.05,
        l2_shrinkage_regularization_strength=0.1),
    "proximal_adagrad": lambda gs: tf1.train.ProximalAdagradOptimizer(
        0.3, l1_regularization_strength=0.05,
        l2_regularization_strength=0.1),
    "proximal_adagrad_l2": lambda gs: tf1.train.ProximalAdagradOptimizer(
        0.3, l2_regularization_strength=0.2),
    "proximal_gd": lambda gs: tf1.train.ProximalGradientDescentOptimizer(
        0.2, l1_regularization_strength=0.1,
        l2_regularization_strength=0.05),
    "proximal_gd_l2": lambda gs: tf1.train.ProximalGradientDescentOptimizer(
        0.2, l2_regularization_strength=0.3),
    "adagrad_da": lambda gs: tf1.train.AdagradDAOptimizer(
        0.3, gs, l1_regularization_strength=0.02,
        l2_regularization_strength=0.1),
    "adagrad_da_l2": lambda gs: tf1.train.AdagradDAOptimizer(
        0.3, gs, l2_regularization_strength=0.2),
}


def loss_of(v, p, sparse, ids):
  if sparse:
    rows = tf.gather(v, p[ids])
    return tf.reduce_sum(tf.square(rows - tf.cast(
        tf.gather(p["target"], tf.range(tf.size(p[ids]))), v.dtype)))
  return tf.reduce_sum(tf.square(v * tf.cast(p["scale"], v.dtype) -
                                 tf.cast(p["target"], v.dtype)))


def build():
  p = {k: tf1.placeholder(tf.as_dtype(v.dtype), v.shape, name=k)
       for k, v in FEEDS.items()}
  init_value = uniform(6, 3)
  outs, updates = {}, []
  for name, make in OPTIMIZERS.items():
    for resource in (False, True):
      for sparse in (False, True):
        for dtype in (np.float32, np.float64):
          # float64 once per optimizer and form pair, on the dense ref and
          # sparse resource forms.
          # (the proximal optimizers pass their float32 rates to a float64
          # variable's op as they are, which TensorFlow refuses).
          if dtype == np.float64 and (resource != sparse or
                                      name.startswith("proximal")):
            continue
          case = "%s_%s_%s_%s" % (name, "resource" if resource else "ref",
                                  "sparse" if sparse else "dense",
                                  np.dtype(dtype).name)
          with tf1.variable_scope(case):
            v = tf1.get_variable("w", initializer=init_value.astype(dtype),
                                 use_resource=resource)
            gs = tf1.get_variable("step", initializer=np.int64(0),
                                  trainable=False, use_resource=False)
            ids = "ids64" if sparse and name.endswith("_l2") else "ids"
            loss = loss_of(v, p, sparse, ids)
            updates.append(make(gs).minimize(loss, global_step=gs,
                                             var_list=[v]))
            outs[case] = v
  # multiply_linear_by_lr, which the optimizers never set: raw ops on
  # resource variables with hand-made slots.
  grad = tf.constant(uniform(6, 3))
  for form in ("dense", "sparse"):
    for op_v2 in (False, True):
      case = "ftrl%s_linear_by_lr_%s" % ("v2" if op_v2 else "", form)
      with tf1.variable_scope(case):
        v = tf1.get_variable("w", initializer=init_value,
                             use_resource=True)
        accum = tf1.get_variable("accum", initializer=np.full(
            (6, 3), 0.1, np.float32), use_resource=True)
        linear = tf1.get_variable("linear", initializer=np.zeros(
            (6, 3), np.float32), use_resource=True)
        args = dict(var=v.handle, accum=accum.handle, linear=linear.handle,
                    lr=0.25, l1=0.03, l2=0.1, lr_power=-0.5,
                    multiply_linear_by_lr=True)
        if op_v2:
          args["l2_shrinkage"] = 0.15
        if form == "dense":
          op = (tf.raw_ops.ResourceApplyFtrlV2 if op_v2
                else tf.raw_ops.ResourceApplyFtrl)
          updates.append(op(grad=grad, **args))
        else:
          op = (tf.raw_ops.ResourceSparseApplyFtrlV2 if op_v2
                else tf.raw_ops.ResourceSparseApplyFtrl)
          updates.append(op(grad=grad[:3], indices=tf.constant([4, 0, 4]),
                            **args))
        outs[case] = v
        outs[case + "_linear"] = linear
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
  with open(os.path.join(OUT, "graph.pb"), "wb") as f:
    f.write(g.as_graph_def().SerializeToString(deterministic=True))
  lines = ["# Written by tools/tf_reference/make_training_ops_reference.py "
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
