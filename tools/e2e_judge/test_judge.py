import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(__file__))
import judge  # noqa: E402


def test_philox_known_answers():
    # Random123's kat_vectors for philox4x32-10.
    w = judge.philox(0, 0, np.array([0], dtype=np.uint64))
    assert [int(x[0]) for x in w] == [0x6627E8D5, 0xE169C58D, 0xBC57AC4C, 0x9B00DBD8]
    # ctr = (pi digits), key = (0xa4093822, 0x299f31d0): index is ctr words 0-1,
    # stream words 2-3, seed the key (low word first).
    ctr = [0x243F6A88, 0x85A308D3, 0x13198A2E, 0x03707344]
    w = judge.philox(0x299F31D0A4093822, ctr[3] << 32 | ctr[2], np.array([ctr[1] << 32 | ctr[0]], dtype=np.uint64))
    assert [int(x[0]) for x in w] == [0xD16CFE09, 0x94FDCCEB, 0x5001E420, 0x24126EA1]


def test_fnv1a64():
    assert judge.fnv1a64(b"") == 0xCBF29CE484222325
    assert judge.fnv1a64(b"a") == 0xAF63DC4C8601EC8C


def test_inputs_of_reads_annotations():
    src = 'class <lambda>(torch.nn.Module):\n    def forward(self, a: "f32[2, 3][3, 1]cuda:0", b: "i64[][]cpu"):\n        return (a,)\n'
    assert judge.inputs_of(src) == [("a", "f32", [2, 3], [3, 1]), ("b", "i64", [], [])]


def test_make_inputs_repeats_stride_zero_dims():
    (m,) = judge.make_inputs([("m", "f32", [2, 1, 3, 3], [0, 3, 1, 0])])
    assert m.shape == (2, 1, 3, 3)
    assert (m[0] == m[1]).all() and (m[:, :, :, 0:1] == m).all()


def test_make_inputs_gives_symbolic_sizes_the_default():
    src = ('class GraphModule(torch.nn.Module):\n    def forward(self, s77: "Sym(s77)", s27: "Sym(s27)", '
           'L_x_: "f32[s77, s27, 8][8*s27, 8, 1]cpu"):\n        return (L_x_,)\n')
    specs = judge.inputs_of(src)
    n, m, x = judge.make_inputs(specs)
    assert (n, m) == (judge.DEFAULT_SYM, judge.DEFAULT_SYM)
    assert x.shape == (8, 8, 8) and x.stride() == (64, 8, 1)
    assert judge.sym_values(specs, [None, None, x]) == [8, 8, x]


def test_runnable_moves_to_cpu_and_computes_in_float64():
    src = ('class <lambda>(torch.nn.Module):\n    def forward(self, a: "f32[2][1]cuda:0"):\n'
           '        full: "f32[2][1]cuda:0" = torch.ops.aten.full.default([2], 1.5, dtype = torch.float32, '
           "device = device(type='cuda', index=0), pin_memory = False)\n"
           '        add: "f32[2][1]cuda:0" = torch.ops.aten.add.Tensor(a, full)\n        return (add,)\n')
    import torch
    (out,) = judge.runnable(src, f64=True)(torch.zeros(2, dtype=torch.float64))
    assert out.dtype == torch.float64 and out.tolist() == [1.5, 1.5]


def test_flat_signature_runs_an_aot_joint_graph():
    # corpus 041's form: parameters declared on a line, unpacked by
    # tree_flatten_spec, a list returned through tree_unflatten
    src = (
        "from __future__ import annotations\n\n\n\n"
        "def forward(self, primals, tangents):\n"
        '    primals_1: "f32[2, 3]"; tangents_1: "f32[2, 3]"; \n\n'
        "    primals_1, tangents_1, = fx_pytree.tree_flatten_spec([primals, tangents], self._in_spec)\n"
        '    mul: "f32[2, 3]" = torch.ops.aten.mul.Tensor(primals_1, tangents_1)\n'
        "    return pytree.tree_unflatten([mul, None], self._out_spec)\n"
    )
    assert judge.inputs_of(src) == [("primals_1", "f32", [2, 3], None), ("tangents_1", "f32", [2, 3], None)]
    import torch
    a, b = torch.ones(2, 3), torch.full((2, 3), 2.0)
    out = judge.runnable(src)(a, b)
    assert isinstance(out, tuple) and out[1] is None and torch.equal(out[0], a * b)


