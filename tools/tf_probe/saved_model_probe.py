"""SavedModels TensorFlow wrote, served by dflow: a corpus of exports.

Each case writes a SavedModel with TensorFlow 2.21 the way its users do
(`tf.saved_model.save` of a tf.Module or of a Keras 2 model,
`model.save(save_format="tf")`, Keras 3's `model.export`, the TF1
`SavedModelBuilder` with a main op), calls its signatures in TensorFlow
(`tf.saved_model.load(dir).signatures[key]`) and runs each signature with
`dflow run --saved_model DIR --signature KEY --feed k=x.npy ... --out OUT`,
comparing every output (floats within 1e-5 relative / 1e-5 absolute unless
the case says otherwise, the rest exactly). SavedModels differ from the
graph probes: the graph is a function library called through
StatefulPartitionedCall, variables come from an object-based checkpoint,
tables are initialized by an init op from asset files, signatures name
their own tensors.

    python3 tools/tf_probe/saved_model_probe.py [case ...]  # report in /tmp/smprobe

Uses `bazel-bin/tools/dflow` (or `$DFLOW`).
"""
import os
import shutil
import subprocess
import sys
import time
import traceback

import numpy as np

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
import tensorflow as tf  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DFLOW = os.environ.get("DFLOW", os.path.join(ROOT, "bazel-bin/tools/dflow"))
PROBE_DIR = os.environ.get("PROBE_DIR", "/tmp/smprobe")
CASES = {}


def case(name, tol=(1e-5, 1e-5), signatures=None):
    """Registers a case: fn(export_dir) saves a SavedModel there and returns
    {signature_key: {input_key: np.ndarray}}."""
    def wrap(fn):
        CASES[name] = (fn, tol)
        return fn
    return wrap


def rng(seed=0):
    return np.random.default_rng(seed)


def f32(*shape, seed=0, lo=-1.0, hi=1.0):
    return rng(seed).uniform(lo, hi, shape).astype(np.float32)


def keras2():
    import tf_keras
    return tf_keras


# ------------------------------------------------------------ tf.Module
@case("module_dense_softmax")
def _(d):
    class M(tf.Module):
        def __init__(self):
            self.w = tf.Variable(tf.random.stateless_normal([6, 4], [1, 2]))
            self.b = tf.Variable(tf.random.stateless_normal([4], [3, 4]))

        @tf.function(input_signature=[tf.TensorSpec([None, 6], tf.float32)])
        def __call__(self, x):
            return {"probs": tf.nn.softmax(tf.matmul(x, self.w) + self.b)}

    m = M()
    tf.saved_model.save(m, d, signatures=m.__call__)
    return {"serving_default": {"x": f32(3, 6)}}


@case("module_multiple_signatures")
def _(d):
    class M(tf.Module):
        def __init__(self):
            self.scale = tf.Variable(2.5)
            self.table = tf.Variable([[1.0, -2.0], [0.5, 4.0]])

        @tf.function(input_signature=[tf.TensorSpec([None], tf.float32)])
        def scaled(self, x):
            return {"y": x * self.scale, "sum": tf.reduce_sum(x)}

        @tf.function(input_signature=[tf.TensorSpec([2, 2], tf.float32),
                                      tf.TensorSpec([], tf.int32)])
        def power(self, a, n):
            r = tf.eye(2)
            for _ in tf.range(n):
                r = tf.matmul(r, a + self.table)
            return {"out": r}

    m = M()
    tf.saved_model.save(m, d, signatures={"scaled": m.scaled, "power": m.power})
    return {"scaled": {"x": f32(7)},
            "power": {"a": f32(2, 2, seed=1), "n": np.array(3, np.int32)}}


@case("module_cond_while")
def _(d):
    class M(tf.Module):
        def __init__(self):
            self.v = tf.Variable(tf.random.stateless_uniform([5], [5, 6]))

        @tf.function(input_signature=[tf.TensorSpec([None, 5], tf.float32),
                                      tf.TensorSpec([], tf.bool)])
        def run(self, x, flag):
            y = tf.cond(flag, lambda: x * self.v, lambda: x - self.v)
            i = tf.constant(0)
            acc = tf.zeros_like(y)
            while i < 4:
                acc = acc + tf.tanh(y * tf.cast(i, tf.float32))
                i += 1
            ta = tf.TensorArray(tf.float32, size=0, dynamic_size=True)
            for j in tf.range(tf.shape(x)[0]):
                ta = ta.write(j, tf.reduce_max(acc[j]))
            return {"acc": acc, "rowmax": ta.stack()}

    m = M()
    tf.saved_model.save(m, d, signatures=m.run)
    return {"serving_default": {"x": f32(3, 5), "flag": np.array(True)}}


