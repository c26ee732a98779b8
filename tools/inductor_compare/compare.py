"""kiln side by side with Inductor, on this machine's CPU.

For each program below: make_fx prints its ATen graph (the FX text kiln
reads), torch.compile (Inductor, CPU) compiles and runs it, and kiln
compiles the same FX text to a Go module, built with GOEXPERIMENT=simd,
which runs on the same inputs (.npy). The script checks kiln's outputs
against eager PyTorch, counts kernels on both sides and times both
compiled calls in one run. With --write FILE it replaces the table between
the markers in FILE (docs/benchmarks.md).

    nice -n 10 python3 tools/inductor_compare/compare.py --write docs/benchmarks.md

Kernels, three counts on Inductor's side (see inductor_run), kiln's are
the loop kernels of its post-fusion IR; the comparison is kiln's kernels
against Inductor's fused kernels. Extern calls (mm, addmm) are counted
apart on both sides. Time: per call, the best of 12 batches of n
calls (4 rounds alternating between the sides) after a warm-up, in CPU
time on one thread each (torch.set_num_threads(1),
GOMAXPROCS=1), so that other processes on a shared machine do not count;
Inductor's includes its Python wrapper, kiln's is the generated program's
Run (a run of n+1 calls less a run of 1: no file I/O), both measured here, now.
kiln's output is checked against eager with torch._dynamo.utils.same
(float64 reference), as Inductor's accuracy benchmarks check Inductor.
"""

import argparse
import contextlib
import os
import platform
import re
import resource
import shutil
import subprocess
import sys
import tempfile
import time

import numpy as np
import torch
import torch.nn.functional as F
from torch._dynamo.utils import same
from torch._inductor import config as inductor_config
from torch._inductor import metrics
from torch._inductor.codegen.cpp import CppScheduling
from torch._inductor.utils import run_and_get_code
from torch.fx.experimental.proxy_tensor import make_fx

BEGIN = "<!-- inductor_compare:begin -->"
END = "<!-- inductor_compare:end -->"
HELD_BEGIN = "<!-- inductor_compare:heldout:begin -->"
HELD_END = "<!-- inductor_compare:heldout:end -->"


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


# Session 14's held-out rows, written before kiln ran on them: a SwiGLU
# gate (a llama MLP's), Adam's update, a column sum, a row variance, BERT's
# exact gelu and arithmetic in bfloat16 (autocast's).
def silu_gate(x, y):
    return F.silu(x) * y


def adam_update(m, v):
    return m / (torch.sqrt(v.abs()) + 1e-8)


def sum_dim0(x):
    return x.sum(0)


def var_last(x):
    return x.var(-1)


def gelu_exact(x):
    return F.gelu(x)


def bf16_round_trip(x, y):
    return (x.bfloat16() * y.bfloat16() + 1).float()


# Session 15's held-out rows, written before kiln ran on them: functions
# built on log, log1p, expm1, sin and cos. softplus (log1p of exp), elu
# (expm1), log_softmax over the last dim (log of a sum), the logistic loss
# on logits (mean; eager takes any target, randn ones included) and a
# rotary-embedding step (sin, cos).
def softplus(x):
    return F.softplus(x)


def elu(x):
    return F.elu(x)


def log_softmax_last(x):
    return torch.log_softmax(x, -1)


def bce_logits(x, y):
    return F.binary_cross_entropy_with_logits(x, y)


def rotary_sin_cos(x, y):
    return x.sin() * y.cos()


# Session 15's second held-out set (the lead's), written before kiln ran on
# them: a training step's pieces. cross_entropy against the argmax of
# another tensor (compare.py feeds float inputs only), softmax with a
# boolean mask built in the graph, and layer_norm and a SwiGLU gate,
# forward and backward (train: the joint graph make_fx traces through
# autograd.grad).
def cross_entropy_argmax(x, y):
    return F.cross_entropy(x, y.argmax(-1))


