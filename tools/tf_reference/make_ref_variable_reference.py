#!/usr/bin/env python3
"""TensorFlow 2.21's values for reference variables (VariableV2), which
TensorFlow updates in place: `v/read` (the Identity every reader of a
tf.compat.v1 variable goes through) shares the variable's buffer, so a
reader ordered after an update sees the new value even though the read
itself ran before it. Resource variables copy on write instead: a value
read before an update keeps the old numbers.

One TF-written graph (tf.compat.v1 graph mode, ref variables), `train`
runs one step of each pattern, chained by control dependencies so the
order is TensorFlow's:
  ema       seed 003's cifar10.train: GradientDescent on a two-layer
            model, then (after the update) ExponentialMovingAverage of the
            trainable variables, which reads them through v/read
  momentum  Momentum on a one-layer model, a fetch of the updated weights
            through the read taken before the update
  assign_add, scatter, assign
            a read taken before AssignAdd, ScatterAdd and Assign, used
            after it (kept in resource variables: got_*)
  copy      Assign of one ref variable's read to another, then an update of
            the first: the second keeps the value it was given
  resource  a resource variable's read before its AssignAdd keeps the old
            value (copy on write), as TensorFlow's
Writes tests/testdata/tf_ref_variables/ (graph.pb, cases.txt: the values
after STEPS runs of `train`), read by tests/kernels/ref_variable_test.cc.

Run: python3 tools/tf_reference/make_ref_variable_reference.py
"""
import os

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
os.environ.setdefault("CUDA_VISIBLE_DEVICES", "")

import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402

from value_cases import write_cases  # noqa: E402

tf1 = tf.compat.v1
OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                   "tests", "testdata", "tf_ref_variables")
STEPS = 3

rng = np.random.RandomState(11)
FEEDS = {
    "x": np.round(rng.uniform(-1, 1, (4, 3)), 3).astype(np.float32),
    "y": np.round(rng.uniform(-1, 1, (4, 2)), 3).astype(np.float32),
    "u": np.round(rng.uniform(-1, 1, (3,)), 3).astype(np.float32),
}


def ref_var(name, value):
  return tf1.get_variable(name, initializer=np.asarray(value, np.float32),
                          use_resource=False)


def kept(name, shape):
  """A resource variable holding what a step computed."""
  return tf1.get_variable(name, initializer=tf.zeros(shape),
                          use_resource=True)


