#!/usr/bin/env python3
"""Real FX graphs from torch.compile and torch.export on small models written
for kiln's corpus (issue 11, item 4): a CNN train step, a transformer block
train step under bf16 autocast, dynamic shapes, a custom op with a fake impl
(declared to kiln, and one kiln is not told about), an in-place optimizer step.

Each graph is printed by PyTorch itself (GraphModule.print_readable with
strides and devices: the text TORCH_LOGS=graph_code/aot_graphs shows) from a
backend that records Dynamo's graph and AOTAutograd's forward and backward
graphs. Files go to testdata/corpus/1NN_*.fx.txt with a header naming the
PyTorch version and this script.

    python3 tools/corpus/gen.py testdata/corpus
"""
import os
import sys
import warnings

import torch
import torch._dynamo
import torch.nn as nn
import torch.nn.functional as F
from functorch.compile import make_boxed_func
from torch._dynamo.backends.common import aot_autograd

warnings.filterwarnings("ignore")
OUT = sys.argv[1] if len(sys.argv) > 1 else "testdata/corpus"
ONLY = set(sys.argv[2].split(",")) if len(sys.argv) > 2 else None  # e.g. 105,106: regenerate only these


def readable(gm):
    return gm.print_readable(print_output=False, include_stride=True, include_device=True)


def capture(fn, *args, dynamo=False, fullgraph=True):
    """Compile fn, run it (and backward when it returns a loss), return the graphs."""
    graphs = []

    def keep(tag):
        def comp(gm, example_inputs):
            graphs.append((tag, readable(gm)))
            return make_boxed_func(gm.forward)
        return comp

    aot = aot_autograd(fw_compiler=keep("forward"), bw_compiler=keep("backward"))

    def backend(gm, example_inputs):
        if dynamo:
            graphs.append(("dynamo", readable(gm)))
        return aot(gm, example_inputs)

    torch._dynamo.reset()
    out = torch.compile(fn, backend=backend, fullgraph=fullgraph)(*args)
    if isinstance(out, torch.Tensor) and out.requires_grad:
        out.backward()
    return graphs


def write(num, name, what, graphs):
    if not graphs:
        return
    for tag, text in graphs:
        path = os.path.join(OUT, f"{num}_{name}_{tag}.fx.txt")
        with open(path, "w") as f:
            f.write(f"# source: tools/corpus/gen.py, PyTorch {torch.__version__} (CPU): {what}; {tag} graph as print_readable(include_stride=True, include_device=True) prints it.\n")
            f.write(text.rstrip() + "\n")
        print(path)


class CNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.c1 = nn.Conv2d(3, 8, 3, padding=1)
        self.bn = nn.BatchNorm2d(8)
        self.c2 = nn.Conv2d(8, 8, 3, stride=2, groups=2)
        self.fc = nn.Linear(8, 5)

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.bn(self.c1(x))), 2)
        x = F.adaptive_avg_pool2d(F.hardtanh(self.c2(x)), 1).flatten(1)
        return self.fc(x)


