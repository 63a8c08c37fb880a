"""dflow.Session from Python: dtypes, fetch structures, feeds, errors,
options, lifetime. Graphs are GraphDef text built here (no TensorFlow)."""
import os
import tempfile
import unittest

import numpy as np

import dflow
import junit_main

# dflow dtype -> NumPy dtype (None: bfloat16, from ml_dtypes when present).
DTYPES = {
    "DT_FLOAT": np.float32, "DT_DOUBLE": np.float64, "DT_HALF": np.float16,
    "DT_BFLOAT16": None, "DT_INT8": np.int8, "DT_INT16": np.int16,
    "DT_INT32": np.int32, "DT_INT64": np.int64, "DT_UINT8": np.uint8,
    "DT_UINT16": np.uint16, "DT_UINT32": np.uint32, "DT_UINT64": np.uint64,
    "DT_BOOL": np.bool_, "DT_COMPLEX64": np.complex64,
    "DT_COMPLEX128": np.complex128, "DT_STRING": object,
}


def placeholder(name, dtype, shape=None):
    shape_attr = ""
    if shape is not None:
        dims = " ".join(f"dim {{ size: {d} }}" for d in shape)
        shape_attr = f' attr {{ key: "shape" value {{ shape {{ {dims} }} }} }}'
    return (f'node {{ name: "{name}" op: "Placeholder" attr {{ key: "dtype" '
            f'value {{ type: {dtype} }} }}{shape_attr} }}\n')


def identity(name, input_name, dtype):
    return (f'node {{ name: "{name}" op: "Identity" input: "{input_name}" '
            f'attr {{ key: "T" value {{ type: {dtype} }} }} }}\n')


def identity_graph():
    """x_<DT> -> y_<DT> for every dtype."""
    text = ""
    for dt in DTYPES:
        text += placeholder("x_" + dt, dt) + identity("y_" + dt, "x_" + dt, dt)
    return text.encode()


# y = x * 2 + 1 on float32 [2]; a variable v with an assign op (no outputs
# fetched as an op: NoOp "step" depends on it).
ARITH = (placeholder("x", "DT_FLOAT", [2]) + """
node { name: "two" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } }
  attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape { } float_val: 2 } } } }
node { name: "one" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } }
  attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape { } float_val: 1 } } } }
node { name: "mul" op: "Mul" input: "x" input: "two" attr { key: "T" value { type: DT_FLOAT } } }
node { name: "y" op: "AddV2" input: "mul" input: "one" attr { key: "T" value { type: DT_FLOAT } } }
node { name: "v" op: "VariableV2" attr { key: "dtype" value { type: DT_FLOAT } }
  attr { key: "shape" value { shape { } } } }
node { name: "v/Assign" op: "Assign" input: "v" input: "one"
  attr { key: "T" value { type: DT_FLOAT } } }
node { name: "v/read" op: "Identity" input: "v" attr { key: "T" value { type: DT_FLOAT } } }
node { name: "init" op: "NoOp" input: "^v/Assign" }
node { name: "c" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } }
  attr { key: "value" value { tensor { dtype: DT_FLOAT
    tensor_shape { dim { size: 2 } } float_val: 5 float_val: 6 } } } }
""").encode()


def sample(dt, np_type):
    if dt == "DT_STRING":
        return np.array([[b"ab", b"\x00c\xff"], [b"", b"x" * 1000]],
                        dtype=object)
    if dt == "DT_BOOL":
        return np.arange(6).reshape(2, 3) % 2 == 0
    values = np.arange(6).reshape(2, 3) * 3
    if "COMPLEX" in dt:
        return (values * 1.5 + 0.25j).astype(np_type)
    if dt in ("DT_FLOAT", "DT_DOUBLE", "DT_HALF", "DT_BFLOAT16"):
        values = values * 0.5 - 2
    return values.astype(np_type)


class DtypeRoundTripTest(unittest.TestCase):
    """Each dtype fed to a Placeholder comes back unchanged from Identity."""

    @classmethod
    def setUpClass(cls):
        cls.sess = dflow.Session(identity_graph())

    @classmethod
    def tearDownClass(cls):
        cls.sess.close()


