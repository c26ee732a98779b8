package interp

import (
	"fmt"
	"math"

	"github.com/kiln-compiler/kiln/ir"
	"github.com/kiln-compiler/kiln/ops"
)

// Complex views, diag, norm.ScalarOpt_dim, round.decimals and the special
// functions polygamma and mvlgamma (aten/src/ATen/native/Math.h).

// kViewAsReal reads a complex tensor's storage as (re, im) pairs of its
// part type: shape + [2], strides and offset doubled.
func kViewAsReal(c *call, t *Tensor) (*Tensor, error) {
	part := t.DType.ComplexComponent()
	if part == ir.Invalid {
		return nil, fmt.Errorf("view_as_real is only supported for complex tensors")
	}
	if t.Conj {
		return nil, fmt.Errorf("view_as_real doesn't work on unresolved conjugated tensors.  To resolve the conjugate tensor so you can view it as real, use self.resolve_conj()")
	}
	strides := make([]int64, 0, t.Dim()+1)
	for _, s := range t.Strides {
		strides = append(strides, 2*s)
	}
	return &Tensor{DType: part, Shape: append(clone64(t.Shape), 2), Strides: append(strides, 1), Offset: 2 * t.Offset, Storage: t.Storage, Neg: t.Neg}, nil
}

// kViewAsComplex is view_as_real's inverse: a last dim of size 2 and
// stride 1, other strides and the offset even.
func kViewAsComplex(c *call, t *Tensor) (*Tensor, error) {
	dt := t.DType.ComplexOf()
	if dt == ir.Invalid {
		return nil, fmt.Errorf("view_as_complex is only supported for float and double tensors, but got a tensor of scalar type: %s", scalarTypeName(t.DType))
	}
	r := t.Dim()
	if r == 0 || t.Shape[r-1] != 2 {
		return nil, fmt.Errorf("Tensor must have a last dimension of size 2")
	}
	if t.Strides[r-1] != 1 {
		return nil, fmt.Errorf("Tensor must have a last dimension with stride 1")
	}
	strides := make([]int64, r-1)
	for i := range strides {
		if t.Strides[i]%2 != 0 {
			return nil, fmt.Errorf("Tensor must have a stride divisible by 2 for all but last dimension")
		}
		strides[i] = t.Strides[i] / 2
	}
	if t.Offset%2 != 0 {
		return nil, fmt.Errorf("Tensor must have a storage_offset divisible by 2")
	}
	return &Tensor{DType: dt, Shape: clone64(t.Shape[:r-1]), Strides: strides, Offset: t.Offset / 2, Storage: t.Storage, Neg: t.Neg}, nil
}

// kDiag: a vector onto diagonal d of a square matrix, or a matrix's
// diagonal d as a vector.
func kDiag(c *call) ([]any, error) {
	t, d, err := c.selfInt("diagonal")
	if err != nil {
		return nil, err
	}
	xs := t.Floats()
	switch t.Dim() {
	case 1:
		n := t.Shape[0] + abs(d)
		out := make([]float64, n*n)
		for i, v := range xs {
			r, col := int64(i)+max(-d, 0), int64(i)+max(d, 0)
			out[r*n+col] = v
		}
		return one(FromFloatsOn(t.DType, []int64{n, n}, out, t.Device()))
	case 2:
		rows, cols := t.Shape[0], t.Shape[1]
		var out []float64
		for i := int64(0); ; i++ {
			r, col := i+max(-d, 0), i+max(d, 0)
			if r >= rows || col >= cols {
				break
			}
			out = append(out, xs[r*cols+col])
		}
		return one(FromFloatsOn(t.DType, []int64{int64(len(out))}, out, t.Device()))
	}
	return nil, fmt.Errorf("diag(): Supports 1D or 2D tensors. Got %dD", t.Dim())
}

