#!/usr/bin/env python3
"""TensorFlow 2.21's values for the parsing and file ops of
graph/ops/parsing_ops_more.cc and graph/ops/io_ops_files.cc.

Writes tests/testdata/tf_parsing_more/:
  graph.pb     one TF-written GraphDef (tf.compat.v1 graph mode): DecodeCSV
               (every dtype, defaults, na_value, quotes, delimiters,
               select_cols), SerializeTensor of every dtype and ParseTensor
               of TF's bytes, DecodeCompressed, DecodePaddedRaw,
               DecodeJSONExample and ReadFile (of the path fed as
               `read_path`); each value named out_<case>, and bad inputs
               named bad_<case>
  expected.pb  a GraphDef of Consts, one per fetch, named like it, holding
               TensorFlow's value (any dtype, strings byte for byte)
  errors.txt   one bad input per line:
                 "<node> <error code number> <TF's error class> | <text>",
               the code TensorFlow gives and a text its message holds (dflow's
               must hold it too)
  read_file.bin  the bytes ReadFile reads (the test copies it under
               TEST_TMPDIR and feeds that path)
Read by tests/kernels/parsing_more_ops_test.cc.

Run: python3 tools/tf_reference/make_parsing_more_reference.py
"""
import gzip
import os
import tempfile
import zlib

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
os.environ.setdefault("CUDA_VISIBLE_DEVICES", "")

import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402

tf1 = tf.compat.v1
R = tf.raw_ops
OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                   "tests", "testdata", "tf_parsing_more")

READ_BYTES = b"line one\nline\x00two\r\n\xff\xfe end"


def csv_cases():
  c = {}
  s = lambda v: tf.constant(v, tf.string)  # noqa: E731
  # every dtype with defaults
  recs = s(["1,2.5,abc,3.25,7", "-4,1e3,\"q,uoted\",nan,-9",
            "2147483647,-inf,,1e-300,-9223372036854775808"])
  defaults = [tf.constant([0], tf.int32), tf.constant([0.0], tf.float32),
              tf.constant(["dflt"]), tf.constant([0.0], tf.float64),
              tf.constant([0], tf.int64)]
  for i, o in enumerate(R.DecodeCSV(records=recs, record_defaults=defaults)):
    c["csv_types_%d" % i] = o
  # missing fields and na_value take the default
  recs = s(["NA,,x", ",3,", "5,NA,NA", " 7,+2 ,y"])
  defaults = [tf.constant([-1], tf.int32), tf.constant([-2], tf.int64),
              tf.constant(["z"])]
  for i, o in enumerate(R.DecodeCSV(records=recs, record_defaults=defaults,
                                    na_value="NA")):
    c["csv_na_%d" % i] = o
  # quoting: "" inside quotes, delimiters and line breaks inside quotes,
  # line breaks skipped where a field starts, empty quoted fields
  recs = s(['"a""b",c', '"",""', '"x\ny",z', '\n\ra,b', '"p,q","r"',
            'a,"b"', '"""",x'])
  for i, o in enumerate(R.DecodeCSV(records=recs,
                                    record_defaults=[s(["d0"]), s(["d1"])])):
    c["csv_quotes_%d" % i] = o
  # another delimiter, quotes off: quotes are plain characters
  recs = s(['"a;b', 'x"y";"', 'p;q'])
  for i, o in enumerate(R.DecodeCSV(records=recs,
                                    record_defaults=[s([""]), s([""])],
                                    field_delim=";", use_quote_delim=False)):
    c["csv_noquote_%d" % i] = o
  recs = s(["1\t\"a b\"", "2\t"])
  for i, o in enumerate(R.DecodeCSV(
      records=recs, record_defaults=[tf.constant([0]), s(["e"])],
      field_delim="\t")):
    c["csv_tab_%d" % i] = o
  # select_cols, including a last empty column and a 2-D batch
  recs = s([["a,1,b,2.5,c", "d,2,e,3.5,f"], ["g,3,,4.5,", "h,4,i,,j"]])
  for i, o in enumerate(R.DecodeCSV(
      records=recs,
      record_defaults=[tf.constant([0]), tf.constant([0.0]), s(["E"])],
      select_cols=[1, 3, 4])):
    c["csv_select_%d" % i] = o
  recs = s(["1,2,", "3,4,5"])
  for i, o in enumerate(R.DecodeCSV(
      records=recs, record_defaults=[tf.constant([0]), s(["none"])],
      select_cols=[0, 2])):
    c["csv_select_tail_%d" % i] = o
  # a scalar record; a record ending in the delimiter
  for i, o in enumerate(R.DecodeCSV(
      records=s("7,,"), record_defaults=[tf.constant([0], tf.int64),
                                         tf.constant([1.5]),
                                         tf.constant([2.5], tf.float64)])):
    c["csv_scalar_%d" % i] = o
  # defaults given as scalars
  for i, o in enumerate(R.DecodeCSV(
      records=s(["", "x"]) + ",", record_defaults=[s("S"), s("T")])):
    c["csv_scalar_default_%d" % i] = o
  return c


