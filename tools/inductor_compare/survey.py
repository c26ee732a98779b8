"""Held-out breadth: kernel counts, kiln against Inductor, on small graphs
a user writes that the other lists here do not cover.

Each program is traced the way compare.py traces (make_fx, the same FX
text), compiled by kiln (post-fusion IR dump for the count, the Go module
for the values) and by torch.compile (Inductor, CPU). The table gives, per
graph, kiln's loop kernels, Inductor's fused kernels (the kernels its
scheduler formed), whether kiln's count is at most Inductor's, Inductor's
C++ functions with the loop nests inside them, extern and fallback calls
on each side, and whether every output of kiln's generated Go equals eager
(torch._dynamo.utils.same against a float64 run; integer and bool outputs
exactly). With --write FILE it replaces the table between the survey
markers in FILE (docs/benchmarks.md).

Why fused kernels and not functions: Inductor's CPU backend (torch 2.15,
torch/_inductor/codegen/cpp.py, CppScheduling.codegen_node and flush) puts
every consecutive fused node into one cpp_fused_* function and closes it
only at an extern call, a template, a device change or past 500 arguments
(the codegen loop in torch/_inductor/scheduler.py); one function can hold
several fused kernels, each a pass over memory, each what kiln calls a
kernel. compare.inductor_run says how each count is read.

    nice -n 10 python3 tools/inductor_compare/survey.py --write docs/benchmarks.md

Shapes are small (a few KB): this counts kernels, it does not time them.
NOTES says, per graph where kiln is above Inductor, why.
"""

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

import numpy as np
import torch
import torch.nn.functional as F
from torch._dynamo.utils import same
from torch.fx.experimental.proxy_tensor import make_fx

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from compare import (KERNEL_COLS, KERNEL_HEADS, at_most, fx_text, inductor_run, kernel_cells,  # noqa: E402
                     kiln_kernels, replace_between, run, train)

BEGIN = "<!-- inductor_compare:survey:begin -->"
END = "<!-- inductor_compare:survey:end -->"
bf16 = torch.bfloat16


# Inputs: a shape tuple is float32 randn; these name other kinds.
def mask(*shape):
    return ("bool", shape)


def index(high, *shape):
    return ("i64", shape, high)


def offsets(*values):
    return ("off", values)


def make_input(spec):
    if isinstance(spec, tuple) and spec and isinstance(spec[0], str):
        if spec[0] == "off":
            return torch.tensor(spec[1])
        if spec[0] == "bool":
            return torch.rand(spec[1]) > 0.5
        return torch.randint(0, spec[2], spec[1])
    return torch.randn(spec)


def mask_put(x, m, v):
    x = x.clone()
    x[m] = v
    return x


def cat_pointwise(x, y):
    return torch.cat([x.sin(), y * 2], dim=1)


def as_strided_scatter(x, y):
    return torch.as_strided_scatter(x * 2, y, (3, 3), (7, 2), 1)


def batch_norm_eval(x, m, v, w, b):
    return F.batch_norm(x, m, v.abs() + 0.5, w, b, training=False, eps=1e-5)


def roll_tri(x, y):
    return x.roll(-3) + x.roll((2, -1), (2, 0)) + torch.triu(y, -1).unsqueeze(0) * torch.tril(x, 1)


