#!/usr/bin/env python3
"""Regression cases for the aten pass (testdata/aten/*.txtar): one Dynamo
graph per rewrite kind, printed by PyTorch as TORCH_LOGS=graph_code shows it,
with PyTorch eager's outputs on the inputs kiln's interp makes (seed 1), so
that `go test ./passes/aten` checks the rewritten graph against eager
without PyTorch.

    python3 tools/aten_cases/gen.py testdata/aten

For each case it writes the comment, `pipeline` (fakeprop,aten), `input.fx`
and `eager`; the expected `output.fx`, `remarks` and `diagnostics` come
from `go test ./passes/aten -update`. A case named in KEPT holds calls the
pass refuses: it has no eager section (interp cannot run a graph left
Dynamo-level) and says why in `novalidate`.
"""
import os
import re
import subprocess
import sys
import tempfile
import warnings

import numpy as np
import torch
import torch._dynamo
import torch.nn.functional as F

warnings.filterwarnings("ignore")
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "tools", "e2e_judge"))
import judge  # noqa: E402  (runnable: an FX printout as a module)

SEED = 1  # interp's input seed, passes/aten's regress_test.go eagerSeed


def capture(fn, *args):
    graphs = []

    def backend(gm, example_inputs):
        graphs.append(gm.print_readable(print_output=False, include_stride=True, include_device=True))
        return gm.forward

    torch._dynamo.reset()
    with torch.no_grad():
        torch.compile(fn, backend=backend, fullgraph=True)(*args)
    assert len(graphs) == 1, fn.__name__
    text = graphs[0].replace(ROOT + os.sep, "")
    return re.sub(r"File: \S*/site-packages/", "File: site-packages/", text)


def routed(x, w, b, m, y):
    h = F.layer_norm(F.gelu(F.linear(x, w, b)), (8,))
    h = h.view(-1, 2, 4).transpose(1, 2).reshape(4, 8)
    a = torch.softmax(h.masked_fill(m, -1e9), dim=-1)
    s = a.sum(dim=1, keepdim=True) * x.mean()
    top = torch.topk(x, 2, dim=-1).values
    parts = torch.split(y, [1, 2], dim=1)
    return s, 2 - x, 1.0 / (x.abs() + 1), 2 ** x, top, parts[0] * 2, parts[1].float()


def getitem(x):
    idx, i2 = torch.arange(3), torch.tensor([2, 0])
    return x[:, -1], x[..., 0], x[None, 1:3], x[i2], x[:, i2], x[1:, None, ::2], x[idx, 1], x[...]


def setitem_inplace(x, y):
    x = x.clone()
    x.add_(y)
    x.mul_(2)
    x[:, 0] = 1.0
    x[1] = y[0]
    x[torch.tensor([0, 2])] = 3.0
    x += y
    x.masked_fill_(x > 3, 0.0)
    x[1:3, 2:4] *= 2
    return x, x.clamp_min(0.5)


def python_functions(x, z):
    up = F.interpolate(x, scale_factor=2, mode="nearest")
    n = F.normalize(z, dim=1)
    sel = z.index_select(1, torch.tensor([0, 2]))
    return up, n, sel, torch.tensor(3.5) * z, torch.tensor([[1, 2], [3, 4]]) + 1


def composites(x, y, q, x3):
    labels = torch.arange(4) % 3
    causal = torch.ones(5, 5).tril().bool()
    return (F.dropout(x, p=0.1, training=False), F.pad(x, (1, 2), value=0.5), F.group_norm(x3, 2),
            F.cross_entropy(x, labels), torch.repeat_interleave(q, 2, dim=1),
            F.scaled_dot_product_attention(q, q, q, attn_mask=causal), F.scaled_dot_product_attention(q, q, q, is_causal=True),
            F.one_hot(labels, 3), torch.min(x, y), torch.max(x, y), x.T,
            torch.einsum("ij,kj->ki", x, y), torch.einsum("bhqd,bhkd->bhqk", q, q), torch.einsum("ij,ik->j", x, y))


def kept(x):
    return F.pad(x, (1, 1, 1, 1), mode="reflect"), F.interpolate(x, scale_factor=2, mode="bilinear")