def csv_errors():
  s = lambda v: tf.constant(v, tf.string)  # noqa: E731
  two = [tf.constant([0]), tf.constant([0])]
  req = [tf.constant([], tf.int32), tf.constant([0])]
  return {
      "csv_field_count": (R.DecodeCSV(records=s(["1,2", "1,2,3"]),
                                      record_defaults=two)[0],
                          "Expect 2 fields but have 3 in record 1"),
      "csv_empty_record": (R.DecodeCSV(records=s([""]),
                                       record_defaults=two[:1])[0],
                           "Expect 1 fields but have 0 in record 0"),
      "csv_bad_int": (R.DecodeCSV(records=s(["1,x2"]), record_defaults=two)[0],
                      "Field 1 in record 0 is not a valid int32: x2"),
      "csv_int32_overflow": (R.DecodeCSV(records=s(["3000000000,1"]),
                                         record_defaults=two)[0],
                             "Field 0 in record 0 is not a valid int32"),
      "csv_bad_float": (R.DecodeCSV(records=s(["1.5.2"]),
                                    record_defaults=[tf.constant([0.0])])[0],
                        "is not a valid float: 1.5.2"),
      "csv_missing_required": (R.DecodeCSV(records=s(["1,2", ",3"]),
                                           record_defaults=req)[0],
                               "Field 0 is required but missing in record 1"),
      "csv_unquoted_quote": (R.DecodeCSV(records=s(['a"b,c']),
                                         record_defaults=[s([""]), s([""])])[0],
                             "Unquoted fields cannot have quotes/CRLFs inside"),
      "csv_open_quote": (R.DecodeCSV(records=s(['"abc']),
                                     record_defaults=[s([""])])[0],
                         "Quoted field has to end with quote followed by "
                         "delim or end"),
      "csv_lone_quote": (R.DecodeCSV(records=s(['"a"b",c']),
                                     record_defaults=[s([""]), s([""])])[0],
                         "Quote inside a string has to be escaped by another "
                         "quote"),
      # (a shape TF's shape function cannot see, so the kernel checks it)
      "csv_two_defaults": (R.DecodeCSV(
          records=s(["1"]), record_defaults=[tf1.placeholder_with_default(
              tf.constant([1, 2]), shape=None)])[0],
                           "There should only be 1 default per field but "
                           "field 0 has 2"),
  }


DTYPE_VALUES = {
    "float32": np.array([[1.5, -0.0, np.inf], [np.nan, 3e-39, -2.25]],
                        np.float32),
    "float64": np.array([1e300, -5e-324, 0.1], np.float64),
    "float16": np.array([1.5, -65504, 6e-8], np.float16),
    "int8": np.array([-128, 0, 127], np.int8),
    "int16": np.array([[-32768, 7], [300, 32767]], np.int16),
    "int32": np.array([-2147483648, 1, 2147483647], np.int32),
    "int64": np.array([-(2 ** 63), 5, 2 ** 63 - 1], np.int64),
    "uint8": np.array([0, 200, 255], np.uint8),
    "uint16": np.array([0, 65535], np.uint16),
    "uint32": np.array([0, 4294967295], np.uint32),
    "uint64": np.array([0, 2 ** 64 - 1], np.uint64),
    "bool": np.array([[True, False, True]], np.bool_),
    "complex64": np.array([1 + 2j, -0.5j], np.complex64),
    "complex128": np.array([[3 - 4j]], np.complex128),
}