@case("module_int_string_outputs")
def _(d):
    class M(tf.Module):
        @tf.function(input_signature=[tf.TensorSpec([None], tf.string),
                                      tf.TensorSpec([None], tf.int64)])
        def run(self, words, ids):
            upper = tf.strings.upper(words)
            joined = tf.strings.reduce_join(words, separator="+")
            lens = tf.strings.length(words)
            h = tf.strings.to_hash_bucket_fast(words, 100)
            return {"upper": upper, "joined": joined, "lens": lens,
                    "hash": h, "ids2": ids * 2 + tf.cast(lens, tf.int64)}

    m = M()
    tf.saved_model.save(m, d, signatures=m.run)
    return {"serving_default": {
        "words": np.array([b"apple", b"Banana", b"kiwi"]),
        "ids": np.array([1, 5, -3], np.int64)}}


@case("module_stateful_counter")
def _(d):
    class M(tf.Module):
        def __init__(self):
            self.count = tf.Variable(10, dtype=tf.int64)
            self.total = tf.Variable(0.0)

        @tf.function(input_signature=[tf.TensorSpec([None], tf.float32)])
        def step(self, x):
            self.count.assign_add(1)
            self.total.assign_add(tf.reduce_sum(x))
            return {"count": self.count.read_value(), "total": self.total.read_value()}

    m = M()
    tf.saved_model.save(m, d, signatures=m.step)
    return {"serving_default": {"x": f32(4)}}


@case("module_static_hash_table")
def _(d):
    class M(tf.Module):
        def __init__(self):
            keys = tf.constant(["cat", "dog", "bird", "fish"])
            vals = tf.constant([3, 1, 4, 1], tf.int64)
            self.table = tf.lookup.StaticHashTable(
                tf.lookup.KeyValueTensorInitializer(keys, vals), default_value=-1)

        @tf.function(input_signature=[tf.TensorSpec([None], tf.string)])
        def lookup(self, k):
            return {"ids": self.table.lookup(k), "size": self.table.size()}

    m = M()
    tf.saved_model.save(m, d, signatures=m.lookup)
    return {"serving_default": {"k": np.array([b"dog", b"cow", b"fish", b"cat"])}}


@case("module_vocab_file_asset")
def _(d):
    vocab = os.path.join(os.path.dirname(d), "vocab_src.txt")
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
    os.remove(vocab)  # the SavedModel's assets/ copy must be what is read
    return {"serving_default": {"words": np.array([b"fox", b"lazy", b"the", b"dog", b"jumps"])}}


@case("module_batchless_scalar_io")
def _(d):
    class M(tf.Module):
        @tf.function(input_signature=[tf.TensorSpec([], tf.float64),
                                      tf.TensorSpec([], tf.int32)])
        def run(self, a, n):
            return {"poly": a ** 3 - 2.0 * a + tf.cast(n, tf.float64),
                    "range": tf.range(n) * 3,
                    "sorted": tf.sort(tf.constant([3.0, -1.0, 2.0]) * tf.cast(a, tf.float32))}

    m = M()
    tf.saved_model.save(m, d, signatures=m.run)
    return {"serving_default": {"a": np.array(1.5), "n": np.array(4, np.int32)}}


@case("module_nested_tf_functions")
def _(d):
    @tf.function
    def inner(x, w):
        return tf.nn.relu(tf.matmul(x, w))

    @tf.function
    def middle(x, w):
        return inner(x, w) + inner(-x, w)

    class M(tf.Module):
        def __init__(self):
            self.w = tf.Variable(tf.random.stateless_normal([3, 3], [9, 9]))

        @tf.function(input_signature=[tf.TensorSpec([None, 3], tf.float32)])
        def run(self, x):
            return {"y": middle(x, self.w) * 0.5}

    m = M()
    tf.saved_model.save(m, d, signatures=m.run)
    return {"serving_default": {"x": f32(4, 3)}}


@case("module_gradient_in_signature", tol=(1e-5, 1e-5))
def _(d):
    class M(tf.Module):
        def __init__(self):
            self.w = tf.Variable(tf.random.stateless_normal([4, 2], [2, 2]))

        @tf.function(input_signature=[tf.TensorSpec([None, 4], tf.float32),
                                      tf.TensorSpec([None], tf.int32)])
        def train(self, x, y):
            with tf.GradientTape() as tape:
                logits = tf.matmul(x, self.w)
                loss = tf.reduce_mean(
                    tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=logits))
            g = tape.gradient(loss, self.w)
            self.w.assign_sub(0.1 * g)
            return {"loss": loss, "grad": g, "w": self.w.read_value()}

    m = M()
    tf.saved_model.save(m, d, signatures=m.train)
    return {"serving_default": {"x": f32(5, 4), "y": np.array([0, 1, 1, 0, 1], np.int32)}}


