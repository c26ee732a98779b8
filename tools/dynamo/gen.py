#!/usr/bin/env python3
"""Dynamo-level FX graphs (torch.* functions, Tensor methods, Python
operators on tensors): the graphs TORCH_LOGS=graph_code prints, before
AOTAutograd turns them into ATen ops.

Each model below is compiled with a backend that records Dynamo's graph as
PyTorch prints it (GraphModule.print_readable with strides and devices, the
text TORCH_LOGS=graph_code shows). Its annotations are PyTorch's fake types:
kiln must infer each of them from the graph's inputs alone
(passes/fakeprop TestDynamoGraphsTyped).

    python3 tools/dynamo/gen.py testdata/dynamo
"""
import math
import os
import re
import sys
import warnings

import torch
import torch._dynamo
import torch.nn as nn
import torch.nn.functional as F

warnings.filterwarnings("ignore")
OUT = sys.argv[1] if len(sys.argv) > 1 else "testdata/dynamo"
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def capture(fn, *args, dynamic=None, mark=None, **kwargs):
    graphs = []

    def backend(gm, example_inputs):
        graphs.append(gm.print_readable(print_output=False, include_stride=True, include_device=True))
        return gm.forward

    torch._dynamo.reset()
    for t, dims in (mark or []):
        for d in dims:
            torch._dynamo.mark_dynamic(t, d)
    with torch.no_grad():
        torch.compile(fn, backend=backend, fullgraph=True, dynamic=dynamic)(*args, **kwargs)
    return graphs


class MLPNorm(nn.Module):
    def __init__(s):
        super().__init__()
        s.l1, s.ln, s.l2 = nn.Linear(8, 16), nn.LayerNorm(16), nn.Linear(16, 4)

    def forward(s, x, mask):
        h = s.ln(F.gelu(s.l1(x)))
        h = h.view(-1, 2, 8).transpose(1, 2).reshape(x.shape[0], 16)
        a = torch.softmax(h.masked_fill(mask, -1e9), dim=-1)
        return s.l2(a).sum(dim=1, keepdim=True) * x.mean()


class Attention(nn.Module):
    """A Hugging Face style self-attention block with a tanh GELU MLP."""

    def __init__(s, d=16, heads=4):
        super().__init__()
        s.h, s.hd = heads, d // heads
        s.q, s.k, s.v, s.o = (nn.Linear(d, d) for _ in range(4))
        s.ln1, s.ln2 = nn.LayerNorm(d), nn.LayerNorm(d)
        s.fc1, s.fc2 = nn.Linear(d, 4 * d), nn.Linear(4 * d, d)

    def forward(s, x, bias):
        b, t, d = x.shape
        h = s.ln1(x)
        q = s.q(h).view(b, t, s.h, s.hd).transpose(1, 2)
        k = s.k(h).view(b, t, s.h, s.hd).permute(0, 2, 3, 1)
        v = s.v(h).view(b, t, s.h, s.hd).transpose(1, 2)
        w = torch.matmul(q, k) / math.sqrt(s.hd) + bias[:, None, :, :]
        w = F.softmax(w, dim=-1, dtype=torch.float32).to(q.dtype)
        w = F.dropout(w, p=0.1, training=False)
        a = (w @ v).transpose(1, 2).contiguous().reshape(b, t, d)
        x = x + s.o(a)
        a2 = F.scaled_dot_product_attention(q, k.transpose(-1, -2), v, is_causal=True)
        x = x + a2.transpose(1, 2).flatten(2)
        y = s.fc1(s.ln2(x))
        y = 0.5 * y * (1.0 + torch.tanh(math.sqrt(2.0 / math.pi) * (y + 0.044715 * torch.pow(y, 3.0))))
        return x + s.fc2(y)


class CNN(nn.Module):
    def __init__(s):
        super().__init__()
        s.c1 = nn.Conv2d(3, 8, 3, padding=1)
        s.bn = nn.BatchNorm2d(8)
        s.c2 = nn.Conv2d(8, 8, 3, stride=2, groups=2, bias=False)
        s.fc = nn.Linear(8 * 2, 10)

    def forward(s, x):
        x = F.relu(s.bn(s.c1(x)), inplace=True)
        x = F.max_pool2d(x, 2)
        x = s.c2(x)
        a, b = torch.chunk(x, 2, dim=1)
        x = torch.cat([a.sigmoid() * b, F.silu(a)], dim=1)
        x = F.adaptive_avg_pool2d(x, (1, 2))
        x = torch.flatten(x, 1)
        return F.log_softmax(s.fc(x), dim=1)


