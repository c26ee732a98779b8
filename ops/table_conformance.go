package ops

import (
	"github.com/kiln-compiler/kiln/ir"
	"github.com/kiln-compiler/kiln/ir/sym"
)

// Ops the conformance table (internal/conformance) showed untyped: special
// functions and other pointwise ops (promotion kinds checked against
// PyTorch 2.15 on int, bool and float inputs), the backward ops of views,
// and a few shape ops. Schemas are PyTorch's (TestDeclaredSchemasMatchPyTorch).
func conformanceTable() []Entry {
	// PyTorch tags these pointwise; lowering has no scalar functions for
	// most of them yet, which its coverage test lists.
	e := func(schema string, kind PromotionKind, operands ...string) Entry {
		return Entry{Schema: schema, Kind: KindPointwise, Meta: pw(kind, operands...)}
	}
	return []Entry{
		e("special_bessel_j0(Tensor self) -> Tensor", PromoteIntToFloat, "self"),
		e("special_bessel_j1(Tensor self) -> Tensor", PromoteIntToFloat, "self"),
		e("special_bessel_y0(Tensor self) -> Tensor", PromoteIntToFloat, "self"),
		e("special_bessel_y1(Tensor self) -> Tensor", PromoteIntToFloat, "self"),
		e("special_modified_bessel_i0(Tensor self) -> Tensor", PromoteIntToFloat, "self"),
		e("special_modified_bessel_i1(Tensor self) -> Tensor", PromoteIntToFloat, "self"),
		e("special_modified_bessel_k0(Tensor self) -> Tensor", PromoteIntToFloat, "self"),
		e("special_modified_bessel_k1(Tensor self) -> Tensor", PromoteIntToFloat, "self"),
		e("special_scaled_modified_bessel_k0(Tensor x) -> Tensor", PromoteIntToFloat, "x"),
		e("special_scaled_modified_bessel_k1(Tensor x) -> Tensor", PromoteIntToFloat, "x"),
		e("special_spherical_bessel_j0(Tensor x) -> Tensor", PromoteIntToFloat, "x"),
		e("special_airy_ai(Tensor x) -> Tensor", PromoteIntToFloat, "x"),
		e("special_i1(Tensor self) -> Tensor", PromoteIntToFloat, "self"),
		e("special_i1e(Tensor self) -> Tensor", PromoteIntToFloat, "self"),
		e("special_i0e(Tensor self) -> Tensor", PromoteIntToFloat, "self"),
		e("special_ndtri(Tensor self) -> Tensor", PromoteIntToFloat, "self"),
		e("special_log_ndtr(Tensor self) -> Tensor", PromoteIntToFloat, "self"),
		e("special_erfcx(Tensor self) -> Tensor", PromoteIntToFloat, "self"),
		e("special_entr(Tensor self) -> Tensor", PromoteIntToFloat, "self"),
		e("logit(Tensor self, float? eps=None) -> Tensor", PromoteIntToFloat, "self"),
		e("special_xlog1py(Tensor self, Tensor other) -> Tensor", PromoteIntToFloat, "self", "other"),
		e("special_zeta(Tensor self, Tensor other) -> Tensor", PromoteIntToFloat, "self", "other"),
		e("special_chebyshev_polynomial_t(Tensor x, Tensor n) -> Tensor", PromoteIntToFloat, "x", "n"),
		e("special_chebyshev_polynomial_u(Tensor x, Tensor n) -> Tensor", PromoteIntToFloat, "x", "n"),
		e("special_chebyshev_polynomial_v(Tensor x, Tensor n) -> Tensor", PromoteIntToFloat, "x", "n"),
		e("special_chebyshev_polynomial_w(Tensor x, Tensor n) -> Tensor", PromoteIntToFloat, "x", "n"),
		e("special_shifted_chebyshev_polynomial_t(Tensor x, Tensor n) -> Tensor", PromoteIntToFloat, "x", "n"),
		e("special_shifted_chebyshev_polynomial_u(Tensor x, Tensor n) -> Tensor", PromoteIntToFloat, "x", "n"),
		e("special_shifted_chebyshev_polynomial_v(Tensor x, Tensor n) -> Tensor", PromoteIntToFloat, "x", "n"),
		e("special_shifted_chebyshev_polynomial_w(Tensor x, Tensor n) -> Tensor", PromoteIntToFloat, "x", "n"),
		e("special_hermite_polynomial_h(Tensor x, Tensor n) -> Tensor", PromoteIntToFloat, "x", "n"),
		e("special_hermite_polynomial_he(Tensor x, Tensor n) -> Tensor", PromoteIntToFloat, "x", "n"),
		e("special_laguerre_polynomial_l(Tensor x, Tensor n) -> Tensor", PromoteIntToFloat, "x", "n"),
		e("special_legendre_polynomial_p(Tensor x, Tensor n) -> Tensor", PromoteIntToFloat, "x", "n"),
		e("igamma(Tensor self, Tensor other) -> Tensor", PromoteIntToFloat, "self", "other"),
		e("igammac(Tensor self, Tensor other) -> Tensor", PromoteIntToFloat, "self", "other"),
		e("ldexp.Tensor(Tensor self, Tensor other) -> Tensor", PromoteIntToFloat, "self", "other"),
		e("heaviside(Tensor self, Tensor values) -> Tensor", PromoteDefault, "self", "values"),
		e("lcm(Tensor self, Tensor other) -> Tensor", PromoteDefault, "self", "other"),
		e("gcd(Tensor self, Tensor other) -> Tensor", PromoteDefault, "self", "other"),
		e("nextafter(Tensor self, Tensor other) -> Tensor", PromoteDefault, "self", "other"),
		e("isposinf(Tensor self) -> Tensor", PromoteAlwaysBool, "self"),
		e("isneginf(Tensor self) -> Tensor", PromoteAlwaysBool, "self"),
		// The backward of a view is a new zero tensor of the input's sizes
		// that the gradient is scattered into.
		{Schema: "slice_backward(Tensor grad_output, SymInt[] input_sizes, int dim, SymInt start, SymInt end, SymInt step) -> Tensor", Kind: KindShape, Meta: metaViewBackward},
		{Schema: "select_backward(Tensor grad_output, SymInt[] input_sizes, int dim, SymInt index) -> Tensor", Kind: KindShape, Meta: metaViewBackward},
		{Schema: "diagonal_backward(Tensor grad_output, SymInt[] input_sizes, int offset, int dim1, int dim2) -> Tensor", Kind: KindShape, Meta: metaViewBackward},
		{Schema: "diag_embed(Tensor self, int offset=0, int dim1=-2, int dim2=-1) -> Tensor", Kind: KindShape, Meta: selfRule(metaDiagEmbed)},
		{Schema: "nonzero_static(Tensor self, *, SymInt size, int fill_value=-1) -> Tensor", Kind: KindIndexing, Meta: selfRule(metaNonzeroStatic)},
		{Schema: "take(Tensor self, Tensor index) -> Tensor", Kind: KindIndexing, Meta: metaTake},
		{Schema: "put(Tensor self, Tensor index, Tensor source, bool accumulate=False) -> Tensor", Kind: KindIndexing, Meta: selfRule(metaPreserve)},
		{Schema: "index_reduce(Tensor self, int dim, Tensor index, Tensor source, str reduce, *, bool include_self=True) -> Tensor", Kind: KindIndexing, Meta: selfRule(metaPreserve)},
		{Schema: "_conj_physical(Tensor self) -> Tensor", Kind: KindPointwise, Meta: selfRule(metaPreserve)},
		{Schema: "logcumsumexp(Tensor self, int dim) -> Tensor", Kind: KindReduction, Meta: selfRule(metaSameShape)},
		{Schema: "cummax(Tensor self, int dim) -> (Tensor values, Tensor indices)", Kind: KindReduction, Meta: metaCumMinMax},
		{Schema: "cummin(Tensor self, int dim) -> (Tensor values, Tensor indices)", Kind: KindReduction, Meta: metaCumMinMax},
		{Schema: "unsafe_split.Tensor(Tensor self, SymInt split_size, int dim=0) -> Tensor[]", Kind: KindShape, Meta: metaSplit},
	}
}

