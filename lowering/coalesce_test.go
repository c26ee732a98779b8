package lowering_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/kiln-compiler/kiln/lowering"
)

// Coalesced merges a pointwise kernel's innermost loops as far as every
// index walks them as one row-major block, and the coalesced program
// computes what interp computes (loopEval, the loop IR's evaluator, runs
// it). Each kernel below says which of its loops merge, and why the
// others do not.
func TestCoalesced(t *testing.T) {
	for _, tc := range []struct {
		name, src string
		outer     string // the fused kernel's loops after coalescing
	}{{
		name: "a contiguous chain is one loop",
		src: `class G(torch.nn.Module):
    def forward(self, x: "f32[4, 6][6, 1]cpu"):
        mul: "f32[4, 6][6, 1]cpu" = torch.ops.aten.mul.Tensor(x, 2)
        exp: "f32[4, 6][6, 1]cpu" = torch.ops.aten.exp.default(mul)
        return (exp,)
`,
		outer: "for x0 < 24:",
	}, {
		name: "a row bias read by x1 alone keeps the rows",
		src: `class G(torch.nn.Module):
    def forward(self, x: "f32[4, 6][6, 1]cpu", b: "f32[6][1]cpu"):
        add: "f32[4, 6][6, 1]cpu" = torch.ops.aten.add.Tensor(x, b)
        return (add,)
`,
		outer: "for x0 < 4, x1 < 6:",
	}, {
		name: "a per-channel read keeps the channel loop, the pixels merge",
		src: `class G(torch.nn.Module):
    def forward(self, x: "f32[2, 3, 4, 5][60, 20, 5, 1]cpu", m: "f32[3, 1, 1][1, 1, 1]cpu"):
        sub: "f32[2, 3, 4, 5][60, 20, 5, 1]cpu" = torch.ops.aten.sub.Tensor(x, m)
        return (sub,)
`,
		outer: "for x0 < 2, x1 < 3, x2 < 20:",
	}, {
		name: "a transposed read keeps both loops",
		src: `class G(torch.nn.Module):
    def forward(self, x: "f32[4, 6][6, 1]cpu", y: "f32[6, 4][4, 1]cpu"):
        t: "f32[4, 6][1, 4]cpu" = torch.ops.aten.t.default(y)
        add: "f32[4, 6][6, 1]cpu" = torch.ops.aten.add.Tensor(x, t)
        return (add,)
`,
		outer: "for x0 < 4, x1 < 6:",
	}, {
		name: "an arange's index merges with the loads",
		src: `class G(torch.nn.Module):
    def forward(self, x: "f32[4, 6][6, 1]cpu"):
        arange: "f32[24][1]cpu" = torch.ops.aten.arange.default(24, dtype = torch.float32, device = device(type='cpu'), pin_memory = False)
        view: "f32[4, 6][6, 1]cpu" = torch.ops.aten.view.default(arange, [4, 6])
        add: "f32[4, 6][6, 1]cpu" = torch.ops.aten.add.Tensor(x, view)
        return (add,)
`,
		outer: "for x0 < 24:",
	}, {
		name: "an embedding's gathered rows keep the token loop",
		src: `class G(torch.nn.Module):
    def forward(self, w: "f32[10, 6][6, 1]cpu", idx: "i64[4][1]cpu"):
        embedding: "f32[4, 6][6, 1]cpu" = torch.ops.aten.embedding.default(w, idx)
        mul: "f32[4, 6][6, 1]cpu" = torch.ops.aten.mul.Tensor(embedding, 2)
        return (mul,)
`,
		outer: "for x0 < 4, x1 < 6:",
	}, {
		name: "a symbolic batch merges with its rows",
		src: `class G(torch.nn.Module):
    def forward(self, s0: "Sym(s0)", x: "f32[s0, 6][6, 1]cpu"):
        mul: "f32[s0, 6][6, 1]cpu" = torch.ops.aten.mul.Tensor(x, 2)
        return (mul,)
`,
		outer: "for x0 < 6*s0:",
	}} {
		t.Run(tc.name, func(t *testing.T) {
			p := runChecked(t, tc.src, checkOpts{fuse: true, coalesce: true,
				override: intInputs(map[string][]int64{"idx": {3, 0, 9, 3}})})
			var loops []string
			for _, k := range p.Kernels {
				if k.Kind() == lowering.KernelPointwise {
					loops = append(loops, kernelLoops(p, k))
				}
			}
			require.Equal(t, []string{tc.outer}, loops, "%s", p)
		})
	}
}

// A reduction's outer loops keep their shape (its stages index them).
func TestCoalescedLeavesReductions(t *testing.T) {
	p := runChecked(t, `class G(torch.nn.Module):
    def forward(self, x: "f32[2, 3, 4][12, 4, 1]cpu"):
        sum_1: "f32[2, 3][3, 1]cpu" = torch.ops.aten.sum.dim_IntList(x, [2])
        return (sum_1,)
`, checkOpts{fuse: true, coalesce: true, override: intInputs(nil)})
	require.Len(t, p.Kernels, 1)
	require.Equal(t, "for x0 < 2, x1 < 3:", kernelLoops(p, p.Kernels[0]))
}

// kernelLoops is the loop line of k in p's printout ("for x0 < 4, x1 < 6:").
func kernelLoops(p *lowering.Program, k *lowering.Kernel) string {
	text := p.String()
	i := strings.Index(text, "\n"+k.Name+" ")
	if i < 0 {
		return ""
	}
	for _, line := range strings.Split(text[i+1:], "\n")[1:] {
		if strings.HasPrefix(line, "  for ") {
			return strings.TrimSpace(line)
		}
	}
	return ""
}
