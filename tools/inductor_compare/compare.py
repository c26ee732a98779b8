"""kiln side by side with Inductor, on this machine's CPU.

For each program below: make_fx prints its ATen graph (the FX text kiln
reads), torch.compile (Inductor, CPU) compiles and runs it, and kiln
compiles the same FX text to a Go module, built with GOEXPERIMENT=simd,
which runs on the same inputs (.npy). The script checks kiln's outputs
against eager PyTorch, counts kernels on both sides and times both
compiled calls in one run. With --write FILE it replaces the table between
the markers in FILE (docs/benchmarks.md).

    nice -n 10 python3 tools/inductor_compare/compare.py --write docs/benchmarks.md

Kernels: Inductor's are its generated C++ functions (cpp_fused_*, one per
async_compile.cpp_pybinding), with the loop nests inside them
(torch._inductor.metrics.generated_kernel_count) in parentheses; kiln's are
the loop kernels of its post-fusion IR. Extern calls (mm, addmm) are
counted apart on both sides. Time: per call, the best of 5 batches of n
calls after a warm-up; Inductor's includes its Python wrapper, kiln's is
the generated program's Run (no file I/O), both measured here, now.
"""

import argparse
import os
import platform
import re
import shutil
import subprocess
import sys
import tempfile
import time

import numpy as np
import torch
import torch.nn.functional as F
from torch._inductor import metrics
from torch._inductor.utils import run_and_get_code
from torch.fx.experimental.proxy_tensor import make_fx

BEGIN = "<!-- inductor_compare:begin -->"
END = "<!-- inductor_compare:end -->"


# The programs: name, function, input shapes (float32, randn). The first
# four are issue 13's held-out graphs, at sizes large enough to time.
def scale_column(x):
    a = torch.arange(x.numel(), dtype=torch.float32).view(x.shape[1], x.shape[0])
    a.transpose(0, 1).select(0, 1).mul_(2)
    return a + x.t()


def slice_assign(x, y):
    x = x.clone()
    x[:, 2:4] = y * 2
    return x


def sum_mid(x):
    return torch.sum(x * 2, dim=1)


def softmax_mid(x):
    return torch.softmax(x, dim=1)


def softmax_last(x):
    return torch.softmax(x, dim=-1)


def pointwise_chain(x):
    return torch.exp(torch.relu(x * 2 + 1)) - x


def layer_norm(x, w, b):
    return F.layer_norm(x, (x.shape[-1],), w, b)


def rms_norm(x, w):
    return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + 1e-6) * w


def gelu_bias(x, b):
    return F.gelu(x + b, approximate="tanh")


def residual_ln(x, r, w, b):
    return F.layer_norm(x + r, (x.shape[-1],), w, b)


def mlp(x, w1, b1, w2, b2):
    return F.linear(F.relu(F.linear(x, w1, b1)), w2, b2)


PROGRAMS = [
    ("scale_column (select_scatter)", scale_column, [(1024, 1024)]),
    ("slice_assign (slice_scatter)", slice_assign, [(1024, 1024), (1024, 2)]),
    ("sum(x*2, dim=1), 3-d", sum_mid, [(64, 128, 128)]),
    ("softmax dim=1, 3-d", softmax_mid, [(64, 128, 128)]),
    ("softmax dim=-1", softmax_last, [(1024, 1024)]),
    ("pointwise chain", pointwise_chain, [(1024, 1024)]),
    ("layer_norm", layer_norm, [(1024, 1024), (1024,), (1024,)]),
    ("rms_norm", rms_norm, [(1024, 1024), (1024,)]),
    ("gelu(x + b)", gelu_bias, [(1024, 1024), (1024,)]),
    ("residual + layer_norm", residual_ln, [(1024, 1024), (1024, 1024), (1024,), (1024,)]),
    ("mlp (linear-relu-linear)", mlp, [(256, 512), (1024, 512), (1024,), (512, 1024), (512,)]),
]


def fx_text(gm):
    """print_readable without the stack-trace comments."""
    text = gm.print_readable(print_output=False)
    return "\n".join(l for l in text.splitlines() if "No stacktrace" not in l) + "\n"


def inductor_kernels(code):
    """(C++ kernels, extern calls) in Inductor's output code."""
    kernels = code.count("async_compile.cpp_pybinding(")
    call = code[code.find("def call("):] if "def call(" in code else code
    externs = len(re.findall(r"extern_kernels\.\w+\(|torch\.ops\.mkl\w*\.\w+\(", call))
    return kernels, externs


def kiln_kernels(dump):
    """(loop kernels, extern calls) in kiln's post-fusion IR dump."""
    loops = len(re.findall(r"^kernel\d+ (?:pointwise|reduction)", dump, re.M))
    externs = len(re.findall(r"^kernel\d+ extern", dump, re.M))
    return loops, externs


def best_ns(fn, n, repeats=5):
    best = float("inf")
    for _ in range(repeats):
        t0 = time.perf_counter_ns()
        for _ in range(n):
            fn()
        best = min(best, (time.perf_counter_ns() - t0) / n)
    return best


def calls_for(fn, budget_s=0.05):
    """How many calls take about budget_s."""
    t0 = time.perf_counter()
    fn()
    dt = max(time.perf_counter() - t0, 1e-6)
    return max(3, min(2000, int(budget_s / dt)))


def run(cmd, **kw):
    return subprocess.run(cmd, check=True, capture_output=True, text=True, **kw)


