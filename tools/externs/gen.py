"""PyTorch's CPU topk, sort, convolution and convolution_backward (direct and
transposed), _adaptive_avg_pool2d_backward, upsample_bilinear2d_backward
and embedding_bag (forward, backward, per_sample_weights backward) on small cases, for kiln's Go runtime (rt/extern_multi_test.go reads rt/testdata/extern_multi.json).

Usage: python3 tools/externs/gen.py > rt/testdata/extern_multi.json

Inputs are small integers or multiples of 1/8 (exact in every float
dtype), so topk's ties are real ties and convolution sums are exact in f64;
the adaptive pool's and the bilinear backward's are random, so that rt must
round as ATen does.
"""
import json
import math

import torch


def flat(t):
    if t.dtype == torch.bool:
        t = t.to(torch.int64)  # bools as 0 and 1
    out = []
    for v in t.reshape(-1).tolist():
        if isinstance(v, float) and math.isnan(v):
            out.append("nan")
        elif isinstance(v, float) and math.isinf(v):
            out.append("inf" if v > 0 else "-inf")
        else:
            out.append(v)
    return out


DT = {torch.float32: "f32", torch.float64: "f64", torch.int64: "i64", torch.int32: "i32", torch.float16: "f16",
      torch.bool: "b8"}


def topk_cases():
    g = torch.Generator().manual_seed(13)
    cases = []

    def add(name, x, k, dim=-1, largest=True, sorted=True):
        v, i = torch.topk(x, k, dim=dim, largest=largest, sorted=sorted)
        cases.append({"name": name, "dtype": DT[x.dtype], "shape": list(x.shape), "x": flat(x),
                      "k": k, "dim": dim, "largest": largest, "sorted": sorted,
                      "values": flat(v), "indices": flat(i)})

    ties = torch.tensor([1., 3., 3., 2., 3., float("nan"), 1., float("nan")])
    for largest in (True, False):
        for srt in (True, False):
            for k in (0, 1, 3, 4, 8):
                add(f"ties_k{k}_l{int(largest)}_s{int(srt)}", ties, k, largest=largest, sorted=srt)
    # every path of topk_impl_loop: nth_element (+ sort) for k·64 > n,
    # partial_sort for k·64 <= n; rows long enough for introsort's loop
    for n, k in ((40, 5), (100, 1), (200, 3), (300, 30), (1000, 10), (1000, 200), (64, 1), (65, 1)):
        for largest in (True, False):
            for srt in (True, False):
                x = torch.randint(0, 7, (2, n), generator=g).double()
                add(f"rand_ties_n{n}_k{k}_l{int(largest)}_s{int(srt)}", x, k, largest=largest, sorted=srt)
    x = torch.randint(-4, 5, (3, 50, 4), generator=g).float()
    x[0, 3, 1] = float("nan")
    x[1, 10:20, 2] = float("nan")
    add("dim1_f32_nan", x, 7, dim=1)
    add("dim1_f32_nan_small", x, 7, dim=1, largest=False)
    add("dim0_f32", x, 2, dim=0, sorted=False)
    add("int64", torch.randint(-3, 4, (4, 90), generator=g), 9)
    add("int64_big", torch.tensor([2**62 + 1, 2**62, -2**62, 2**62 + 1, 5]), 3)
    add("int32", torch.randint(-3, 4, (5, 17), generator=g, dtype=torch.int32), 4, largest=False)
    add("f16", (torch.randint(-20, 20, (3, 33), generator=g) / 8).half(), 5)
    add("scalar", torch.tensor(2.5), 1, dim=0)
    add("distinct", torch.randperm(500, generator=g).double().reshape(5, 100), 6, sorted=False)
    add("empty_rows", torch.zeros(0, 6), 2)
    return cases


