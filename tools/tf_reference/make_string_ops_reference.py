#!/usr/bin/env python3
"""TensorFlow 2.21's values for the feature pipelines' string ops and
tf.lookup's hash tables: StringLower/Upper/Strip, Substr (bytes and UTF-8
characters, broadcast pos/len), ReduceJoin, StaticRegexReplace,
RegexReplace, StringSplit, StringSplitV2, StringToNumber, AsString,
EncodeBase64/DecodeBase64, StringToHashBucketFast/Strong, the legacy
StringToHashBucket, Fingerprint (strings, rows of strings, int32, double),
HashTableV2 with
InitializeTableV2, LookupTableImportV2, LookupTableFindV2 and
LookupTableSizeV2 (string->int64, int64->string, string->float, and
StaticVocabularyTable's out-of-vocabulary buckets), and
InitializeTableFromTextFileV2 (vocabulary files: whole lines, line numbers,
columns, vocab_size).

None of these ops has a gradient in TensorFlow, so the graph has none.

Writes tests/testdata/tf_string_ops/:
  words.txt, weights.txt  the vocabulary files the graph's tables read
  graph.pb      one TF-written GraphDef (tf.compat.v1 graph mode): string
                constants and numeric placeholders, each result named
                out_<case> by an Identity; the lookups depend on the table
                initializers (tables_init), so one Run fills and reads them
  cases.txt     numeric feeds and fetches, as tests/kernels/tf_value_cases.h
                reads them
  to_number.txt StringToNumber of odd strings (hex, signs, inf/nan, spaces,
                overflow) run eagerly: "<dtype> x<hex> OK <value>" or
                "<dtype> x<hex> ERR" (TensorFlow refused it)
  strings.txt   string fetches, one per line:
                  fetch <name> string [<dims>] | x<hex> x<hex> ...
                (each string's bytes in hex after an 'x': "x" is empty)
Read by tests/kernels/string_ops_test.cc.

Run: python3 tools/tf_reference/make_string_ops_reference.py
"""
import os

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
os.environ.setdefault("CUDA_VISIBLE_DEVICES", "")

import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402

from value_cases import fmt, head  # noqa: E402

tf1 = tf.compat.v1
ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
OUT = os.path.join(ROOT, "tests", "testdata", "tf_string_ops")

FEEDS = {
    "xf": np.array([1.5, -0.25, 1234567.0, 3.14159265, 1e-7, 0.0, -2.5e10,
                    100.0], np.float32),
    "xd": np.array([0.1, -1.0 / 3.0, 6.02214076e23, 1e-300], np.float64),
    "xi": np.array([0, -7, 123456789, 42, -100000], np.int32),
    "xl": np.array([0, -7, 9000000000, -9000000000000000000], np.int64),
}

WORDS = ["Hello World", "foo123bar45", "  padded\t ", "aaa", "MiXeD 9 Z",
         "x,y,,z"]
# Lengths around FarmHash's branches (0-16, 17-32, 33-64, over 64 bytes).
HASHED = ["", "a", "hello world", "TensorFlow", "\u00e9t\u00e9", "x" * 40] + [
    "".join(chr(33 + (i * 7 + j * 13) % 90) for j in range(n))
    for i, n in enumerate([3, 8, 15, 16, 17, 24, 31, 32, 33, 48, 63, 64, 65,
                           100, 127, 128, 129, 200, 255, 1000])]


WORDS_FILE = "tests/testdata/tf_string_ops/words.txt"
WEIGHTS_FILE = "tests/testdata/tf_string_ops/weights.txt"


def write_vocabularies():
  with open(os.path.join(ROOT, WORDS_FILE), "w") as f:
    f.write("cherry\napple\nkiwi\r\ndate\n")
  with open(os.path.join(ROOT, WEIGHTS_FILE), "w") as f:
    f.write("banana 0.25 x\ndate -4\napple 1e3 y z\n")