def build():
  p = {k: tf1.placeholder(tf.float32, v.shape, name=k)
       for k, v in FEEDS.items()}
  outs = {}
  keeps = []

  # ema: cifar10.train's order (EMA after the gradient update).
  w1 = ref_var("ema/w1", rng.uniform(-1, 1, (3, 4)).round(3))
  b1 = ref_var("ema/b1", np.zeros(4))
  w2 = ref_var("ema/w2", rng.uniform(-1, 1, (4, 2)).round(3))
  hidden = tf.nn.relu(tf.matmul(p["x"], w1) + b1)
  loss = tf.reduce_mean(tf.square(tf.matmul(hidden, w2) - p["y"]))
  step = tf1.train.GradientDescentOptimizer(0.3).minimize(loss)
  ema = tf1.train.ExponentialMovingAverage(0.9)
  with tf.control_dependencies([step]):
    ema_op = ema.apply([w1, b1, w2])
  for v in (w1, b1, w2):
    outs[v.op.name.replace("/", "_")] = v
    outs[v.op.name.replace("/", "_") + "_avg"] = ema.average(v)
  keeps.append(ema_op)

  # momentum: the weights read before the update, used after it.
  wm = ref_var("momentum/w", rng.uniform(-1, 1, (3, 2)).round(3))
  loss_m = tf.reduce_sum(tf.square(tf.matmul(p["x"], wm) - p["y"]))
  read_m = wm.value()
  step_m = tf1.train.MomentumOptimizer(0.05, 0.9).minimize(loss_m)
  got_m = kept("momentum/got", [3, 2])
  with tf.control_dependencies([step_m]):
    keeps.append(got_m.assign(read_m * 1.0))
  outs["momentum_w"] = wm
  outs["momentum_got"] = got_m

  # assign_add / scatter / assign: a read before the update, used after.
  va = ref_var("assign_add/v", [1.0, 2.0, 3.0])
  read_a = va.value()
  add = tf1.assign_add(va, p["u"])
  got_a = kept("assign_add/got", [3])
  with tf.control_dependencies([add]):
    keeps.append(got_a.assign(read_a * 2.0))
  outs["assign_add_v"] = va
  outs["assign_add_got"] = got_a

  vs = ref_var("scatter/v", np.arange(6).reshape(3, 2))
  read_s = vs.value()
  scat = tf1.scatter_add(vs, [2, 0], tf.reshape(p["u"][:2], [2, 1]) *
                         tf.ones([2, 2]))
  got_s = kept("scatter/got", [3, 2])
  with tf.control_dependencies([scat]):
    keeps.append(got_s.assign(read_s + 0.5))
  outs["scatter_v"] = vs
  outs["scatter_got"] = got_s

  vn = ref_var("assign/v", [0.0, 0.0, 0.0])
  read_n = vn.value()
  asg = tf1.assign(vn, p["u"] * 3.0 + read_n)
  got_n = kept("assign/got", [3])
  with tf.control_dependencies([asg]):
    keeps.append(got_n.assign(read_n - 1.0))
  outs["assign_v"] = vn
  outs["assign_got"] = got_n

  # copy: another ref variable takes a value, then the source changes.
  src = ref_var("copy/src", [5.0, 6.0, 7.0])
  dst = ref_var("copy/dst", [0.0, 0.0, 0.0])
  take = tf1.assign(dst, src.value())
  with tf.control_dependencies([take]):
    keeps.append(tf1.assign_sub(src, p["u"]))
  outs["copy_src"] = src
  outs["copy_dst"] = dst

  # resource: copy on write keeps the value read before the update.
  res = tf1.get_variable("resource/v", initializer=tf.constant([1.0, 1.0,
                                                                 1.0]),
                         use_resource=True)
  read_r = res.read_value()
  with tf.control_dependencies([read_r]):
    upd = res.assign_add(p["u"], read_value=False)
  got_r = kept("resource/got", [3])
  with tf.control_dependencies([upd]):
    keeps.append(got_r.assign(read_r * 1.0))
  outs["resource_v"] = res
  outs["resource_got"] = got_r

  train = tf.group(*keeps, name="train")
  # The moving averages start from the initialized weights: their
  # initializers run after the others' (as a program's second init).
  shadows = set(ema.variables_to_restore().keys())
  first = [v for v in tf1.global_variables() if v.op.name not in shadows or
           v.op.name in (w1.op.name, b1.op.name, w2.op.name)]
  init_first = tf1.variables_initializer(first, name="init_first")
  with tf.control_dependencies([init_first]):
    init_rest = tf1.variables_initializer(
        [v for v in tf1.global_variables() if v not in first],
        name="init_rest")
  init = tf.group(init_first, init_rest, name="init")
  reads = {k: tf.identity(v, name="out_" + k) for k, v in outs.items()}
  return reads, train


def main():
  os.makedirs(OUT, exist_ok=True)
  g = tf.Graph()
  with g.as_default():
    reads, train = build()
  # The moving averages' initializers read the weights through a cond
  # (initialized_value) that runs whenever its step schedules it: made to
  # wait for the weights' initializers, so `init` has one result in any
  # order (TensorFlow itself fails on the other order).
  graph_def = g.as_graph_def()
  waits = 0
  for node in graph_def.node:
    if ("ExponentialMovingAverage" in node.name and
        node.op in ("If", "StatelessIf", "IsVariableInitialized")):
      node.input.append("^init_first")
      waits += 1
  assert waits == 9, waits  # two Ifs and a check for each of 3 weights
  g = tf.Graph()
  with g.as_default():
    tf1.import_graph_def(graph_def, name="")
    feed = {g.get_tensor_by_name(k + ":0"): v for k, v in FEEDS.items()}
    fetches = {k: g.get_tensor_by_name(v.name) for k, v in reads.items()}
    with tf1.Session(config=tf1.ConfigProto(
        inter_op_parallelism_threads=1,
        intra_op_parallelism_threads=1)) as s:
      s.run("init")
      for _ in range(STEPS):
        s.run("train", feed)
      values = s.run(fetches, feed)
  ops = {n.op for n in graph_def.node}
  for want in ("VariableV2", "ApplyGradientDescent", "ApplyMomentum",
               "AssignAdd", "ScatterAdd", "Assign", "AssignSub",
               "VarHandleOp"):
    assert want in ops, want
  write_cases(OUT, graph_def,
              "Written by tools/tf_reference/make_ref_variable_reference.py "
              "with TensorFlow %s: the results after %d runs of `train`."
              % (tf.__version__, STEPS), FEEDS, values)
  print("wrote", OUT, len(values), "fetches")


if __name__ == "__main__":
  main()
