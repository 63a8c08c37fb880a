"""Writes tiny while-loop graphs with TensorFlow 2.21, in both control-flow
styles, and TensorFlow's values for them: tests/testdata/tf_loops/.

  <name>_v1.pb       disable_control_flow_v2(): Enter/Exit/NextIteration/
                     LoopCond/Switch/Merge in the graph (gradients: StackV2/
                     StackPushV2/StackPopV2)
  <name>_v2.pb       enable_control_flow_v2(): a functional While/StatelessWhile
                     with its cond and body in the GraphDef's library
                     (gradients: TensorList accumulators)
  <name>_<style>.ops.txt
                     the sorted set of op types in that graph, functions of its
                     library included, one per line
  <name>.cases       TensorFlow's values, one line per run (format below)
  ops_union.txt      the union of all the .ops.txt files, as "<op> <styles>"
                     where <styles> is v1, v2 or v1,v2

Every .pb is a binary GraphDef (SerializeToString(deterministic=True)) with
two placeholders, x (float [3]) and n (int32 []), and fetches "out:0" (a
float32 tensor). Every graph has n, even where the model does not use it:
feed both. No graph has variables (rnn and rnn_grad are frozen: their LSTM
weights are Const nodes) and none needs an initializer. device_loop puts its
loop body on /device:CPU:1: run it with two CPU devices (ConfigProto
device_count {'CPU': 2}); the values do not depend on it.

.cases format (text; lines starting with '#' are comments):

  # model: <name>
  # out dtype: float32
  # out shape: [d0, d1, ...]      ([-1]: 1-D, as long as the line's values)
  # v2 max abs diff: <float>      (v2 graph's values against these, v1's)
  n | x0 x1 x2 | out0 out1 ...

n is an int, x0..x2 and the outputs are floats printed with "%.9g" (exact
for float32); out is flattened row-major. The values are those of the v1
graph; the v2 graph's agree to the "v2 max abs diff" of the header (0 where
bit-identical). The script checks each saved .pb by importing its bytes into
a fresh graph (tf.compat.v1.import_graph_def) and running every case.

Run: python3 tools/tf_reference/make_loop_reference.py
"""
import os

import numpy as np
import tensorflow as tf

tf1 = tf.compat.v1
OUT = os.path.join(os.path.dirname(__file__), "..", "..", "tests", "testdata",
                   "tf_loops")
F32 = tf.float32

XS = [np.array(v, np.float32) for v in
      ([1.5, -2.0, 3.0], [0.25, 0.5, -0.75], [-1.0, 2.0, 0.125],
       [0.3, -0.6, 0.9])]
NS = [0, 1, 3, 5]
CASES = list(zip(NS, XS))


def counter(x, n):
  i = tf1.while_loop(lambda i: i < 10, lambda i: i + 1, [tf.constant(0)])
  return tf.cast(i, F32) * x


def sum_to_n(x, n):
  # acc = sum over i < n of x * i
  _, acc = tf1.while_loop(
      lambda i, acc: i < n,
      lambda i, acc: (i + 1, acc + x * tf.cast(i, F32)),
      [tf.constant(0), tf.zeros([3])])
  return acc


def nested(x, n):
  # for i < n: for j < 3: acc += x * (i * j + 1)   (the inner loop reads the
  # outer loop's i and x from two frames out)
  def outer_body(i, acc):
    def inner_body(j, a):
      return j + 1, a + x * tf.cast(i * j + 1, F32)
    _, acc = tf1.while_loop(lambda j, a: j < 3, inner_body,
                            [tf.constant(0), acc])
    return i + 1, acc
  _, acc = tf1.while_loop(lambda i, acc: i < n, outer_body,
                          [tf.constant(0), tf.zeros([3])])
  return acc


def cond_in_loop(x, n):
  # for i < n: v = v + x if i is even else v - 1
  def body(i, v):
    v = tf1.cond(tf.equal(i % 2, 0), lambda: v + x, lambda: v - 1.0)
    return i + 1, v
  _, v = tf1.while_loop(lambda i, v: i < n, body, [tf.constant(0), x * 0.5])
  return v


def const_capture(x, n):
  # The body reads x and s, tensors from outside the loop (v1: Enter with
  # is_constant=true), and a constant of its own.
  s = tf.reduce_sum(x)
  def body(i, v):
    return i + 1, v * tf.constant(0.5) + x - s
  _, v = tf1.while_loop(lambda i, v: i < n, body, [tf.constant(0), x])
  return v


