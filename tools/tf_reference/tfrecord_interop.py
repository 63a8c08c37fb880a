"""TensorFlow's side of tests/formats/tfrecord_tf_interop_test.

  tfrecord_interop.py write DIR   tf.io.TFRecordWriter writes
                                  DIR/tf_{none,gzip,zlib}.tfrecord
  tfrecord_interop.py check DIR   tf.data.TFRecordDataset reads
                                  DIR/dflow_{none,gzip,zlib}.tfrecord and
                                  prints TF-OK if every record is identical

Both sides write and expect the same records: records() here, Records() in
the test; change them together. Exits 77 when TensorFlow cannot be imported,
which the test takes as a reason to skip.
"""
import os
import sys

try:
  import tensorflow as tf
except ImportError as e:
  print("cannot import tensorflow:", e)
  sys.exit(77)

# The file name part and TensorFlow's compression_type.
COMPRESSIONS = [("none", ""), ("gzip", "GZIP"), ("zlib", "ZLIB")]


def records():
  out = [b"", b"abc", bytes(range(256))]
  # 1 MiB of bytes that do not repeat soon: records larger than any buffer.
  out.append(bytes(((i * 2654435761) >> 13) & 0xFF for i in range(1 << 20)))
  out += [(b"record %d;" % i) * (i % 7) for i in range(3000)]
  return out


def write(directory):
  for name, compression in COMPRESSIONS:
    path = os.path.join(directory, "tf_%s.tfrecord" % name)
    options = tf.io.TFRecordOptions(compression_type=compression)
    with tf.io.TFRecordWriter(path, options=options) as writer:
      for record in records():
        writer.write(record)


def check(directory):
  expected = records()
  ok = True
  for name, compression in COMPRESSIONS:
    path = os.path.join(directory, "dflow_%s.tfrecord" % name)
    dataset = tf.data.TFRecordDataset(path, compression_type=compression)
    got = list(dataset.as_numpy_iterator())
    if got != expected:
      ok = False
      first = next((i for i, (a, b) in enumerate(zip(got, expected)) if a != b),
                   min(len(got), len(expected)))
      print("%s: %d records, expected %d; first difference at record %d" %
            (path, len(got), len(expected), first))
  if not ok:
    sys.exit(1)
  print("TF-OK")


if __name__ == "__main__":
  if len(sys.argv) != 3 or sys.argv[1] not in ("write", "check"):
    sys.exit(__doc__)
  {"write": write, "check": check}[sys.argv[1]](sys.argv[2])