# name, function, input specs.
PROGRAMS = [
    ("log_softmax dim=0, 3-d", lambda x: torch.log_softmax(x, 0), [(4, 5, 6)]),
    ("log_softmax dim=1, 3-d", lambda x: torch.log_softmax(x, 1), [(4, 5, 6)]),
    ("log_softmax dim=2, 3-d", lambda x: torch.log_softmax(x, 2), [(4, 5, 6)]),
    ("softmax dim=0, 4-d", lambda x: torch.softmax(x, 0), [(3, 4, 5, 6)]),
    ("softmax dim=1, 4-d", lambda x: torch.softmax(x, 1), [(3, 4, 5, 6)]),
    ("softmax dim=2, 4-d", lambda x: torch.softmax(x, 2), [(3, 4, 5, 6)]),
    ("var(dim=1), 3-d", lambda x: torch.var(x, 1), [(4, 5, 6)]),
    ("var_mean(dim=1), 3-d", lambda x: torch.var_mean(x, 1), [(4, 5, 6)]),
    ("std(dim=1, keepdim), 3-d", lambda x: torch.std(x, 1, keepdim=True), [(4, 5, 6)]),
    ("mean over dims (0, 2), 3-d", lambda x: x.mean((0, 2)), [(4, 5, 6)]),
    ("mean over dims (2, 3), 4-d", lambda x: x.mean((2, 3)), [(2, 3, 4, 5)]),
    ("amax(dim=0)", lambda x: x.amax(0), [(8, 6)]),
    ("argmax(dim=0)", lambda x: x.argmax(0), [(8, 6)]),
    ("sum of x.t() over dim 1", lambda x: x.t().sum(1), [(8, 6)]),
    ("sum(exp(x.permute(2, 0, 1)), -1)", lambda x: x.permute(2, 0, 1).exp().sum(-1), [(4, 5, 6)]),
    ("x.permute(0, 2, 1) + y", lambda x, y: x.permute(0, 2, 1) + y, [(4, 5, 6), (4, 6, 5)]),
    ("(x.t() * 2).contiguous()", lambda x: (x.t() * 2).contiguous(), [(8, 6)]),
    ("x.t() + b", lambda x, b: x.t() + b, [(8, 6), (8,)]),
    ("x + y.t(), broadcast column", lambda x, y: x + y.t() * x[:, :1], [(6, 8), (8, 6)]),
    ("layer_norm of x.transpose(1, 2)", lambda x, w, b: F.layer_norm(x.transpose(1, 2), (5,), w, b),
     [(4, 5, 6), (5,), (5,)]),
    ("batch_norm inference, NCHW", batch_norm_eval, [(2, 3, 4, 5), (3,), (3,), (3,), (3,)]),
    ("group_norm(2 groups), NCHW", lambda x, w, b: F.group_norm(x, 2, w, b), [(2, 4, 3, 3), (4,), (4,)]),
    ("diagonal_scatter(x, y)", lambda x, y: torch.diagonal_scatter(x, y.exp()), [(6, 6), (6,)]),
    ("as_strided_scatter(x * 2, y)", as_strided_scatter, [(6, 7), (3, 3)]),
    ("x[mask] = v (index_put, bool mask)", mask_put, [(6, 7), mask(6, 7), ()]),
    ("masked_fill(x * 2, m, 0)", lambda x, m: (x * 2).masked_fill(m, 0.0), [(6, 7), mask(6, 7)]),
    ("(x * 2).masked_scatter(m, s), broadcast mask", lambda x, m, s: (x * 2).masked_scatter(m, s),
     [(6, 7), mask(7), (50,)]),
    ("where(x > 0, x, y * 2)", lambda x, y: torch.where(x > 0, x, y * 2), [(6, 7), (6, 7)]),
    ("cumsum(x * 2, 1)", lambda x: torch.cumsum(x * 2, 1), [(6, 7)]),
    ("cumsum(exp(x), 0), 3-d", lambda x: torch.cumsum(x.exp(), 0), [(4, 5, 6)]),
    ("cumsum(x * 2, -1), 3-d", lambda x: torch.cumsum(x * 2, -1), [(4, 5, 6)]),
    ("cumprod(sigmoid(x) + 0.5, 1)", lambda x: torch.cumprod(x.sigmoid() + 0.5, 1), [(6, 7)]),
    ("positions: m.cumsum(1) * m - 1, int mask", lambda m: m.cumsum(1) * m - 1, [index(2, 6, 7)]),
    ("x - x.mean(1, keepdim=True)", lambda x: x - x.mean(1, keepdim=True), [(4, 5, 6)]),
    ("x.sum(0), x.sum(1)", lambda x: (x.sum(0), x.sum(1)), [(8, 6)]),
    ("cat([sin(x), y * 2], 1)", cat_pointwise, [(4, 5), (4, 3)]),
    ("x.expand(4, 5, 6).sum(2)", lambda x: x.expand(4, 5, 6).sum(2), [(5, 1)]),
    ("x.expand(4, 5, 6) * y, sum(0)", lambda x, y: (x.expand(4, 5, 6) * y).sum(0), [(5, 6), (4, 5, 6)]),
    ("sigmoid/tanh/clamp through bf16", lambda x: x.to(bf16).sigmoid().tanh().clamp(-0.5, 0.5).float(),
     [(6, 7)]),
    ("(bf16(x) + bf16(y)).float() * 2", lambda x, y: (x.to(bf16) + y.to(bf16)).float() * 2, [(6, 7), (6, 7)]),
    ("sum(bf16(x), 1) in f32", lambda x: x.to(bf16).sum(1, dtype=torch.float32), [(6, 7)]),
    ("x - x.mean(0)", lambda x: x - x.mean(0), [(8, 6)]),
    ("var(dim=0), 3-d", lambda x: torch.var(x, 0), [(4, 5, 6)]),
    ("logsumexp(dim=1), 3-d", lambda x: torch.logsumexp(x, 1), [(4, 5, 6)]),
    ("F.normalize(x, dim=1)", lambda x: F.normalize(x, dim=1), [(4, 5, 6)]),
    ("x.amax(1) - x.amin(1)", lambda x: x.amax(1) - x.amin(1), [(8, 6)]),
    ("x - x.mean((0, 2, 3), keepdim=True), NCHW", lambda x: x - x.mean((0, 2, 3), keepdim=True), [(2, 3, 4, 5)]),
    ("((x - y) ** 2).mean()", lambda x, y: ((x - y) ** 2).mean(), [(6, 7), (6, 7)]),
    ("softmax(x.transpose(1, 2), -1)", lambda x: torch.softmax(x.transpose(1, 2), -1), [(4, 5, 6)]),
    ("where(m, exp(x), 0).sum(1)", lambda x, m: torch.where(m, x.exp(), 0.0).sum(1), [(6, 7), mask(6, 7)]),
    ("x.flip(1) + x", lambda x: x.flip(1) + x, [(6, 7)]),
    ("x[:, ::2] + x[:, 1::2]", lambda x: x[:, ::2] + x[:, 1::2], [(6, 8)]),
    ("layer_norm in bf16", lambda x, w, b: F.layer_norm(x.to(bf16), (7,), w.to(bf16), b.to(bf16)).float(),
     [(6, 7), (7,), (7,)]),
    ("silu(x) * y, then sum(-1)", lambda x, y: (F.silu(x) * y).sum(-1), [(6, 7), (6, 7)]),
    ("softmax(x, 1) * y, 3-d", lambda x, y: torch.softmax(x, 1) * y, [(4, 5, 6), (4, 5, 6)]),
    ("x.sum(1, keepdim) + y.sum(1, keepdim)", lambda x, y: x.sum(1, keepdim=True) + y.sum(1, keepdim=True),
     [(6, 7), (6, 7)]),
    ("gelu(x) + gelu(y).t()", lambda x, y: F.gelu(x) + F.gelu(y).t(), [(6, 7), (7, 6)]),
    ("softmax(x, 1).sum(2), 3-d", lambda x: torch.softmax(x, 1).sum(2), [(4, 5, 6)]),
    ("x.sum(2).amax(1), 3-d", lambda x: x.sum(2).amax(1), [(4, 5, 6)]),
    ("x.sum(2).amax(1), 3-d, sum over 8", lambda x: x.sum(2).amax(1), [(4, 5, 8)]),
    ("where(a > 0, exp(b), c * 2) + sin(d)", lambda a, b, c, d: torch.where(a > 0, b.exp(), c * 2) + d.sin(),
     [(6, 7), (6, 7), (6, 7), (6, 7)]),
    ("x + relu(y) + sigmoid(z)", lambda x, y, z: x + y.relu() + z.sigmoid(), [(6, 7), (6, 7), (6, 7)]),
    ("exp(x) + z * 2 + y.sum(1, keepdim)", lambda x, y, z: x.exp() + z * 2 + y.sum(1, True),
     [(6, 7), (6, 7), (6, 7)]),
    ("x.sum(1, keepdim) * exp(y)", lambda x, y: x.sum(1, True) * y.exp(), [(6, 7), (6, 7)]),
    ("x.amax(1) - y.sum(1)", lambda x, y: x.amax(1) - y.sum(1), [(6, 7), (6, 7)]),
    ("(x * 2 + exp(y)).sum(1), 3-d", lambda x, y: (x * 2 + y.exp()).sum(1), [(4, 5, 6), (4, 5, 6)]),
    ("x[idx] * 2 (index_select)", lambda x, i: x[i] * 2, [(6, 7), index(6, 4)]),
    ("softmax in bf16, -1", lambda x: torch.softmax(x.to(bf16), -1).float(), [(6, 7)]),
    ("x / x.sum()", lambda x: x / x.sum(), [(6, 7)]),
    ("x.transpose(0, 1).mean(0), 3-d", lambda x: x.transpose(0, 1).mean(0), [(4, 5, 6)]),
    ("F.pad(x, (1, 1)) + 1", lambda x: F.pad(x, (1, 1)) + 1, [(6, 7)]),
    ("x.roll(1, 0) + x", lambda x: x.roll(1, 0) + x, [(6, 7)]),
    ("tril(x) * 2", lambda x: torch.tril(x) * 2, [(6, 7)]),
    ("rolls + triu(y, -1) * tril(x, 1), 3-d", roll_tri, [(2, 3, 4), (3, 4)]),
    ("x.repeat(2, 1) + 1", lambda x: x.repeat(2, 1) + 1, [(6, 7)]),
    ("gather(x, 1, idx) * 2", lambda x, i: torch.gather(x, 1, i) * 2, [(6, 7), index(7, 6, 3)]),
    ("stack([x, y]).sum(0)", lambda x, y: torch.stack([x, y]).sum(0), [(6, 7), (6, 7)]),
    ("x.unsqueeze(1) * y.unsqueeze(0), sum(-1)", lambda x, y: (x.unsqueeze(1) * y.unsqueeze(0)).sum(-1),
     [(6, 7), (5, 7)]),
    ("hardswish(x) + silu(x)", lambda x: F.hardswish(x) + F.silu(x), [(6, 7)]),
    ("x.clamp(min=0).pow(2).sum(-1).sqrt()", lambda x: x.clamp(min=0).pow(2).sum(-1).sqrt(), [(6, 7)]),
    ("embedding + layer_norm", lambda w, i, g, b: F.layer_norm(F.embedding(i, w), (7,), g, b),
     [(10, 7), index(10, 3, 4), (7,), (7,)]),
]


