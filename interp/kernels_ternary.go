package interp

import (
	"fmt"
	"math"
	"math/cmplx"

	"github.com/kiln-compiler/kiln/ir"
	"github.com/kiln-compiler/kiln/ops"
	"github.com/kiln-compiler/kiln/rt"
)

// Pointwise ops with three operands or extra parameters: pow, where, clamp,
// lerp, addcmul/addcdiv, fma, masked_fill and the activation backwards.

func fl3r(mk func(r rounder) func(a, b, c float64) float64) func(ir.DType) chunkF {
	return func(dt ir.DType) chunkF { return fl3(mk(rounderFor(dt)))(dt) }
}

// operands reads the named parameters as elementwise operands; missing or
// None parameters are skipped.
func operands(c *call, names ...string) ([]operand, error) {
	var out []operand
	for _, name := range names {
		if c.isNone(name) {
			continue
		}
		x, err := c.val(name)
		if err != nil {
			return nil, err
		}
		o, err := scalarOperand(x)
		if err != nil {
			return nil, fmt.Errorf("argument '%s': %v", name, err)
		}
		out = append(out, o)
	}
	return out, nil
}

// pickIf is where's lane: a where p is set, else b.
func pickIf[T lane](p, a, b T) T {
	if p != 0 {
		return a
	}
	return b
}

// fillIf is masked_fill's lane: v where the mask m is set, else x.
func fillIf[T lane](x, m, v T) T { return pickIf(m, v, x) }

// thresholdGrad is threshold_backward's lane: g, or 0 where x <= th.
func thresholdGrad[T lane](th float64) func(g, x T) T {
	return func(g, x T) T {
		if float64(x) <= th {
			return 0
		}
		return g
	}
}

func kPow(c *call) ([]any, error) {
	in, err := operands(c, "self", "exponent")
	if err != nil {
		return nil, err
	}
	spec := ewSpec{kind: ops.PromoteBoolToLong, opName: "pow"}
	compute, _, err := spec.promote(in)
	if err != nil {
		return nil, err
	}
	if e := in[1]; e.scalar && !compute.IsFloat() && e.dt != ir.F64 && e.i < 0 {
		return nil, fmt.Errorf("Integers to negative integer powers are not allowed.")
	}
	return oneT(elementwise(spec, ewKernel{f: fl2(rt.Pow), i: in2(rt.PowI64)}, in))
}

func kWhere(c *call) ([]any, error) {
	cond, err := c.tensor("condition")
	if err != nil {
		return nil, err
	}
	if cond.DType != ir.Bool && cond.DType != ir.U8 {
		return nil, fmt.Errorf("where expected condition to be a boolean tensor, but got a tensor with dtype %s", scalarTypeName(cond.DType))
	}
	in, err := operands(c, "self", "other")
	if err != nil {
		return nil, err
	}
	all := append([]operand{{t: cond, dt: cond.DType}}, in...)
	k := ewKernel{f: fl3(pickIf[float64]), i: in3(pickIf[int64])}
	return oneT(elementwise(ewSpec{kind: ops.PromoteDefault, opName: "where"}, k, all))
}

// kClamp covers clamp, clamp_min and clamp_max with scalar or tensor
// bounds; a NaN bound or input gives NaN, min > max gives max.
func kClamp(c *call) ([]any, error) {
	hasMin, hasMax := !c.isNone("min"), !c.isNone("max")
	if !hasMin && !hasMax {
		return nil, fmt.Errorf("torch.clamp: At least one of 'min' or 'max' must not be None")
	}
	in, err := operands(c, "self", "min", "max")
	if err != nil {
		return nil, err
	}
	lo := func(cols [][]float64, i int) float64 { return math.Inf(-1) }
	hi := func(cols [][]float64, i int) float64 { return math.Inf(1) }
	loI := func(cols [][]int64, i int) int64 { return math.MinInt64 }
	hiI := func(cols [][]int64, i int) int64 { return math.MaxInt64 }
	next := 1
	if hasMin {
		j := next
		lo = func(cols [][]float64, i int) float64 { return cols[j][i] }
		loI = func(cols [][]int64, i int) int64 { return cols[j][i] }
		next++
	}
	if hasMax {
		j := next
		hi = func(cols [][]float64, i int) float64 { return cols[j][i] }
		hiI = func(cols [][]int64, i int) int64 { return cols[j][i] }
	}
	k := ewKernel{
		f: func(ir.DType) chunkF {
			return func(dst []float64, cols [][]float64) {
				for i := range dst {
					x, l, h := cols[0][i], lo(cols, i), hi(cols, i)
					if l != l || h != h {
						dst[i] = math.NaN()
						continue
					}
					dst[i] = clampNaN(x, l, h)
				}
			}
		},
		i: func(ir.DType) chunkI {
			return func(dst []int64, cols [][]int64) {
				for i := range dst {
					dst[i] = min(max(cols[0][i], loI(cols, i)), hiI(cols, i))
				}
			}
		},
	}
	return oneT(elementwise(ewSpec{kind: ops.PromoteDefault, opName: "clamp"}, k, in))
}

