"""Reference values for rt's float32 exp, tanh and erf (rt/fastmath.go, rt/fasterf.go).

Writes rt/testdata/fastmath.txt: for each function, inputs (float32 bits)
with PyTorch's eager CPU result in float32 (its vectorised Sleef kernels,
what Inductor's C++ also calls) and in float64 (the reference for ulp
error). rt/fastmath_test.go reads it; go test needs no PyTorch.

    python3 tools/fastmath/gen.py > rt/testdata/fastmath.txt
"""
import numpy as np
import torch


def inputs(lo, hi, n, extra):
    g = torch.Generator().manual_seed(0)
    xs = torch.linspace(lo, hi, n, dtype=torch.float32)
    rnd = (torch.rand(n, generator=g, dtype=torch.float64) * (hi - lo) + lo).float()
    return torch.cat([xs, rnd, torch.tensor(extra, dtype=torch.float32)])


def main():
    print(f"# torch {torch.__version__}: fn x_bits torch_f32_bits torch_f64 (float32 inputs; eager CPU)")
    specials = [0.0, -0.0, float("inf"), float("-inf"), 1e-30, -1e-30, 1e-7, -1e-7]
    sets = {
        "exp": inputs(-104.0, 89.0, 1500, specials + [88.72, 88.7228, 88.73, -87.3, -87.34, -103.9, -103.98, -104.5]),
        "tanh": torch.cat([inputs(-10.0, 10.0, 1200, specials + [0.625, -0.625, 0.62, 0.63, 9.0, 20.0]),
                           inputs(-0.7, 0.7, 400, [])]),
        "erf": torch.cat([inputs(-6.0, 6.0, 1200, specials + [1.0, -1.0, 0.99999994, 1.0000001, 2.0, -2.0,
                                                             1.9999999, 2.0000002, 3.9, 9.0, -9.5]),
                          inputs(-2.2, 2.2, 800, [])]),
    }
    for name, x in sets.items():
        f = getattr(torch, name)
        y32 = f(x)  # contiguous float32: ATen's vectorised kernel
        y64 = f(x.double())
        xb = x.numpy().view(np.uint32)
        yb = y32.numpy().view(np.uint32)
        for a, b, c in zip(xb, yb, y64.tolist()):
            print(f"{name} {a:08x} {b:08x} {c!r}")


if __name__ == "__main__":
    main()
