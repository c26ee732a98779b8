package ops

import (
	"github.com/kiln-compiler/kiln/ir"
	"github.com/kiln-compiler/kiln/ir/sym"
)

// Complex views, special functions and the other ops of issue 11's list
// (diag, norm.ScalarOpt_dim, round.decimals, _fused_rms_norm). Schemas are
// PyTorch 2.15's; internal/opcases checks the rules against its fake types.

func miscTable11() []Entry {
	v := selfEntry(KindView)
	p := func(schema string, kind PromotionKind) Entry {
		return Entry{Schema: schema, Kind: KindPointwise, Meta: pw(kind, "self")}
	}
	return []Entry{
		v("view_as_real(Tensor(a) self) -> Tensor(a)", metaViewAsReal),
		v("view_as_complex(Tensor(a) self) -> Tensor(a)", metaViewAsComplex),
		v("_conj(Tensor(a) self) -> Tensor(a)", metaAlias),
		v("conj(Tensor(a) self) -> Tensor(a)", metaAlias),
		v("_neg_view(Tensor(a) self) -> Tensor(a)", metaAlias),
		p("round.decimals(Tensor self, *, int decimals) -> Tensor", PromoteDefault),
		p("polygamma(int n, Tensor self) -> Tensor", PromoteIntToFloat),
		p("mvlgamma(Tensor self, int p) -> Tensor", PromoteIntToFloat),
		{Schema: "norm.ScalarOpt_dim(Tensor self, Scalar? p, int[1] dim, bool keepdim=False) -> Tensor", Kind: KindReduction, Meta: reduction(outRealFloat)},
		{Schema: "norm.Scalar(Tensor self, Scalar p=2) -> Tensor", Kind: KindReduction, Meta: reduction(outRealFloat)},
		{Schema: "diag(Tensor self, int diagonal=0) -> Tensor", Kind: KindShape, Meta: selfRule(metaDiag)},
		{Schema: "_scaled_mm(Tensor self, Tensor mat2, Tensor scale_a, Tensor scale_b, Tensor? bias=None, Tensor? scale_result=None, ScalarType? out_dtype=None, bool use_fast_accum=False) -> Tensor",
			Kind: KindExtern, Meta: metaScaledMM},
		{Schema: "_fused_rms_norm(Tensor input, int[] normalized_shape, Tensor? weight, float? eps) -> (Tensor, Tensor)", Kind: KindNN, Meta: metaFusedRMSNorm},
	}
}

// metaAlias is a view with self's layout (conj, _neg_view: the bit kiln
// does not model changes values, not metadata).
func metaAlias(env *Env, c *Call, self *ir.TensorType) (*ir.TensorType, error) {
	return viewOf(self, copyExprs(self.Shape), copyExprs(stridesOf(self)), self.Offset), nil
}

// metaViewAsReal appends a dim of 2 (re, im): strides and offset double.
func metaViewAsReal(env *Env, c *Call, self *ir.TensorType) (*ir.TensorType, error) {
	part := self.DType.ComplexComponent()
	if part == ir.Invalid {
		return nil, Errorf(CodeDType, "", "view_as_real is only supported for complex tensors")
	}
	two := sym.Const(2)
	strides := []sym.Expr{}
	for _, s := range stridesOf(self) {
		strides = append(strides, sym.Mul(s, two))
	}
	t := viewOf(self, append(copyExprs(self.Shape), two), append(strides, c1), sym.Mul(self.Offset, two))
	t.DType = part
	return t, nil
}

// metaViewAsComplex drops a last dim of size 2 and stride 1.
func metaViewAsComplex(env *Env, c *Call, self *ir.TensorType) (*ir.TensorType, error) {
	dt := self.DType.ComplexOf()
	if dt == ir.Invalid {
		return nil, Errorf(CodeDType, "", "view_as_complex is only supported for float and double tensors, but got a tensor of scalar type: %s", ScalarTypeName(self.DType))
	}
	r := self.Rank()
	st := stridesOf(self)
	if r == 0 {
		return nil, Errorf(CodeShape, "", "Input tensor must have one or more dimensions")
	}
	if n, ok := self.Shape[r-1].Const(); !ok || n != 2 {
		return nil, Errorf(CodeShape, "", "Tensor must have a last dimension of size 2")
	}
	if s, ok := st[r-1].Const(); !ok || s != 1 {
		return nil, Errorf(CodeShape, "", "Tensor must have a last dimension with stride 1")
	}
	two := sym.Const(2)
	strides := make([]sym.Expr, r-1)
	for i := range strides {
		strides[i] = sym.FloorDiv(st[i], two)
	}
	t := viewOf(self, copyExprs(self.Shape[:r-1]), strides, sym.FloorDiv(self.Offset, two))
	t.DType = dt
	return t, nil
}

