#!/usr/bin/env python3
"""TensorFlow peer of bench/tfrecord_bench.cc: tf.data.TFRecordDataset
reading a 64 MiB file of 1 KiB records (65,536), plain and GZIP, in MB/s of
the uncompressed stream (records + 16 bytes of framing each, 10^6 bytes/s
of wall time), as tfrecord_bench reports BM_Read.

tf.io.TFRecordWriter writes the file (records of letters from a 16-letter
alphabet, as tfrecord_bench's, so GZIP has as much to gain). The dataset is
batched (--batch records) so that TensorFlow's per-element overhead outside
the reader does not hide the reader's speed: unbatched, a reduce function
or a Python step per record took ~20-50 us here, many times what reading
the record costs. Two ways
to consume it, after one warm-up pass so the file is in the page cache:

  graph   Dataset.reduce summing tf.strings.length over the batches, all
          inside TensorFlow
  eager   a Python loop over the batches

Each figure is the best of --repeats runs.

  python3 bench/tfrecord_tf_peer.py [--repeats 3] [--batch 1024] [--dir /tmp]
"""
import argparse
import os
import shutil
import tempfile
import time

import numpy as np
import tensorflow as tf

RECORD_BYTES = 1 << 10
RECORDS = (64 << 20) // RECORD_BYTES
STREAM_BYTES = RECORDS * (RECORD_BYTES + 16)


def write_file(path, compression):
  letters = np.random.default_rng(1).integers(
      0, 16, size=(RECORDS, RECORD_BYTES), dtype=np.uint8) + ord("a")
  options = tf.io.TFRecordOptions(compression_type=compression)
  with tf.io.TFRecordWriter(path, options=options) as writer:
    for row in letters:
      writer.write(row.tobytes())


def dataset(path, compression, batch):
  return tf.data.TFRecordDataset(path, compression_type=compression).batch(
      batch)


def read_graph(path, compression, batch):
  total = dataset(path, compression, batch).reduce(
      tf.constant(0, tf.int64), lambda acc, records: acc + tf.reduce_sum(
          tf.cast(tf.strings.length(records), tf.int64)))
  assert int(total) == RECORDS * RECORD_BYTES, int(total)


def read_eager(path, compression, batch):
  count = 0
  for records in dataset(path, compression, batch):
    count += int(records.shape[0])
  assert count == RECORDS, count


def best_mb_per_s(fn, path, compression, batch, repeats):
  fn(path, compression, batch)  # warm-up: page cache, tracing
  best = float("inf")
  for _ in range(repeats):
    start = time.perf_counter()
    fn(path, compression, batch)
    best = min(best, time.perf_counter() - start)
  return STREAM_BYTES / best / 1e6


def main():
  parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
  parser.add_argument("--repeats", type=int, default=3)
  parser.add_argument("--batch", type=int, default=1024)
  parser.add_argument("--dir", default=None)
  args = parser.parse_args()
  directory = tempfile.mkdtemp(prefix="tfrecord_tf_peer_", dir=args.dir)
  try:
    for name, compression in (("none", ""), ("gzip", "GZIP")):
      path = os.path.join(directory, name + ".tfrecord")
      write_file(path, compression)
      for way, fn in (("graph", read_graph), ("eager", read_eager)):
        mb = best_mb_per_s(fn, path, compression, args.batch, args.repeats)
        print("TFRecordDataset/%s/%s  MB_per_s=%.1f" % (name, way, mb))
  finally:
    shutil.rmtree(directory)


if __name__ == "__main__":
  main()
