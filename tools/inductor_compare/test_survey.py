import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
import survey  # noqa: E402


def test_shape_text_names_dtypes():
    assert survey.shape_text((6, 7)) == "6×7"
    assert survey.shape_text(()) == "scalar"
    assert survey.shape_text(survey.mask(6, 7)) == "bool 6×7"
    assert survey.shape_text(survey.index(10, 3, 4)) == "i64 3×4"


def test_make_input_kinds():
    assert survey.make_input(survey.mask(2, 3)).dtype.is_floating_point is False
    i = survey.make_input(survey.index(5, 100))
    assert str(i.dtype) == "torch.int64" and int(i.min()) >= 0 and int(i.max()) < 5


def test_table_counts_graphs_above_inductor_and_failures():
    rows = [
        dict(name="a", specs=[(2, 3)], kiln_k=2, ind_k=1, ind_nests=2, kiln_ext=0, ind_ext=0, ok=True),
        dict(name="b", specs=[(2, 3)], kiln_k=1, ind_k=1, ind_nests=1, kiln_ext=0, ind_ext=0, ok=True),
        dict(name="c", specs=[(2, 3)], kiln_k="?", ind_k=1, ind_nests=1, kiln_ext="?", ind_ext=0, ok=False),
    ]
    text = survey.table(rows, "2026-01-01 00:00")
    assert "| a | 2×3 | 2 | 1 (2) | 0 / 0 | yes |" in text
    assert "| c | 2×3 | ? | 1 (1) | ? / 0 | n/a (no compile) |" in text
    assert "3 graphs; kiln above Inductor's kernel count on 2 (of which kiln does not compile 1); kiln = eager on 2." in text


def test_every_note_names_a_surveyed_graph():
    names = {name for name, _, _ in survey.PROGRAMS}
    assert set(survey.NOTES) <= names
