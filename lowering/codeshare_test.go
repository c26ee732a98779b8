package lowering

import (
	"cmp"
	"fmt"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kiln-compiler/kiln/frontend/fx"
	"github.com/kiln-compiler/kiln/internal/graphgen"
	"github.com/kiln-compiler/kiln/internal/testgraphs"
	"github.com/kiln-compiler/kiln/ir"
	"github.com/kiln-compiler/kiln/ir/sym"
	"github.com/kiln-compiler/kiln/ops"
	"github.com/kiln-compiler/kiln/passes"
)

// rebound is owner's kernel over k's buffers: what running owner's code
// with k.CallBuffers computes.
func rebound(owner, k *Kernel) *Kernel {
	params := owner.codeBuffers
	args := k.CallBuffers(params)
	to := func(b *Buffer) *Buffer {
		if b == nil {
			return nil
		}
		return args[slices.Index(params, b)]
	}
	out := *owner
	out.Name, out.Origins, out.SharesCode = k.Name, k.Origins, nil
	if e := owner.Extern; e != nil {
		x := *e
		x.Outs = slices.Clone(e.Outs)
		for i := range x.Outs {
			x.Outs[i].Buffer = to(x.Outs[i].Buffer)
		}
		x.Args = slices.Clone(e.Args)
		for i := range x.Args {
			x.Args[i].Buffer = to(x.Args[i].Buffer)
		}
		out.Extern = &x
	}
	out.Stages = make([]*Stage, len(owner.Stages))
	copied := map[*Instr]*Instr{} // across stages: a reduce's value is read by later ones
	for si, s := range owner.Stages {
		ns := &Stage{Reduce: s.Reduce}
		for _, in := range s.Body {
			c := *in
			c.Args = make([]*Instr, len(in.Args))
			for i, a := range in.Args {
				c.Args[i] = copied[a]
				if c.Args[i] == nil {
					c.Args[i] = a
				}
			}
			if in.Access != nil {
				a := *in.Access
				a.Buffer = to(a.Buffer)
				// indirect indices are this copy's instructions, not the owner's
				a.Indirect = make([]*Instr, len(in.Access.Indirect))
				for i, x := range in.Access.Indirect {
					a.Indirect[i] = cmp.Or(copied[x], x)
				}
				c.Access = &a
			}
			copied[in] = &c
			ns.Body = append(ns.Body, &c)
		}
		out.Stages[si] = ns
	}
	return &out
}

// viaSharedCode is p with every kernel that shares code replaced by the
// code it runs: its owner's kernel on its buffers.
func viaSharedCode(p *Program) *Program {
	q := *p
	q.Kernels = slices.Clone(p.Kernels)
	for i, k := range q.Kernels {
		if k.SharesCode != nil {
			q.Kernels[i] = rebound(k.SharesCode, k)
		}
	}
	return &q
}

// requireSharesFaithfully checks that each kernel that shares code prints
// as its owner rebound to its buffers: the same loops, the same
// instructions, its own buffers.
func requireSharesFaithfully(t *testing.T, name string, p *Program) int {
	t.Helper()
	shared := 0
	for _, k := range p.Kernels {
		if k.SharesCode == nil {
			continue
		}
		shared++
		require.Less(t, slices.Index(p.Kernels, k.SharesCode), slices.Index(p.Kernels, k), "%s: %s shares a later kernel's code", name, k.Name)
		var own, want strings.Builder
		writeKernelHeader(&own, rebound(k.SharesCode, k))
		writeKernelBody(&own, k)
		writeKernelHeader(&want, rebound(k.SharesCode, k))
		writeKernelBody(&want, rebound(k.SharesCode, k))
		require.Equal(t, want.String(), own.String(), "%s: %s runs %s's code", name, k.Name, k.SharesCode.Name)
		head, call, _ := strings.Cut(k.String(), "\n")
		require.True(t, strings.HasSuffix(head, " code="+k.SharesCode.Name), "%s: %s's header says whose code it runs: %q", name, k.Name, head)
		require.True(t, strings.HasPrefix(call, "  as "+k.SharesCode.Name), "%s: %s prints the call, not the body: %q", name, k.Name, call)
	}
	return shared
}