def build(p):
  R = tf.raw_ops
  s = tf.constant(WORDS)
  m = tf.constant([["a", "b", "c"], ["dd", "", "f"]])
  cube = tf.reshape(tf.constant([str(i) for i in range(12)]), [2, 3, 2])
  cases = {
      "lower": tf.strings.lower(s),
      "upper": tf.strings.upper(s),
      "strip": tf.strings.strip(s),
      "substr": tf.strings.substr(s, 1, 3),
      "substr_neg": tf.strings.substr(s, -3, 2),
      "substr_long": tf.strings.substr(s, 2, 100),
      "substr_vec": tf.strings.substr(s, [0, 1, 2, 0, 9, 6], [2, 3, 4, 1, 5,
                                                               0]),
      "substr_bcast": tf.strings.substr(
          tf.constant([["ab", "bcd", "c"], ["dd", "xyz", "fgh"]]), [0, 1, 0],
          [1, 1, 2]),
      "substr_i64": tf.strings.substr(s, tf.constant(3, tf.int64),
                                      tf.constant(4, tf.int64)),
      "substr_utf8": tf.strings.substr(
          tf.constant(["h\u00e9llo w\u00f6rld", "\u00fc\u00fc\u00fc"]), 1, 3,
          unit="UTF8_CHAR"),
      "substr_utf8_neg": tf.strings.substr(
          tf.constant(["h\u00e9llo w\u00f6rld", "\u00fc\u00fc\u00fc"]), -2, 5,
          unit="UTF8_CHAR"),
      "rj_axis0": tf.strings.reduce_join(m, axis=0),
      "rj_axis1_sep": tf.strings.reduce_join(m, axis=1, separator=","),
      "rj_all": tf.strings.reduce_join(m, separator="|"),
      "rj_keep": tf.strings.reduce_join(m, axis=1, keepdims=True,
                                        separator="-"),
      "rj_neg": tf.strings.reduce_join(cube, axis=-2, separator=" "),
      "rj_cube_02": tf.strings.reduce_join(cube, axis=[0, 2], separator="."),
      "rj_cube_20": tf.strings.reduce_join(cube, axis=[2, 0], separator="."),
      "rj_cube_keep": R.ReduceJoin(inputs=cube, reduction_indices=[1, -1],
                                   keep_dims=True, separator="+"),
      "rj_none": R.ReduceJoin(inputs=m, reduction_indices=tf.constant(
          [], tf.int32)),
      "rr": tf.strings.regex_replace(s, "[0-9]+", "#"),
      "rr_first": tf.strings.regex_replace(s, "o", "0", replace_global=False),
      "rr_group": tf.strings.regex_replace(s, r"(\w+) (\w+)", r"\2 \1"),
      "rr_empty_match": tf.strings.regex_replace(s, "a*", "-"),
      "rr_dynamic": R.RegexReplace(input=s, pattern=tf.constant("[aeiou]"),
                                   rewrite=tf.constant("<\\0>")),
      "static_rr": R.StaticRegexReplace(input=s, pattern="l+", rewrite="L"),
      "static_rr_first": R.StaticRegexReplace(
          input=s, pattern="[A-Z]", rewrite="_", replace_global=False),
      "to_f": tf.strings.to_number(tf.constant(
          ["3.25", "-1e3", "  42", "7", "inf", "-0", "1e-3", ".5 ", "-nan",
           "1e40"])),
      "to_f64": tf.strings.to_number(tf.constant(
          ["3.25", "-1e3", "  42", "0.1", "1e300", "-2.5E-3"]), tf.float64),
      "to_i": tf.strings.to_number(tf.constant(["12", "-3", "0", " 77 ",
                                                "+5", "2147483647"]),
                                   tf.int32),
      "to_i64": tf.strings.to_number(tf.constant(
          ["9000000000", "-9223372036854775808", "0"]), tf.int64),
      "as_f": tf.strings.as_string(p["xf"]),
      "as_f_prec": tf.strings.as_string(p["xf"], precision=3),
      "as_f_sci": tf.strings.as_string(p["xf"], scientific=True),
      "as_f_short": tf.strings.as_string(p["xf"], shortest=True),
      "as_f_width": tf.strings.as_string(p["xf"], width=12, precision=2),
      "as_f_short_prec": tf.strings.as_string(p["xf"], shortest=True,
                                              precision=10),
      "as_d": tf.strings.as_string(p["xd"]),
      "as_d_sci_prec": tf.strings.as_string(p["xd"], scientific=True,
                                            precision=12),
      "as_d_short": tf.strings.as_string(p["xd"], shortest=True),
      "as_i": tf.strings.as_string(p["xi"]),
      "as_i_w0": tf.strings.as_string(p["xi"], width=6, fill="0"),
      "as_i_w": tf.strings.as_string(p["xi"], width=7),
      "as_i_left": tf.strings.as_string(p["xi"], width=7, fill="-"),
      "as_i_plus": tf.strings.as_string(p["xi"], fill="+"),
      "as_l": tf.strings.as_string(p["xl"]),
      "as_l_w": tf.strings.as_string(p["xl"], width=12, fill="0"),
      "as_b": tf.strings.as_string(tf.constant([True, False])),
      "as_half": tf.strings.as_string(tf.cast(p["xf"], tf.float16)),
      "as_bf16_prec": tf.strings.as_string(tf.cast(p["xf"], tf.bfloat16),
                                           precision=4),
      "as_i8": tf.strings.as_string(tf.constant([-128, 7, 127], tf.int8)),
      "roundtrip": tf.strings.to_number(tf.strings.as_string(p["xf"])),
      "b64": tf.io.encode_base64(tf.constant(
          ["hi there", "", "a", "ab", "abc", "\xff\xfe\xfd?>"])),
      "b64_pad": tf.io.encode_base64(tf.constant(
          ["hi there", "", "a", "ab", "abc", "\xff\xfe\xfd?>"]), pad=True),
      "b64_decode": tf.io.decode_base64(tf.constant(
          ["aGkgdGhlcmU", "YQ==", "YWI", "YWJj", "", "w7_DvsO9Pz4"])),
      "hash_fast": tf.strings.to_hash_bucket_fast(tf.constant(HASHED), 1000),
      "hash_fast_big": tf.strings.to_hash_bucket_fast(tf.constant(HASHED),
                                                      2 ** 62),
      "hash_fast_one": tf.strings.to_hash_bucket_fast(tf.constant(HASHED), 1),
      "hash_strong": tf.strings.to_hash_bucket_strong(tf.constant(HASHED),
                                                      1000, [1, 2]),
      "hash_legacy": tf.strings.to_hash_bucket(tf.constant(HASHED), 77),
      "hash_legacy_big": tf.strings.to_hash_bucket(tf.constant(HASHED),
                                                   2 ** 62),
      "fingerprint": tf.fingerprint(tf.constant(HASHED)),
      "fingerprint_rows": tf.fingerprint(tf.reshape(
          tf.constant(HASHED[:24]), [4, 3, 2])),
      "fingerprint_i32": tf.fingerprint(tf.reshape(
          tf.range(12, dtype=tf.int32), [3, 4])),
      "fingerprint_f64": tf.fingerprint(tf.constant([[0.5, -1.0], [3.0,
                                                                  1e-9]],
                                                    tf.float64)),
      "hash_strong_big": tf.strings.to_hash_bucket_strong(
          tf.constant(HASHED), 2 ** 63 - 1,
          [-8070450532247928832, 1234567890123456789]),
  }
  splits = {
      "split_v1": R.StringSplit(input=s, delimiter=" "),
      "split_v1_keep": R.StringSplit(input=s, delimiter=",", skip_empty=False),
      "split_v1_chars": R.StringSplit(input=tf.constant(["abc", "", "de"]),
                                      delimiter=""),
      "split_v1_anyof": R.StringSplit(input=s, delimiter="ol"),
      "split_v2_ws": R.StringSplitV2(input=s, sep=""),
      "split_v2_sep": R.StringSplitV2(input=s, sep=","),
      "split_v2_multi": R.StringSplitV2(
          input=tf.constant(["a||b||||c", "||", "", "abc"]), sep="||"),
      "split_v2_max": R.StringSplitV2(input=s, sep=",", maxsplit=1),
      "split_v2_ws_max": R.StringSplitV2(
          input=tf.constant(["  a b  c ", "x", "   ", "p q"]), sep="",
          maxsplit=1),
      "split_empty": R.StringSplitV2(input=tf.constant([], tf.string),
                                     sep=","),
  }
  for name, (indices, values, shape) in splits.items():
    cases[name + "_indices"] = indices
    cases[name + "_values"] = values
    cases[name + "_shape"] = shape

  # Hash tables: filled by tables_initializer; lookups wait for it.
  keys = tf.constant(["apple", "banana", "cherry", "date"])
  string_to_int = tf.lookup.StaticHashTable(
      tf.lookup.KeyValueTensorInitializer(
          keys, tf.constant([10, 20, 30, -40], tf.int64)), -1)
  int_to_string = tf.lookup.StaticHashTable(
      tf.lookup.KeyValueTensorInitializer(
          tf.constant([0, 1, 2, 99], tf.int64), keys), "UNK")
  string_to_float = tf.lookup.StaticHashTable(
      tf.lookup.KeyValueTensorInitializer(
          keys, tf.constant([0.5, 1.5, -2.5, 1e-3], tf.float32)), -1.0)
  vocabulary = tf.lookup.StaticVocabularyTable(
      tf.lookup.KeyValueTensorInitializer(
          keys, tf.constant([0, 1, 2, 3], tf.int64)), 3)
  imported = R.HashTableV2(key_dtype=tf.int64, value_dtype=tf.float64,
                           shared_name="imported_table")
  import_op = R.LookupTableImportV2(
      table_handle=imported, keys=tf.constant([7, 8, 9], tf.int64),
      values=tf.constant([0.25, -1.0, 3.0], tf.float64))
  # Vocabulary files (feature columns' categorical_column_with_vocabulary_
  # file), named relative to the repository root, where the test runs.
  word_ids = tf.lookup.StaticHashTable(
      tf.lookup.TextFileInitializer(
          WORDS_FILE, tf.string, tf.lookup.TextFileIndex.WHOLE_LINE,
          tf.int64, tf.lookup.TextFileIndex.LINE_NUMBER), -1)
  word_weights = tf.lookup.StaticHashTable(
      tf.lookup.TextFileInitializer(
          WEIGHTS_FILE, tf.string, 0, tf.float32, 1, delimiter=" "), -2.0)
  first_two = tf.lookup.StaticHashTable(
      tf.lookup.TextFileInitializer(
          WEIGHTS_FILE, tf.int64, tf.lookup.TextFileIndex.LINE_NUMBER,
          tf.string, tf.lookup.TextFileIndex.WHOLE_LINE, vocab_size=2), "")
  init = tf1.tables_initializer(name="tables_init")
  with tf.control_dependencies([init, import_op]):
    query = tf.identity(tf.constant([["banana", "kiwi"], ["apple", ""],
                                     ["date", "cherry"]]))
    ids = tf.identity(tf.constant([2, 0, 7, 99, -1], tf.int64))
    cases["table_size"] = string_to_int.size()
    cases["table_import_size"] = R.LookupTableSizeV2(table_handle=imported)
  cases["table_s2i"] = string_to_int.lookup(query)
  cases["table_i2s"] = int_to_string.lookup(ids)
  cases["table_s2f"] = string_to_float.lookup(query)
  cases["table_vocab"] = vocabulary.lookup(query)
  # Not ordered after the initializers: for the test that runs them on
  # their own first (string_ops_test's TablesKeepTheirContentsAcrossRuns).
  tf.identity(string_to_int.size(), name="unordered_table_size")
  cases["table_file_ids"] = word_ids.lookup(query)
  cases["table_file_weights"] = word_weights.lookup(query)
  cases["table_file_lines"] = first_two.lookup(ids)
  cases["table_import_find"] = R.LookupTableFindV2(
      table_handle=imported, keys=ids + 7,
      default_value=tf.constant(-9.0, tf.float64))
  return {k: tf.identity(v, name="out_" + k) for k, v in cases.items()}


