#!/usr/bin/env python3
"""Writes the TensorFlow V2 checkpoints that dflow's tests read.

Run from the repository root with TensorFlow installed:
    python3 tools/tf_reference/make_checkpoint_reference.py
It rewrites tests/testdata/tf_checkpoints/:
  basic-7.*     tf.compat.v1.train.Saver() of float32/float64/int32/int64/bool/
                string variables, scalars, a 0-element variable and a resource
                variable; basic_graph.pb is the graph (with its save/restore
                subgraph), `checkpoint` the index TF wrote.
  sharded-3.*   Saver(sharded=True) over two CPU devices: two data shards,
                written through ShardedFilename/StringJoin/MergeV2Checkpoints;
                sharded_graph.pb is its graph.
  partitioned.* a variable split in two slices (dflow refuses it clearly).
The values are fixed here and in tests/formats/tf_checkpoint_test.cc.
"""
import os
import shutil

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402

tf1 = tf.compat.v1
OUT = "tests/testdata/tf_checkpoints"


def basic():
    g = tf.Graph()
    with g.as_default():
        tf1.Variable(np.array([[1.5, -2.0, 3.25], [4.0, 5.0, 6.0]], np.float32),
                     name="v_f32", use_resource=False)
        with tf1.variable_scope("scope"):
            tf1.Variable(np.float64(2.718281828459045), name="v_f64",
                         use_resource=False)
        tf1.Variable(np.array([7, -8, 9, 2147483647], np.int32),
                     name="v_i32", use_resource=False)
        tf1.Variable(np.array([[1, -2], [3, 1 << 40]], np.int64),
                     name="v_i64", use_resource=False)
        tf1.Variable(np.array([True, False, True]), name="v_bool",
                     use_resource=False)
        tf1.Variable(np.array([b"hello", b"", b"checkpoint" * 20]),
                     name="v_str", use_resource=False)
        tf1.Variable(np.zeros([0, 3], np.float32), name="v_empty",
                     use_resource=False)
        tf1.Variable(np.array([0.5, 0.25], np.float32), name="r_f32",
                     use_resource=True)
        init = tf1.global_variables_initializer()
        saver = tf1.train.Saver()
        with tf1.Session(graph=g) as sess:
            sess.run(init)
            saver.save(sess, os.path.join(OUT, "basic"), global_step=7,
                       write_meta_graph=False)
    with open(os.path.join(OUT, "basic_graph.pb"), "wb") as f:
        f.write(g.as_graph_def().SerializeToString())


def sharded():
    g = tf.Graph()
    with g.as_default():
        with tf.device("/cpu:0"):
            tf1.Variable(np.arange(6, dtype=np.float32).reshape(2, 3),
                         name="a", use_resource=False)
        with tf.device("/cpu:1"):
            tf1.Variable(np.array([10, 20, 30], np.int64), name="b",
                         use_resource=False)
        init = tf1.global_variables_initializer()
        saver = tf1.train.Saver(sharded=True)
        config = tf1.ConfigProto(device_count={"CPU": 2})
        with tf1.Session(graph=g, config=config) as sess:
            sess.run(init)
            saver.save(sess, os.path.join(OUT, "sharded"), global_step=3, write_meta_graph=False,
                       write_state=False)
    with open(os.path.join(OUT, "sharded_graph.pb"), "wb") as f:
        f.write(g.as_graph_def().SerializeToString())


def partitioned():
    g = tf.Graph()
    with g.as_default():
        tf1.get_variable(
            "p", shape=[4, 2], dtype=tf.float32,
            initializer=tf1.ones_initializer(),
            partitioner=tf1.fixed_size_partitioner(2), use_resource=False)
        init = tf1.global_variables_initializer()
        saver = tf1.train.Saver()
        with tf1.Session(graph=g) as sess:
            sess.run(init)
            saver.save(sess, os.path.join(OUT, "partitioned"), write_meta_graph=False,
                       write_state=False)


def main():
    tf1.disable_eager_execution()
    shutil.rmtree(OUT, ignore_errors=True)
    os.makedirs(OUT)
    basic()
    sharded()
    partitioned()
    # The `checkpoint` index names absolute paths; keep names relative to
    # the directory so the files can move.
    state = tf1.train.get_checkpoint_state(OUT)
    with open(os.path.join(OUT, "checkpoint"), "w") as f:
        f.write('model_checkpoint_path: "%s"\n'
                % os.path.basename(state.model_checkpoint_path))
        for p in state.all_model_checkpoint_paths:
            f.write('all_model_checkpoint_paths: "%s"\n' % os.path.basename(p))
    for name in sorted(os.listdir(OUT)):
        print(name, os.path.getsize(os.path.join(OUT, name)))


if __name__ == "__main__":
    main()