// Every graph of the corpus that lowers, fused, planned and shared: each
// kernel that runs an earlier kernel's code is that kernel on its own
// buffers, and where the test evaluator runs the program, running the
// shared code computes what the program computes.
func TestShareCodeCorpus(t *testing.T) {
	var programs, shared, evaluated int
	testgraphs.ForEach(t, "../testdata", func(tg testgraphs.Graph, gi int, g *ir.Graph) {
		p := fusedPlanned(t, g)
		if p == nil {
			return
		}
		name := fmt.Sprintf("%s#%d", tg.Name, gi)
		ShareCode(p)
		require.NoError(t, Verify(p), name)
		programs++
		n := requireSharesFaithfully(t, name, p)
		if n == 0 {
			return
		}
		shared += n
		env := map[string]int64{}
		for _, s := range p.Syms {
			env[s] = 4
		}
		want, why := schedTryRun(t, p, env)
		if why != "" {
			return
		}
		got, why := schedTryRun(t, viaSharedCode(p), env)
		require.Empty(t, why, name)
		t.Run(name, func(t *testing.T) { requireClose(t, want, got) })
		evaluated++
	})
	t.Logf("%d programs; %d kernels share code; %d programs with sharing evaluated", programs, shared, evaluated)
	assert.Greater(t, shared, 50, "corpus models repeat their layers")
	assert.GreaterOrEqual(t, evaluated, 2)
}

// fusedPlanned runs the default passes, lowers, fuses and plans g; nil when
// any step refuses it (other tests report those).
func fusedPlanned(t *testing.T, g *ir.Graph) *Program {
	pipe, err := passes.Parse("fakeprop,functionalize,decompose,align,dce")
	require.NoError(t, err)
	ctx := passes.NewContext(passes.Config{})
	if _, err := (&passes.Manager{}).Run(pipe, ctx, g); err != nil || ctx.Diags.HasErrors() {
		return nil
	}
	p, err := Lower(g, Options{})
	if err != nil || Verify(p) != nil {
		return nil
	}
	if _, err := Fuse(p, FuseOptions{}); err != nil {
		return nil
	}
	PlanBuffers(p) // ShareCode is the tests' to call
	return p
}

// A generated transformer: its layers repeat, so most kernels share.
func TestShareCodeRepeatedLayers(t *testing.T) {
	src := graphgen.Blocks(graphgen.Config{Nodes: 3000})
	res, err := fx.Parse("blocks.fx", []byte(src), fx.Options{Lookup: ops.LookupSchema})
	require.NoError(t, err)
	p := fusedPlanned(t, res.Module.Graphs[0])
	require.NotNil(t, p)
	n := ShareCode(p)
	requireSharesFaithfully(t, "blocks", p)
	owners := len(p.Kernels) - n
	require.Greater(t, n, 2*owners, "of %d kernels, %d have code of their own", len(p.Kernels), owners)
	require.Contains(t, strings.Join(p.Remarks, "\n"), fmt.Sprintf("code sharing: %d of %d kernels", n, len(p.Kernels)))
	// Sharing is a function of the program: again gives the same.
	before := make([]*Kernel, len(p.Kernels))
	for i, k := range p.Kernels {
		before[i] = k.SharesCode
	}
	require.Equal(t, n, ShareCode(p))
	for i, k := range p.Kernels {
		require.Same(t, before[i], k.SharesCode)
	}
}

// On every core, chunk by chunk, ShareCode finds what one pass in program
// order finds: each kernel shares the first kernel of its shape.
func TestShareCodeChunkedIsSerial(t *testing.T) {
	if testing.Short() {
		t.Skip("fuses a 30k-node graph")
	}
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(4))
	src := graphgen.Blocks(graphgen.Config{Nodes: 30000})
	res, err := fx.Parse("blocks.fx", []byte(src), fx.Options{Lookup: ops.LookupSchema})
	require.NoError(t, err)
	p := fusedPlanned(t, res.Module.Graphs[0])
	require.NotNil(t, p)
	require.Greater(t, chunks(len(p.Kernels)), 1, "%d kernels: one chunk", len(p.Kernels))
	n := ShareCode(p)
	first := map[string]*Kernel{}
	want := 0
	for _, k := range p.Kernels {
		shape, _ := codeShape(nil, k)
		owner, ok := first[string(shape)]
		if !ok {
			first[string(shape)] = k
		}
		require.Same(t, owner, k.SharesCode, k.Name)
		if ok {
			want++
		}
	}
	require.Equal(t, want, n)
	require.NoError(t, Verify(p))
}