def shape_grows(x, n):
  # v starts as x ([3]) and grows by 3 each iteration: out has 3 * (n + 1)
  def body(i, v):
    return i + 1, tf.concat([v, v[-3:] * 0.5 + tf.cast(i, F32)], 0)
  _, v = tf1.while_loop(
      lambda i, v: i < n, body, [tf.constant(0), x],
      shape_invariants=[tf.TensorShape([]), tf.TensorShape([None])])
  return v


def loop_grad(x, n):
  # v = x; for i < n: v = tanh(v * x) + 0.5 * v;  out = d sum(v) / dx
  def body(i, v):
    return i + 1, tf.tanh(v * x) + 0.5 * v
  _, v = tf1.while_loop(lambda i, v: i < n, body, [tf.constant(0), x])
  return tf.gradients(tf.reduce_sum(v), x)[0]


def _rnn(x):
  # tf.compat.v1.nn.rnn_cell.LSTMCell is gone with Keras 3; the legacy cell
  # TensorFlow keeps internally is the same class.
  from tensorflow.python.keras.layers.legacy_rnn import rnn_cell_impl
  scale = tf.constant(np.linspace(0.2, 1.0, 18, dtype=np.float32))
  seq = tf.reshape(tf.tile(x, [6]) * scale, [2, 3, 3], name="seq")
  cell = rnn_cell_impl.LSTMCell(
      4, initializer=tf1.glorot_uniform_initializer(seed=7))
  outputs, _ = tf1.nn.dynamic_rnn(cell, seq, dtype=F32)
  return seq, outputs


def rnn(x, n):
  # batch 2, time 3, depth 3 (seq: x tiled, times constants), LSTM with 4
  # units; out = the outputs, [2, 3, 4]
  _, outputs = _rnn(x)
  return outputs


def rnn_grad(x, n):
  # out = d sum(outputs) / d seq, [2, 3, 3]
  seq, outputs = _rnn(x)
  return tf.gradients(tf.reduce_sum(outputs), seq)[0]


def cond_grad_in_loop(x, n):
  # out = d sum(v) / dx with v = v * x on even i, v + x^2 on odd i: the v1
  # gradient's stack pushes and pops run in one branch only, and its
  # ControlTrigger syncs wait on them (never dead, TensorFlow's rule)
  def body(i, v):
    v = tf1.cond(tf.equal(i % 2, 0), lambda: v * x, lambda: v + tf.square(x))
    return i + 1, v
  _, v = tf1.while_loop(lambda i, v: i < n, body, [tf.constant(0), x])
  return tf.gradients(tf.reduce_sum(v), x)[0]


def partial_array(x, n):
  # A TensorArray of 5 elements of shape [3] written at i < min(n, 5) only:
  # the unwritten elements stack as zeros (the element shape is known), as
  # dynamic_rnn's outputs past every sequence_length do; out is [15]
  ta = tf1.TensorArray(F32, size=5, element_shape=[3])
  def body(i, ta):
    return i + 1, ta.write(i, x * tf.cast(i + 1, F32))
  _, ta = tf1.while_loop(lambda i, ta: i < tf.minimum(n, 5), body,
                         [tf.constant(0), ta])
  return tf.reshape(ta.stack(), [-1])


def array_split_concat(x, n):
  # A TensorArray split into pieces of 2 and 4 elements (TensorArraySplitV3
  # / TensorListSplit), each piece scaled by (i + 1 + n) in a loop, then
  # concatenated (TensorArrayConcatV3 / TensorListConcatV2); out = the
  # concatenation [6] and its gradient with respect to x [3] (the split's
  # gradient is a concat and the concat's a split)
  data = tf.concat([x, x * x], 0)
  pieces = tf1.TensorArray(F32, size=2, infer_shape=False).split(
      data, tf.constant([2, 4], tf.int64))
  def body(i, ta):
    scale = tf.cast(i + 1 + n, F32)
    return i + 1, ta.write(i, pieces.read(i) * scale)
  _, ta = tf1.while_loop(
      lambda i, ta: i < 2, body,
      [tf.constant(0), tf1.TensorArray(F32, size=2, infer_shape=False)])
  joined = ta.concat()
  grad = tf.gradients(tf.reduce_sum(joined * joined), x)[0]
  return tf.concat([joined, grad], 0)