# Model pieces (a second held-out set, session 9): what a transformer, a
# CNN or a loss writes, beyond the single-op families above.
def rotary(x, c, s):
    x1, x2 = x.chunk(2, -1)
    return x * c + torch.cat([-x2, x1], -1) * s


def swiglu(x):
    a, b = x.chunk(2, -1)
    return F.silu(a) * b


def causal_softmax(s):
    m = torch.ones(s.shape[-2], s.shape[-1], dtype=torch.bool).tril()
    return s.masked_fill(~m, float("-inf")).softmax(-1)


def lstm_gates(g, c):
    i, f, gg, o = g.chunk(4, 1)
    c2 = torch.sigmoid(f) * c + torch.sigmoid(i) * torch.tanh(gg)
    return torch.sigmoid(o) * torch.tanh(c2), c2


def gqa_repeat(k):
    b, h, s, d = k.shape
    return k[:, :, None].expand(b, h, 2, s, d).reshape(b, h * 2, s, d) * 2


def sdpa_forms(q, k, v, m, x):
    m = m.clone()
    m[1] = False  # a fully masked row: zeros
    qt = x.transpose(1, 2)
    return (F.scaled_dot_product_attention(q, k, v, is_causal=True),
            F.scaled_dot_product_attention(q, k, v, attn_mask=m, scale=0.3),
            F.scaled_dot_product_attention(qt, qt, qt))


def interpolations(x, y, z):
    return (F.interpolate(x, scale_factor=2, mode="nearest"), F.interpolate(x, size=(5, 7), mode="nearest"),
            F.interpolate(x, size=(7, 3), mode="nearest-exact"), F.interpolate(y, size=11, mode="nearest"),
            F.interpolate(z, scale_factor=(1.5, 2, 0.5), mode="nearest"))


def pads(x, y, z):
    return (F.pad(x, (1, 1, 2, 2), mode="reflect") * 2, F.pad(y, (3, 1), mode="replicate"),
            F.pad(z, (1, 2, 0, 1, 1, 1), mode="reflect"), F.pad(z, (2, 0, 1, 1, 0, 2), mode="replicate"))


def conv2d_backward(g, x, w):
    # a middle layer's backward: every gradient (stride 2, padding 1, 2 groups)
    return torch.ops.aten.convolution_backward(g, x, w, [8], [2, 2], [1, 1], [1, 1], False, [0, 0], 2,
                                               [True, True, True])


def conv2d_backward_wb(g, x, w):
    # a first layer's backward: no gradient for the input
    return [r for r in torch.ops.aten.convolution_backward(g, x, w, [8], [1, 1], [1, 1], [1, 1], False, [0, 0], 1,
                                                           [False, True, True]) if r is not None]


def pool_train(x, g):
    # corpus 101's relu -> max pool, forward and backward, as AOTAutograd's
    # graphs call the aten ops
    return pool_train_with(x, g, 2, 2, 0)


def pool_train_overlap(x, g):
    return pool_train_with(x, g, 3, 2, 1)


def pool_train_with(x, g, k, s, p):
    r = torch.relu(x)
    y, i = torch.ops.aten.max_pool2d_with_indices(r, [k, k], [s, s], [p, p])
    gx = torch.ops.aten.max_pool2d_with_indices_backward(g, r, [k, k], [s, s], [p, p], [1, 1], False, i)
    return y, torch.ops.aten.threshold_backward(gx, r, 0)


def avg_pool_train(x, g):
    # avg_pool2d 3x3/2, padding 1, count_include_pad=False, forward and backward
    y = torch.ops.aten.avg_pool2d(x, [3, 3], [2, 2], [1, 1], False, False)
    return y, torch.ops.aten.avg_pool2d_backward(g, x, [3, 3], [2, 2], [1, 1], False, False, None)


def batch_norm_train(x, w, b, g):
    # training batch norm (batch statistics) and its backward, all three grads
    y, m, rstd = torch.ops.aten.native_batch_norm(x, w, b, None, None, True, 0.1, 1e-5)
    return (y,) + tuple(torch.ops.aten.native_batch_norm_backward(g, x, w, None, None, m, rstd, True, 1e-5,
                                                                  [True, True, True]))