// metaViewBackward is a row-major tensor of input_sizes in the gradient's
// dtype and device.
func metaViewBackward(env *Env, c *Call) ([]ir.Type, error) {
	g, err := c.Tensor("grad_output")
	if err != nil {
		return nil, err
	}
	sizes, err := c.SymInts("input_sizes")
	if err != nil {
		return nil, err
	}
	return one(env.Contiguous(g.DType, sizes, g.Device)), nil
}

// metaDiagEmbed appends a diagonal: the last dim n becomes two dims of
// n+|offset| at dim1 and dim2 of the result (rank+1), row-major.
func metaDiagEmbed(env *Env, c *Call, self *ir.TensorType) (*ir.TensorType, error) {
	if err := needDims(self, "diag_embed"); err != nil {
		return nil, err
	}
	args, err := c.IntArgs("offset", "dim1", "dim2")
	if err != nil {
		return nil, err
	}
	rank := self.Rank() + 1
	d1, d2, err := wrapDimPair(args[1], args[2], rank)
	if err != nil {
		return nil, err
	}
	if d1 == d2 {
		return nil, Errorf(CodeInvalidArgVal, "", "diagonal dimensions cannot be identical %d, %d", args[1], args[2])
	}
	off := args[0]
	if off < 0 {
		off = -off
	}
	n := sym.Add(self.Shape[self.Rank()-1], sym.Const(off))
	rest := self.Shape[:self.Rank()-1]
	shape := make([]sym.Expr, 0, rank)
	for i, j := 0, 0; i < rank; i++ {
		if i == d1 || i == d2 {
			shape = append(shape, n)
			continue
		}
		shape = append(shape, rest[j])
		j++
	}
	return env.Contiguous(self.DType, shape, self.Device), nil
}

// metaNonzeroStatic is nonzero with a size the caller fixed: i64[size, rank].
func metaNonzeroStatic(env *Env, c *Call, self *ir.TensorType) (*ir.TensorType, error) {
	size, err := c.SymInt("size")
	if err != nil {
		return nil, err
	}
	return env.Contiguous(ir.I64, []sym.Expr{size, sym.Const(int64(self.Rank()))}, self.Device), nil
}

// metaTake reads self flattened at index: index's shape, self's dtype.
func metaTake(env *Env, c *Call) ([]ir.Type, error) {
	self, err := c.Tensor("self")
	if err != nil {
		return nil, err
	}
	idx, err := c.Tensor("index")
	if err != nil {
		return nil, err
	}
	return one(env.Contiguous(self.DType, copyExprs(idx.Shape), self.Device)), nil
}

// metaCumMinMax is a scan that also returns where each running extreme is.
func metaCumMinMax(env *Env, c *Call) ([]ir.Type, error) {
	self, err := c.Tensor("self")
	if err != nil {
		return nil, err
	}
	if _, err := c.Dim("dim", self.Rank()); err != nil {
		return nil, err
	}
	v := env.Contiguous(self.DType, copyExprs(self.Shape), self.Device)
	i := env.Contiguous(ir.I64, copyExprs(self.Shape), self.Device)
	return []ir.Type{ir.TensorOf(v), ir.TensorOf(i)}, nil
}
