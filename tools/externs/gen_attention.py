"""PyTorch's CPU flash attention (aten._scaled_dot_product_flash_attention_for_cpu
and its backward) on small cases, for kiln's Go runtime (rt/attention_test.go
reads rt/testdata/extern_attention.json).

Usage: python3 tools/externs/gen_attention.py > rt/testdata/extern_attention.json

Inputs are random (seeded); the kernel's vectorized exp is an approximation,
so rt is held to these values within a tolerance, not bit for bit. Every
case runs the forward, then the backward on a random grad_out with the
forward's out and logsumexp.
"""
import json
import math

import torch

A = torch.ops.aten
DT = {torch.float32: "f32", torch.float64: "f64", torch.bfloat16: "bf16"}


def flat(t):
    out = []
    for v in t.detach().reshape(-1).double().tolist():
        if math.isnan(v):
            out.append("nan")
        elif math.isinf(v):
            out.append("inf" if v > 0 else "-inf")
        else:
            out.append(v)
    return out


def cases():
    g = torch.Generator().manual_seed(1313)
    out = []

    def rnd(*shape, dtype=torch.float32):
        return torch.randn(*shape, generator=g, dtype=torch.float64).to(dtype)

    def add(name, qs, ks, causal=False, mask=None, scale=None, dtype=torch.float32):
        q, k, v = rnd(*qs, dtype=dtype), rnd(*ks, dtype=dtype), rnd(*ks, dtype=dtype)
        kw = {}
        if mask is not None:
            kw["attn_mask"] = mask.to(dtype)
        if scale is not None:
            kw["scale"] = scale
        o, lse = A._scaled_dot_product_flash_attention_for_cpu(q, k, v, 0.0, causal, **kw)
        go = rnd(*o.shape, dtype=dtype)
        gq, gk, gv = A._scaled_dot_product_flash_attention_for_cpu_backward(go, q, k, v, o, lse, 0.0, causal, **kw)
        out.append({"name": name, "dtype": DT[dtype], "q_shape": list(qs), "kv_shape": list(ks),
                    "q": flat(q), "k": flat(k), "v": flat(v), "is_causal": causal,
                    "mask_shape": None if mask is None else list(mask.shape),
                    "mask": None if mask is None else flat(kw["attn_mask"]), "scale": scale,
                    "out": flat(o), "logsumexp": flat(lse), "grad_out": flat(go),
                    "grad_q": flat(gq), "grad_k": flat(gk), "grad_v": flat(gv)})

    add("plain", (1, 2, 3, 4), (1, 2, 5, 4))
    add("causal_square", (2, 2, 5, 8), (2, 2, 5, 8), causal=True)
    add("causal_more_queries", (1, 2, 6, 4), (1, 2, 2, 4), causal=True)
    add("causal_more_keys", (1, 1, 3, 4), (1, 1, 7, 4), causal=True)
    add("scale", (1, 2, 4, 8), (1, 2, 6, 8), scale=0.3)
    m = rnd(4, 6)
    m[1] = float("-inf")  # a fully masked row: zeros, logsumexp 0
    m[2, :3] = float("-inf")
    add("mask_2d_masked_row", (1, 2, 4, 8), (1, 2, 6, 8), mask=m)
    add("mask_4d", (2, 2, 3, 4), (2, 2, 5, 4), mask=rnd(2, 2, 3, 5))
    add("mask_4d_broadcast", (2, 2, 3, 4), (2, 2, 5, 4), mask=rnd(1, 2, 1, 5))
    add("mask_2d_column", (1, 2, 3, 4), (1, 2, 5, 4), mask=rnd(3, 1), causal=True)
    add("gqa", (1, 4, 5, 8), (1, 2, 5, 8), causal=True)
    add("gqa_mask", (2, 6, 3, 4), (2, 2, 4, 4), mask=rnd(3, 4))
    add("blocks_of_512", (1, 1, 3, 4), (1, 1, 1100, 4))
    add("blocks_causal", (1, 1, 530, 2), (1, 1, 530, 2), causal=True)
    add("f64", (1, 2, 4, 8), (1, 2, 6, 8), causal=True, dtype=torch.float64)
    add("f64_mask", (1, 2, 4, 8), (1, 2, 6, 8), mask=m.double(), dtype=torch.float64)
    add("bf16", (2, 2, 8, 8), (2, 2, 8, 8), causal=True, dtype=torch.bfloat16)
    add("bf16_mask_gqa", (1, 4, 5, 8), (1, 2, 7, 8), mask=rnd(5, 7), scale=0.25, dtype=torch.bfloat16)
    add("empty_batch", (0, 2, 3, 4), (0, 2, 5, 4))
    return out


def main():
    print(json.dumps({"torch": torch.__version__, "generator": "tools/externs/gen_attention.py",
                      "sdpa_flash_cpu": cases()}, separators=(",", ":")))


if __name__ == "__main__":
    main()
