"""Cases for the structural and nn ops of issue 11 (lane c11ops) that the
conformance data does not reach: 2-d/3-d padding and its backward, 3-d and
exact nearest upsampling, rot90 on a transposed input, col2im without a
batch, segment_reduce over axis 1 with offsets, hash_tensor over a dim,
cummin with NaN, histc with a range, searchsorted with a sorter and
side='right', mode with ties. Used by gen.py."""
import torch

aten = torch.ops.aten


def nn_cases(gen, case, single):
    out = []
    x4 = gen(101, 1, 2, 4, 5)
    x5 = gen(102, 1, 2, 3, 4, 4)
    x3 = gen(110, 2, 3, 9)
    out.append(case("avg_pool1d", lambda x: (aten.avg_pool1d(x, [3]), aten.avg_pool1d(x, [4], [2], [1], True, False),
                                              aten.avg_pool1d(x[0], [2], [3], [1], False, True)), x3))
    out.append(case("adaptive_avg_pool1d", lambda x: (aten.adaptive_avg_pool1d(x, [4]), aten.adaptive_avg_pool1d(x[1], [9]),
                                                       aten.adaptive_avg_pool1d(x.transpose(0, 1), [2])), x3))
    out.append(case("reflection_pad2d", lambda x: aten.reflection_pad2d(x, [1, 2, 3, 0]), x4))
    out.append(case("reflection_pad3d", lambda x: aten.reflection_pad3d(x, [1, 1, 2, 0, 0, 2]), x5))
    out.append(case("replication_pad3d", lambda x: aten.replication_pad3d(x, [2, 0, 1, 1, 0, 3]), x5))
    out.append(case("reflection_pad2d_backward", lambda g, x: aten.reflection_pad2d_backward(g, x, [1, 2, 3, 0]), gen(103, 1, 2, 7, 8), x4))
    out.append(case("replication_pad3d_backward", lambda g, x: aten.replication_pad3d_backward(g, x, [2, 0, 1, 1, 0, 3]), gen(104, 1, 2, 6, 6, 6), x5))
    out.append(case("upsample_nearest3d", lambda x: aten.upsample_nearest3d(x, [5, 6, 3]), x5))
    out.append(case("upsample_nearest_exact2d_scales", lambda x: aten._upsample_nearest_exact2d(x, [7, 9], 1.75, 1.8), x4))
    out.append(case("upsample_nearest_exact3d", lambda x: aten._upsample_nearest_exact3d(x, [4, 7, 5]), x5))
    out.append(case("upsample_nearest3d_backward", lambda g: aten.upsample_nearest3d_backward(g, [5, 6, 3], [1, 2, 3, 4, 4]), gen(105, 1, 2, 5, 6, 3)))
    out.append(case("rot90_transposed", lambda x: (aten.rot90(x.transpose(0, 1), 1, [0, 1]), aten.rot90(x, -1, [1, 2]), aten.rot90(x, 2, [0, 2])), gen(106, 3, 4, 2)))
    out.append(case("col2im_unbatched", lambda x: aten.col2im(x, [4, 5], [2, 2], [1, 1], [1, 0], [1, 2]), gen(107, 8, 10)))
    out.append(case("segment_reduce_axis1_offsets", lambda d, o: (aten.segment_reduce(d, "prod", offsets=o, axis=1), aten.segment_reduce(d, "min", offsets=o, axis=1, initial=0.5)),
                    gen(108, 2, 5, 3), torch.tensor([[0, 2, 2, 5], [0, 1, 4, 5]])))
    # Non-negative ints: a uint64 hash above 2**63 would not survive the JSON floats.
    out.append(case("hash_tensor_dim", lambda x: aten.hash_tensor(x, [1], keepdim=True), gen(109, 3, 4, dtype=torch.int64, lo=0, hi=9)))
    out.append(case("cummin_nan", lambda x: aten.cummin(x, 0), torch.tensor([3.0, 1.0, float("nan"), 0.5, 1.0, float("nan")])))
    out.append(case("histc_range", lambda x: aten.histc(x, 5, -1.0, 1.5), gen(110, 20)))
    out.append(case("searchsorted_sorter_right", lambda s, v, p: aten.searchsorted(s, v, side="right", sorter=p),
                    torch.tensor([5.0, 1.0, 3.0, 3.0]), torch.tensor([[3.0, 0.0], [6.0, 1.0]]), torch.tensor([1, 2, 3, 0])))
    out.append(case("mode_ties", lambda x: aten.mode(x, 1), torch.tensor([[2.0, 1.0, 2.0, 1.0], [0.0, 5.0, 5.0, 0.0]])))
    # embedding_bag's index outputs (offset2bag empty on the fast sum path,
    # bag_size zero in sum mode, max_indices) and both backward modes that
    # read them (mean: bag_size; max: max_indices, empty bags skipped)
    w, ix, offs = gen(111, 10, 4), torch.tensor([1, 2, 4, 5, 4, 3, 2, 9]), torch.tensor([0, 3, 3, 6])
    def bag(mode, pad):
        def f(w, i, o, g):
            r = aten._embedding_bag(w, i, o, False, mode, False, None, False, pad)
            return r + (aten._embedding_bag_backward(g, i, o, r[1], r[2], r[3], 10, False, mode, False, None, pad),)
        return f
    for name, mode, pad in (("sum", 0, -1), ("sum_padding", 0, 2), ("mean_padding", 1, 2), ("max", 2, -1)):
        out.append(case("embedding_bag_" + name, bag(mode, pad), w, ix, offs, gen(112, 4, 4)))
    # binary_cross_entropy_with_logits: plain mean, weight + pos_weight summed,
    # pos_weight unreduced
    out.append(case("binary_cross_entropy_with_logits",
                    lambda x, y, w, pw: (aten.binary_cross_entropy_with_logits(x, y),
                                         aten.binary_cross_entropy_with_logits(x, y, w, pw, 2),
                                         aten.binary_cross_entropy_with_logits(x, y, None, pw, 0)),
                    gen(113, 4, 8, lo=-4, hi=4), gen(114, 4, 8, lo=0, hi=1), gen(115, 8, lo=0, hi=2), gen(116, 8, lo=0, hi=3)))
    return out