def sort_cases():
    g = torch.Generator().manual_seed(17)
    cases = []

    def add(name, x, dim=-1, descending=False, stable=False):
        v, i = torch.sort(x, dim=dim, descending=descending, stable=stable)
        cases.append({"name": name, "dtype": DT[x.dtype], "shape": list(x.shape), "x": flat(x),
                      "dim": dim, "descending": descending, "stable": stable,
                      "values": flat(v), "indices": flat(i)})

    # std::sort's insertion sort (n <= 16), introsort and its final pass
    for n in (5, 16, 17, 40, 300, 3000):
        for desc in (False, True):
            for stable in (False, True):
                x = torch.randint(0, 6, (2, n), generator=g).double()
                x[0, n // 3] = float("nan")
                add(f"ties_n{n}_d{int(desc)}_s{int(stable)}", x, descending=desc, stable=stable)
    add("dim0_f32", torch.randint(-3, 3, (30, 3), generator=g).float(), dim=0)
    add("int64", torch.randint(-3, 4, (3, 70), generator=g), descending=True)
    add("empty", torch.zeros(0, 4))
    # bool (values 0 and 1 in the JSON): all ties, every path as above
    for n in (5, 16, 17, 40, 300):
        for desc in (False, True):
            for stable in (False, True):
                x = torch.rand(2, n, generator=g) > 0.5
                add(f"bool_n{n}_d{int(desc)}_s{int(stable)}", x, descending=desc, stable=stable)
    add("bool_dim0", torch.rand(30, 3, generator=g) > 0.3, dim=0, descending=True)
    return cases


def conv_cases():
    g = torch.Generator().manual_seed(101)
    cases = []

    def rnd(*shape, dtype=torch.float64):
        return (torch.randint(-16, 17, shape, generator=g).to(dtype) / 8)

    def add(name, xs, ws, stride, padding, dilation, groups, mask, bias=True, dtype=torch.float64,
            transposed=False, output_padding=None):
        x, w = rnd(*xs, dtype=dtype), rnd(*ws, dtype=dtype)
        nsp = len(xs) - 2
        output_padding = output_padding or [0] * nsp
        nout = ws[1] * groups if transposed else ws[0]
        b = rnd(nout, dtype=dtype) if bias else None
        # the forward with its bias (a transposed one is checked against it too)
        out = torch.ops.aten.convolution(x, w, b, stride, padding, dilation, transposed, output_padding, groups)
        go = rnd(*out.shape, dtype=dtype)
        bs = [nout] if bias else None
        res = torch.ops.aten.convolution_backward(go, x, w, bs, stride, padding, dilation, transposed,
                                                  output_padding, groups, mask)
        c = {"name": name, "dtype": DT[dtype], "grad_output_shape": list(go.shape), "grad_output": flat(go),
             "input_shape": xs, "input": flat(x), "weight_shape": ws, "weight": flat(w),
             "bias_sizes": bs, "stride": stride, "padding": padding, "dilation": dilation, "groups": groups,
             "output_mask": mask, "transposed": transposed, "output_padding": output_padding,
             "bias": None if b is None else flat(b), "output": flat(out)}
        for key, r in zip(("grad_input", "grad_weight", "grad_bias"), res):
            c[key] = None if r is None else flat(r)
        cases.append(c)

    add("conv2d_plain", [2, 3, 5, 5], [4, 3, 3, 3], [1, 1], [0, 0], [1, 1], 1, [True, True, True])
    add("conv2d_stride_pad", [2, 4, 7, 6], [6, 2, 3, 2], [2, 2], [1, 0], [1, 1], 2, [True, True, True])
    add("conv2d_dilation", [1, 2, 9, 8], [3, 2, 3, 3], [1, 2], [2, 1], [2, 3], 1, [True, True, True])
    add("conv2d_depthwise", [2, 4, 6, 6], [4, 1, 3, 3], [1, 1], [1, 1], [1, 1], 4, [True, False, True])
    add("conv2d_mask_w_b", [4, 3, 8, 8], [8, 3, 3, 3], [1, 1], [1, 1], [1, 1], 1, [False, True, True])
    add("conv2d_mask_x", [2, 3, 5, 5], [4, 3, 2, 2], [3, 3], [0, 0], [1, 1], 1, [True, False, False])
    add("conv2d_no_bias", [2, 3, 5, 5], [4, 3, 3, 3], [1, 1], [1, 1], [1, 1], 1, [True, True, False], bias=False)
    add("conv2d_patchify", [2, 3, 8, 8], [5, 3, 4, 4], [4, 4], [0, 0], [1, 1], 1, [False, True, True])
    add("conv1d", [3, 4, 11], [6, 2, 3], [2], [1], [2], 2, [True, True, True])
    add("conv3d", [1, 2, 4, 5, 4], [3, 2, 2, 3, 2], [1, 2, 1], [1, 0, 1], [1, 1, 2], 1, [True, True, True])
    add("conv2d_f32", [2, 3, 6, 5], [4, 3, 3, 3], [1, 2], [1, 1], [1, 1], 1, [True, True, True], dtype=torch.float32)
    add("conv2d_empty_batch", [0, 3, 5, 5], [4, 3, 3, 3], [1, 1], [0, 0], [1, 1], 1, [True, True, True])
    # transposed: the weight is [in, out/groups, k...]
    add("convT2d_plain", [2, 3, 4, 4], [3, 2, 3, 3], [1, 1], [0, 0], [1, 1], 1, [True, True, True], transposed=True)
    add("convT2d_stride_pad_outpad_groups", [2, 4, 5, 5], [4, 3, 3, 3], [2, 2], [1, 1], [1, 1], 2,
        [True, True, True], transposed=True, output_padding=[1, 1])
    add("convT2d_dilation", [1, 2, 4, 3], [2, 3, 2, 3], [2, 1], [1, 2], [2, 2], 1, [True, True, False],
        transposed=True, output_padding=[1, 0], bias=False)
    add("convT2d_mask_w_b", [2, 3, 3, 3], [3, 4, 4, 4], [2, 2], [1, 1], [1, 1], 1, [False, True, True],
        transposed=True)
    add("convT1d", [3, 4, 5], [4, 3, 3], [3], [1], [1], 2, [True, True, True], transposed=True,
        output_padding=[2])
    add("convT3d", [1, 2, 3, 2, 3], [2, 2, 2, 2, 2], [1, 2, 1], [0, 1, 1], [1, 1, 2], 1, [True, True, True],
        transposed=True, output_padding=[0, 1, 0])
    add("convT2d_f32", [2, 3, 4, 4], [3, 2, 3, 3], [2, 2], [1, 1], [1, 1], 1, [True, True, True],
        dtype=torch.float32, transposed=True, output_padding=[1, 1])
    return cases


def adaptive_avg_pool_backward_cases():
    # random values, not multiples of 1/8: the division order (grad / kh /
    # kw, in the dtype) and the summation order must both be ATen's
    g = torch.Generator().manual_seed(23)
    cases = []
    for name, xs, os_, dt in (("7x9_to_3x5", [2, 3, 7, 9], [3, 5], torch.float32),
                              ("8x8_to_4x4", [2, 3, 8, 8], [4, 4], torch.float32),
                              ("5x3_to_7x2_upsampling", [1, 2, 5, 3], [7, 2], torch.float32),
                              ("10x6_to_3x4_f64", [2, 2, 10, 6], [3, 4], torch.float64),
                              ("unbatched_6x7_to_4x3", [3, 6, 7], [4, 3], torch.float32)):
        x = torch.randn(*xs, generator=g, dtype=dt)
        go = torch.randn(*xs[:-2], *os_, generator=g, dtype=dt)
        gx = torch.ops.aten._adaptive_avg_pool2d_backward(go, x)
        cases.append({"name": name, "dtype": DT[dt], "input_shape": xs, "grad_output_shape": list(go.shape),
                      "grad_output": flat(go), "grad_input": flat(gx)})
    return cases


def upsample_bilinear_backward_cases():
    # random values: rt must take ATen's weights, products and order
    g = torch.Generator().manual_seed(29)
    cases = []
    for name, xs, os_, align, dt in (("3x4_to_5x7", [1, 2, 3, 4], [5, 7], False, torch.float32),
                                     ("3x4_to_5x7_align", [1, 2, 3, 4], [5, 7], True, torch.float32),
                                     ("8x6_to_3x4_down", [2, 1, 8, 6], [3, 4], False, torch.float32),
                                     ("5x5_to_1x9_align", [1, 3, 5, 5], [1, 9], True, torch.float32),
                                     ("4x4_same_size", [1, 1, 4, 4], [4, 4], False, torch.float32),
                                     ("3x4_to_6x8_f64", [2, 2, 3, 4], [6, 8], False, torch.float64)):
        go = torch.randn(*xs[:2], *os_, generator=g, dtype=dt)
        gx = torch.ops.aten.upsample_bilinear2d_backward(go, os_, xs, align)
        cases.append({"name": name, "dtype": DT[dt], "input_size": xs, "output_size": os_,
                      "align_corners": align, "grad_output": flat(go), "grad_input": flat(gx)})
    return cases


def embedding_bag_cases():
    # random weights and grads: rt must sum each bag in index order, and the
    # backward in the order of ATen's (unstable) index sort with its axpy
    g = torch.Generator().manual_seed(31)
    cases = []
    for name, nw, d, idx, offs, mode, pad, last, psw, dt, fwd_only in (
            ("sum_fast", 10, 4, [1, 2, 4, 5, 4, 3, 2, 9], [0, 3, 3, 6], 0, -1, False, False, torch.float32, False),
            ("mean", 10, 4, [1, 2, 4, 5, 4, 3, 2, 9], [0, 3, 3, 6], 1, -1, False, False, torch.float32, False),
            ("max", 10, 4, [1, 2, 4, 5, 4, 3, 2, 9], [0, 3, 3, 6], 2, -1, False, False, torch.float32, False),
            ("sum_padding", 10, 4, [1, 2, 4, 5, 4, 3, 2, 9], [0, 3, 3, 6], 0, 2, False, False, torch.float32, False),
            ("mean_padding", 10, 4, [1, 2, 4, 5, 4, 3, 2, 9], [0, 3, 3, 6], 1, 2, False, False, torch.float32, False),
            ("max_padding", 10, 4, [1, 2, 4, 5, 4, 3, 2, 9], [0, 3, 3, 6], 2, 2, False, False, torch.float32, False),
            ("mean_include_last_offset", 10, 4, [1, 2, 4, 5, 4, 3, 2, 9], [0, 3, 3, 6, 8], 1, -1, True, False,
             torch.float32, False),
            ("sum_per_sample_weights", 10, 4, [1, 2, 4, 5, 4, 3, 2, 9], [0, 3, 3, 6], 0, -1, False, True,
             torch.float32, False),
            ("sum_per_sample_weights_padding", 10, 4, [1, 2, 4, 5, 4, 3, 2, 9], [0, 3, 3, 6], 0, 2, False, True,
             torch.float32, False),
            # 40 indices into 6 rows: repeats beyond std::sort's insertion
            # threshold, so the backward's order is the unstable sort's
            ("mean_many_repeats", 6, 9, torch.randint(0, 6, (40,), generator=g).tolist(), [0, 7, 7, 20, 33], 1, -1,
             False, False, torch.float32, False),
            ("sum_many_repeats_f64", 6, 9, torch.randint(0, 6, (40,), generator=g).tolist(), [0, 7, 7, 20, 33], 0,
             -1, False, False, torch.float64, False),
            ("max_many_repeats", 6, 9, torch.randint(0, 6, (40,), generator=g).tolist(), [0, 7, 7, 20, 33], 2, -1,
             False, False, torch.float32, False),
            ("mean_forward_only", 10, 4, [1, 2, 4, 5, 4, 3, 2, 9], [0, 3, 3, 6], 1, -1, False, False, torch.float32,
             True)):
        w = torch.randn(nw, d, generator=g, dtype=dt)
        i, o = torch.tensor(idx), torch.tensor(offs)
        ps = torch.randn(len(idx), generator=g, dtype=dt) if psw else None
        fn = torch.ops.aten._embedding_bag_forward_only if fwd_only else torch.ops.aten._embedding_bag
        out, o2b, bs, mi = fn(w, i, o, False, mode, False, ps, last, pad)
        c = {"name": name, "dtype": DT[dt], "weight_shape": [nw, d], "weight": flat(w), "indices": idx,
             "offsets": offs, "mode": mode, "padding_idx": pad, "include_last_offset": last, "forward_only": fwd_only,
             "output": flat(out), "offset2bag": flat(o2b), "bag_size": flat(bs), "max_indices": flat(mi),
             "max_indices_shape": list(mi.shape)}
        if ps is not None:
            c["per_sample_weights"] = flat(ps)
        if not fwd_only:
            go = torch.randn(*out.shape, generator=g, dtype=dt)
            c["grad"] = flat(go)
            c["grad_weight"] = flat(torch.ops.aten._embedding_bag_backward(go, i, o, o2b, bs, mi, nw, False, mode,
                                                                            False, ps, pad))
            if ps is not None:
                c["grad_per_sample_weights"] = flat(torch.ops.aten._embedding_bag_per_sample_weights_backward(
                    go, w, i, o, o2b, mode, pad))
        cases.append(c)
    return cases


def main():
    print(json.dumps({"torch": torch.__version__, "generator": "tools/externs/gen.py",
                      "topk": topk_cases(), "sort": sort_cases(),
                      "convolution_backward": conv_cases(),
                      "adaptive_avg_pool2d_backward": adaptive_avg_pool_backward_cases(),
                      "upsample_bilinear2d_backward": upsample_bilinear_backward_cases(),
                      "embedding_bag": embedding_bag_cases()}, separators=(",", ":")))


if __name__ == "__main__":
    main()