def measure(name, fn, shapes, kiln, work):
    torch.manual_seed(0)
    args = [torch.randn(s) for s in shapes]
    gm = make_fx(fn)(*args)
    names = [n.name for n in gm.graph.nodes if n.op == "placeholder"]
    slug = re.sub(r"[^a-z0-9]+", "_", name.lower()).strip("_")
    d = os.path.join(work, slug)
    os.makedirs(os.path.join(d, "in"))
    fx = os.path.join(d, "graph.fx")
    with open(fx, "w") as f:
        f.write(fx_text(gm))
    for n, a in zip(names, args):
        np.save(os.path.join(d, "in", n + ".npy"), a.numpy())
    want = fn(*[a.clone() for a in args])

    torch._dynamo.reset()
    metrics.reset()
    compiled = torch.compile(fn)
    _, codes = run_and_get_code(compiled, *args)
    ind_k, ind_ext = inductor_kernels("\n".join(codes))
    ind_nests = metrics.generated_kernel_count

    run([kiln, "compile", "-o", os.path.join(d, "dump"), fx])
    with open(os.path.join(d, "dump", "graph0.ir_post_fusion.txt")) as f:
        kiln_k, kiln_ext = kiln_kernels(f.read())
    mod = os.path.join(d, "mod")
    run([kiln, "compile", "-target=go", "-o", mod, fx])
    env = dict(os.environ, GOEXPERIMENT="simd")
    run(["go", "build", "-o", "kilngen", "."], cwd=mod, env=env)
    binary = os.path.join(mod, "kilngen")
    simd = run([binary, "-simd"]).stdout.strip()
    out = os.path.join(d, "out")
    run([binary, "-inputs", os.path.join(d, "in"), "-o", out])
    got = np.load(os.path.join(out, "out0.npy"))
    err = float(np.max(np.abs(got - want.numpy()))) if got.size else 0.0
    ok = got.shape == tuple(want.shape) and np.allclose(got, want.numpy(), rtol=1e-4, atol=1e-4)

    n = calls_for(lambda: compiled(*args))
    ind_ns = best_ns(lambda: compiled(*args), n)
    kiln_ns = min(
        int(re.search(r"ns/op (\d+)", run([binary, "-inputs", os.path.join(d, "in"), "-o", out, "-bench", str(n)]).stdout).group(1))
        for _ in range(5))
    return dict(name=name, shapes=shapes, ind_k=ind_k, ind_nests=ind_nests, ind_ext=ind_ext,
                kiln_k=kiln_k, kiln_ext=kiln_ext, ind_us=ind_ns / 1e3, kiln_us=kiln_ns / 1e3,
                ok=ok, err=err, simd=simd, n=n)


def table(rows, load_before, load_after, started):
    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo") as f:
            cpu = next(l.split(":", 1)[1].strip() for l in f if l.startswith("model name"))
    except (OSError, StopIteration):
        pass
    lines = [
        f"Measured {started} UTC by `tools/inductor_compare/compare.py`: torch {torch.__version__} (Inductor, CPU), "
        f"{cpu}, {os.cpu_count()} CPUs, torch threads {torch.get_num_threads()}; "
        f"load average {load_before[0]:.2f} before, {load_after[0]:.2f} after (the machine is shared: "
        "times carry that noise). kiln's Go built with GOEXPERIMENT=simd "
        f"({rows[0]['simd'] if rows else ''}).",
        "",
        "| graph | input shapes | kernels kiln | kernels Inductor (loop nests) | extern calls kiln / Inductor "
        "| kiln µs | Inductor µs | time kiln / Inductor | kiln = eager |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        shapes = ", ".join("×".join(map(str, s)) for s in r["shapes"])
        lines.append(
            f"| {r['name']} | {shapes} | {r['kiln_k']} | {r['ind_k']} ({r['ind_nests']}) | {r['kiln_ext']} / {r['ind_ext']} "
            f"| {r['kiln_us']:.1f} | {r['ind_us']:.1f} | {r['kiln_us'] / r['ind_us']:.2f} "
            f"| {'yes' if r['ok'] else 'NO'} (max abs diff {r['err']:.1e}) |")
    return "\n".join(lines) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--write", help="replace the table between the markers in this file")
    ap.add_argument("--only", help="run only programs whose name contains this")
    ap.add_argument("--keep", help="work in this folder and keep it")
    a = ap.parse_args()
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    work = a.keep or tempfile.mkdtemp(prefix="inductor_compare.")
    os.makedirs(work, exist_ok=True)
    kiln = os.path.join(work, "kiln")
    run(["go", "build", "-o", kiln, "./cmd/kiln"], cwd=root)
    started = time.strftime("%Y-%m-%d %H:%M", time.gmtime())
    load_before = os.getloadavg()
    rows = []
    for name, fn, shapes in PROGRAMS:
        if a.only and a.only not in name:
            continue
        r = measure(name, fn, shapes, kiln, work)
        print(f"{r['name']}: kernels kiln {r['kiln_k']} Inductor {r['ind_k']} ({r['ind_nests']}); "
              f"{r['kiln_us']:.1f} µs vs {r['ind_us']:.1f} µs; matches eager: {r['ok']}", file=sys.stderr)
        rows.append(r)
    text = table(rows, load_before, os.getloadavg(), started)
    print(text)
    if a.write:
        with open(a.write) as f:
            doc = f.read()
        i, j = doc.index(BEGIN) + len(BEGIN), doc.index(END)
        with open(a.write, "w") as f:
            f.write(doc[:i] + "\n" + text + doc[j:])
    if not a.keep:
        shutil.rmtree(work, ignore_errors=True)
    return 0 if all(r["ok"] for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