class Block(nn.Module):
    def __init__(self, d=16, h=2):
        super().__init__()
        self.ln1, self.ln2 = nn.LayerNorm(d), nn.LayerNorm(d)
        self.qkv, self.proj = nn.Linear(d, 3 * d), nn.Linear(d, d)
        self.up, self.down = nn.Linear(d, 4 * d), nn.Linear(4 * d, d)
        self.h = h

    def forward(self, x):
        b, t, d = x.shape
        q, k, v = self.qkv(self.ln1(x)).split(d, dim=-1)
        q, k, v = (z.view(b, t, self.h, d // self.h).transpose(1, 2) for z in (q, k, v))
        a = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        x = x + self.proj(a.transpose(1, 2).reshape(b, t, d))
        return x + self.down(F.gelu(self.up(self.ln2(x)), approximate="tanh"))


@torch.library.custom_op("kilncorpus::scale_rows", mutates_args=())
def scale_rows(x: torch.Tensor, s: torch.Tensor) -> torch.Tensor:
    return x * s[:, None]


@scale_rows.register_fake
def _(x, s):
    return torch.empty_like(x)


@torch.library.custom_op("kilncorpus_undeclared::clip_norm", mutates_args=())
def clip_norm(x: torch.Tensor, m: float) -> torch.Tensor:
    return x * (m / x.norm().clamp(min=m))


@clip_norm.register_fake
def _(x, m):
    return torch.empty_like(x)


def main():
    torch.manual_seed(0)
    cnn = CNN()
    x, y = torch.randn(4, 3, 8, 8), torch.tensor([1, 0, 4, 2])
    want = lambda n: ONLY is None or str(n) in ONLY  # noqa: E731
    if want(101): write(101, "compile_cnn_train", "conv/batchnorm/relu/max_pool/grouped conv/hardtanh/adaptive pool/linear + cross_entropy, one train step (forward and backward)",
          capture(lambda x, y: F.cross_entropy(cnn(x), y), x, y))

    blk = Block()
    def block_step(x):
        with torch.autocast("cpu", dtype=torch.bfloat16):
            return blk(x).float().pow(2).mean()
    if want(102): write(102, "compile_transformer_block_bf16_autocast", "pre-norm transformer block (SDPA causal, tanh GELU MLP) under torch.autocast('cpu', bfloat16), one train step",
          capture(block_step, torch.randn(2, 8, 16)))

    mlp = nn.Sequential(nn.Linear(16, 32), nn.SiLU(), nn.Linear(32, 4))
    xd = torch.randn(6, 16)
    torch._dynamo.mark_dynamic(xd, 0)
    if want(103): write(103, "compile_dynamic_batch_mlp", "Linear-SiLU-Linear MLP with a dynamic batch size (mark_dynamic), loss = logsumexp mean, train step",
          capture(lambda x: torch.logsumexp(mlp(x), 1).mean(), xd))

    w = torch.randn(5, 7)
    if want(104): write(104, "compile_custom_op_fake_impl", "custom ops with register_fake: kilncorpus::scale_rows (declared in testdata/customops/corpus.ops) and kilncorpus_undeclared::clip_norm (not declared: kiln types it from the annotation)",
          capture(lambda x, s: clip_norm(scale_rows(x.relu(), s), 2.0).sum(), w, torch.randn(5)))

    params = [torch.randn(4, 3, requires_grad=True), torch.randn(3, requires_grad=True)]
    for p in params:
        p.grad = torch.randn_like(p)
    opt = torch.optim.SGD(params, lr=0.1, momentum=0.9, weight_decay=1e-4, foreach=True)
    opt.step()  # momentum buffers exist before the compiled step
    @torch.no_grad()
    def step():
        opt.step()
    if want(105): write(105, "compile_sgd_momentum_foreach_step", "torch.optim.SGD(momentum=0.9, weight_decay=1e-4, foreach=True).step() compiled: in-place parameter and momentum updates",
          capture(step, fullgraph=False))

    ep = torch.export.export(CNN().eval(), (torch.randn(2, 3, 8, 8),))
    if want(106): write(106, "export_cnn_eval", "torch.export.export of the CNN in eval mode (batch norm with running stats)",
          [("graph", readable(ep.graph_module))])

    def effects(x):
        torch.ops.aten._print("hello")
        y = x.sin()
        torch.ops.aten._print("bye")
        return y * 2
    if want(112): write(112, "compile_with_effects_print", "two aten._print calls between tensor ops: AOTAutograd threads an effect token through higher_order.with_effects",
          capture(effects, torch.randn(3)))

    @torch.compiler.nested_compile_region
    def region(x, w):
        return torch.relu(x @ w) + 1
    if want(113): write(113, "compile_invoke_subgraph", "a torch.compiler.nested_compile_region called twice: AOTAutograd prints higher_order.invoke_subgraph calls and the repeated subgraph as a nested class, one train step",
          capture(lambda x, w: region(region(x, w), w).sum(), torch.randn(4, 4, requires_grad=True), torch.randn(4, 4, requires_grad=True)))

    for num, name, what, model, inputs in hf_models():
        if want(num):
            write(num, f"compile_hf_{name}_train", f"Hugging Face {what} (transformers, random weights, config below) in train mode (dropout on), loss = last_hidden_state.sum(), one train step",
                  capture(lambda *xs: model(**dict(zip(inputs, xs))).last_hidden_state.sum(), *inputs.values()))


def hf_models():
    """Small Hugging Face models (their real modeling code); none when
    transformers is not installed."""
    try:
        import transformers as tf
    except ImportError:
        print("transformers is not installed: corpus 107-111 are not regenerated", file=sys.stderr)
        return []
    tf.logging.set_verbosity_error()
    torch.manual_seed(0)
    ids = lambda: {"input_ids": torch.randint(0, 100, (2, 7))}  # noqa: E731
    return [
        (107, "gpt2", "GPT2Model(n_embd=32, n_layer=2, n_head=4)", tf.GPT2Model(tf.GPT2Config(
            n_embd=32, n_layer=2, n_head=4, vocab_size=100, n_positions=64, bos_token_id=0, eos_token_id=0)), ids()),
        (108, "bert", "BertModel(hidden_size=32, 2 layers, 4 heads) with an attention mask", tf.BertModel(tf.BertConfig(
            hidden_size=32, num_hidden_layers=2, num_attention_heads=4, intermediate_size=64, vocab_size=100)),
         {"input_ids": torch.randint(0, 100, (2, 7)), "attention_mask": torch.ones(2, 7, dtype=torch.long)}),
        (109, "llama", "LlamaModel(hidden_size=32, 2 layers, 4 heads, 2 KV heads)", tf.LlamaModel(tf.LlamaConfig(
            hidden_size=32, num_hidden_layers=2, num_attention_heads=4, num_key_value_heads=2, intermediate_size=64,
            vocab_size=100)), ids()),
        (110, "t5_encoder", "T5EncoderModel(d_model=32, 2 layers, 4 heads)", tf.T5EncoderModel(tf.T5Config(
            d_model=32, num_layers=2, num_heads=4, d_ff=64, vocab_size=100, d_kv=8)), ids()),
        (111, "vit", "ViTModel(hidden_size=32, 2 layers, image 16, patch 4)", tf.ViTModel(tf.ViTConfig(
            hidden_size=32, num_hidden_layers=2, num_attention_heads=4, intermediate_size=64, image_size=16,
            patch_size=4)), {"pixel_values": torch.randn(2, 3, 16, 16)}),
    ]


if __name__ == "__main__":
    main()