PROGRAMS += [
    ("rotary embedding", rotary, [(2, 4, 8), (4, 8), (4, 8)]),
    ("swiglu on chunks", swiglu, [(6, 16)]),
    ("rms_norm * w", lambda x, w: x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + 1e-6) * w, [(6, 8), (8,)]),
    ("causal masked softmax", causal_softmax, [(2, 5, 5)]),
    ("cross_entropy", lambda l, t: F.cross_entropy(l, t), [(6, 7), index(7, 6)]),
    ("cross_entropy, label smoothing", lambda l, t: F.cross_entropy(l, t, label_smoothing=0.1), [(6, 7), index(7, 6)]),
    ("mse_loss", lambda x, y: F.mse_loss(x, y), [(6, 7), (6, 7)]),
    ("softplus + logsigmoid", lambda x: F.softplus(x) + F.logsigmoid(x), [(6, 7)]),
    ("gelu tanh", lambda x: F.gelu(x, approximate="tanh"), [(6, 7)]),
    ("glu, f32 and bf16", lambda x, w: (F.glu(x, -1), F.glu(w.to(bf16), 1).float()), [(6, 8), (3, 4, 5)]),
    ("silu then global avg pool", lambda x: F.silu(x).mean((2, 3)), [(2, 3, 4, 5)]),
    ("adaptive_avg_pool2d", lambda x: F.adaptive_avg_pool2d(x, (2, 3)), [(2, 3, 4, 6)]),
    ("avg_pool2d + relu", lambda x: F.relu(F.avg_pool2d(x, 2)), [(2, 3, 4, 6)]),
    ("nearest interpolations", interpolations, [(1, 2, 3, 4), (2, 3, 5), (1, 1, 2, 3, 4)]),
    ("reflect / replicate pads", pads, [(1, 2, 4, 5), (2, 3, 4), (1, 1, 2, 3, 4)]),
    ("attention: bmm, softmax, bmm", lambda q, k, v: ((q @ k.transpose(-2, -1)) * 0.125).softmax(-1) @ v,
     [(2, 4, 8), (2, 4, 8), (2, 4, 8)]),
    ("sdpa: causal, masked, transposed q", sdpa_forms, [(1, 2, 4, 8), (1, 2, 6, 8), (1, 2, 6, 8), mask(4, 6), (1, 4, 2, 6)]),
    ("GQA kv repeat", gqa_repeat, [(1, 2, 3, 4)]),
    ("sdpa: grouped-query, causal", lambda q, k, v: F.scaled_dot_product_attention(q, k, v, is_causal=True,
                                                                                  enable_gqa=True),
     [(1, 4, 5, 8), (1, 2, 5, 8), (1, 2, 5, 8)]),
    ("lstm cell gates", lstm_gates, [(3, 16), (3, 4)]),
    ("cosine_similarity", lambda x, y: F.cosine_similarity(x, y, dim=-1), [(6, 8), (6, 8)]),
    ("pairwise distance", lambda x, y: (x.unsqueeze(1) - y.unsqueeze(0)).pow(2).sum(-1).sqrt(), [(5, 3), (4, 3)]),
    ("quantize to int8", lambda x: (x / 0.05).round().clamp(-128, 127).to(torch.int8), [(6, 7)]),
    ("masked mean", lambda x, m: (x * m.float()).sum(1) / m.float().sum(1).clamp(min=1), [(6, 7), mask(6, 7)]),
    ("bf16 softmax via f32", lambda x: x.float().softmax(-1).to(bf16), [(6, 7)]),
    ("embedding + position add", lambda w, i, p: F.embedding(i, w) + p, [(10, 8), index(10, 2, 5), (5, 8)]),
    ("gelu_backward tanh", lambda g, x: torch.ops.aten.gelu_backward(g, x * 3, approximate="tanh"), [(6, 7), (6, 7)]),
    ("accuracy", lambda l, t: (l.argmax(-1) == t).float().mean(), [(6, 7), index(7, 6)]),
    ("topk values and indices", lambda x: torch.topk(x, 3), [(6, 40)]),
    ("conv2d backward, grouped, strided", conv2d_backward, [(2, 8, 4, 4), (2, 4, 8, 8), (8, 2, 3, 3)]),
    ("conv2d backward, weight and bias only", conv2d_backward_wb, [(2, 8, 8, 8), (2, 3, 8, 8), (8, 3, 3, 3)]),
    ("relu, max_pool2d 2x2, forward and backward", pool_train, [(2, 3, 8, 8), (2, 3, 4, 4)]),
    ("relu, max_pool2d 3x3/2 pad 1, forward and backward", pool_train_overlap, [(2, 3, 9, 9), (2, 3, 5, 5)]),
    ("batch_norm training, forward and backward", batch_norm_train, [(4, 3, 5, 5), (3,), (3,), (4, 3, 5, 5)]),
    ("avg_pool2d 3x3/2 pad 1, forward and backward", avg_pool_train, [(2, 3, 9, 9), (2, 3, 5, 5)]),
    ("adaptive_avg_pool2d to 3x5, unequal windows", lambda x: F.adaptive_avg_pool2d(x, (3, 5)), [(2, 3, 4, 6)]),
    ("sort bool, stable descending", lambda m: torch.sort(m, dim=1, descending=True, stable=True), [mask(6, 40)]),
]



# Training building blocks, forward and backward (session 12): the
# function's float inputs get gradients; the last input is the output's
# gradient. make_fx traces torch.autograd.grad into the backward's aten ops,
# as AOTAutograd's joint graph has them; Inductor compiles that same graph
# (survey() hands it the make_fx module), so both sides see the same ops.
def lstm_cell(x, h, c, wi, wh, bi, bh):
    h2, c2 = torch.lstm_cell(x, (h, c), wi, wh, bi, bh)
    return h2 + c2


