package lowering

import (
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kiln-compiler/kiln/ir"
	"github.com/kiln-compiler/kiln/ir/sym"
)

// scatterPair is the graph of testdata/fusion/scatter_serial.txtar, plus
// extra lines before the return and extra outputs.
func scatterPair(extra, outs string) string {
	return `class GraphModule(torch.nn.Module):
    def forward(self, x: "f32[3, 4][4, 1]cpu", ix: "i64[2, 4][4, 1]cpu", s: "f32[2, 4][4, 1]cpu"):
        a: "f32[3, 4][4, 1]cpu" = torch.ops.aten.scatter.src(x, 0, ix, s)
        b: "f32[3, 4][4, 1]cpu" = torch.ops.aten.scatter_add.default(x, 0, ix, s)
` + extra + `        return (a, b` + outs + `)
`
}

const scatterPipeline = "fakeprop,functionalize,decompose,align,dce"

var indexEnv = map[string]int64{intRangeKey: 3}

// lowerFX lowers src through scatterPipeline.
func lowerFX(t *testing.T, src string) *Program {
	g := schedCompile(t, "scatter.fx", src, scatterPipeline)
	p, err := Lower(g, Options{Name: "g"})
	require.NoError(t, err)
	require.NoError(t, Verify(p))
	return p
}

// Lowering gives scatter_add's load and store one Indirect list. With the
// kernel's Serial flag cleared (as if its indices were known distinct),
// the scheduler fuses it after scatter.src and forwards its load of ix to
// scatter.src's: both accesses must then name scatter.src's tmp, in the
// list and in the index.
func TestFuseRenamesSharedIndirectList(t *testing.T) {
	p := lowerFX(t, scatterPair("", ""))
	shared := false
	for _, k := range p.Kernels {
		k.Serial = false
		var lists [][]*Instr
		for _, in := range k.Stages[0].Body {
			if in.Access != nil && len(in.Access.Indirect) > 0 {
				lists = append(lists, in.Access.Indirect)
			}
		}
		shared = shared || len(lists) == 2 && &lists[0][0] == &lists[1][0]
	}
	require.True(t, shared, "the lowering no longer shares the list; this test needs another way in:\n%s", p)
	stats := fuseChecked(t, p, FuseOptions{}, indexEnv)
	assert.Equal(t, 2, stats.KernelsAfter, "%s", p)
	k := p.Kernels[1]
	var indirect []*Instr
	for _, in := range k.Stages[0].Body {
		if in.Access != nil && len(in.Access.Indirect) > 0 {
			require.Len(t, in.Access.Indirect, 1)
			assert.Equal(t, []string{"tmp" + itoa(in.Access.Indirect[0].ID), "x1"}, in.Access.Index.Free(), "%s", in)
			indirect = append(indirect, in.Access.Indirect[0])
		}
	}
	require.Len(t, indirect, 3, "%s", k) // scatter.src's store, scatter_add's load and store
	assert.Same(t, indirect[0], indirect[1])
	assert.Same(t, indirect[0], indirect[2])
}

// A kernel over the serial group's space that reads its inputs and
// nothing it accumulates into joins it (Inductor's index_add backward:
// the scatter and the gradient's gather in one loop); the fused kernel
// stays serial, unvectorized, with both origins.
func TestFuseSerialGroupTakesIndependentWork(t *testing.T) {
	p := lowerFX(t, scatterPair(`        c: "f32[2, 4][4, 1]cpu" = torch.ops.aten.mul.Tensor(s, 2)
`, ", c"))
	fuseChecked(t, p, FuseOptions{}, indexEnv)
	var serial []*Kernel
	for _, k := range p.Kernels {
		if k.Serial {
			serial = append(serial, k)
		}
	}
	require.Len(t, serial, 1, "%s", p)
	assert.Equal(t, []string{"b", "c"}, serial[0].Origins)
	assert.Equal(t, 1, serial[0].Vec)
	assert.NotEmpty(t, remarksWith(p, "fused kernel4 (c) into kernel3 (b): same iteration space [2, 4]"), "%s", p)
}

// Fusing a gather of the scatter-add's result through the same index
// would be wrong (an early iteration would read an element later ones
// still add into): it is refused with a remark, and runs after the serial
// kernel (joined to the plain put a, which moves after b: sinkToLast).
func TestFuseSerialGroupRefusesItsReader(t *testing.T) {
	p := lowerFX(t, scatterPair(`        d: "f32[2, 4][4, 1]cpu" = torch.ops.aten.gather.default(b, 0, ix)
`, ", d"))
	fuseChecked(t, p, FuseOptions{}, indexEnv)
	serialAt, readerAt := -1, -1
	for i, k := range p.Kernels {
		if k.Serial {
			assert.Equal(t, []string{"b"}, k.Origins)
			serialAt = i
		}
		if slices.Contains(k.Origins, "d") {
			readerAt = i
		}
	}
	require.True(t, serialAt >= 0 && readerAt > serialAt, "the gather runs after the serial kernel:\n%s", p)
	assert.NotEmpty(t, remarksWith(p, "kernel4 (d) not fused into kernel3 (b): it reads buf4"), "%s", p)
}

