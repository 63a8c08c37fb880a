#!/usr/bin/env python3
"""TensorFlow-written MetaGraph and SavedModel files for dflow's formats tests.

Rerun from the repository root (needs `pip install tensorflow-cpu`; written
with TensorFlow 2.21, graph mode through tf.compat.v1):

    python3 tools/tf_reference/make_saved_model_reference.py

Writes into tests/testdata/tf_saved_model/ (deterministic for a given TF
version: fixed graph seed, fixed NumPy seed):

mlp/saved_model.pb, mlp/variables/variables.{index,data-00000-of-00001}
    A TF1-style SavedModel of a 784->32->10 MLP with resource variables
    (`layer1/w`, `layer1/b`, `layer2/w`, `layer2/b`), built with
    tf.compat.v1.saved_model.Builder under the tag set {"serve"}, with the
    signature `serving_default` (method tensorflow/serving/predict):
    inputs {x: float32 [?,784]}, outputs {probs: float32 [?,10] (softmax),
    classes: int64 [?] (argmax)}. Its main op is `init_all_tables` (a NoOp:
    there are no tables), so a loader that runs the main op can be checked.
mlp_x.npy, mlp_probs.npy, mlp_classes.npy
    A float32 [4,784] input and TensorFlow's outputs for it.
train.meta
    A binary MetaGraphDef of a small training graph (linear regression with
    GradientDescent, a global step, scalar summaries merged into
    `Merge/MergeSummary`, a loss in `losses`), exported with
    saver.export_meta_graph: it holds a SaverDef and the collections
    variables, trainable_variables, train_op, global_step, summaries, losses.
train_ckpt/model.ckpt-7.{index,data-00000-of-00001}, train_ckpt/checkpoint
    A TensorFlow V2 checkpoint of train.meta's variables with w = [1,2,3]^T,
    b = [0.5], global_step = 7 (saver.save).
train_x.npy, train_pred.npy
    A float32 [2,3] input and the prediction `add` (x·w + b) TF computes for
    it from those values.
unknown_collection.meta.pbtxt
    A text MetaGraphDef of a tiny graph whose collections include a key TF
    does not define (`my_custom_thing`, a bytes_list) next to `variables`.
"""

import os
import shutil

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

import numpy as np
import tensorflow as tf

v1 = tf.compat.v1
OUT = "tests/testdata/tf_saved_model"


def make_mlp():
    export_dir = os.path.join(OUT, "mlp")
    if os.path.exists(export_dir):
        shutil.rmtree(export_dir)
    graph = tf.Graph()
    with graph.as_default():
        v1.set_random_seed(1234)
        x = v1.placeholder(tf.float32, [None, 784], name="x")
        with v1.variable_scope("layer1"):
            w1 = v1.get_variable("w", [784, 32], use_resource=True,
                                 initializer=v1.truncated_normal_initializer(
                                     stddev=0.1))
            b1 = v1.get_variable("b", [32], use_resource=True,
                                 initializer=v1.random_uniform_initializer(
                                     -0.1, 0.1))
            h = tf.nn.relu(tf.matmul(x, w1) + b1)
        with v1.variable_scope("layer2"):
            w2 = v1.get_variable("w", [32, 10], use_resource=True,
                                 initializer=v1.truncated_normal_initializer(
                                     stddev=0.1))
            b2 = v1.get_variable("b", [10], use_resource=True,
                                 initializer=v1.random_uniform_initializer(
                                     -0.1, 0.1))
            logits = tf.nn.bias_add(tf.matmul(h, w2), b2)
        probs = tf.nn.softmax(logits, name="probs")
        classes = tf.argmax(probs, axis=1, name="classes")
        with v1.Session(graph=graph) as sess:
            sess.run(v1.global_variables_initializer())
            rng = np.random.RandomState(0)
            xs = rng.uniform(0, 1, size=(4, 784)).astype(np.float32)
            p, c = sess.run([probs, classes], {x: xs})
            np.save(os.path.join(OUT, "mlp_x.npy"), xs)
            np.save(os.path.join(OUT, "mlp_probs.npy"), p.astype(np.float32))
            np.save(os.path.join(OUT, "mlp_classes.npy"), c.astype(np.int64))
            sig = v1.saved_model.predict_signature_def(
                inputs={"x": x}, outputs={"probs": probs, "classes": classes})
            builder = v1.saved_model.Builder(export_dir)
            builder.add_meta_graph_and_variables(
                sess, [v1.saved_model.tag_constants.SERVING],
                signature_def_map={"serving_default": sig},
                main_op=v1.tables_initializer())
            builder.save()


def make_train_meta():
    graph = tf.Graph()
    with graph.as_default():
        v1.set_random_seed(7)
        x = v1.placeholder(tf.float32, [None, 3], name="x")
        y = v1.placeholder(tf.float32, [None, 1], name="y")
        w = v1.get_variable("w", [3, 1], use_resource=True,
                            initializer=v1.zeros_initializer())
        b = v1.get_variable("b", [1], use_resource=True,
                            initializer=v1.zeros_initializer())
        pred = tf.matmul(x, w) + b
        loss = v1.losses.mean_squared_error(y, pred)
        step = v1.train.get_or_create_global_step()
        train = v1.train.GradientDescentOptimizer(0.1).minimize(
            loss, global_step=step, name="train")
        v1.summary.scalar("loss", loss)
        v1.summary.histogram("w", w)
        v1.summary.merge_all()
        init = v1.global_variables_initializer()
        saver = v1.train.Saver()
        saver.export_meta_graph(os.path.join(OUT, "train.meta"))
        del train
        with v1.Session(graph=graph) as sess:
            sess.run(init)
            sess.run([w.assign([[1.0], [2.0], [3.0]]), b.assign([0.5]),
                      step.assign(7)])
            xs = np.array([[1, 0, 0], [1, 1, 1]], np.float32)
            np.save(os.path.join(OUT, "train_x.npy"), xs)
            np.save(os.path.join(OUT, "train_pred.npy"),
                    sess.run(pred, {x: xs}).astype(np.float32))
            ckpt_dir = os.path.join(OUT, "train_ckpt")
            if os.path.exists(ckpt_dir):
                shutil.rmtree(ckpt_dir)
            saver.save(sess, os.path.join(ckpt_dir, "model.ckpt"),
                       global_step=7, write_meta_graph=False)


def make_unknown_collection_meta():
    graph = tf.Graph()
    with graph.as_default():
        a = v1.placeholder(tf.float32, [2], name="a")
        v = v1.get_variable("v", [2], use_resource=True,
                            initializer=v1.ones_initializer())
        tf.identity(a * v, name="out")
        v1.add_to_collection("my_custom_thing", "hello")
        v1.train.export_meta_graph(
            os.path.join(OUT, "unknown_collection.meta.pbtxt"), as_text=True)


def main():
    os.makedirs(OUT, exist_ok=True)
    make_mlp()
    make_train_meta()
    make_unknown_collection_meta()
    total = 0
    for root, _, files in os.walk(OUT):
        for f in files:
            total += os.path.getsize(os.path.join(root, f))
    print("wrote %s (%d bytes)" % (OUT, total))


if __name__ == "__main__":
    main()
