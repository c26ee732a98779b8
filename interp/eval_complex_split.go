package interp

import (
	"fmt"
	"math"
	"math/cmplx"

	"github.com/kiln-compiler/kiln/ir"
	"github.com/kiln-compiler/kiln/ops"
)

// Complex tensors through real kernels. Many ops are linear in their
// complex operands over the reals (they move or add values: gather, index,
// scatter, cat, sum, mean, cumsum, fill), so their complex result is the
// kernel run on the real parts plus i times the kernel run on the
// imaginary parts; matrix products are bilinear ((a+bi)(c+di) = ac-bd +
// (ad+bc)i: four real products); vector norms depend on |z| only. Each op
// declares which rule it follows, once, here.

type splitRule int

const (
	splitLinear   splitRule = iota + 1 // f(re) + i·f(im)
	splitBilinear                      // the two operands named in splitOperands
	splitAbs                           // f(|z|): a real result
	splitAddmm                         // β·self + α·(m1 ⊗ m2), the product bilinear
)

type splitOp struct {
	rule splitRule
	a, b string // the bilinear operands (splitBilinear, splitAddmm)
	conj bool   // conjugate a first (vdot)
}

var splitOps = map[string]splitOp{
	"sum": {rule: splitLinear}, "nansum": {rule: splitLinear}, "mean": {rule: splitLinear}, "cumsum": {rule: splitLinear},
	"gather": {rule: splitLinear}, "take_along_dim": {rule: splitLinear}, "take": {rule: splitLinear},
	"scatter": {rule: splitLinear}, "scatter_add": {rule: splitLinear}, "index": {rule: splitLinear},
	"index_put": {rule: splitLinear}, "index_copy": {rule: splitLinear}, "index_add": {rule: splitLinear},
	"index_fill": {rule: splitLinear}, "index_select": {rule: splitLinear}, "masked_scatter": {rule: splitLinear},
	"masked_fill": {rule: splitLinear}, "block_diag": {rule: splitLinear}, "cat": {rule: splitLinear},
	"constant_pad_nd": {rule: splitLinear}, "full": {rule: splitLinear}, "full_like": {rule: splitLinear},
	"new_full": {rule: splitLinear}, "put": {rule: splitLinear}, "flip": {rule: splitLinear}, "roll": {rule: splitLinear},
	"diag": {rule: splitLinear}, "diag_embed": {rule: splitLinear}, "tril": {rule: splitLinear}, "triu": {rule: splitLinear},
	"trace": {rule: splitLinear}, "scalar_tensor": {rule: splitLinear}, "fill": {rule: splitLinear},
	"mm": {rule: splitBilinear, a: "self", b: "mat2"}, "bmm": {rule: splitBilinear, a: "self", b: "mat2"},
	"matmul": {rule: splitBilinear, a: "self", b: "other"}, "mv": {rule: splitBilinear, a: "self", b: "vec"},
	"dot":   {rule: splitBilinear, a: "self", b: "tensor"},
	"vdot":  {rule: splitBilinear, a: "self", b: "other", conj: true},
	"addmm": {rule: splitAddmm, a: "mat1", b: "mat2"}, "baddbmm": {rule: splitAddmm, a: "batch1", b: "batch2"},
	"addmv": {rule: splitAddmm, a: "mat", b: "vec"}, "addr": {rule: splitAddmm, a: "vec1", b: "vec2"},
	"linalg_cross":       {rule: splitBilinear, a: "self", b: "other"},
	"linalg_vector_norm": {rule: splitAbs}, "norm": {rule: splitAbs},
}

// withComplex wraps op's kernel with its split rule; the kernel runs as is
// when no argument is complex.
func withComplex(op *ops.Op, k kernel) kernel {
	if nk, ok := complexNative[op.Schema.Name]; ok {
		return func(c *call) ([]any, error) {
			if t, err := c.tensor(op.Schema.Params[0].Name); err == nil && t.DType.IsComplex() {
				return nk(c)
			}
			return k(c)
		}
	}
	s, ok := splitOps[op.Schema.Name]
	if !ok {
		return k
	}
	return func(c *call) ([]any, error) {
		args, has, err := complexArgs(c)
		if err != nil || !has {
			return k(c)
		}
		switch s.rule {
		case splitLinear:
			return splitLinearRun(c, k, args)
		case splitAbs:
			return k(c.with(partArgs(c, args, absPart)))
		}
		return splitProduct(c, k, s, args)
	}
}