// kFusedRMSNorm is (x · rstd · weight, rstd) with rstd = 1/sqrt(mean(x²) +
// eps) over the normalized dims (eps None: float32's machine epsilon for
// float32 and reduced floats, as PyTorch computes in float32);
// rstd is float32 for reduced floats.
func kFusedRMSNorm(c *call) ([]any, error) {
	x, err := c.tensor("input")
	if err != nil {
		return nil, err
	}
	norm, err := c.intList("normalized_shape")
	if err != nil {
		return nil, err
	}
	w, err := c.optTensor("weight")
	if err != nil {
		return nil, err
	}
	eps := machineEps(opmath(x.DType)) // finfo of the computation dtype: float32 for bf16
	if !c.isNone("eps") {
		if eps, err = c.float("eps"); err != nil {
			return nil, err
		}
	}
	if len(norm) > x.Dim() {
		return nil, fmt.Errorf("_fused_rms_norm: normalized_shape has more dims than the input")
	}
	inner := numel(norm)
	rows := x.Numel() / max(inner, 1)
	xs, ws := x.Floats(), floatsOrNil(w)
	out, rstd := make([]float64, len(xs)), make([]float64, rows)
	for r := int64(0); r < rows; r++ {
		s := 0.0
		for j := int64(0); j < inner; j++ {
			v := xs[r*inner+j]
			s += v * v
		}
		rstd[r] = 1 / math.Sqrt(s/float64(inner)+eps)
		for j := int64(0); j < inner; j++ {
			v := xs[r*inner+j] * rstd[r]
			if ws != nil {
				v *= ws[j]
			}
			out[r*inner+j] = v
		}
	}
	statShape := clone64(x.Shape[:x.Dim()-len(norm)])
	for range norm {
		statShape = append(statShape, 1)
	}
	statDT := x.DType
	if x.DType.IsReducedFloat() {
		statDT = ir.F32
	}
	return []any{FromFloatsOn(x.DType, x.Shape, out, x.Device()), FromFloatsOn(statDT, statShape, rstd, x.Device())}, nil
}

// machineEps is torch.finfo(dt).eps.
func machineEps(dt ir.DType) float64 {
	switch dt {
	case ir.F64:
		return 0x1p-52
	case ir.F16:
		return 0x1p-10
	case ir.BF16:
		return 0x1p-7
	}
	return 0x1p-23
}

// kScaledMM is (self @ mat2) · scale_a · scale_b (+ bias), accumulated in
// float64 and rounded once into out_dtype; per-tensor scales only.
func kScaledMM(c *call) ([]any, error) {
	a, b, err := c.tensor2("self", "mat2")
	if err != nil {
		return nil, err
	}
	sa, sb, err := c.tensor2("scale_a", "scale_b")
	if err != nil {
		return nil, err
	}
	if sa.Numel() != 1 || sb.Numel() != 1 {
		return nil, fmt.Errorf("_scaled_mm: the interpreter supports per-tensor scales only")
	}
	bias, err := c.optTensor("bias")
	if err != nil {
		return nil, err
	}
	dt, ok, err := c.dtype("out_dtype")
	if err != nil {
		return nil, err
	}
	if !ok {
		dt = a.DType
	}
	if a.Dim() != 2 || b.Dim() != 2 || a.Shape[1] != b.Shape[0] {
		return nil, fmt.Errorf("mat1 and mat2 shapes cannot be multiplied (%dx%d and %dx%d)", a.Shape[0], a.Shape[1], b.Shape[0], b.Shape[1])
	}
	m, k, n := a.Shape[0], a.Shape[1], b.Shape[1]
	av, bv, scale := a.Floats(), b.Floats(), sa.Floats()[0]*sb.Floats()[0]
	var biasV []float64
	if bias != nil {
		biasV = bias.Floats()
	}
	out := make([]float64, m*n)
	for i := int64(0); i < m; i++ {
		for j := int64(0); j < n; j++ {
			s := 0.0
			for p := int64(0); p < k; p++ {
				s += av[i*k+p] * bv[p*n+j]
			}
			out[i*n+j] = s * scale
			if biasV != nil {
				out[i*n+j] += biasV[j%int64(len(biasV))]
			}
		}
	}
	return one(FromFloatsOn(dt, []int64{m, n}, out, a.Device()))
}

