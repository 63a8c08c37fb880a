"""Writes tiny graphs with function calls and TensorFlow 2's Case, made by
TensorFlow 2.21, and TensorFlow's values for them: tests/testdata/tf_calls/.

  <name>.pb        a GraphDef whose top level calls a tf.function
                   (PartitionedCall, StatefulPartitionedCall) or switches on
                   n (StatelessCase, Case), with the bodies in its library
  <name>.ops.txt   the sorted op types, the library's included
  <name>.cases     TensorFlow's values for n in 0, 1, 3, 5 (and an n past
                   the last branch for the Case models), in
                   make_loop_reference.py's .cases format

Models:
  call       out = f(x), f a tf.function (x * 2 + 1)
  nested     a function calling another twice
  loop       a function holding a functional while loop over n
  stateful   a function with an Assert (StatefulPartitionedCall)
  call_in_cond
             a call inside a branch of a functional If
  case       tf.switch_case(n, 3 branches); n past the end takes the last
  stateful_case
             the same with an Assert in a branch (Case, not StatelessCase)

Run: python3 tools/tf_reference/make_call_reference.py
"""
import os

import numpy as np
import tensorflow as tf

from make_loop_reference import CASES, F32, XS, check_loads, fmt, op_types

tf1 = tf.compat.v1
OUT = os.path.join(os.path.dirname(__file__), "..", "..", "tests", "testdata",
                   "tf_calls")


@tf.function
def affine(x):
  return x * 2.0 + 1.0


@tf.function
def twice(x):
  return affine(x) + affine(x * 3.0)


@tf.function
def grow(x, n):
  _, a = tf.while_loop(lambda i, a: i < n, lambda i, a: (i + 1, a * 1.5),
                       [tf.constant(0), x])
  return a


@tf.function
def checked(x, n):
  with tf.control_dependencies([tf.debugging.assert_non_negative(n)]):
    return x - tf.cast(n, F32)


def branches(x, n, stateful):
  def last():
    if not stateful:
      return x * x
    with tf.control_dependencies([tf.debugging.assert_non_negative(n)]):
      return x * x
  return tf.switch_case(n, [lambda: x, lambda: 2.0 * x, last])


MODELS = {
    "call": lambda x, n: affine(x),
    "nested": lambda x, n: twice(x),
    "loop": grow,
    "stateful": checked,
    "call_in_cond": lambda x, n: tf.cond(n > 2, lambda: affine(x),
                                         lambda: x),
    "case": lambda x, n: branches(x, n, False),
    "stateful_case": lambda x, n: branches(x, n, True),
}
# The Case models also take an n past their last branch.
EXTRA_CASES = {"case": [(7, XS[1])], "stateful_case": [(7, XS[2])]}


def main():
  tf1.disable_eager_execution()
  tf1.enable_control_flow_v2()
  os.makedirs(OUT, exist_ok=True)
  for name, fn in MODELS.items():
    cases = CASES + EXTRA_CASES.get(name, [])
    g = tf.Graph()
    with g.as_default():
      x = tf1.placeholder(F32, [3], name="x")
      n = tf1.placeholder(tf.int32, [], name="n")
      tf.identity(fn(x, n), name="out")
    with tf1.Session(graph=g) as sess:
      values = [sess.run("out:0", {"x:0": xv, "n:0": nv}) for nv, xv in cases]
    gd = g.as_graph_def()
    data = gd.SerializeToString(deterministic=True)
    check_loads(data, values[:len(CASES)])
    with open(os.path.join(OUT, f"{name}.pb"), "wb") as f:
      f.write(data)
    ops = sorted(op_types(gd))
    with open(os.path.join(OUT, f"{name}.ops.txt"), "w") as f:
      f.write("\n".join(ops) + "\n")
    shapes = {v.shape for v in values}
    shape = list(shapes.pop()) if len(shapes) == 1 else [-1]
    lines = [f"# model: {name}", "# out dtype: float32",
             f"# out shape: {shape}", "# v2 max abs diff: 0"]
    for (nv, xv), out in zip(cases, values):
      lines.append("%d | %s | %s" % (nv, fmt(xv), fmt(out)))
    with open(os.path.join(OUT, f"{name}.cases"), "w") as f:
      f.write("\n".join(lines) + "\n")
    print(f"{name}: {len(data)} bytes, ops: {' '.join(ops)}")
  print("wrote", os.path.normpath(OUT))


if __name__ == "__main__":
  main()
