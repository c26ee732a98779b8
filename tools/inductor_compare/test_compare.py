import os
import sys

import pytest

if not os.environ.get("CI"):
    pytest.importorskip("torch", reason="the comparison scripts need PyTorch (installed in CI)")
sys.path.insert(0, os.path.dirname(__file__))
import compare  # noqa: E402

INDUCTOR = """
cpp_fused_add_0 = async_compile.cpp_pybinding(['const float*', 'float*'], r'''
extern "C" void kernel(const float* in_ptr0, float* out_ptr0) {}
''')
cpp_fused_relu_1 = async_compile.cpp_pybinding(['float*'], r'''...''')
def call(self, args):
    extern_kernels.addmm(arg1_1, arg2_1, reinterpret_tensor(arg0_1, (4, 4), (1, 4), 0), alpha=1, beta=1, out=buf0)
    cpp_fused_add_0(buf0, buf1)
    cpp_fused_relu_1(buf1)
    extern_kernels.mm(buf1, arg3_1, out=buf2)
"""

KILN = """program graph0
kernel0 pointwise origins=[add] vec=4
  for x0 < 4:
kernel1 extern origins=[mm]
kernel2 reduction origins=[sum_1]
  for x0 < 4:
"""


def test_inductor_kernels_counts_cpp_functions_and_externs():
    assert compare.inductor_kernels(INDUCTOR) == (2, 2)


def test_kiln_kernels_counts_loop_kernels_and_externs():
    assert compare.kiln_kernels(KILN) == (2, 1)


def test_table_has_one_row_per_graph():
    row = dict(name="g", shapes=[(2, 3)], ind=dict(fused=1, funcs=1, nests=2, ext=0), kiln_k=1, kiln_ext=0,
               ind_us=10.0, kiln_us=5.0, ok=True, err=0.0, simd="avx2", n=10)
    text = compare.table([row], (1.0, 1.0, 1.0), (2.0, 2.0, 2.0), "2026-01-01 00:00")
    assert "| g | 2×3 | 1 | 1 | yes | 1 (2) | 0 / 0 | 5.0 | 10.0 | 0.50 | yes" in text
    assert "load average 1.00 before, 2.00 after" in text


def test_count_table_marks_kiln_above_fused_kernels():
    rows = [dict(name="g", shapes=[], ind=dict(fused=1, funcs=1, nests=2, ext=0), kiln_k=2, ok=True)]
    text = compare.count_table(rows, "2026-01-01 00:00")
    assert "| g | none | 2 | 1 | NO | 1 (2) | yes |" in text
    assert text.count("|---") == 3 + compare.KERNEL_COLS
