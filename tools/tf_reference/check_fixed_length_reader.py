"""Prints the records TensorFlow's FixedLengthRecordReader returns for a
20-byte file holding 0, 1, ..., 19, for the layouts that
tests/formats/fixed_length_record_test.cc checks dflow's reader against
(header_bytes, record_bytes, footer_bytes, hop_bytes). Rerun it with a
new TensorFlow and compare with the test's LayoutCase values.

Run: python3 tools/tf_reference/check_fixed_length_reader.py
"""
import os
import tempfile

import tensorflow as tf

tf1 = tf.compat.v1

LAYOUTS = [(0, 3, 0, 0), (2, 3, 1, 0), (2, 3, 1, 2), (2, 3, 0, 5),
           (1, 4, 3, 0)]


def records(path, header, record, footer, hop):
  g = tf.Graph()
  with g.as_default():
    queue = tf1.FIFOQueue(5, [tf.string])
    reader = tf1.FixedLengthRecordReader(record, header_bytes=header,
                                         footer_bytes=footer, hop_bytes=hop)
    _, value = reader.read(queue)
    out = []
    with tf1.Session() as sess:
      sess.run(queue.enqueue([path]))
      sess.run(queue.close())
      try:
        while True:
          out.append(list(sess.run(value)))
      except tf.errors.OutOfRangeError:
        pass
  return out


def main():
  tf1.disable_eager_execution()
  path = os.path.join(tempfile.mkdtemp(), "layout.bin")
  with open(path, "wb") as f:
    f.write(bytes(range(20)))
  for layout in LAYOUTS:
    print("header %d record %d footer %d hop %d:" % layout,
          records(path, *layout))


if __name__ == "__main__":
  main()
