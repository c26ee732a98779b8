"""Let PyTorch judge kiln's interp and kiln's generated Go on one FX graph.

    python3 tools/e2e_judge/judge.py testdata/corpus/042_....fx.txt

Random inputs (seed 0) are saved as .npy; interp (`kiln run`) and the
generated Go module (`kiln compile -target=go`, run with -inputs) compute
the graph on them; PyTorch eager runs the same FX code (made runnable on
the CPU) on the same inputs, in the graph's dtypes and again in float64.
Random prims (inductor_seeds / inductor_random) and native_dropout draw
kiln's counter-based numbers (Philox4x32-10, as rt/philox.go), so all
sides see the same dropout masks.

Per output it prints the largest difference between interp and Go, eager's
relative RMSE against float64 (and the bound internal/e2e puts on Go
against interp from it), and the verdict of torch._dynamo.utils.same, the check Inductor's own
accuracy benchmarks use: a result passes against eager when it is
allclose, or when its RMSE against the float64 run is within 2x (3x for
half types) of eager's own RMSE (+ tol/10). Exit status 0 when both
interp and the Go code pass on every floating output.

--inductor compiles the graph with torch.compile (Inductor, CPU) and
prints same()'s verdicts on Inductor's own result: where Inductor is
rejected as kiln's code is, the two compute alike. --mm-variants runs eager again with its matrix products computed two
other valid ways (float64 sums rounded once; float32 sums in k order) and
prints same()'s verdicts on those: where eager itself is rejected so, a
verdict on the compiled code says which summation order it drew, not
that a value is wrong. --inputs DIR judges on given inputs, e.g. the ones
`kiln run -seed 7 -save-inputs DIR` made (internal/e2e's).
"""

import argparse
import os
import re
import subprocess
import sys
import tempfile

import numpy as np
import torch
from torch._dynamo.utils import same
from torch.utils._python_dispatch import TorchDispatchMode

DTYPES = {"f64": torch.float64, "f32": torch.float32, "f16": torch.float16, "bf16": torch.bfloat16,
          "i64": torch.int64, "i32": torch.int32, "i16": torch.int16, "i8": torch.int8, "u8": torch.uint8,
          "b8": torch.bool}

SEED = 7  # the run seed interp and the Go binary get (internal/e2e's interpSeed)

# --- kiln's random numbers (codegen/golang/rt/philox.go), vectorized ---

M0, M1, W0, W1 = 0xD2511F53, 0xCD9E8D57, 0x9E3779B9, 0xBB67AE85
MASK = np.uint64(0xFFFFFFFF)


def philox(seed, stream, index):
    """Philox4x32-10 words for element indexes (uint64 array)."""
    index = index.astype(np.uint64)
    c0, c1 = index & MASK, index >> np.uint64(32)
    c2 = np.full_like(c0, np.uint64(stream & 0xFFFFFFFF))
    c3 = np.full_like(c0, np.uint64((stream >> 32) & 0xFFFFFFFF))
    k0, k1 = seed & 0xFFFFFFFF, (seed >> 32) & 0xFFFFFFFF
    for r in range(10):
        if r > 0:
            k0, k1 = (k0 + W0) & 0xFFFFFFFF, (k1 + W1) & 0xFFFFFFFF
        p0, p1 = np.uint64(M0) * c0, np.uint64(M1) * c2
        hi0, lo0 = p0 >> np.uint64(32), p0 & MASK
        hi1, lo1 = p1 >> np.uint64(32), p1 & MASK
        c0, c1, c2, c3 = hi1 ^ c1 ^ np.uint64(k0), lo1, hi0 ^ c3 ^ np.uint64(k1), lo0
    return c0, c1, c2, c3


