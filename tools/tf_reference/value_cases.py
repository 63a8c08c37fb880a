"""The text format of the TensorFlow-written value tests' cases.txt files
(read by tests/kernels/tf_value_cases.h), shared by the make_*_reference.py
scripts that write them:

  feed|fetch <name> <NumPy dtype> [<d0>,<d1>,...] | v0 v1 ...

integers and bools as integers, float64 with "%.17g" and other floats with
"%.9g" (both exact), row-major. A complex element is two values, its real
and imaginary parts (complex128's with "%.17g", complex64's with "%.9g"):
"re0 im0 re1 im1 ...", with the complex dtype named in the line.

write_cases writes a reference directory (graph.pb and cases.txt) in one
call; the scripts from session 18 on use it, the older ones still write
the same lines themselves.
"""
import numpy as np


def fmt(a):
  a = np.asarray(a)
  if a.dtype.kind in "iub":
    return " ".join(str(int(v)) for v in a.flat)
  if a.dtype.kind == "c":
    spec = "%.17g" if a.dtype == np.complex128 else "%.9g"
    return " ".join(spec % p for v in a.flat for p in (v.real, v.imag))
  spec = "%.17g" if a.dtype == np.float64 else "%.9g"
  return " ".join(spec % v for v in a.flat)


def head(kind, name, a, dtype=None):
  """The part before " | "; `dtype` names another dtype than a's."""
  a = np.asarray(a)
  return "%s %s %s [%s]" % (kind, name, dtype or a.dtype.name,
                            ",".join(str(d) for d in a.shape))


def write_cases(out_dir, graph_def, comment, feeds, fetches, names=None):
  """Writes out_dir/graph.pb (graph_def, deterministic bytes) and
  out_dir/cases.txt: the `comment` line, a feed line per item of `feeds`
  (name -> array, in order) and a fetch line per item of `fetches` (key ->
  array, sorted by key), named names[key] when given, else "out_" + key.
  Returns the number of fetch lines."""
  import os
  names = names or {}
  with open(os.path.join(out_dir, "graph.pb"), "wb") as f:
    f.write(graph_def.SerializeToString(deterministic=True))
  lines = ["# " + comment]
  for k, v in feeds.items():
    lines.append("%s | %s" % (head("feed", k, v), fmt(v)))
  for k in sorted(fetches):
    name = names.get(k, "out_" + k)
    lines.append("%s | %s" % (head("fetch", name, fetches[k]),
                              fmt(fetches[k])))
  with open(os.path.join(out_dir, "cases.txt"), "w") as f:
    f.write("\n".join(lines) + "\n")
  return len(fetches)
