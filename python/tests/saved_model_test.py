"""SavedModels, .meta checkpoints and queue runners from Python, with the
files TensorFlow wrote (tests/testdata/tf_saved_model, tf_corpus)."""
import os
import tempfile
import unittest

import numpy as np

import dflow
import junit_main

TF = "tests/testdata/tf_saved_model"


class SavedModelTest(unittest.TestCase):
    def test_loads_and_serves_like_tensorflow(self):
        with dflow.load_saved_model(os.path.join(TF, "mlp")) as model:
            sig = model.signature("serving_default")
            self.assertEqual(sig["inputs"], {"x": "x:0"})
            self.assertEqual(set(sig["outputs"]), {"probs", "classes"})
            self.assertIn("serving_default", model.signature_keys())
            out = model.run(sig["outputs"],
                            {sig["inputs"]["x"]: np.load(f"{TF}/mlp_x.npy")})
            np.testing.assert_allclose(out["probs"],
                                       np.load(f"{TF}/mlp_probs.npy"),
                                       atol=1e-5)
            np.testing.assert_array_equal(out["classes"],
                                          np.load(f"{TF}/mlp_classes.npy"))

    def test_missing_signature_and_tags(self):
        with dflow.load_saved_model(os.path.join(TF, "mlp")) as model:
            with self.assertRaises(dflow.NotFoundError) as e:
                model.signature("nope")
            self.assertIn("serving_default", str(e.exception))
        with self.assertRaises(dflow.NotFoundError):
            dflow.load_saved_model(os.path.join(TF, "mlp"), tags=("train",))
        with self.assertRaises(TypeError):
            dflow.load_saved_model(os.path.join(TF, "mlp"), gpus=2)

    def test_meta_restore_op_reads_tensorflow_checkpoint(self):
        x = np.load(f"{TF}/train_x.npy")
        with dflow.Session(f"{TF}/train.meta") as sess:
            sess.restore(f"{TF}/train_ckpt/model.ckpt-7")
            np.testing.assert_allclose(sess.run("add", {"x": x}),
                                       [[1.5], [6.5]])
            with tempfile.TemporaryDirectory() as d:
                saved = sess.save(os.path.join(d, "model"))
                with dflow.Session(f"{TF}/train.meta") as fresh:
                    fresh.restore(saved)  # the graph's restore op reads it
                    np.testing.assert_allclose(fresh.run("add", {"x": x}),
                                               [[1.5], [6.5]])
            with self.assertRaises(dflow.Error) as e:
                sess.restore(os.path.join(TF, "no_such_checkpoint"))
            self.assertIn("save/restore_all", str(e.exception))

    def test_meta_queue_runners(self):
        corpus = "tests/testdata/tf_corpus/input_queue_ref"
        # TensorFlow wrote the reader's file name into the graph
        # (make_corpus.py: /tmp/does-not-exist.tfrecords). The test points
        # it at records it owns: a path of the same length, so that the
        # serialized graph's lengths stay valid, holding the records
        # input_fifo's graph reads (image_raw and label, as this one).
        baked = b"/tmp/does-not-exist.tfrecords"
        path = ("/tmp/dflow%09x.tfrecords" %
                (os.getpid() & 0xFFFFFFFFF)).encode()
        self.assertEqual(len(path), len(baked))
        with open(os.path.join(corpus, "model.meta"), "rb") as f:
            meta = f.read()
        self.assertIn(baked, meta)
        with open("tests/testdata/tf_corpus/input_fifo_ref/"
                  "input_fifo.tfrecords", "rb") as f:
            records = f.read()
        with tempfile.TemporaryDirectory() as d:
            with open(path, "wb") as f:
                f.write(records)
            try:
                meta_path = os.path.join(d, "model.meta")
                with open(meta_path, "wb") as f:
                    f.write(meta.replace(baked, path))
                with dflow.Session(meta_path) as sess:
                    sess.run("init")
                    self.assertGreater(sess.start_queue_runners(), 0)
                    with self.assertRaises(dflow.FailedPreconditionError):
                        sess.start_queue_runners()  # once per session
                    losses = [float(sess.run(["loss:0", "train"])[0])
                              for _ in range(3)]
                    self.assertTrue(all(np.isfinite(losses)), losses)
            finally:
                os.remove(path)


if __name__ == "__main__":
    junit_main.main()
