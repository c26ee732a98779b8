package lowering

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kiln-compiler/kiln/ir"
	"github.com/kiln-compiler/kiln/ir/sym"
)

// serialSplitOf lowers and fuses src and returns the Split of its one
// serial kernel.
func serialSplitOf(t *testing.T, src string) []int {
	t.Helper()
	p := lowerFX(t, src)
	fuseChecked(t, p, FuseOptions{}, indexEnv)
	var split []int
	n := 0
	for _, k := range p.Kernels {
		if k.Serial {
			split = k.Split
			n++
		}
	}
	require.Equal(t, 1, n, "one serial kernel:\n%s", p)
	return split
}

// The dims a serial kernel may be split along, as its store index proves
// them: the column of index_add along dim 0 (7*ind + x1: x1 is the element
// modulo 7), the row of a scatter_add along dim 1 (ind + 7*x0 with ind
// checked in [0, 7): x0 is the element divided by 7), the row of an
// index_put accumulate along dim 1 whose index may be negative (wrapped
// into [0, 5) before the store), and none for a store whose element the
// index alone picks.
func TestSerialSplit(t *testing.T) {
	head := "class GraphModule(torch.nn.Module):\n    def forward(self, "
	for _, tc := range []struct {
		name, src string
		want      []int
	}{
		{"index_add dim 0", head + `x: "f32[6, 7][7, 1]cpu", ix: "i64[4][1]cpu", s: "f32[4, 7][7, 1]cpu"):
        y: "f32[6, 7][7, 1]cpu" = torch.ops.aten.index_add.default(x, 0, ix, s)
        return (y,)
`, []int{1}},
		{"scatter_add dim 1", head + `x: "f32[6, 7][7, 1]cpu", ix: "i64[6, 3][3, 1]cpu", s: "f32[6, 3][3, 1]cpu"):
        y: "f32[6, 7][7, 1]cpu" = torch.ops.aten.scatter_add.default(x, 1, ix, s)
        return (y,)
`, []int{0}},
		{"index_put accumulate dim 1, negative indices", head + `x: "f32[3, 5][5, 1]cpu", ix: "i64[4][1]cpu", v: "f32[3, 4][4, 1]cpu"):
        y: "f32[3, 5][5, 1]cpu" = torch.ops.aten.index_put.default(x, [None, ix], v, True)
        return (y,)
`, []int{0}},
		{"index_put accumulate, one index per element", head + `x: "f32[12][1]cpu", ix: "i64[4][1]cpu", v: "f32[4][1]cpu"):
        y: "f32[12][1]cpu" = torch.ops.aten.index_put.default(x, [ix], v, True)
        return (y,)
`, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, serialSplitOf(t, tc.src))
		})
	}
}

// apart's two arguments on hand-made indexes: a column picked modulo the
// gcd of the other coefficients (2*x1 + 8*ind apart along x1 for 4
// columns, not 5), and a row picked by division (8*x0 + ind apart for ind
// in [0, 8), not [0, 9)).
func TestSerialSplitApart(t *testing.T) {
	ix := &Buffer{Name: "ix", DType: ir.I64, Size: sym.Const(64)}
	out := &Buffer{Name: "out", DType: ir.F32, Size: sym.Const(1024)}
	kernel := func(outer []int64, bound int64, index func(ind sym.Expr) sym.Expr) (*Kernel, *Access) {
		ld := &Instr{ID: 0, Op: OpLoad, DType: ir.I64, Access: &Access{Buffer: ix, DType: ir.I64, Index: sym.Symbol("x0")}}
		chk := &Instr{ID: 1, Op: OpCheck, Args: []*Instr{ld}, Expr: sym.Const(bound), Check: &Check{}}
		a := &Access{Buffer: out, DType: ir.F32, Index: index(sym.Symbol("tmp0")), Indirect: []*Instr{ld}}
		k := &Kernel{Serial: true, Vec: 1, Stages: []*Stage{{Body: []*Instr{ld, chk}}}}
		for _, n := range outer {
			k.Outer = append(k.Outer, sym.Const(n))
		}
		return k, a
	}
	col := func(ind sym.Expr) sym.Expr {
		return sym.Add(sym.Mul(sym.Const(2), sym.Symbol("x1")), sym.Mul(sym.Const(8), ind))
	}
	k, a := kernel([]int64{3, 4}, 100, col)
	assert.True(t, apart(k, a, 1))
	assert.False(t, apart(k, a, 0), "x0 is not in the index")
	k, a = kernel([]int64{3, 5}, 100, col)
	assert.False(t, apart(k, a, 1))
	row := func(ind sym.Expr) sym.Expr { return sym.Add(sym.Mul(sym.Const(8), sym.Symbol("x0")), ind) }
	k, a = kernel([]int64{3}, 8, row)
	assert.True(t, apart(k, a, 0))
	k, a = kernel([]int64{3}, 9, row)
	assert.False(t, apart(k, a, 0))
}