// Kernels alike but for what the code reads of a buffer (its element type,
// where its memory comes from, its alignment, its size) or for an index do
// not share; alike but for buffer IDs and names, they do, and the call
// passes each buffer where its counterpart stands whatever the IDs' order.
func TestShareCodeTellsBuffersApart(t *testing.T) {
	b := newSchedBuilder("twins")
	x := b.input("x", 8, 4)
	y := b.input("y", 8, 4)
	first := b.pointwise("first", "sub", x, y)
	second := b.pointwise("second", "sub", y, x) // operands swapped: y is read first
	b.output(first)
	b.output(second)
	p := b.p
	require.Equal(t, 1, ShareCode(p))
	k0, k1 := p.Kernels[0], p.Kernels[1]
	require.Same(t, k0, k1.SharesCode)
	params := []*Buffer{x.buf, y.buf, first.buf} // the order code lists k0's buffers in
	require.Equal(t, []*Buffer{y.buf, x.buf, second.buf}, k1.CallBuffers(params))
	require.Equal(t, params, k0.CallBuffers(params))
	require.Equal(t, "kernel1 pointwise origins=[second] code=kernel0\n  as kernel0 with x=y, y=x, buf2=buf3\n", k1.String())
	b.pointwise("third", "mul", second, x) // reads second
	b.output(schedT{p.Buffers[len(p.Buffers)-1], first.lay})
	requireClose(t, schedRun(t, p, nil, 3), schedRun(t, viaSharedCode(p), nil, 3))

	require.NoError(t, Verify(p))
	k1.Outer = dims(8, 2) // changed after sharing: Verify catches it
	require.ErrorContains(t, Verify(p), "kernel1 shares the code of kernel0, but the two kernels differ in more than their buffers")
	k1.Outer = k0.Outer
	k0.SharesCode = k1
	require.ErrorContains(t, Verify(p), "kernel0 shares the code of kernel1, which is not an earlier kernel of the program")
	k0.SharesCode = nil
	z := b.input("z", 8, 4) // kernel1 reads z where it read y: same shape, other buffers
	k1.Stages[0].Body[0].Access.Buffer = z.buf
	require.ErrorContains(t, Verify(p), "kernel1 shares the code of kernel0, but its buffers changed after ShareCode")
	k1.Stages[0].Body[0].Access.Buffer = y.buf
	require.NoError(t, Verify(p))

	for _, change := range []struct {
		what  string
		apply func()
		undo  func()
	}{
		{"dtype", func() { second.buf.DType = ir.F64 }, func() { second.buf.DType = ir.F32 }},
		{"kind", func() { second.buf.Kind = BufIntermediate }, func() { second.buf.Kind = BufOutput }},
		{"align", func() { y.buf.Align = 4 }, func() { y.buf.Align = 64 }},
		{"size", func() { second.buf.Size = sym.Add(second.buf.Size, sym.Const(1)) }, func() { second.buf.Size = first.buf.Size }},
		{"index", func() {
			k1.Stages[0].Body[0].Access.Index = sym.Add(k1.Stages[0].Body[0].Access.Index, sym.Const(1))
		}, func() {
			k1.Stages[0].Body[0].Access.Index = k0.Stages[0].Body[0].Access.Index
		}},
	} {
		change.apply()
		require.Zero(t, ShareCode(p), change.what)
		require.Nil(t, k1.SharesCode, change.what)
		change.undo()
		require.Equal(t, 1, ShareCode(p), change.what)
	}
}

// codeShape must see every field of the loop IR that code depends on.
// When a field is added to one of these types, decide whether generated
// code reads it (then write it in codeShape) and list it here.
func TestCodeShapeCoversEveryField(t *testing.T) {
	inShape := map[string][]string{
		"Kernel":  {"Outer", "Stages", "Extern", "Vec", "Serial", "Split"},
		"Stage":   {"Reduce", "Body"},
		"Instr":   {"ID", "Op", "DType", "Reduce", "Args", "Access", "Imm", "Expr", "Fn", "Check"},
		"Access":  {"Buffer", "DType", "Index", "Indirect"},
		"Scalar":  {"Int", "Float", "Bool"},
		"Check":   {"Neg", "Msg"},
		"Extern":  {"Op", "Args", "Params", "Outs"},
		"Operand": {"Buffer", "Layout"},
		"Layout":  {"DType", "Shape", "Strides", "Offset"},
		"Buffer":  {"DType", "Size", "Kind", "Align"},
	}
	labels := map[string][]string{ // what only names or places the code
		"Kernel": {"Name", "Origins", "SharesCode", "codeBuffers"},
		"Buffer": {"ID", "Name", "ReuseOf"},
	}
	for _, v := range []any{Kernel{}, Stage{}, Instr{}, Access{}, Scalar{}, Check{}, Extern{}, Operand{}, Layout{}, Buffer{}} {
		typ := reflect.TypeOf(v)
		var fields []string
		for f := range typ.Fields() {
			fields = append(fields, f.Name)
		}
		known := append(slices.Clone(inShape[typ.Name()]), labels[typ.Name()]...)
		assert.ElementsMatch(t, known, fields, "%s: a field codeShape does not know about", typ.Name())
	}
}
