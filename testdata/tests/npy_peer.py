"""numpy's side of test_cli_npy.c: numpy writes .npy files the C reader must
read, and reads back the files the C writer wrote.

  npy_peer.py write DIR   every dtype spvjit reads, in several shapes, byte
                          orders and format versions: DIR/NAME.npy, the
                          elements in host order as DIR/NAME.bin, and
                          DIR/index.txt with "NAME TYPE SHAPE" lines
  npy_peer.py check DIR   np.load(DIR/NAME.out.npy) must be a 1-D array of
                          the native dtype holding exactly DIR/NAME.bin
"""

import os
import sys

import numpy as np

CASES = [  # (dtype, shape, format version)
    ("<i1", (7,), (1, 0)), ("<u1", (3, 5), (1, 0)), ("<i2", (9,), (2, 0)), ("<u2", (2, 2, 2), (1, 0)),
    ("<i4", (33,), (3, 0)), ("<u4", (1,), (1, 0)), ("<i8", (4, 1), (1, 0)), ("<u8", (6,), (1, 0)),
    ("<f2", (10,), (1, 0)), ("<f4", (8, 8), (1, 0)), ("<f8", (5,), (2, 0)), (">i4", (12,), (1, 0)),
    (">f8", (3, 4), (1, 0)), (">u2", (6,), (3, 0)), ("<f4", (0,), (1, 0)), ("<f4", (), (1, 0)),
    ("<f4", (1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 17), (1, 0)),
]
SPVJIT_TYPE = {"i": "i", "u": "u", "f": "f"}


def values(dtype, shape):
    d = np.dtype(dtype)
    n = int(np.prod(shape))
    if d.kind == "f":
        v = np.linspace(-1e3, 7.25, n) if n else np.zeros(0)
        if n > 2:
            v[1], v[2] = -0.0, np.inf
    else:
        info = np.iinfo(d)
        v = [min(max(i * 104729 - n * 50, int(info.min)), int(info.max)) for i in range(n)]
        if n > 1:
            v[0], v[-1] = int(info.min), int(info.max)
        return np.array(v, dtype=d).reshape(shape)
    return v.astype(d).reshape(shape)


def write(directory):
    with open(os.path.join(directory, "index.txt"), "w") as index:
        for i, (dtype, shape, version) in enumerate(CASES):
            name = "case%02d" % i
            a = values(dtype, shape)
            with open(os.path.join(directory, name + ".npy"), "wb") as f:
                np.lib.format.write_array(f, a, version=version)
            native = a.astype(a.dtype.newbyteorder("="))
            with open(os.path.join(directory, name + ".bin"), "wb") as f:
                f.write(native.tobytes())
            t = SPVJIT_TYPE[a.dtype.kind] + str(8 * a.dtype.itemsize)
            shape_text = "(" + ", ".join(map(str, shape)) + ("," if len(shape) == 1 else "") + ")"
            index.write("%s %s %s\n" % (name, t, shape_text))


def check(directory):
    n = 0
    for line in open(os.path.join(directory, "index.txt")):
        name, t = line.split()[:2]
        want = np.dtype({"i": "i", "u": "u", "f": "f"}[t[0]] + str(int(t[1:]) // 8))
        a = np.load(os.path.join(directory, name + ".out.npy"))
        raw = open(os.path.join(directory, name + ".bin"), "rb").read()
        if a.dtype != want or a.ndim != 1 or a.tobytes() != raw:
            sys.exit("%s: read %s %s, want %s (%d,) holding %s.bin" % (name, a.dtype, a.shape, want,
                                                                        len(raw) // want.itemsize, name))
        n += 1
    print("ok %d" % n)


if __name__ == "__main__":
    {"write": write, "check": check}[sys.argv[1]](sys.argv[2])
