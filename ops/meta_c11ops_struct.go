package ops

import (
	"github.com/kiln-compiler/kiln/ir"
	"github.com/kiln-compiler/kiln/ir/sym"
)

// Meta rules for structural ops: rot90, _trilinear and the masked
// indexing ops Inductor's decompositions emit.

// metaRot90 follows torch/_refs' rot90: k%4 == 1 is flip(dims[1]) then a
// transposed view, 2 is flip(dims), 3 is flip(dims[0]) transposed, 0 a
// contiguous clone; flip keeps a dense input's strides.
func metaRot90(env *Env, c *Call, self *ir.TensorType) (*ir.TensorType, error) {
	k, err := c.Int("k")
	if err != nil {
		return nil, err
	}
	dims, err := c.Ints("dims")
	if err != nil {
		return nil, err
	}
	if len(dims) != 2 {
		return nil, Errorf(CodeInvalidArgVal, "", "expected total rotation dims == 2, but got dims = %d", len(dims))
	}
	if self.Rank() < 2 {
		return nil, Errorf(CodeShape, "", "expected total dims >= 2, but got total dims = %d", self.Rank())
	}
	d0, d1, err := wrapDimPair(dims[0], dims[1], self.Rank())
	if err != nil {
		return nil, err
	}
	if d0 == d1 {
		return nil, Errorf(CodeInvalidArgVal, "", "expected rotation dims to be different, but got dim0 = %d and dim1 = %d", d0, d1)
	}
	k = ((k % 4) + 4) % 4
	if k == 0 {
		return env.Contiguous(self.DType, copyExprs(self.Shape), self.Device), nil
	}
	t := env.Fresh(self.DType, copyExprs(self.Shape), env.PreserveStrides(self), self.Device)
	if k != 2 {
		t.Shape[d0], t.Shape[d1] = t.Shape[d1], t.Shape[d0]
		t.Strides[d0], t.Strides[d1] = t.Strides[d1], t.Strides[d0]
	}
	return t, nil
}

// metaTrilinear is aten::_trilinear: each input unsqueezed at its expand
// dims, broadcast, multiplied and summed over sumdim (dropped); the
// result is row-major in i1's dtype.
func metaTrilinear(env *Env, c *Call) ([]ir.Type, error) {
	ins, err := tensorsOf(c, "i1", "i2", "i3")
	if err != nil {
		return nil, err
	}
	shapes := make([][]sym.Expr, 3)
	total := ins[0].Rank()
	for i, name := range []string{"expand1", "expand2", "expand3"} {
		exp, err := c.Ints(name)
		if err != nil {
			return nil, err
		}
		if i == 0 {
			total += len(exp)
		}
		if ins[i].Rank()+len(exp) != total {
			return nil, Errorf(CodeShape, "", "number of dimensions of %s (%d) plus expanded dims (%d) must be %d", []string{"i1", "i2", "i3"}[i], ins[i].Rank(), len(exp), total)
		}
		shapes[i] = unsqueezedShape(ins[i].Shape, exp, total)
	}
	b, err := env.BroadcastShapes(shapes...)
	if err != nil {
		return nil, err
	}
	sum, err := c.Ints("sumdim")
	if err != nil {
		return nil, err
	}
	drop := map[int64]bool{}
	for _, d := range sum {
		drop[d] = true
	}
	var out []sym.Expr
	for i, s := range b {
		if !drop[int64(i)] {
			out = append(out, s)
		}
	}
	return one(env.Contiguous(ins[0].DType, out, ins[0].Device)), nil
}

// unsqueezedShape inserts 1 at each of the expand positions of a rank
// total shape.
func unsqueezedShape(shape []sym.Expr, expand []int64, total int) []sym.Expr {
	at := map[int64]bool{}
	for _, e := range expand {
		at[e] = true
	}
	out, j := make([]sym.Expr, 0, total), 0
	for i := 0; i < total; i++ {
		if at[int64(i)] {
			out = append(out, sym.Const(1))
			continue
		}
		if j < len(shape) {
			out = append(out, shape[j])
		}
		j++
	}
	return out
}

// metaMaskedIndex is _unsafe_masked_index: self[indices] (clamped) with
// fill where mask is false; an empty self gives new_full of that shape.
func metaMaskedIndex(env *Env, c *Call, self *ir.TensorType) (*ir.TensorType, error) {
	mask, err := c.Tensor("mask")
	if err != nil {
		return nil, err
	}
	if mask.DType != ir.Bool {
		return nil, Errorf(CodeDType, "", "tensors used as masks must be bool tensors")
	}
	t, err := metaIndex(env, c, self)
	if err != nil {
		return nil, err
	}
	return env.Contiguous(t.DType, t.Shape, t.Device), nil
}
