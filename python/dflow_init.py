"""dflow for Python: run TensorFlow-1.x-style graphs on dflow's C++ runtime.

The API follows tf.compat.v1.Session, thinly:

    import dflow, numpy as np
    with dflow.Session("graph.pb", devices="CPU:1,GPU:4", soft_placement=True) as sess:
        sess.run("init")
        loss, _ = sess.run(["loss:0", "train"], feed_dict={"x:0": batch_x, "y:0": batch_y})

Graphs come from a .pb/.pbtxt/.meta path or serialized GraphDef bytes
(tf_graph.as_graph_def().SerializeToString()); dflow.load_saved_model loads
a SavedModel with its variables. Fetches are tensor names ("node:i", or
"node" for output 0), or names of ops run for their effects (they give
None), in any nesting of lists, tuples and dicts. Errors are dflow.Error
subclasses named as TensorFlow's (dflow.InvalidArgumentError, ...) carrying
dflow's message.

This file is the Python half of the package (built by Bazel as
bazel-bin/python/dflow/__init__.py next to the extension module _dflow.so,
python/dflow_module.cc).
"""

import os as _os
import warnings as _warnings

import sys as _sys

import numpy as _np


def _load_extension():
    """Imports _dflow with RTLD_DEEPBIND where there is one (glibc).

    _dflow.so links Debian's shared protobuf and Abseil. TensorFlow, imported
    first, makes its own copies of those libraries' symbols global, and the
    extension's references would bind to them (another version, another
    ABI): the import crashed. DEEPBIND has the extension and the libraries
    it brings resolve their symbols among themselves first.
    """
    deepbind = getattr(_os, "RTLD_DEEPBIND", 0)
    if not deepbind:
        from . import _dflow
        return _dflow
    flags = _sys.getdlopenflags()
    _sys.setdlopenflags(_os.RTLD_NOW | deepbind)
    try:
        from . import _dflow
    finally:
        _sys.setdlopenflags(flags)
    return _dflow


_dflow = _load_extension()
from ._dflow import (  # noqa: F401  (re-exported)
    Error,
    CancelledError,
    UnknownError,
    InvalidArgumentError,
    DeadlineExceededError,
    NotFoundError,
    AlreadyExistsError,
    PermissionDeniedError,
    ResourceExhaustedError,
    FailedPreconditionError,
    AbortedError,
    OutOfRangeError,
    UnimplementedError,
    InternalError,
    UnavailableError,
    DataLossError,
    UnauthenticatedError,
)

__all__ = [
    "Session", "RunOptions", "RunMetadata", "load_saved_model", "Error",
    "CancelledError", "UnknownError", "InvalidArgumentError",
    "DeadlineExceededError", "NotFoundError", "AlreadyExistsError",
    "PermissionDeniedError", "ResourceExhaustedError",
    "FailedPreconditionError", "AbortedError", "OutOfRangeError",
    "UnimplementedError", "InternalError", "UnavailableError",
    "DataLossError", "UnauthenticatedError",
]

_bfloat16_type = None


def _bfloat16():
    """NumPy's bfloat16 comes from ml_dtypes (installed with TensorFlow/JAX)."""
    global _bfloat16_type
    if _bfloat16_type is None:
        try:
            import ml_dtypes
        except ImportError:
            raise UnimplementedError(
                "bfloat16 tensors need the ml_dtypes package "
                "(pip install ml_dtypes) for a NumPy bfloat16 dtype")
        _bfloat16_type = _np.dtype(ml_dtypes.bfloat16)
    return _bfloat16_type


class RunOptions:
    """What Session.run records: step stats, a trace, a Chrome timeline file.

    timeline: a path; the step's timeline (what `dflow run --timeline`
    writes, for chrome://tracing or ui.perfetto.dev) is written there.
    """

    def __init__(self, timeout_ms=0, collect_step_stats=False, trace=False,
                 timeline=None):
        self.timeout_ms = int(timeout_ms)
        self.collect_step_stats = bool(collect_step_stats)
        self.trace = bool(trace) or timeline is not None
        self.timeline = timeline