PROGRAMS += [
    ("adaptive_avg_pool2d 8x8 to 4x4, forward and backward", train(lambda x: F.adaptive_avg_pool2d(x, 4)),
     [(2, 3, 8, 8), (2, 3, 4, 4)]),
    ("adaptive_avg_pool2d 7x9 to 3x5, forward and backward", train(lambda x: F.adaptive_avg_pool2d(x, (3, 5))),
     [(2, 3, 7, 9), (2, 3, 3, 5)]),
    ("conv_transpose2d stride 2, groups 2, forward and backward",
     train(lambda x, w, b: F.conv_transpose2d(x, w, b, stride=2, padding=1, output_padding=1, groups=2)),
     [(2, 4, 5, 5), (4, 3, 3, 3), (6,), (2, 6, 10, 10)]),
    ("group_norm, forward and backward", train(lambda x, w, b: F.group_norm(x, 2, w, b)),
     [(2, 4, 3, 3), (4,), (4,), (2, 4, 3, 3)]),
    ("instance_norm, forward and backward", train(lambda x, w, b: F.instance_norm(x, weight=w, bias=b)),
     [(2, 3, 4, 4), (3,), (3,), (2, 3, 4, 4)]),
    ("upsample nearest x2, forward and backward",
     train(lambda x: F.interpolate(x, scale_factor=2, mode="nearest")), [(1, 2, 3, 4), (1, 2, 6, 8)]),
    ("upsample bilinear, forward and backward",
     train(lambda x: F.interpolate(x, size=(5, 7), mode="bilinear")), [(1, 2, 3, 4), (1, 2, 5, 7)]),
    ("upsample bilinear align_corners, forward and backward",
     train(lambda x: F.interpolate(x, size=(5, 7), mode="bilinear", align_corners=True)),
     [(1, 2, 3, 4), (1, 2, 5, 7)]),
    ("pixel_shuffle, forward and backward", train(lambda x: F.pixel_shuffle(x, 2)), [(1, 8, 3, 3), (1, 2, 6, 6)]),
    ("unfold 3x3/2 pad 1, forward and backward", train(lambda x: F.unfold(x, 3, padding=1, stride=2)),
     [(1, 2, 5, 5), (1, 18, 9)]),
    ("fold 2x2, forward and backward", train(lambda x: F.fold(x, (4, 5), 2)), [(1, 8, 12), (1, 2, 4, 5)]),
    ("cumsum, forward and backward", train(lambda x: torch.cumsum(x, 1)), [(6, 7), (6, 7)]),
    ("cumprod, forward and backward", train(lambda x: torch.cumprod(x, 1)), [(6, 7), (6, 7)]),
    ("index_add, forward and backward", train(lambda x, i, s: x.index_add(0, i, s)),
     [(6, 7), index(6, 4), (4, 7), (6, 7)]),
    ("scatter_add, forward and backward", train(lambda x, i, s: x.scatter_add(1, i, s)),
     [(6, 7), index(7, 6, 3), (6, 3), (6, 7)]),
    ("smooth_l1_loss, forward and backward", train(lambda x, y: F.smooth_l1_loss(x, y, beta=0.5)),
     [(6, 7), (6, 7), ()]),
    ("huber_loss, forward and backward", train(lambda x, y: F.huber_loss(x, y, delta=0.5)), [(6, 7), (6, 7), ()]),
    ("kl_div batchmean, forward and backward",
     train(lambda x, y: F.kl_div(F.log_softmax(x, -1), F.softmax(y, -1), reduction="batchmean")),
     [(6, 7), (6, 7), ()]),
    ("cross_entropy label smoothing, forward and backward",
     train(lambda l, t: F.cross_entropy(l, t, label_smoothing=0.1)), [(6, 7), index(7, 6), ()]),
    ("logsumexp, forward and backward", train(lambda x: torch.logsumexp(x, 1)), [(4, 5, 6), (4, 6)]),
    ("lstm_cell, forward and backward", train(lstm_cell), [(3, 5), (3, 4), (3, 4), (16, 5), (16, 4), (16,), (16,),
                                                          (3, 4)]),
    ("gru_cell, forward and backward", train(lambda x, h, wi, wh, bi, bh: torch.gru_cell(x, h, wi, wh, bi, bh)),
     [(3, 5), (3, 4), (12, 5), (12, 4), (12,), (12,), (3, 4)]),
    ("embedding_bag mean, forward and backward",
     train(lambda w, i, o: F.embedding_bag(i, w, o, mode="mean")),
     [(10, 4), index(10, 8), offsets(0, 3, 3, 6), (4, 4)]),
]

def mlp_gelu(x, w1, b1, w2):
    return F.linear(F.gelu(F.linear(x, w1, b1)), w2)


def masked_softmax(x, m):
    return x.masked_fill(m, float("-inf")).softmax(-1)


# More training building blocks, forward and backward (session 13), held
# out: written before kiln ran on any of them.
PROGRAMS_TRAIN2 = [
    ("layer_norm, forward and backward", train(lambda x, w, b: F.layer_norm(x, (8,), w, b)),
     [(6, 8), (8,), (8,), (6, 8)]),
    ("rms_norm, forward and backward", train(lambda x, w: F.rms_norm(x, (8,), w, eps=1e-6)), [(6, 8), (8,), (6, 8)]),
    ("softmax, forward and backward", train(lambda x: x.softmax(-1)), [(6, 7), (6, 7)]),
    ("log_softmax dim 0, forward and backward", train(lambda x: x.log_softmax(0)), [(6, 7), (6, 7)]),
    ("masked softmax, forward and backward", train(masked_softmax), [(6, 7), mask(6, 7), (6, 7)]),
    ("linear, gelu, linear, forward and backward", train(mlp_gelu), [(4, 6), (8, 6), (8,), (5, 8), (4, 5)]),
    ("swiglu, forward and backward", train(lambda x: F.silu(x[:, :4]) * x[:, 4:]), [(6, 8), (6, 4)]),
    ("sdpa causal, forward and backward",
     train(lambda q, k, v: F.scaled_dot_product_attention(q, k, v, is_causal=True)),
     [(1, 2, 5, 8), (1, 2, 5, 8), (1, 2, 5, 8), (1, 2, 5, 8)]),
    ("binary_cross_entropy_with_logits, forward and backward",
     train(lambda x, y: F.binary_cross_entropy_with_logits(x, y)), [(6, 7), (6, 7), ()]),
    ("nll_loss with class weights, forward and backward",  # weights traced as arange: they take no gradient
     train(lambda x, t: F.nll_loss(F.log_softmax(x, -1), t, weight=torch.arange(1.0, 8.0, dtype=x.dtype) / 4)),
     [(6, 7), index(7, 6), ()]),
    ("embedding, forward and backward", train(lambda w, i: F.embedding(i, w)), [(10, 4), index(10, 2, 3), (2, 3, 4)]),
    ("conv1d, forward and backward", train(lambda x, w, b: F.conv1d(x, w, b, padding=1)),
     [(2, 3, 9), (4, 3, 3), (4,), (2, 4, 9)]),
    ("depthwise conv2d, forward and backward", train(lambda x, w: F.conv2d(x, w, padding=1, groups=3)),
     [(2, 3, 6, 6), (3, 1, 3, 3), (2, 3, 6, 6)]),
    ("max_pool1d, forward and backward", train(lambda x: F.max_pool1d(x, 2)), [(2, 3, 8), (2, 3, 4)]),
    ("avg_pool1d 3/2 pad 1, forward and backward", train(lambda x: F.avg_pool1d(x, 3, 2, 1)), [(2, 3, 9), (2, 3, 5)]),
    ("std over dim 1, forward and backward", train(lambda x: x.std(1)), [(6, 7), (6,)]),
    ("F.normalize, forward and backward", train(lambda x: F.normalize(x, dim=-1)), [(6, 7), (6, 7)]),
    ("x[idx], forward and backward", train(lambda x, i: x[i]), [(6, 7), index(6, 4), (4, 7)]),
    ("gather, forward and backward", train(lambda x, i: torch.gather(x, 1, i)), [(6, 7), index(7, 6, 3), (6, 3)]),
    ("topk values, forward and backward", train(lambda x: torch.topk(x, 3).values), [(6, 9), (6, 3)]),
    ("amax over dim 1, forward and backward", train(lambda x: x.amax(1)), [(6, 7), (6,)]),
    ("prod over dim 1, forward and backward", train(lambda x: x.prod(1)), [(6, 7), (6,)]),
    ("cosine_similarity, forward and backward", train(lambda x, y: F.cosine_similarity(x, y, dim=-1)),
     [(6, 8), (6, 8), (6,)]),
    ("reflection pad, forward and backward", train(lambda x: F.pad(x, (1, 2, 2, 1), mode="reflect")),
     [(1, 2, 5, 6), (1, 2, 8, 9)]),
    ("repeat and roll, forward and backward", train(lambda x: x.repeat(2, 1).roll(1, 0)), [(3, 4), (6, 4)]),
    ("leaky_relu, elu, mish, forward and backward", train(lambda x: F.leaky_relu(x) + F.elu(x) + F.mish(x)),
     [(6, 7), (6, 7)]),
    ("sort values, forward and backward", train(lambda x: torch.sort(x, 1).values), [(6, 7), (6, 7)]),
    ("var_mean over (0, 2), forward and backward", train(lambda x: sum(torch.var_mean(x, (0, 2)))),
     [(3, 4, 5), (4,)]),
]
PROGRAMS += PROGRAMS_TRAIN2


