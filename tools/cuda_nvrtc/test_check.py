import os
import sys

import pytest

sys.path.insert(0, os.path.dirname(__file__))
import check  # noqa: E402

LOG = """ptxas info    : 1 bytes gmem
ptxas info    : Compiling entry function 'kernel1' for 'sm_90'
ptxas info    : Function properties for kernel1
ptxas         .     8 bytes stack frame, 4 bytes spill stores, 4 bytes spill loads
ptxas info    : Used 40 registers, used 0 barriers
ptxas info    : Compiling entry function 'kernel0' for 'sm_90'
ptxas info    : Function properties for kernel0
ptxas         .     0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
ptxas info    : Used 18 registers, used 0 barriers
"""


def test_ptxas_report_reads_each_kernel():
    r = check.ptxas_report(LOG)
    assert r["kernel1"] == {"arch": "sm_90", "stack": 8, "spill_stores": 4, "spill_loads": 4, "registers": 40}
    assert r["kernel0"]["registers"] == 18 and r["kernel0"]["spill_stores"] == 0


def test_kernels_are_the_extern_c_globals():
    src = 'extern "C" __global__ void __launch_bounds__(256) kernel0(float* a) {}\nextern "C" __global__ void kernel7(int n) {}\n'
    assert check.KERNEL.findall(src) == ["kernel0", "kernel7"]


def test_compiles_and_refuses_with_nvrtc():
    lib = check.find_nvrtc()
    if lib is None:
        if os.environ.get("CI"):
            pytest.fail("NVRTC not found: PyTorch's CUDA wheel should bring it")
        pytest.skip("NVRTC not found: pip install torch")
    nv = check.NVRTC(lib)
    good = 'extern "C" __global__ void kernel0(float* a) { a[threadIdx.x] *= 2.0f; }\n'
    ok, log = nv.compile(good, "good.cu", ["-arch=sm_90", "--ptxas-options=-v"])
    assert ok, log
    assert check.ptxas_report(log)["kernel0"]["registers"] > 0
    ok, log = nv.compile('extern "C" __global__ void kernel0(float* a) { a[0] = INFINITY; }\n', "bad.cu", ["-arch=sm_90"])
    assert not ok and "INFINITY" in log