def masked_softmax(x, y):
    return torch.softmax(x.masked_fill(y > 1, float("-inf")), -1)


def train(f):
    """A forward and backward step of f: its output and the gradient of each
    float input for the last input, the output's gradient (the joint graph
    make_fx traces through autograd.grad). Inductor compiles the traced
    graph (step.traced), not the step around a graph break."""
    def step(*args):
        *xs, go = args
        xs = [x.detach().requires_grad_() if x.is_floating_point() else x for x in xs]
        with torch.enable_grad():
            out = f(*xs)
            grads = torch.autograd.grad(out, [x for x in xs if x.requires_grad], go)
        return (out.detach(),) + tuple(grads)
    step.traced = True
    return step


layer_norm_train = train(lambda x, w, b: F.layer_norm(x, (1024,), w, b))
swiglu_train = train(lambda x, y: F.silu(x) * y)


# Issue 13's held-out graphs at the issue's own sizes (kernel counts only;
# testdata/fusion/heldout_*.txtar hold the same graphs).
def arange_select_mul():
    a = torch.arange(6, dtype=torch.float32).view(2, 3)
    a.transpose(0, 1).select(0, 1).mul_(2)
    return a


HELDOUT = [
    ("arange → view → transpose → select → mul_", arange_select_mul, []),
    ("clone; x[:, 2:4] = y * 2", slice_assign, [(4, 6), (4, 2)]),
    ("sum(x * 2, dim=1), 3-d", sum_mid, [(4, 5, 6)]),
    ("softmax over dim 1, 3-d", softmax_mid, [(4, 5, 6)]),
]

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
    ("silu(x) * y", silu_gate, [(1024, 1024), (1024, 1024)]),
    ("m / (sqrt(|v|) + eps)", adam_update, [(1024, 1024), (1024, 1024)]),
    ("sum over dim 0", sum_dim0, [(1024, 1024)]),
    ("var over the last dim", var_last, [(1024, 1024)]),
    ("gelu (erf)", gelu_exact, [(1024, 1024)]),
    ("x * y + 1 in bf16", bf16_round_trip, [(1024, 1024), (1024, 1024)]),
    ("softplus", softplus, [(1024, 1024)]),
    ("elu (expm1)", elu, [(1024, 1024)]),
    ("log_softmax dim=-1", log_softmax_last, [(1024, 1024)]),
    ("bce_with_logits (mean)", bce_logits, [(1024, 1024), (1024, 1024)]),
    ("sin(x) * cos(y)", rotary_sin_cos, [(1024, 1024), (1024, 1024)]),
    ("cross_entropy (mean)", cross_entropy_argmax, [(1024, 1024), (1024, 1024)]),
    ("masked softmax", masked_softmax, [(1024, 1024), (1024, 1024)]),
    ("layer_norm, forward and backward", layer_norm_train, [(1024, 1024), (1024,), (1024,), (1024, 1024)]),
    ("silu(x) * y, forward and backward", swiglu_train, [(1024, 1024), (1024, 1024), (1024, 1024)]),
]


ROUNDS = 4  # alternating timing rounds per graph


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


@contextlib.contextmanager
def counting_fused_kernels():
    """Counts the kernels Inductor's scheduler formed while the block runs:
    one per call of CppScheduling.codegen_node (a SchedulerNode, a
    FusedSchedulerNode, or an OuterLoopFusedSchedulerNode, whose nests
    share outer loops: one kernel) or codegen_template (a template and its
    epilogue). Yields a one-element list holding the count."""
    n = [0]
    node, template = CppScheduling.codegen_node, CppScheduling.codegen_template

    def count_node(self, *a, **k):
        n[0] += 1
        return node(self, *a, **k)

    def count_template(self, *a, **k):
        n[0] += 1
        return template(self, *a, **k)

    CppScheduling.codegen_node, CppScheduling.codegen_template = count_node, count_template
    try:
        yield n
    finally:
        CppScheduling.codegen_node, CppScheduling.codegen_template = node, template