@case("module_serving_tf_example")
def _(d):
    class M(tf.Module):
        def __init__(self):
            self.w = tf.Variable([[0.5], [-1.0], [2.0]])

        @tf.function(input_signature=[tf.TensorSpec([None], tf.string, name="examples")])
        def serve(self, serialized):
            feats = tf.io.parse_example(serialized, {
                "x": tf.io.FixedLenFeature([3], tf.float32),
                "country": tf.io.FixedLenFeature([], tf.string, default_value="none"),
                "age": tf.io.FixedLenFeature([], tf.int64, default_value=-1)})
            score = tf.matmul(feats["x"], self.w)[:, 0]
            return {"score": score, "country": feats["country"], "age": feats["age"] * 2}

    m = M()
    tf.saved_model.save(m, d, signatures=m.serve)

    def example(x, country=None, age=None):
        f = {"x": tf.train.Feature(float_list=tf.train.FloatList(value=x))}
        if country is not None:
            f["country"] = tf.train.Feature(bytes_list=tf.train.BytesList(value=[country]))
        if age is not None:
            f["age"] = tf.train.Feature(int64_list=tf.train.Int64List(value=[age]))
        return tf.train.Example(features=tf.train.Features(feature=f)).SerializeToString()

    # .npy strings (numpy "S") drop trailing NULs: no example may end in one.
    ex = np.array([example([1.0, 2.0, 3.0], b"fr", 31), example([0.5, -1.0, 0.25]),
                   example([2.0, 2.0, -2.0], b"jp")])
    return {"serving_default": {"examples": ex}}


@case("module_serving_jpeg_bytes", tol=(1e-5, 1e-5))
def _(d):
    class M(tf.Module):
        def __init__(self):
            self.w = tf.Variable(tf.random.stateless_normal([3, 2], [4, 4]))

        @tf.function(input_signature=[tf.TensorSpec([], tf.string)])
        def serve(self, jpeg):
            img = tf.image.decode_jpeg(jpeg, channels=3)
            img = tf.image.convert_image_dtype(img, tf.float32)
            img = tf.image.resize(img, [8, 8])
            pooled = tf.reduce_mean(img, axis=[0, 1])
            return {"logits": tf.linalg.matvec(self.w, pooled, transpose_a=True),
                    "shape": tf.shape(img)}

    m = M()
    tf.saved_model.save(m, d, signatures=m.serve)
    pix = (np.arange(12 * 10 * 3) % 251).astype(np.uint8).reshape(12, 10, 3)
    jpeg = tf.io.encode_jpeg(pix, quality=90).numpy()
    return {"serving_default": {"jpeg": np.array(jpeg)}}


@case("module_postprocessing_ops")
def _(d):
    class M(tf.Module):
        @tf.function(input_signature=[tf.TensorSpec([None, 6], tf.float32),
                                      tf.TensorSpec([None], tf.int32)])
        def post(self, scores, segments):
            top = tf.math.top_k(scores, k=3)
            mask = scores > 0.2
            return {"top_values": top.values, "top_indices": top.indices,
                    "argmax": tf.argmax(scores, axis=1),
                    "where": tf.where(mask),
                    "masked": tf.boolean_mask(scores, mask),
                    "segsum": tf.math.unsorted_segment_sum(scores, segments, 3),
                    "cumsum": tf.cumsum(scores, axis=1, reverse=True),
                    "onehot": tf.one_hot(segments, 3),
                    "gathered": tf.gather_nd(scores, tf.stack([tf.range(tf.shape(scores)[0]), segments], 1))}

    m = M()
    tf.saved_model.save(m, d, signatures=m.post)
    return {"serving_default": {"scores": f32(4, 6), "segments": np.array([2, 0, 1, 2], np.int32)}}


@case("module_jit_compile_and_einsum")
def _(d):
    class M(tf.Module):
        def __init__(self):
            self.k = tf.Variable(tf.random.stateless_normal([4, 3, 5], [7, 1]))

        @tf.function(input_signature=[tf.TensorSpec([None, 4, 3], tf.float32)], jit_compile=True)
        def run(self, x):
            y = tf.einsum("bij,ijk->bk", x, self.k)
            return {"y": tf.nn.gelu(y), "norm": tf.linalg.norm(y, axis=-1)}

    m = M()
    tf.saved_model.save(m, d, signatures=m.run)
    return {"serving_default": {"x": f32(2, 4, 3)}}


@case("module_spectral_and_linalg", tol=(1e-4, 1e-5))
def _(d):
    class M(tf.Module):
        @tf.function(input_signature=[tf.TensorSpec([None, 64], tf.float32),
                                      tf.TensorSpec([3, 3], tf.float64)])
        def run(self, wave, a):
            stft = tf.signal.stft(wave, frame_length=16, frame_step=8)
            spd = tf.matmul(a, a, transpose_b=True) + tf.eye(3, dtype=tf.float64)
            return {"mag": tf.abs(stft), "chol": tf.linalg.cholesky(spd),
                    "inv": tf.linalg.inv(spd), "det": tf.linalg.det(spd),
                    "solve": tf.linalg.solve(spd, a)}

    m = M()
    tf.saved_model.save(m, d, signatures=m.run)
    return {"serving_default": {"wave": f32(2, 64), "a": f32(3, 3).astype(np.float64)}}