// complexArgs evaluates every parameter, reporting whether one is complex
// (a tensor, a Python complex, a complex dtype, a list holding one).
func complexArgs(c *call) (map[string]any, bool, error) {
	args := map[string]any{}
	found := false
	for _, p := range c.op.Schema.Params {
		x, err := c.val(p.Name)
		if err != nil {
			return nil, false, err
		}
		args[p.Name] = x
		found = found || isComplexValue(x)
	}
	return args, found, nil
}

func isComplexValue(x any) bool {
	switch v := x.(type) {
	case *Tensor:
		return v.DType.IsComplex()
	case complex128:
		return true
	case ir.DType:
		return v.IsComplex()
	case []any:
		for _, e := range v {
			if isComplexValue(e) {
				return true
			}
		}
	}
	return false
}

// part selects what a value becomes in one real run.
type part int

const (
	realPart part = iota
	imagPart
	absPart
)

// partArgs maps every complex value to its part: tensors to float tensors
// of the part dtype, Python complex to a float, complex dtypes to their
// part dtype. In the imaginary run, the real values an op adds in (float
// tensors, Scalar parameters other than the multipliers α and β) are 0.
func partArgs(c *call, args map[string]any, which part) map[string]any {
	out := map[string]any{}
	for _, p := range c.op.Schema.Params {
		x := args[p.Name]
		value := p.Type.Base == ops.TScalar && p.Name != "alpha" && p.Name != "beta"
		out[p.Name] = partOf(x, which, value)
	}
	return out
}

func partOf(x any, which part, value bool) any {
	switch v := x.(type) {
	case *Tensor:
		switch {
		case v.DType.IsComplex():
			return tensorPart(v, which)
		case which == imagPart && v.DType.IsFloat():
			z, _ := Empty(v.DType, v.Shape, nil, v.Device())
			return z
		}
	case complex128:
		switch {
		case !value: // a complex α or β does not split: the kernel refuses it
		case which == realPart:
			return real(v)
		case which == imagPart:
			return imag(v)
		}
	case float64, int64:
		if which == imagPart && value {
			return 0.0
		}
	case bool:
		if which == imagPart && value {
			return false
		}
	case ir.DType:
		if v.IsComplex() {
			return v.ComplexComponent()
		}
	case []any:
		out := make([]any, len(v))
		for i, e := range v {
			out[i] = partOf(e, which, value)
		}
		return out
	}
	return x
}

// tensorPart is a complex tensor's real or imaginary part, or magnitude,
// as a contiguous tensor of its part dtype.
func tensorPart(t *Tensor, which part) *Tensor {
	zs := complexes(t)
	vals := make([]float64, len(zs))
	for i, z := range zs {
		switch which {
		case realPart:
			vals[i] = real(z)
		case imagPart:
			vals[i] = imag(z)
		default:
			vals[i] = absC(z)
		}
	}
	return FromFloatsOn(t.DType.ComplexComponent(), t.Shape, vals, t.Device())
}

// splitLinearRun runs k on the real parts and on the imaginary parts and
// joins each pair of float results into a complex one.
func splitLinearRun(c *call, k kernel, args map[string]any) ([]any, error) {
	re, err := k(c.with(partArgs(c, args, realPart)))
	if err != nil {
		return nil, err
	}
	im, err := k(c.with(partArgs(c, args, imagPart)))
	if err != nil {
		return nil, err
	}
	return joinParts(re, im, 1)
}

// joinParts combines results: sign·im is the imaginary part (float
// results only; index results come from the real run).
func joinParts(re, im []any, sign float64) ([]any, error) {
	if len(re) != len(im) {
		return nil, fmt.Errorf("complex split: %d and %d results", len(re), len(im))
	}
	out := make([]any, len(re))
	for i := range re {
		r, okR := re[i].(*Tensor)
		m, okI := im[i].(*Tensor)
		if !okR || !okI || !r.DType.IsFloat() || !equal64(r.Shape, m.Shape) {
			out[i] = re[i]
			continue
		}
		rs, ms := r.Floats(), m.Floats()
		zs := make([]complex128, len(rs))
		for j := range rs {
			zs[j] = complex(rs[j], sign*ms[j])
		}
		t, err := fromComplexes(r.DType.ComplexOf(), r.Shape, zs, r.Device())
		if err != nil {
			return nil, err
		}
		out[i] = t
	}
	return out, nil
}

// fromComplexes is a row-major complex tensor of dt holding zs.
func fromComplexes(dt ir.DType, shape []int64, zs []complex128, dev ir.Device) (*Tensor, error) {
	out, err := Empty(dt, shape, nil, dev)
	if err != nil {
		return nil, err
	}
	for i, z := range zs {
		storeC(dt, out.Storage.Data, int64(i), cplx{re: real(z), im: imag(z)})
	}
	return out, nil
}