# StringToNumber's edges: which strings TensorFlow parses, to what.
NUMBER_TEXTS = ["0x1A", "1,5", "", "+5", "1e", " inf ", "Infinity", "NaN",
                "1_000", "-0", "007", "12abc", "1e3", "+", "3.", "-.5e+2",
                "\t9\n", "1e-50", "-inf", "nan(123)", "99999999999999999999",
                "4294967296", "2147483648", "-2147483649", "0.1", "1e39",
                "-1e309", "9223372036854775807", "9223372036854775808",
                " 12 34", "1.5f", ".", "e5"]


def number_edges():
  """Lines '<dtype> x<hex> OK <value>' or '<dtype> x<hex> ERR'."""
  lines = []
  for dtype in [tf.float32, tf.float64, tf.int32, tf.int64]:
    for text in NUMBER_TEXTS:
      word = "x" + text.encode().hex()
      try:
        v = tf.strings.to_number(tf.constant([text]), dtype).numpy()[0]
        lines.append("%s %s OK %s" % (dtype.name, word, fmt(np.array([v]))))
      except tf.errors.InvalidArgumentError:
        lines.append("%s %s ERR" % (dtype.name, word))
  return lines


def main():
  os.makedirs(OUT, exist_ok=True)
  write_vocabularies()
  os.chdir(ROOT)  # the vocabulary files' names are relative to it
  g = tf.Graph()
  with g.as_default():
    p = {k: tf1.placeholder(tf.as_dtype(v.dtype), v.shape, name=k)
         for k, v in FEEDS.items()}
    outs = build(p)
    with tf1.Session() as s:
      values = s.run(outs, {p[k]: v for k, v in FEEDS.items()})
  with open(os.path.join(OUT, "graph.pb"), "wb") as f:
    f.write(g.as_graph_def().SerializeToString(deterministic=True))
  written = ("# Written by tools/tf_reference/make_string_ops_reference.py "
             "with TensorFlow %s." % tf.__version__)
  numbers, strings = [written], [written]
  for k, v in FEEDS.items():
    numbers.append("%s | %s" % (head("feed", k, v), fmt(v)))
  for k in sorted(values):
    v = np.asarray(values[k])
    if v.dtype.kind in "OS":
      strings.append("%s | %s" % (
          head("fetch", "out_" + k, v, "string"),
          " ".join("x" + bytes(e).hex() for e in v.flat)))
    else:
      numbers.append("%s | %s" % (head("fetch", "out_" + k, v), fmt(v)))
  with open(os.path.join(OUT, "cases.txt"), "w") as f:
    f.write("\n".join(numbers) + "\n")
  with open(os.path.join(OUT, "strings.txt"), "w") as f:
    f.write("\n".join(strings) + "\n")
  with open(os.path.join(OUT, "to_number.txt"), "w") as f:
    f.write("\n".join([written] + number_edges()) + "\n")
  print("wrote", OUT, len(values), "fetches")


if __name__ == "__main__":
  main()