func abs(x int64) int64 {
	if x < 0 {
		return -x
	}
	return x
}

// kNormScalarOptDim is linalg_vector_norm with p (None means 2).
func kNormScalarOptDim(c *call) ([]any, error) {
	p := 2.0
	if !c.isNone("p") {
		v, err := c.float("p")
		if err != nil {
			return nil, err
		}
		p = v
	}
	return kVectorNorm(c.with(map[string]any{"ord": p}))
}

// kRoundDecimals rounds half to even at 10^-decimals, in the tensor's
// dtype as ATen does: x·10^d, nearbyint, /10^d (or /, ·, for d < 0).
func kRoundDecimals(c *call) ([]any, error) {
	dec, err := c.int("decimals")
	if err != nil {
		return nil, err
	}
	in, err := operands(c, "self")
	if err != nil {
		return nil, err
	}
	neg := dec < 0
	ten := math.Pow(10, float64(abs(dec)))
	mk := func(r rounder) func(float64) float64 {
		p := r(ten)
		return func(x float64) float64 {
			switch {
			case dec == 0:
				return math.RoundToEven(x)
			case neg:
				return r(math.RoundToEven(r(x/p)) * p)
			}
			return r(math.RoundToEven(r(x*p)) / p)
		}
	}
	k := ewKernel{f: func(dt ir.DType) chunkF { return fl1(mk(rounderFor(dt)))(dt) }, i: in1(func(x int64) int64 { return x })}
	return oneT(elementwise(ewSpec{kind: ops.PromoteDefault, opName: "round"}, k, in))
}

func kPolygamma(c *call) ([]any, error) {
	n, err := c.int("n")
	if err != nil {
		return nil, err
	}
	if n < 0 {
		return nil, fmt.Errorf("polygamma(n, x) does not support negative n.")
	}
	in, err := operands(c, "self")
	if err != nil {
		return nil, err
	}
	k := ewKernel{f: byScalarType(func(x float32) float32 { return polygammaT(n, x) }, func(x float64) float64 { return polygammaT(n, x) })}
	return oneT(elementwise(ewSpec{kind: ops.PromoteIntToFloat, opName: "polygamma"}, k, in))
}

// kMvlgamma is Σ_{i<p} lgamma(x - i/2) + p(p-1)/4 · log π.
func kMvlgamma(c *call) ([]any, error) {
	self, p, err := c.selfInt("p")
	if err != nil {
		return nil, err
	}
	if p < 1 {
		return nil, fmt.Errorf("p has to be greater than or equal to 1")
	}
	for _, x := range self.Floats() {
		if !(x > float64(p-1)/2) {
			return nil, fmt.Errorf("All elements must be greater than (p-1)/2")
		}
	}
	in, err := operands(c, "self")
	if err != nil {
		return nil, err
	}
	k := ewKernel{f: fl1(func(x float64) float64 {
		s := float64(p*(p-1)) / 4 * math.Log(math.Pi)
		for i := int64(0); i < p; i++ {
			lg, _ := math.Lgamma(x - float64(i)/2)
			s += lg
		}
		return s
	})}
	return oneT(elementwise(ewSpec{kind: ops.PromoteIntToFloat, opName: "mvlgamma"}, k, in))
}

func init() {
	register(selfK(kViewAsReal), "view_as_real")
	register(selfK(kViewAsComplex), "view_as_complex")
	register(kDiag, "diag")
	register(kFusedRMSNorm, "_fused_rms_norm")
	register(kScaledMM, "_scaled_mm")
	register(kNormScalarOptDim, "norm.ScalarOpt_dim")
	register(kRoundDecimals, "round.decimals")
	register(kPolygamma, "polygamma")
	register(kMvlgamma, "mvlgamma")
}
