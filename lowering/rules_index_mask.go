package lowering

import (
	"fmt"

	"github.com/kiln-compiler/kiln/ir"
	"github.com/kiln-compiler/kiln/ir/sym"
	"github.com/kiln-compiler/kiln/ops"
)

// index_put with one boolean mask, self[mask] = values: the positions
// written depend on data, but what is written there does not when values
// broadcast along the masked positions (a 0-d value, or one that repeats
// over them). Then the result is where(mask, values, self) elementwise
// (accumulate: where(mask, self + values, self), since a mask names each
// position once): one pointwise kernel, no data-dependent size. A values
// tensor with one entry per true element keeps the refusal.

// maskPut is the geometry of index_put(self, [None.., mask, None..], values).
type maskPut struct {
	mask  *ir.Value
	first int // the self dim the mask's dim 0 indexes
}

// maskedPut recognizes an indices list whose only tensor is a bool or
// uint8 mask.
func maskedPut(c *ops.Call) (maskPut, bool) {
	var m maskPut
	for i, e := range c.Arg("indices").Elems {
		if e.Kind == ir.ArgNone {
			continue
		}
		if e.Kind != ir.ArgValue || m.mask != nil {
			return maskPut{}, false // an index of another kind, or a second tensor
		}
		if t, err := tensorType(e.Value); err != nil || (t.DType != ir.Bool && t.DType != ir.U8) {
			return maskPut{}, false
		}
		m = maskPut{mask: e.Value, first: i}
	}
	return m, m.mask != nil
}

// lowerMaskedPut emits the one kernel over self's shape: mask at the
// masked dims, values at the broadcast of the remaining dims.
func (l *lowerer) lowerMaskedPut(c *ops.Call, m maskPut) error {
	out, in, err := l.operands(c, "self", "values")
	if err != nil {
		return err
	}
	self, values := in[0], in[1]
	mask, err := l.ref(ir.ValueArg(m.mask))
	if err != nil {
		return err
	}
	acc, err := c.Bool("accumulate")
	if err != nil {
		return err
	}
	shape := self.layout.Shape
	k := len(mask.layout.Shape)
	if m.first+k > len(shape) {
		return fmt.Errorf("%s: a mask of rank %d at dim %d of a rank-%d tensor", c.Op, k, m.first, len(shape))
	}
	// The indexing result is self's shape with the masked dims replaced by
	// one dim of data-dependent size; values must be 1 along it.
	indexed := append(append(append([]sym.Expr{}, shape[:m.first]...), sym.Const(1)), shape[m.first+k:]...)
	if j := len(values.layout.Shape) - (len(indexed) - m.first); j >= 0 && !isOne(values.layout.Shape[j]) {
		return noLowering(c.Node, "use torch.where(mask, values, self) when values are the same at every masked position",
			"%s with a boolean mask and values of shape %s (one value per true element is data-dependent)", c.Op, "["+joinExprs(values.layout.Shape)+"]")
	}
	x := outerVars(len(shape))
	b := l.newKernel(shape)
	on := l.maskAt(b, mask, shape[m.first:m.first+k], x[m.first:m.first+k])
	vx := append(append(append([]sym.Expr{}, x[:m.first]...), sym.Const(0)), x[m.first+k:]...)
	dt := self.layout.DType
	if acc {
		dt = accType(dt)
	}
	old := b.cast(b.load(self, x), dt)
	v := b.cast(b.load(values, broadcastIndex(values.layout.Shape, indexed, vx)), dt)
	if acc {
		v = b.call("add", dt, old, v)
	}
	b.store(out, x, b.call("where", dt, on, v, old))
	return nil
}

// maskAt loads the mask at the self index x (of self's masked dims, sizes
// want) as a bool. A mask size not provably self's is assumed equal, as
// PyTorch raises an IndexError otherwise; the read is clamped into the
// mask, and positions past its end read false, so a mismatch at run time
// cannot read out of bounds. A remark records the assumption.
func (l *lowerer) maskAt(b *kbuilder, mask tensorRef, want, x []sym.Expr) *Instr {
	at := append([]sym.Expr{}, x...)
	var inside *Instr
	for d, size := range mask.layout.Shape {
		if sym.Equal(size, want[d]) {
			continue
		}
		l.p.Remarks = append(l.p.Remarks, fmt.Sprintf("%s: boolean mask size %s taken to equal the indexed size %s (PyTorch raises an IndexError otherwise)",
			l.node.Name, size, want[d]))
		at[d] = sym.Min(x[d], sym.Sub(size, sym.Const(1)))
		ok := b.call("lt", ir.Bool, b.index(x[d], ir.I64), b.index(size, ir.I64))
		if inside == nil {
			inside = ok
		} else {
			inside = b.call("logical_and", ir.Bool, inside, ok)
		}
	}
	on := b.cast(b.load(mask, at), ir.Bool)
	if inside != nil {
		on = b.call("logical_and", ir.Bool, inside, on)
	}
	return on
}
