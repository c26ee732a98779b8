package ops

import (
	"github.com/kiln-compiler/kiln/ir"
	"github.com/kiln-compiler/kiln/ir/sym"
)

// Pointwise ops of issue 11's special-function lane: activations and their
// backward (softshrink, celu, log_sigmoid_backward), frexp, and the ops that
// build a complex tensor from two real ones (complex, polar). Schemas are
// PyTorch 2.15's; types follow TensorIterator as its kernels build them
// (checked by internal/conformance against make_fx's fake types).
func pointwiseTableC11() []Entry {
	e := func(schema string, kind PromotionKind, operands ...string) Entry {
		return Entry{Schema: schema, Kind: KindPointwise, Meta: pw(kind, operands...)}
	}
	return []Entry{
		e("softshrink(Tensor self, Scalar lambd=0.5) -> Tensor", PromoteDefault, "self"),
		e("softshrink_backward(Tensor grad_output, Tensor self, Scalar lambd) -> Tensor", PromoteDefault, "grad_output", "self"),
		e("celu(Tensor self, Scalar alpha=1.) -> Tensor", PromoteDefault, "self"),
		// The decomposition PyTorch traces multiplies grad_output first, so
		// the result takes its layout.
		e("log_sigmoid_backward(Tensor grad_output, Tensor self, Tensor buffer) -> Tensor", PromoteDefault, "grad_output", "self"),
		e("hardshrink(Tensor self, Scalar lambd=0.5) -> Tensor", PromoteDefault, "self"),
		e("hardshrink_backward(Tensor grad_out, Tensor self, Scalar lambd) -> Tensor", PromoteDefault, "grad_out", "self"),
		// Both gradients come out of one TensorIterator over (self, weight,
		// grad_output).
		e("logit_backward(Tensor grad_output, Tensor self, float? eps=None) -> Tensor", PromoteDefault, "grad_output", "self"),
		{Schema: "angle(Tensor self) -> Tensor", Kind: KindPointwise, Meta: metaAngle},
		{Schema: "dist(Tensor self, Tensor other, Scalar p=2) -> Tensor", Kind: KindReduction, Meta: metaDist},
		{Schema: "frexp.Tensor(Tensor self) -> (Tensor mantissa, Tensor exponent)", Kind: KindPointwise, Meta: metaFrexp},
		{Schema: "conj_physical(Tensor self) -> Tensor", Kind: KindPointwise, Meta: selfRule(metaPreserve)},
		// The conjugate and negative bits are values, not metadata: these
		// alias self as far as types go.
		{Schema: "resolve_conj(Tensor(a) self) -> Tensor(a)", Kind: KindView, Meta: selfRule(metaAlias)},
		{Schema: "resolve_neg(Tensor(a) self) -> Tensor(a)", Kind: KindView, Meta: selfRule(metaAlias)},
		{Schema: "real(Tensor(a) self) -> Tensor(a)", Kind: KindView, Meta: selfRule(metaRealImag(false))},
		{Schema: "imag(Tensor(a) self) -> Tensor(a)", Kind: KindView, Meta: selfRule(metaRealImag(true))},
		{Schema: "complex(Tensor real, Tensor imag) -> Tensor", Kind: KindPointwise, Meta: metaComplexOf("real", "imag")},
		{Schema: "polar(Tensor abs, Tensor angle) -> Tensor", Kind: KindPointwise, Meta: metaComplexOf("abs", "angle")},
	}
}

// metaFrexp is (mantissa like self, exponent int32 like self); floating
// inputs only.
func metaFrexp(env *Env, c *Call) ([]ir.Type, error) {
	self, err := c.Tensor("self")
	if err != nil || self == nil {
		return nil, err
	}
	if !self.DType.IsFloat() {
		return nil, Errorf(CodeDType, "", "torch.frexp() only supports floating-point dtypes")
	}
	st := env.PreserveStrides(self)
	return []ir.Type{ir.TensorOf(env.Fresh(self.DType, copyExprs(self.Shape), st, self.Device)),
		ir.TensorOf(env.Fresh(ir.I32, copyExprs(self.Shape), copyExprs(st), self.Device))}, nil
}

// metaComplexOf types complex(real, imag) and polar(abs, angle): both
// operands of one float dtype (Half, Float, Double), broadcast as a binary
// op, and the result its complex counterpart.
func metaComplexOf(a, b string) MetaFunc {
	bin := pw(PromoteDefault, a, b)
	return func(env *Env, c *Call) ([]ir.Type, error) {
		ts, err := tensorsOf(c, a, b)
		if err != nil {
			return nil, err
		}
		x, y := ts[0], ts[1]
		if !isComplexablePart(x.DType) || !isComplexablePart(y.DType) {
			return nil, Errorf(CodeDType, "", "Expected both inputs to be Half, Float or Double tensors but got %s and %s", ScalarTypeName(x.DType), ScalarTypeName(y.DType))
		}
		if x.DType != y.DType {
			return nil, Errorf(CodeDType, "", "Expected object of scalar type %s but got scalar type %s for second argument", ScalarTypeName(x.DType), ScalarTypeName(y.DType))
		}
		res, err := bin(env, c)
		if err != nil {
			return nil, err
		}
		res[0].Tensor.DType = x.DType.ComplexOf()
		return res, nil
	}
}

func isComplexablePart(dt ir.DType) bool { return dt == ir.F16 || dt == ir.F32 || dt == ir.F64 }

// metaDist is norm(self - other, p): a 0-dim tensor of the operands'
// promoted floating dtype.
func metaDist(env *Env, c *Call) ([]ir.Type, error) {
	res, err := pw(PromoteDefault, "self", "other")(env, c)
	if err != nil {
		return nil, err
	}
	t := res[0].Tensor
	if !t.DType.IsFloat() && !t.DType.IsComplex() {
		return nil, Errorf(CodeDType, "", "norm(): input dtype should be either floating point or complex. Got %s instead.", ScalarTypeName(t.DType))
	}
	dt := t.DType
	if dt.IsComplex() {
		dt = dt.ComplexComponent()
	}
	return one(env.Contiguous(dt, nil, t.Device)), nil
}

// metaAngle promotes integers to the default float and gives complex
// inputs their real dtype.
func metaAngle(env *Env, c *Call) ([]ir.Type, error) {
	res, err := pw(PromoteIntToFloat, "self")(env, c)
	if err != nil {
		return nil, err
	}
	if t := res[0].Tensor; t.DType.IsComplex() {
		t.DType = t.DType.ComplexComponent()
	}
	return res, nil
}

// metaRealImag is real/imag: a complex tensor's parts as a view of its
// part dtype (strides and offset doubled, +1 for the imaginary part); real
// of a real tensor is the tensor itself.
func metaRealImag(imag bool) selfRuleFunc {
	return func(env *Env, c *Call, self *ir.TensorType) (*ir.TensorType, error) {
		part := self.DType.ComplexComponent()
		if part == ir.Invalid {
			if imag {
				return nil, Errorf(CodeDType, "", "imag is not implemented for tensors with non-complex dtypes.")
			}
			return metaAlias(env, c, self)
		}
		two := sym.Const(2)
		strides := []sym.Expr{}
		for _, st := range stridesOf(self) {
			strides = append(strides, sym.Mul(st, two))
		}
		off := sym.Mul(self.Offset, two)
		if imag {
			off = sym.Add(off, c1)
		}
		t := viewOf(self, copyExprs(self.Shape), strides, off)
		t.DType = part
		return t, nil
	}
}
