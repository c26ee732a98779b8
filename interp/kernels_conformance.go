package interp

import (
	"fmt"
	"math"

	"github.com/kiln-compiler/kiln/ir"
	"github.com/kiln-compiler/kiln/ops"
)

// Kernels the conformance table (internal/conformance) asked for: special
// functions with closed forms in Go's math package, the backward ops of
// views, diag_embed and take.

// specialUnary are unary special functions; their first parameter is
// `self` or `x` depending on the op, so they bind it by position.
var specialUnary = []unaryOp{
	{"special_bessel_j0", ops.PromoteIntToFloat, math.J0, nil},
	{"special_bessel_j1", ops.PromoteIntToFloat, math.J1, nil},
	{"special_bessel_y0", ops.PromoteIntToFloat, math.Y0, nil},
	{"special_bessel_y1", ops.PromoteIntToFloat, math.Y1, nil},
	{"special_i0e", ops.PromoteIntToFloat, func(x float64) float64 { return math.Exp(-math.Abs(x)) * besselI0(x) }, nil},
	{"special_ndtri", ops.PromoteIntToFloat, func(p float64) float64 { return math.Sqrt2 * math.Erfinv(2*p-1) }, nil},
	{"special_entr", ops.PromoteIntToFloat, entr, nil},
	{"special_spherical_bessel_j0", ops.PromoteIntToFloat, func(x float64) float64 {
		if x == 0 {
			return 1
		}
		if math.IsInf(x, 0) {
			return 0
		}
		return math.Sin(x) / x
	}, nil},
}

// entr is -x·ln(x), 0 at 0, -inf below (ATen's special_entr).
func entr(x float64) float64 {
	switch {
	case x != x:
		return x
	case x > 0:
		return -x * math.Log(x)
	case x == 0:
		return 0
	}
	return math.Inf(-1)
}

func init() {
	for _, u := range specialUnary {
		u := u
		unaryByName[u.name] = u
		register(func(c *call) ([]any, error) {
			x, err := c.val(c.op.Schema.Params[0].Name)
			if err != nil {
				return nil, err
			}
			return oneT(unaryNamed(u.name, x))
		}, u.name)
	}
	register(kLogit, "logit")
	register(binKernel("special_xlog1py", ops.PromoteIntToFloat, ewKernel{f: fl2(xlog1py)}), "special_xlog1py")
	register(binKernel("heaviside", ops.PromoteDefault, ewKernel{f: fl2(heaviside), i: in2(func(x, v int64) int64 {
		switch {
		case x == 0:
			return v
		case x > 0:
			return 1
		}
		return 0
	})}), "heaviside")
	register(binKernel("gcd", ops.PromoteDefault, intOnly(gcd)), "gcd")
	register(binKernel("lcm", ops.PromoteDefault, intOnly(func(a, b int64) int64 {
		g := gcd(a, b)
		if g == 0 {
			return 0
		}
		l := a / g * b
		if l < 0 {
			return -l
		}
		return l
	})), "lcm")
	register(kViewBackward, "slice_backward", "select_backward", "diagonal_backward")
	register(kDiagEmbed, "diag_embed")
	register(kTake, "take")
}

func xlog1py(x, y float64) float64 {
	if y != y {
		return y
	}
	if x == 0 {
		return 0
	}
	return x * math.Log1p(y)
}

func heaviside(x, v float64) float64 {
	switch {
	case x != x:
		return x
	case x == 0:
		return v
	case x > 0:
		return 1
	}
	return 0
}

func gcd(a, b int64) int64 {
	if a < 0 {
		a = -a
	}
	if b < 0 {
		b = -b
	}
	for b != 0 {
		a, b = b, a%b
	}
	return a
}

// kLogit is log(x/(1-x)), x clamped to [eps, 1-eps] when eps is given.
func kLogit(c *call) ([]any, error) {
	self, err := c.val("self")
	if err != nil {
		return nil, err
	}
	f := func(x float64) float64 { return math.Log(x / (1 - x)) }
	if !c.isNone("eps") {
		eps, err := c.float("eps")
		if err != nil {
			return nil, err
		}
		f = func(x float64) float64 {
			if x == x {
				x = math.Min(math.Max(x, eps), 1-eps)
			}
			return math.Log(x / (1 - x))
		}
	}
	o, err := scalarOperand(self)
	if err != nil {
		return nil, err
	}
	return oneT(elementwise(ewSpec{kind: ops.PromoteIntToFloat, opName: "logit"}, ewKernel{f: fl1(f)}, []operand{o}))
}