def inductor_run(fn, args):
    """Compiles fn with torch.compile (Inductor, CPU) and runs it once on
    args. Returns (compiled, output code, counts): counts has
      funcs:  its C++ functions (async_compile.cpp_pybinding(, cpp_fused_*);
      nests:  the loop nests inside them (metrics.generated_kernel_count,
              one per CppKernelProxy: a reduction's vectorized and tail
              loops count once);
      fused:  the fused kernels its scheduler formed (counting_fused_kernels);
      ext:    extern calls (extern_kernels.*, mkl ops).
    A function is not a kernel: Inductor's CPU backend (torch 2.15,
    torch/_inductor/codegen/cpp.py) adds every scheduler node's loops to one
    KernelGroup (CppScheduling.codegen_node -> kernel_group.finalize_kernel)
    and writes the group out as one cpp_fused_* function only in flush(),
    which the scheduler's codegen loop (torch/_inductor/scheduler.py) calls
    at an extern call, a template, a device change, or when the group passes
    CppScheduling.MAX_FUSED_KERNEL_ARGS_NUM (500) arguments. So x.sum(0),
    x.sum(1) is one function holding two fused kernels (two passes over
    memory, what a GPU backend launches twice), which is what kiln calls two
    kernels. Caches are off so that the scheduler runs every time."""
    torch._dynamo.reset()
    metrics.reset()
    compiled = torch.compile(fn)
    with inductor_config.patch(force_disable_caches=True), counting_fused_kernels() as fused:
        _, codes = run_and_get_code(compiled, *args)
    code = "\n".join(codes)
    funcs, ext = inductor_kernels(code)
    return compiled, code, dict(funcs=funcs, nests=metrics.generated_kernel_count, fused=fused[0], ext=ext)


def kiln_kernels(dump):
    """(loop kernels, extern calls) in kiln's post-fusion IR dump."""
    loops = len(re.findall(r"^kernel\d+ (?:pointwise|reduction)", dump, re.M))
    externs = len(re.findall(r"^kernel\d+ extern", dump, re.M))
    return loops, externs


def best_ns(fn, n, repeats=5):
    """CPU time of this thread per call, best of repeats batches of n."""
    best = float("inf")
    for _ in range(repeats):
        t0 = time.thread_time_ns()
        for _ in range(n):
            fn()
        best = min(best, (time.thread_time_ns() - t0) / n)
    return best


def calls_for(fn, budget_s=0.1):
    """How many calls take about budget_s of CPU time."""
    t0 = time.thread_time()
    fn()
    dt = max(time.thread_time() - t0, 1e-6)
    return max(3, min(2000, int(budget_s / dt)))


