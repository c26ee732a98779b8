"""Float32 polynomial coefficients for rt's expm1, sin and cos (rt/fastlog.go, rt/fasttrig.go).

Each polynomial is fitted by weighted least squares on Chebyshev nodes (near
minimax for relative error), then its coefficients rounded to float32 one at a
time from the constant term up, refitting the rest after each, so the rounding
of one is absorbed by the others. Prints each coefficient and the fit's worst
relative error against mpmath (40 digits).

    python3 tools/fastmath/fit.py
"""
import mpmath as mp
import numpy as np

mp.mp.dps = 40


def fit(name, target, lo, hi, basis, n):
    """target(t) ~ sum c_i basis(t)^i, i < n, relative error, t in [lo, hi]."""
    ts = [mp.mpf(lo) + (mp.mpf(hi) - lo) * (1 - mp.cos(mp.pi * (k + 0.5) / 400)) / 2 for k in range(400)]
    ys = [target(t) for t in ts]
    bs = [basis(t) for t in ts]
    fixed = []
    for j in range(n):
        m = n - j
        a = np.array([[float(b ** (j + i) / y) for i in range(m)] for b, y in zip(bs, ys)])
        rhs = np.array([float((y - sum(c * b ** i for i, c in enumerate(fixed))) / y) for b, y in zip(bs, ys)])
        c = np.linalg.lstsq(a, rhs, rcond=None)[0]
        fixed.append(float(np.float32(c[0])))
    worst = max(abs(float((sum(c * b ** i for i, c in enumerate(fixed)) - y) / y)) for b, y in zip(bs, ys))
    print(f"{name}: relative error {worst:.3g} (2^{np.log2(worst):.1f}); highest degree first:")
    for c in reversed(fixed):
        print(f"    {np.float32(c)!r:>16} = {float(np.float32(c)).hex()}")


def main():
    h = mp.log(2) / 2
    # expm1(r) = r + r²/2 + r³·Q(r), |r| <= ln2/2
    fit("expm1 Q", lambda r: (mp.expm1(r) - r - r * r / 2) / r ** 3 if r != 0 else mp.mpf(1) / 6, -h * 1.01, h * 1.01,
        lambda r: r, 5)
    q = mp.pi / 4
    # sin(r) = r + r³·S(r²), cos(r) = 1 - r²/2 + r⁴·C(r²), |r| <= π/4
    fit("sin S", lambda z: (mp.sin(mp.sqrt(z)) - mp.sqrt(z)) / mp.sqrt(z) ** 3, 1e-12, q * q * 1.01, lambda z: z, 4)
    fit("cos C", lambda z: (mp.cos(mp.sqrt(z)) - 1 + z / 2) / z ** 2, 1e-12, q * q * 1.01, lambda z: z, 3)


if __name__ == "__main__":
    main()
