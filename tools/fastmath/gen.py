"""Reference values for rt's float32 exp, tanh, erf, log, log1p, expm1, sin and cos.

(rt/fastmath.go, rt/fasterf.go, rt/fastlog.go, rt/fasttrig.go)

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
    # Functions added later, after the others so that the earlier lines stay
    # byte-identical. log and log1p also over magnitudes (log-spaced, subnormals
    # included) and NaN; expm1 around its branch points (n = 1, the n = 25
    # split near 17.33, overflow near 88.72, -1 below about -17.33).
    nan = float("nan")
    mags = torch.logspace(-45, 38.5, 1500, dtype=torch.float64).float()
    sets.update({
        "log": torch.cat([inputs(0.0, 4.0, 800, specials + [nan, -1.0, -2.5, 1.0, 0.70710677, 0.7071068, 1.4142135,
                                                            1.4142137, 1e-45, 1e-40, 1.1754942e-38, 1.1754944e-38,
                                                            3.4028235e38, 1.0000001, 0.99999994]),
                          inputs(0.5, 1.5, 600, []), mags]),
        "log1p": torch.cat([inputs(-1.0, 10.0, 1000, specials + [nan, -1.0, -2.5, -0.99999994, -0.5, -0.29289323,
                                                                0.41421357, 5.9604645e-8, -5.9604645e-8, 2.9802322e-8,
                                                                1e-45, 3.4028235e38, 16777216.0]),
                            inputs(-0.4, 0.5, 600, []), mags, -mags[mags < 1]]),
        "expm1": torch.cat([inputs(-20.0, 89.0, 1200, specials + [nan, 0.34657359, -0.34657359, 0.3466, 0.37,
                                                                 -0.37, 17.32, 17.33, 17.34, 17.4, 88.37, 88.38,
                                                                 88.72, 88.7228, 88.73, 89.0, 100.0, -17.3, -17.4,
                                                                 -30.0, -100.0, 1e-45]),
                            inputs(-1.5, 1.5, 800, [])]),
    })
    # sin and cos: small and large arguments, float32 values nearest to
    # multiples of π/2 (where the reduction cancels) up to rt.TrigMax = 2^16
    # and past it (the float64 fallback), huge ones, NaN.
    near = (torch.arange(1, 41722, 97, dtype=torch.float64) * (torch.pi / 2)).float()
    for name in ("sin", "cos"):
        sets[name] = torch.cat([inputs(-10.0, 10.0, 1200, specials + [nan, 65536.0, -65536.0, 65537.0, 1e5, 1e10,
                                                                       -1e20, 3.4028235e38, 1e-45, 0.7853982,
                                                                       -0.7853982, 1.5707964, 3.1415927]),
                                inputs(-70000.0, 70000.0, 1000, []), near, -near[::3]])
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