@case("module_random_generator")
def _(d):
    class M(tf.Module):
        def __init__(self):
            self.gen = tf.random.Generator.from_seed(1234)

        @tf.function(input_signature=[tf.TensorSpec([None, 4], tf.float32)])
        def noisy(self, x):
            return {"stateless": x + tf.random.stateless_uniform(tf.shape(x), seed=[3, 4]),
                    "gen": x + self.gen.normal(tf.shape(x))}

    m = M()
    tf.saved_model.save(m, d, signatures=m.noisy)
    return {"serving_default": {"x": f32(3, 4)}}


@case("module_detection_postprocess")
def _(d):
    class M(tf.Module):
        @tf.function(input_signature=[tf.TensorSpec([None, 4], tf.float32),
                                      tf.TensorSpec([None], tf.float32),
                                      tf.TensorSpec([1, None, 1, 4], tf.float32),
                                      tf.TensorSpec([1, None, 3], tf.float32)])
        def detect(self, boxes, scores, batch_boxes, batch_scores):
            keep = tf.image.non_max_suppression(boxes, scores, 3, iou_threshold=0.5)
            sel, sc = tf.image.non_max_suppression_with_scores(boxes, scores, 4, soft_nms_sigma=0.5)
            comb = tf.image.combined_non_max_suppression(batch_boxes, batch_scores, 3, 5)
            return {"keep": keep, "soft_sel": sel, "soft_scores": sc,
                    "nmsed_boxes": comb.nmsed_boxes, "nmsed_scores": comb.nmsed_scores,
                    "nmsed_classes": comb.nmsed_classes, "valid": comb.valid_detections,
                    "crops": tf.image.crop_and_resize(tf.ones([1, 8, 8, 1]) * tf.reshape(scores[:1], [1, 1, 1, 1]),
                                                      boxes, tf.zeros([tf.shape(boxes)[0]], tf.int32), [3, 3])}

    m = M()
    tf.saved_model.save(m, d, signatures=m.detect)
    b = np.array([[0, 0, 1, 1], [0, 0.1, 1, 1.1], [0, -0.1, 1, 0.9], [0, 10, 1, 11], [0, 10.1, 1, 11.1],
                  [0, 100, 1, 101]], np.float32) / 101.0
    return {"serving_default": {"boxes": b, "scores": np.array([.9, .75, .6, .95, .5, .3], np.float32),
                                "batch_boxes": b[None, :, None, :],
                                "batch_scores": f32(1, 6, 3, lo=0, hi=1)}}


@case("module_map_fn_and_vectorized_map")
def _(d):
    class M(tf.Module):
        def __init__(self):
            self.w = tf.Variable(tf.random.stateless_normal([3, 3], [1, 5]))

        @tf.function(input_signature=[tf.TensorSpec([None, 3], tf.float32)])
        def run(self, x):
            a = tf.map_fn(lambda r: tf.reduce_sum(tf.linalg.matvec(self.w, r) ** 2), x)
            b = tf.vectorized_map(lambda r: tf.nn.softmax(r * 2.0), x)
            c = tf.scan(lambda acc, r: acc + r, x)
            return {"a": a, "b": b, "c": c}

    m = M()
    tf.saved_model.save(m, d, signatures=m.run)
    return {"serving_default": {"x": f32(4, 3)}}


@case("module_fake_quant")
def _(d):
    class M(tf.Module):
        def __init__(self):
            self.lo = tf.Variable(-1.5)
            self.hi = tf.Variable(2.0)

        @tf.function(input_signature=[tf.TensorSpec([None, 4], tf.float32)])
        def run(self, x):
            return {"vars": tf.quantization.fake_quant_with_min_max_vars(x * 3, self.lo, self.hi, num_bits=8),
                    "args": tf.quantization.fake_quant_with_min_max_args(x, -1.0, 1.0, num_bits=4),
                    "per_channel": tf.quantization.fake_quant_with_min_max_vars_per_channel(
                        x, [-1.0, -0.5, -2.0, 0.0], [1.0, 0.5, 2.0, 1.0]),
                    "qdq": tf.quantization.quantize_and_dequantize_v2(x, -1.0, 1.0, range_given=True)}

    m = M()
    tf.saved_model.save(m, d, signatures=m.run)
    return {"serving_default": {"x": f32(3, 4)}}


