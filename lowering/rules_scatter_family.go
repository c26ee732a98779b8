package lowering

import (
	"fmt"
	"math"

	"github.com/kiln-compiler/kiln/ir"
	"github.com/kiln-compiler/kiln/ir/sym"
	"github.com/kiln-compiler/kiln/ops"
)

// The scatter family: scatter, scatter_add, scatter_reduce, index_add,
// index_copy, index_fill. Each is a copy kernel of self into the result,
// then a kernel over the source's iteration space that writes result[dst]
// where dst is the source position with dim replaced by an index read
// from the index tensor (Access.Indirect). A combining write (sum, prod,
// amax, amin) loads, combines and stores; repeated indices make two
// iterations update one element, so that kernel is Serial. scatter_reduce
// with include_self=False first stores the combine's identity at every
// target. Every index is checked as PyTorch checks it (ops.IndexBounds):
// scatter, index_add and index_copy reject negative ones; index_fill wraps
// them.

// scatterGeom is how the source space maps to the result.
type scatterGeom uint8

const (
	// geomElementwise: scatter's. The space is index's shape; dst is x
	// with dim replaced by index[x]; src is read at x.
	geomElementwise scatterGeom = iota
	// geomAlongDim: index_add/index_copy's. The space is source's shape;
	// dst is x with dim replaced by index[x[dim]].
	geomAlongDim
	// geomFill: index_fill's. The space is self's shape with dim's size
	// replaced by index's numel; dst as geomAlongDim; the value is a
	// scalar.
	geomFill
)

// scatterRule is one op of the family.
type scatterRule struct {
	geom   scatterGeom
	src    string // the source tensor parameter; "" when value is a Scalar
	value  string // the Scalar parameter when src is ""
	reduce string // a fixed combine ("sum"), or "@param" to read it from the call
	legacy bool   // scatter.reduce spells its combines "add" and "multiply"
	alpha  bool   // index_add: source scaled by alpha
}

func scatterFamilyRules() map[string]rule {
	t := map[string]scatterRule{
		"scatter.src":           {src: "src"},
		"scatter.value":         {value: "value"},
		"scatter.reduce":        {src: "src", reduce: "@reduce", legacy: true},
		"scatter_add":           {src: "src", reduce: "sum"},
		"scatter_reduce.two":    {src: "src", reduce: "@reduce"},
		"index_add":             {geom: geomAlongDim, src: "source", reduce: "sum", alpha: true},
		"index_copy":            {geom: geomAlongDim, src: "source"},
		"index_fill.int_Scalar": {geom: geomFill, value: "value"},
	}
	out := map[string]rule{}
	for name, r := range t {
		out[name] = r.lower
	}
	return out
}

// legacyReduce maps scatter.reduce's names to scatter_reduce's.
var legacyReduce = map[string]string{"add": "sum", "multiply": "prod"}

// combineFns are the combines a Serial scatter kernel applies.
var combineFns = map[string]string{"sum": "add", "prod": "mul", "amax": "maximum", "amin": "minimum"}

func (r scatterRule) combine(c *ops.Call) (string, error) {
	red := r.reduce
	if len(red) > 0 && red[0] == '@' {
		a := c.Arg(red[1:])
		if a.Kind != ir.ArgString {
			return "", fmt.Errorf("%s: reduce is %s, not a string", c.Op, a.String())
		}
		red = a.Str
		if r.legacy {
			m, ok := legacyReduce[red]
			if !ok {
				return "", fmt.Errorf("reduce argument must be either add or multiply, got %s", red)
			}
			red = m
		}
	}
	if _, ok := combineFns[red]; red != "" && !ok {
		if red == "mean" {
			return "", noLowering(c.Node, "scatter_reduce(reduce='mean') needs a per-target count; "+
				"write it as scatter_add of src and of ones, then a division", "%s with reduce='mean'", c.Op)
		}
		return "", fmt.Errorf("reduce argument must be either sum, prod, mean, amax or amin, got %s", red)
	}
	return red, nil
}

