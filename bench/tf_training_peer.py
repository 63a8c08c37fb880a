#!/usr/bin/env python3
"""TensorFlow's side of bench/compare_tf.sh: the same corpus graph
(tools/tf_reference/make_corpus.py) run by TensorFlow 2.21's tf.compat.v1
Session, timed as bench/tf_training_bench.cc times dflow:

    load_first_step_ms  reading graph.pb, importing it, creating the
                        session, the initializer and the first step
    step_ms             the median of --steps warm steps (after --warmup)

Prints `load_first_step_ms=<v> step_ms=<v> loss=<v>`.

    python3 bench/tf_training_peer.py --dir DIR [--threads N] [--steps 20]
"""

import argparse
import os
import time

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

import numpy as np
import tensorflow as tf

v1 = tf.compat.v1


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--dir", required=True)
    parser.add_argument("--threads", type=int, default=0)
    parser.add_argument("--steps", type=int, default=20)
    parser.add_argument("--warmup", type=int, default=3)
    args = parser.parse_args()
    v1.disable_eager_execution()
    ref = {"feed": []}
    with open(os.path.join(args.dir, "reference.txt")) as f:
        for line in f:
            parts = line.split()
            if parts and parts[0] in ("init", "train", "loss"):
                ref[parts[0]] = parts[1]
            elif parts and parts[0] == "feed":
                ref["feed"].append((parts[1], os.path.join(args.dir,
                                                           parts[2])))
    feeds_np = [(name, np.load(path)) for name, path in ref["feed"]]

    start = time.perf_counter()
    graph_def = tf.compat.v1.GraphDef()
    with open(os.path.join(args.dir, "graph.pb"), "rb") as f:
        graph_def.ParseFromString(f.read())
    graph = tf.Graph()
    with graph.as_default():
        tf.import_graph_def(graph_def, name="")
    config = v1.ConfigProto(
        allow_soft_placement=True,  # the towers ask for GPUs
        intra_op_parallelism_threads=args.threads,
        inter_op_parallelism_threads=args.threads)
    sess = v1.Session(graph=graph, config=config)
    feeds = {graph.get_tensor_by_name(n): v for n, v in feeds_np}
    train = graph.get_operation_by_name(ref["train"])
    loss = graph.get_tensor_by_name(ref["loss"])
    sess.run(graph.get_operation_by_name(ref["init"]))
    sess.run([train, loss], feed_dict=feeds)
    load_first_step_ms = (time.perf_counter() - start) * 1e3
    for _ in range(args.warmup):
        sess.run([train, loss], feed_dict=feeds)
    times = []
    for _ in range(args.steps):
        t0 = time.perf_counter()
        _, value = sess.run([train, loss], feed_dict=feeds)
        times.append((time.perf_counter() - t0) * 1e3)
    times.sort()
    print("load_first_step_ms=%.3f step_ms=%.4f loss=%.6g" % (
        load_first_step_ms, times[len(times) // 2], value))


if __name__ == "__main__":
    main()
