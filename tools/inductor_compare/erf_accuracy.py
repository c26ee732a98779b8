"""How accurate erf and exact gelu are in Inductor's C++ against eager.

Inductor's CPU kernels compute erf with ATen's Vectorized<float>::erf
(Abramowitz and Stegun 7.1.26: one exp, five coefficients; see
ATen/cpu/vec/vec512/vec512_float.h in the installed torch). kiln's lanes use
rt.ErfF32 (within 1 ulp of float64 erf: rt/fastmath_test.go). This prints
each one's error against float64 on the same inputs, the figures
docs/benchmarks.md quotes for the exact-gelu row:

    python3 tools/inductor_compare/erf_accuracy.py
"""
import torch
import torch.nn.functional as F


def ulps(y, ref):
    """|y - ref| in units of float32's last place at ref."""
    r = ref.float()
    ulp = (torch.nextafter(r, torch.tensor(float("inf"))).double() - r.double()).abs()
    return (y.double() - ref).abs() / ulp


def main():
    torch.set_num_threads(1)
    x = torch.cat([torch.linspace(-4, 4, 1 << 20), torch.logspace(-6, 0, 4096), -torch.logspace(-6, 0, 4096)])
    ref = torch.erf(x.double())
    inductor = torch.compile(torch.erf)(x)
    for name, y in [("Inductor C++", inductor), ("eager", torch.erf(x))]:
        u = ulps(y, ref)
        print(f"erf, {name}: max {u.max():.3g} ulp (at x = {x[u.argmax()]:.3g})")
    small = x.abs() < 1e-3
    rel = ((inductor.double() - ref).abs() / ref.abs())[small].max()
    print(f"erf, Inductor C++, |x| < 1e-3: max relative error {rel:.3g}")
    g64 = F.gelu(x.double())
    for name, y in [("Inductor C++", torch.compile(F.gelu)(x)), ("eager", F.gelu(x))]:
        print(f"gelu, {name}: max abs error {(y.double() - g64).abs().max():.3g}")
    print(f"torch {torch.__version__}")


if __name__ == "__main__":
    main()