// kLerp is ATen's lerp: self + w·(end - self) for |w| < 0.5, else
// end - (end - self)·(1 - w), in opmath.
func kLerp(c *call) ([]any, error) {
	in, err := operands(c, "self", "end", "weight")
	if err != nil {
		return nil, err
	}
	in[2].promo = false
	k := ewKernel{f: fl3r(func(r rounder) func(a, b, w float64) float64 {
		return func(a, b, w float64) float64 {
			if math.Abs(w) < 0.5 {
				return r(a + r(w*r(b-a)))
			}
			return r(b - r(r(b-a)*r(1-w)))
		}
	}), c: func(x []complex128) complex128 {
		a, b, w := x[0], x[1], x[2]
		if cmplx.Abs(w) < 0.5 {
			return a + w*(b-a)
		}
		return b - (b-a)*(1-w)
	}}
	return oneT(elementwise(ewSpec{kind: ops.PromoteDefault, opName: "lerp"}, k, in))
}

// kAddcmul is self + value·t1·t2 (addcdiv: self + value·t1/t2).
func kAddcOp(div bool) kernel {
	return func(c *call) ([]any, error) {
		in, err := operands(c, "self", "tensor1", "tensor2")
		if err != nil {
			return nil, err
		}
		value, err := c.scalar("value")
		if err != nil {
			return nil, err
		}
		vf, _ := num(value)
		vi, _ := intOrBool(value)
		spec := ewSpec{kind: ops.PromoteDefault, opName: "addcmul"}
		if div {
			spec.opName = "addcdiv"
			compute, _, err := spec.promote(in)
			if err != nil {
				return nil, err
			}
			if !compute.IsFloat() && !compute.IsComplex() {
				return nil, fmt.Errorf("Integer division with addcdiv is no longer supported, and in a future release addcdiv will perform a true division of tensor1 and tensor2. The historic addcdiv behavior can be implemented as (input + value * torch.trunc(tensor1 / tensor2)).to(input.dtype) for integer inputs and as (input + value * tensor1 / tensor2) for float inputs. The future addcdiv behavior is just the latter implementation: (input + value * tensor1 / tensor2), for all dtypes.")
			}
		}
		k := ewKernel{
			f: fl3r(func(r rounder) func(a, b, d float64) float64 {
				v := r(vf)
				if div {
					return func(a, b, d float64) float64 { return r(a + r(r(v*b)/d)) }
				}
				return func(a, b, d float64) float64 { return r(a + r(r(v*b)*d)) }
			}),
			i: in3(func(a, b, d int64) int64 { return a + vi*b*d }),
		}
		if vc, err := scalarC(value); err == nil {
			k.c = func(x []complex128) complex128 {
				if div {
					return x[0] + vc*x[1]/x[2]
				}
				return x[0] + vc*x[1]*x[2]
			}
		}
		return oneT(elementwise(spec, k, in))
	}
}

func kFma(c *call) ([]any, error) {
	in, err := operands(c, "a", "b", "c")
	if err != nil {
		return nil, err
	}
	k := ewKernel{f: fl3(math.FMA), i: in3(func(a, b, d int64) int64 { return a*b + d })}
	return oneT(elementwise(ewSpec{kind: ops.PromoteDefault, opName: "fma"}, k, in))
}