def tensor_cases():
  c = {}
  for name, v in DTYPE_VALUES.items():
    t = tf.constant(v)
    c["ser_" + name] = R.SerializeTensor(tensor=t)
    c["ser_scalar_" + name] = R.SerializeTensor(tensor=t[(0,) * v.ndim])
    c["ser_empty_" + name] = R.SerializeTensor(
        tensor=tf.zeros([0, 2], t.dtype) if name != "bool" else
        tf.zeros([0, 2], tf.bool))
    c["roundtrip_" + name] = R.ParseTensor(
        serialized=R.SerializeTensor(tensor=t), out_type=t.dtype)
  bf = tf.constant([1.0, -2.5, 3.0e38], tf.bfloat16)
  c["ser_bfloat16"] = R.SerializeTensor(tensor=bf)
  c["roundtrip_bfloat16"] = R.ParseTensor(serialized=R.SerializeTensor(
      tensor=bf), out_type=tf.bfloat16)
  strs = tf.constant([[b"", b"a\x00b"], [b"\xff" * 3, b"long" * 40]])
  c["ser_string"] = R.SerializeTensor(tensor=strs)
  c["ser_scalar_string"] = R.SerializeTensor(tensor=tf.constant(b"hi"))
  # (tf.zeros([0], tf.string) is a Const with one string_val for no
  # elements, which dflow's Const refuses; Fill builds the same tensor.)
  c["ser_empty_string"] = R.SerializeTensor(tensor=tf.fill([0], ""))
  c["roundtrip_string"] = R.ParseTensor(serialized=R.SerializeTensor(
      tensor=strs), out_type=tf.string)
  # TensorProtos in the typed fields (not tensor_content), as older writers
  # and tf.make_tensor_proto of lists give them.
  p = tf.make_tensor_proto([1.5, 2.5, -3.0], tf.float32)
  p.ClearField("tensor_content")
  p.float_val.extend([1.5, 2.5, -3.0])
  c["parse_float_val"] = R.ParseTensor(
      serialized=tf.constant(p.SerializeToString()), out_type=tf.float32)
  p = tf.make_tensor_proto(np.array([-5, 7], np.int16))
  p.ClearField("tensor_content")
  p.int_val.extend([-5, 7])
  c["parse_int_val"] = R.ParseTensor(
      serialized=tf.constant(p.SerializeToString()), out_type=tf.int16)
  p = tf.make_tensor_proto(np.array([1.5, -2.0], np.float16))
  p.ClearField("tensor_content")
  p.half_val.extend(np.array([1.5, -2.0], np.float16).view(np.uint16).tolist())
  c["parse_half_val"] = R.ParseTensor(
      serialized=tf.constant(p.SerializeToString()), out_type=tf.float16)
  p = tf.make_tensor_proto([b"x", b"yz"])
  c["parse_string_val"] = R.ParseTensor(
      serialized=tf.constant(p.SerializeToString()), out_type=tf.string)
  return c


def tensor_errors():
  ser = R.SerializeTensor(tensor=tf.constant([1.0, 2.0]))
  return {
      "parse_dtype_mismatch": (R.ParseTensor(serialized=ser,
                                             out_type=tf.int32),
                               "Type mismatch between parsed tensor (float) "
                               "and dtype (int32)"),
      "parse_malformed": (R.ParseTensor(serialized=tf.constant(b"\xff\xff\xff"),
                                        out_type=tf.float32),
                          "Could not parse `serialized` as TensorProto"),
      "parse_not_scalar": (R.ParseTensor(serialized=tf.stack([ser, ser]),
                                         out_type=tf.float32),
                           "Expected `serialized` to be a scalar, got shape: "),
  }


def compressed_cases():
  text = [b"hello hello hello", b"", b"\x00\x01" * 500]
  gz = [gzip.compress(t, mtime=0) for t in text]
  zl = [zlib.compress(t, 9) for t in text]
  return {
      "gzip": R.DecodeCompressed(bytes=tf.constant(gz),
                                 compression_type="GZIP"),
      "zlib": R.DecodeCompressed(bytes=tf.constant([zl[:2], zl[2:] + [zl[0]]]),
                                 compression_type="ZLIB"),
      "uncompressed": R.DecodeCompressed(bytes=tf.constant(text)),
  }, {
      "gzip_garbage": (R.DecodeCompressed(bytes=tf.constant([b"not gzip"]),
                                          compression_type="GZIP"), ""),
  }


