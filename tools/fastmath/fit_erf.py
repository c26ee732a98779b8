"""Fit rt.ErfF32's erfc polynomial Q (rt/fasterf.go) and print its constants.

erfc(x)·x·e^{x²} for |x| in [1, 3.95], as a polynomial of degree 12 in
u = a·y + b, y = 1/x² taken onto [-1, 1]: weighted least squares on
Chebyshev nodes, reweighted towards equal relative error (Lawson's
iteration). Prints the float32 constants and the fit's relative error in
float64; TestErfSweep (rt/fastmath_test.go) measures the float32 function.

    python3 tools/fastmath/fit_erf.py
"""
import math

import numpy as np

LO, HI, DEGREE = 1 / 3.95**2, 1.0, 12


def target(y):
    x = 1 / math.sqrt(y)
    return math.erfc(x) * x * math.exp(x * x)


def main():
    a, b = 2 / (HI - LO), -(HI + LO) / (HI - LO)
    n = 3000
    us = np.cos(np.pi * (np.arange(n) + 0.5) / n)
    fs = np.array([target(y) for y in (us - b) / a])
    w = 1 / fs
    for _ in range(40):
        c, *_ = np.linalg.lstsq(np.vander(us, DEGREE + 1) * w[:, None], fs * w, rcond=None)
        err = (np.polyval(c, us) - fs) / fs
        w = w * np.sqrt(np.abs(err) / np.abs(err).max() + 1e-3)
    ys = np.linspace(LO, HI, 100001)
    fd = np.array([target(y) for y in ys])
    rel = np.abs(np.polyval(c, a * ys + b) - fd) / fd
    print(f"// relative error {rel.max():.2g} in float64 (numpy {np.__version__})")
    print(f"ErfUa float32 = {float(np.float32(a))!r}")
    print(f"ErfUb float32 = {float(np.float32(b))!r}")
    for i, v in enumerate(c.astype(np.float32)):
        print(f"ErfQ{i} float32 = {float(v)!r}")


if __name__ == "__main__":
    main()