@case("module_dense_hash_table")
def _(d):
    class M(tf.Module):
        def __init__(self):
            self.t = tf.lookup.experimental.DenseHashTable(
                tf.int64, tf.float32, default_value=-1.0, empty_key=-1, deleted_key=-2)
            self.t.insert(tf.constant([3, 5, 8], tf.int64), tf.constant([0.5, 1.5, 2.5]))

        @tf.function(input_signature=[tf.TensorSpec([None], tf.int64)])
        def find(self, k):
            return {"v": self.t.lookup(k), "size": self.t.size()}

    m = M()
    tf.saved_model.save(m, d, signatures=m.find)
    return {"serving_default": {"k": np.array([5, 4, 3, 8], np.int64)}}


@case("module_int_to_string_table_and_bool_var")
def _(d):
    class M(tf.Module):
        def __init__(self):
            self.names = tf.lookup.StaticHashTable(
                tf.lookup.KeyValueTensorInitializer(tf.constant([0, 1, 2], tf.int64),
                                                    tf.constant(["zero", "one", "two"])), "many")
            self.flag = tf.Variable(True)
            self.label = tf.Variable("model-a")

        @tf.function(input_signature=[tf.TensorSpec([None], tf.int64)])
        def name(self, k):
            return {"names": self.names.lookup(k), "flag": tf.logical_not(self.flag),
                    "label": tf.strings.join([self.label, "!"])}

    m = M()
    tf.saved_model.save(m, d, signatures=m.name)
    return {"serving_default": {"k": np.array([2, 7, 0], np.int64)}}


@case("module_tf_data_in_signature")
def _(d):
    class M(tf.Module):
        @tf.function(input_signature=[tf.TensorSpec([None], tf.float32)])
        def run(self, x):
            ds = tf.data.Dataset.from_tensor_slices(x).map(lambda v: v * 2.0).filter(lambda v: v > 0).batch(2)
            total = ds.reduce(tf.constant(0.0), lambda acc, b: acc + tf.reduce_sum(b))
            return {"total": total}

    m = M()
    tf.saved_model.save(m, d, signatures=m.run)
    return {"serving_default": {"x": f32(7)}}


# ------------------------------------------------------------- Keras 2
def _keras_save(model, d):
    model.save(d, save_format="tf")


@case("keras2_sequential_mlp")
def _(d):
    k = keras2()
    tf.random.set_seed(1)
    m = k.Sequential([k.layers.Dense(16, activation="relu", input_shape=(8,)),
                      k.layers.Dropout(0.3),
                      k.layers.Dense(3, activation="softmax")])
    _keras_save(m, d)
    return {"serving_default": {"dense_input": f32(4, 8)}}


@case("keras2_functional_multi_io")
def _(d):
    k = keras2()
    tf.random.set_seed(2)
    a = k.Input((5,), name="a")
    b = k.Input((3,), name="b")
    h = k.layers.Concatenate()([k.layers.Dense(4)(a), b])
    h = k.layers.BatchNormalization()(h)
    o1 = k.layers.Dense(2, name="score")(h)
    o2 = k.layers.Dense(1, activation="sigmoid", name="prob")(h)
    m = k.Model([a, b], [o1, o2])
    m.compile(optimizer="adam", loss=["mse", "binary_crossentropy"])
    m.fit([f32(16, 5), f32(16, 3, seed=1)], [f32(16, 2, seed=2), (f32(16, 1, seed=3) > 0).astype(np.float32)],
          epochs=2, verbose=0)
    _keras_save(m, d)
    return {"serving_default": {"a": f32(3, 5, seed=4), "b": f32(3, 3, seed=5)}}


@case("keras2_cnn", tol=(1e-4, 1e-5))
def _(d):
    k = keras2()
    tf.random.set_seed(3)
    L = k.layers
    m = k.Sequential([
        L.Conv2D(8, 3, padding="same", activation="relu", input_shape=(16, 16, 3)),
        L.BatchNormalization(),
        L.MaxPooling2D(),
        L.SeparableConv2D(8, 3, activation="relu"),
        L.DepthwiseConv2D(3, padding="same"),
        L.AveragePooling2D(),
        L.Flatten(),
        L.Dense(10),
        L.Softmax()])
    _keras_save(m, d)
    return {"serving_default": {"conv2d_input": f32(2, 16, 16, 3)}}


@case("keras2_lstm_gru", tol=(1e-4, 1e-5))
def _(d):
    k = keras2()
    tf.random.set_seed(4)
    L = k.layers
    inp = k.Input((7, 4), name="seq")
    h = L.LSTM(6, return_sequences=True)(inp)
    h = L.GRU(5)(h)
    out = L.Dense(2)(h)
    m = k.Model(inp, out)
    _keras_save(m, d)
    return {"serving_default": {"seq": f32(3, 7, 4)}}


