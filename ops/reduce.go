package ops

import (
	"github.com/kiln-compiler/kiln/ir"
	"github.com/kiln-compiler/kiln/ir/sym"
)

// Reductions, after aten/src/ATen/native/ReduceOps.cpp (resize_reduction,
// get_result_or_sum_dtype) and ReduceOpsUtils.h: the output is row-major,
// reduced dims dropped or kept as size 1.

// reduceOut says how a reduction picks its result dtype.
type reduceOut uint8

const (
	outSame       reduceOut = iota // amax, mean, max.dim values
	outSum                         // sum, prod, cumsum: ints and bool accumulate in i64
	outLong                        // argmax, indices
	outBool                        // any, all: bool (uint8 stays uint8)
	outRealFloat                   // var, std: complex gives its real type
	outIntToFloat                  // logsumexp
)

func (k reduceOut) dtype(in ir.DType) ir.DType {
	switch k {
	case outSum:
		if in == ir.Bool || in.IsInt() {
			return ir.I64
		}
	case outLong:
		return ir.I64
	case outBool:
		if in == ir.U8 {
			return ir.U8
		}
		return ir.Bool
	case outRealFloat:
		return realPart(in)
	case outIntToFloat:
		if in == ir.Bool || in.IsInt() {
			return DefaultFloat
		}
	}
	return in
}

// reductionDims reads the dims to reduce: param "dim" as a list, an int, or
// None/[] for every dim.
func reductionDims(c *Call, rank int) ([]bool, error) {
	all := make([]bool, rank)
	if !c.Has("dim") || c.IsNone("dim") {
		for i := range all {
			all[i] = true
		}
		return all, nil
	}
	dims, err := c.Ints("dim")
	if err != nil {
		return nil, err
	}
	if len(dims) == 0 {
		for i := range all {
			all[i] = true
		}
		return all, nil
	}
	wrapped, err := wrapDims(dims, rank)
	if err != nil {
		return nil, err
	}
	for _, d := range wrapped {
		if rank > 0 {
			all[d] = true
		}
	}
	return all, nil
}

// reducedShape drops (or keeps as 1) the reduced dims.
func reducedShape(shape []sym.Expr, reduced []bool, keepdim bool) []sym.Expr {
	out := []sym.Expr{}
	for i, s := range shape {
		switch {
		case !reduced[i]:
			out = append(out, s)
		case keepdim:
			out = append(out, c1)
		}
	}
	return out
}

// reduction builds a rule with one result per entry of outs.
func reduction(outs ...reduceOut) MetaFunc {
	return func(env *Env, c *Call) ([]ir.Type, error) {
		self, err := c.Tensor(c.Op.Schema.Params[0].Name)
		if err != nil {
			return nil, err
		}
		reduced, err := reductionDims(c, self.Rank())
		if err != nil {
			return nil, err
		}
		keep := false
		if c.Has("keepdim") {
			if keep, err = c.Bool("keepdim"); err != nil {
				return nil, err
			}
		}
		shape := reducedShape(self.Shape, reduced, keep)
		if err := checkReduceDType(c, self.DType); err != nil {
			return nil, err
		}
		res := make([]ir.Type, len(outs))
		for i, k := range outs {
			dt := k.dtype(self.DType)
			if d, ok, _ := c.DType("dtype"); ok && i == 0 {
				dt = d
				if k == outRealFloat { // linalg_vector_norm(dtype=c64) is f32
					dt = realPart(d)
				}
			}
			res[i] = ir.TensorOf(env.Contiguous(dt, copyExprs(shape), self.Device))
		}
		return res, nil
	}
}

// checkReduceDType is mean's "could not infer output dtype" check.
func checkReduceDType(c *Call, in ir.DType) error {
	if c.Op.Schema.Name != "mean" {
		return nil
	}
	if d, ok, _ := c.DType("dtype"); ok {
		in = d
	}
	if in.IsFloat() || in.IsComplex() {
		return nil
	}
	return Errorf(CodeDType, "cast to a floating dtype first, or pass dtype=",
		"mean(): could not infer output dtype. Input dtype must be either a floating point or complex dtype. Got: %s", ScalarTypeName(in))
}

// scan is cumsum/cumprod: same shape, row-major, sum-like dtype.
func scan(env *Env, c *Call, self *ir.TensorType) (*ir.TensorType, error) {
	if _, err := c.Dim("dim", self.Rank()); err != nil {
		return nil, err
	}
	dt := outSum.dtype(self.DType)
	if d, ok, _ := c.DType("dtype"); ok {
		dt = d
	}
	return env.Contiguous(dt, copyExprs(self.Shape), self.Device), nil
}

// metaSort is sort/argsort: values keep self's dense layout, indices are i64.
func metaSort(env *Env, c *Call) ([]ir.Type, error) {
	self, err := c.Tensor("self")
	if err != nil {
		return nil, err
	}
	if _, err := c.Dim("dim", self.Rank()); err != nil {
		return nil, err
	}
	strides := env.PreserveStrides(self)
	idx := env.Fresh(ir.I64, copyExprs(self.Shape), copyExprs(strides), self.Device)
	if len(c.Op.Schema.Returns) == 1 {
		return one(idx), nil
	}
	vals := env.Fresh(self.DType, copyExprs(self.Shape), copyExprs(strides), self.Device)
	return []ir.Type{ir.TensorOf(vals), ir.TensorOf(idx)}, nil
}

// metaTopk is topk: k elements along dim, row-major.
func metaTopk(env *Env, c *Call) ([]ir.Type, error) {
	self, err := c.Tensor("self")
	if err != nil {
		return nil, err
	}
	dim, err := c.Dim("dim", self.Rank())
	if err != nil {
		return nil, err
	}
	k, err := c.SymInt("k")
	if err != nil {
		return nil, err
	}
	shape := copyExprs(self.Shape)
	if self.Rank() > 0 {
		if env.cmpExpr(k, shape[dim]) == 1 {
			return nil, Errorf(CodeShape, "", "selected index k out of range")
		}
		shape[dim] = k
	}
	return []ir.Type{ir.TensorOf(env.Contiguous(self.DType, shape, self.Device)),
		ir.TensorOf(env.Contiguous(ir.I64, copyExprs(shape), self.Device))}, nil
}
