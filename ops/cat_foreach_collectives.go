package ops

import (
	"fmt"

	"github.com/kiln-compiler/kiln/ir"
	"github.com/kiln-compiler/kiln/ir/sym"
)

// Shape-building ops (cat, stack, repeat, ...), _foreach ops, collectives
// and inductor's RNG prims.

// metaCat is cat: dtypes promote, sizes match except along dim, legacy 1-d
// empty tensors are skipped; the output keeps a memory format the inputs
// share, else row-major.
func metaCat(env *Env, c *Call) ([]ir.Type, error) {
	ts, err := c.Tensors("tensors")
	if err != nil {
		return nil, err
	}
	var kept []*ir.TensorType
	for i, t := range ts {
		if t == nil {
			return nil, errNoTensor(c, "tensors[i]")
		}
		if t.Rank() == 0 {
			return nil, Errorf(CodeDim, "unsqueeze 0-dim tensors first, or use stack", "zero-dimensional tensor (at position %d) cannot be concatenated", i)
		}
		if !(t.Rank() == 1 && isConst(t.Shape[0], 0)) {
			kept = append(kept, t)
		}
	}
	if len(ts) == 0 {
		return nil, Errorf(CodeShape, "", "torch.cat(): expected a non-empty list of Tensors")
	}
	dt, dev, err := listResult(ts)
	if err != nil {
		return nil, err
	}
	if len(kept) == 0 {
		return one(env.Contiguous(dt, []sym.Expr{c0}, dev)), nil
	}
	dim, err := c.Dim("dim", kept[0].Rank())
	if err != nil {
		return nil, err
	}
	shape, err := env.catShape(kept, dim)
	if err != nil {
		return nil, err
	}
	out := env.Contiguous(dt, shape, dev)
	format := SuggestMemoryFormat(kept[0])
	for _, t := range kept[1:] {
		if SuggestMemoryFormat(t) != format {
			format = "contiguous_format"
		}
	}
	if format != "contiguous_format" {
		out.Strides = env.StridesFor(format, out)
	}
	return one(out), nil
}

// metaStack is stack: equal shapes, a new dim at dim.
func metaStack(env *Env, c *Call) ([]ir.Type, error) {
	ts, err := c.Tensors("tensors")
	if err != nil {
		return nil, err
	}
	if len(ts) == 0 {
		return nil, Errorf(CodeShape, "", "stack expects a non-empty TensorList")
	}
	for i, t := range ts[1:] {
		if !sym.EqualLists(t.Shape, ts[0].Shape) {
			return nil, Errorf(CodeShape, "", "stack expects each tensor to be equal size, but got %s at entry 0 and %s at entry %d", shapeString(ts[0].Shape), shapeString(t.Shape), i+1)
		}
	}
	dim, err := c.Dim("dim", ts[0].Rank()+1)
	if err != nil {
		return nil, err
	}
	dt, dev, err := listResult(ts)
	if err != nil {
		return nil, err
	}
	shape := insertAt(ts[0].Shape, dim, sym.Const(int64(len(ts))))
	return one(env.Contiguous(dt, shape, dev)), nil
}

// metaRepeat is repeat: the shape, left-padded with 1s, times repeats.
func metaRepeat(env *Env, c *Call, self *ir.TensorType) (*ir.TensorType, error) {
	reps, err := c.SymInts("repeats")
	if err != nil {
		return nil, err
	}
	if len(reps) < self.Rank() {
		return nil, Errorf(CodeShape, "", "Number of dimensions of repeat dims can not be smaller than number of dimensions of tensor")
	}
	off := len(reps) - self.Rank()
	shape := make([]sym.Expr, len(reps))
	for i, r := range reps {
		s := sym.Expr(c1)
		if i >= off {
			s = self.Shape[i-off]
		}
		shape[i] = sym.Mul(s, r)
	}
	return env.Contiguous(self.DType, shape, self.Device), nil
}

// metaSameShape is for ops whose output has self's shape and dtype,
// row-major (tril, triu, roll).
func metaSameShape(env *Env, c *Call, self *ir.TensorType) (*ir.TensorType, error) {
	return env.Contiguous(self.DType, copyExprs(self.Shape), self.Device), nil
}

// metaPreserve is for ops whose output keeps self's layout (flip).
func metaPreserve(env *Env, c *Call, self *ir.TensorType) (*ir.TensorType, error) {
	return env.Fresh(self.DType, copyExprs(self.Shape), env.PreserveStrides(self), self.Device), nil
}

// foreach applies an elementwise op across tensor lists: result i is the
// op over element i of each list argument (scalars and single tensors are
// shared). In-place forms return self's types.
func foreach(kind PromotionKind, names ...string) MetaFunc {
	return func(env *Env, c *Call) ([]ir.Type, error) {
		lists := map[string][]*ir.TensorType{}
		n := -1
		for _, name := range names {
			if a := c.Arg(name); a.IsSequence() {
				ts, err := c.Tensors(name)
				if err != nil {
					return nil, err
				}
				if n >= 0 && len(ts) != n {
					return nil, Errorf(CodeShape, "", "Tensor lists must have the same number of tensors, got %d and %d.", n, len(ts))
				}
				n, lists[name] = len(ts), ts
			}
		}
		if n < 0 {
			return nil, fmt.Errorf("%s: no tensor list argument", c.Op.QualifiedName())
		}
		out := make([]ir.Type, n)
		for i := 0; i < n; i++ {
			t, err := env.foreachElem(c, kind, names, lists, i)
			if err != nil {
				return nil, err
			}
			out[i] = ir.TensorOf(t)
		}
		return out, nil
	}
}