def array_scatter_gather(x, n):
  # Rows of a [3, 3] tensor scattered to a TensorArray in the order 2, 0, 1
  # (TensorArrayScatterV3 / TensorListScatterIntoExistingList), each element
  # i multiplied by x + i in a loop, two of them gathered back
  # (TensorArrayGatherV3 / TensorListGather); out = the gathered [2, 3] and
  # the gradient with respect to x [3], flattened to [9]
  rows = tf.reshape(tf.tile(x, [3]), [3, 3]) + tf.constant(
      [[0.0], [1.0], [2.0]])
  source = tf1.TensorArray(F32, size=3).scatter([2, 0, 1], rows)
  def body(i, ta):
    return i + 1, ta.write(i, source.read(i) * (x + tf.cast(i, F32)))
  _, ta = tf1.while_loop(lambda i, ta: i < 3, body,
                         [tf.constant(0), tf1.TensorArray(F32, size=3)])
  gathered = ta.gather([2, 0])
  grad = tf.gradients(tf.reduce_sum(gathered * gathered), x)[0]
  return tf.concat([tf.reshape(gathered, [-1]), grad], 0)


def bidirectional_rnn(x, n):
  # bidirectional_dynamic_rnn (frozen LSTM cells of 2 units each way) over
  # batch 2, time 3, depth 3 with sequence lengths [min(n, 3), 3]: the
  # backward pass reverses each sequence (ReverseSequence); out = both
  # directions' outputs [2, 2, 3, 2] and d sum / d seq [2, 3, 3], flattened
  from tensorflow.python.keras.layers.legacy_rnn import rnn_cell_impl
  scale = tf.constant(np.linspace(0.2, 1.0, 18, dtype=np.float32))
  seq = tf.reshape(tf.tile(x, [6]) * scale, [2, 3, 3], name="seq")
  cells = [rnn_cell_impl.LSTMCell(
      2, initializer=tf1.glorot_uniform_initializer(seed=s)) for s in (3, 5)]
  lengths = tf.stack([tf.minimum(n, 3), 3])
  (fw, bw), _ = tf1.nn.bidirectional_dynamic_rnn(
      cells[0], cells[1], seq, sequence_length=lengths, dtype=F32)
  outputs = tf.stack([fw, bw])
  grad = tf.gradients(tf.reduce_sum(outputs * outputs), seq)[0]
  return tf.concat([tf.reshape(outputs, [-1]), tf.reshape(grad, [-1])], 0)


def print_in_loop(x, n):
  # for i < n: tf.print the step and v (StringFormat, PrintV2 to stderr),
  # then v = v * x + i; out = v [3]
  def body(i, v):
    printed = tf.print("step", i, "v =", v)
    with tf.control_dependencies([printed]):
      return i + 1, v * x + tf.cast(i, F32)
  _, v = tf1.while_loop(lambda i, v: i < n, body, [tf.constant(0), x])
  return v


def string_loop(x, n):
  # a string loop variable that grows by "ab" (StringJoin) n times; out =
  # its length in bytes (StringLength), as float, times x
  def body(i, s):
    return i + 1, tf.strings.join([s, "ab"])
  _, s = tf1.while_loop(lambda i, s: i < n, body,
                        [tf.constant(0), tf.constant("x")])
  return tf.cast(tf.strings.length(s), F32) * x


def device_loop(x, n):
  # for i < n: v = v * x + 1 with the body's arithmetic on /cpu:1
  def body(i, v):
    with tf.device("/cpu:1"):
      v = v * x + 1.0
    return i + 1, v
  _, v = tf1.while_loop(lambda i, v: i < n, body, [tf.constant(0), x])
  return v


MODELS = {"counter": counter, "sum_to_n": sum_to_n, "nested": nested,
          "cond_in_loop": cond_in_loop, "const_capture": const_capture,
          "shape_grows": shape_grows, "loop_grad": loop_grad, "rnn": rnn,
          "rnn_grad": rnn_grad, "cond_grad_in_loop": cond_grad_in_loop,
          "partial_array": partial_array, "device_loop": device_loop,
          "array_split_concat": array_split_concat,
          "array_scatter_gather": array_scatter_gather,
          "bidirectional_rnn": bidirectional_rnn,
          "print_in_loop": print_in_loop, "string_loop": string_loop}