// kViewBackward writes the gradient into the view it came from, in a zero
// tensor of the input's sizes.
func kViewBackward(c *call) ([]any, error) {
	g, err := c.tensor("grad_output")
	if err != nil {
		return nil, err
	}
	sizes, err := c.intList("input_sizes")
	if err != nil {
		return nil, err
	}
	out, err := Empty(g.DType, sizes, ContiguousStrides(sizes), g.Device())
	if err != nil {
		return nil, err
	}
	var view *Tensor
	switch c.op.Schema.Name {
	case "slice_backward":
		a, err := c.ints("dim", "start", "end", "step")
		if err != nil {
			return nil, err
		}
		view, err = sliceView(out, a[0], &a[1], &a[2], a[3])
		if err != nil {
			return nil, err
		}
	case "select_backward":
		a, err := c.ints("dim", "index")
		if err != nil {
			return nil, err
		}
		if view, err = selectView(out, a[0], a[1]); err != nil {
			return nil, err
		}
	case "diagonal_backward":
		a, err := c.ints("offset", "dim1", "dim2")
		if err != nil {
			return nil, err
		}
		if view, err = diagonal(out, a[0], a[1], a[2]); err != nil {
			return nil, err
		}
	default:
		return nil, fmt.Errorf("%s: not a view backward", c.op.Schema.Name)
	}
	if err := copyTensor(view, g); err != nil {
		return nil, err
	}
	return one(out)
}

// kDiagEmbed puts self's last dim on the (dim1, dim2) diagonal of zeros.
func kDiagEmbed(c *call) ([]any, error) {
	self, err := c.tensor("self")
	if err != nil {
		return nil, err
	}
	a, err := c.ints("offset", "dim1", "dim2")
	if err != nil {
		return nil, err
	}
	if self.Dim() == 0 {
		return nil, fmt.Errorf("diag_embed: expected a tensor with at least 1 dimension")
	}
	rank := int64(self.Dim() + 1)
	d1, d2 := (a[1]+rank)%rank, (a[2]+rank)%rank
	off := a[0]
	if off < 0 {
		off = -off
	}
	n := self.Shape[self.Dim()-1] + off
	shape := make([]int64, 0, rank)
	for i, j := int64(0), 0; i < rank; i++ {
		if i == d1 || i == d2 {
			shape = append(shape, n)
			continue
		}
		shape = append(shape, self.Shape[j])
		j++
	}
	out, err := Empty(self.DType, shape, ContiguousStrides(shape), self.Device())
	if err != nil {
		return nil, err
	}
	view, err := diagonal(out, a[0], d1, d2)
	if err != nil {
		return nil, err
	}
	if err := copyTensor(view, self); err != nil {
		return nil, err
	}
	return one(out)
}

// kTake reads self as if flattened, at index (negative indices wrap).
func kTake(c *call) ([]any, error) {
	self, idx, err := c.tensor2("self", "index")
	if err != nil {
		return nil, err
	}
	if idx.DType != ir.I64 {
		return nil, fmt.Errorf("take(): Expected a long tensor for index, but got %s", scalarTypeName(idx.DType))
	}
	out, err := Empty(self.DType, idx.Shape, ContiguousStrides(idx.Shape), self.Device())
	if err != nil {
		return nil, err
	}
	n, size := self.Numel(), int64(self.DType.ItemSize())
	src := self.offsets()
	for i, k := range idx.Ints() {
		if k < -n || k >= n {
			return nil, fmt.Errorf("out of range: tried to access index %d on a tensor of %d elements.", k, n)
		}
		if k < 0 {
			k += n
		}
		copy(out.Storage.Data[int64(i)*size:int64(i+1)*size], self.Storage.Data[src[k]*size:(src[k]+1)*size])
	}
	return one(out)
}