def fnv1a64(data):
    h = 0xCBF29CE484222325
    for b in data:
        h = ((h ^ b) * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
    return h


def stream_id(node):
    """FNV-1a 64 of "node:" + name, as rt.StreamID (its bits, unsigned)."""
    return fnv1a64(("node:" + node).encode())


def kiln_inductor_seeds(node, count, device=None):
    w = philox(SEED, stream_id(node), np.arange(count))
    bits = ((w[1] << np.uint64(32)) | w[0]) >> np.uint64(1)
    return torch.from_numpy(bits.astype(np.int64))


def kiln_inductor_random(size, seed, mode):
    n = int(np.prod(size))
    w = philox(int(seed.item()) & 0xFFFFFFFFFFFFFFFF, 0, np.arange(n))
    u = (w[0] & np.uint64((1 << 24) - 1)).astype(np.float32) * np.float32(1.0 / (1 << 24))
    if mode != "rand":
        raise SystemExit(f"inductor_random mode {mode!r}: only 'rand' is reproduced here")
    return torch.from_numpy(u.reshape(size))


def kiln_native_dropout(node, x, p, train=True):
    """native_dropout with kiln's numbers (interp's kDropout): keep where
    u >= p, u = RandUniform(SEED, stream of the node, i); out = x * keep *
    1/(1-p) (0 when p = 1), in x's dtype as ATen's CPU kernel multiplies."""
    if train is False:
        return x.clone(), torch.ones_like(x, dtype=torch.bool)
    w = philox(SEED, stream_id(node), np.arange(x.numel()))
    u = (w[0] & np.uint64((1 << 24) - 1)).astype(np.float64) * (1.0 / (1 << 24))
    keep = torch.from_numpy(u >= p).reshape(x.shape)
    scale = 0.0 if p == 1 else 1.0 / (1.0 - p)
    return x * keep * scale, keep


# --- the graph as runnable Python ---

def flat_signature(src):
    """An AOT joint graph's `forward(self, primals, tangents)`, whose
    parameters are declared on a line of their own (`primals_1: "f32[...]";
    ...`) and unpacked by fx_pytree.tree_flatten_spec, rewritten as a
    forward that takes them one by one and returns its list as a tuple
    (corpus 041)."""
    m = re.search(r"^\s*((?:\w+: \"[^\"]*\"; )+)\s*$", src, flags=re.M)
    if not m or "tree_flatten_spec" not in src:
        return src
    names = re.findall(r"(\w+): \"", m.group(1))
    src = src.replace(m.group(0), "")
    src = re.sub(r"^\s*[\w, ]+= fx_pytree\.tree_flatten_spec\(.*$", "", src, flags=re.M)
    src = re.sub(r"^from __future__ import .*$", "", src, flags=re.M)
    src = re.sub(r"^(\s*)def forward\(self, [^)]*\):", r"\1def forward(self, " + ", ".join(
        f"{n}: {a}" for n, a in re.findall(r"(\w+): (\"[^\"]*\")", m.group(1))) + "):", src, count=1, flags=re.M)
    src = re.sub(r"return pytree\.tree_unflatten\((\[.*\]), self\._out_spec\)", r"return tuple(\1)", src)
    if not re.search(r"^class ", src, flags=re.M):
        body = "\n".join("    " + l if l.strip() else l for l in src.splitlines())
        src = "class G(torch.nn.Module):\n" + body + "\n"
    assert names
    return src


def runnable(src, f64=False):
    """The FX printout as a module on the CPU; f64 computes in float64."""
    src = flat_signature(src)
    src = re.sub(r"^from __future__ import .*$", "", src, flags=re.M)
    src = re.sub(r"^class [^(]+\(", "class G(", src, count=1, flags=re.M)
    src = re.sub(r"device\(type='cuda'(, index=\d+)?\)", "device(type='cpu')", src)
    # An empty tensor constant (torch.tensor([]), a KV cache's first keys)
    # has no data in the printout and needs none: as kiln lowers it.
    src = re.sub(r"^(\s+)(\w+): \"(\w+)\[0\][^\"]*\" = self\.\w+$",
                 lambda m: f"{m.group(1)}{m.group(2)} = torch.empty(0, dtype=DTYPES['{m.group(3)}'])", src, flags=re.M)
    src = re.sub(r"^(\s+)(\w+)(: \"[^\"]*\")? = torch\.ops\.prims\.inductor_seeds\.default\(",
                 r"\1\2\3 = kiln_inductor_seeds('\2', ", src, flags=re.M)
    src = re.sub(r"^(\s+)(\w+)(: \"[^\"]*\")? = torch\.ops\.aten\.native_dropout\.default\(",
                 r"\1\2\3 = kiln_native_dropout('\2', ", src, flags=re.M)
    src = src.replace("torch.ops.prims.inductor_random.default(", "kiln_inductor_random(")
    src = src.replace("torch.ops.prims.inductor_lookup_seed.default(", "kiln_inductor_lookup_seed(")
    if f64:
        src = re.sub(r"torch\.(bfloat16|float16|float32)\b", "torch.float64", src)
    env = {"torch": torch, "device": torch.device, "DTYPES": DTYPES, "inf": float("inf"), "nan": float("nan"),
           # kiln's random numbers run eagerly under torch.compile too
           # (--inductor): Inductor has no uint64 shifts on the CPU
           "kiln_inductor_seeds": torch.compiler.disable(kiln_inductor_seeds),
           "kiln_inductor_random": torch.compiler.disable(kiln_inductor_random),
           "kiln_native_dropout": torch.compiler.disable(kiln_native_dropout),
           "kiln_inductor_lookup_seed": lambda seeds, k: seeds[k]}
    exec(compile(src, "<graph>", "exec"), env)
    return env["G"]()


def copies(ins):
    """Fresh copies of the inputs (a graph may mutate them); Sym inputs are
    ints."""
    return [v.clone() if isinstance(v, torch.Tensor) else v for v in ins]


# --- eager with its matrix products summed another valid way ---

def k_order_matmul(a, b):
    """a @ b (batched or not) with float32 sums in k order, one rounding
    per product and per add: what a plain loop kernel computes."""
    acc = torch.zeros(*a.shape[:-1], b.shape[-1], dtype=a.dtype)
    for k in range(a.shape[-1]):
        acc = acc + a[..., k:k + 1] * b[..., k:k + 1, :]
    return acc


MATMULS = {torch.ops.aten.mm.default, torch.ops.aten.bmm.default, torch.ops.aten.addmm.default}


class MatmulVariant(TorchDispatchMode):
    """Runs eager's float32 mm, bmm and addmm another valid way: "f64"
    sums in float64 and rounds once, "k-order" sums in float32 in k order.
    Both are float32 matrix products a user's kernel may compute; if
    same() rejects eager computed so, its verdict on an output is about
    summation order, not about a wrong value."""

    def __init__(self, how):
        super().__init__()
        self.how = how

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        operands = 3 if func is torch.ops.aten.addmm.default else 2
        # beta/alpha and other dtypes: left as eager computes them
        if func not in MATMULS or kwargs or len(args) != operands or args[-1].dtype != torch.float32:
            return func(*args, **kwargs)
        bias, (a, b) = (args[0], args[1:]) if operands == 3 else (None, args)
        if self.how == "f64":
            out = a.double() @ b.double()
            out = (out + bias.double() if bias is not None else out).float()
        else:
            out = k_order_matmul(a, b)
            out = bias + out if bias is not None else out
        return out


def inductor_verdicts(src, ins, eager, f64):
    """same()'s verdict on Inductor's own result for the graph (torch.compile,
    CPU, on the same inputs): Inductor decomposes ops eager runs whole
    (native_layer_norm_backward as torch/_decomp writes it, not ATen's
    kernel), so its float32 error can exceed eager's where kiln's does."""
    torch._dynamo.reset()
    try:
        with torch.no_grad():
            got = torch.compile(runnable(src))(*copies(ins))
    except Exception as err:  # the printout's Python, re-traced, is not always what Dynamo takes
        lines = [l.strip() for l in str(err).splitlines() if l.strip() and not l.strip().endswith("raised:")]
        first = lines[0] if lines else ""
        print(f"Inductor (torch.compile, CPU) did not run this graph: {type(err).__name__}: {first[:300]}")
        return
    got = got if isinstance(got, (tuple, list)) else (got,)
    quiet = lambda *args, **kw: None
    rm = lambda x, r: float(torch.sqrt(torch.mean((x.double() - r.double()) ** 2)))
    print(f"Inductor (torch.compile, CPU) on the same inputs (same() against eager):")
    for i, (e, r) in enumerate(zip(eager, f64)):
        if not isinstance(e, torch.Tensor) or not e.is_floating_point() or not e.numel():
            continue
        print(f"  out{i}: eager RMSE {rm(e, r):.3g}; Inductor RMSE {rm(got[i], r):.3g} "
              f"same() {same(e, got[i], fp64_ref=r.to(torch.float64), tol=1e-4, log_error=quiet)}")


def mm_variants(src, ins, eager, f64):
    """same()'s verdict, per floating output, on eager run with each
    MatmulVariant."""
    rows = {}
    for how in ("f64", "k-order"):
        with torch.no_grad(), MatmulVariant(how):
            got = runnable(src)(*copies(ins))
        got = got if isinstance(got, (tuple, list)) else (got,)
        rows[how] = got
    quiet = lambda *args, **kw: None
    rm = lambda x, r: float(torch.sqrt(torch.mean((x.double() - r.double()) ** 2)))
    print("eager with its matrix products summed another way (same() against eager, as above):")
    for i, (e, r) in enumerate(zip(eager, f64)):
        if not isinstance(e, torch.Tensor) or not e.is_floating_point() or not e.numel():
            continue
        parts = [f"{how} RMSE {rm(v[i], r):.3g} same() {same(e, v[i], fp64_ref=r.to(torch.float64), tol=1e-4, log_error=quiet)}"
                 for how, v in rows.items()]
        print(f"  out{i}: eager RMSE {rm(e, r):.3g}; " + "; ".join(parts))


def inputs_of(src):
    """(name, dtype, shape, strides or None) of forward's parameters, from
    their annotations ("f32[16, 1, 128, 128][0, 128, 1, 0]cuda:0")."""
    sig = re.search(r"^\s*def forward\(self, (.*)\):", flat_signature(src), flags=re.M).group(1)
    out = []
    for name, ann in re.findall(r"(\w+): \"([^\"]*)\"", sig):
        if ann.startswith("Sym("):  # a Dynamo graph's size parameter: read off the tensors (sym_values)
            out.append((name, "sym", ann[4:-1], None))
            continue
        m = re.match(r"(\w+)\[([^\]]*)\](?:\[([^\]]*)\])?", ann)
        shape = [int(s) if s.strip().lstrip("-").isdigit() else s.strip() for s in m.group(2).split(",") if s.strip()]
        strides = [int(s) if s.strip().lstrip("-").isdigit() else s.strip() for s in m.group(3).split(",") if s.strip()] \
            if m.group(3) is not None else None
        out.append((name, m.group(1), shape, strides))
    return out


def sym_values(specs, ins):
    """Each Sym(sN) parameter's value: the size of the first tensor input
    whose annotation has sN as a dim."""
    sizes = {}
    for (_, dt, shape, _), v in zip(specs, ins):
        if dt != "sym":
            for ann, size in zip(shape, v.shape):
                if isinstance(ann, str):
                    sizes.setdefault(ann, size)
    return [sizes[shape] if dt == "sym" else v for (_, dt, shape, _), v in zip(specs, ins)]


# The value every symbolic size takes when nothing gives one: what kiln
# run and interp use (interp.DefaultSymValue).
DEFAULT_SYM = 8


def sym_size(e, default=DEFAULT_SYM):
    """A dim or stride of an annotation: an int, or a symbolic expression
    ("s77", "8*s27", "s27*s77") evaluated with every symbol at default."""
    if isinstance(e, int):
        return e
    env = {name: default for name in re.findall(r"\b[su]\d+\b", e)}
    return int(eval(e, {"__builtins__": {}}, env))  # noqa: S307 (sympy's printout of a size)


def make_inputs(specs):
    """Random inputs laid out as annotated: a stride-0 dim (a broadcast
    mask) repeats its values, as the generated code, which reads inputs
    through the graph's strides, will see them. A Dynamo graph's Sym(sN)
    parameter is an int, DEFAULT_SYM as every symbolic dim is."""
    g = torch.Generator().manual_seed(0)
    vals = []
    for name, dt, shape, strides in specs:
        if dt == "sym":
            vals.append(sym_size(shape))
            continue
        shape = [sym_size(d) for d in shape]
        strides = [sym_size(d) for d in strides] if strides is not None else None
        t = DTYPES[dt]
        strides = strides if strides is not None and len(strides) == len(shape) else None
        n = 1 + sum((d - 1) * s for d, s in zip(shape, strides)) if strides and all(shape) else None
        size = [n] if n is not None else shape
        if t.is_floating_point:
            v = torch.randn(size, generator=g).to(t)
        elif t == torch.bool:
            v = torch.rand(size, generator=g) > 0.5
        else:
            v = torch.randint(0, 4, size, generator=g).to(t)
        if n is not None:
            v = v.as_strided(shape, strides)
        vals.append(v)
    return vals


POOL_BACKWARD = re.compile(r"max_pool2d_with_indices_backward\.default\((\w+), (\w+), \[([^\]]*)\], \[([^\]]*)\], "
                           r"\[([^\]]*)\], \[([^\]]*)\], (?:True|False), (\w+)\)")


def pool_indices(src, specs, vals):
    """Max-pool indices inside their windows, as the forward pool saves them
    (internal/e2e's inputs are made so too, interp/random_pool.go): on an
    index outside its window eager (a scatter) and Inductor's lowering (a
    gather over the windows covering each element) disagree."""
    g = torch.Generator().manual_seed(1)
    shapes = {name: shape for name, _, shape, _ in specs}
    where = {name: i for i, (name, _, _, _) in enumerate(specs)}
    for m in POOL_BACKWARD.finditer(src):
        self, idx = m.group(2), m.group(7)
        if self not in shapes or idx not in where:
            continue
        ints = [[int(v) for v in m.group(k).split(",") if v.strip()] for k in (3, 4, 5, 6)]
        k, st, pad, dil = ((v * 2 if len(v) == 1 else v) for v in ints)
        st = st or k
        size = shapes[self][-2:]
        out = vals[where[idx]]
        oh, ow = out.shape[-2:]
        def pick(d, o):
            cands = [o * st[d] - pad[d] + r * dil[d] for r in range(k[d])]
            cands = [p for p in cands if 0 <= p < size[d]] or [0]
            return cands[int(torch.randint(0, len(cands), (), generator=g))]
        flat = out.reshape(-1, oh, ow)
        for plane in flat:
            for i in range(oh):
                for j in range(ow):
                    plane[i, j] = pick(0, i) * size[1] + pick(1, j)
    return vals


def load(path, dtype):
    """An output .npy as a tensor of dtype (bf16 comes as raw uint16 bits)."""
    x = np.load(path)
    if dtype == torch.bfloat16 and x.dtype == np.uint16:
        return torch.from_numpy(x.astype(np.int16)).view(torch.bfloat16)
    return torch.from_numpy(x).to(dtype)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("fx")
    ap.add_argument("--work", help="keep the inputs and outputs here")
    ap.add_argument("--skip-interp", action="store_true", help="judge the generated Go only (interp takes hours on large graphs)")
    ap.add_argument("--inputs", help="judge on the .npy inputs in this folder (e.g. internal/e2e's, interp's seed 7) "
                    "instead of randn with seed 0")
    ap.add_argument("--inductor", action="store_true",
                    help="also compile the graph with torch.compile (Inductor, CPU) and print same()'s verdicts on its "
                    "result: whether PyTorch's own compiler passes where kiln's code does not")
    ap.add_argument("--mm-variants", action="store_true",
                    help="also run eager with its matrix products summed in float64 and in k order (float32), "
                    "and print same()'s verdicts on those: whether a verdict hinges on summation order")
    ap.add_argument("--passes", help="passes kiln run applies before interp (default: none for an ATen graph; "
                    "fakeprop,aten for a Dynamo-level one, TORCH_LOGS=graph_code, which interp runs as ATen ops)")
    a = ap.parse_args()
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    work = a.work or tempfile.mkdtemp(prefix="e2e_judge.")
    os.makedirs(work, exist_ok=True)
    src = open(a.fx).read()
    if a.passes is None:
        a.passes = "fakeprop,aten" if re.search(r"^\s+l_\w+ = L_\w+$", src, flags=re.M) else ""
    specs = inputs_of(src)
    if a.inputs:
        ins = sym_values(specs, [None if dt == "sym" else load(os.path.join(a.inputs, name + ".npy"), DTYPES[dt])
                                 for name, dt, _, _ in specs])
    else:
        ins = pool_indices(src, specs, make_inputs(specs))
    in_dir = os.path.join(work, "in")
    os.makedirs(in_dir, exist_ok=True)
    for (name, dt, _, _), v in zip(specs, ins):
        if dt == "sym":
            continue
        # numpy has no bfloat16: kiln reads it as raw '<u2' bits (rt/npy.go)
        arr = v.view(torch.int16).numpy().view(np.uint16) if v.dtype == torch.bfloat16 else v.numpy()
        np.save(os.path.join(in_dir, name + ".npy"), arr)

    kiln = os.path.join(work, "kiln")
    subprocess.run(["go", "build", "-o", kiln, "./cmd/kiln"], cwd=root, check=True)
    if not a.skip_interp:
        # past kiln run's default 3 GB: corpus 041 holds several 1024x50005 tensors
        subprocess.run([kiln, "run", "-passes", a.passes, "-max-run-bytes", str(32 << 30), "-max-tensor-bytes", str(4 << 30),
                        "-seed", str(SEED), "-inputs", in_dir, "-o", os.path.join(work, "interp"), a.fx],
                       check=True, capture_output=True)
    mod = os.path.join(work, "mod")
    subprocess.run([kiln, "compile", "-target=go", "-o", mod, a.fx], check=True, capture_output=True)
    # the SIMD build, as internal/e2e runs it (the scalar GEMM takes minutes on large products)
    subprocess.run(["go", "build", "-o", "kilngen", "."], cwd=mod, check=True, env=dict(os.environ, GOEXPERIMENT="simd"))
    subprocess.run([os.path.join(mod, "kilngen"), "-seed", str(SEED), "-inputs", in_dir, "-o", os.path.join(work, "go")],
                   check=True)

    eager_in = copies(ins)
    f64_in = [v.double() if isinstance(v, torch.Tensor) and v.is_floating_point() else v for v in eager_in]
    with torch.no_grad():
        eager = runnable(src)(*eager_in)
        f64 = runnable(src, f64=True)(*f64_in)
    eager = eager if isinstance(eager, (tuple, list)) else (eager,)
    f64 = f64 if isinstance(f64, (tuple, list)) else (f64,)
    # Outputs, then the inputs the graph mutates (running statistics): the
    # generated Go writes those as NAME.npy, interp as g0_NAME.npy.
    cases = [(f"out{i}", f"out{i}.npy", f"g0_out{i}.npy", e, r) for i, (e, r) in enumerate(zip(eager, f64))]
    for (name, _, _, _), e, r in zip(specs, eager_in, f64_in):
        if os.path.exists(os.path.join(work, "go", name + ".npy")):
            cases.append((name, name + ".npy", f"g0_{name}.npy", e, r))

    ok = True
    print(f"{os.path.basename(a.fx)} (torch {torch.__version__})")
    for i, go_file, interp_file, e, r in cases:
        if not isinstance(e, torch.Tensor):
            continue
        if not e.is_floating_point():  # integer and bool outputs: exactly eager's
            got = [load(os.path.join(work, d, f), e.dtype) for d, f in [("go", go_file)] +
                   ([] if a.skip_interp else [("interp", interp_file)])]
            eq = all(g.shape == e.shape and torch.equal(g, e) for g in got)
            ok = ok and eq
            print(f"  {i} {str(e.dtype).removeprefix('torch.')}{list(e.shape)}: equal to eager: {eq}")
            continue
        got_g = load(os.path.join(work, "go", go_file), e.dtype)
        got_i = got_g if a.skip_interp else load(os.path.join(work, "interp", interp_file), e.dtype)
        rm = lambda x: float(torch.sqrt(torch.mean((x.double() - r.double()) ** 2)))
        # internal/e2e's bound on RMS(go - interp) / RMS(float64), implied
        # by both passing same(): each within mult x eager's RMSE.
        mult = 3.0 if e.dtype in (torch.float16, torch.bfloat16) else 2.0
        rms_ref = float(torch.sqrt(torch.mean(r.double() ** 2))) if e.numel() else 0.0
        if e.numel() and rms_ref > 0:
            print(f"  {i}: eager RMSE / RMS(float64) {rm(e) / rms_ref:.3g}; "
                  f"e2e bound RMS(go-interp) / RMS(float64) <= 2 x {mult:g} x that = {2 * mult * rm(e) / rms_ref:.3g}")
        diff = float((got_i.double() - got_g.double()).abs().max()) if e.numel() else 0.0
        quiet = lambda *args, **kw: None
        vi = same(e, got_i, fp64_ref=r.to(torch.float64), tol=1e-4, log_error=quiet)
        vg = same(e, got_g, fp64_ref=r.to(torch.float64), tol=1e-4, log_error=quiet)
        ok = ok and vi and vg
        if a.skip_interp:
            print(f"  {i} {str(e.dtype).removeprefix('torch.')}{list(e.shape)}: max|go-eager| "
                  f"{float((got_g.double() - e.double()).abs().max()) if e.numel() else 0:.3g}, "
                  f"max|ref| {float(r.abs().max()) if e.numel() else 0:.4g}; RMSE vs float64: eager {rm(e):.3g}, "
                  f"go {rm(got_g):.3g}; same(): go {vg}")
            continue
        print(f"  {i} {str(e.dtype).removeprefix('torch.')}{list(e.shape)}: max|interp-go| {diff:.3g}, "
              f"max|ref| {float(r.abs().max()) if e.numel() else 0:.4g}; RMSE vs float64: eager {rm(e):.3g}, "
              f"interp {rm(got_i):.3g}, go {rm(got_g):.3g}; same(): interp {vi}, go {vg}")
    if a.inductor:
        inductor_verdicts(src, ins, eager, f64)
    if a.mm_variants:
        mm_variants(src, ins, eager, f64)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