@case("keras2_bidirectional_masked_rnn", tol=(1e-4, 1e-5))
def _(d):
    k = keras2()
    tf.random.set_seed(5)
    L = k.layers
    inp = k.Input((None,), dtype="int32", name="tokens")
    e = L.Embedding(20, 6, mask_zero=True)(inp)
    h = L.Bidirectional(L.LSTM(4))(e)
    out = L.Dense(1)(h)
    m = k.Model(inp, out)
    _keras_save(m, d)
    return {"serving_default": {"tokens": np.array([[3, 5, 7, 0, 0], [1, 2, 3, 4, 5]], np.int32)}}


@case("keras2_text_vectorization", tol=(1e-5, 1e-5))
def _(d):
    k = keras2()
    tf.random.set_seed(6)
    L = k.layers
    tv = L.TextVectorization(max_tokens=30, output_sequence_length=6)
    tv.adapt(["the quick brown fox", "jumps over the lazy dog", "the dog barks"])
    inp = k.Input((1,), dtype=tf.string, name="text")
    h = tv(inp)
    h = L.Embedding(30, 4)(h)
    h = L.GlobalAveragePooling1D()(h)
    out = L.Dense(2)(h)
    m = k.Model(inp, out)
    _keras_save(m, d)
    return {"serving_default": {"text": np.array([[b"the lazy fox"], [b"a dog jumps high"]])}}


@case("keras2_string_lookup_category", tol=(1e-5, 1e-5))
def _(d):
    k = keras2()
    L = k.layers
    inp = k.Input((None,), dtype=tf.string, name="cats")
    sl = L.StringLookup(vocabulary=["red", "green", "blue"], num_oov_indices=1)
    ids = sl(inp)
    hot = L.CategoryEncoding(num_tokens=4, output_mode="multi_hot")(ids)
    num = k.Input((3,), name="num")
    norm = L.Normalization(mean=[1.0, 2.0, 3.0], variance=[4.0, 1.0, 0.25])(num)
    out = L.Concatenate()([hot, norm, tf.cast(ids, tf.float32)[:, :1]])
    m = k.Model([inp, num], out)
    _keras_save(m, d)
    return {"serving_default": {"cats": np.array([[b"red", b"blue"], [b"pink", b"green"]]),
                                "num": f32(2, 3)}}


@case("keras2_attention_layernorm", tol=(1e-4, 1e-5))
def _(d):
    k = keras2()
    tf.random.set_seed(7)
    L = k.layers
    inp = k.Input((6, 8), name="x")
    a = L.MultiHeadAttention(num_heads=2, key_dim=4)(inp, inp)
    h = L.LayerNormalization()(inp + a)
    h = L.Dense(8, activation="gelu")(h)
    out = L.GlobalMaxPooling1D()(h)
    m = k.Model(inp, out)
    _keras_save(m, d)
    return {"serving_default": {"x": f32(2, 6, 8)}}


@case("keras2_mobilenet_v2", tol=(1e-3, 1e-4))
def _(d):
    k = keras2()
    tf.random.set_seed(8)
    m = k.applications.MobileNetV2(input_shape=(32, 32, 3), alpha=0.35, weights=None, classes=5)
    _keras_save(m, d)
    return {"serving_default": {"input_1": f32(1, 32, 32, 3, lo=0, hi=1)}}


@case("keras2_subclassed_model")
def _(d):
    k = keras2()
    tf.random.set_seed(9)

    class Net(k.Model):
        def __init__(self):
            super().__init__()
            self.d1 = k.layers.Dense(8, activation="elu")
            self.d2 = k.layers.Dense(3)

        def call(self, x, training=False):
            h = self.d1(x)
            if training:
                h = tf.nn.dropout(h, 0.5)
            return {"logits": self.d2(h), "norm": tf.norm(h, axis=1)}

    m = Net()
    m(f32(1, 4))
    sig = tf.function(lambda x: m(x), input_signature=[tf.TensorSpec([None, 4], tf.float32)])
    tf.saved_model.save(m, d, signatures=sig)
    return {"serving_default": {"x": f32(3, 4)}}


@case("keras2_trained_with_optimizer_conv1d")
def _(d):
    k = keras2()
    tf.random.set_seed(11)
    L = k.layers
    inp = k.Input((12,), dtype="int32", name="ids")
    h = L.Embedding(50, 8)(inp)
    h = L.Conv1D(6, 3, activation="relu", padding="causal", dilation_rate=2)(h)
    h = L.GlobalMaxPooling1D()(h)
    out = L.Dense(3, activation="softmax")(h)
    m = k.Model(inp, out)
    m.compile(optimizer=k.optimizers.Adam(1e-2), loss="sparse_categorical_crossentropy")
    ids = rng(1).integers(0, 50, (32, 12)).astype(np.int32)
    m.fit(ids, rng(2).integers(0, 3, 32), epochs=2, verbose=0)
    _keras_save(m, d)
    return {"serving_default": {"ids": ids[:4]}}


