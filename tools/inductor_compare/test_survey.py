import os
import sys

import pytest

if not os.environ.get("CI"):
    pytest.importorskip("torch", reason="the comparison scripts need PyTorch (installed in CI)")
sys.path.insert(0, os.path.dirname(__file__))
import survey  # noqa: E402


def test_shape_text_names_dtypes():
    assert survey.shape_text((6, 7)) == "6×7"
    assert survey.shape_text(()) == "scalar"
    assert survey.shape_text(survey.mask(6, 7)) == "bool 6×7"
    assert survey.shape_text(survey.index(10, 3, 4)) == "i64 3×4"
    assert survey.shape_text(survey.offsets(0, 3)) == "offsets 0, 3"


def test_make_input_kinds():
    assert survey.make_input(survey.mask(2, 3)).dtype.is_floating_point is False
    i = survey.make_input(survey.index(5, 100))
    assert str(i.dtype) == "torch.int64" and int(i.min()) >= 0 and int(i.max()) < 5
    assert survey.make_input(survey.offsets(0, 3, 3)).tolist() == [0, 3, 3]


def test_train_traces_forward_and_backward():
    # the traced step returns the output and one gradient per float input;
    # make_fx records the backward's aten ops
    import torch
    from torch.fx.experimental.proxy_tensor import make_fx

    step = survey.train(lambda x: torch.sigmoid(x) * 2)
    x, g = torch.randn(3), torch.randn(3)
    out, gx = step(x, g)
    assert torch.allclose(gx, g * 2 * torch.sigmoid(x) * (1 - torch.sigmoid(x)))
    assert step.traced and "sigmoid_backward" in make_fx(step)(x, g).code


def test_table_compares_with_fused_kernels_not_functions():
    # a: one function holding two fused kernels; kiln's 2 are at Inductor's
    # fused count (above its function count). b: kiln above. c: no compile.
    rows = [
        dict(name="a", specs=[(2, 3)], kiln_k=2, ind=dict(fused=2, funcs=1, nests=2, ext=0), kiln_ext=0, ok=True),
        dict(name="b", specs=[(2, 3)], kiln_k=2, ind=dict(fused=1, funcs=1, nests=1, ext=0), kiln_ext=0, ok=True),
        dict(name="c", specs=[(2, 3)], kiln_k="?", ind=dict(fused=1, funcs=1, nests=1, ext=1), kiln_ext="?", ok=False),
    ]
    text = survey.table(rows, "2026-01-01 00:00")
    assert "| graph | input shapes | kernels kiln | fused kernels Inductor | kiln ≤ Inductor |" in text
    assert "| a | 2×3 | 2 | 2 | yes | 1 (2) | 0 / 0 | yes |" in text
    assert "| b | 2×3 | 2 | 1 | NO | 1 (1) | 0 / 0 | yes |" in text
    assert "| c | 2×3 | ? | 1 | n/a | 1 (1) | ? / 1 | n/a (no compile) |" in text
    assert ("3 graphs; kiln above Inductor's fused-kernel count on 2 (of which kiln does not compile 1); "
            "kiln = eager on 2. Against Inductor's C++ functions instead (several fused kernels each), "
            "kiln is above on 2.") in text


def test_inductor_counts_fused_kernels_inside_one_function():
    # Inductor's CPU backend writes x.sum(0) and x.sum(1) (outer spaces 6
    # and 8: no fusion) as two fused kernels in one C++ function; group_norm
    # as one function whose outer-loop-fused statistics count one kernel
    # although they hold several loop nests.
    import torch
    import torch.nn.functional as F

    _, _, ind = survey.inductor_run(lambda x: (x.sum(0), x.sum(1)), [torch.randn(8, 6)])
    assert (ind["funcs"], ind["fused"], ind["nests"]) == (1, 2, 2)
    args = [torch.randn(2, 4, 3, 3), torch.randn(4), torch.randn(4)]
    _, _, ind = survey.inductor_run(lambda x, w, b: F.group_norm(x, 2, w, b), args)
    assert ind["funcs"] == 1 and 1 < ind["fused"] < ind["nests"]


def test_every_note_names_a_surveyed_graph():
    names = {name for name, _, _ in survey.PROGRAMS}
    assert set(survey.NOTES) <= names
