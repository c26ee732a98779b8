#!/usr/bin/env python3
"""PyTorch's own answer for the ops of issue 11 (part B): backward ops, nn ops,
complex views, special functions and the regressions of the oracle's bug list.

For every case, make_fx(tracing_mode="fake") traces the function on the CPU and
prints the graph with PyTorch's fake types (dtype, shape, strides, device); the
function is then run eagerly on the same inputs and the results are recorded.
kiln's test (internal/opcases) strips the annotations, re-infers them with
fakeprop and runs interp on the inputs, so `go test` needs no PyTorch.

    python3 tools/opcases/gen.py > testdata/opcases/ops.json
"""
import json
import math
import sys

import torch
import torch._inductor.inductor_prims  # noqa: F401 - registers prims.inductor_*
from torch.fx.experimental.proxy_tensor import make_fx

from linalg_cases import linalg_cases
from nn_cases import nn_cases

aten = torch.ops.aten
DT = {torch.float8_e4m3fn: "f8e4m3fn", torch.float32: "f32", torch.float64: "f64", torch.float16: "f16", torch.bfloat16: "bf16",
      torch.int64: "i64", torch.uint64: "u64", torch.int32: "i32", torch.int8: "i8", torch.uint8: "u8", torch.bool: "b8",
      torch.complex64: "c64", torch.complex128: "c128"}


def num(v):
    if isinstance(v, float) and not math.isfinite(v):
        return str(v)
    return v


def enc(t):
    """A tensor as dtype, shape and its values in row-major order (complex as [re, im] pairs)."""
    if t is None:
        return {"none": True}
    if not isinstance(t, torch.Tensor):
        return {"scalar": num(t)}
    c = t.detach().contiguous()
    if c.is_complex():
        vals = [num(x) for x in torch.view_as_real(c).reshape(-1).tolist()]
    else:
        vals = [num(x) for x in c.reshape(-1).tolist()]
    return {"dtype": DT[t.dtype], "shape": list(t.shape), "values": vals}


def gen(n, *shape, dtype=torch.float32, lo=-2.0, hi=2.0):
    g = torch.Generator().manual_seed(n)
    if dtype.is_floating_point:
        return (torch.rand(shape, generator=g, dtype=torch.float64) * (hi - lo) + lo).to(dtype)
    return torch.randint(int(lo), int(hi), tuple(shape), generator=g, dtype=dtype)


def case(name, fn, *args, values=True):
    gm = make_fx(fn, tracing_mode="fake")(*args)
    fx = gm.print_readable(print_output=False, include_stride=True, include_device=True)
    out = fn(*args)
    if not isinstance(out, (tuple, list)):
        out = (out,)
    rec = {"name": name, "fx": fx, "inputs": [enc(a) for a in args]}
    if values:
        rec["outputs"] = [enc(o) for o in out]
    return rec


def single(name, op, args, kwargs=None, values=True):
    """A one-node graph for an op make_fx would decompose: the node's fake
    type comes from running op under FakeTensorMode."""
    from operator import getitem
    from torch._subclasses.fake_tensor import FakeTensorMode
    kwargs = kwargs or {}
    mode, g = FakeTensorMode(), torch.fx.Graph()
    phs, fargs = [], []
    for i, a in enumerate(args):
        if isinstance(a, torch.Tensor):
            p = g.placeholder(f"arg{i}_1")
            p.meta["val"] = mode.from_tensor(a)
            phs.append(p)
            fargs.append(p.meta["val"])
        else:
            phs.append(a)
            fargs.append(a)
    with mode:
        fake = op(*fargs, **kwargs)
    n = g.call_function(op, tuple(phs), kwargs)
    n.meta["val"] = fake
    outs = [n]
    if isinstance(fake, (tuple, list)):
        outs = []
        for i, f in enumerate(fake):
            gi = g.call_function(getitem, (n, i))
            gi.meta["val"] = f
            outs.append(gi)
    g.output(tuple(outs))
    fx = torch.fx.GraphModule(torch.nn.Module(), g).print_readable(print_output=False, include_stride=True, include_device=True)
    tensors = [a for a in args if isinstance(a, torch.Tensor)]
    rec = {"name": name, "fx": fx, "inputs": [enc(a) for a in tensors]}
    if values:
        out = op(*args, **kwargs)
        rec["outputs"] = [enc(o) for o in (out if isinstance(out, (tuple, list)) else (out,))]
    return rec