def config():
  return tf1.ConfigProto(device_count={"CPU": 2})


def run_cases(sess):
  return [sess.run("out:0", {"x:0": xv, "n:0": nv}) for nv, xv in CASES]


def build(fn, v2):
  """The model's GraphDef (variables frozen) and its values for CASES."""
  if v2:
    tf1.enable_control_flow_v2()
  else:
    tf1.disable_control_flow_v2()
  g = tf.Graph()
  with g.as_default():
    x = tf1.placeholder(F32, [3], name="x")
    n = tf1.placeholder(tf.int32, [], name="n")
    out = tf.identity(fn(x, n), name="out")
    assert out.dtype == F32
    variables = tf1.global_variables()
    init = tf1.global_variables_initializer() if variables else None
  with tf1.Session(graph=g, config=config()) as sess:
    if init is not None:
      sess.run(init)
    values = run_cases(sess)
    if variables:
      gd = tf1.graph_util.convert_variables_to_constants(
          sess, g.as_graph_def(), ["out", "n"])  # keeps n, unused or not
    else:
      gd = g.as_graph_def()
  return gd, values


def op_types(gd):
  ops = {node.op for node in gd.node}
  for f in gd.library.function:
    ops |= {node.op for node in f.node_def}
  return ops


def check_loads(data, values):
  g = tf.Graph()
  with g.as_default():
    gd = tf1.GraphDef()
    gd.ParseFromString(data)
    tf1.import_graph_def(gd, name="")
  with tf1.Session(graph=g, config=config()) as sess:
    for got, want in zip(run_cases(sess), values):
      assert got.shape == want.shape and np.array_equal(got, want), (got, want)


def fmt(a):
  return " ".join("%.9g" % v for v in np.asarray(a).reshape(-1))


def main():
  tf1.disable_eager_execution()
  os.makedirs(OUT, exist_ok=True)
  union = {}
  for name, fn in MODELS.items():
    values = {}
    for style in ("v1", "v2"):
      gd, values[style] = build(fn, style == "v2")
      top = {node.op for node in gd.node}
      assert not any(op.startswith("Variable") or op in (
          "VarHandleOp", "ReadVariableOp") for op in op_types(gd)), name
      if style == "v1":
        assert "Enter" in top and not top & {"While", "StatelessWhile"}, top
      else:
        assert top & {"While", "StatelessWhile"} and "Enter" not in top, top
      data = gd.SerializeToString(deterministic=True)  # sorted attr maps
      check_loads(data, values[style])
      with open(os.path.join(OUT, f"{name}_{style}.pb"), "wb") as f:
        f.write(data)
      ops = sorted(op_types(gd))
      with open(os.path.join(OUT, f"{name}_{style}.ops.txt"), "w") as f:
        f.write("\n".join(ops) + "\n")
      for op in ops:
        union.setdefault(op, set()).add(style)
      print(f"{name}_{style}: {len(data)} bytes, ops: {' '.join(ops)}")
    diff = 0.0
    for a, b in zip(values["v1"], values["v2"]):
      assert a.shape == b.shape, (name, a.shape, b.shape)
      np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)
      if a.size:
        diff = max(diff, float(np.max(np.abs(a - b))))
    shapes = {v.shape for v in values["v1"]}
    shape = list(shapes.pop()) if len(shapes) == 1 else [-1]
    lines = [f"# model: {name}", "# out dtype: float32",
             f"# out shape: {shape}", "# v2 max abs diff: %.9g" % diff]
    for (nv, xv), out in zip(CASES, values["v1"]):
      lines.append("%d | %s | %s" % (nv, fmt(xv), fmt(out)))
    with open(os.path.join(OUT, f"{name}.cases"), "w") as f:
      f.write("\n".join(lines) + "\n")
  with open(os.path.join(OUT, "ops_union.txt"), "w") as f:
    for op in sorted(union):
      f.write(f"{op} {','.join(sorted(union[op]))}\n")
  for style in ("v1", "v2"):
    print(f"union of op types, {style} graphs:",
          " ".join(sorted(op for op in union if style in union[op])))
  print("wrote", os.path.normpath(OUT))


if __name__ == "__main__":
  main()
