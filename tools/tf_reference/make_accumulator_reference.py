#!/usr/bin/env python3
"""TensorFlow 2.21's values for its conditional accumulators
(ResourceConditionalAccumulator, ResourceAccumulatorApplyGradient,
ResourceAccumulatorTakeGradient, ResourceAccumulatorNumAccumulated,
ResourceAccumulatorSetGlobalStep), through the program that writes them:
tf.compat.v1.train.SyncReplicasOptimizer, two replicas aggregated per step,
run in one session as its workers and chief would run it:

  init, init_tokens
  ROUNDS times: local_step_init, worker, local_step_init, worker, sync

`worker` is one replica's step (its gradients applied to the accumulators
at its local step, then a token dequeued; a counter makes each worker
step's data differ), started at the current global step as a worker's
first step is (local_step_init; so no gradient of the rounds is stale and
a single thread can drive them), `sync` the chief's (takes the mean of the two
gradients, applies it, advances the global step, sets the accumulators'
global step, hands out new tokens). Plus one accumulator of its own
(`extra`, reduction SUM) fed gradients at chosen local steps around a
global step set by hand: stale ones are dropped.

Writes tests/testdata/tf_accumulators/:
  graph.pb   the TF-written GraphDef
  cases.txt  the feeds and each out_<case> after the rounds
             (tests/kernels/tf_value_cases.h's format)
Read by tests/kernels/accumulator_ops_test.cc.

Run: python3 tools/tf_reference/make_accumulator_reference.py
"""
import os

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
os.environ.setdefault("CUDA_VISIBLE_DEVICES", "")

import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402

from value_cases import write_cases  # noqa: E402

tf1 = tf.compat.v1
OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                   "tests", "testdata", "tf_accumulators")
ROUNDS = 3

rng = np.random.RandomState(11)
FEEDS = {
    "x": np.round(rng.uniform(-1, 1, (4, 3)), 3).astype(np.float32),
    "y": np.round(rng.uniform(-1, 1, (4, 1)), 3).astype(np.float32),
}
# The extra accumulator's sequence: (local_step, gradient) applied in
# order after the global step is set to 3; then one take of 2.
EXTRA = [(2, [100.0, 100.0]), (3, [1.5, -2.0]), (5, [0.25, 4.0]),
         (1, [7.0, 7.0])]


def build():
  p = {k: tf1.placeholder(tf.as_dtype(v.dtype), v.shape, name=k)
       for k, v in FEEDS.items()}
  count = tf1.get_variable("worker_count", initializer=0.0, trainable=False,
                           use_resource=True)
  w = tf1.get_variable("w", initializer=np.full((3, 1), 0.5, np.float32),
                       use_resource=True)
  b = tf1.get_variable("b", initializer=np.zeros((1,), np.float32),
                       use_resource=True)
  scale = 1.0 + count.read_value()
  pred = tf.matmul(p["x"] * scale, w) + b
  loss = tf.reduce_mean(tf.square(pred - p["y"]))
  global_step = tf1.train.get_or_create_global_step()
  opt = tf1.train.SyncReplicasOptimizer(
      tf1.train.GradientDescentOptimizer(0.1), replicas_to_aggregate=2,
      total_num_replicas=2)
  train = opt.minimize(loss, global_step=global_step)
  with tf.control_dependencies([train]):
    tf.group(count.assign_add(1.0), name="worker")
  tf.group(opt._chief_queue_runner.enqueue_ops[0], name="sync")
  tf.group(opt.local_step_init_op, name="local_step_init")
  # Tokens for the first round (the chief hands out the later ones).
  tf.group(opt.get_init_tokens_op(num_tokens=2), name="init_tokens")

  extra = tf1.ConditionalAccumulator(tf.float32, shape=[2],
                                     shared_name="extra",
                                     reduction_type="SUM")
  step_in = tf1.placeholder_with_default(tf.constant(0, tf.int64), [],
                                         name="extra_local_step")
  grad_in = tf1.placeholder_with_default(tf.zeros([2]), [2],
                                         name="extra_gradient")
  extra.apply_grad(grad_in, local_step=step_in, name="extra_apply")
  extra.set_global_step(tf.constant(3, tf.int64), name="extra_set_step")
  extra_num = tf.identity(extra.num_accumulated(), name="extra_num")
  tf.identity(extra.take_grad(2), name="extra_take")

  init = tf1.global_variables_initializer()
  assert init.name == "init", init.name
  return {"w": w.read_value(), "b": b.read_value(),
          "global_step": global_step.read_value(),
          "worker_count": count.read_value(), "extra_num": extra_num}


def main():
  os.makedirs(OUT, exist_ok=True)
  g = tf.Graph()
  with g.as_default():
    outs = build()
    reads = {k: tf.identity(v, name="out_" + k) for k, v in outs.items()}
    feed = {g.get_tensor_by_name(k + ":0"): v for k, v in FEEDS.items()}
    with tf1.Session() as s:
      for op in ("init", "init_tokens"):
        s.run(op)
      for _ in range(ROUNDS):
        for _ in range(2):
          s.run("local_step_init")
          s.run("worker", feed)
        s.run("sync", feed)
      s.run("extra_set_step")
      for step, grad in EXTRA:
        s.run("extra_apply", {"extra_local_step:0": step,
                              "extra_gradient:0": grad})
      values = s.run(reads, feed)
      values["extra_take"] = s.run("extra_take:0")
      values["extra_num_after_take"] = s.run("extra_num:0")
  ops = sorted({n.op for n in g.as_graph_def().node})
  for want in ("ResourceConditionalAccumulator",
               "ResourceAccumulatorApplyGradient",
               "ResourceAccumulatorTakeGradient",
               "ResourceAccumulatorNumAccumulated",
               "ResourceAccumulatorSetGlobalStep"):
    assert want in ops, (want, ops)
  # extra_take and extra_num (after the take) are fetched after the others,
  # in that order; the out_ values in one run before them.
  write_cases(OUT, g.as_graph_def(),
              "Written by tools/tf_reference/make_accumulator_reference.py "
              "with TensorFlow %s: the values after %d rounds of two workers' "
              "steps and the chief's sync, then the extra accumulator's "
              "sequence %s (global step 3) and one take of 2."
              % (tf.__version__, ROUNDS, EXTRA), FEEDS, values,
              names={"extra_take": "extra_take",
                     "extra_num_after_take": "extra_num"})
  print("wrote", OUT, len(values), "fetches; ops:", ops)


if __name__ == "__main__":
  main()