CASES = [
    ("routed", "Routed calls become the ATen overload PyTorch's Python bindings pick: F.linear, F.gelu, F.layer_norm, view,\n"
     "transpose, reshape, masked_fill, softmax(dim=), sum(dim, keepdim), x * y; `2 - x` is rsub, `1.0 / x`\n"
     "reciprocal then mul (Tensor.__rtruediv__), `2 ** x` pow.Scalar; torch.topk and torch.split become one node\n"
     "with a result per element, taking over the getitem nodes that picked from the tuple.",
     routed, (torch.randn(4, 8), torch.randn(8, 8), torch.randn(8), torch.rand(4, 8) > 0.5, torch.randn(4, 3))),
    ("getitem", "x[index] as python_variable_indexing.cpp applies it: None unsqueezes, a slice is slice.Tensor(dim,\n"
     "start or 0, stop or INT64_MAX, step or 1), an int selects, Ellipsis skips dims, tensors index with one\n"
     "index.Tensor after the basic parts; x[...] is alias(x).", getitem, (torch.randn(4, 5, 6),)),
    ("setitem_inplace", "In-place methods, x += y, and x[index] = v: the ATen in-place op (add_, mul_, masked_fill_),\n"
     "fill_ of a number into the view, copy_ of a tensor into it, index_put_ when a tensor indexes;\n"
     "x[1:3, 2:4] *= 2 is mul_ on the view, then a copy_ of it into itself.",
     setitem_inplace, (torch.randn(4, 5), torch.randn(4, 5))),
    ("python_functions", "Python functions with no ATen op expand into the ATen calls of their bodies:\n"
     "F.interpolate(mode='nearest') is upsample_nearest2d with the scales, F.normalize linalg_vector_norm,\n"
     "clamp_min, expand, div; torch.tensor of a literal scalar_tensor (stacked for a list).",
     python_functions, (torch.randn(1, 2, 3, 3), torch.randn(3, 4))),
    ("composites", "CompositeImplicitAutograd ops a Python call reaches are replaced by what their C++ bodies call, as\n"
     "AOTAutograd's trace records them: dropout in eval mode is its input, pad constant_pad_nd, group_norm\n"
     "native_group_norm, cross_entropy _log_softmax + nll_loss_forward, repeat_interleave unsqueeze/expand/\n"
     "clone/view, scaled_dot_product_attention the CPU flash kernel (a bool mask made additive first),\n"
     "one_hot eq against arange, torch.min/max of two tensors minimum/maximum, x.T permute, einsum of two\n"
     "operands permutes, reshapes and one bmm (labels one operand alone has summed first).",
     composites, (torch.randn(4, 3), torch.randn(4, 3), torch.randn(1, 2, 5, 4), torch.randn(2, 4, 3))),
    ("kept", "Calls the pass does not rewrite stay Dynamo-level with an aten-kept warning naming what is missing\n"
     "(lowering then stops on them with no-lowering): F.pad(mode='reflect'), F.interpolate(mode='bilinear').",
     kept, (torch.randn(1, 2, 3, 3),)),
]
KEPT = {"kept": "the graph stays Dynamo-level: interp cannot run it"}


def eager_section(path, text):
    """PyTorch eager's outputs of the printout on interp's seed inputs."""
    with tempfile.TemporaryDirectory() as d:
        fx = os.path.join(d, "g.fx")
        open(fx, "w").write(text)
        subprocess.run(["go", "run", "./cmd/kiln", "run", "-passes", "fakeprop,aten", "-seed", str(SEED),
                        "-save-inputs", os.path.join(d, "in"), fx], cwd=ROOT, check=True, capture_output=True)
        specs = judge.inputs_of(text)
        ins = [judge.load(os.path.join(d, "in", name + ".npy"), judge.DTYPES[dt]) for name, dt, _, _ in specs]
    with torch.no_grad():
        outs = judge.runnable(text)(*ins)
    lines = []
    for i, o in enumerate(outs if isinstance(outs, (tuple, list)) else (outs,)):
        dt = {v: k for k, v in judge.DTYPES.items()}[o.dtype]
        vals = " ".join("%.9g" % v for v in o.double().flatten().tolist())
        lines.append(f"out{i} {dt}{list(o.shape)} {vals}")
    return "\n".join(lines) + "\n"


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "testdata", "aten")
    os.makedirs(out, exist_ok=True)
    torch.manual_seed(0)
    for name, doc, fn, args in CASES:
        text = capture(fn, *args)
        parts = [doc + f"\n(Generated by tools/aten_cases/gen.py with PyTorch {torch.__version__}.)\n",
                 "-- pipeline --\nfakeprop,aten\n", "-- input.fx --\n" + text]
        if name in KEPT:
            parts.append("-- novalidate --\n" + KEPT[name] + "\n")
        else:
            parts.append("-- eager --\n" + eager_section(out, text))
        path = os.path.join(out, name + ".txtar")
        open(path, "w").write("".join(parts))
        print("wrote", path)


if __name__ == "__main__":
    main()