func (r scatterRule) lower(l *lowerer, c *ops.Call) error {
	red, err := r.combine(c)
	if err != nil {
		return err
	}
	out, _, err := l.copyOfSelf(c)
	if err != nil {
		return err
	}
	rank := len(out.layout.Shape)
	if rank == 0 {
		return noLowering(c.Node, "unsqueeze the operands to 1-d", "%s on a 0-d tensor", c.Op)
	}
	d, err := dimArg(c, "dim", rank)
	if err != nil {
		return err
	}
	index, err := l.ref(c.Arg("index"))
	if err != nil {
		return err
	}
	var src tensorRef
	if r.src != "" {
		if src, err = l.ref(c.Arg(r.src)); err != nil {
			return err
		}
	}
	space, err := r.space(c, out, index, src, d)
	if err != nil {
		return err
	}
	chk, err := boundsOf(c)
	if err != nil {
		return err
	}
	if c.Has("include_self") {
		incl, err := c.Bool("include_self")
		if err != nil {
			return err
		}
		if !incl && red != "" {
			sb := l.newKernel(space)
			dst, ind := r.target(sb, out, index, d, chk)
			sb.scatterStore(out, dst, ind, identity(sb, red, out.layout.DType))
		}
	}
	b := l.newKernel(space)
	dst, ind := r.target(b, out, index, d, chk)
	v, err := r.source(b, c, src, out.layout.DType, len(space))
	if err != nil {
		return err
	}
	if red != "" {
		v = b.accumulate(out, dst, ind, combineFns[red], v)
	}
	b.scatterStore(out, dst, ind, v)
	return nil
}

// space is the iteration space of the scatter kernel.
func (r scatterRule) space(c *ops.Call, out, index, src tensorRef, d int) ([]sym.Expr, error) {
	ix := index.layout.Shape
	switch r.geom {
	case geomElementwise:
		if len(ix) != len(out.layout.Shape) || (r.src != "" && len(src.layout.Shape) != len(ix)) {
			return nil, noLowering(c.Node, "", "%s with an index of rank %d into rank %d", c.Op, len(ix), len(out.layout.Shape))
		}
		return ix, nil
	case geomAlongDim:
		if len(ix) > 1 || len(src.layout.Shape) != len(out.layout.Shape) {
			return nil, noLowering(c.Node, "", "%s with an index of rank %d and a source of rank %d", c.Op, len(ix), len(src.layout.Shape))
		}
		return src.layout.Shape, nil
	}
	if len(ix) > 1 {
		return nil, noLowering(c.Node, "", "%s with an index of rank %d", c.Op, len(ix))
	}
	space := append([]sym.Expr{}, out.layout.Shape...)
	space[d] = sym.Const(1)
	for _, s := range ix {
		space[d] = s
	}
	return space, nil
}

// target loads (and checks) the index for the outer point and returns
// the result's index it addresses and the indirect tmp.
func (r scatterRule) target(b *kbuilder, out, index tensorRef, d int, chk ops.IndexBounds) ([]sym.Expr, []*Instr) {
	x := outerVars(len(out.layout.Shape))
	at := x
	if r.geom != geomElementwise {
		at = x[d : d+1]
		if len(index.layout.Shape) == 0 {
			at = nil
		}
	}
	return b.indexAlong(index, at, x, d, out.layout.Shape[d], chk)
}

// source is the value written at the outer point: src read at x (scaled
// by alpha for index_add), or the Scalar value.
func (r scatterRule) source(b *kbuilder, c *ops.Call, src tensorRef, dt ir.DType, rank int) (*Instr, error) {
	e := &pwEnv{kbuilder: b, c: c, dt: dt, outDT: dt}
	if r.src == "" {
		return e.scalarArg(c.Arg(r.value), dt)
	}
	v := b.load(src, outerVars(rank))
	if !r.alpha {
		return v, nil
	}
	if isLit(c.Arg("alpha"), 1) {
		return v, nil
	}
	acc := accType(dt)
	alpha, err := e.scalarArg(c.Arg("alpha"), acc)
	if err != nil {
		return nil, err
	}
	return b.call("mul", acc, b.cast(v, acc), alpha), nil
}

// identity is the combine's neutral element in dt.
func identity(b *kbuilder, red string, dt ir.DType) *Instr {
	switch red {
	case "prod":
		return b.constInt(1, dt)
	case "amax", "amin":
		if dt.IsFloat() {
			return b.constant(math.Inf(map[string]int{"amax": -1, "amin": 1}[red]), dt)
		}
		return b.constInt(intLimit(dt, red == "amin"), dt)
	}
	return b.constInt(0, dt)
}