class RunMetadata:
    """Filled by Session.run(..., run_metadata=m) when options ask for stats.

    step_stats: one dict per node run (node, op, device, start_us, end_us,
    thread_id, output_bytes); peak_bytes: device -> bytes; timeline: the
    Chrome trace JSON when options.trace.
    """

    def __init__(self):
        self.step_stats = []
        self.peak_bytes = {}
        self.timeline = None


def _name_of(x):
    """A fetch or feed key: a name, or an object with one (tf.Tensor)."""
    if isinstance(x, str):
        return x
    name = getattr(x, "name", None)
    if isinstance(name, str):
        return name
    raise TypeError(
        f"fetches and feed_dict keys are tensor or op names (str), not "
        f"{type(x).__name__}")


def _options_of(options):
    """(timeout_ms, stats level 0/1/2, timeline path) of a RunOptions, a
    tf.compat.v1.RunOptions (trace_level) or None."""
    if options is None:
        return 0, 0, ""
    timeout = int(getattr(options, "timeout_in_ms", 0) or
                  getattr(options, "timeout_ms", 0) or 0)
    timeline = getattr(options, "timeline", None) or ""
    trace = bool(getattr(options, "trace", False) or
                 getattr(options, "trace_level", 0) or timeline)
    stats = 2 if trace else (1 if getattr(options, "collect_step_stats",
                                          False) else 0)
    return timeout, stats, _os.fspath(timeline) if timeline else ""


_TensorBuffer = _dflow._TensorBuffer

# Literal types _dflow converts to a scalar tensor of each dtype itself
# (python/numpy_tensor.h: ScalarTensorFromLiteral), as numpy.asarray(value,
# dtype) would; others go through NumPy.
_INTS = (int, bool)
_LITERALS_CONVERTED_IN_CXX = {
    "float32": (float, int, bool), "float64": (float, int, bool),
    "complex64": (float, int, bool), "complex128": (float, int, bool),
    "int8": _INTS, "int16": _INTS, "int32": _INTS, "int64": _INTS,
    "uint8": _INTS, "uint16": _INTS, "uint32": _INTS, "uint64": _INTS,
    "bool": (bool,),
}

# Rank-0 fetches become these NumPy scalars in _dflow, as TensorFlow's do.
_dflow._set_numpy_scalar_types({
    name: _np.dtype(name).type for name in (
        "float32", "float64", "int8", "int16", "int32", "int64", "uint8",
        "uint16", "uint32", "uint64", "bool")})


def _to_numpy(value):
    t = type(value)
    if t is _TensorBuffer:
        array = _np.asarray(value)  # shares the fetched tensor's buffer
        return array[()] if array.ndim == 0 else array
    if t is not tuple:
        return value  # already a NumPy scalar
    if value[0] == "string":
        _, shape, items = value
        array = _np.empty(len(items), dtype=object)
        array[:] = items
        array = array.reshape(shape)
    else:  # ("bfloat16", uint16 bit patterns)
        array = _np.asarray(value[1]).view(_bfloat16())
    # As TensorFlow: a scalar comes back as a NumPy scalar (bytes for
    # strings).
    return array[()] if array.ndim == 0 else array


