"""The text format of the TensorFlow-written value tests' cases.txt files
(read by tests/kernels/tf_value_cases.h), shared by the make_*_reference.py
scripts that write them:

  feed|fetch <name> <NumPy dtype> [<d0>,<d1>,...] | v0 v1 ...

integers and bools as integers, float64 with "%.17g" and other floats with
"%.9g" (both exact), row-major. A complex element is two values, its real
and imaginary parts (complex128's with "%.17g", complex64's with "%.9g"):
"re0 im0 re1 im1 ...", with the complex dtype named in the line.
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