def conv_bn_relu(x, w, g, b):
    return F.relu(F.batch_norm(F.conv2d(x, w, padding=1), None, None, g, b, training=True))


def attention_block(x, wq, wk, wv, wo):
    q, k, v = (F.linear(x, w).view(2, 5, 2, 4).transpose(1, 2) for w in (wq, wk, wv))
    o = F.scaled_dot_product_attention(q, k, v, is_causal=True)
    return F.linear(o.transpose(1, 2).reshape(2, 5, 8), wo) + x


def mlp_block(x, w, b, w1, b1, w2, b2):
    h = F.layer_norm(x, (8,), w, b)
    return x + F.linear(F.gelu(F.linear(h, w1, b1)), w2, b2)


def resnet_basic(x, w1, w2):
    return F.relu(F.conv2d(F.relu(F.conv2d(x, w1, padding=1)), w2, padding=1) + x)


def classifier_loss(x, w, b, t):
    return F.cross_entropy(F.linear(x, w, b), t)


# Small model blocks, forward and backward (session 13), held out as the
# rows above.
PROGRAMS_BLOCKS = [
    ("conv, batch_norm, relu block, forward and backward", train(conv_bn_relu),
     [(2, 3, 6, 6), (4, 3, 3, 3), (4,), (4,), (2, 4, 6, 6)]),
    ("causal attention block, forward and backward", train(attention_block),
     [(2, 5, 8), (8, 8), (8, 8), (8, 8), (8, 8), (2, 5, 8)]),
    ("pre-norm MLP block, forward and backward", train(mlp_block),
     [(2, 5, 8), (8,), (8,), (16, 8), (16,), (8, 16), (8,), (2, 5, 8)]),
    ("resnet basic block, forward and backward", train(resnet_basic),
     [(2, 4, 6, 6), (4, 4, 3, 3), (4, 4, 3, 3), (2, 4, 6, 6)]),
    ("linear classifier with cross_entropy, forward and backward",
     train(lambda x, w, b, t: classifier_loss(x, w, b, t)), [(6, 8), (5, 8), (5,), index(5, 6), ()]),
]
PROGRAMS += PROGRAMS_BLOCKS


def convnext_block(x, wd, bd, g, b, w1, b1, w2, b2, scale):
    h = F.conv2d(x, wd, bd, padding=1, groups=4).permute(0, 2, 3, 1)
    h = F.linear(F.gelu(F.linear(F.layer_norm(h, (4,), g, b), w1, b1)), w2, b2)
    return x + (scale * h).permute(0, 3, 1, 2)


def lora_linear(x, w, a, b):
    return F.linear(x, w) + F.linear(F.linear(x, a), b) * 0.5


def gated_attention(x, wq, wk, wv, wg):
    q, k, v = (F.linear(x, w).view(2, 5, 2, 4).transpose(1, 2) for w in (wq, wk, wv))
    o = F.scaled_dot_product_attention(q, k, v).transpose(1, 2).reshape(2, 5, 8)
    return o * torch.sigmoid(F.linear(x, wg))


def rel_bias_attention(q, k, v, table, buckets):
    s = q @ k.transpose(-1, -2) + table[buckets].permute(2, 0, 1)
    return torch.softmax(s, -1) @ v


def focal_loss(x, t):
    p = torch.sigmoid(x)
    ce = F.binary_cross_entropy_with_logits(x, t, reduction="none")
    pt = p * t + (1 - p) * (1 - t)
    return (ce * (1 - pt) ** 2).mean()


def window_partition_norm(x, g, b):
    w = x.view(2, 2, 3, 2, 3, 4).permute(0, 1, 3, 2, 4, 5).reshape(8, 9, 4)
    return F.layer_norm(w, (4,), g, b)


def moe_router(x, w):
    probs = torch.softmax(F.linear(x, w), -1)
    top, idx = torch.topk(probs, 2, -1)
    return torch.zeros_like(probs).scatter(-1, idx, top / top.sum(-1, keepdim=True))


# Session 15's held-out model blocks, written before kiln ran on them: a
# ConvNeXt block, a LoRA linear, a sigmoid-gated attention output, T5's
# relative-position bias, a focal loss, Swin's window partition with its
# layer_norm (forward and backward), and an MoE router's top-2 weights.
PROGRAMS_BLOCKS15 = [
    ("ConvNeXt block, forward and backward", train(convnext_block),
     [(2, 4, 5, 5), (4, 1, 3, 3), (4,), (4,), (4,), (16, 4), (16,), (4, 16), (4,), (4,), (2, 4, 5, 5)]),
    ("LoRA linear, forward and backward", train(lora_linear), [(6, 8), (5, 8), (2, 8), (5, 2), (6, 5)]),
    ("sigmoid-gated attention, forward and backward", train(gated_attention),
     [(2, 5, 8), (8, 8), (8, 8), (8, 8), (8, 8), (2, 5, 8)]),
    ("relative-position bias attention, forward and backward", train(rel_bias_attention),
     [(2, 5, 4), (2, 5, 4), (2, 5, 4), (9, 2), index(9, 5, 5), (2, 5, 4)]),
    ("focal loss, forward and backward", train(focal_loss), [(6, 7), (6, 7), ()]),
    ("window partition, layer_norm, forward and backward", train(window_partition_norm),
     [(2, 6, 6, 4), (4,), (4,), (8, 9, 4)]),
    ("MoE top-2 router weights", moe_router, [(6, 8), (4, 8)]),
]
PROGRAMS += PROGRAMS_BLOCKS15

