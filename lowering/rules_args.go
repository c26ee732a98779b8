package lowering

import (
	"github.com/kiln-compiler/kiln/ir"
	"github.com/kiln-compiler/kiln/ir/sym"
	"github.com/kiln-compiler/kiln/ops"
)

// The steps most rules share: read the operands, read and wrap a dim,
// copy a tensor into a buffer, address a tensor through a loaded index
// (index_select, gather, scatter), and accumulate into it serially.

// operands allocates the call's (first) result and returns it with the
// tensors passed as the named parameters, in that order.
func (l *lowerer) operands(c *ops.Call, params ...string) (out tensorRef, in []tensorRef, err error) {
	if out, err = l.resultRef(c, 0); err != nil {
		return tensorRef{}, nil, err
	}
	in, err = l.refs(c, params...)
	return out, in, err
}

// refs are the tensors passed as the named parameters.
func (l *lowerer) refs(c *ops.Call, params ...string) ([]tensorRef, error) {
	in := make([]tensorRef, len(params))
	for i, p := range params {
		r, err := l.ref(c.Arg(p))
		if err != nil {
			return nil, err
		}
		in[i] = r
	}
	return in, nil
}

// dimArg reads the int parameter name and wraps it for rank, as PyTorch's
// maybe_wrap_dim does.
func dimArg(c *ops.Call, name string, rank int) (int, error) {
	dim, err := c.Int(name)
	if err != nil {
		return 0, err
	}
	return wrapDim(dim, rank)
}

// copyKernel emits a kernel over dst's shape storing src, broadcast, into
// dst.
func (l *lowerer) copyKernel(dst, src tensorRef) {
	shape := dst.layout.Shape
	b := l.newKernel(shape)
	b.store(dst, outerVars(len(shape)), b.loadBroadcast(src, shape))
}

// indexAlong loads index at `at` (size bounds dim d; chk is the op's
// check, which may wrap a negative index) and returns x with dim d
// replaced by the loaded index, and the indirect tmp it names.
func (b *kbuilder) indexAlong(index tensorRef, at, x []sym.Expr, d int, size sym.Expr, chk ops.IndexBounds) ([]sym.Expr, []*Instr) {
	t := b.loadIndex(index, at, size, d, chk)
	dst := append([]sym.Expr{}, x...)
	dst[d] = tmpSym(t)
	return dst, []*Instr{t}
}

// accumulate combines v into out at the indirect index dst with the
// scalar function fn (add, mul, maximum, minimum) in the accumulate type.
// Repeated indices make two iterations update one element, so the kernel
// becomes Serial.
func (b *kbuilder) accumulate(out tensorRef, dst []sym.Expr, ind []*Instr, fn string, v *Instr) *Instr {
	b.k.Serial = true
	dt := accType(out.layout.DType)
	cur := b.cast(b.gatherLoad(out, dst, ind), dt)
	return b.call(fn, dt, cur, b.cast(v, dt))
}

// isLit reports whether a Scalar argument is the number v (int or float).
func isLit(a ir.Arg, v int64) bool {
	return (a.Kind == ir.ArgInt && a.Int == v) || (a.Kind == ir.ArgFloat && a.Float == float64(v))
}
