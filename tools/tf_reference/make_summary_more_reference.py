#!/usr/bin/env python3
"""TensorFlow 2.21's image, audio, text and tensor summaries (TF1's
tf.compat.v1.summary ops) and TF2's summary writer ops (tf.summary.* with a
default writer, in a graph), for tests/kernels/summary_more_ops_test.cc.

Writes tests/testdata/tf_summary_more/:
  graph.pb         a tf.compat.v1 graph: ImageSummary (uint8, float with a
                   NaN, half, double; max_images 1, 2, 3), AudioSummaryV2
                   (AudioSummary, deprecated, TF no longer builds), TensorSummaryV2 (tf.compat.v1.summary.
                   text, a float tensor with metadata), TensorSummary and a
                   MergeSummary, each output named out_<case>
  cases.txt        the feeds (value_cases.py's format)
  strings.txt      TensorFlow's serialized Summary of each out_<case>
  writer_graph.pb  a graph of TF2's writer: create_file_writer(logdir fed
                   as "logdir"), tf.summary.scalar/histogram/image/text/
                   audio under writer.as_default(step), the raw
                   WriteScalar/Histogram/Image/Audio/RawProto/Graph ops;
                   targets "init", "write", "flush", "close"
  writer_step<k>.txt  the feeds of the k-th run of "write"
  events.txt       what TensorBoard's reader sees in TensorFlow's event
                   file after init, write (each step), flush, close
                   (tools/tf_reference/dump_summary_events.py)

Run: python3 tools/tf_reference/make_summary_more_reference.py
"""
import os
import subprocess
import sys
import tempfile

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
os.environ.setdefault("CUDA_VISIBLE_DEVICES", "")

import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import value_cases  # noqa: E402

tf1 = tf.compat.v1
R = tf.raw_ops
HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "..", "..", "tests", "testdata", "tf_summary_more")

rng = np.random.RandomState(7)
IMG_F = rng.uniform(-2.0, 3.0, [2, 3, 4, 3]).astype(np.float32)
IMG_F[0, 1, 2, 1] = np.nan  # a bad pixel: bad_color
IMG_F[1, 0, 0, 0] = np.inf
FEEDS = {
    "img_f": IMG_F,
    "img_pos": rng.uniform(0.0, 0.8, [1, 2, 5, 1]).astype(np.float32),
    "img_u8": rng.randint(0, 256, [3, 2, 3, 4]).astype(np.uint8),
    "img_h": rng.uniform(-1.0, 7.0, [1, 3, 3, 3]).astype(np.float32),
    "audio": rng.uniform(-1.2, 1.2, [2, 40]).astype(np.float32),
    "audio3": rng.uniform(-1.0, 1.0, [1, 30, 2]).astype(np.float32),
    "values": np.array([[1.5, -2.0, 0.25], [3.0, 7.5, -0.125]], np.float32),
}


def text_metadata():
  from tensorboard.compat.proto import summary_pb2
  md = summary_pb2.SummaryMetadata()
  md.plugin_data.plugin_name = "my_plugin"
  md.plugin_data.content = b"\x01\x02"
  md.display_name = "Values"
  md.summary_description = "two rows"
  return md.SerializeToString()


def build_tf1():
  ph = {k: tf1.placeholder(tf.as_dtype(v.dtype), v.shape, name=k)
        for k, v in FEEDS.items()}
  cases = {
      "image_f": R.ImageSummary(tag="img_f", tensor=ph["img_f"]),
      "image_pos": R.ImageSummary(tag="img_pos", tensor=ph["img_pos"],
                                  max_images=1),
      "image_u8": R.ImageSummary(tag="img_u8", tensor=ph["img_u8"],
                                 max_images=2),
      "image_h": R.ImageSummary(tag="img_h",
                                tensor=tf.cast(ph["img_h"], tf.float16)),
      "image_d": R.ImageSummary(
          tag="img_d", tensor=tf.cast(ph["img_f"], tf.float64),
          bad_color=tf1.make_tensor_proto(np.array([0, 255, 0], np.uint8))),
      "image_v1": tf1.summary.image("v1_images", ph["img_u8"],
                                    max_outputs=5),
      "audio_v2": tf1.summary.audio("clip", ph["audio"], 8000.0),
      "audio_v2_stereo": R.AudioSummaryV2(tag="stereo", tensor=ph["audio3"],
                                          sample_rate=22050.6,
                                          max_outputs=1),
      # AudioSummary (the rate an attr) is deprecated since GraphDef
      # version 15: TensorFlow no longer builds it, so the test compares
      # dflow's with this AudioSummaryV2.
      "audio_v2_odd_rate": R.AudioSummaryV2(tag="old", tensor=ph["audio"],
                                            sample_rate=16000.4,
                                            max_outputs=5),
      "text": tf1.summary.text("greeting",
                               tf.constant(["h\xe9llo", "world", ""])),
      "tensor_v2": R.TensorSummaryV2(
          tag="values", tensor=ph["values"],
          serialized_summary_metadata=text_metadata()),
      "tensor_v2_int": R.TensorSummaryV2(
          tag="ints", tensor=tf.constant([[1, -2], [3, 4]], tf.int64),
          serialized_summary_metadata=""),
      "tensor_v1": R.TensorSummary(tensor=ph["values"], name="tsum"),
  }
  cases["merged"] = tf1.summary.merge(
      [cases["image_pos"], cases["audio_v2_stereo"], cases["text"]])
  return {k: tf.identity(v, name="out_" + k) for k, v in cases.items()}