def conj_add_(c, b):
    """Writes through a conjugate view: c gets the conjugate of the results."""
    aten.add_(aten._conj(c), 2.5)
    aten.mul_(aten._conj(c), b)
    return c


def conj_parts(x):
    """x.conj().imag traces to _neg_view (the negative bit) of a real view."""
    a = torch.view_as_complex(x)
    c = a.conj()
    return c.imag, a.real, c.abs(), torch.resolve_conj(c), (c * 2).sum(), aten.view_as_real(aten._neg_view(a).clone())


def cases():
    x34, g34 = gen(1, 3, 4), gen(2, 3, 4)
    img, gimg = gen(3, 2, 3, 6, 6), gen(4, 2, 3, 3, 3)
    out = []
    # Regressions from the oracle's bug list.
    out.append(case("clone_0dim", lambda x: aten.clone(x), gen(5)))
    out.append(case("cast_complex64", lambda x: aten.view_as_real(aten._to_copy(x, dtype=torch.complex64)), gen(6, 4)))
    out.append(case("cast_complex128_i64", lambda x: aten.view_as_real(x.to(torch.complex128)), gen(7, 3, dtype=torch.int64, lo=-5, hi=5)))
    out.append(case("index_add_0dim", lambda s, i, v: aten.index_add(s, 0, i, v, alpha=2), gen(8), torch.tensor([0]), gen(9)))
    out.append(case("index_copy_0dim", lambda s, i, v: aten.index_copy(s, 0, i, v), gen(8), torch.tensor([0]), gen(9)))
    out.append(case("index_fill_0dim", lambda s, i: aten.index_fill(s, 0, i, 3.5), gen(8), torch.tensor([0])))
    out.append(case("index_add_0dim_index", lambda s, i, v: aten.index_add(s, 0, i, v), gen(10, 3, 2), torch.tensor(1), gen(11, 1, 2)))
    out.append(case("avg_pool2d_divisor", lambda x: aten.avg_pool2d(x, [2, 2], [2, 2], [1, 1], False, True, 3), gen(12, 1, 2, 5, 5)))
    out.append(case("addmm_int_float_scalars", lambda b, m1, m2: aten.addmm(b, m1, m2, beta=1.5, alpha=2.7),
                    gen(13, 2, 2, dtype=torch.int64, lo=-4, hi=4), gen(14, 2, 3, dtype=torch.int64, lo=-4, hi=4),
                    gen(15, 3, 2, dtype=torch.int64, lo=-4, hi=4)))
    out.append(case("conv_transpose2d", lambda x, w, b: aten.convolution(x, w, b, [2, 1], [1, 0], [1, 1], True, [1, 0], 1),
                    gen(16, 1, 2, 3, 3), gen(17, 2, 3, 2, 2), gen(18, 3)))
    out.append(case("conv_transpose2d_groups", lambda x, w: aten.convolution(x, w, None, [1, 1], [0, 0], [2, 1], True, [0, 0], 2),
                    gen(19, 1, 4, 3, 2), gen(20, 4, 1, 2, 2)))
    out.append(case("vdot_f32", lambda a, b: aten.vdot(a, b), gen(21, 5), gen(22, 5)))
    out.append(case("vdot_i64", lambda a, b: aten.vdot(a, b), gen(21, 5, dtype=torch.int64, lo=-9, hi=9), gen(22, 5, dtype=torch.int64, lo=-9, hi=9)))
    # Pointwise activation backward family.
    out.append(case("hardtanh_backward", lambda g, x: aten.hardtanh_backward(g, x, -1.0, 1.5), g34, x34))
    out.append(case("leaky_relu_backward", lambda g, x: aten.leaky_relu_backward(g, x, 0.2, False), g34, x34))
    out.append(case("elu_backward", lambda g, x: aten.elu_backward(g, 1.0, 1.0, 1.0, False, x), g34, x34))
    out.append(case("hardswish_backward", lambda g, x: aten.hardswish_backward(g, x), g34, x34 * 2))
    out.append(case("hardsigmoid_backward", lambda g, x: aten.hardsigmoid_backward(g, x), g34, x34 * 2))
    out.append(case("softplus_backward", lambda g, x: aten.softplus_backward(g, x, 1.0, 1.0), g34, x34))
    out.append(case("mish_backward", lambda g, x: aten.mish_backward(g, x), g34, x34))
    out.append(case("threshold_backward", lambda g, x: aten.threshold_backward(g, x, 0.0), g34, x34))
    out.append(case("gelu_backward_tanh", lambda g, x: aten.gelu_backward(g, x, approximate="tanh"), g34, x34))
    out.append(case("sigmoid_backward_bf16", lambda g, y: aten.sigmoid_backward(g, y), g34.bfloat16(), x34.sigmoid().bfloat16()))
    out.append(case("softmax_backward_data", lambda g, y: aten._softmax_backward_data(g, y, 1, torch.float32), g34, x34.softmax(1)))
    out.append(case("log_softmax_backward_data", lambda g, y: aten._log_softmax_backward_data(g, y, 0, torch.float32), g34, x34.log_softmax(0)))
    # glu, adaptive pooling, losses.
    out.append(case("glu", lambda x: aten.glu(x, -1), x34))
    out.append(case("glu_backward", lambda g, x: aten.glu_backward(g, x, 1), gen(23, 3, 2), x34))
    out.append(case("adaptive_avg_pool2d", lambda x: aten._adaptive_avg_pool2d(x, [4, 3]), img))
    out.append(case("adaptive_avg_pool2d_backward", lambda g, x: aten._adaptive_avg_pool2d_backward(g, x), gen(24, 2, 3, 4, 3), img))
    logits, tgt = gen(25, 4, 5).log_softmax(1), torch.tensor([1, 0, 4, 2])
    w5 = gen(26, 5, lo=0.5, hi=1.5)
    out.append(case("nll_loss_forward_mean", lambda x, t: aten.nll_loss_forward(x, t, None, 1, -100), logits, tgt))
    out.append(case("nll_loss_forward_weight_ignore", lambda x, t, w: aten.nll_loss_forward(x, t, w, 1, 2), logits, tgt, w5))
    out.append(case("nll_loss_forward_none", lambda x, t: aten.nll_loss_forward(x, t, None, 0, -100), logits, tgt))
    out.append(case("nll_loss_backward", lambda g, x, t, w, tw: aten.nll_loss_backward(g, x, t, w, 1, -100, tw),
                    torch.tensor(0.7), logits, tgt, w5, torch.tensor(3.1)))
    out.append(case("mse_loss", lambda a, b: aten.mse_loss(a, b, 1), g34, x34))
    out.append(case("mse_loss_backward", lambda g, a, b: aten.mse_loss_backward(g, a, b, 1), torch.tensor(0.5), g34, x34))
    # Norms, embeddings, pooling backward.
    ln_w, ln_b = gen(27, 4), gen(28, 4)
    y, mean, rstd = aten.native_layer_norm(x34, [4], ln_w, ln_b, 1e-5)
    out.append(case("native_layer_norm_backward", lambda g, x, m, r, w, b: aten.native_layer_norm_backward(g, x, [4], m, r, w, b, [True, True, True]),
                    g34, x34, mean, rstd, ln_w, ln_b))
    # an input with its last dim strided (a ConvNeXt block's NCHW -> NHWC
    # permute): grad_input is contiguous all the same (CPU kernel and meta)
    xp = gen(67, 2, 4, 3, 3).permute(0, 2, 3, 1)
    _, pmean, prstd = aten.native_layer_norm(xp, [4], ln_w, ln_b, 1e-5)
    out.append(case("native_layer_norm_backward_permuted", lambda g, x, m, r, w, b: aten.native_layer_norm_backward(g, x, [4], m, r, w, b, [True, True, True]),
                    gen(68, 2, 3, 3, 4), xp, pmean, prstd, ln_w, ln_b))
    bn_x, bn_g = gen(29, 2, 3, 2, 2), gen(30, 2, 3, 2, 2)
    bn_w, bn_rm, bn_rv = gen(31, 3), gen(32, 3), gen(33, 3, lo=0.5, hi=1.5)
    _, smean, sinv = aten.native_batch_norm(bn_x, bn_w, None, bn_rm.clone(), bn_rv.clone(), True, 0.1, 1e-5)
    out.append(case("native_batch_norm_backward_train", lambda g, x, w, rm, rv, sm, si: aten.native_batch_norm_backward(g, x, w, rm, rv, sm, si, True, 1e-5, [True, True, True]),
                    bn_g, bn_x, bn_w, bn_rm, bn_rv, smean, sinv))
    out.append(case("native_batch_norm_backward_eval", lambda g, x, w, rm, rv: aten.native_batch_norm_backward(g, x, w, rm, rv, None, None, False, 1e-5, [True, True, False]),
                    bn_g, bn_x, bn_w, bn_rm, bn_rv))
    emb_g, emb_i = gen(34, 2, 3, 4), torch.tensor([[1, 0, 1], [3, 2, 1]])
    out.append(case("embedding_dense_backward", lambda g, i: aten.embedding_dense_backward(g, i, 5, -1, False), emb_g, emb_i))
    out.append(case("embedding_dense_backward_pad", lambda g, i: aten.embedding_dense_backward(g, i, 5, 1, False), emb_g, emb_i))
    mp_x = gen(35, 1, 2, 5, 5)
    _, mp_i = aten.max_pool2d_with_indices(mp_x, [3, 3], [2, 2], [1, 1])
    out.append(case("max_pool2d_with_indices_backward", lambda g, x, i: aten.max_pool2d_with_indices_backward(g, x, [3, 3], [2, 2], [1, 1], [1, 1], False, i),
                    gen(36, 1, 2, 3, 3), mp_x, mp_i))
    out.append(case("avg_pool2d_backward", lambda g, x: aten.avg_pool2d_backward(g, x, [3, 3], [2, 2], [1, 1], False, True, None),
                    gen(36, 1, 2, 3, 3), mp_x))
    cx, cw, cg = gen(37, 2, 4, 5, 5), gen(38, 6, 2, 3, 3), gen(39, 2, 6, 3, 2)
    out.append(case("convolution_backward", lambda g, x, w: aten.convolution_backward(g, x, w, [6], [2, 2], [1, 0], [1, 1], False, [0, 0], 2, [True, True, True]),
                    cg, cx, cw))
    # Misc ops real graphs contain.
    out.append(case("diag_vec", lambda x: aten.diag(x, 1), gen(40, 3)))
    out.append(case("diag_embed_dims", lambda x: aten.diag_embed(x, -1, 0, 2), x34))
    out.append(case("diag_mat", lambda x: aten.diag(x, -1), x34))
    out.append(case("norm_scalaropt_dim", lambda x: aten.norm.ScalarOpt_dim(x, 2, [1], True), x34))
    out.append(case("norm_scalaropt_dim_p1", lambda x: aten.norm.ScalarOpt_dim(x, 1, [0]), x34))
    out.append(case("round_decimals", lambda x: aten.round.decimals(x, decimals=2), x34 * 10))
    out.append(case("polygamma1", lambda x: aten.polygamma(1, x), gen(41, 5, lo=0.5, hi=4.0)))
    out.append(case("polygamma0", lambda x: aten.polygamma(0, x), gen(41, 5, lo=0.5, hi=4.0)))
    out.append(case("mvlgamma", lambda x: aten.mvlgamma(x, 3), gen(42, 5, lo=1.5, hi=4.0)))
    out.append(case("view_as_complex", lambda x: aten.view_as_real(aten.mul(aten.view_as_complex(x), 2)), gen(43, 3, 2)))
    out.append(case("view_as_complex_roundtrip", lambda x: aten.view_as_real(aten.view_as_complex(x[:, 2:])), gen(44, 3, 4)))
    vc = lambda t: aten.view_as_complex(t)  # noqa: E731
    out.append(case("complex_add_alpha_div", lambda a, b: aten.view_as_real(aten.div(aten.add(vc(a), vc(b), alpha=0.5), vc(b))), gen(46, 4, 2), gen(47, 4, 2)))
    out.append(case("complex_mul_real_tensor", lambda a, r: aten.view_as_real(aten.mul(vc(a), r)), gen(48, 3, 2, dtype=torch.float64), gen(49, 3, dtype=torch.float64)))
    out.append(case("conj_meta", lambda x: aten._conj(aten.view_as_complex(x)), gen(43, 3, 2), values=False))
    # The conjugate bit: _conj is a view; other ops see it resolved, writes
    # through it land conjugated in the base.
    out.append(case("conj_mul", lambda a, b: aten.view_as_real(aten.mul(aten._conj(vc(a)), vc(b))), gen(53, 4, 2), gen(54, 4, 2)))
    out.append(case("conj_transpose_clone", lambda a: aten.view_as_real(aten.clone(aten.t(aten._conj(vc(a))))), gen(55, 2, 3, 2)))
    out.append(case("conj_physical", lambda a: aten.view_as_real(aten._conj_physical(vc(a))), gen(56, 3, 2, dtype=torch.float64)))
    out.append(case("conj_inplace_write_through", lambda a, b: aten.view_as_real(conj_add_(aten.view_as_complex(aten.clone(a)), vc(b))), gen(57, 3, 2), gen(58, 3, 2)))
    # Complex128 arithmetic (the conformance suite samples complex64).
    z = lambda n, *shape: torch.view_as_complex(gen(n, *shape, 2, dtype=torch.float64))  # noqa: E731
    out.append(case("c128_unary", lambda a: [aten.view_as_real(f(a)) for f in (aten.exp, aten.log, aten.sqrt, aten.tanh, aten.sigmoid, aten.reciprocal)]
                    + [aten.abs(a)], z(70, 5)))
    out.append(case("c128_pow_eq_where", lambda a, b, m: (aten.view_as_real(aten.pow(a, b)), aten.eq(a, b), aten.view_as_real(aten.where(m, a, b))),
                    z(71, 4), z(72, 4), torch.tensor([True, False, True, False])))
    out.append(case("c128_reductions", lambda a: (aten.view_as_real(aten.sum(a, [1])), aten.view_as_real(aten.mean(a)), aten.view_as_real(aten.prod(a, 0)),
                                                  aten.view_as_real(aten.cumprod(a, 1)), aten.var(a, [1]), aten.linalg_vector_norm(a, 3)), z(73, 3, 4)))
    out.append(case("c128_matmul", lambda a, b, c: (aten.view_as_real(aten.mm(a, b)), aten.view_as_real(aten.addmm(c, a, b, beta=0.5 - 1j, alpha=2j)),
                                                   aten.view_as_real(aten.vdot(a[0], b[:, 0]))), z(74, 3, 4), z(75, 4, 2), z(76, 3, 2)))
    out.append(case("c128_gather_index_put", lambda a, i, v: (aten.view_as_real(aten.gather(a, 1, i)), aten.view_as_real(aten.index_put(a, [i[:, 0]], v, True))),
                    z(77, 3, 4), torch.tensor([[0, 3], [1, 1], [2, 0]]), z(78, 3, 4)))
    out.append(case("angle", lambda x, i, a: (aten.angle(x), aten.angle(i), aten.angle(a)),
                    torch.tensor([-1.5, 0.0, -0.0, 2.0, float("nan")]), torch.tensor([-3, 0, 4]), z(79, 4)))
    out.append(case("c128_logsumexp", lambda a: aten.view_as_real(aten.logsumexp(a, [1])), z(80, 3, 4)))
    out.append(case("logit_backward_eps", lambda g, x: (aten.logit_backward(g, x), aten.logit_backward(g, x, 0.1)),
                    gen(81, 5), torch.tensor([-0.5, 0.05, 0.3, 0.95, 2.0])))
    ga = torch.tensor([0.5, 1.0, 2.0, 5.0, 30.0, 250.0, 0.0, 3.0, 1e-3, -1.0], dtype=torch.float64)
    gx = torch.tensor([0.2, 1.0, 3.0, 4.0, 28.0, 260.0, 1.0, 0.0, 5.0, 1.0], dtype=torch.float64)
    out.append(case("igamma_igammac_f64", lambda a, x: (aten.igamma(a, x), aten.igammac(a, x)), ga, gx))
    out.append(case("igamma_igammac_f32", lambda a, x: (aten.igamma(a, x), aten.igammac(a, x)), ga.float(), gx.float()))
    out.append(case("conj_imag_neg_view", conj_parts, gen(82, 3, 2)))
    out.append(case("complex_scalars", lambda x, i, a, m: (
        aten.view_as_real(aten.full([2], 1j)), aten.view_as_real(aten.add(x, 1 + 2j)), aten.view_as_real(aten.mul(i, -2j)),
        aten.view_as_real(aten.masked_fill(a, m, 0.5j)), aten.view_as_real(aten.pow(x, 0.5j)),
        aten.view_as_real(aten.where(m, a, 2j)), aten.view_as_real(aten.full_like(a, 1 - 1j))),
        gen(83, 4), torch.tensor([1, -2, 3, 0]), z(84, 4), torch.tensor([True, False, False, True])))
    zc = z(85, 3, 2)
    out.append(single("real", aten.real.default, (zc,)))
    out.append(single("imag", aten.imag.default, (zc,)))
    out.append(single("real_of_real", aten.real.default, (gen(86, 3),)))
    out.append(single("conj_physical_c128", aten.conj_physical.default, (zc,)))
    out.append(single("resolve_conj", aten.resolve_conj.default, (zc,)))
    out.append(single("resolve_neg", aten.resolve_neg.default, (zc,)))
    # torch.special's aliases, called by name (Dynamo
    # graphs and op traces name them; make_fx would show the base op).
    sx = gen(87, 5, lo=0.1, hi=0.9)
    for name in ["special_erf", "special_erfc", "special_erfinv", "special_exp2",
                 "special_expit", "special_expm1", "special_gammaln", "special_log1p", "special_sinc"]:
        out.append(single(name, getattr(aten, name).default, (sx,)))
    out.append(single("special_xlogy", aten.special_xlogy.default, (sx, sx * 3)))
    out.append(single("special_logsumexp", aten.special_logsumexp.default, (x34, [1], True)))
    out.append(single("special_softmax", aten.special_softmax.default, (x34, 0)))
    out.append(single("special_log_softmax", aten.special_log_softmax.default, (x34, 1)))
    # Special functions in double (the conformance suite samples float32).
    f64 = torch.float64
    wide = gen(60, 12, dtype=f64, lo=-12.0, hi=12.0)
    pos = gen(61, 12, dtype=f64, lo=0.05, hi=15.0)
    for name in ["special_modified_bessel_i0", "special_modified_bessel_i1", "special_i1", "special_i1e", "special_airy_ai"]:
        out.append(case(name + "_f64", getattr(aten, name), wide))
    for name in ["special_modified_bessel_k0", "special_modified_bessel_k1", "special_scaled_modified_bessel_k0", "special_scaled_modified_bessel_k1"]:
        out.append(case(name + "_f64", getattr(aten, name), pos))
    out.append(case("special_erfcx_f64", aten.special_erfcx, torch.tensor([-30.0, -20.0, -5.0, -0.5, 0.0, 1e-17, 0.3, 4.0, 26.0, 49.0, 51.0, 1e8], dtype=f64)))
    out.append(case("special_zeta_f64", aten.special_zeta, gen(62, 6, dtype=f64, lo=1.0, hi=6.0), torch.tensor([0.5, 2.0, -1.5, -2.0, 10.0, 0.0], dtype=f64)))
    px, pn = gen(63, 4, 1, dtype=f64, lo=-1.5, hi=1.5), torch.tensor([0.0, 1.0, 2.0, 5.0, 9.0, 12.0], dtype=f64)
    for name in ["chebyshev_polynomial_t", "chebyshev_polynomial_u", "chebyshev_polynomial_v", "chebyshev_polynomial_w",
                 "shifted_chebyshev_polynomial_t", "shifted_chebyshev_polynomial_u", "shifted_chebyshev_polynomial_v",
                 "shifted_chebyshev_polynomial_w", "hermite_polynomial_h", "hermite_polynomial_he", "laguerre_polynomial_l",
                 "legendre_polynomial_p"]:
        out.append(case("special_" + name + "_f64", getattr(aten, "special_" + name), px, pn))
    # A float32 recurrence overflows to inf, then NaN, where PyTorch's does.
    out.append(case("special_chebyshev_polynomial_t_f32_overflow", aten.special_chebyshev_polynomial_t,
                    torch.tensor([30.0, -30.0, 0.5]), torch.tensor([40.0])))
    out.append(case("polygamma_f32_poles", lambda x: (aten.polygamma(0, x), aten.polygamma(1, x), aten.polygamma(3, x)),
                    torch.tensor([0.0, -2.0, -2.5, -0.0024, 1.0, 7.5])))
    out.append(case("polygamma_f64", lambda x: (aten.polygamma(0, x), aten.polygamma(2, x)), gen(64, 6, dtype=f64, lo=-3.0, hi=6.0)))
    out.append(case("complex_f64", lambda a, b: aten.view_as_real(aten.complex(a, b)), gen(65, 3, 1, dtype=f64), gen(66, 4, dtype=f64)))
    out.append(case("polar_f64", lambda a, b: aten.view_as_real(aten.polar(a, b)), gen(67, 5, dtype=f64, lo=0.0, hi=3.0), gen(68, 5, dtype=f64, lo=-4.0, hi=4.0)))
    out.append(case("frexp_f64", lambda x: aten.frexp(x), torch.tensor([0.0, -0.0, 1.0, -3.5, 1e-310, 1e300], dtype=f64)))
    out.append(case("softshrink_celu_f64", lambda x: (aten.softshrink(x, 0.7), aten.celu(x, 0.5)), gen(69, 6, dtype=f64, lo=-3.0, hi=3.0)))
    out.append(single("fused_rms_norm", aten._fused_rms_norm.default, (x34, [4], ln_w, 1e-6)))
    out.append(single("fused_rms_norm_bf16_no_eps", aten._fused_rms_norm.default, (x34.bfloat16(), [3, 4], None, None)))
    f8a, f8b = gen(50, 4, 8).to(torch.float8_e4m3fn), gen(51, 3, 8).to(torch.float8_e4m3fn).t()
    out.append(single("scaled_mm_bf16", aten._scaled_mm.default, (f8a, f8b, torch.tensor(0.5), torch.tensor(2.0)), {"out_dtype": torch.bfloat16}))
    out.append(single("scaled_mm_bias_f32", aten._scaled_mm.default, (f8a, f8b, torch.tensor(1.5), torch.tensor(1.0), gen(52, 3)), {"out_dtype": torch.float32}))
    # Inductor's own prims (torch/_inductor/inductor_prims.py).
    prims = torch.ops.prims
    out.append(case("prepare_softmax_online", lambda x: prims.prepare_softmax_online(x, 1), x34))
    out.append(case("prepare_softmax_online_bf16", lambda x: prims.prepare_softmax_online(x, 0), x34.bfloat16()))
    out.append(case("inductor_randint", lambda s: prims.inductor_randint(0, 10, [3, 2], s), torch.tensor(7), values=False))
    lm_x = gen(45, 1, 2, 5, 5)
    _, offs = prims._low_memory_max_pool_with_offsets(lm_x, [3, 3], [2, 2], [1, 1], [1, 1], False)
    out.append(case("low_memory_max_pool_offsets_to_indices", lambda o: prims._low_memory_max_pool_offsets_to_indices(o, [3, 3], [5, 5], [2, 2], [1, 1], [1, 1]), offs))
    # CPU scaled_dot_product_attention: the flash kernel keeps the query's
    # layout (empty_like(query)); the math path (another value head dim, a
    # strided last dim, dropout) returns a contiguous result.
    q, k, v = (gen(120 + i, 2, 5, 4, 8).transpose(1, 2) for i in range(3))
    sdpa = aten.scaled_dot_product_attention.default
    out.append(single("sdpa_cpu_flash_query_layout", sdpa, [q, k, v], {"is_causal": True}))
    out.append(single("sdpa_cpu_math_value_head_dim", sdpa, [q, k, gen(123, 2, 4, 5, 16)]))
    out.append(single("sdpa_cpu_math_strided_last_dim", sdpa, [q, k, gen(124, 2, 4, 8, 5).transpose(-1, -2)]))
    out.append(single("sdpa_cpu_math_dropout", sdpa, [q, k, v], {"dropout_p": 0.5}, values=False))
    # Composites only Dynamo-level graphs hold (ops/table_dynamo.go): their
    # fake types, on layouts the rules must keep.
    cl = gen(125, 2, 6, 3, 4).to(memory_format=torch.channels_last)
    out.append(single("group_norm_channels_last", aten.group_norm.default, [cl, 3], values=False))
    out.append(single("dropout_train_permuted", aten.dropout.default, [gen(126, 3, 4, 5).permute(2, 0, 1), 0.5, True], values=False))
    out.append(single("dropout_eval_alias", aten.dropout.default, [gen(126, 3, 4, 5).permute(2, 0, 1), 0.5, False], values=False))
    out.append(single("one_hot", aten.one_hot.default, [torch.tensor([[0, 2], [1, 3]]), 5], values=False))
    logits = gen(127, 4, 5, 3)
    out.append(single("cross_entropy_loss_none", aten.cross_entropy_loss.default, [logits, torch.tensor([[0, 1, 2]] * 4)], {"reduction": 0}, values=False))
    out.append(single("cross_entropy_loss_probs_mean", aten.cross_entropy_loss.default, [logits, gen(128, 4, 5, 3).softmax(1)], values=False))
    out.append(single("nll_loss_nd_none", aten.nll_loss_nd.default, [logits, torch.tensor([[0, 1, 2]] * 4)], {"reduction": 0}, values=False))
    out.append(single("unflatten_transposed", aten.unflatten.int, [gen(129, 6, 4).t(), 1, [2, -1]], values=False))
    out.append(single("numpy_T_3d", aten.numpy_T.default, [gen(130, 2, 3, 4)], values=False))
    # The output memory format of a convolution: a channels-last weight
    # makes it channels-last on the CPU too (FakeTensor's conv asks
    # _conv_determine_backend_memory_format), depthwise and float64 alike.
    wcl = gen(131, 4, 3, 3, 3).to(memory_format=torch.channels_last)
    out.append(single("conv2d_weight_channels_last", aten.convolution.default,
                      [gen(132, 2, 3, 5, 5), wcl, None, [1, 1], [0, 0], [1, 1], False, [0, 0], 1], values=False))
    dw = gen(133, 4, 1, 3, 3).to(memory_format=torch.channels_last)
    out.append(single("conv2d_depthwise_weight_channels_last", aten.convolution.default,
                      [gen(134, 2, 4, 5, 5), dw, None, [1, 1], [1, 1], [1, 1], False, [0, 0], 4], values=False))
    x64 = gen(135, 2, 3, 5, 5, dtype=torch.float64).to(memory_format=torch.channels_last)
    out.append(single("conv2d_f64_input_channels_last", aten.convolution.default,
                      [x64, gen(136, 4, 3, 3, 3, dtype=torch.float64), None, [1, 1], [0, 0], [1, 1], False, [0, 0], 1],
                      values=False))
    out += linalg_cases(gen, case, single)
    out += nn_cases(gen, case, single)
    return out


def main():
    torch.manual_seed(0)
    json.dump({"torch": torch.__version__, "generator": "tools/opcases/gen.py", "cases": cases()}, sys.stdout, indent=1)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
