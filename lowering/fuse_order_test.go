package lowering

import (
	"testing"

	"github.com/kiln-compiler/kiln/ir"
	"github.com/kiln-compiler/kiln/ir/sym"
	"github.com/stretchr/testify/require"
)

// transposedCopy is a [4, 6] kernel that loads src at load and stores
// dst at store.
func transposedCopy(src, dst *Buffer, load, store sym.Expr) *Kernel {
	ld := &Instr{ID: 0, Op: OpLoad, DType: ir.F32, Access: &Access{Buffer: src, DType: ir.F32, Index: load}}
	st := &Instr{ID: 1, Op: OpStore, DType: ir.F32, Args: []*Instr{ld}, Access: &Access{Buffer: dst, DType: ir.F32, Index: store}}
	return &Kernel{Name: "kernel0", Outer: []sym.Expr{sym.Const(4), sym.Const(6)}, Vec: 2,
		Stages: []*Stage{{Body: []*Instr{ld, st}}}}
}

// TestStoreInner: a kernel whose store moves along x0 gets x0 innermost
// (loops swapped, indices renamed, the align pass's width dropped, a
// remark); one whose store is contiguous already, or that reads the
// buffer it writes, keeps its loops.
func TestStoreInner(t *testing.T) {
	x0, x1 := sym.Symbol("x0"), sym.Symbol("x1")
	a := &Buffer{ID: 0, Name: "a", DType: ir.F32, Size: sym.Const(24)}
	b := &Buffer{ID: 1, Name: "b", DType: ir.F32, Size: sym.Const(24)}
	rowMajor := sym.Add(sym.Mul(x0, sym.Const(6)), x1) // 6*x0 + x1
	colMajor := sym.Add(x0, sym.Mul(x1, sym.Const(4))) // x0 + 4*x1

	p := &Program{Kernels: []*Kernel{transposedCopy(a, b, rowMajor, colMajor)}}
	storeInner(p)
	k := p.Kernels[0]
	require.Equal(t, "[6, 4]", sizesString(k.Outer))
	require.Equal(t, sym.Add(x1, sym.Mul(x0, sym.Const(4))).Code(), k.Stages[0].Body[1].Access.Index.Code(), "the store runs along the innermost loop")
	require.Equal(t, sym.Add(sym.Mul(x1, sym.Const(6)), x0).Code(), k.Stages[0].Body[0].Access.Index.Code(), "the load follows the rename")
	require.Equal(t, 1, k.Vec)
	require.Len(t, p.Remarks, 1)
	require.Contains(t, p.Remarks[0], "swapped")

	for name, k := range map[string]*Kernel{
		"contiguous store":     transposedCopy(a, b, colMajor, rowMajor),
		"reads what it writes": transposedCopy(b, b, rowMajor, colMajor),
	} {
		p := &Program{Kernels: []*Kernel{k}}
		storeInner(p)
		require.Equal(t, "[4, 6]", sizesString(k.Outer), name)
		require.Empty(t, p.Remarks, name)
	}
}
