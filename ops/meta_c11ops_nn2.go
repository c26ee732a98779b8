package ops

import (
	"github.com/kiln-compiler/kiln/ir"
	"github.com/kiln-compiler/kiln/ir/sym"
)

// Meta rules for batch norm with update, grid sampling, cdist,
// empty_permuted and dropout's backward (layouts checked with
// FakeTensorMode in PyTorch 2.15).

// metaBatchNormWithUpdate is _batch_norm_with_update: (out in input's
// suggested memory format, save_mean [C], save_invstd [C], reserve u8[0]).
func metaBatchNormWithUpdate(env *Env, c *Call) ([]ir.Type, error) {
	in, err := c.Tensor("input")
	if err != nil {
		return nil, err
	}
	if in.Rank() < 2 {
		return nil, Errorf(CodeShape, "", "Expected 2D or more input (got %dD input)", in.Rank())
	}
	statDT := in.DType
	if in.DType.IsReducedFloat() {
		statDT = ir.F32
	}
	return types(env.layoutLike(in.DType, copyExprs(in.Shape), in), env.Contiguous(statDT, []sym.Expr{in.Shape[1]}, in.Device),
		env.Contiguous(statDT, []sym.Expr{in.Shape[1]}, in.Device), env.Contiguous(ir.U8, []sym.Expr{c0}, in.Device)), nil
}

// metaBatchNormBackwardNew is batch_norm_backward: (grad_input like input,
// grad_weight and grad_bias like weight), None where output_mask is false.
func metaBatchNormBackwardNew(env *Env, c *Call) ([]ir.Type, error) {
	in, err := c.Tensor("input")
	if err != nil {
		return nil, err
	}
	w, err := c.Tensor("weight")
	if err != nil {
		return nil, err
	}
	mask, err := boolList(c, "output_mask")
	if err != nil {
		return nil, err
	}
	out := []ir.Type{ir.TensorOf(env.layoutLike(in.DType, copyExprs(in.Shape), in)),
		ir.TensorOf(env.Contiguous(w.DType, copyExprs(w.Shape), w.Device)), ir.TensorOf(env.Contiguous(w.DType, copyExprs(w.Shape), w.Device))}
	for i := range out {
		if i < len(mask) && !mask[i] {
			out[i] = ir.Type{Kind: ir.KindNone}
		}
	}
	return out, nil
}

// metaGridSampler is input.new_empty([N, C, *grid's spatial sizes]).
func metaGridSampler(env *Env, c *Call) ([]ir.Type, error) {
	ts, err := tensorsOf(c, "input", "grid")
	if err != nil {
		return nil, err
	}
	in, grid := ts[0], ts[1]
	if in.Rank() < 3 || grid.Rank() != in.Rank() {
		return nil, Errorf(CodeShape, "", "grid_sampler(): expected grid to have the same number of dimensions as input, but got input of shape %s and grid of shape %s", shapeString(in.Shape), shapeString(grid.Shape))
	}
	shape := append([]sym.Expr{in.Shape[0], in.Shape[1]}, copyExprs(grid.Shape[1:grid.Rank()-1])...)
	return one(env.Contiguous(in.DType, shape, in.Device)), nil
}

// metaGridSamplerBackward is (grad_input, grad_grid), row-major like input
// and grid; grad_input is None when output_mask[0] is false.
func metaGridSamplerBackward(env *Env, c *Call) ([]ir.Type, error) {
	ts, err := tensorsOf(c, "input", "grid")
	if err != nil {
		return nil, err
	}
	mask, err := boolList(c, "output_mask")
	if err != nil {
		return nil, err
	}
	gi := ir.TensorOf(env.Contiguous(ts[0].DType, copyExprs(ts[0].Shape), ts[0].Device))
	if len(mask) > 0 && !mask[0] {
		gi = ir.Type{Kind: ir.KindNone}
	}
	return []ir.Type{gi, ir.TensorOf(env.Contiguous(ts[1].DType, copyExprs(ts[1].Shape), ts[1].Device))}, nil
}

// metaEmptyPermuted lays size out in physical_layout's order.
func metaEmptyPermuted(env *Env, c *Call) ([]ir.Type, error) {
	size, err := c.SymInts("size")
	if err != nil {
		return nil, err
	}
	perm, err := c.Ints("physical_layout")
	if err != nil {
		return nil, err
	}
	if len(perm) != len(size) {
		return nil, Errorf(CodeShape, "", "Number of dimensions in size does not match the length of the physical_layout; i.e. len(size) = %d is not equal to len(physical_layout) = %d", len(size), len(perm))
	}
	dt, dev, err := factoryOptions(c, DefaultFloat, ir.CPU)
	if err != nil {
		return nil, err
	}
	phys := make([]sym.Expr, len(size))
	for i, p := range perm {
		if p < 0 || int(p) >= len(size) {
			return nil, Errorf(CodeInvalidArgVal, "", "Dimension out of range (expected to be in range of [0, %d], but got %d)", len(size)-1, p)
		}
		phys[i] = size[p]
	}
	physStrides := ir.ContiguousStrides(phys)
	strides := make([]sym.Expr, len(size))
	for i, p := range perm {
		strides[p] = physStrides[i]
	}
	return one(env.Fresh(dt, copyExprs(size), strides, dev)), nil
}

// metaDropoutBackward is grad_output · (mask · scale) in grad_output's
// suggested memory format: a bool or integer grad_output times the float
// scale is the default float dtype.
func metaDropoutBackward(env *Env, c *Call) ([]ir.Type, error) {
	g, err := c.Tensor("grad_output")
	if err != nil {
		return nil, err
	}
	dt := g.DType
	if !dt.IsFloat() && !dt.IsComplex() {
		dt = DefaultFloat
	}
	return one(env.layoutLike(dt, copyExprs(g.Shape), g)), nil
}