# Why kiln is above Inductor where it still is (or cannot compile), and
# where the counts differ in kind, by graph name. Inductor's one C++
# function may hold several fused kernels, each a pass over memory; a kiln
# kernel is one.
NOTES = {
    "conv2d backward, grouped, strided": "Inductor: the aten fallback, with its 3 operands copied to channels-last "
                                         "before it and 2 gradients copied back after (layout conversions for "
                                         "oneDNN, the fused kernels counted); kiln: one extern call computing the "
                                         "gradients output_mask asks for (rt/convolution_backward.go)",
    "conv2d backward, weight and bias only": "as above; kiln's extern computes no grad_input (output_mask False)",
    "topk values and indices": "both one library call; kiln's rt orders ties as PyTorch's CPU kernel "
                               "(rt/topk_stl.go)",
    "x.sum(0), x.sum(1)": "two fused kernels on both sides (Inductor writes both into one function); "
                          "outer spaces [6] and [8] differ, no single nest computes both",
    "cat([sin(x), y * 2], 1)": "kiln: one pointwise kernel over the result, choosing the input by position; "
                               "Inductor: each input written into its slice by the kernel that computes it",
    "stack([x, y]).sum(0)": "kiln: the stack is read by the sum as a choice of input, one kernel; Inductor: each "
                            "input written into its slice of the stacked buffer, then the sum reads it",
    "softmax(x, 1).sum(2), 3-d": "two fused kernels on both sides: the sum over dim 2 reads the softmax over dim 1",
    "x.sum(2).amax(1), 3-d": "Inductor unrolls a reduction of fewer than 8 elements into pointwise adds "
                             "(config.unroll_reductions_threshold, ir.py Reduction.create) and inlines it into the "
                             "amax; kiln unrolls it where every read is inside another reduction's loop over other "
                             "outer sizes (lowering/fuse_inline_unroll.go), and the adds are the amax's prologue; "
                             "was 2 kernels. Over 8 elements both have 2 fused kernels (next row)",
    "sdpa: causal, masked, transposed q": "both call the flash-attention op as a fallback (3 externs; kiln's "
                                          "rt/attention.go, lowering/rules_extern_attention.go) and compute the "
                                          "bool mask's bias in 1 kernel; kiln took the math path before (9 kernels)",
    "(x * 2).masked_scatter(m, s), broadcast mask": "kiln decomposes masked_scatter as torch/_inductor/"
                                                    "decomposition.py does where the backend scans (cumsum(mask) - 1 "
                                                    "numbers the source; passes/decompose/rules_index.go): one scan "
                                                    "kernel; Inductor's CPU backend runs x * 2, then "
                                                    "aten.masked_scatter as a fallback",
    "sdpa: grouped-query, causal": "both: the flash-attention op as one fallback call, grouped-query heads read "
                                   "in place (kiln took the math path with k and v repeated before: 5 kernels)",
    "relu, max_pool2d 2x2, forward and backward": "Inductor (torch 2.15, CPU) decomposes the pool backward "
                                                  "(torch/_decomp max_pool2d_with_indices_backward: zeros + "
                                                  "scatter_add): the pool with the relu inlined, a fill, the "
                                                  "scatter-add, threshold_backward; kiln lowers it as "
                                                  "torch/_inductor/lowering.py's lowering does (lowering/"
                                                  "rules_pool_backward.go: a gather over the windows covering each "
                                                  "element) with threshold_backward fused, after relu and the pool",
    "relu, max_pool2d 3x3/2 pad 1, forward and backward": "as the 2x2 row, with up to 2x2 candidate windows per "
                                                          "element in kiln's gather",
    "batch_norm training, forward and backward": "kiln: one kernel over the channels, the batch statistics, the "
                                                 "normalized output and the backward's sums and grad_input as its "
                                                 "r-stages (native_batch_norm_backward decomposed after torch/_decomp, "
                                                 "passes/decompose/rules_batch_norm_backward.go); Inductor: 2",
    "batch_norm inference, NCHW": "1/sqrt(var + eps) recomputed per element, as Inductor does (a sqrt and a "
                                  "reciprocal fit kiln's recompute budget, lowering/fuse_recompute.go); was 2 kernels",
    "group_norm(2 groups), NCHW": "kiln: one kernel (weight and bias apply in the grouped space, "
                                  "passes/decompose/rules_group_norm.go, so the normalization is an r-stage of the "
                                  "statistics' kernel); Inductor: statistics (outer-loop fused), per-channel scale and "
                                  "shift, normalization",
    "adaptive_avg_pool2d 7x9 to 3x5, forward and backward": "the backward is an extern call on both sides, as "
                                                             "Inductor's fallback (rt/adaptive_pool_backward.go, "
                                                             "bit-exact with ATen's CPU kernel)",
    "conv_transpose2d stride 2, groups 2, forward and backward": "both: the convolution and its backward as "
                                                                  "extern calls; Inductor's 6 fused kernels copy "
                                                                  "operands to channels-last and back for oneDNN; "
                                                                  "kiln's rt runs a transposed convolution through "
                                                                  "the direct one it is the adjoint of",
    "upsample bilinear, forward and backward": "the backward is an extern call on both sides, as Inductor's "
                                               "fallback (rt/upsample_backward.go: ATen's weights and its AVX2 "
                                               "build's fused multiply-adds, bit-exact)",
    "cumsum, forward and backward": "Inductor's CPU backend runs both scans as aten.cumsum fallbacks; its 2 fused "
                                    "kernels are the backward's flips. kiln runs the scans itself, in one "
                                    "kernel: the backward's reverse scan reads its input flipped and runs the "
                                    "last flip mirrored in its loop (testdata/fusion/scan_reverse.txtar), and "
                                    "joins the forward scan as an independent scan over the same outer space "
                                    "(lowering/fuse_horizontal.go)",
    "index_add, forward and backward": "as Inductor: the copy of x, then one kernel over the index's [4, 7] doing "
                                       "the scatter-add and grad_source's index_select; Inductor adds with "
                                       "atomic_add, kiln's kernel is serial (one thread, index order, no atomics: "
                                       "the same bits every run) and takes in the index_select, which reads "
                                       "nothing the scatter adds into (testdata/fusion/heldout_index_add.txtar)",
    "scatter_add, forward and backward": "as index_add: the scatter-add and grad_src's gather in one loop over the "
                                         "index's space, Inductor's with atomic_add, kiln's serial "
                                         "(testdata/fusion/heldout_scatter_add.txtar)",
    "embedding_bag mean, forward and backward": "extern calls on both sides: Inductor's aten fallbacks "
                                                "(lowering.py make_fallback), kiln's rt/embedding_bag.go "
                                                "(bit-exact with ATen's CPU kernels on tools/externs cases)",
}


def outputs(r):
    return list(r) if isinstance(r, (tuple, list)) else [r]