// A reduction over the serial kernel's space stays out of it: its loop
// would run on the serial kernel's one thread, where pointwise work only
// adds a constant to each iteration.
func TestFuseSerialGroupRefusesReduction(t *testing.T) {
	p := lowerFX(t, scatterPair(`        u: "f32[2, 4, 1][4, 1, 1]cpu" = torch.ops.aten.unsqueeze.default(s, 2)
        ex: "f32[2, 4, 5][4, 1, 0]cpu" = torch.ops.aten.expand.default(u, [2, 4, 5])
        e: "f32[2, 4][4, 1]cpu" = torch.ops.aten.sum.dim_IntList(ex, [2])
`, ", e"))
	fuseChecked(t, p, FuseOptions{}, indexEnv)
	for _, k := range p.Kernels {
		if k.Serial {
			assert.Equal(t, []string{"b"}, k.Origins, "%s", p)
		}
	}
	assert.NotEmpty(t, remarksWith(p, "it is a reduction, and the group is serial"), "%s", p)
}

// A serial kernel's loops keep their order: fusion never reorders them to
// match a group (the accumulation order would change), so a scatter-add
// whose space only matches a transposed one stays apart.
func TestFuseSerialKernelIsNotReordered(t *testing.T) {
	g := &Kernel{Outer: []sym.Expr{sym.Const(4), sym.Const(4)}, Stages: []*Stage{{}}}
	c := &Kernel{Outer: []sym.Expr{sym.Const(4), sym.Const(4)}, Stages: []*Stage{{}}, Serial: true}
	pl, why := matchSpaces(g, c)
	assert.Empty(t, why)
	assert.Nil(t, pl.cRename, "the serial kernel keeps loop order")
	c.Outer = []sym.Expr{sym.Const(4), sym.Const(3)}
	g.Outer = []sym.Expr{sym.Const(3), sym.Const(4)}
	_, why = matchSpaces(g, c)
	assert.Equal(t, serialReordered, why)
	c.Serial, g.Serial = false, true
	_, why = matchSpaces(g, c)
	assert.Empty(t, why, "a parallel kernel may be reordered into a serial group")
	c.Stages = []*Stage{{Reduce: []sym.Expr{sym.Const(4)}}}
	c.Outer = []sym.Expr{sym.Const(3)}
	_, why = matchSpaces(g, c)
	assert.Equal(t, serialResplit, why)
}

// Serial survives when it is the only kernel, and Fuse never clears it.
func TestFuseKeepsLoneSerialKernel(t *testing.T) {
	p := lowerFX(t, scatterPair("", ""))
	fuseChecked(t, p, FuseOptions{}, indexEnv)
	n := 0
	for _, k := range p.Kernels {
		if k.Serial {
			n++
			assert.Equal(t, []string{"b"}, k.Origins)
		}
	}
	assert.Equal(t, 1, n, "%s", p)
	assert.NotEmpty(t, remarksWith(p, "kernel3 (b) not fused into kernel1 (a): it is serial, and the group stores through an indirect index without accumulating"), "%s", p)
}

// A kernel that writes, through an indirect index, a buffer the group
// reads at that index must not join it: another iteration may hold the
// same index and read after this one wrote.
func TestFuseIndirectOverwriteIsBarrier(t *testing.T) {
	i64 := ir.I64
	p := &Program{Name: "war"}
	buf := func(name string, dt ir.DType, kind BufferKind) *Buffer {
		b := &Buffer{ID: len(p.Buffers), Name: name, DType: dt, Size: sym.Const(4), Kind: kind, Align: 64}
		p.Buffers = append(p.Buffers, b)
		return b
	}
	x, ix, v := buf("x", ir.F32, BufInput), buf("ix", i64, BufInput), buf("v", ir.F32, BufInput)
	out := buf("buf3", ir.F32, BufOutput)
	lay := contiguousLayout(dims(4))
	p.Inputs = []*Param{{Name: "x", Buffer: x, Layout: lay, Mutated: true},
		{Name: "ix", Buffer: ix, Layout: Layout{DType: i64, Shape: lay.Shape, Strides: lay.Strides, Offset: lay.Offset}},
		{Name: "v", Buffer: v, Layout: lay}}
	p.Outputs = []*Result{{Name: "y", Buffer: out, Layout: lay}}
	x0 := sym.Symbol("x0")
	loadIndex := func() *Instr {
		return &Instr{ID: 0, Op: OpLoad, DType: i64, Access: &Access{Buffer: ix, DType: i64, Index: x0}}
	}
	t0 := loadIndex()
	ld := &Instr{ID: 1, Op: OpLoad, DType: ir.F32, Access: &Access{Buffer: x, DType: ir.F32, Index: sym.Symbol("tmp0"), Indirect: []*Instr{t0}}}
	st := &Instr{ID: 2, Op: OpStore, DType: ir.F32, Args: []*Instr{ld}, Access: &Access{Buffer: out, DType: ir.F32, Index: x0}}
	u0 := loadIndex()
	val := &Instr{ID: 1, Op: OpLoad, DType: ir.F32, Access: &Access{Buffer: v, DType: ir.F32, Index: x0}}
	put := &Instr{ID: 2, Op: OpStore, DType: ir.F32, Args: []*Instr{val}, Access: &Access{Buffer: x, DType: ir.F32, Index: sym.Symbol("tmp0"), Indirect: []*Instr{u0}}}
	p.Kernels = []*Kernel{
		{Name: "kernel0", Outer: dims(4), Origins: []string{"y"}, Vec: 1, Stages: []*Stage{{Body: []*Instr{t0, ld, st}}}},
		{Name: "kernel1", Outer: dims(4), Origins: []string{"copy_"}, Vec: 1, Stages: []*Stage{{Body: []*Instr{u0, val, put}}}},
	}
	fuseChecked(t, p, FuseOptions{}, indexEnv)
	assert.Len(t, p.Kernels, 2, "%s", p)
	assert.NotEmpty(t, remarksWith(p, "through an indirect index"), "%s", p)
}