// splitProduct runs a bilinear product as four real ones; for addmm and
// its relatives the product runs with β = 0, α = 1, and β·self + α·P is
// formed in complex arithmetic afterwards.
func splitProduct(c *call, k kernel, s splitOp, args map[string]any) ([]any, error) {
	a, okA := args[s.a].(*Tensor)
	b, okB := args[s.b].(*Tensor)
	if !okA || !okB {
		return nil, fmt.Errorf("%s: complex operands must be tensors", c.op.Schema.Name)
	}
	if a.DType != b.DType {
		return nil, fmt.Errorf("expected m1 and m2 to have the same dtype, but got: %s != %s", scalarTypeName(a.DType), scalarTypeName(b.DType))
	}
	ar, ai := asParts(a)
	br, bi := asParts(b)
	if s.conj {
		ai = negated(ai)
	}
	over := map[string]any{}
	if s.rule == splitAddmm {
		over["beta"], over["alpha"] = int64(0), int64(1)
		if self, ok := args["self"].(*Tensor); ok && self.DType.IsComplex() {
			over["self"] = tensorPart(self, realPart)
		}
	}
	run := func(x, y *Tensor) (*Tensor, error) {
		o := map[string]any{s.a: x, s.b: y}
		for k, v := range over {
			o[k] = v
		}
		res, err := k(c.with(o))
		if err != nil {
			return nil, err
		}
		t, ok := res[0].(*Tensor)
		if !ok {
			return nil, fmt.Errorf("%s: the product is not a tensor", c.op.Schema.Name)
		}
		return t, nil
	}
	var p [4]*Tensor
	for i, xy := range [4][2]*Tensor{{ar, br}, {ai, bi}, {ar, bi}, {ai, br}} {
		t, err := run(xy[0], xy[1])
		if err != nil {
			return nil, err
		}
		p[i] = t
	}
	rr, ii, ri, ir_ := p[0].Floats(), p[1].Floats(), p[2].Floats(), p[3].Floats()
	zs := make([]complex128, len(rr))
	for i := range zs {
		zs[i] = complex(rr[i]-ii[i], ri[i]+ir_[i])
	}
	prod, err := fromComplexes(p[0].DType.ComplexOf(), p[0].Shape, zs, p[0].Device())
	if err != nil || s.rule != splitAddmm {
		return []any{prod}, err
	}
	return addScaledC(c, args, prod)
}

// addScaledC is β·self + α·prod (self ignored when β is 0, as ATen does).
func addScaledC(c *call, args map[string]any, prod *Tensor) ([]any, error) {
	beta, err := scalarC(args["beta"])
	if err != nil {
		return nil, err
	}
	alpha, err := scalarC(args["alpha"])
	if err != nil {
		return nil, err
	}
	self, ok := args["self"].(*Tensor)
	if !ok {
		return nil, fmt.Errorf("%s: self must be a tensor", c.op.Schema.Name)
	}
	in := []operand{{t: self, dt: self.DType, promo: true}, {t: prod, dt: prod.DType, promo: true}}
	return oneT(complexElementwise(prod.DType, func(x []complex128) complex128 {
		if beta == 0 {
			return alpha * x[1]
		}
		return beta*x[0] + alpha*x[1]
	}, in))
}

func scalarC(x any) (complex128, error) {
	switch v := x.(type) {
	case complex128:
		return v, nil
	case float64:
		return complex(v, 0), nil
	case int64:
		return complex(float64(v), 0), nil
	case bool:
		if v {
			return 1, nil
		}
		return 0, nil
	}
	return 0, fmt.Errorf("expected a number, got %s", describe(x))
}

// asParts splits a tensor into real and imaginary float tensors (a real
// tensor's imaginary part is zeros).
func asParts(t *Tensor) (*Tensor, *Tensor) {
	if t.DType.IsComplex() {
		return tensorPart(t, realPart), tensorPart(t, imagPart)
	}
	z, _ := Empty(t.DType, t.Shape, nil, t.Device())
	return t, z
}

func negated(t *Tensor) *Tensor {
	xs := t.Floats()
	for i := range xs {
		xs[i] = -xs[i]
	}
	return FromFloatsOn(t.DType, t.Shape, xs, t.Device())
}