class Embed(nn.Module):
    def __init__(s):
        super().__init__()
        s.emb = nn.Embedding(50, 12)
        s.pos = nn.Parameter(torch.randn(16, 12))
        s.head = nn.Linear(12, 50, bias=False)

    def forward(s, ids, labels):
        t = ids.shape[1]
        pos = torch.arange(t, device=ids.device)
        x = s.emb(ids) + s.pos[pos]
        x = x * (ids != 0).unsqueeze(-1).float()
        last = x[:, -1, :]
        first = x[..., 0]
        logits = s.head(x)
        loss = F.cross_entropy(logits.view(-1, logits.size(-1)), labels.view(-1), ignore_index=-100)
        pred = logits.argmax(dim=-1)
        hit = torch.where(pred == labels, 1.0, 0.0).sum()
        z = torch.einsum("btd,bd->bt", x, last)
        parts = torch.split(z, [3, 5], dim=1)
        top = torch.topk(logits[:, 0], 3, dim=-1).values
        return loss + hit, parts[0].cumsum(1), parts[1].clamp(min=-1.0, max=1.0), first.unsqueeze(0).expand(2, -1, -1), top


def casts(x, y):
    a = x.to(torch.bfloat16) * 2
    b = a.float() + y.half().type_as(x)
    c = b.new_zeros(4, 3) + torch.ones_like(b[:, :3])
    d = torch.stack([c, c.t().t()], dim=0).permute(1, 2, 0)
    e = F.pad(d, (1, 1))
    f = torch.zeros(4, 3, 4, dtype=torch.int64) + e.long()
    g = x.double().abs().sqrt().exp().log1p().rsqrt()
    m = x > 0
    h = torch.where(m, x, torch.zeros_like(x)).max(dim=1)
    i = (x @ y.T).squeeze().unsqueeze(1).repeat(1, 2, 1)
    j = x.norm(dim=-1, keepdim=True) + x.var(dim=0, unbiased=False).sum() - x.std()
    k = x.detach().clone().contiguous().view(2, 10)[1:, ::2]
    return f, g, h.values, h.indices, i, j, k, m.any(), x.amax(1).min(), -x // 3 % 2, x ** 2 - (x - 1) / (x + 1)


def dynamic_batch(x, w):
    b = x.size(0)
    y = (x @ w).relu()
    y = y.view(b, 2, -1).mean(1)
    z = y.reshape(-1) * b
    return z, y.new_ones(b, 1) + torch.arange(b).unsqueeze(1)