// metaDiag: a vector becomes a square matrix with it on diagonal d; a
// matrix gives its diagonal d as a vector.
func metaDiag(env *Env, c *Call, self *ir.TensorType) (*ir.TensorType, error) {
	d, err := c.Int("diagonal")
	if err != nil {
		return nil, err
	}
	switch self.Rank() {
	case 1:
		n := sym.Add(self.Shape[0], sym.Const(abs64(d)))
		return env.Contiguous(self.DType, []sym.Expr{n, n}, self.Device), nil
	case 2:
		rows, cols := self.Shape[0], self.Shape[1]
		var n sym.Expr
		if d >= 0 {
			n = sym.Max(sym.Const(0), sym.Min(rows, sym.Sub(cols, sym.Const(d))))
		} else {
			n = sym.Max(sym.Const(0), sym.Min(sym.Add(rows, sym.Const(d)), cols))
		}
		return env.Contiguous(self.DType, []sym.Expr{n}, self.Device), nil
	}
	return nil, Errorf(CodeShape, "", "diag(): Supports 1D or 2D tensors. Got %dD", self.Rank())
}

func abs64(x int64) int64 {
	if x < 0 {
		return -x
	}
	return x
}

// metaScaledMM is a float8 matmul: [M, K] @ [K, N] -> [M, N] of out_dtype
// (self's dtype when None), row-major.
func metaScaledMM(env *Env, c *Call) ([]ir.Type, error) {
	ts, err := tensorsOf(c, "self", "mat2")
	if err != nil {
		return nil, err
	}
	a, b := ts[0], ts[1]
	if a.Rank() != 2 || b.Rank() != 2 {
		return nil, Errorf(CodeShape, "", "self must be a matrix")
	}
	if eq, known := env.eqSize(a.Shape[1], b.Shape[0]); known && !eq {
		return nil, Errorf(CodeShape, "", "mat1 and mat2 shapes cannot be multiplied (%sx%s and %sx%s)", a.Shape[0], a.Shape[1], b.Shape[0], b.Shape[1])
	}
	dt, ok, err := c.DType("out_dtype")
	if err != nil {
		return nil, err
	}
	if !ok {
		dt = a.DType
	}
	return one(env.Contiguous(dt, []sym.Expr{a.Shape[0], b.Shape[1]}, a.Device)), nil
}

// metaFusedRMSNorm returns (out like input, rstd with the normalized dims
// kept as 1), as torch/_decomp's rms_norm: rstd is float32 for reduced
// floats.
func metaFusedRMSNorm(env *Env, c *Call) ([]ir.Type, error) {
	in, err := c.Tensor("input")
	if err != nil || in == nil {
		return nil, err
	}
	norm, err := c.SymInts("normalized_shape")
	if err != nil {
		return nil, err
	}
	axis, err := normalizedAxis(in, norm)
	if err != nil {
		return nil, err
	}
	stat := copyExprs(in.Shape[:axis])
	for range norm {
		stat = append(stat, c1)
	}
	statDT := in.DType
	if in.DType.IsReducedFloat() {
		statDT = ir.F32
	}
	return []ir.Type{ir.TensorOf(env.Contiguous(in.DType, copyExprs(in.Shape), in.Device)),
		ir.TensorOf(env.Contiguous(statDT, stat, in.Device))}, nil
}

