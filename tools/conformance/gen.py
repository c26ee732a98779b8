#!/usr/bin/env python3
"""Conformance data from PyTorch: OpInfo samples traced with make_fx.

For every OpInfo in torch.testing._internal.common_methods_invocations.op_db
(sorted by name and variant), a few sample inputs per dtype are traced with
make_fx(tracing_mode="fake") on the CPU. Each case records the FX readable
text (annotated with dtype, shape, strides and device), every node's storage
offset that is not 0, and, on small inputs, the eager value of every tensor
node (the traced graph run on real tensors, node by node). For float32
samples of ops that support autograd, a second case traces
torch.autograd.grad of the outputs, which reaches the backward ops. The
error_inputs of each OpInfo record the exception type and message PyTorch
raises eagerly.

Regenerate (a few minutes; the data is committed):
    nice -n 10 python3 tools/conformance/gen.py --out testdata/conformance/cases.jsonl.gz
CI re-runs a deterministic slice and compares it with the committed data:
    python3 tools/conformance/gen.py --slice 0/50 --check testdata/conformance/cases.jsonl.gz
"""
import argparse
import base64
import gzip
import json
import math
import sys
import warnings
import zlib

import torch
from torch.fx.experimental.proxy_tensor import make_fx
from torch.utils._pytree import tree_flatten, tree_unflatten

FORMAT = 1
SAMPLES_PER_DTYPE = 3  # cap per op for float32 and for backward: keeps the data a few MB
SAMPLES_OTHER = 2  # cap per op for the other dtypes
VALUE_NUMEL = 128  # eager values are recorded for tensors up to this many elements
DTYPES = [torch.float32, torch.int64, torch.bool, torch.complex64]
# Ops whose results are random, or undefined where PyTorch leaves memory
# uninitialized: types are recorded, values are not.
NO_VALUES_PREFIX = ("empty", "new_empty", "randn", "rand", "normal", "bernoulli", "multinomial", "uniform",
                    "exponential", "geometric", "cauchy", "log_normal", "randint", "nn.functional.dropout",
                    "nn.functional.alpha_dropout", "nn.functional.feature_alpha_dropout", "nn.functional.rrelu",
                    "resize_", "resize_as_", "nn.functional.fractional_max_pool", "randperm", "poisson")

DT = {torch.float32: "f32", torch.float64: "f64", torch.float16: "f16", torch.bfloat16: "bf16",
      torch.int64: "i64", torch.int32: "i32", torch.int16: "i16", torch.int8: "i8", torch.uint8: "u8",
      torch.bool: "b8", torch.complex64: "c64", torch.complex128: "c128", torch.complex32: "c32",
      torch.uint16: "u16", torch.uint32: "u32", torch.uint64: "u64"}


def op_id(op):
    return op.name + ("." + op.variant_test_name if op.variant_test_name else "")


def seed_of(text):
    return zlib.crc32(text.encode()) & 0x7FFFFFFF


def tensor_bytes(t):
    """The little-endian bytes of t's whole storage."""
    st = t.untyped_storage()
    return bytes(st.cpu()) if st.nbytes() else b""


def storage_record(t):
    return {"dtype": DT[t.dtype], "shape": list(t.shape), "strides": list(t.stride()),
            "offset": t.storage_offset(), "data": base64.b64encode(tensor_bytes(t)).decode()}


def value_record(t):
    c = t.detach().contiguous()
    if c.is_conj():
        c = c.resolve_conj()
    if c.is_neg():
        c = c.resolve_neg()
    return {"dtype": DT[c.dtype], "shape": list(c.shape),
            "data": base64.b64encode(c.numpy().tobytes() if c.dtype not in (torch.bfloat16, torch.complex32)
                                     else bytes(c.untyped_storage())).decode()}


def fake_type(v):
    if isinstance(v, torch.Tensor):
        return v
    return None


def flatten_sample(s):
    leaves, spec = tree_flatten((s.input, s.args, s.kwargs))
    pos = [i for i, x in enumerate(leaves) if isinstance(x, torch.Tensor)]
    return leaves, spec, pos


def call_with(op, leaves, spec, pos, tensors):
    leaves = list(leaves)
    for i, t in zip(pos, tensors):
        leaves[i] = t
    inp, args, kwargs = tree_unflatten(leaves, spec)
    return op(inp, *args, **kwargs)


def grad_fn(op, leaves, spec, pos, ngrad_out, req):
    """f(*inputs, *grad_outputs) -> grads of the float outputs w.r.t. the inputs in req."""

    def f(*ts):
        ins, gos = ts[: len(pos)], ts[len(pos):]
        ins = [t.requires_grad_(True) if i in req else t for i, t in enumerate(ins)]
        out = call_with(op, leaves, spec, pos, ins)
        outs = [o for o in tree_flatten(out)[0] if isinstance(o, torch.Tensor) and o.requires_grad]
        assert len(outs) == ngrad_out
        return torch.autograd.grad(outs, [ins[i] for i in sorted(req)], gos, allow_unused=True)

    return f


