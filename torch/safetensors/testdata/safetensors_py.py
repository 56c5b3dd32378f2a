#!/usr/bin/python3
"""A hand-written safetensors reader and writer for PyTorch, and the
interop files of package safetensors' tests.

Debian has no python3-safetensors, so this follows the format directly
(https://huggingface.co/docs/safetensors): an 8-byte little-endian header
length N, N bytes of JSON, then the tensors' bytes. Like the reference
writer it lays the data out by decreasing element size, then name, and pads
the header with spaces to a multiple of 8; the JSON lists "__metadata__"
first, then the tensors by name, with no spaces.

Run with the reference PyTorch (1.13), from the repository root:

    /usr/bin/python3 torch/safetensors/testdata/safetensors_py.py make
        writes dtypes.safetensors and dtypes.json beside this script
    /usr/bin/python3 torch/safetensors/testdata/safetensors_py.py check FILE
        reads FILE (written by Go) and checks it against dtypes.json

The Go tests read the committed files; TestPythonReadsGoFile runs "check"
when /usr/bin/python3 has torch, and skips that part otherwise.
"""

import json
import math
import os
import struct
import sys

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
# Where the output goes: here, or $GOLDEN_OUT (docs/testing.md: the
# cross-CPU measurement writes the files elsewhere and compares).
OUT = os.environ.get("GOLDEN_OUT") or HERE

DTYPES = {
    torch.bool: "BOOL", torch.uint8: "U8", torch.int8: "I8",
    torch.int16: "I16", torch.float16: "F16", torch.bfloat16: "BF16",
    torch.int32: "I32", torch.float32: "F32", torch.float64: "F64",
    torch.int64: "I64", torch.complex64: "C64",
}
FROM_NAME = {v: k for k, v in DTYPES.items()}


def raw_bytes(t):
    """The tensor's elements, row-major, as little-endian bytes."""
    assert sys.byteorder == "little"
    t = t.detach().cpu().contiguous().reshape(-1)
    return t.view(torch.uint8).numpy().tobytes()


def encode(tensors, metadata=None):
    """Returns a safetensors file holding tensors (a dict name -> tensor)."""
    order = sorted(tensors, key=lambda n: (-tensors[n].element_size(), n))
    offsets, pos, chunks = {}, 0, []
    for name in order:
        b = raw_bytes(tensors[name])
        offsets[name] = [pos, pos + len(b)]
        pos += len(b)
        chunks.append(b)
    header = {}
    if metadata is not None:
        header["__metadata__"] = metadata
    for name in sorted(tensors):
        t = tensors[name]
        header[name] = {"dtype": DTYPES[t.dtype], "shape": list(t.shape),
                        "data_offsets": offsets[name]}
    h = json.dumps(header, separators=(",", ":")).encode()
    h += b" " * (-len(h) % 8)
    return struct.pack("<Q", len(h)) + h + b"".join(chunks)


def save(path, tensors, metadata=None):
    with open(path, "wb") as f:
        f.write(encode(tensors, metadata))


def load(path):
    """Returns (tensors, metadata) of a safetensors file, checking that the
    tensors tile the data buffer exactly."""
    with open(path, "rb") as f:
        data = f.read()
    (n,) = struct.unpack("<Q", data[:8])
    assert 8 + n <= len(data), "header length beyond the file"
    header = json.loads(data[8:8 + n].decode("utf-8"))
    buf = data[8 + n:]
    metadata = header.pop("__metadata__", None)
    tensors, pos = {}, 0
    for name, info in sorted(header.items(), key=lambda kv: tuple(kv[1]["data_offsets"])):
        begin, end = info["data_offsets"]
        assert begin == pos, f"{name}: data_offsets {begin} != {pos}"
        dtype = FROM_NAME[info["dtype"]]
        shape = info["shape"]
        b = bytearray(buf[begin:end])
        assert len(b) == end - begin, f"{name}: truncated"
        size = torch.empty(0, dtype=dtype).element_size()
        assert len(b) == math.prod(shape) * size, f"{name}: size mismatch"
        if len(b) == 0:
            t = torch.empty(shape, dtype=dtype)
        else:
            t = torch.frombuffer(b, dtype=torch.uint8).view(dtype).reshape(shape).clone()
        tensors[name] = t
        pos = end
    assert pos == len(buf), "bytes after the last tensor"
    return tensors, metadata


# ---- the interop files ----

def zoo():
    """One tensor of every dtype both sides know, plus odd shapes."""
    g = torch.Generator().manual_seed(1)
    f = torch.randn(2, 3, generator=g)
    return {
        "f32": f,
        "f64": torch.randn(3, 2, generator=g, dtype=torch.float64),
        "f16": torch.tensor([1.0, -2.5, 65504.0, 6.1035e-05, 0.1], dtype=torch.float16),
        "bf16": torch.tensor([[1.0, -2.5], [3.0e38, 0.1]], dtype=torch.bfloat16),
        "i64": torch.tensor([-(2**63), 2**63 - 1, 0, -1]),
        "i32": torch.arange(-3, 3, dtype=torch.int32).reshape(2, 3),
        "i16": torch.tensor([-32768, 32767], dtype=torch.int16),
        "i8": torch.tensor([-128, 127, 5], dtype=torch.int8),
        "u8": torch.tensor([0, 255, 7], dtype=torch.uint8),
        "bool": torch.tensor([[True, False, True]]),
        "c64": torch.tensor([1 + 2j, -3.5 - 0.25j], dtype=torch.complex64),
        "scalar": torch.tensor(3.25),
        "empty": torch.zeros(0, 4),
        "transposed": f.t(),  # saved contiguous
        "nested.name.0.weight": torch.ones(1, 1, 1),
    }


ZOO_METADATA = {"format": "pt", "made_by": "safetensors_py.py"}


def describe(t):
    """What the Go test checks: dtype, shape, values, and raw bytes."""
    if t.dtype == torch.bool:
        values = [bool(v) for v in t.reshape(-1).tolist()]
    elif t.dtype.is_complex:
        values = [[float(v.real), float(v.imag)] for v in t.reshape(-1).tolist()]
    elif t.dtype.is_floating_point:
        values = [float(v) for v in t.double().reshape(-1).tolist()]
    else:
        values = [str(int(v)) for v in t.reshape(-1).tolist()]  # int64 exact
    return {"dtype": DTYPES[t.dtype], "shape": list(t.shape),
            "values": values, "hex": raw_bytes(t).hex()}


def make():
    tensors = zoo()
    save(os.path.join(OUT, "dtypes.safetensors"), tensors, ZOO_METADATA)
    expected = {"metadata": ZOO_METADATA,
                "tensors": {n: describe(t) for n, t in sorted(tensors.items())}}
    with open(os.path.join(OUT, "dtypes.json"), "w") as f:
        json.dump(expected, f, indent=1, sort_keys=True)
        f.write("\n")


def check(path, expected_path=os.path.join(HERE, "dtypes.json")):
    with open(expected_path) as f:
        expected = json.load(f)
    tensors, metadata = load(path)
    assert metadata == expected["metadata"], (metadata, expected["metadata"])
    assert sorted(tensors) == sorted(expected["tensors"]), sorted(tensors)
    for name, want in expected["tensors"].items():
        got = describe(tensors[name])
        assert got == want, f"{name}: got {got}, want {want}"
    print(f"ok: {len(tensors)} tensors match")


if __name__ == "__main__":
    if sys.argv[1:] == ["make"]:
        make()
    elif len(sys.argv) == 3 and sys.argv[1] == "check":
        check(sys.argv[2])
    else:
        sys.exit(__doc__)
