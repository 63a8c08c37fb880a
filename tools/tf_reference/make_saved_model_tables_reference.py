#!/usr/bin/env python3
"""TensorFlow-written SavedModels with lookup tables and asset files, for
tests/runtime/saved_model_tables_test.cc.

Rerun from the repository root (TensorFlow 2.21 and tf_keras from PyPI):

    python3 tools/tf_reference/make_saved_model_tables_reference.py

Writes tests/testdata/tf_saved_model_tables/<model>/ (the SavedModel) and,
per signature call, <model>.<signature>.in.<key>.npy (the inputs) and
<model>.<signature>.out.<key>.npy (TensorFlow's outputs):

vocab_asset
    tf.saved_model.save of a tf.Module whose StaticVocabularyTable reads a
    vocabulary file; the file is an asset (assets/vocab.txt) and the
    original is deleted after saving, so only the SavedModel's copy can be
    read. Signature serving_default: words [?] string -> ids int64.
tf1_vocab_asset
    The TF1 SavedModelBuilder with the same kind of table
    (tf.compat.v1.lookup.StaticVocabularyTable over a TextFileInitializer),
    the vocabulary in assets_collection, tables_initializer as main op.
text_vectorization
    A Keras 2 model (tf_keras) of TextVectorization (adapted: a
    MutableHashTableV2 restored from the checkpoint with
    LookupTableImportV2), Embedding and Dense: text [?,1] string ->
    output_0 float32 [?,2].
mutable_tables
    A tf.Module with tf.lookup.experimental.MutableHashTable of scalars
    (string -> int64) and of vectors (int64 -> float32 [3],
    MutableHashTableOfTensorsV2), and a DenseHashTable
    (MutableDenseHashTableV2, whose checkpoint holds all its buckets, the
    unused ones under the empty and deleted keys), filled in the module
    before saving (the checkpoint holds them). Signatures: lookup (find, size), update (insert
    then remove, then find and export what is left).
"""
import os
import shutil

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402

OUT = "tests/testdata/tf_saved_model_tables"
v1 = tf.compat.v1


def fresh(name):
    d = os.path.join(OUT, name)
    shutil.rmtree(d, ignore_errors=True)
    return d


def write_calls(name, d, calls):
    loaded = tf.saved_model.load(d)
    for sig, feeds in calls:
        for k, v in feeds.items():
            np.save(os.path.join(OUT, "%s.%s.in.%s.npy" % (name, sig, k)), v)
        out = loaded.signatures[sig](**{k: tf.constant(v) for k, v in feeds.items()})
        for k, v in out.items():
            v = v.numpy()
            if v.dtype == object:  # strings: bytes, which .npy keeps as "S"
                v = v.astype(bytes)
            np.save(os.path.join(OUT, "%s.%s.out.%s.npy" % (name, sig, k)), v)


def vocab_asset():
    d = fresh("vocab_asset")
    vocab = os.path.join(OUT, "vocab.txt")
    with open(vocab, "w") as f:
        f.write("the\nquick\nbrown\nfox\njumps\n")

    class M(tf.Module):
        def __init__(self):
            init = tf.lookup.TextFileInitializer(
                vocab, tf.string, tf.lookup.TextFileIndex.WHOLE_LINE,
                tf.int64, tf.lookup.TextFileIndex.LINE_NUMBER)
            self.table = tf.lookup.StaticVocabularyTable(init, num_oov_buckets=3)

        @tf.function(input_signature=[tf.TensorSpec([None], tf.string)])
        def ids(self, words):
            return {"ids": self.table.lookup(words)}

    m = M()
    tf.saved_model.save(m, d, signatures=m.ids)
    os.remove(vocab)
    write_calls("vocab_asset", d, [
        ("serving_default", {"words": np.array([b"fox", b"lazy", b"the", b"dog", b"jumps"])})])