# Ops whose results are uninitialized memory: no value to compare.
UNINITIALIZED = {"empty", "empty_like", "new_empty", "empty_strided", "new_empty_strided", "empty_permuted"}


def has_value(n):
    """Whether a node's eager result is defined by its inputs (not random,
    not uninitialized memory)."""
    t = n.target
    if not isinstance(t, torch._ops.OpOverload):
        return True
    return t._opname not in UNINITIALIZED and torch.Tag.nondeterministic_seeded not in t.tags


def node_values(gm, tensors):
    """Runs gm on real tensors node by node; returns {key: value record},
    each taken when its node ran (a later in-place op must not change it)."""
    rec, forced = {}, []

    class Rec(torch.fx.Interpreter):
        def run_node(self, n):
            r = super().run_node(n)
            if n.op == "call_function" and not has_value(n):
                # Random or uninitialized: recorded so that kiln can go on
                # with PyTorch's numbers, never compared.
                forced.append(n.name)
            if n.op == "call_function":
                if isinstance(r, torch.Tensor):
                    if small(r):
                        rec[n.name] = value_record(r)
                elif isinstance(r, (list, tuple)):
                    for i, x in enumerate(r):
                        if small(x):
                            rec[f"{n.name}[{i}]"] = value_record(x)
            return r

    Rec(gm).run(*tensors)
    return rec, forced


def small(t):
    return isinstance(t, torch.Tensor) and t.numel() <= VALUE_NUMEL and t.layout == torch.strided and t.dtype in DT


def trace_case(name, fn, tensors, want_values):
    gm = make_fx(fn, tracing_mode="fake")(*[t.detach().clone() if False else t for t in tensors])
    text = gm.print_readable(print_output=False, include_stride=True, include_device=True)
    text = text.replace("        # No stacktrace found for following nodes\n", "")
    offsets = {}
    for n in gm.graph.nodes:
        vs = n.meta.get("val")
        for i, v in enumerate(vs if isinstance(vs, (list, tuple)) else [vs]):
            if isinstance(v, torch.Tensor) and v.storage_offset() != 0:
                key = n.name if not isinstance(vs, (list, tuple)) else f"{n.name}[{i}]"
                offsets[key] = int(v.storage_offset())
    case = {"case": name, "fx": text}
    if offsets:
        case["offsets"] = offsets
    if want_values and all(small(t) for t in tensors):
        ins = [t.detach().clone() for t in tensors]
        case["inputs"] = [storage_record(t) for t in ins]
        consts = {n.name: storage_record(getattr(gm, n.target)) for n in gm.graph.nodes
                  if n.op == "get_attr" and small(getattr(gm, n.target, None))}
        if consts:
            case["consts"] = consts  # tensors the op made inside (torch.tensor(...)), lifted by make_fx
        torch.manual_seed(0)
        case["values"], forced = node_values(gm, [t.clone() for t in ins])
        if forced:
            case["forced"] = forced
    return case


def samples(op, dtype, requires_grad=False):
    torch.manual_seed(seed_of(op_id(op) + str(dtype)))
    cap = SAMPLES_PER_DTYPE if dtype == torch.float32 else SAMPLES_OTHER
    out = []
    try:
        for s in op.sample_inputs("cpu", dtype, requires_grad=requires_grad):
            out.append(s)
            if len(out) == cap:
                break
    except Exception as e:  # a sample generator that fails on this build
        return out, f"{type(e).__name__}: {e}"
    return out, None


def op_cases(op):
    oid = op_id(op)
    want_values = not oid.startswith(NO_VALUES_PREFIX) and not op.name.startswith(NO_VALUES_PREFIX)
    supported = op.supported_dtypes("cpu")
    for dtype in DTYPES:
        if dtype not in supported:
            continue
        ss, err = samples(op, dtype)
        for k, s in enumerate(ss):
            name = f"{oid}/{DT[dtype]}/{k}"
            leaves, spec, pos = flatten_sample(s)
            tensors = [leaves[i].detach() for i in pos]
            fn = lambda *ts, leaves=leaves, spec=spec, pos=pos: call_with(op, leaves, spec, pos, ts)
            yield guarded(name, lambda: trace_case(name, fn, tensors, want_values))
    if op.supports_autograd and torch.float32 in op.supported_backward_dtypes("cpu"):
        ss, err = samples(op, torch.float32, requires_grad=True)
        for k, s in enumerate(ss):
            name = f"{oid}/f32/{k}/grad"
            yield guarded(name, lambda s=s, name=name: grad_case(op, s, name, want_values))
    try:
        torch.manual_seed(seed_of(oid + "error"))
        errs = list(op.error_inputs("cpu"))[:SAMPLES_PER_DTYPE]
    except Exception:
        errs = []
    for k, e in enumerate(errs):
        yield error_case(op, e, f"{oid}/error/{k}")