// backward2 builds a two-operand backward kernel over (grad, x).
func backward2(name, second string, mk func(r rounder) func(g, x float64) float64) kernel {
	return func(c *call) ([]any, error) {
		in, err := operands(c, "grad_output", second)
		if err != nil {
			return nil, err
		}
		return oneT(elementwise(ewSpec{kind: ops.PromoteDefault, opName: name}, ewKernel{f: fl2r(mk)}, in))
	}
}

func kThresholdBackward(c *call) ([]any, error) {
	in, err := operands(c, "grad_output", "self")
	if err != nil {
		return nil, err
	}
	th, err := c.float("threshold")
	if err != nil {
		return nil, err
	}
	k := ewKernel{f: fl2(thresholdGrad[float64](th)), i: in2(thresholdGrad[int64](th))}
	return oneT(elementwise(ewSpec{kind: ops.PromoteDefault, opName: "threshold_backward"}, k, in))
}

func geluBackward(c *call) ([]any, error) {
	approx, err := c.str("approximate")
	if err != nil {
		return nil, err
	}
	tanhForm := approx == "tanh"
	return backward2("gelu_backward", "self", func(r rounder) func(g, x float64) float64 {
		return func(g, x float64) float64 {
			if !tanhForm {
				cdf := 0.5 * (1 + math.Erf(x/math.Sqrt2))
				pdf := math.Exp(-0.5*x*x) / math.Sqrt(2*math.Pi)
				return g * (cdf + x*pdf)
			}
			const kappa = 0.044715
			beta := math.Sqrt(2 / math.Pi)
			inner := beta * (x + kappa*x*x*x)
			t := math.Tanh(inner)
			left, right := 0.5*x, 1+t
			dl := 0.5 * right
			dr := left * (1 - t*t) * beta * (1 + 3*kappa*x*x)
			return g * (dl + dr)
		}
	})(c)
}

// kMaskedFill writes value where mask is true; the result keeps self's
// dtype and takes the broadcast shape of self and mask.
func kMaskedFill(c *call) ([]any, error) {
	self, mask, err := c.tensor2("self", "mask")
	if err != nil {
		return nil, err
	}
	if mask.DType != ir.Bool {
		return nil, fmt.Errorf("masked_fill_ only supports boolean masks, but got mask with dtype %s", mask.DType.Name())
	}
	v, err := c.val("value")
	if err != nil {
		return nil, err
	}
	if t, ok := v.(*Tensor); ok && t.Dim() != 0 {
		return nil, fmt.Errorf("masked_fill_ only supports a 0-dimensional value tensor, but got tensor with %d dimension(s).", t.Dim())
	}
	val, err := asScalar(v, "value")
	if err != nil {
		return nil, err
	}
	vo, _ := scalarOperand(val)
	in := []operand{{t: self, dt: self.DType}, {t: mask, dt: ir.Bool}, vo}
	k := ewKernel{f: fl3(fillIf[float64]), i: in3(fillIf[int64])}
	return oneT(elementwiseAs("masked_fill", self.DType, self.DType, k, in))
}

func init() {
	register(kPow, "pow.Tensor_Tensor", "pow.Tensor_Scalar", "pow.Scalar")
	register(kWhere, "where.self", "where.ScalarSelf", "where.ScalarOther", "where.Scalar")
	register(kClamp, "clamp", "clamp.Tensor", "clamp_min", "clamp_min.Tensor", "clamp_max", "clamp_max.Tensor")
	register(kLerp, "lerp.Scalar", "lerp.Tensor")
	register(kAddcOp(false), "addcmul")
	register(kAddcOp(true), "addcdiv")
	register(kFma, "prims::fma")
	register(kThresholdBackward, "threshold_backward")
	register(backward2("sigmoid_backward", "output", func(r rounder) func(g, y float64) float64 {
		return func(g, y float64) float64 { return r(r(g*r(1-y)) * y) }
	}), "sigmoid_backward")
	register(backward2("tanh_backward", "output", func(r rounder) func(g, y float64) float64 {
		return func(g, y float64) float64 { return r(g * r(1-r(y*y))) }
	}), "tanh_backward")
	register(geluBackward, "gelu_backward")
	register(backward2("silu_backward", "self", func(r rounder) func(g, x float64) float64 {
		return func(g, x float64) float64 {
			s := rt.Sigmoid(x)
			return g * s * (1 + x*(1-s))
		}
	}), "silu_backward")
	register(kMaskedFill, "masked_fill.Scalar", "masked_fill.Tensor")
}