def child_cpu_s(cmd, env):
    """User + system CPU seconds a child process used."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(cmd, check=True, capture_output=True, env=env)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def kiln_cpu_ns(binary, in_dir, out, n, repeats=3):
    """CPU time per Run of the generated program on one thread: a run of
    n + 1 calls less a run of 1, so reading inputs, the warm-up call and
    writing outputs cancel."""
    env = dict(os.environ, GOMAXPROCS="1")
    cmd = [binary, "-inputs", in_dir, "-o", out, "-bench"]
    best = float("inf")
    for _ in range(repeats):
        d = child_cpu_s(cmd + [str(n + 1)], env) - child_cpu_s(cmd + ["1"], env)
        best = min(best, d * 1e9 / n)
    return best


def run(cmd, **kw):
    return subprocess.run(cmd, check=True, capture_output=True, text=True, **kw)


def measure(name, fn, shapes, kiln, work, timed=True):
    torch.manual_seed(0)
    args = [torch.randn(s) for s in shapes]
    gm = make_fx(fn)(*args)
    names = [n.name for n in gm.graph.nodes if n.op == "placeholder"]
    slug = re.sub(r"[^a-z0-9]+", "_", name.lower()).strip("_")
    d = os.path.join(work, slug)
    shutil.rmtree(d, ignore_errors=True)  # a --keep folder run again: this row afresh
    os.makedirs(os.path.join(d, "in"))
    fx = os.path.join(d, "graph.fx")
    with open(fx, "w") as f:
        f.write(fx_text(gm))
    for n, a in zip(names, args):
        np.save(os.path.join(d, "in", n + ".npy"), a.numpy())
    want = fn(*[a.clone() for a in args])

    # A forward and backward step compiles as its traced joint graph, as
    # survey.py does: torch.compile of the step itself would run
    # autograd.grad around a graph break.
    compiled, _, ind = inductor_run(gm if getattr(fn, "traced", False) else fn, args)

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
    # One output or several (a forward and backward step returns the
    # forward's and each gradient), checked one by one.
    wants = want if isinstance(want, tuple) else (want,)
    want64 = fn(*[a.double() for a in args])
    wants64 = want64 if isinstance(want64, tuple) else (want64,)
    ok, err = True, 0.0
    for i, (w, w64) in enumerate(zip(wants, wants64)):
        got = np.load(os.path.join(out, f"out{i}.npy"))
        err = max(err, float(np.max(np.abs(got - w.numpy()))) if got.size else 0.0)
        ok = ok and got.shape == tuple(w.shape) and same(w, torch.from_numpy(got), fp64_ref=w64, tol=1e-4,
                                                         log_error=lambda *a, **k: None)

    if not timed:
        return dict(name=name, shapes=shapes, ind=ind, kiln_k=kiln_k, kiln_ext=kiln_ext, ok=ok, err=err)
    n = calls_for(lambda: compiled(*args))
    # Rounds alternate between the two sides, so that a burst of load from
    # other processes on the shared machine does not fall on one side only;
    # each side keeps its best.
    ind_ns = kiln_ns = float("inf")
    for _ in range(ROUNDS):
        ind_ns = min(ind_ns, best_ns(lambda: compiled(*args), n, repeats=3))
        kiln_ns = min(kiln_ns, kiln_cpu_ns(binary, os.path.join(d, "in"), out, n, repeats=2))
    return dict(name=name, shapes=shapes, ind=ind, kiln_k=kiln_k, kiln_ext=kiln_ext,
                ind_us=ind_ns / 1e3, kiln_us=kiln_ns / 1e3,
                ok=ok, err=err, simd=simd, n=n)


# The kernel columns of every table: kiln's kernels, Inductor's fused
# kernels, whether kiln's count is at most Inductor's (the comparison), and
# Inductor's C++ functions with the loop nests inside them.
KERNEL_HEADS = "kernels kiln | fused kernels Inductor | kiln ≤ Inductor | C++ functions Inductor (loop nests)"
KERNEL_COLS = 4


def at_most(r):
    """kiln compiled the graph into at most Inductor's fused kernels."""
    return isinstance(r["kiln_k"], int) and r["kiln_k"] <= r["ind"]["fused"]


def kernel_cells(r):
    """The KERNEL_HEADS cells of row r."""
    ind = r["ind"]
    verdict = "yes" if at_most(r) else ("n/a" if not isinstance(r["kiln_k"], int) else "NO")
    return f"{r['kiln_k']} | {ind['fused']} | {verdict} | {ind['funcs']} ({ind['nests']})"


