#!/usr/bin/env python3
"""Writes the reference .npy files that tests/graph/npy_test.cc reads.

Every file is written by NumPy itself, so the test checks dflow against the
real format, not against dflow's own idea of it. The values are spelled out
here and again in the test; change both together. Run from anywhere:

    python3 tests/testdata/npy/make_npy.py

Needs numpy (written with 2.4). The output is deterministic.
"""
import os

import numpy as np
from numpy.lib import format as npy_format

HERE = os.path.dirname(os.path.abspath(__file__))


def save(name, array, version=None, allow_pickle=False):
    path = os.path.join(HERE, name)
    with open(path, "wb") as f:
        if version is None:
            np.save(f, array, allow_pickle=allow_pickle)
        else:
            npy_format.write_array(f, array, version=version,
                                   allow_pickle=allow_pickle)
    print(f"{name}: {array.dtype.str} {array.shape}")


def signed(dtype):
    info = np.iinfo(dtype)
    return np.array([[info.min, -1], [0, info.max]], dtype=dtype)


def unsigned(dtype):
    return np.array([0, 1, np.iinfo(dtype).max], dtype=dtype)


def main():
    # One file per element type dflow reads, version 1.0 as np.save writes.
    f32_max = np.finfo(np.float32).max
    save("float32.npy", np.array([[0.0, 1.5, -2.25], [1e-3, f32_max, -np.inf]],
                                 dtype=np.float32))
    save("float64.npy", np.array([np.pi, -0.0, 1e300], dtype=np.float64))
    save("float16.npy", np.array([0.5, -2.0, 65504.0, 2.0**-10],
                                 dtype=np.float16))
    for t in (np.int8, np.int16, np.int32, np.int64):
        save(f"{np.dtype(t).name}.npy", signed(t))
    for t in (np.uint8, np.uint16, np.uint32, np.uint64):
        save(f"{np.dtype(t).name}.npy", unsigned(t))
    save("bool.npy", np.array([[True, False], [False, True]]))
    save("complex64.npy", np.array([1 + 2j, -3.5 - 0.25j], dtype=np.complex64))
    save("complex128.npy", np.array([1 + 2j, -3.5 - 0.25j],
                                    dtype=np.complex128))
    # Shapes: 0-d, zero-size, rank 3.
    save("scalar_float64.npy", np.array(2.5))
    save("empty_float32.npy", np.zeros((0, 3), dtype=np.float32))
    save("rank3_int32.npy", np.arange(24, dtype=np.int32).reshape(2, 3, 4))
    # Format versions 2.0 and 3.0 (4-byte header length).
    save("v2_int32.npy", np.arange(6, dtype=np.int32).reshape(2, 3),
         version=(2, 0))
    save("v3_float32.npy", np.array([1.0, 2.0, 3.0], dtype=np.float32),
         version=(3, 0))
    # Fixed-width strings: bytes (an inner NUL kept, trailing ones dropped
    # on reading, as NumPy does) and UCS-4 unicode (dflow gives UTF-8).
    save("bytes.npy", np.array([[b"a", b""], [b"xyz", b"q\x00r"]]))
    save("unicode.npy", np.array(["ab", "c\u00e9", "\u20ac\U0001d11e"]))
    # Files dflow must refuse, each with a clear error.
    save("big_endian.npy", np.array([1.0, 2.0], dtype=">f4"))
    save("fortran_order.npy",
         np.asfortranarray(np.arange(6, dtype=np.float32).reshape(2, 3)))
    save("big_endian_unicode.npy", np.array(["ab", "cde"], dtype=">U3"))
    save("object.npy", np.array([1, "a"], dtype=object), allow_pickle=True)
    save("structured.npy", np.zeros(2, dtype=[("a", "<f4"), ("b", "<i4")]))


if __name__ == "__main__":
    main()