def grad_case(op, s, name, want_values):
    leaves, spec, pos = flatten_sample(s)
    tensors = [leaves[i].detach() for i in pos]
    req = {i for i, p in enumerate(pos) if leaves[p].requires_grad}
    ins = [t.clone().requires_grad_(i in req) for i, t in enumerate(tensors)]
    out = call_with(op, leaves, spec, pos, ins)
    outs = [o for o in tree_flatten(out)[0] if isinstance(o, torch.Tensor) and o.requires_grad]
    if not outs or not req:
        return None
    torch.manual_seed(seed_of(name))
    gos = [torch.randn(o.shape, dtype=o.dtype) for o in outs]
    return trace_case(name, grad_fn(op, leaves, spec, pos, len(outs), req), tensors + gos, want_values)


def error_case(op, e, name):
    s = e.sample_input
    try:
        call_with(op, *flatten_sample(s), [x for x in tree_flatten((s.input, s.args, s.kwargs))[0]
                                           if isinstance(x, torch.Tensor)])
    except Exception as ex:
        return {"case": name, "error": {"type": type(ex).__name__, "msg": str(ex).split("\n")[0]}}
    return {"case": name, "error": {"type": "", "msg": "no error raised"}}


def guarded(name, thunk):
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return thunk()
    except Exception as e:
        msg = str(e).strip().split("\n")[0][:200]
        return {"case": name, "skip": f"PyTorch cannot trace it: {type(e).__name__}: {msg}"}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", help="write the data here")
    ap.add_argument("--slice", default="0/1", help="K/N: only ops whose index in the sorted op list is K mod N")
    ap.add_argument("--ops", help="comma-separated op ids (name or name.variant)")
    ap.add_argument("--check", help="compare the slice with this committed file; exit 1 on a difference")
    a = ap.parse_args()
    from torch.testing._internal.common_methods_invocations import op_db

    k, n = map(int, a.slice.split("/"))
    ops = sorted(op_db, key=op_id)
    ops = [o for i, o in enumerate(ops) if i % n == k]
    if a.ops:
        want = set(a.ops.split(","))
        ops = [o for o in ops if op_id(o) in want]
    header = {"format": FORMAT, "torch": torch.__version__, "generator": "tools/conformance/gen.py",
              "samples_per_dtype": SAMPLES_PER_DTYPE, "value_numel": VALUE_NUMEL,
              "regenerate": "nice -n 10 python3 tools/conformance/gen.py --out testdata/conformance/cases.jsonl.gz"}
    lines = [json.dumps(header, sort_keys=True)]
    torch.set_default_dtype(torch.float32)
    for op in ops:
        for c in op_cases(op):
            if c is not None:
                c["op"] = op_id(op)
                lines.append(json.dumps(c, sort_keys=True, separators=(",", ":")))
        print(op_id(op), file=sys.stderr)
    if a.check:
        sys.exit(check(lines, a.check, {op_id(o) for o in ops}))
    data = ("\n".join(lines) + "\n").encode()
    if a.out.endswith(".gz"):
        data = gzip.compress(data, mtime=0)
    with open(a.out, "wb") as f:
        f.write(data)


def check(lines, path, ids):
    """Committed cases of the slice's ops must equal the regenerated ones
    (values within torch.testing tolerances: eager kernels may round
    differently on another CPU)."""
    with (gzip.open if path.endswith(".gz") else open)(path, "rt") as f:
        committed = [json.loads(l) for l in f.read().splitlines()[1:]]
    old = {c["case"]: c for c in committed if c["op"] in ids}
    new = {c["case"]: c for c in (json.loads(l) for l in lines[1:])}
    bad = []
    for name in sorted(set(old) | set(new)):
        o, n = old.get(name), new.get(name)
        if o is None or n is None:
            bad.append(f"{name}: {'new case' if o is None else 'case disappeared'}")
            continue
        ov, nv = o.pop("values", {}), n.pop("values", {})
        if o != n:
            bad.append(f"{name}: types, graph or error text differ")
        for key in sorted(set(ov) | set(nv)):
            if not same_value(ov.get(key), nv.get(key)):
                bad.append(f"{name}: value of {key} differs")
    for b in bad:
        print("conformance check:", b, file=sys.stderr)
    print(f"conformance check: {len(new)} cases of {len(ids)} ops, {len(bad)} differences", file=sys.stderr)
    return 1 if bad else 0


def same_value(a, b):
    if a is None or b is None or a["dtype"] != b["dtype"] or a["shape"] != b["shape"]:
        return a == b
    if a["data"] == b["data"]:
        return True
    inv = {v: k for k, v in DT.items()}
    ta, tb = (torch.frombuffer(bytearray(base64.b64decode(x["data"])), dtype=inv[x["dtype"]]) for x in (a, b))
    try:
        torch.testing.assert_close(ta, tb, equal_nan=True)
        return True
    except AssertionError:
        return False


if __name__ == "__main__":
    main()