def equal(want, want64, got):
    if tuple(got.shape) != tuple(want.shape):
        return False
    got = np.ascontiguousarray(got)
    if want.dtype == torch.bfloat16 and got.dtype == np.uint16:
        g = torch.from_numpy(got.view(np.int16)).view(torch.bfloat16)  # kiln writes bf16 as its raw bits
    else:
        g = torch.from_numpy(got)
    if not want.is_floating_point():
        return bool(torch.equal(want, g.to(want.dtype)))
    # In the result's own dtype, so that same() allows a half type its
    # larger RMSE multiplier, as Inductor's accuracy check does.
    return bool(same(want, g.to(want.dtype), fp64_ref=want64, tol=1e-4, log_error=lambda *a, **k: None))


def survey(name, fn, specs, kiln, work):
    torch.manual_seed(0)
    args = [make_input(s) for s in specs]
    gm = make_fx(fn)(*args)
    names = [n.name for n in gm.graph.nodes if n.op == "placeholder"]
    slug = re.sub(r"[^a-z0-9]+", "_", name.lower()).strip("_")
    d = os.path.join(work, slug)
    os.makedirs(os.path.join(d, "in"), exist_ok=True)
    fx = os.path.join(d, "graph.fx")
    with open(fx, "w") as f:
        f.write(fx_text(gm))
    for n, a in zip(names, args):
        np.save(os.path.join(d, "in", n + ".npy"), a.numpy())
    want = outputs(fn(*[a.clone() for a in args]))
    want64 = outputs(fn(*[a.double() if a.is_floating_point() else a.clone() for a in args]))

    _, code, ind = inductor_run(gm if getattr(fn, "traced", False) else fn, args)
    call = code[code.find("def call("):] if "def call(" in code else ""
    ind["ext"] += len(re.findall(r"(?<!extern_kernels\.)\baten\.\w+\.\w+\(", call))

    row = dict(name=name, ind=ind, kiln_k="?", kiln_ext="?", ok=False)
    try:
        row.update(run_kiln(kiln, d, fx, want, want64))
    except subprocess.CalledProcessError as e:
        print(f"{name}: {' '.join(e.cmd[:2])} failed:\n{e.stderr}", file=sys.stderr)
    return row


def run_kiln(kiln, d, fx, want, want64):
    """kiln's kernel counts, and whether its generated Go equals eager."""
    run([kiln, "compile", "-o", os.path.join(d, "dump"), fx])
    with open(os.path.join(d, "dump", "graph0.ir_post_fusion.txt")) as f:
        kiln_k, kiln_ext = kiln_kernels(f.read())
    mod = os.path.join(d, "mod")
    run([kiln, "compile", "-target=go", "-o", mod, fx])
    run(["go", "build", "-o", "kilngen", "."], cwd=mod, env=dict(os.environ, GOEXPERIMENT="simd"))
    out = os.path.join(d, "out")
    run([os.path.join(mod, "kilngen"), "-inputs", os.path.join(d, "in"), "-o", out])
    ok = all(equal(w, w64, np.load(os.path.join(out, f"out{i}.npy")))
             for i, (w, w64) in enumerate(zip(want, want64)))
    return dict(kiln_k=kiln_k, kiln_ext=kiln_ext, ok=ok)


def shape_text(spec):
    if isinstance(spec, tuple) and spec and spec[0] == "off":
        return "offsets " + ", ".join(map(str, spec[1]))
    if isinstance(spec, tuple) and spec and isinstance(spec[0], str):
        kind = "bool" if spec[0] == "bool" else "i64"
        return kind + " " + ("×".join(map(str, spec[1])) or "scalar")
    return "×".join(map(str, spec)) or "scalar"


def verdict(r):
    if not isinstance(r["kiln_k"], int):
        return "n/a (no compile)"
    return "yes" if r["ok"] else "NO"


def table(rows, started):
    lines = [
        f"Counted {started} UTC by `tools/inductor_compare/survey.py`: torch {torch.__version__} (Inductor, CPU). "
        "Inputs float32 unless named; extern / fallback calls (Inductor's `extern_kernels.*` and `aten.*` "
        "fallbacks, kiln's extern kernels) are counted apart.",
        "",
        f"| graph | input shapes | {KERNEL_HEADS} | extern kiln / Inductor | kiln = eager | notes |",
        "|---" * (5 + KERNEL_COLS) + "|",
    ]
    for r in rows:
        shapes = ", ".join(shape_text(s) for s in r["specs"])
        lines.append(f"| {r['name']} | {shapes} | {kernel_cells(r)} "
                     f"| {r['kiln_ext']} / {r['ind']['ext']} | {verdict(r)} "
                     f"| {NOTES.get(r['name'], '')} |")
    above = sum(not at_most(r) for r in rows)
    failed = sum(not isinstance(r["kiln_k"], int) for r in rows)
    funcs = sum(isinstance(r["kiln_k"], int) and r["kiln_k"] > r["ind"]["funcs"] for r in rows)
    lines += ["", f"{len(rows)} graphs; kiln above Inductor's fused-kernel count on {above} "
              f"(of which kiln does not compile {failed}); kiln = eager on {sum(r['ok'] for r in rows)}. "
              f"Against Inductor's C++ functions instead (several fused kernels each), kiln is above on {funcs}."]
    return "\n".join(lines) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--write", help="replace the table between the survey markers in this file")
    ap.add_argument("--only", help="run only programs whose name contains this")
    ap.add_argument("--keep", help="work in this folder and keep it")
    ap.add_argument("--kiln", help="use this kiln binary (an older build, for a before / after table) "
                    "instead of building ./cmd/kiln")
    a = ap.parse_args()
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    work = a.keep or tempfile.mkdtemp(prefix="inductor_survey.")
    os.makedirs(work, exist_ok=True)
    kiln = os.path.abspath(a.kiln) if a.kiln else os.path.join(work, "kiln")
    if not a.kiln:
        run(["go", "build", "-o", kiln, "./cmd/kiln"], cwd=root)
    torch.set_num_threads(1)
    started = time.strftime("%Y-%m-%d %H:%M", time.gmtime())
    rows = []
    for name, fn, specs in PROGRAMS:
        if a.only and a.only not in name:
            continue
        r = survey(name, fn, specs, kiln, work)
        r["specs"] = specs
        print(f"{name}: kernels kiln {r['kiln_k']} Inductor fused {r['ind']['fused']}, functions "
              f"{r['ind']['funcs']} ({r['ind']['nests']} nests); extern {r['kiln_ext']} / {r['ind']['ext']}; "
              f"matches eager: {r['ok']}", file=sys.stderr)
        rows.append(r)
    text = table(rows, started)
    print(text)
    if a.write:
        replace_between(a.write, BEGIN, END, text)
    if not a.keep:
        shutil.rmtree(work, ignore_errors=True)
    # A graph kiln compiles must equal eager; the ones it cannot compile
    # are in the notes.
    return 0 if all(r["ok"] or not isinstance(r["kiln_k"], int) for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
