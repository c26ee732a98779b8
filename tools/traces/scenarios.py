"""Programs whose TORCH_TRACE logs and Execution Traces kiln's readers are tested on.

Each scenario is a function run in a fresh interpreter by gen.py (TORCH_TRACE is
read when torch is imported). Models are tiny on purpose: the committed traces
must stay small.
"""
import sys

import torch
import torch.nn as nn
import torch.nn.functional as F


class CNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 4, 3)
        self.bn = nn.BatchNorm2d(4)
        self.fc = nn.Linear(4 * 3 * 3, 5)

    def forward(self, x):
        x = F.max_pool2d(torch.relu(self.bn(self.conv(x))), 2)
        return self.fc(x.flatten(1))


class Block(nn.Module):
    """One pre-norm transformer block: attention then MLP."""

    def __init__(self, d=8, heads=2):
        super().__init__()
        self.heads = heads
        self.ln1 = nn.LayerNorm(d)
        self.qkv = nn.Linear(d, 3 * d)
        self.proj = nn.Linear(d, d)
        self.ln2 = nn.LayerNorm(d)
        self.mlp = nn.Sequential(nn.Linear(d, 2 * d), nn.GELU(), nn.Linear(2 * d, d))

    def forward(self, x):
        b, t, d = x.shape
        q, k, v = self.qkv(self.ln1(x)).split(d, dim=-1)
        q, k, v = (z.view(b, t, self.heads, d // self.heads).transpose(1, 2) for z in (q, k, v))
        att = torch.softmax(q @ k.transpose(-2, -1) / (d // self.heads) ** 0.5, dim=-1)
        y = (att @ v).transpose(1, 2).reshape(b, t, d)
        x = x + self.proj(y)
        return x + self.mlp(self.ln2(x))


def cnn_train():
    """A CNN training step through Inductor, with Inductor's provenance tracking on."""
    import torch._inductor.config as ic
    ic.trace.provenance_tracking_level = 1
    torch.manual_seed(0)
    m = CNN()
    opt = torch.optim.SGD(m.parameters(), lr=0.1)
    step = torch.compile(m)
    loss = step(torch.randn(2, 3, 8, 8)).square().mean()
    loss.backward()
    opt.step()


def transformer_infer():
    """A transformer block's inference through Inductor (aot_inference_graph)."""
    import torch._inductor.config as ic
    ic.trace.provenance_tracking_level = 1
    torch.manual_seed(0)
    m = Block().eval()
    with torch.no_grad():
        torch.compile(m)(torch.randn(2, 4, 8))


def norm_mlp_infer():
    """Pointwise and reduction ops only (linear, gelu, layer_norm, softmax) through
    Inductor with provenance tracking: every kernel is one kiln can lower and compare."""
    import torch._inductor.config as ic
    ic.trace.provenance_tracking_level = 1
    torch.manual_seed(0)
    m = nn.Sequential(nn.Linear(8, 16), nn.GELU(), nn.LayerNorm(16), nn.Linear(16, 8), nn.Softmax(-1)).eval()
    with torch.no_grad():
        torch.compile(m)(torch.randn(4, 8))


def nonzero_dynamic():
    """nonzero with capture_dynamic_output_shape_ops: an unbacked size in the graph."""
    import torch._dynamo.config as dc
    dc.capture_dynamic_output_shape_ops = True

    def f(x):
        idx = torch.nonzero(x > 0)
        return idx.float().sum(0) + 1

    torch.compile(f, fullgraph=True, backend="aot_eager")(torch.tensor([1.0, -2.0, 3.0, 4.0]))


def _custom_op(with_fake):
    lib = "kilntest"

    @torch.library.custom_op(f"{lib}::scale_rows", mutates_args=())
    def scale_rows(x: torch.Tensor, w: torch.Tensor) -> torch.Tensor:
        return x * w[:, None]

    if with_fake:
        @scale_rows.register_fake
        def _(x, w):
            return torch.empty_like(x)

    def f(x, w):
        return torch.relu(scale_rows(x, w)) + 1

    try:
        torch.compile(f, fullgraph=True, backend="aot_eager")(torch.randn(3, 4), torch.randn(3))
    except Exception as e:
        print("expected failure:", type(e).__name__, file=sys.stderr)


def custom_op_fake():
    """A custom op with a registered fake impl: the log records its output type."""
    _custom_op(True)


def custom_op_nofake():
    """The same custom op without a fake impl: the compile fails."""
    _custom_op(False)


def graph_break_fails():
    """Data-dependent control flow under fullgraph=True: the compile fails."""
    def f(x):
        if x.sum() > 0:
            return x + 1
        return x - 1

    try:
        torch.compile(f, fullgraph=True, backend="aot_eager")(torch.randn(4))
    except Exception as e:
        print("expected failure:", type(e).__name__, file=sys.stderr)


def item_scalar():
    """A data-dependent .item(): Dynamo captures it as an unbacked float symbol."""
    def f(x):
        n = x.sum().item()
        return x * n

    torch.compile(f, fullgraph=True, backend="aot_eager")(torch.randn(4))


def draft_export_fake_kernels():
    """torch.export.draft_export of custom ops, one without a fake impl and one with a
    wrong one: under TORCH_DTRACE the log records missing_fake_kernel and
    mismatched_fake_kernel events, and the exported program."""
    @torch.library.custom_op("kilntest::nofake", mutates_args=())
    def nofake(x: torch.Tensor) -> torch.Tensor:
        return x.sin()

    @torch.library.custom_op("kilntest::badfake", mutates_args=())
    def badfake(x: torch.Tensor) -> torch.Tensor:
        return x[:2].cos()

    @badfake.register_fake
    def _(x):
        return torch.empty_like(x)  # wrong: the real kernel returns 2 rows

    class M(nn.Module):
        def forward(self, x):
            return badfake(nofake(x)) * 2

    ep = torch.export.draft_export(M(), (torch.randn(4, 3),))
    print(ep.graph_module.code, file=sys.stderr)


def view_input():
    """A graph input that is a view at storage offset 8: describe_tensor records the
    offset, which FX annotations do not print."""
    def f(x):
        return torch.sin(x) * 2

    base = torch.randn(4, 6)
    torch.compile(f, backend="aot_eager")(base[1:, 2:])


def _rank_main(rank):
    import torch.distributed as dist
    dist.init_process_group("gloo", init_method="tcp://127.0.0.1:29517", rank=rank, world_size=2)

    def f(x):
        return torch.relu(x) * (rank + 1)

    torch.compile(f, backend="aot_eager")(torch.randn(4, 2 + rank))
    dist.destroy_process_group()


def ranks():
    """Two ranks (gloo, CPU), each compiling its own graph: TORCH_TRACE writes one log per rank."""
    import torch.multiprocessing as mp
    mp.spawn(_rank_main, nprocs=2)


def et_mlp(path):
    """An eager MLP forward and backward under ExecutionTraceObserver."""
    from torch.profiler import ExecutionTraceObserver
    torch.manual_seed(0)
    m = nn.Sequential(nn.Linear(4, 3), nn.ReLU(), nn.Linear(3, 2))
    x = torch.randn(2, 4)
    et = ExecutionTraceObserver().register_callback(path)
    et.start()
    with torch.profiler.record_function("forward_step"):
        y = m(x)
        loss = y[:, 1:].square().sum()
    loss.backward()
    et.stop()
    et.unregister_callback()


def et_dtypes(path):
    """Ops over many dtypes, views with offsets, in-place ops: what ET writes for each."""
    from torch.profiler import ExecutionTraceObserver
    torch.manual_seed(0)
    a = torch.randn(4, 6)
    et = ExecutionTraceObserver().register_callback(path)
    et.start()
    h = a.to(torch.float16)
    bf = a.to(torch.bfloat16)
    d = a.double()
    i = (a * 10).to(torch.int32)
    l = i.long()
    b = a > 0
    u = b.to(torch.uint8)
    s = a[1:, 2:]             # a view with a storage offset
    t = s.t().contiguous()
    s.mul_(2)                 # in place through the view
    w = torch.where(b, h.float(), d.float())
    r = torch.cat([l, i.long()], 0).sum() + u.sum() + bf.float().sum() + t.sum() + w.sum()
    et.stop()
    et.unregister_callback()


def et_compiled(path):
    """A compiled region run under ExecutionTraceObserver: its kernels are not ATen calls."""
    from torch.profiler import ExecutionTraceObserver
    torch.manual_seed(0)

    def f(x, y):
        return torch.relu(x @ y) + 1

    g = torch.compile(f)
    x, y = torch.randn(4, 4), torch.randn(4, 4)
    g(x, y)  # compile outside the trace
    et = ExecutionTraceObserver().register_callback(path)
    et.start()
    z = g(x, y)
    z = z * 2
    et.stop()
    et.unregister_callback()


if __name__ == "__main__":
    name = sys.argv[1]
    fn = globals()[name]
    fn(*sys.argv[2:])
