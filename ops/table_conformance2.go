package ops

import (
	"github.com/kiln-compiler/kiln/ir"
	"github.com/kiln-compiler/kiln/ir/sym"
)

// More ops the conformance table showed untyped; results are row-major
// (checked against PyTorch 2.15's fake tensors on contiguous and
// transposed inputs).
func conformanceTable2() []Entry {
	r := func(schema string, outs ...reduceOut) Entry {
		return Entry{Schema: schema, Kind: KindReduction, Meta: reduction(outs...)}
	}
	s := func(schema string, rule selfRuleFunc) Entry {
		return Entry{Schema: schema, Kind: KindShape, Meta: selfRule(rule)}
	}
	return []Entry{
		r("mode(Tensor self, int dim=-1, bool keepdim=False) -> (Tensor values, Tensor indices)", outSame, outLong),
		r("kthvalue(Tensor self, SymInt k, int dim=-1, bool keepdim=False) -> (Tensor values, Tensor indices)", outSame, outLong),
		r("nanmedian.dim(Tensor self, int dim, bool keepdim=False) -> (Tensor values, Tensor indices)", outSame, outLong),
		r("median.dim(Tensor self, int dim, bool keepdim=False) -> (Tensor values, Tensor indices)", outSame, outLong),
		r("count_nonzero(Tensor self, int? dim=None) -> Tensor", outLong),
		r("count_nonzero.dim_IntList(Tensor self, int[] dim) -> Tensor", outLong),
		r("trace(Tensor self) -> Tensor", outSum),
		{Schema: "_safe_softmax(Tensor self, int dim, ScalarType? dtype=None) -> Tensor", Kind: KindNN, Meta: selfRule(metaSoftmax)},
		s("channel_shuffle(Tensor self, SymInt groups) -> Tensor", metaSameShape),
		s("pixel_shuffle(Tensor self, int upscale_factor) -> Tensor", pixelShuffle(true)),
		s("pixel_unshuffle(Tensor self, int downscale_factor) -> Tensor", pixelShuffle(false)),
		s("narrow_copy(Tensor self, int dim, SymInt start, SymInt length) -> Tensor", metaNarrowCopy),
		s("reflection_pad1d(Tensor self, SymInt[2] padding) -> Tensor", metaPadLast),
		s("reflection_pad2d(Tensor self, SymInt[4] padding) -> Tensor", metaPadLast),
		s("replication_pad1d(Tensor self, SymInt[2] padding) -> Tensor", metaPadLast),
		s("replication_pad2d(Tensor self, SymInt[4] padding) -> Tensor", metaPadLast),
		{Schema: "log_sigmoid_forward(Tensor self) -> (Tensor output, Tensor buffer)", Kind: KindNN, Meta: metaLogSigmoidForward},
		{Schema: "addr(Tensor self, Tensor vec1, Tensor vec2, *, Scalar beta=1, Scalar alpha=1) -> Tensor", Kind: KindExtern, Meta: metaAddProduct("vec1", "vec2")},
		{Schema: "addmv(Tensor self, Tensor mat, Tensor vec, *, Scalar beta=1, Scalar alpha=1) -> Tensor", Kind: KindExtern, Meta: metaAddProduct("mat", "vec")},
		{Schema: "addbmm(Tensor self, Tensor batch1, Tensor batch2, *, Scalar beta=1, Scalar alpha=1) -> Tensor", Kind: KindExtern, Meta: metaAddProduct("batch1", "batch2")},
	}
}

// pixelShuffle moves r² channels into an r×r block of pixels (or back).
func pixelShuffle(up bool) selfRuleFunc {
	return func(env *Env, c *Call, self *ir.TensorType) (*ir.TensorType, error) {
		name := "downscale_factor"
		if up {
			name = "upscale_factor"
		}
		f, err := c.Int(name)
		if err != nil {
			return nil, err
		}
		rank := self.Rank()
		if rank < 3 {
			return nil, Errorf(CodeShape, "", "%s expects input to have at least 3 dimensions, but got input with %d dimension(s)", c.Op.Schema.Name, rank)
		}
		r, rr := sym.Const(f), sym.Const(f*f)
		shape := copyExprs(self.Shape)
		if up {
			shape[rank-3] = sym.FloorDiv(shape[rank-3], rr)
			shape[rank-2], shape[rank-1] = sym.Mul(shape[rank-2], r), sym.Mul(shape[rank-1], r)
		} else {
			shape[rank-3] = sym.Mul(shape[rank-3], rr)
			shape[rank-2], shape[rank-1] = sym.FloorDiv(shape[rank-2], r), sym.FloorDiv(shape[rank-1], r)
		}
		return env.Contiguous(self.DType, shape, self.Device), nil
	}
}

