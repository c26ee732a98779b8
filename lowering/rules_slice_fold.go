package lowering

import (
	"fmt"
	"strings"

	"github.com/kiln-compiler/kiln/ir"
	"github.com/kiln-compiler/kiln/ir/sym"
	"github.com/kiln-compiler/kiln/ops"
)

// Reading a slice of a slice_scatter. Functionalization writes an in-place
// update of a view back into its base (x.add_(y) on a piece of addmm's
// result: slice_scatter(base, add, 1, 0, 4)) and reads every later view of
// the base from the scatter (slice(slice_scatter, 1, 4, 8)). Over the
// scatter's own range such a slice IS the scattered source; over a range
// disjoint from it, it IS the same slice of the scatter's base. Inductor
// reaches the same value by simplifying the scatter's where over the
// slice's index range; here the view is resolved when it is lowered, so
// it reads the source (or the base) where it lives and the scatter is not
// computed at all when nothing else reads it. Lowering owns layouts, so a
// slice that becomes its source takes the source's layout (not the
// strided one its type gives over the scatter's storage); a view of it is
// placed by the view's meta rule over that layout (lowerView).

// sliceRange is a constant slice along dim: [start, end) by step, start and
// end clamped to the dim as PyTorch clamps them.
type sliceRange struct {
	dim              int
	start, end, step int64
}

// constSliceRange reads the range of a slice or slice_scatter call over a
// base of the given shape; ok is false for a symbolic size, bound or step.
func constSliceRange(c *ops.Call, shape []sym.Expr) (sliceRange, bool) {
	d, err := dimArg(c, "dim", len(shape))
	if err != nil {
		return sliceRange{}, false
	}
	size, ok := shape[d].Const()
	if !ok {
		return sliceRange{}, false
	}
	bound := func(name string, def int64) (int64, bool) {
		if c.IsNone(name) {
			return def, true
		}
		e, err := c.SymInt(name)
		if err != nil {
			return 0, false
		}
		v, ok := e.Const()
		if !ok {
			return 0, false
		}
		if v < 0 {
			v += size
		}
		return min(max(v, 0), size), true
	}
	start, ok1 := bound("start", 0)
	end, ok2 := bound("end", size)
	step, err := c.Int("step")
	if !ok1 || !ok2 || err != nil || step < 1 {
		return sliceRange{}, false
	}
	return sliceRange{dim: d, start: start, end: max(end, start), step: step}, true
}

// maxFoldDepth bounds the scatters one slice is followed through, so that
// a chain of n scatters (a loop writing rows one by one) costs n·64 steps,
// not n².
const maxFoldDepth = 64

// sliceFold is what a slice of a slice_scatter reads: the value target
// itself (identity: a scatter's source) or the slice r of target.
type sliceFold struct {
	target   *ir.Value
	identity bool
	r        sliceRange
}

// resolveSliceOfScatter follows a slice of a slice_scatter down the chain
// of scatters functionalization built: the scatter's source when the ranges
// are the same, the scatter's base when they are disjoint (repeatedly), and
// stops at the first scatter whose range overlaps the slice's in part. ok
// is false when the slice reads the scatter it names (nothing to fold).
func resolveSliceOfScatter(n *ir.Node) (sliceFold, bool) {
	if !isOp(n, "aten::slice.Tensor") {
		return sliceFold{}, false
	}
	c, err := ops.Bind(n)
	if err != nil {
		return sliceFold{}, false
	}
	self := c.Arg("self")
	if self.Kind != ir.ArgValue || self.Value.Type.Tensor == nil {
		return sliceFold{}, false
	}
	r, ok := constSliceRange(c, self.Value.Type.Tensor.Shape)
	if !ok {
		return sliceFold{}, false
	}
	want := n.Out().Type.Tensor
	f := sliceFold{target: self.Value, r: r}
	for depth := 0; depth < maxFoldDepth; depth++ {
		def := f.target.Def
		if def == nil || !isOp(def, "aten::slice_scatter.default") {
			break
		}
		sc, err := ops.Bind(def)
		if err != nil {
			break
		}
		base, src := sc.Arg("self"), sc.Arg("src")
		if base.Kind != ir.ArgValue || src.Kind != ir.ArgValue || base.Value.Type.Tensor == nil || src.Value.Type.Tensor == nil {
			break
		}
		sr, ok := constSliceRange(sc, f.target.Type.Tensor.Shape)
		if !ok || sr.dim != r.dim {
			break
		}
		if sr == r {
			// The scatter casts src to the base's dtype; a cast is not a view.
			st := src.Value.Type.Tensor
			if want == nil || st.DType != want.DType || !sym.EqualLists(st.Shape, want.Shape) {
				break
			}
			f = sliceFold{target: src.Value, identity: true}
			break
		}
		if r.end > sr.start && sr.end > r.start && r.start < r.end && sr.start < sr.end {
			break // overlapping in part: the where must choose per element
		}
		f.target = base.Value
	}
	return f, f.target != self.Value
}

