"""TensorFlow-written graphs from Python: the seed MLP (4 towers) trained
from GraphDef bytes, a .pb file and a .meta, against TensorFlow's recorded
losses, and against TensorFlow itself in the same process where it imports."""
import os
import subprocess
import sys
import unittest

import numpy as np

import dflow
import junit_main

CORPUS = "tests/testdata/tf_corpus/mlp_towers_ref"


def read_reference(directory):
    """reference.txt (tools/tf_reference/make_corpus.py): init, train, loss,
    feeds (name -> array) and TensorFlow's loss per step."""
    ref = {"feeds": {}, "losses": []}
    with open(os.path.join(directory, "reference.txt")) as f:
        for line in f:
            fields = line.split()
            if not fields or fields[0].startswith("#"):
                continue
            key = fields[0]
            if key in ("init", "train", "loss") and len(fields) == 2:
                ref[key] = fields[1]
            elif key == "feed" and len(fields) == 3:
                ref["feeds"][fields[1]] = np.load(
                    os.path.join(directory, fields[2]))
            elif key == "loss_value" and len(fields) == 3:
                ref["losses"].append(float(fields[2]))
    return ref


def train(sess, ref, steps):
    sess.run(ref["init"])
    losses = []
    for _ in range(steps):
        loss, none = sess.run([ref["loss"], ref["train"]], ref["feeds"])
        assert none is None
        losses.append(float(loss))
    return losses


def tensorflow_or_skip(test):
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
    try:
        import tensorflow as tf
    except Exception as e:  # ImportError, or a broken installation
        test.skipTest(f"tensorflow does not import here ({e}); "
                      "tools/tf_reference/setup_tf.sh installs it")
    return tf


class TfGraphTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.ref = read_reference(CORPUS)
        with open(os.path.join(CORPUS, "graph.pb"), "rb") as f:
            cls.graph_bytes = f.read()

    def assert_losses_match(self, got, want):
        self.assertEqual(len(got), len(want))
        for step, (g, w) in enumerate(zip(got, want), 1):
            self.assertLessEqual(abs(g - w), 1e-5 * max(1.0, abs(w)),
                                 f"step {step}: dflow {g} vs reference {w}")

    def test_reference_has_three_steps(self):
        self.assertEqual(len(self.ref["losses"]), 3)
        self.assertEqual(len(self.ref["feeds"]), 2)

    def test_trains_from_bytes(self):
        with dflow.Session(self.graph_bytes, soft_placement=True) as sess:
            self.assert_losses_match(train(sess, self.ref, 3),
                                     self.ref["losses"])

    def test_trains_from_pb_file(self):
        with dflow.Session(os.path.join(CORPUS, "graph.pb"),
                           soft_placement=True) as sess:
            self.assert_losses_match(train(sess, self.ref, 3),
                                     self.ref["losses"])

    def test_trains_from_meta_on_fake_gpus(self):
        # The towers' own devices: 4 (fake) GPUs. The .meta's variables
        # are colocated with a summary's Switch (CPU-only): soft placement.
        with dflow.Session(os.path.join(CORPUS, "model.meta"),
                           devices="CPU:1,GPU:4", soft_placement=True) as sess:
            self.assert_losses_match(train(sess, self.ref, 3),
                                     self.ref["losses"])
            placement = sess.placement()
            self.assertTrue(placement["GPU_3/add"][0].endswith("GPU:3"))

    def test_same_values_as_tensorflow(self):
        tf = tensorflow_or_skip(self)
        v1 = tf.compat.v1
        graph_def = v1.GraphDef()
        graph_def.ParseFromString(self.graph_bytes)
        graph = tf.Graph()
        with graph.as_default():
            v1.import_graph_def(graph_def, name="")
        config = v1.ConfigProto(allow_soft_placement=True)
        with v1.Session(graph=graph, config=config) as tf_sess:
            tf_losses = train(tf_sess, self.ref, 3)
        with dflow.Session(self.graph_bytes, soft_placement=True) as sess:
            dflow_losses = train(sess, self.ref, 3)
        self.assert_losses_match(dflow_losses, tf_losses)

    def test_import_after_tensorflow(self):
        # TensorFlow's own protobuf and Abseil symbols, made global by its
        # import, must not capture dflow's (the import crashed once).
        tensorflow_or_skip(self)
        package_dir = os.path.dirname(os.path.dirname(dflow.__file__))
        script = (
            "import tensorflow as tf, numpy as np, dflow\n"
            "g = tf.Graph()\n"
            "with g.as_default():\n"
            "    x = tf.compat.v1.placeholder(tf.float32, [2], name='x')\n"
            "    y = tf.identity(x * 2.0, name='y')\n"
            "with dflow.Session(g) as s:\n"
            "    print(s.run(y, {x: np.array([1, 2], np.float32)}).tolist())\n")
        env = dict(os.environ, PYTHONPATH=package_dir,
                   TF_CPP_MIN_LOG_LEVEL="2")
        out = subprocess.run([sys.executable, "-c", script], env=env,
                             capture_output=True, text=True, timeout=240)
        self.assertEqual(out.returncode, 0, out.stderr[-3000:])
        self.assertIn("[2.0, 4.0]", out.stdout)

    def test_graph_built_with_tensorflow_in_this_process(self):
        tf = tensorflow_or_skip(self)
        v1 = tf.compat.v1
        graph = tf.Graph()
        with graph.as_default():
            x = v1.placeholder(tf.float32, [None, 3], name="x")
            w = tf.constant(np.arange(6, dtype=np.float32).reshape(3, 2))
            y = tf.nn.softmax(tf.matmul(x, w) + 1.0, name="y")
            total = tf.reduce_sum(y, name="total")
        feed = np.random.default_rng(0).standard_normal((4, 3)).astype(
            np.float32)
        with v1.Session(graph=graph) as tf_sess:
            want_y, want_total = tf_sess.run([y, total], {x: feed})
        # The tf.Graph itself, and tf.Tensor fetch/feed keys (by name).
        with dflow.Session(graph) as sess:
            got_y, got_total = sess.run([y, total], {x: feed})
        np.testing.assert_allclose(got_y, want_y, rtol=1e-6, atol=1e-6)
        self.assertAlmostEqual(float(got_total), float(want_total), places=5)


if __name__ == "__main__":
    junit_main.main()