func (env *Env) foreachElem(c *Call, kind PromotionKind, names []string, lists map[string][]*ir.TensorType, i int) (*ir.TensorType, error) {
	var ops []operand
	for _, name := range names {
		if ts, ok := lists[name]; ok {
			ops = append(ops, operand{name: name, tensor: ts[i], dtype: ts[i].DType, shape: true, promo: true})
			continue
		}
		sub, err := readOperands(c, []string{name})
		if err != nil {
			return nil, err
		}
		ops = append(ops, sub...)
	}
	if c.Op.Mutates() {
		return ops[0].tensor.Clone(), nil
	}
	var tensors []*ir.TensorType
	var shapes [][]sym.Expr
	var promo []Operand
	for _, o := range ops {
		promo = append(promo, Operand{DType: o.dtype, ZeroD: o.tensor != nil && o.tensor.Rank() == 0, Scalar: o.tensor == nil})
		if o.tensor != nil {
			tensors, shapes = append(tensors, o.tensor), append(shapes, o.tensor.Shape)
		}
	}
	dt, err := ResultType(promo)
	if err != nil {
		return nil, Errorf(CodeDType, "", "%s", err.Error())
	}
	shape, err := env.BroadcastShapes(shapes...)
	if err != nil {
		return nil, err
	}
	return env.Fresh(kind.ResultDType(dt), shape, env.ElementwiseStrides(shape, tensors), tensors[0].Device), nil
}

// metaAllToAllSingle is _c10d_functional.all_to_all_single: dim 0 becomes
// the sum of the output split sizes (the input's size when they are empty).
func metaAllToAllSingle(env *Env, c *Call, self *ir.TensorType) (*ir.TensorType, error) {
	splits, err := c.SymInts("output_split_sizes")
	if err != nil {
		return nil, err
	}
	shape := copyExprs(self.Shape)
	if len(splits) > 0 && self.Rank() > 0 {
		shape[0] = product2sum(splits)
	}
	return env.Contiguous(self.DType, shape, self.Device), nil
}

// metaCollectiveSame is all_reduce: a fresh tensor like the input.
func metaCollectiveSame(env *Env, c *Call, self *ir.TensorType) (*ir.TensorType, error) {
	return env.Contiguous(self.DType, copyExprs(self.Shape), self.Device), nil
}

// groupDim0 is all_gather_into_tensor (dim 0 times group_size, sym.Mul)
// and reduce_scatter_tensor (dim 0 divided by it, sym.FloorDiv).
func groupDim0(op string, scale func(a, b sym.Expr) sym.Expr) selfRuleFunc {
	return func(env *Env, c *Call, self *ir.TensorType) (*ir.TensorType, error) {
		g, err := c.SymInt("group_size")
		if err != nil {
			return nil, err
		}
		if err := needDims(self, op); err != nil {
			return nil, err
		}
		shape := copyExprs(self.Shape)
		shape[0] = scale(shape[0], g)
		return env.Contiguous(self.DType, shape, self.Device), nil
	}
}

var (
	metaAllGather     = groupDim0("all_gather_into_tensor", sym.Mul)
	metaReduceScatter = groupDim0("reduce_scatter_tensor", sym.FloorDiv)
)

func metaInductorSeeds(env *Env, c *Call) ([]ir.Type, error) {
	n, err := c.SymInt("count")
	if err != nil {
		return nil, err
	}
	dev, _, err := c.Device("device")
	if err != nil {
		return nil, err
	}
	return one(env.Contiguous(ir.I64, []sym.Expr{n}, dev)), nil
}

func metaInductorLookupSeed(env *Env, c *Call) ([]ir.Type, error) {
	seeds, err := c.Tensor("seeds")
	if err != nil {
		return nil, err
	}
	return one(env.Contiguous(seeds.DType, []sym.Expr{}, seeds.Device)), nil
}

func metaInductorRandom(env *Env, c *Call) ([]ir.Type, error) {
	size, err := c.SymInts("size")
	if err != nil {
		return nil, err
	}
	seed, err := c.Tensor("seed")
	if err != nil {
		return nil, err
	}
	return one(env.Contiguous(ir.F32, size, seed.Device)), nil
}

// catShape checks that the tensors agree off dim and sums their sizes on it.
func (env *Env) catShape(ts []*ir.TensorType, dim int) ([]sym.Expr, error) {
	ref := ts[0]
	shape := copyExprs(ref.Shape)
	shape[dim] = c0
	for i, t := range ts {
		if t.Rank() != ref.Rank() {
			return nil, Errorf(CodeShape, "", "Tensors must have same number of dimensions: got %d and %d", ref.Rank(), t.Rank())
		}
		for j := range t.Shape {
			if j == dim {
				continue
			}
			if eq, known := env.eqSize(ref.Shape[j], t.Shape[j]); known && !eq {
				return nil, Errorf(CodeShape, "", "Sizes of tensors must match except in dimension %d. Expected size %s but got size %s for tensor number %d in the list.", dim, ref.Shape[j], t.Shape[j], i)
			}
		}
		shape[dim] = sym.Add(shape[dim], t.Shape[dim])
	}
	return shape, nil
}

// listResult is the promoted dtype and common device of cat's and stack's
// tensors.
func listResult(ts []*ir.TensorType) (ir.DType, ir.Device, error) {
	var promo []Operand
	for _, t := range ts {
		promo = append(promo, Operand{DType: t.DType})
	}
	dt, err := ResultType(promo)
	if err != nil {
		return ir.Invalid, ir.Device{}, Errorf(CodeDType, "", "%s", err.Error())
	}
	dev, err := CommonDevice(ts)
	return dt, dev, err
}
