// The `dflow._dflow` extension module: dflow's Session for Python.
//
// This file is only the binding: it converts arguments and results
// (python/numpy_tensor.h), maps absl::Status codes to the exception classes
// dflow.Error and its subclasses, and releases the GIL while C++ works (a
// step, loading a graph, joining queue runners). The TensorFlow-shaped API
// (nested fetches, feed_dict, context manager) is the Python package around
// it, python/dflow_init.py.
#include <malloc.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <array>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "python/numpy_tensor.h"
#include "python/python_session.h"
#include "runtime/session.h"
#include "tools/timeline.h"

namespace py = pybind11;

namespace dflow {
namespace python {
namespace {

// One exception class per absl::StatusCode (index = code), all deriving from
// dflow.Error; created once when the module loads and never freed (modules
// are not unloaded).
constexpr int kNumCodes = 17;
std::array<PyObject*, kNumCodes> error_classes{};

// TensorFlow's names (tf.errors), so that `except dflow.NotFoundError`
// reads as users expect.
constexpr std::array<const char*, kNumCodes> kErrorNames = {
    "",  // kOk
    "CancelledError",
    "UnknownError",
    "InvalidArgumentError",
    "DeadlineExceededError",
    "NotFoundError",
    "AlreadyExistsError",
    "PermissionDeniedError",
    "ResourceExhaustedError",
    "FailedPreconditionError",
    "AbortedError",
    "OutOfRangeError",
    "UnimplementedError",
    "InternalError",
    "UnavailableError",
    "DataLossError",
    "UnauthenticatedError",
};

void RegisterErrors(py::module_& m) {
  PyObject* base = PyErr_NewExceptionWithDoc(
      "dflow.Error",
      "A dflow error; its subclass names the absl::StatusCode, its message "
      "is dflow's.",
      PyExc_Exception, nullptr);
  error_classes[0] = base;
  m.add_object("Error", py::reinterpret_borrow<py::object>(base));
  for (int code = 1; code < kNumCodes; ++code) {
    const std::string qualified = absl::StrCat("dflow.", kErrorNames[code]);
    PyObject* cls =
        PyErr_NewException(qualified.c_str(), base, /*dict=*/nullptr);
    PyObject_SetAttrString(cls, "code", py::int_(code).ptr());
    error_classes[code] = cls;
    m.add_object(kErrorNames[code], py::reinterpret_borrow<py::object>(cls));
  }
}

// Raises `status` as its dflow exception (the caller holds the GIL).
[[noreturn]] void ThrowStatus(const absl::Status& status) {
  const int code = static_cast<int>(status.code());
  PyObject* cls = code > 0 && code < kNumCodes ? error_classes[code]
                                               : error_classes[2];  // Unknown
  // A message may quote graph bytes that are not UTF-8; never let that turn
  // into a UnicodeDecodeError instead of the real error.
  const absl::string_view message = status.message();
  py::object text = py::reinterpret_steal<py::object>(PyUnicode_DecodeUTF8(
      message.data(), static_cast<Py_ssize_t>(message.size()), "replace"));
  PyErr_SetObject(cls, text.ptr());
  throw py::error_already_set();
}

template <typename T>
T ValueOrThrow(absl::StatusOr<T> value) {
  if (!value.ok()) ThrowStatus(value.status());
  return *std::move(value);
}

void OkOrThrow(const absl::Status& status) {
  if (!status.ok()) ThrowStatus(status);
}

PythonSessionOptions MakeOptions(const std::string& devices,
                                 bool soft_placement, bool log_device_placement,
                                 int threads, bool optimize) {
  PythonSessionOptions options;
  options.devices = devices;
  options.soft_placement = soft_placement;
  options.log_device_placement = log_device_placement;
  options.threads = threads;
  options.optimize = optimize;
  return options;
}

// A feed value from the Python side: a C-contiguous array, or a tagged
// tuple for what the buffer protocol cannot carry (numpy_tensor.h).
Tensor FeedTensor(PythonSession& session, const std::string& name,
                  py::handle value) {
  absl::StatusOr<Tensor> tensor;
  if (PyFloat_CheckExact(value.ptr()) || PyLong_CheckExact(value.ptr()) ||
      PyBool_Check(value.ptr())) {
    // The Python side sends only literals ScalarTensorFromLiteral takes.
    std::optional<absl::StatusOr<Tensor>> scalar =
        ScalarTensorFromLiteral(value, session.TensorDtype(name));
    tensor = scalar ? *std::move(scalar)
                    : absl::InternalError("no literal conversion");
  } else if (py::isinstance<py::tuple>(value)) {
    py::tuple tagged = py::reinterpret_borrow<py::tuple>(value);
    const std::string tag = tagged[0].cast<std::string>();
    if (tag == "string") {
      tensor = StringTensorFromList(tagged[1].cast<py::sequence>(),
                                    tagged[2].cast<py::sequence>());
    } else if (tag == "bfloat16") {
      tensor = TensorFromBuffer(tagged[1].cast<py::buffer>(), DT_BFLOAT16);
    } else {
      tensor = absl::InternalError(absl::StrCat("unknown feed tag ", tag));
    }
  } else if (PyObject_CheckBuffer(value.ptr())) {
    tensor = TensorFromBuffer(py::reinterpret_borrow<py::buffer>(value));
  } else {
    tensor = absl::InvalidArgumentError("not an array");
  }
  if (!tensor.ok()) {
    ThrowStatus(absl::Status(
        tensor.status().code(),
        absl::StrCat("feed '", name, "': ", tensor.status().message())));
  }
  return *std::move(tensor);
}

py::dict MetadataToPython(const RunMetadata& metadata, bool trace) {
  py::list stats;
  for (const NodeExecStats& node : metadata.step_stats) {
    py::dict d;
    d["node"] = node.node;
    d["op"] = node.op;
    d["device"] = node.device;
    d["start_us"] = node.start_us;
    d["end_us"] = node.end_us;
    d["thread_id"] = node.thread_id;
    d["output_bytes"] = node.output_bytes;
    stats.append(d);
  }
  py::dict peak;
  for (const auto& [device, bytes] : metadata.peak_bytes)
    peak[py::str(device)] = bytes;
  py::dict out;
  out["step_stats"] = stats;
  out["peak_bytes"] = peak;
  if (trace) out["timeline"] = ChromeTraceJson(metadata);
  return out;
}

// Session.run's C++ half. `stats`: 0 none, 1 step stats, 2 trace
// (timeline). Returns (list of fetched values, metadata dict or None).
py::tuple Run(PythonSession& self, const std::vector<std::string>& feed_names,
              const py::list& feed_values,
              const std::vector<std::string>& fetches,
              const std::vector<std::string>& targets, int64_t timeout_ms,
              int stats, const std::string& timeline_path) {
  if (feed_values.size() != feed_names.size()) {
    ThrowStatus(absl::InvalidArgumentError("feed names and values differ"));
  }
  FeedList feeds;
  feeds.reserve(feed_names.size());
  for (size_t i = 0; i < feed_names.size(); ++i) {
    feeds.emplace_back(feed_names[i],
                       FeedTensor(self, feed_names[i], feed_values[i]));
  }
  std::shared_ptr<Session> session = ValueOrThrow(self.session());
  RunOptions options;
  options.timeout_ms = timeout_ms;
  options.collect_step_stats = stats >= 1;
  options.trace = stats >= 2;
  RunMetadata metadata;
  std::vector<Tensor> outputs;
  absl::Status status;
  {
    py::gil_scoped_release release;
    status = session->Run(options, feeds, fetches, targets, &outputs,
                          stats > 0 ? &metadata : nullptr);
    // Drop the feeds' and session's references without the GIL: the last
    // one may free large buffers or the whole session.
    feeds.clear();
    session.reset();
    if (status.ok() && !timeline_path.empty()) {
      status = WriteChromeTrace(metadata, timeline_path);
    }
  }
  OkOrThrow(status);
  py::list values(outputs.size());
  for (size_t i = 0; i < outputs.size(); ++i) {
    absl::StatusOr<py::object> value = TensorToPython(std::move(outputs[i]));
    if (!value.ok()) {
      ThrowStatus(absl::Status(value.status().code(),
                               absl::StrCat("fetch '", fetches[i],
                                            "': ", value.status().message())));
    }
    values[i] = *std::move(value);
  }
  py::object meta = py::none();
  if (stats > 0) meta = MetadataToPython(metadata, stats >= 2);
  return py::make_tuple(values, meta);
}

// "float32", "object" (strings), "bfloat16", or "" when unknown: the NumPy
// dtype Python literals fed to tensor `name` are converted to.
std::string NumpyDtypeOf(PythonSession& self, const std::string& name) {
  switch (self.TensorDtype(name)) {
    case DT_HALF:
      return "float16";
    case DT_FLOAT:
      return "float32";
    case DT_DOUBLE:
      return "float64";
    case DT_BFLOAT16:
      return "bfloat16";
    case DT_INT8:
      return "int8";
    case DT_INT16:
      return "int16";
    case DT_INT32:
      return "int32";
    case DT_INT64:
      return "int64";
    case DT_UINT8:
      return "uint8";
    case DT_UINT16:
      return "uint16";
    case DT_UINT32:
      return "uint32";
    case DT_UINT64:
      return "uint64";
    case DT_BOOL:
      return "bool";
    case DT_COMPLEX64:
      return "complex64";
    case DT_COMPLEX128:
      return "complex128";
    case DT_STRING:
      return "object";
    default:
      return "";
  }
}

}  // namespace

// dflow's binaries run on TCMalloc (.bazelrc --custom_malloc); an extension
// module cannot bring its own malloc into an interpreter whose malloc is in
// use, so it tunes glibc's instead. By default glibc returns large freed
// blocks to the kernel (mmap'd above 128 KB-32 MB, the heap top trimmed),
// and a training step that frees and reallocates its activations then
// page-faults them in again every step: the seed MLP's step ran ~20-50%
// slower from Python than from C++ until these thresholds were raised
// (bench/python_overhead.py). The cost is up to this much freed memory kept
// by the process. DFLOW_GLIBC_MALLOC_TUNING=0, or any malloc setting in
// GLIBC_TUNABLES, leaves malloc as it is.
void TuneGlibcMalloc() {
#ifdef __GLIBC__
  if (const char* off = std::getenv("DFLOW_GLIBC_MALLOC_TUNING");
      off != nullptr && std::string(off) == "0") {
    return;
  }
  if (const char* tunables = std::getenv("GLIBC_TUNABLES");
      tunables != nullptr && std::strstr(tunables, "malloc") != nullptr) {
    return;
  }
  mallopt(M_MMAP_THRESHOLD, 64 << 20);
  mallopt(M_TRIM_THRESHOLD, 256 << 20);
#endif
}

void DefineModule(py::module_& m) {
  m.doc() = "dflow's Session (the C++ half of the dflow package)";
  TuneGlibcMalloc();
  RegisterErrors(m);
  RegisterTensorBufferClass(m);
  m.def("_set_numpy_scalar_types", &SetNumpyScalarTypes);

  py::class_<PythonSession>(m, "_Session")
      .def("run", &Run, py::arg("feed_names"), py::arg("feed_values"),
           py::arg("fetches"), py::arg("targets"), py::arg("timeout_ms"),
           py::arg("stats"), py::arg("timeline_path"))
      .def("fetch_has_value",
           [](PythonSession& self, const std::string& name) {
             return ValueOrThrow(self.FetchHasValue(name));
           })
      .def("numpy_dtype", &NumpyDtypeOf)
      .def("devices", &PythonSession::Devices)
      .def("placement",
           [](const PythonSession& self) {
             absl::StatusOr<std::vector<NodePlacementView>> placed;
             {
               py::gil_scoped_release release;
               placed = self.Placement();
             }
             const std::vector<NodePlacementView> nodes =
                 ValueOrThrow(std::move(placed));
             py::dict out;
             for (const NodePlacementView& n : nodes) {
               out[py::str(n.node)] = py::make_tuple(n.device, n.reason);
             }
             return out;
           })
      .def("start_queue_runners",
           [](PythonSession& self) {
             absl::StatusOr<int> started;
             {
               py::gil_scoped_release release;
               started = self.StartQueueRunners();
             }
             return ValueOrThrow(std::move(started));
           })
      .def("save",
           [](PythonSession& self, const std::string& prefix,
              int64_t global_step) {
             absl::StatusOr<std::string> path;
             {
               py::gil_scoped_release release;
               path = self.Save(prefix, global_step);
             }
             return ValueOrThrow(std::move(path));
           })
      .def("restore",
           [](PythonSession& self, const std::string& prefix) {
             absl::Status status;
             {
               py::gil_scoped_release release;
               status = self.Restore(prefix);
             }
             OkOrThrow(status);
           })
      .def("signature",
           [](const PythonSession& self, const std::string& key) {
             SignatureView view = ValueOrThrow(self.Signature(key));
             py::dict out;
             out["method_name"] = view.method_name;
             out["inputs"] = view.inputs;
             out["outputs"] = view.outputs;
             return out;
           })
      .def("signature_keys", &PythonSession::SignatureKeys)
      .def("close", [](PythonSession& self) {
        absl::Status status;
        {
          py::gil_scoped_release release;
          status = self.Close();
        }
        OkOrThrow(status);
      });

  m.def("_session_from_file",
        [](const std::string& path, const std::string& devices,
           bool soft_placement, bool log_device_placement, int threads,
           bool optimize) {
          const PythonSessionOptions options = MakeOptions(
              devices, soft_placement, log_device_placement, threads, optimize);
          absl::StatusOr<std::unique_ptr<PythonSession>> session;
          {
            py::gil_scoped_release release;
            session = PythonSession::FromGraphFile(path, options);
          }
          return ValueOrThrow(std::move(session));
        });
  m.def("_session_from_bytes",
        [](const py::bytes& graph, const std::string& devices,
           bool soft_placement, bool log_device_placement, int threads,
           bool optimize) {
          const PythonSessionOptions options = MakeOptions(
              devices, soft_placement, log_device_placement, threads, optimize);
          std::string bytes = graph;
          absl::StatusOr<std::unique_ptr<PythonSession>> session;
          {
            py::gil_scoped_release release;
            session = PythonSession::FromGraphBytes(bytes, options);
          }
          return ValueOrThrow(std::move(session));
        });
  m.def("_session_from_saved_model",
        [](const std::string& export_dir, const std::vector<std::string>& tags,
           const std::string& devices, bool soft_placement,
           bool log_device_placement, int threads, bool optimize) {
          const PythonSessionOptions options = MakeOptions(
              devices, soft_placement, log_device_placement, threads, optimize);
          absl::StatusOr<std::unique_ptr<PythonSession>> session;
          {
            py::gil_scoped_release release;
            session = PythonSession::FromSavedModel(export_dir, tags, options);
          }
          return ValueOrThrow(std::move(session));
        });
}

}  // namespace python
}  // namespace dflow

PYBIND11_MODULE(_dflow, m) { dflow::python::DefineModule(m); }