@case("keras2_mixed_precision", tol=(1e-2, 1e-3))
def _(d):
    k = keras2()
    tf.random.set_seed(12)
    k.mixed_precision.set_global_policy("mixed_float16")
    try:
        inp = k.Input((10,), name="x")
        h = k.layers.Dense(16, activation="relu")(inp)
        h = k.layers.LayerNormalization()(h)
        out = k.layers.Dense(4, dtype="float32")(h)
        m = k.Model(inp, out)
        _keras_save(m, d)
    finally:
        k.mixed_precision.set_global_policy("float32")
    return {"serving_default": {"x": f32(3, 10)}}


@case("keras2_conv3d_upsampling", tol=(1e-4, 1e-5))
def _(d):
    k = keras2()
    tf.random.set_seed(13)
    L = k.layers
    inp = k.Input((6, 6, 6, 2), name="vol")
    h = L.Conv3D(3, 3, padding="same", activation="relu")(inp)
    h = L.MaxPooling3D(2)(h)
    h = L.UpSampling3D(2)(h)
    h = L.Conv3DTranspose(2, 3, strides=1, padding="same")(h)
    out = L.GlobalAveragePooling3D()(h)
    m = k.Model(inp, out)
    _keras_save(m, d)
    return {"serving_default": {"vol": f32(1, 6, 6, 6, 2)}}


# ------------------------------------------------------------- Keras 3
@case("keras3_export")
def _(d):
    import keras
    keras.utils.set_random_seed(10)
    inp = keras.Input((6,), name="features")
    h = keras.layers.Dense(12, activation="relu")(inp)
    h = keras.layers.BatchNormalization()(h)
    out = keras.layers.Dense(2, activation="softmax")(h)
    m = keras.Model(inp, out)
    m.export(d, verbose=False)
    return {"serving_default": {"features": f32(3, 6)}}


@case("keras3_export_lstm_lambda", tol=(1e-4, 1e-5))
def _(d):
    import keras
    keras.utils.set_random_seed(14)
    inp = keras.Input((5, 3), name="seq")
    h = keras.layers.LSTM(4, return_sequences=True)(inp)
    h = keras.layers.GRU(3)(h)
    out = keras.layers.Dense(2)(h)
    m = keras.Model(inp, out)
    m.export(d, verbose=False)
    return {"serving_default": {"seq": f32(2, 5, 3)}}


@case("keras2_uint8_image_rescaling", tol=(1e-4, 1e-5))
def _(d):
    k = keras2()
    tf.random.set_seed(15)
    L = k.layers
    inp = k.Input((10, 10, 3), dtype="uint8", name="image")
    h = L.Lambda(lambda t: tf.cast(t, tf.float32))(inp)
    h = L.Resizing(8, 8)(h)
    h = L.Rescaling(1 / 127.5, offset=-1)(h)
    h = L.Conv2D(4, 3, activation="swish")(h)
    h = L.GlobalAveragePooling2D()(h)
    out = L.Dense(3)(h)
    m = k.Model(inp, out)
    _keras_save(m, d)
    img = (np.arange(2 * 10 * 10 * 3) * 7 % 256).astype(np.uint8).reshape(2, 10, 10, 3)
    return {"serving_default": {"image": img}}


# ------------------------------------------------------------------ TF1
@case("tf1_builder_main_op_table")
def _(d):
    tf1 = tf.compat.v1
    g = tf.Graph()
    with g.as_default():
        x = tf1.placeholder(tf.float32, [None, 3], name="x")
        word = tf1.placeholder(tf.string, [None], name="word")
        w = tf1.get_variable("w", initializer=tf.constant([[1.0, 2.0], [3.0, -1.0], [0.5, 0.5]]))
        table = tf.lookup.StaticHashTable(
            tf.lookup.KeyValueTensorInitializer(["a", "b"], [7, 8], tf.string, tf.int64), -1)
        y = tf.matmul(x, w)
        ids = table.lookup(word)
        with tf1.Session(graph=g) as sess:
            sess.run(tf1.global_variables_initializer())
            b = tf1.saved_model.Builder(d)
            sig = tf1.saved_model.predict_signature_def({"x": x, "word": word}, {"y": y, "ids": ids})
            b.add_meta_graph_and_variables(sess, ["serve"], signature_def_map={"serving_default": sig},
                                           main_op=tf1.tables_initializer())
            b.save()
    return {"serving_default": {"x": f32(2, 3), "word": np.array([b"b", b"z", b"a"])}}


