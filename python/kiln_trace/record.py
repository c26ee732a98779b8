"""Record a live program at the dispatcher in kiln's op-trace format.

One JSON object per ATen call (the format is documented in kiln's
frontend/optrace/optrace.go):

    {"op": "aten::addmm.default", "args": [{"tensor": "t0", "dtype": "torch.float32", "shape": [3],
     "stride": [1], "storage_offset": 0, "device": "cpu"}, ...], "kwargs": {}, "outputs": [...],
     "file": "model.py", "line": 12}

Tensors are named by identity (t0, t1, ...): a name first seen as an argument is
a graph input, described where it first appears; an in-place op returns the
tensor it was given, so its name stays.
"""
import contextlib
import json
import math
import os
import sys
import traceback

import torch
from torch.utils._python_dispatch import TorchDispatchMode
from torch.utils.weak import WeakIdKeyDictionary

_TORCH_DIR = os.path.dirname(torch.__file__)


class _Recorder(TorchDispatchMode):
    def __init__(self, out):
        super().__init__()
        self.out = out
        self.names = WeakIdKeyDictionary()
        self.count = 0
        self.calls = 0
        self.returned = None

    def name(self, t):
        n = self.names.get(t)
        if n is None:
            n = f"t{self.count}"
            self.count += 1
            self.names[t] = n
        return n

    def tensor(self, t, describe):
        d = {"tensor": self.name(t)}
        if describe:
            d.update(dtype=str(t.dtype), shape=[_int(s) for s in t.shape], stride=[_int(s) for s in t.stride()],
                     storage_offset=_int(t.storage_offset()), device=str(t.device))
        return d

    def encode(self, x, describe=False):
        if isinstance(x, torch.Tensor):
            return self.tensor(x, describe or x not in self.names)
        if isinstance(x, (list, tuple)):
            return [self.encode(e, describe) for e in x]
        if isinstance(x, bool) or x is None or isinstance(x, (int, str)):
            return x
        if isinstance(x, float):
            if math.isinf(x):
                return "inf" if x > 0 else "-inf"
            if math.isnan(x):
                return "nan"
            return x
        if isinstance(x, torch.dtype):
            return {"dtype": str(x)}
        if isinstance(x, torch.device):
            return {"device": str(x)}
        if isinstance(x, (torch.memory_format, torch.layout)):
            return {"enum": str(x)}
        if isinstance(x, torch.SymInt):
            return {"sym": str(x)}
        return str(x)

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        rec = {"op": _op_name(func), "args": [self.encode(a) for a in args],
               "kwargs": {k: self.encode(v) for k, v in kwargs.items()}}
        out = func(*args, **kwargs)
        outs = list(out) if isinstance(out, (tuple, list)) else [out]
        rec["outputs"] = [self.encode(o, describe=True) for o in outs]
        where = _user_frame()
        if where:
            rec["file"], rec["line"] = where
        self.out.write(json.dumps(rec) + "\n")
        self.calls += 1
        return out

    def set_outputs(self, *tensors):
        """Name the program's outputs (default: the last call's)."""
        self.returned = [self.encode(t) for t in tensors]


def _int(s):
    return int(s) if not isinstance(s, torch.SymInt) else {"sym": str(s)}


def _op_name(func):
    ns, _, name = func._schema.name.partition("::")
    return f"{ns}::{name}.{func._overloadname}"


def _user_frame():
    for fr in reversed(traceback.extract_stack(limit=40)):
        if not fr.filename.startswith(_TORCH_DIR) and not fr.filename.startswith(os.path.dirname(__file__)):
            return fr.filename, fr.lineno
    return None


@contextlib.contextmanager
def record(path):
    """Record every ATen call made inside the block into path (kiln's op trace).

    The yielded recorder's set_outputs(*tensors) names the program's outputs;
    without it the last call's outputs are the graph's."""
    with open(path, "w") as f:
        rec = _Recorder(f)
        with rec:
            yield rec
        if rec.returned is not None:
            f.write(json.dumps({"return": rec.returned}) + "\n")
