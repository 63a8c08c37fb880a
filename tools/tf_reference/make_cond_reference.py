"""Writes tiny tf.cond graphs with TensorFlow 2.21, in both control-flow
styles, and TensorFlow's values for them: tests/testdata/tf_cond/.

  <name>_v1.pb   disable_control_flow_v2(): Switch/Merge in the graph
  <name>_v2.pb   enable_control_flow_v2(): a functional If/StatelessIf with
                 its branches in the GraphDef's library
  <name>.cases   one line per run: "p q | x0 x1 x2 | out0 out1 out2"

Every graph feeds x (float [3]) and the bools p and q, and fetches "out".
Run: python3 tools/tf_reference/make_cond_reference.py
"""
import os

import numpy as np
import tensorflow as tf
from tensorflow.python.ops import control_flow_util as cfu

tf1 = tf.compat.v1
OUT = os.path.join(os.path.dirname(__file__), "..", "..", "tests", "testdata",
                   "tf_cond")


def simple(x, p, q):
  return tf1.cond(p, lambda: x * x, lambda: -x)


def consts(x, p, q):
  # Branches with constants of their own (no inputs inside the branch).
  return tf1.cond(p, lambda: tf.constant(2.0) * x + tf.constant(1.0),
                  lambda: tf.constant([5.0, 6.0, 7.0]))


def nested(x, p, q):
  return tf1.cond(p, lambda: tf1.cond(q, lambda: x * x, lambda: -x),
                  lambda: x + 1.0)


def two_outputs(x, p, q):
  a, b = tf1.cond(p, lambda: (x + 1.0, x * 3.0), lambda: (x - 1.0, x))
  return a * b


def grad(x, p, q):
  # out = d sum(cond) / dx: TensorFlow 2's gradient If reads the forward
  # branch's intermediates (tanh(x) here) through Optional values
  # (OptionalFromValue in one branch, OptionalNone in the other).
  y = tf1.cond(p, lambda: tf.tanh(x) * x, lambda: tf.exp(x) * 3.0)
  return tf.gradients(tf.reduce_sum(y), x)[0]


def grad2(x, p, q):
  # out = the second derivative of sum(cond): the gradient of the gradient
  # If takes ZerosLike of its Optional intermediates.
  y = tf1.cond(p, lambda: tf.tanh(x) * x, lambda: tf.exp(x) * x)
  g = tf.gradients(tf.reduce_sum(y), x)[0]
  return tf.gradients(tf.reduce_sum(g), x)[0]


MODELS = {"simple": simple, "consts": consts, "nested": nested,
          "two_outputs": two_outputs, "grad": grad, "grad2": grad2}


def build(fn, v2):
  if v2:
    tf1.enable_control_flow_v2()
  else:
    tf1.disable_control_flow_v2()
  g = tf.Graph()
  with g.as_default():
    x = tf1.placeholder(tf.float32, [3], name="x")
    p = tf1.placeholder(tf.bool, [], name="p")
    q = tf1.placeholder(tf.bool, [], name="q")
    tf.identity(fn(x, p, q), name="out")
  return g


def main():
  tf1.disable_eager_execution()
  os.makedirs(OUT, exist_ok=True)
  xs = np.array([1.5, -2.0, 3.0], np.float32)
  for name, fn in MODELS.items():
    lines = []
    for v2 in (False, True):
      g = build(fn, v2)
      ops = {n.op for n in g.as_graph_def().node}
      assert ("If" in ops or "StatelessIf" in ops) == v2, (name, ops)
      with open(os.path.join(OUT, f"{name}_{'v2' if v2 else 'v1'}.pb"),
                "wb") as f:
        f.write(g.as_graph_def().SerializeToString())
      with tf1.Session(graph=g) as sess:
        for pv in (False, True):
          for qv in (False, True):
            out = sess.run("out:0", {"x:0": xs, "p:0": pv, "q:0": qv})
            if not v2:
              lines.append("%d %d | %s | %s" % (
                  pv, qv, " ".join("%.9g" % v for v in xs),
                  " ".join("%.9g" % v for v in out)))
    with open(os.path.join(OUT, f"{name}.cases"), "w") as f:
      f.write("\n".join(lines) + "\n")
  print("wrote", OUT)


if __name__ == "__main__":
  main()