// complexNative are complex kernels of ops no real kernel composes into:
// products along dims and the moments.
var complexNative = map[string]kernel{
	"prod": kProdC, "cumprod": kCumprodC,
	"var": momentsC(false, false), "std": momentsC(true, false),
	"var_mean": momentsC(false, true), "std_mean": momentsC(true, true),
	"logsumexp": kLogSumExpC,
}

// kLogSumExpC is m + log Σ exp(z - m) per group, m the largest real part
// (0 when it is infinite, so that -inf rows give -inf).
func kLogSumExpC(c *call) ([]any, error) {
	t, err := c.tensor("self")
	if err != nil {
		return nil, err
	}
	dims, err := c.intList("dim")
	if err != nil {
		return nil, err
	}
	keepdim, err := c.bool("keepdim")
	if err != nil {
		return nil, err
	}
	r, err := plan(t, dims, keepdim)
	if err != nil {
		return nil, err
	}
	it := newOffsetIter(r.src.Shape, r.src.Strides, r.src.Offset, 0)
	offs := make([]int64, r.size)
	zs := make([]complex128, r.groups)
	for g := range zs {
		it.fill(offs)
		vals := make([]complex128, len(offs))
		m := math.Inf(-1)
		for i, o := range offs {
			v := loadC(t.DType, t.Storage.Data, o)
			vals[i] = complex(v.re, v.im)
			m = math.Max(m, v.re)
		}
		if math.IsInf(m, 0) {
			m = 0
		}
		s := complex128(0)
		for _, v := range vals {
			s += cmplx.Exp(v - complex(m, 0))
		}
		zs[g] = cmplx.Log(s) + complex(m, 0)
	}
	return oneT(fromComplexes(t.DType, r.outShape, zs, t.Device()))
}

// kProdC is prod over dims (all when none) of a complex tensor.
func kProdC(c *call) ([]any, error) {
	t, dims, keepdim, dt, hasDT, err := reduceArgs(c)
	if err != nil {
		return nil, err
	}
	if !hasDT {
		dt = t.DType
	}
	if !dt.IsComplex() {
		return nil, fmt.Errorf("prod: a complex input with result dtype %s is not modelled", scalarTypeName(dt))
	}
	r, err := plan(t, dims, keepdim)
	if err != nil {
		return nil, err
	}
	it := newOffsetIter(r.src.Shape, r.src.Strides, r.src.Offset, 0)
	offs := make([]int64, r.size)
	zs := make([]complex128, r.groups)
	for g := range zs {
		it.fill(offs)
		p := complex128(1)
		for _, o := range offs {
			v := loadC(t.DType, t.Storage.Data, o)
			p *= complex(v.re, v.im)
		}
		zs[g] = p
	}
	return oneT(fromComplexes(dt, r.outShape, zs, t.Device()))
}

// kCumprodC is the running product along dim of a complex tensor.
func kCumprodC(c *call) ([]any, error) {
	out, offs, n, err := scan(c, func(dt ir.DType) ir.DType { return dt })
	if err != nil || offs == nil {
		return oneT(out, err)
	}
	dt := out.DType
	for start := int64(0); start < int64(len(offs)); start += n {
		p := complex128(1)
		for _, o := range offs[start : start+n] {
			v := loadC(dt, out.Storage.Data, o)
			p *= complex(v.re, v.im)
			storeC(dt, out.Storage.Data, o, cplx{re: real(p), im: imag(p)})
		}
	}
	return one(out)
}

// momentsC is var/std(_mean) of a complex tensor: the variance is the real
// parts' plus the imaginary parts' (a real result), the mean complex.
func momentsC(std, withMean bool) kernel {
	return func(c *call) ([]any, error) {
		t, err := c.tensor("self")
		if err != nil {
			return nil, err
		}
		run := func(which part) ([]any, error) {
			return moments(c.with(map[string]any{"self": tensorPart(t, which)}), false, withMean)
		}
		re, err := run(realPart)
		if err != nil {
			return nil, err
		}
		im, err := run(imagPart)
		if err != nil {
			return nil, err
		}
		vr, vi := re[0].(*Tensor), im[0].(*Tensor)
		a, b := vr.Floats(), vi.Floats()
		for i := range a {
			a[i] += b[i]
			if std {
				a[i] = math.Sqrt(a[i])
			}
		}
		v := FromFloatsOn(vr.DType, vr.Shape, a, vr.Device())
		if !withMean {
			return one(v)
		}
		mean, err := joinParts(re[1:], im[1:], 1)
		if err != nil {
			return nil, err
		}
		return []any{v, mean[0]}, nil
	}
}