def padded_raw_cases():
  c = {}
  data = tf.constant([b"\x01\x02\x03\x04\x05\x06\x07\x08\x09\x0a",
                      b"\xff\xfe", b""])
  for dt in [tf.int16, tf.uint16, tf.int32, tf.int64, tf.float32, tf.float64,
             tf.bfloat16, tf.uint8, tf.int8]:  # TF has no half kernel
    for le in (True, False):
      c["padded_%s_%s" % (dt.name, "le" if le else "be")] = R.DecodePaddedRaw(
          input_bytes=data, fixed_length=8, out_type=dt, little_endian=le)
  c["padded_2d"] = R.DecodePaddedRaw(
      input_bytes=tf.constant([[b"ab", b"cdef"]]), fixed_length=2,
      out_type=tf.uint8)
  # Lengths TF's shape function cannot see, so the kernel checks them.
  length = lambda n: tf1.placeholder_with_default(n, [])  # noqa: E731
  return c, {
      "padded_not_multiple": (R.DecodePaddedRaw(
          input_bytes=data, fixed_length=length(6), out_type=tf.int32),
                              "must be a multiple of the size of out_type"),
      "padded_zero": (R.DecodePaddedRaw(input_bytes=data,
                                        fixed_length=length(0),
                                        out_type=tf.uint8),
                      "must be greater than zero"),
  }


def json_cases():
  js = [
      '{"features": {"feature": {"a": {"floatList": {"value": [1.5, 2]}}}}}',
      '{"features": {"feature": {"i": {"int64List": {"value": ["7", -3]}},'
      ' "b": {"bytesList": {"value": ["aGk=", ""]}}}}}',
      '{}',
      '{"features": {}}',
  ]
  return {
      "json": R.DecodeJSONExample(json_examples=tf.constant(js)),
      "json_2d": R.DecodeJSONExample(json_examples=tf.constant([js[:2]])),
  }, {
      "json_malformed": (R.DecodeJSONExample(
          json_examples=tf.constant(['{"features": ['])),
                         "Error while parsing JSON"),
      "json_unknown_field": (R.DecodeJSONExample(
          json_examples=tf.constant(['{"feature": {}}'])),
                             "Error while parsing JSON"),
  }


def main():
  os.makedirs(OUT, exist_ok=True)
  g = tf.Graph()
  with g.as_default():
    values = {}
    errors = {}
    values.update(csv_cases())
    errors.update(csv_errors())
    values.update(tensor_cases())
    errors.update(tensor_errors())
    for part in (compressed_cases(), padded_raw_cases(), json_cases()):
      values.update(part[0])
      errors.update(part[1])
    path = tf1.placeholder(tf.string, [], name="read_path")
    values["read_file"] = R.ReadFile(filename=path)
    fetch = {}
    for k, v in values.items():
      fetch["out_" + k] = tf.identity(v, name="out_" + k)
    bad = {}
    for k, (v, text) in errors.items():
      bad["bad_" + k] = (tf.identity(v, name="bad_" + k), text)
  with open(os.path.join(OUT, "graph.pb"), "wb") as f:
    f.write(g.as_graph_def().SerializeToString())
  with open(os.path.join(OUT, "read_file.bin"), "wb") as f:
    f.write(READ_BYTES)
  with tempfile.TemporaryDirectory() as tmp:
    read_path = os.path.join(tmp, "read_file.bin")
    with open(read_path, "wb") as f:
      f.write(READ_BYTES)
    with tf1.Session(graph=g) as sess:
      got = sess.run(fetch, {"read_path:0": read_path})
      lines = []
      for k, (t, text) in sorted(bad.items()):
        try:
          sess.run(t)
          raise SystemExit("%s: TensorFlow gave no error" % k)
        except tf.errors.OpError as e:
          message = e.message
          if text not in message:
            raise SystemExit("%s: '%s' not in TF's '%s'" % (k, text, message))
          # TensorFlow's codes are absl's numbers.
          lines.append("%s %d %s | %s" % (k, e.error_code, type(e).__name__,
                                          text))
          print(k, type(e).__name__, message.strip().split("\n")[-3][:150])
  want = tf1.GraphDef()
  for k, v in sorted(got.items()):
    node = want.node.add()
    node.name = k
    node.op = "Const"
    dtype = g.get_tensor_by_name(k + ":0").dtype
    node.attr["dtype"].type = dtype.as_datatype_enum
    # Strings as objects: NumPy's bytes dtype drops trailing NULs.
    v = np.asarray(v, dtype=object if dtype == tf.string else None)
    node.attr["value"].tensor.CopyFrom(tf.make_tensor_proto(v, dtype=dtype))
  with open(os.path.join(OUT, "expected.pb"), "wb") as f:
    f.write(want.SerializeToString())
  with open(os.path.join(OUT, "errors.txt"), "w") as f:
    f.write("\n".join(lines) + "\n")
  print(len(got), "values,", len(lines), "errors")


if __name__ == "__main__":
  main()