func isOp(n *ir.Node, name string) bool {
	op, ok := n.Op.(*ops.Op)
	return ok && op != nil && op.QualifiedName() == name
}

// planSliceFolds resolves every slice of a slice_scatter in g and lists the
// scatters nothing reads once they are (not lowered: their kernel would
// store a buffer nobody loads). A node's reads count only if the node is
// lowered; a folded slice reads its target instead of its argument.
func planSliceFolds(g *ir.Graph) (folds map[*ir.Node]sliceFold, skip map[*ir.Node]bool) {
	folds = map[*ir.Node]sliceFold{}
	for _, n := range g.Nodes {
		if len(n.Args) > 0 && n.Args[0].Kind == ir.ArgValue && n.Args[0].Value.Def != nil &&
			isOp(n.Args[0].Value.Def, "aten::slice_scatter.default") {
			if f, ok := resolveSliceOfScatter(n); ok && viewsFollowLayout(n.Out()) {
				folds[n] = f
			}
		}
	}
	if len(folds) == 0 {
		return nil, nil
	}
	reads := map[*ir.Value]int{}
	skip = map[*ir.Node]bool{}
	for i := len(g.Nodes) - 1; i >= 0; i-- {
		n := g.Nodes[i]
		if isOp(n, "aten::slice_scatter.default") && reads[n.Out()] == 0 && n.Out().NumUses() == len(n.Out().Users()) {
			skip[n] = true
			continue
		}
		if f, ok := folds[n]; ok {
			reads[f.target]++
			continue
		}
		for _, a := range n.Args {
			a.Walk(func(v *ir.Value) { reads[v]++ })
		}
		for _, k := range n.Kwargs {
			k.Arg.Walk(func(v *ir.Value) { reads[v]++ })
		}
	}
	return folds, skip
}

// lowerSliceFold places the folded slice v: the target's own tensor, or
// the slice of it.
func (l *lowerer) lowerSliceFold(v *ir.Value, f sliceFold) error {
	t, err := l.ref(ir.ValueArg(f.target))
	if err != nil {
		return err
	}
	from := v.Def.Args[0].Value.Name
	if f.identity {
		l.vals[v] = t
		l.p.Remarks = append(l.p.Remarks, fmt.Sprintf("%s read from %s: a slice of %s over a range a scatter wrote", v.Name, f.target.Name, from))
		return nil
	}
	l.p.Remarks = append(l.p.Remarks, fmt.Sprintf("%s read from %s: a slice of %s over a range the scatters above it did not write", v.Name, f.target.Name, from))
	lay := withShape(t.layout, v.Type.Tensor.Shape)
	d := f.r.dim
	lay.Offset = sym.Add(t.layout.Offset, sym.Mul(sym.Const(f.r.start), t.layout.Strides[d]))
	lay.Strides[d] = sym.Mul(t.layout.Strides[d], sym.Const(f.r.step))
	l.vals[v] = tensorRef{t.buf, lay}
	return nil
}

// viewsFollowLayout: every view read of v, transitively, is placed by its
// meta rule relative to its input's layout; as_strided names storage
// positions of v's type, which a source placed elsewhere does not have.
func viewsFollowLayout(v *ir.Value) bool {
	for _, u := range v.Users() {
		op, _ := u.Op.(*ops.Op)
		if op == nil || op.Kind != ops.KindView {
			continue
		}
		if namesStorage(op) {
			return false
		}
		for _, r := range u.Results {
			if !viewsFollowLayout(r) {
				return false
			}
		}
	}
	return true
}

// namesStorage: the view op's layout is given in its argument's storage
// (strides, offset), not derived from its input's layout.
func namesStorage(op *ops.Op) bool {
	name := op.QualifiedName()
	return strings.HasPrefix(name, "aten::as_strided") || strings.HasPrefix(name, "aten::_reshape_alias")
}
