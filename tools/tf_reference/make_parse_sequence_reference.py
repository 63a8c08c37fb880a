#!/usr/bin/env python3
"""TensorFlow 2.21's values for the tf.Example features beyond fixed-length
and sparse ones, as input pipelines of sequence and text models write
them:
  tf.io.FixedLenSequenceFeature(allow_missing=True)  a dense shape [?, d...]
      (rows of d... values, padded with the default to the batch's longest)
  tf.io.RaggedFeature  values and row splits (int32 or int64), also with a
      RowLengths partition (nested ragged, built by TensorFlow's Python from
      a second ragged feature)
through tf.io.parse_example (a batch) and tf.io.parse_single_example (one
record: ParseExampleV2 of a scalar), and in a tf.data map (the parse inside
a function); and tf.train.SequenceExample records through
tf.io.parse_sequence_example and parse_single_sequence_example
(ParseSequenceExampleV2: context features dense, sparse and ragged; feature
lists dense with lengths, sparse and ragged) and the tf.compat.v1 ops of
older graphs (ParseSequenceExample, ParseSingleSequenceExample).

Writes tests/testdata/tf_parse_sequence/ (graph.pb, cases.txt: every
fetch), read by tests/kernels/parse_sequence_test.cc. The records are
constants of the graph (cases.txt has no string feeds).

Run: python3 tools/tf_reference/make_parse_sequence_reference.py
"""
import os

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
os.environ.setdefault("CUDA_VISIBLE_DEVICES", "")

import tensorflow as tf  # noqa: E402

from value_cases import write_cases  # noqa: E402

tf1 = tf.compat.v1
OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                   "tests", "testdata", "tf_parse_sequence")


def example(**features):
  f = {}
  for key, values in features.items():
    if values and isinstance(values[0], float):
      f[key] = tf.train.Feature(float_list=tf.train.FloatList(value=values))
    elif values and isinstance(values[0], bytes):
      f[key] = tf.train.Feature(bytes_list=tf.train.BytesList(value=values))
    else:
      f[key] = tf.train.Feature(int64_list=tf.train.Int64List(value=values))
  return tf.train.Example(
      features=tf.train.Features(feature=f)).SerializeToString()


RECORDS = [
    example(frames=[0.5, 1.5, 2.5, 3.5, 4.5, 5.5], tokens=[3, 1, 4, 1],
            ids=[7, 8], weights=[0.25], len=[1, 3], label=[1]),
    example(tokens=[9], ids=[], weights=[0.5, 0.75, 1.0], len=[], label=[0]),
    example(frames=[6.0, 7.0], tokens=[2, 6], ids=[5, 3, 5], len=[2, 0, 1],
            label=[1]),
]

def sequence(context, lists):
  s = tf.train.SequenceExample()
  for key, values in context.items():
    s.context.feature[key].CopyFrom(
        tf.train.Example.FromString(example(**{key: values}))
        .features.feature[key])
  for key, steps in lists.items():
    for values in steps:
      s.feature_lists.feature_list[key].feature.add().CopyFrom(
          tf.train.Example.FromString(example(**{key: values}))
          .features.feature[key])
  return s.SerializeToString()


SEQUENCES = [
    sequence({"length": [3], "weights": [0.5, 0.25], "ids": [4, 2]},
             {"tokens": [[1], [2], [3]], "frames": [[1.0, 2.0], [3.0, 4.0],
                                                    [5.0, 6.0]],
              "tags": [[7, 8], [], [9]], "spans": [[1, 2], [3]]}),
    sequence({"length": [1], "ids": [6]},
             {"tokens": [[4]], "frames": [[7.0, 8.0]], "tags": [[1]],
              "spans": [[5]]}),
    sequence({"length": [0]}, {}),
]

CONTEXT = {
    "length": tf.io.FixedLenFeature([], tf.int64),
    "weights": tf.io.VarLenFeature(tf.float32),
    "ids": tf.io.RaggedFeature(tf.int64, row_splits_dtype=tf.int32),
}
LISTS = {
    "tokens": tf.io.FixedLenSequenceFeature([], tf.int64, allow_missing=True),
    "frames": tf.io.FixedLenSequenceFeature([2], tf.float32,
                                            allow_missing=True),
    "tags": tf.io.VarLenFeature(tf.int64),
    "spans": tf.io.RaggedFeature(tf.int64, row_splits_dtype=tf.int32),
}

FEATURES = {
    # [?, 2]: rows of two floats, padded with -1.
    "frames": tf.io.FixedLenSequenceFeature([2], tf.float32,
                                            allow_missing=True,
                                            default_value=-1.0),
    # [?]: int64, padded with 0 (no default given).
    "tokens": tf.io.FixedLenSequenceFeature([], tf.int64, allow_missing=True),
    "ids": tf.io.RaggedFeature(tf.int64, row_splits_dtype=tf.int32),
    "weights": tf.io.RaggedFeature(tf.float32),
    # ids again, split by the lengths in `len`.
    "nested": tf.io.RaggedFeature(
        tf.int64, value_key="ids",
        partitions=[tf.io.RaggedFeature.RowLengths("len")]),
    "label": tf.io.FixedLenFeature([], tf.int64),
}