def write_tf1():
  g = tf.Graph()
  with g.as_default():
    outs = build_tf1()
  with tf1.Session(graph=g) as sess:
    feeds = {g.get_tensor_by_name(k + ":0"): v for k, v in FEEDS.items()}
    vals = sess.run(outs, feeds)
  with open(os.path.join(OUT, "graph.pb"), "wb") as f:
    f.write(g.as_graph_def().SerializeToString())
  with open(os.path.join(OUT, "cases.txt"), "w") as f:
    f.write("# TensorFlow %s: feeds of graph.pb\n" % tf.__version__)
    for k, v in FEEDS.items():
      f.write("%s | %s\n" % (value_cases.head("feed", k, v),
                             value_cases.fmt(v)))
  with open(os.path.join(OUT, "strings.txt"), "w") as f:
    f.write("# TensorFlow %s: the serialized Summary of each fetch\n" %
            tf.__version__)
    for k in sorted(vals):
      f.write("fetch out_%s string [] | x%s\n" % (k, vals[k].hex()))


STEPS = [
    {"step": np.int64(1),
     "x": np.array([0.5, -1.25, 3.0, 2.0], np.float32),
     "img": rng.uniform(0.0, 1.0, [2, 3, 2, 3]).astype(np.float32),
     "clip": rng.uniform(-1.0, 1.0, [1, 25]).astype(np.float32)},
    {"step": np.int64(7),
     "x": np.array([4.0, 1e-3, -7.5, 0.0], np.float32),
     "img": rng.uniform(-1.0, 1.0, [2, 3, 2, 3]).astype(np.float32),
     "clip": rng.uniform(-1.0, 1.0, [1, 25]).astype(np.float32)},
]


def build_writer():
  from tensorflow.python.ops import summary_ops_v2
  logdir = tf1.placeholder(tf.string, [], name="logdir")
  step = tf1.placeholder(tf.int64, [], name="step")
  x = tf1.placeholder(tf.float32, [4], name="x")
  img = tf1.placeholder(tf.float32, [2, 3, 2, 3], name="img")
  clip = tf1.placeholder(tf.float32, [1, 25], name="clip")
  writer = tf.summary.create_file_writer(logdir, max_queue=3,
                                         flush_millis=100000)
  res = writer._resource  # the SummaryWriter handle
  with writer.as_default(step=step):
    tf.summary.scalar("loss", tf.reduce_mean(x))
    tf.summary.histogram("x", x, buckets=5)
    tf.summary.image("pictures", img, max_outputs=2)
    tf.summary.text("note", tf.constant("step notes"))
    tf.summary.audio("sound", tf.reshape(clip, [1, 25, 1]), 4000)
    tf.summary.experimental.write_raw_pb(
        R.ScalarSummary(tags=["raw_a", "raw_b"], values=x[:2]))
  small = tf.Graph()
  with small.as_default():
    tf.constant(1.0, name="a")
    tf.constant(2.0, name="b")
  writes = tf1.summary.all_v2_summary_ops() + [
      R.WriteScalarSummary(writer=res, step=step, tag="w_scalar",
                           value=tf.cast(x[2], tf.float64)),
      R.WriteHistogramSummary(writer=res, step=step, tag="w_histo", values=x),
      R.WriteImageSummary(writer=res, step=step, tag="w_image", tensor=img,
                          bad_color=np.array([1, 2, 3, 4], np.uint8),
                          max_images=1),
      R.WriteAudioSummary(writer=res, step=step, tag="w_audio", tensor=clip,
                          sample_rate=8000.0, max_outputs=2),
      R.WriteGraphSummary(writer=res, step=step,
                          tensor=small.as_graph_def().SerializeToString()),
  ]
  del summary_ops_v2
  tf.group(writer.init(), name="init")
  tf.group(*writes, name="write")
  tf.group(writer.flush(), name="flush")
  tf.group(writer.close(), name="close")


def write_tf2():
  g = tf.Graph()
  with g.as_default():
    build_writer()
  with open(os.path.join(OUT, "writer_graph.pb"), "wb") as f:
    f.write(g.as_graph_def().SerializeToString())
  logdir = tempfile.mkdtemp(prefix="tf_summary_more_")
  with tf1.Session(graph=g) as sess:
    sess.run("init", {"logdir:0": logdir})
    for k, feeds in enumerate(STEPS):
      sess.run("write", {n + ":0": v for n, v in feeds.items()})
      with open(os.path.join(OUT, "writer_step%d.txt" % k), "w") as f:
        f.write("# feeds of the run %d of 'write' in writer_graph.pb\n" % k)
        for n, v in feeds.items():
          f.write("%s | %s\n" % (value_cases.head("feed", n, v),
                                 value_cases.fmt(v)))
    sess.run("flush")
    sess.run("close")
  dump = subprocess.run(
      [sys.executable, os.path.join(HERE, "dump_summary_events.py"), logdir],
      check=True, capture_output=True, text=True).stdout
  with open(os.path.join(OUT, "events.txt"), "w") as f:
    f.write(dump)
  print(dump)


def main():
  os.makedirs(OUT, exist_ok=True)
  write_tf1()
  write_tf2()


if __name__ == "__main__":
  main()