// attentionCPUTable: the CPU flash attention AOT graphs keep (SDPA on the
// CPU under torch.compile) and flatten, as torch.export prints it.
func attentionCPUTable() []Entry {
	return []Entry{
		{Schema: "_scaled_dot_product_flash_attention_for_cpu(Tensor query, Tensor key, Tensor value, float dropout_p=0., bool is_causal=False, *, Tensor? attn_mask=None, float? scale=None) -> (Tensor output, Tensor logsumexp)",
			Kind: KindNN, Meta: metaSDPAFlashCPU},
		{Schema: "_scaled_dot_product_flash_attention_for_cpu_backward(Tensor grad_out, Tensor query, Tensor key, Tensor value, Tensor out, Tensor logsumexp, float dropout_p, bool is_causal, *, Tensor? attn_mask=None, float? scale=None) -> (Tensor grad_query, Tensor grad_key, Tensor grad_value)",
			Kind: KindNN, Meta: metaSDPAFlashCPUBackward},
		{Schema: "flatten.using_ints(Tensor(a) self, int start_dim=0, int end_dim=-1) -> Tensor(a)", Kind: KindView, Meta: selfRule(metaFlatten)},
	}
}

// bmhk lays out a [B, H, M, K] tensor with M outside H in memory (strides
// M·H·K, K, H·K, 1), as the CPU flash kernel allocates its results.
func (env *Env) bmhk(dt ir.DType, shape []sym.Expr, dev ir.Device) *ir.TensorType {
	return env.Fresh(dt, shape, stridesInOrder(shape, []int{0, 2, 1, 3}), dev)
}

// metaSDPAFlashCPU follows meta__scaled_dot_product_flash_attention_for_cpu
// (PyTorch 2.15): the output is empty_like(query), so it keeps query's
// layout (BMHK when q is a transposed [B, M, H, K]); logsumexp is [B, H, M]
// in the accumulation dtype, allocated [B, M, H] and transposed.
func metaSDPAFlashCPU(env *Env, c *Call) ([]ir.Type, error) {
	ts, err := tensorsOf(c, "query", "key", "value")
	if err != nil {
		return nil, err
	}
	q, v := ts[0], ts[2]
	if q.Rank() != 4 || v.Rank() != 4 {
		return nil, Errorf(CodeShape, "", "scaled_dot_product_attention_flash_attention: Accept only 4 dims inputs shape of {B, H, T, K}")
	}
	b, h, m := q.Shape[0], q.Shape[1], q.Shape[2]
	lseDT := q.DType
	if q.DType.IsReducedFloat() {
		lseDT = ir.F32
	}
	lse := env.Fresh(lseDT, []sym.Expr{b, h, m}, stridesInOrder([]sym.Expr{b, h, m}, []int{0, 2, 1}), q.Device)
	out := env.Fresh(q.DType, copyExprs(q.Shape), env.PreserveStrides(q), q.Device)
	return []ir.Type{ir.TensorOf(out), ir.TensorOf(lse)}, nil
}

// metaSDPAFlashCPUBackward: each gradient has its input's shape in BMHK
// layout.
func metaSDPAFlashCPUBackward(env *Env, c *Call) ([]ir.Type, error) {
	ts, err := tensorsOf(c, "query", "key", "value")
	if err != nil {
		return nil, err
	}
	out := make([]ir.Type, 3)
	for i, t := range ts {
		if t.Rank() != 4 {
			return nil, Errorf(CodeShape, "", "scaled_dot_product_attention_flash_attention_backward: Accept only 4 dims inputs shape of {B, H, T, K}")
		}
		out[i] = ir.TensorOf(env.bmhk(t.DType, copyExprs(t.Shape), t.Device))
	}
	return out, nil
}

// metaFlatten merges dims start..end into one, as reshape does.
func metaFlatten(env *Env, c *Call, self *ir.TensorType) (*ir.TensorType, error) {
	if self.Rank() == 0 {
		return viewOf(self, []sym.Expr{c1}, []sym.Expr{c1}, self.Offset), nil
	}
	s, err := c.Dim("start_dim", self.Rank())
	if err != nil {
		return nil, err
	}
	e, err := c.Dim("end_dim", self.Rank())
	if err != nil {
		return nil, err
	}
	if s > e {
		return nil, Errorf(CodeDim, "", "flatten() has invalid args: start_dim cannot come after end_dim")
	}
	merged := sym.Const(1)
	for _, x := range self.Shape[s : e+1] {
		merged = sym.Mul(merged, x)
	}
	shape := append(append(copyExprs(self.Shape[:s]), merged), copyExprs(self.Shape[e+1:])...)
	if strides, ok := env.ComputeStride(self.Shape, stridesOf(self), shape); ok {
		return viewOf(self, shape, strides, offsetOf(self)), nil
	}
	return env.Contiguous(self.DType, shape, self.Device), nil
}