class Session:
    """A dflow session over a graph, as tf.compat.v1.Session.

    graph: a path to a .pb, .pbtxt or .meta file, or serialized GraphDef
    bytes (or a GraphDef proto / tf.Graph, serialized for you).
    devices: "CPU:2,GPU:4" as `dflow run --devices` (GPU:N means N fake
    GPUs computing on the host, for tower graphs on machines without GPUs);
    None: one CPU. threads: the process-wide worker pool (0: one per core;
    only the first session's value counts). optimize=False runs the graph
    exactly as built.
    """

    def __init__(self, graph, devices=None, soft_placement=False,
                 log_device_placement=False, threads=0, optimize=True,
                 _handle=None):
        self._has_value = {}
        self._dtypes = {}
        if _handle is not None:
            self._s = _handle
            return
        args = (devices or "", bool(soft_placement),
                bool(log_device_placement), int(threads), bool(optimize))
        if hasattr(graph, "as_graph_def"):  # a tf.Graph
            graph = graph.as_graph_def()
        if hasattr(graph, "SerializeToString"):  # a GraphDef message
            graph = graph.SerializeToString()
        if isinstance(graph, (bytes, bytearray, memoryview)):
            self._s = _dflow._session_from_bytes(bytes(graph), *args)
        elif isinstance(graph, (str, _os.PathLike)):
            self._s = _dflow._session_from_file(_os.fspath(graph), *args)
        else:
            raise TypeError(
                "graph must be a file path (.pb, .pbtxt, .meta) or "
                f"serialized GraphDef bytes, not {type(graph).__name__}")

    # -- running ------------------------------------------------------------

    def run(self, fetches, feed_dict=None, options=None, run_metadata=None):
        """Runs one step; returns fetches' values in fetches' structure.

        A tensor name gives a NumPy array (a NumPy scalar for rank 0, bytes
        for a string scalar); an op with no outputs, or "^name", runs for
        its effects and gives None. feed_dict maps tensor names to arrays,
        scalars or lists (literals take the tensor's dtype; arrays must
        already have it).
        """
        s = self._s
        feed_names, feed_values = [], []
        if feed_dict:
            for key, value in feed_dict.items():
                name = key if type(key) is str else _name_of(key)
                feed_names.append(name)
                feed_values.append(self._feed_value(name, value))
        timeout, stats, timeline = (0, 0, "") if options is None else \
            _options_of(options)

        if type(fetches) is str and stats == 0:
            # The common call, kept short: Python's share of a small step
            # is most of its cost.
            if self._has_value_of(fetches):
                values, _ = s.run(feed_names, feed_values, [fetches], [],
                                  timeout, 0, "")
                return _to_numpy(values[0])
            s.run(feed_names, feed_values, [],
                  [fetches[1:] if fetches.startswith("^") else fetches],
                  timeout, 0, "")
            return None

        tensors = []   # names fetched for values
        slot_of = {}   # name -> index in tensors, or None for a target
        targets = []

        def classify(name):
            slot = slot_of.get(name, -1)
            if slot != -1:
                return slot
            if self._has_value_of(name):
                slot = len(tensors)
                tensors.append(name)
            else:
                slot = None
                targets.append(name[1:] if name.startswith("^") else name)
            slot_of[name] = slot
            return slot

        def flatten(f):
            if isinstance(f, (list, tuple)):
                return (type(f), [flatten(x) for x in f])
            if isinstance(f, dict):
                return (dict, {k: flatten(v) for k, v in f.items()})
            return classify(_name_of(f))

        structure = flatten(fetches)
        values, meta = s.run(feed_names, feed_values, tensors, targets,
                             timeout, stats, timeline)
        if run_metadata is not None and meta is not None:
            run_metadata.step_stats = meta["step_stats"]
            run_metadata.peak_bytes = meta["peak_bytes"]
            run_metadata.timeline = meta.get("timeline")
        values = [_to_numpy(v) for v in values]

        def rebuild(node):
            if node is None:
                return None
            if type(node) is int:
                return values[node]
            kind, items = node
            if kind is dict:
                return {k: rebuild(v) for k, v in items.items()}
            out = [rebuild(x) for x in items]
            if kind is list:
                return out
            if kind is tuple:
                return tuple(out)
            return kind(*out)  # namedtuple

        return rebuild(structure)

    def _has_value_of(self, name):
        has = self._has_value.get(name)
        if has is None:
            has = self._s.fetch_has_value(name)
            self._has_value[name] = has
        return has

    def _feed_value(self, name, value):
        t = type(value)
        if t is not _np.ndarray:
            # A Python literal (or list) takes the fed tensor's dtype, as in
            # TensorFlow; an array must already have it.
            dtype = self._dtypes.get(name)
            if dtype is None:
                dtype = self._s.numpy_dtype(name)
                self._dtypes[name] = dtype
            if t in _LITERALS_CONVERTED_IN_CXX.get(dtype, ()):
                return value  # _dflow makes the scalar tensor directly
            if isinstance(value, _np.generic):
                value = _np.asarray(value)
            elif dtype == "bfloat16":
                value = _np.asarray(value, dtype=_bfloat16())
            elif dtype:
                value = _np.asarray(value, dtype=dtype)
            else:
                value = _np.asarray(value)
        kind = value.dtype.kind
        if kind in "OSU":
            items = [x.encode() if isinstance(x, str) else x
                     for x in value.ravel().tolist()]
            return ("string", value.shape, items)
        if not value.flags.c_contiguous:
            # (ascontiguousarray alone would make a 0-d array 1-d.)
            value = _np.ascontiguousarray(value).reshape(value.shape)
        if kind == "V" and value.dtype.name == "bfloat16":
            return ("bfloat16", value.view(_np.uint16))
        return value

    # -- checkpoints and signatures ----------------------------------------

    def save(self, prefix, global_step=None):
        """Writes a TensorFlow V2 checkpoint of every variable (as `dflow run
        --save`); returns its path ("<prefix>-<global_step>")."""
        step = -1 if global_step is None else int(global_step)
        return self._s.save(_os.fspath(prefix), step)

    def restore(self, prefix):
        """Restores variables from a checkpoint prefix (TensorFlow's or
        dflow's): through the .meta's restore op if the graph has a
        SaverDef, else with dflow's Saver (as `dflow run --restore`)."""
        self._s.restore(_os.fspath(prefix))

    def signature(self, name="serving_default"):
        """A SavedModel signature: {"inputs": {key: tensor name},
        "outputs": {key: tensor name}, "method_name": str}."""
        return self._s.signature(name)

    def signature_keys(self):
        return self._s.signature_keys()

    # -- introspection -----------------------------------------------------

    def devices(self):
        """The session's device names (/job:localhost/.../device:CPU:0, ...)."""
        return self._s.devices()

    def placement(self):
        """node name -> (device, reason): where the placer puts each node
        of the graph on this session's devices (as `dflow place`)."""
        return self._s.placement()

    def start_queue_runners(self):
        """Starts the .meta's queue runners (as `dflow run` does); returns
        how many started. Without any it does nothing and says so."""
        started = self._s.start_queue_runners()
        if started == 0:
            _warnings.warn("dflow.Session.start_queue_runners: this graph "
                           "has no queue runners (they come with a .meta "
                           "file); nothing started", stacklevel=2)
        return started

    # -- lifetime ----------------------------------------------------------

    def close(self):
        """Stops queue runners and frees the session; later calls raise
        FailedPreconditionError. Steps still running finish first."""
        self._s.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False


def load_saved_model(export_dir, tags=("serve",), **session_kwargs):
    """Loads a TensorFlow (TF1-style) SavedModel with its variables
    restored; returns a Session. Session.signature(name) maps its
    signatures' keys to tensor names."""
    if isinstance(tags, str):
        tags = [tags]
    kwargs = dict(devices=None, soft_placement=False,
                  log_device_placement=False, threads=0, optimize=True)
    unknown = set(session_kwargs) - set(kwargs)
    if unknown:
        raise TypeError(f"load_saved_model: unknown arguments {sorted(unknown)}")
    kwargs.update(session_kwargs)
    handle = _dflow._session_from_saved_model(
        _os.fspath(export_dir), list(tags), kwargs["devices"] or "",
        bool(kwargs["soft_placement"]), bool(kwargs["log_device_placement"]),
        int(kwargs["threads"]), bool(kwargs["optimize"]))
    return Session(None, _handle=handle)