func metaNarrowCopy(env *Env, c *Call, self *ir.TensorType) (*ir.TensorType, error) {
	if self.Rank() == 0 {
		return nil, Errorf(CodeDim, "", "narrow() cannot be applied to a 0-dim tensor.")
	}
	d, err := c.Dim("dim", self.Rank())
	if err != nil {
		return nil, err
	}
	length, err := c.SymInt("length")
	if err != nil {
		return nil, err
	}
	shape := copyExprs(self.Shape)
	shape[d] = length
	return env.Contiguous(self.DType, shape, self.Device), nil
}

// metaPadLast pads the last len(padding)/2 dims: (left, right) pairs from
// the last dim backwards.
func metaPadLast(env *Env, c *Call, self *ir.TensorType) (*ir.TensorType, error) {
	pad, err := c.SymInts("padding")
	if err != nil {
		return nil, err
	}
	shape := copyExprs(self.Shape)
	for i := 0; i+1 < len(pad); i += 2 {
		d := len(shape) - 1 - i/2
		if d < 0 {
			return nil, Errorf(CodeShape, "", "%s: padding has more dims than the input", c.Op.Schema.Name)
		}
		shape[d] = sym.Add(shape[d], sym.Add(pad[i], pad[i+1]))
	}
	return env.Contiguous(self.DType, shape, self.Device), nil
}

// metaAddProduct is beta·self + alpha·(a @ b) for addr (outer), addmv
// (matrix-vector) and addbmm (sum of batched products): the product's
// shape, the promoted dtype.
func metaAddProduct(a, b string) MetaFunc {
	return func(env *Env, c *Call) ([]ir.Type, error) {
		self, err := c.Tensor("self")
		if err != nil {
			return nil, err
		}
		x, err := c.Tensor(a)
		if err != nil {
			return nil, err
		}
		y, err := c.Tensor(b)
		if err != nil {
			return nil, err
		}
		var shape []sym.Expr
		switch {
		case x.Rank() == 1 && y.Rank() == 1:
			shape = []sym.Expr{x.Shape[0], y.Shape[0]}
		case x.Rank() == 2 && y.Rank() == 1:
			shape = []sym.Expr{x.Shape[0]}
		case x.Rank() == 3 && y.Rank() == 3:
			shape = []sym.Expr{x.Shape[1], y.Shape[2]}
		default:
			return nil, Errorf(CodeShape, "", "%s: unexpected ranks %d and %d", c.Op.Schema.Name, x.Rank(), y.Rank())
		}
		dt, err := PromoteTypes(self.DType, x.DType)
		if err != nil {
			return nil, err
		}
		if dt, err = PromoteTypes(dt, y.DType); err != nil {
			return nil, err
		}
		return one(env.Contiguous(dt, shape, self.Device)), nil
	}
}

// metaLogSigmoidForward follows the decomposition fake tensors run
// (torch/_decomp log_sigmoid_forward): the buffer is self's shape, but
// empty ([0]) on CUDA and XPU, whose kernels do not keep it.
func metaLogSigmoidForward(env *Env, c *Call) ([]ir.Type, error) {
	self, err := c.Tensor("self")
	if err != nil {
		return nil, err
	}
	buf := copyExprs(self.Shape)
	if self.Device.Type == "cuda" || self.Device.Type == "xpu" {
		buf = []sym.Expr{sym.Const(0)}
	}
	return types(env.Contiguous(self.DType, copyExprs(self.Shape), self.Device), env.Contiguous(self.DType, buf, self.Device)), nil
}