@case("tf1_builder_vocab_asset")
def _(d):
    tf1 = tf.compat.v1
    vocab = os.path.join(os.path.dirname(d), "words.txt")
    with open(vocab, "w") as f:
        f.write("alpha\nbeta\ngamma\n")
    g = tf.Graph()
    with g.as_default():
        word = tf1.placeholder(tf.string, [None], name="word")
        table = tf1.lookup.StaticVocabularyTable(
            tf1.lookup.TextFileInitializer(vocab, tf.string, -2, tf.int64, -1), num_oov_buckets=2)
        ids = table.lookup(word)
        with tf1.Session(graph=g) as sess:
            sess.run(tf1.tables_initializer())
            b = tf1.saved_model.Builder(d)
            sig = tf1.saved_model.predict_signature_def({"word": word}, {"ids": ids})
            b.add_meta_graph_and_variables(
                sess, ["serve"], signature_def_map={"serving_default": sig},
                main_op=tf1.tables_initializer(),
                assets_collection=tf1.get_collection(tf1.GraphKeys.ASSET_FILEPATHS))
            b.save()
    os.remove(vocab)
    return {"serving_default": {"word": np.array([b"gamma", b"delta", b"alpha"])}}


# ---------------------------------------------------------------- harness
def call_tf(d, sigs):
    loaded = tf.saved_model.load(d)
    want = {}
    for key, feeds in sigs.items():
        fn = loaded.signatures[key]
        out = fn(**{k: tf.constant(v) for k, v in feeds.items()})
        want[key] = {k: v.numpy() for k, v in out.items()}
    return want


def compare(got, want, tol):
    got, want = np.asarray(got), np.asarray(want)
    if got.dtype.kind in "SUO" or want.dtype.kind in "SUO":
        g = np.array([x.encode() if isinstance(x, str) else bytes(x) for x in got.ravel()])
        w = np.array([x.encode() if isinstance(x, str) else bytes(x) for x in want.ravel()])
        if got.shape != want.shape or not np.array_equal(g, w):
            return "strings differ: got %r want %r" % (got.ravel()[:6], want.ravel()[:6])
        return None
    if got.shape != want.shape:
        return "shape %s, want %s" % (got.shape, want.shape)
    if want.dtype.kind == "f":
        if not np.allclose(got.astype(np.float64), want.astype(np.float64), rtol=tol[0], atol=tol[1],
                           equal_nan=True):
            err = np.max(np.abs(got.astype(np.float64) - want.astype(np.float64)))
            return "max abs difference %g" % err
        return None
    if not np.array_equal(got, want):
        return "values differ: got %r want %r" % (got.ravel()[:8], want.ravel()[:8])
    return None


def run_case(name):
    fn, tol = CASES[name]
    base = os.path.join(PROBE_DIR, name)
    shutil.rmtree(base, ignore_errors=True)
    os.makedirs(base)
    d = os.path.join(base, "export")
    try:
        sigs = fn(d)
        want = call_tf(d, sigs)
    except Exception:  # noqa: BLE001 - the case's own TensorFlow failure
        return "tf-error", traceback.format_exc().splitlines()[-1]
    problems = []
    for key, feeds in sigs.items():
        out = os.path.join(base, "out_" + key)
        cmd = [DFLOW, "run", "--saved_model", d, "--signature", key, "--out", out]
        for k, v in feeds.items():
            path = os.path.join(base, "%s_%s.npy" % (key, k))
            np.save(path, v)
            cmd += ["--feed", "%s=%s" % (k, path)]
        for k in want[key]:
            cmd += ["--fetch", k]
        with open(os.path.join(base, "reproduce_%s.sh" % key), "w") as f:
            f.write(" ".join(cmd) + "\n")
        try:
            r = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
        except subprocess.TimeoutExpired:
            problems.append("%s: dflow timed out" % key)
            continue
        if r.returncode != 0:
            msg = (r.stderr.strip() or r.stdout.strip()).splitlines()
            problems.append("%s: dflow failed: %s" % (key, " | ".join(msg[-3:])))
            continue
        for k, w in want[key].items():
            p = os.path.join(out, k.replace("/", "_").replace(":", "_") + ".npy")
            if not os.path.exists(p):
                problems.append("%s/%s: no output written" % (key, k))
                continue
            bad = compare(np.load(p, allow_pickle=True), w, tol)
            if bad:
                problems.append("%s/%s: %s" % (key, k, bad))
    return ("ok", "") if not problems else ("wrong", "; ".join(problems))


def main(argv):
    names = argv or list(CASES)
    os.makedirs(PROBE_DIR, exist_ok=True)
    results = []
    for n in names:
        t = time.time()
        status, detail = run_case(n)
        results.append((n, status, detail))
        print("%-36s %-8s %5.1fs %s" % (n, status, time.time() - t, detail[:300]), flush=True)
    ok = sum(1 for r in results if r[1] == "ok")
    with open(os.path.join(PROBE_DIR, "REPORT.md"), "w") as f:
        f.write("# SavedModel probe: %d of %d pass\n\n" % (ok, len(results)))
        for n, s, dt in results:
            f.write("- %s: %s %s\n" % (n, s, dt))
    print("%d of %d pass" % (ok, len(results)))
    return 0 if ok == len(results) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