def test_native_dropout_draws_kilns_numbers():
    # rt.RandUniform(7, rt.StreamID("native_dropout"), i) for i < 8, as the
    # Go runtime prints them: the mask keeps u >= p, as interp's kDropout.
    import torch
    u = [0.20157212, 0.2636696, 0.06333381, 0.058347106, 0.4883181, 0.32043242, 0.29662615, 0.67301774]
    src = ('class G(torch.nn.Module):\n    def forward(self, x: "f32[8][1]cpu"):\n'
           "        native_dropout = torch.ops.aten.native_dropout.default(x, 0.25, True)\n"
           "        getitem = native_dropout[0]\n        getitem_1 = native_dropout[1]\n"
           "        return (getitem, getitem_1)\n")
    out, mask = judge.runnable(src)(torch.ones(8))
    assert mask.tolist() == [v >= 0.25 for v in u]
    assert torch.allclose(out, mask.float() / 0.75)
    out, mask = judge.kiln_native_dropout("native_dropout", torch.ones(8), 0.25, False)
    assert mask.all() and (out == 1).all()


def test_runnable_gives_an_empty_tensor_constant():
    src = ('class <lambda>(torch.nn.Module):\n    def forward(self, a: "f32[2][1]cpu"):\n'
           '        _tensor_constant0: "f32[0][1]cpu" = self._tensor_constant0\n'
           '        cat: "f32[2][1]cpu" = torch.ops.aten.cat.default([_tensor_constant0, a])\n'
           '        return (cat,)\n')
    import torch
    (out,) = judge.runnable(src)(torch.ones(2))
    assert out.tolist() == [1.0, 1.0]


def test_pool_indices_lie_in_their_windows():
    # 3x3 windows, stride 2, padding 1 over a 7x6 plane: each index names an
    # element of its own window inside the input, as the forward pool saves.
    src = ('class G(torch.nn.Module):\n'
           '    def forward(self, g: "f32[2, 4, 4][16, 4, 1]cpu", x: "f32[2, 7, 6][42, 6, 1]cpu", '
           'i: "i64[2, 4, 4][16, 4, 1]cpu"):\n'
           '        b = torch.ops.aten.max_pool2d_with_indices_backward.default(g, x, [3, 3], [2, 2], [1, 1], '
           '[1, 1], True, i)\n'
           '        return (b,)\n')
    specs = judge.inputs_of(src)
    _, _, i = judge.pool_indices(src, specs, judge.make_inputs(specs))
    for c in range(2):
        for ph in range(4):
            for pw in range(4):
                h, w = divmod(int(i[c, ph, pw]), 6)
                assert 0 <= h < 7 and 0 <= w < 6
                assert ph * 2 - 1 <= h < ph * 2 + 2 and pw * 2 - 1 <= w < pw * 2 + 2


def test_matmul_variants():
    import torch
    g = torch.Generator().manual_seed(0)
    a, b, c = torch.randn(5, 300, generator=g), torch.randn(300, 4, generator=g), torch.randn(4, generator=g)
    want64 = (a.double() @ b.double()).float()
    with judge.MatmulVariant("f64"):
        assert torch.equal(torch.mm(a, b), want64)
        assert torch.equal(torch.addmm(c, a, b), (c.double() + a.double() @ b.double()).float())
    loop = torch.zeros(5, 4)
    for k in range(300):
        loop = loop + a[:, k:k + 1] * b[k:k + 1, :]
    with judge.MatmulVariant("k-order"):
        got = torch.mm(a, b)
        assert torch.equal(got, loop)
        assert torch.equal(torch.bmm(a[None], b[None])[0], loop)
    assert not torch.equal(loop, want64), "the two orders round differently on 300 terms"


def test_inductor_verdicts(capsys):
    import torch
    src = ('class <lambda>(torch.nn.Module):\n    def forward(self, a: "f32[4, 8][8, 1]cpu"):\n'
           '        mul: "f32[4, 8][8, 1]cpu" = torch.ops.aten.mul.Tensor(a, 3.0)\n'
           '        sum_1: "f32[4][1]cpu" = torch.ops.aten.sum.dim_IntList(mul, [1])\n'
           '        return (mul, sum_1)\n')
    a = torch.randn(4, 8, generator=torch.Generator().manual_seed(0))
    eager = judge.runnable(src)(a)
    f64 = judge.runnable(src, f64=True)(a.double())
    judge.inductor_verdicts(src, [a], eager, f64)
    out = capsys.readouterr().out
    assert out.count("same() True") == 2, out
