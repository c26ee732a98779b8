package interp

import (
	"fmt"

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
	"trace": {rule: splitLinear},
	"mm":    {rule: splitBilinear, a: "self", b: "mat2"}, "bmm": {rule: splitBilinear, a: "self", b: "mat2"},
	"matmul": {rule: splitBilinear, a: "self", b: "other"}, "mv": {rule: splitBilinear, a: "self", b: "vec"},
	"dot":   {rule: splitBilinear, a: "self", b: "tensor"},
	"vdot":  {rule: splitBilinear, a: "self", b: "other", conj: true},
	"addmm": {rule: splitAddmm, a: "mat1", b: "mat2"}, "baddbmm": {rule: splitAddmm, a: "batch1", b: "batch2"},
	"addmv": {rule: splitAddmm, a: "mat", b: "vec"}, "addr": {rule: splitAddmm, a: "vec1", b: "vec2"},
	"linalg_vector_norm": {rule: splitAbs}, "norm": {rule: splitAbs},
}

// withComplex wraps op's kernel with its split rule; the kernel runs as is
// when no argument is complex.
func withComplex(op *ops.Op, k kernel) kernel {
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
		switch which {
		case realPart:
			return real(v)
		case imagPart:
			return imag(v)
		}
	case float64, int64:
		if which == imagPart && value {
			return 0.0
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
