"""suggest_memory_format on many shapes and strides, as PyTorch computes it.

    python3 tools/memformat/gen.py > testdata/memformat/cases.json

torch._prims_common.suggest_memory_format is the Python twin of
Tensor.suggest_memory_format() (c10's is_channels_last_strides_2d_s4 /
_3d_s5): ops.SuggestMemoryFormat must agree with it on every case, the
ambiguous ones (size-1 channels, N111, permuted 1C1W) included.
"""

import itertools
import json
import random
import sys

import torch
import torch._prims_common as prims

FORMATS = {torch.contiguous_format: "contiguous_format", torch.channels_last: "channels_last",
           torch.channels_last_3d: "channels_last_3d"}


def dense_strides(shape, order):
    """Strides of a dense layout with dims innermost first in order."""
    st, acc = [0] * len(shape), 1
    for d in order:
        st[d] = acc
        acc *= max(shape[d], 1)
    return st


def cases():
    rng = random.Random(0)
    out = []
    for rank in (3, 4, 5):
        for shape in itertools.product((0, 1, 2, 3), repeat=rank):
            if rng.random() > 0.35:
                continue
            orders = list(itertools.permutations(range(rank)))
            picked = rng.sample(orders, min(3, len(orders))) + [tuple(range(rank))]
            if rank >= 4:  # channels-last: outermost N, the spatial dims, C innermost
                picked.append((0,) + tuple(range(2, rank)) + (1,))
            for order in picked:
                st = dense_strides(shape, order[::-1])
                if rng.random() < 0.3:  # a size-1 dim's stride is free
                    ones = [d for d in range(rank) if shape[d] == 1]
                    if ones:
                        st[rng.choice(ones)] = rng.choice([1, 3, 7])
                n = 1 + sum((s - 1) * abs(t) for s, t in zip(shape, st) if s > 0)
                x = torch.empty(max(n, 1)).as_strided(shape, st)
                out.append({"shape": list(shape), "strides": st, "format": FORMATS[prims.suggest_memory_format(x)]})
    return out


def main():
    json.dump({"torch": torch.__version__, "generator": "tools/memformat/gen.py", "cases": cases()}, sys.stdout)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