def flatten(prefix, value, outs):
  """Fetches of a parsed value: a tensor, or a sparse or ragged tensor's
  parts."""
  if isinstance(value, tf.SparseTensor):
    outs[prefix + "_indices"] = value.indices
    outs[prefix + "_values"] = value.values
    outs[prefix + "_shape"] = value.dense_shape
  elif isinstance(value, tf.RaggedTensor):
    flatten(prefix + "_values", value.values, outs)
    outs[prefix + "_splits"] = value.row_splits
  else:
    outs[prefix] = value


def build():
  records = tf.constant(RECORDS, name="records")
  outs = {}
  batch = tf.io.parse_example(records, FEATURES)
  for key, value in batch.items():
    flatten("batch_" + key, value, outs)
  single_features = {k: v for k, v in FEATURES.items() if k != "nested"}
  for i in range(len(RECORDS)):
    one = tf.io.parse_single_example(records[i], single_features)
    for key, value in one.items():
      flatten("single%d_%s" % (i, key), value, outs)
  # A tf.data map: the parse inside a function, padded batches after it.
  ds = tf.data.Dataset.from_tensor_slices(records).map(
      lambda r: tf.io.parse_single_example(
          r, {"frames": FEATURES["frames"], "label": FEATURES["label"]}))
  ds = ds.padded_batch(2, padded_shapes={"frames": [None, 2], "label": []},
                       padding_values={"frames": -2.0,
                                       "label": tf.constant(0, tf.int64)})
  got = tf1.data.make_one_shot_iterator(ds).get_next()
  outs["data_frames"] = got["frames"]
  outs["data_label"] = got["label"]

  sequences = tf.constant(SEQUENCES, name="sequences")
  context, lists, lengths = tf.io.parse_sequence_example(sequences, CONTEXT,
                                                         LISTS)
  for prefix, parsed in (("seq_context_", context), ("seq_list_", lists),
                         ("seq_length_", lengths)):
    for key, value in parsed.items():
      flatten(prefix + key, value, outs)
  for i in range(2):
    context, lists = tf.io.parse_single_sequence_example(sequences[i],
                                                         CONTEXT, LISTS)
    for prefix, parsed in (("seq%d_context_" % i, context),
                           ("seq%d_list_" % i, lists)):
      for key, value in parsed.items():
        flatten(prefix + key, value, outs)
  # The tf.compat.v1 ops of older graphs (keys as attrs or inputs).
  v1 = tf.raw_ops.ParseSequenceExample(
      serialized=sequences[:2], debug_name=tf.constant(["a", "b"]),
      context_dense_defaults=[tf.constant(-1, tf.int64)],
      feature_list_dense_missing_assumed_empty=["tokens"],
      context_sparse_keys=["weights"], context_dense_keys=["length"],
      feature_list_sparse_keys=["tags"],
      feature_list_dense_keys=["tokens", "frames"],
      Ncontext_sparse=1, Ncontext_dense=1, Nfeature_list_sparse=1,
      Nfeature_list_dense=2, context_sparse_types=[tf.float32],
      feature_list_dense_types=[tf.int64, tf.float32],
      context_dense_shapes=[[]], feature_list_sparse_types=[tf.int64],
      feature_list_dense_shapes=[[], [2]])
  for name, value in zip(
      ["w_indices", "w_values", "w_shape", "length", "tags_indices",
       "tags_values", "tags_shape", "tokens", "frames", "tokens_length",
       "frames_length"], tf.nest.flatten(v1)):
    outs["v1_" + name] = value
  single = tf.raw_ops.ParseSingleSequenceExample(
      serialized=sequences[0],
      feature_list_dense_missing_assumed_empty=tf.constant([], tf.string),
      context_sparse_keys=[tf.constant("weights")],
      context_dense_keys=[tf.constant("length")],
      feature_list_sparse_keys=[tf.constant("tags")],
      feature_list_dense_keys=[tf.constant("frames")],
      context_dense_defaults=[tf.constant(-1, tf.int64)],
      debug_name=tf.constant(""), context_sparse_types=[tf.float32],
      feature_list_dense_types=[tf.float32], context_dense_shapes=[[]],
      feature_list_sparse_types=[tf.int64], feature_list_dense_shapes=[[2]])
  for name, value in zip(
      ["w_indices", "w_values", "w_shape", "length", "tags_indices",
       "tags_values", "tags_shape", "frames"], tf.nest.flatten(single)):
    outs["v1single_" + name] = value
  return {k: tf.identity(v, name="out_" + k) for k, v in outs.items()}


def main():
  os.makedirs(OUT, exist_ok=True)
  g = tf.Graph()
  with g.as_default():
    reads = build()
    with tf1.Session() as s:
      values = s.run(reads)
  ops = {n.op for n in g.as_graph_def().node}
  for want in ("ParseExampleV2", "ParseSequenceExampleV2",
               "ParseSequenceExample", "ParseSingleSequenceExample"):
    assert want in ops, (want, ops)
  write_cases(OUT, g.as_graph_def(),
              "Written by tools/tf_reference/make_parse_sequence_reference.py "
              "with TensorFlow %s." % tf.__version__, {}, values)
  print("wrote", OUT, len(values), "fetches")


if __name__ == "__main__":
  main()