def table(rows, load_before, load_after, started):
    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo") as f:
            cpu = next(l.split(":", 1)[1].strip() for l in f if l.startswith("model name"))
    except (OSError, StopIteration):
        pass
    lines = [
        f"Measured {started} UTC by `tools/inductor_compare/compare.py`: torch {torch.__version__} (Inductor, CPU), "
        f"{cpu}, {os.cpu_count()} CPUs, one thread on each side (torch threads {torch.get_num_threads()}, GOMAXPROCS=1), "
        "CPU time; "
        f"load average {load_before[0]:.2f} before, {load_after[0]:.2f} after (the machine is shared: "
        "times carry that noise). kiln's Go built with GOEXPERIMENT=simd "
        f"({rows[0]['simd'] if rows else ''}).",
        "",
        f"| graph | input shapes | {KERNEL_HEADS} | extern calls kiln / Inductor "
        "| kiln µs CPU | Inductor µs CPU | time kiln / Inductor | kiln = eager |",
        "|---" * (7 + KERNEL_COLS) + "|",
    ]
    for r in rows:
        shapes = ", ".join("×".join(map(str, s)) for s in r["shapes"])
        lines.append(
            f"| {r['name']} | {shapes} | {kernel_cells(r)} | {r['kiln_ext']} / {r['ind']['ext']} "
            f"| {r['kiln_us']:.1f} | {r['ind_us']:.1f} | {r['kiln_us'] / r['ind_us']:.2f} "
            f"| {'yes' if r['ok'] else 'NO'} (max abs diff {r['err']:.1e}) |")
    return "\n".join(lines) + "\n"


def count_table(rows, started):
    lines = [
        f"Counted {started} UTC by `tools/inductor_compare/compare.py --heldout`: torch {torch.__version__} "
        "(Inductor, CPU).",
        "",
        f"| held-out graph (issue 13) | input shapes | {KERNEL_HEADS} | kiln = eager |",
        "|---" * (3 + KERNEL_COLS) + "|",
    ]
    for r in rows:
        shapes = ", ".join("×".join(map(str, s)) for s in r["shapes"]) or "none"
        lines.append(f"| {r['name']} | {shapes} | {kernel_cells(r)} | {'yes' if r['ok'] else 'NO'} |")
    return "\n".join(lines) + "\n"


def replace_between(path, begin, end, text):
    with open(path) as f:
        doc = f.read()
    i, j = doc.index(begin) + len(begin), doc.index(end)
    with open(path, "w") as f:
        f.write(doc[:i] + "\n" + text + doc[j:])


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--write", help="replace the table between the markers in this file")
    ap.add_argument("--only", help="run only programs whose name contains this")
    ap.add_argument("--keep", help="work in this folder and keep it")
    ap.add_argument("--heldout", action="store_true", help="count kernels of issue 13's held-out graphs at the issue's sizes (no timing)")
    a = ap.parse_args()
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    work = a.keep or tempfile.mkdtemp(prefix="inductor_compare.")
    os.makedirs(work, exist_ok=True)
    kiln = os.path.join(work, "kiln")
    run(["go", "build", "-o", kiln, "./cmd/kiln"], cwd=root)
    # One thread each, timed in CPU time: the machine is shared, and CPU
    # time does not count what other processes take.
    torch.set_num_threads(1)
    started = time.strftime("%Y-%m-%d %H:%M", time.gmtime())
    load_before = os.getloadavg()
    rows = []
    if a.heldout:
        rows = [measure(name, fn, shapes, kiln, work, timed=False) for name, fn, shapes in HELDOUT]
        text = count_table(rows, started)
        print(text)
        if a.write:
            replace_between(a.write, HELD_BEGIN, HELD_END, text)
        return 0 if all(r["ok"] for r in rows) else 1
    for name, fn, shapes in PROGRAMS:
        if a.only and a.only not in name:
            continue
        r = measure(name, fn, shapes, kiln, work)
        print(f"{r['name']}: kernels kiln {r['kiln_k']} Inductor fused {r['ind']['fused']}, "
              f"functions {r['ind']['funcs']} ({r['ind']['nests']} nests); "
              f"{r['kiln_us']:.1f} µs vs {r['ind_us']:.1f} µs; matches eager: {r['ok']}", file=sys.stderr)
        rows.append(r)
    text = table(rows, load_before, os.getloadavg(), started)
    print(text)
    if a.write:
        replace_between(a.write, BEGIN, END, text)
    if not a.keep:
        shutil.rmtree(work, ignore_errors=True)
    return 0 if all(r["ok"] for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