class LlamaBlock(nn.Module):
    """RMSNorm, rotary embeddings, grouped-query attention with repeat_kv,
    a causal mask built from triu, SwiGLU MLP: the code of HF's Llama."""

    def __init__(s, d=16, heads=4, kv=2):
        super().__init__()
        s.h, s.kv, s.hd = heads, kv, d // heads
        s.w = nn.Parameter(torch.ones(d))
        s.q, s.k, s.v = nn.Linear(d, d, bias=False), nn.Linear(d, kv * (d // heads), bias=False), nn.Linear(d, kv * (d // heads), bias=False)
        s.o = nn.Linear(d, d, bias=False)
        s.gate, s.up, s.down = nn.Linear(d, 32, bias=False), nn.Linear(d, 32, bias=False), nn.Linear(32, d, bias=False)

    def rms(s, x):
        var = x.to(torch.float32).pow(2).mean(-1, keepdim=True)
        return s.w * (x * torch.rsqrt(var + 1e-6)).to(x.dtype)

    def rope(s, x, cos, sin):
        x1, x2 = x[..., : x.shape[-1] // 2], x[..., x.shape[-1] // 2:]
        return x * cos + torch.cat((-x2, x1), dim=-1) * sin

    def forward(s, x, position_ids):
        b, t, d = x.shape
        inv = 1.0 / (10000 ** (torch.arange(0, s.hd, 2, dtype=torch.int64).float() / s.hd))
        freqs = (inv[None, :, None].expand(position_ids.shape[0], -1, 1) @ position_ids[:, None, :].float()).transpose(1, 2)
        emb = torch.cat((freqs, freqs), dim=-1)
        cos, sin = emb.cos()[:, None], emb.sin()[:, None]
        h = s.rms(x)
        q = s.q(h).view(b, t, s.h, s.hd).transpose(1, 2)
        k = s.k(h).view(b, t, s.kv, s.hd).transpose(1, 2)
        v = s.v(h).view(b, t, s.kv, s.hd).transpose(1, 2)
        q, k = s.rope(q, cos, sin), s.rope(k, cos, sin)
        k = k[:, :, None, :, :].expand(b, s.kv, s.h // s.kv, t, s.hd).reshape(b, s.h, t, s.hd)
        v = torch.repeat_interleave(v, s.h // s.kv, dim=1)
        mask = torch.triu(torch.full((t, t), float("-inf")), diagonal=1)
        w = torch.matmul(q, k.transpose(2, 3)) * s.hd ** -0.5 + mask
        w = nn.functional.softmax(w, dim=-1, dtype=torch.float32).to(q.dtype)
        a = torch.matmul(w, v).transpose(1, 2).reshape(b, t, -1)
        x = x + s.o(a)
        h = s.rms(x)
        return x + s.down(F.silu(s.gate(h)) * s.up(h))


class ConvMisc(nn.Module):
    def __init__(s):
        super().__init__()
        s.c1 = nn.Conv1d(4, 6, 3, padding=1)
        s.gn = nn.GroupNorm(2, 6)
        s.c2 = nn.Conv2d(6, 4, 1)

    def forward(s, x, idx):
        y = F.gelu(s.gn(s.c1(x)), approximate="tanh")
        y = y.unsqueeze(-1).repeat(1, 1, 1, 2)
        y = F.interpolate(y, scale_factor=2, mode="nearest")
        y = F.avg_pool2d(s.c2(y), 2)
        z = F.normalize(y.flatten(1), dim=1)
        g = torch.gather(z, 1, idx)
        a, b, c = z.chunk(3, dim=1)
        u = torch.stack(z.unbind(0), dim=1)
        n = z.narrow(1, 2, 4).index_select(1, torch.tensor([0, 2]))
        m = z.masked_fill(z > 0.1, float("-inf")).logsumexp(-1)
        srt = z.sort(dim=-1, descending=True)
        return g, a + b - c, u, n, m, srt.values, srt.indices, torch.bmm(y.flatten(2), y.flatten(2).transpose(1, 2)), F.one_hot(idx, 5)


def inplace_ops(x, y):
    x = x.clone()
    x.add_(y)
    x.mul_(2)
    x[:, 0] = 1.0
    x.masked_fill_(x > 3, 0.0)
    z = x.new_full((2, 3), 7.0).addmm(x[:2], y.t()[:, :3])
    return x.clamp_min(0.5), z.float().softmax(-1), torch.baddbmm(z[None], x[None, :2], y.t()[None, :, :3]), torch.full_like(z, 2).cumsum(-1)


def dynamic_seq(x, w):
    size = x.size()
    b, t = size[0], size[1]
    y = (x.view(b * t, -1) @ w).view(b, t, -1)
    pos = torch.arange(t, device=x.device).unsqueeze(0).expand(b, t)
    return y.sum(1) / t, y[:, -1] + pos[:, :1], x.flatten(0, 1)[: t - 1]


def hf_runs():
    """Small random-weight Hugging Face models (their real modeling code):
    GPT-2, BERT, Llama, T5 encoder, ViT, and eight more. Needs transformers."""
    import transformers as tf
    tf.logging.set_verbosity_error()
    ids = lambda: {"input_ids": torch.randint(0, 100, (2, 7))}  # noqa: E731
    return tf.__version__, [
        ("hf_gpt2", tf.GPT2Model(tf.GPT2Config(n_embd=32, n_layer=2, n_head=4, vocab_size=100, n_positions=64,
                                               bos_token_id=0, eos_token_id=0)).eval(),
         (), {"input_ids": torch.randint(0, 100, (2, 7))}),
        ("hf_bert", tf.BertModel(tf.BertConfig(hidden_size=32, num_hidden_layers=2, num_attention_heads=4,
                                               intermediate_size=64, vocab_size=100)).eval(),
         (), {"input_ids": torch.randint(0, 100, (2, 7)), "attention_mask": torch.ones(2, 7, dtype=torch.long)}),
        ("hf_llama", tf.LlamaModel(tf.LlamaConfig(hidden_size=32, num_hidden_layers=2, num_attention_heads=4,
                                                  num_key_value_heads=2, intermediate_size=64, vocab_size=100)).eval(),
         (), {"input_ids": torch.randint(0, 100, (2, 7))}),
        ("hf_t5_encoder", tf.T5EncoderModel(tf.T5Config(d_model=32, num_layers=2, num_heads=4, d_ff=64, vocab_size=100,
                                                        d_kv=8)).eval(),
         (), {"input_ids": torch.randint(0, 100, (2, 7))}),
        ("hf_vit", tf.ViTModel(tf.ViTConfig(hidden_size=32, num_hidden_layers=2, num_attention_heads=4,
                                            intermediate_size=64, image_size=16, patch_size=4)).eval(),
         (), {"pixel_values": torch.randn(2, 3, 16, 16)}),
        # Added after kiln typed them exactly on first contact (no change was needed): a check on models its
        # Dynamo routing was not built from.
        ("hf_distilbert", tf.DistilBertModel(tf.DistilBertConfig(dim=32, n_layers=2, n_heads=4, hidden_dim=64,
                                                                 vocab_size=100)).eval(), (), ids()),
        ("hf_roberta", tf.RobertaModel(tf.RobertaConfig(hidden_size=32, num_hidden_layers=2, num_attention_heads=4,
                                                        intermediate_size=64, vocab_size=100)).eval(), (), ids()),
        ("hf_mistral", tf.MistralModel(tf.MistralConfig(hidden_size=32, num_hidden_layers=2, num_attention_heads=4,
                                                        num_key_value_heads=2, intermediate_size=64,
                                                        vocab_size=100)).eval(), (), ids()),
        ("hf_bart", tf.BartModel(tf.BartConfig(d_model=32, encoder_layers=1, decoder_layers=1, encoder_attention_heads=4,
                                               decoder_attention_heads=4, encoder_ffn_dim=64, decoder_ffn_dim=64,
                                               vocab_size=100)).eval(), (), ids()),
        ("hf_clip_text", tf.CLIPTextModel(tf.CLIPTextConfig(hidden_size=32, num_hidden_layers=2, num_attention_heads=4,
                                                            intermediate_size=64, vocab_size=100)).eval(), (), ids()),
        ("hf_convnext", tf.ConvNextModel(tf.ConvNextConfig(hidden_sizes=[8, 16], depths=[1, 1], num_stages=2,
                                                           image_size=32)).eval(),
         (), {"pixel_values": torch.randn(2, 3, 32, 32)}),
        ("hf_resnet", tf.ResNetModel(tf.ResNetConfig(hidden_sizes=[8, 16], depths=[1, 1], embedding_size=8)).eval(),
         (), {"pixel_values": torch.randn(2, 3, 32, 32)}),
        ("hf_qwen2", tf.Qwen2Model(tf.Qwen2Config(hidden_size=32, num_hidden_layers=2, num_attention_heads=4,
                                                  num_key_value_heads=2, intermediate_size=64, vocab_size=100)).eval(),
         (), ids()),
    ]


def write_graph(name, text, extra=""):
    path = os.path.join(OUT, name + ".fx.txt")
    # source comments name files: keep them free of this machine's paths
    text = text.replace(ROOT + os.sep, "")
    text = re.sub(r"File: \S*/site-packages/", "File: site-packages/", text)
    with open(path, "w") as f:
        f.write(f"# Dynamo graph (TORCH_LOGS=graph_code text) printed by PyTorch {torch.__version__}{extra}\n")
        f.write(f"# generator: tools/dynamo/gen.py ({name}); regenerate: python3 tools/dynamo/gen.py testdata/dynamo\n")
        f.write(text)
    print("wrote", path)


def main():
    os.makedirs(OUT, exist_ok=True)
    torch.manual_seed(0)
    runs = [
        ("01_mlp_layernorm_softmax", MLPNorm().eval(), (torch.randn(4, 8), torch.rand(4, 16) > 0.5), {}),
        ("02_attention_block", Attention().eval(), (torch.randn(2, 5, 16), torch.randn(2, 5, 5)), {}),
        ("03_cnn_batchnorm_pool", CNN().eval(), (torch.randn(2, 3, 8, 8),), {}),
        ("04_embedding_loss_indexing", Embed().eval(), (torch.randint(0, 50, (2, 8)), torch.randint(0, 50, (2, 8))), {}),
        ("05_casts_reductions_operators", casts, (torch.randn(4, 5), torch.randn(4, 5)), {}),
    ]
    runs.append(("07_llama_block_rope_gqa", LlamaBlock().eval(), (torch.randn(2, 5, 16), torch.arange(5).unsqueeze(0).expand(2, 5)), {}))
    runs.append(("08_conv1d_groupnorm_interpolate_gather", ConvMisc().eval(), (torch.randn(2, 4, 6), torch.randint(0, 5, (2, 3))), {}))
    runs.append(("09_inplace_methods_setitem", inplace_ops, (torch.randn(4, 5), torch.randn(4, 5)), {}))
    xs = torch.randn(3, 7, 8)
    runs.append(("10_dynamic_batch_and_seq", dynamic_seq, (xs, torch.randn(8, 4)), {"mark": [(xs, [0, 1])]}))
    xd = torch.randn(6, 8)
    runs.append(("06_dynamic_batch", dynamic_batch, (xd, torch.randn(8, 4)), {"mark": [(xd, [0])]}))
    for name, fn, args, kw in runs:
        graphs = capture(fn, *args, **kw)
        assert len(graphs) == 1, (name, len(graphs))
        write_graph(name, graphs[0])
    try:
        version, hf = hf_runs()
    except ImportError:
        print("transformers is not installed: the hf_* graphs are not regenerated", file=sys.stderr)
        return
    for name, model, args, kwargs in hf:
        graphs = capture(lambda **kw: model(**kw), **kwargs)
        assert len(graphs) == 1, (name, len(graphs))
        write_graph(name, graphs[0], f", transformers {version} (random weights)")


if __name__ == "__main__":
    main()