def tf1_vocab_asset():
    d = fresh("tf1_vocab_asset")
    vocab = os.path.join(OUT, "words.txt")
    with open(vocab, "w") as f:
        f.write("alpha\nbeta\ngamma\n")
    g = tf.Graph()
    with g.as_default():
        word = v1.placeholder(tf.string, [None], name="word")
        table = v1.lookup.StaticVocabularyTable(
            v1.lookup.TextFileInitializer(vocab, tf.string, -2, tf.int64, -1),
            num_oov_buckets=2)
        ids = table.lookup(word)
        with v1.Session(graph=g) as sess:
            sess.run(v1.tables_initializer())
            b = v1.saved_model.Builder(d)
            sig = v1.saved_model.predict_signature_def({"word": word}, {"ids": ids})
            b.add_meta_graph_and_variables(
                sess, ["serve"], signature_def_map={"serving_default": sig},
                main_op=v1.tables_initializer(),
                assets_collection=v1.get_collection(v1.GraphKeys.ASSET_FILEPATHS))
            b.save()
    os.remove(vocab)
    write_calls("tf1_vocab_asset", d, [
        ("serving_default", {"word": np.array([b"gamma", b"delta", b"alpha"])})])


def text_vectorization():
    import tf_keras as k
    d = fresh("text_vectorization")
    tf.random.set_seed(6)
    tv = k.layers.TextVectorization(max_tokens=30, output_sequence_length=6)
    tv.adapt(["the quick brown fox", "jumps over the lazy dog", "the dog barks"])
    inp = k.Input((1,), dtype=tf.string, name="text")
    h = k.layers.Embedding(30, 4)(tv(inp))
    out = k.layers.Dense(2)(k.layers.GlobalAveragePooling1D()(h))
    k.Model(inp, out).save(d, save_format="tf")
    write_calls("text_vectorization", d, [
        ("serving_default", {"text": np.array([[b"the lazy fox"], [b"a dog jumps high"]])})])


def mutable_tables():
    d = fresh("mutable_tables")

    class M(tf.Module):
        def __init__(self):
            self.words = tf.lookup.experimental.MutableHashTable(tf.string, tf.int64, -1)
            self.vectors = tf.lookup.experimental.MutableHashTable(
                tf.int64, tf.float32, [0.0, 0.0, -1.0])
            self.words.insert(tf.constant(["red", "green", "blue"]), tf.constant([7, 8, 9], tf.int64))
            self.vectors.insert(tf.constant([10, 20], tf.int64),
                                tf.constant([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]))
            self.dense = tf.lookup.experimental.DenseHashTable(
                tf.int64, tf.float32, default_value=-1.0, empty_key=-1, deleted_key=-2,
                initial_num_buckets=8)
            self.dense.insert(tf.constant([3, 5, 8], tf.int64), tf.constant([0.5, 1.5, 2.5]))
            self.dense.remove(tf.constant([5], tf.int64))

        @tf.function(input_signature=[tf.TensorSpec([None], tf.string),
                                      tf.TensorSpec([None], tf.int64)])
        def lookup(self, words, keys):
            return {"word_ids": self.words.lookup(words), "size": self.words.size(),
                    "vectors": self.vectors.lookup(keys),
                    "dense": self.dense.lookup(keys // 4), "dense_size": self.dense.size()}

        @tf.function(input_signature=[tf.TensorSpec([None], tf.string),
                                      tf.TensorSpec([None], tf.int64),
                                      tf.TensorSpec([None], tf.string)])
        def update(self, words, ids, gone):
            with tf.control_dependencies([self.words.insert(words, ids)]):
                with tf.control_dependencies([self.words.remove(gone)]):
                    keys, values = self.words.export()
                    order = tf.argsort(values)
                    return {"found": self.words.lookup(tf.constant(["red", "green", "blue", "pink"])),
                            "size": self.words.size(),
                            "keys": tf.gather(keys, order),
                            "values": tf.gather(values, order)}

    m = M()
    tf.saved_model.save(m, d, signatures={"lookup": m.lookup, "update": m.update})
    write_calls("mutable_tables", d, [
        ("lookup", {"words": np.array([b"blue", b"black", b"red"]),
                    "keys": np.array([20, 30, 10, 12, 33], np.int64)}),
        ("update", {"words": np.array([b"pink", b"red"]), "ids": np.array([3, 70], np.int64),
                    "gone": np.array([b"green", b"nothere"])}),
    ])


def main():
    os.makedirs(OUT, exist_ok=True)
    vocab_asset()
    tf1_vocab_asset()
    text_vectorization()
    mutable_tables()
    # Fingerprints and Keras metadata change every run and dflow reads
    # neither: drop them to keep the files small and reproducible.
    for root, _, files in os.walk(OUT):
        for f in files:
            if f in ("fingerprint.pb", "keras_metadata.pb"):
                os.remove(os.path.join(root, f))


if __name__ == "__main__":
    main()