def _add_round_trip(dt, np_type):
    def test(self):
        t = np_type
        if dt == "DT_BFLOAT16":
            try:
                import ml_dtypes
            except ImportError:
                self.skipTest("bfloat16 needs ml_dtypes, which is absent")
            t = ml_dtypes.bfloat16
        value = sample(dt, t)
        got = self.sess.run("y_" + dt, {"x_" + dt + ":0": value})
        self.assertEqual(got.dtype, value.dtype)
        self.assertEqual(got.shape, value.shape)
        self.assertTrue(np.array_equal(got, value), (got, value))
        # Rank 0 comes back as a NumPy scalar (bytes for strings), as in TF.
        scalar = self.sess.run("y_" + dt, {"x_" + dt: value.ravel()[1]})
        self.assertFalse(isinstance(scalar, np.ndarray))
        self.assertEqual(scalar, value.ravel()[1])
        # Empty tensors too.
        empty = self.sess.run("y_" + dt, {"x_" + dt: value[:0]})
        self.assertEqual(empty.shape, (0, 3) if dt != "DT_STRING" else (0, 2))
    setattr(DtypeRoundTripTest, "test_" + dt[3:].lower(), test)


for _dt, _t in DTYPES.items():
    _add_round_trip(_dt, _t)


class RunTest(unittest.TestCase):
    def setUp(self):
        self.sess = dflow.Session(ARITH)

    def tearDown(self):
        self.sess.close()

    def test_fetch_structures(self):
        x = np.array([1, 2], np.float32)
        out = self.sess.run({"a": ["y", ("mul:0", "y:0")], "b": "x"},
                            feed_dict={"x": x})
        np.testing.assert_array_equal(out["a"][0], [3, 5])
        self.assertIsInstance(out["a"][1], tuple)
        np.testing.assert_array_equal(out["a"][1][0], [2, 4])
        np.testing.assert_array_equal(out["a"][1][1], [3, 5])
        np.testing.assert_array_equal(out["b"], x)

    def test_ops_without_outputs_give_none(self):
        self.assertIsNone(self.sess.run("init"))
        self.assertEqual(self.sess.run("v/read"), 1.0)
        # "^name" runs any node for its effects.
        value, none = self.sess.run(["v/read:0", "^v/Assign"])
        self.assertEqual(value, 1.0)
        self.assertIsNone(none)

    def test_feed_literals_take_the_tensor_dtype(self):
        out = self.sess.run("y", {"x:0": [1, 2]})  # ints -> float32
        self.assertEqual(out.dtype, np.float32)
        np.testing.assert_array_equal(out, [3, 5])

    def test_scalar_literals(self):
        # Converted as numpy.asarray(value, dtype) would, range-checked.
        with dflow.Session(identity_graph()) as s:
            self.assertEqual(s.run("y_DT_UINT64", {"x_DT_UINT64": 2**64 - 1}),
                             np.uint64(2**64 - 1))
            self.assertEqual(s.run("y_DT_INT8", {"x_DT_INT8": -128}), -128)
            self.assertEqual(s.run("y_DT_INT32", {"x_DT_INT32": True}), 1)
            self.assertIs(type(s.run("y_DT_INT32", {"x_DT_INT32": 7})),
                          np.int32)
            self.assertEqual(s.run("y_DT_DOUBLE", {"x_DT_DOUBLE": 0.1}), 0.1)
            self.assertEqual(s.run("y_DT_HALF", {"x_DT_HALF": 0.5}), 0.5)
            self.assertEqual(s.run("y_DT_BOOL", {"x_DT_BOOL": 1}), True)
            self.assertEqual(s.run("y_DT_INT32", {"x_DT_INT32": 2.7}), 2)
            self.assertEqual(
                s.run("y_DT_COMPLEX64", {"x_DT_COMPLEX64": 2}), 2 + 0j)
            for dt, v in (("DT_INT8", 128), ("DT_UINT8", -1),
                          ("DT_INT64", 2**63), ("DT_UINT64", 2**64)):
                with self.assertRaises(dflow.InvalidArgumentError) as e:
                    s.run("y_" + dt, {"x_" + dt: v})
                self.assertIn("out of range", str(e.exception))

    def test_feed_any_tensor(self):
        # Feeding an intermediate tensor cuts the graph there.
        out = self.sess.run("y", {"mul": np.array([10, 20], np.float32)})
        np.testing.assert_array_equal(out, [11, 21])

    def test_non_contiguous_feed(self):
        x = np.arange(8, dtype=np.float32)[::4]  # [0, 4], strided
        np.testing.assert_array_equal(self.sess.run("y", {"x": x}), [1, 9])

    def test_fetched_arrays_are_writable_and_private(self):
        c = self.sess.run("c")
        c[0] = 42  # a copy: the constant must not change
        np.testing.assert_array_equal(self.sess.run("c"), [5, 6])
        y = self.sess.run("y", {"x": [1, 2]})
        y[0] = 7
        self.assertEqual(y[0], 7)

    def test_wrong_dtype_feed(self):
        with self.assertRaises(dflow.InvalidArgumentError) as e:
            self.sess.run("y", {"x": np.array([1, 2], np.float64)})
        self.assertIn("feed 'x'", str(e.exception))
        self.assertIn("double", str(e.exception))

    def test_wrong_shape_feed(self):
        with self.assertRaises(dflow.InvalidArgumentError) as e:
            self.sess.run("y", {"x": np.zeros([3], np.float32)})
        self.assertIn("x", str(e.exception))
        self.assertIn("[3]", str(e.exception))

    def test_unsupported_feed_dtype(self):
        with self.assertRaises(dflow.InvalidArgumentError):
            self.sess.run("y", {"x": np.zeros([2], np.longdouble)})

    def test_unknown_names(self):
        with self.assertRaises(dflow.NotFoundError) as e:
            self.sess.run("nope:0")
        self.assertIn("nope", str(e.exception))
        with self.assertRaises(dflow.NotFoundError):
            self.sess.run("y", {"nope:0": 1.0, "x": [1, 2]})

    def test_uninitialized_variable(self):
        with self.assertRaises(dflow.FailedPreconditionError) as e:
            self.sess.run("v/read")
        self.assertIn("v", str(e.exception))

    def test_errors_share_a_base_and_carry_codes(self):
        self.assertTrue(issubclass(dflow.OutOfRangeError, dflow.Error))
        self.assertTrue(issubclass(dflow.Error, Exception))
        self.assertEqual(dflow.InvalidArgumentError.code, 3)
        self.assertEqual(dflow.OutOfRangeError.code, 11)

    def test_closed_session(self):
        self.sess.close()
        with self.assertRaises(dflow.FailedPreconditionError):
            self.sess.run("y", {"x": [1, 2]})
        self.sess.close()  # idempotent

    def test_context_manager(self):
        with dflow.Session(ARITH) as s:
            self.assertEqual(len(s.run("y", {"x": [0, 0]})), 2)
        with self.assertRaises(dflow.FailedPreconditionError):
            s.run("y", {"x": [0, 0]})

    def test_run_options_step_stats_and_timeline(self):
        meta = dflow.RunMetadata()
        self.sess.run("y", {"x": [1, 2]},
                      options=dflow.RunOptions(collect_step_stats=True),
                      run_metadata=meta)
        self.assertIn("y", [n["node"] for n in meta.step_stats])
        self.assertIsNone(meta.timeline)
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "timeline.json")
            self.sess.run("y", {"x": [1, 2]},
                          options=dflow.RunOptions(timeline=path),
                          run_metadata=meta)
            with open(path) as f:
                self.assertIn("traceEvents", f.read())
        self.assertIn("traceEvents", meta.timeline)

    def test_devices_and_placement(self):
        with dflow.Session(ARITH, devices="CPU:2,GPU:2") as s:
            devices = s.devices()
            self.assertEqual(len(devices), 4)
            self.assertTrue(devices[0].endswith("CPU:0"))
            placement = s.placement()
            self.assertIn("y", placement)
            device, reason = placement["y"]
            self.assertIn("device:", device)
            self.assertTrue(reason)

    def test_bad_session_arguments(self):
        with self.assertRaises(dflow.InvalidArgumentError) as e:
            dflow.Session(ARITH, devices="TPU:1")
        self.assertIn("TPU", str(e.exception))
        with self.assertRaises(dflow.InvalidArgumentError):
            dflow.Session(b"\x01\x02 not a graph")
        with self.assertRaises(dflow.NotFoundError):
            dflow.Session("/no/such/graph.pb")
        with self.assertRaises(TypeError):
            dflow.Session(42)

    def test_queue_runners_absent_is_a_noop(self):
        with self.assertWarns(UserWarning):
            self.assertEqual(self.sess.start_queue_runners(), 0)

    def test_signature_without_saved_model(self):
        with self.assertRaises(dflow.NotFoundError):
            self.sess.signature("serving_default")

    def test_save_and_restore(self):
        self.sess.run("init")
        with tempfile.TemporaryDirectory() as d:
            path = self.sess.save(os.path.join(d, "model"), global_step=3)
            self.assertTrue(path.endswith("model-3"))
            with dflow.Session(ARITH) as fresh:
                fresh.restore(path)
                self.assertEqual(fresh.run("v/read"), 1.0)
            with self.assertRaises(dflow.Error):
                self.sess.restore(os.path.join(d, "missing"))


if __name__ == "__main__":
    junit_main.main()
