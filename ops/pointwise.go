package ops

import (
	"fmt"
	"strings"

	"github.com/kiln-compiler/kiln/ir"
	"github.com/kiln-compiler/kiln/ir/sym"
)

// Elementwise meta rules, after TensorIterator (aten/src/ATen/TensorIterator.cpp:
// compute_shape, compute_types, reorder_dimensions, allocate_or_resize_outputs)
// and torch/_prims_common (elementwise_dtypes, compute_elementwise_output_strides).

// operand is one argument of an elementwise op after reading it.
type operand struct {
	name   string
	tensor *ir.TensorType // nil for a Python/symbolic scalar
	dtype  ir.DType
	shape  bool // takes part in broadcasting and strides
	promo  bool // takes part in type promotion
}

// pw builds an elementwise rule: the named parameters are the operands
// (tensors or scalars); a name prefixed with "~" broadcasts but does not
// promote (where's condition, masked_fill's mask). In-place variants
// (Tensor(a!) self) keep self's type and check the cast and the shape.
func pw(kind PromotionKind, names ...string) MetaFunc {
	return func(env *Env, c *Call) ([]ir.Type, error) {
		ops, err := readOperands(c, names)
		if err != nil {
			return nil, err
		}
		t, err := env.elementwise(c, kind, ops)
		if err != nil {
			return nil, err
		}
		return []ir.Type{ir.TensorOf(t)}, nil
	}
}

func readOperands(c *Call, names []string) ([]operand, error) {
	var out []operand
	for _, name := range names {
		o := operand{name: strings.TrimPrefix(name, "~"), shape: true, promo: !strings.HasPrefix(name, "~")}
		a := c.Arg(o.name)
		if a.Kind == ir.ArgNone {
			continue
		}
		if a.Kind == ir.ArgValue && a.Value.Type.Kind == ir.KindTensor {
			o.tensor = a.Value.Type.Tensor
			o.dtype = o.tensor.DType
		} else {
			dt, err := ScalarArgDType(a)
			if err != nil {
				return nil, fmt.Errorf("argument %s: %w", o.name, err)
			}
			o.dtype, o.shape = dt, false
		}
		out = append(out, o)
	}
	return out, nil
}

// ScalarArgDType is the dtype a Python number or symbolic scalar promotes
// as in type promotion (int → i64, float → f64, bool → bool).
func ScalarArgDType(a ir.Arg) (ir.DType, error) {
	switch a.Kind {
	case ir.ArgInt:
		return ir.I64, nil
	case ir.ArgFloat:
		return ir.F64, nil
	case ir.ArgComplex:
		return ir.C128, nil
	case ir.ArgBool:
		return ir.Bool, nil
	case ir.ArgValue:
		switch a.Value.Type.Kind {
		case ir.KindSymInt:
			return ir.I64, nil
		case ir.KindSymFloat:
			return ir.F64, nil
		case ir.KindSymBool:
			return ir.Bool, nil
		case ir.KindUnknown:
			return ir.Invalid, &UntypedError{Value: a.Value}
		}
	}
	return ir.Invalid, fmt.Errorf("expected a tensor or a number, got %s", a.String())
}

// elementwise computes the output of a TensorIterator op over ops.
func (env *Env) elementwise(c *Call, kind PromotionKind, ops []operand) (*ir.TensorType, error) {
	var promo []Operand
	var tensors []*ir.TensorType
	var shapes [][]sym.Expr
	for _, o := range ops {
		if o.promo {
			promo = append(promo, Operand{DType: o.dtype, ZeroD: o.tensor != nil && o.tensor.Rank() == 0, Scalar: o.tensor == nil})
		}
		if o.tensor != nil {
			tensors = append(tensors, o.tensor)
			shapes = append(shapes, o.tensor.Shape)
		}
	}
	if len(tensors) == 0 {
		return nil, fmt.Errorf("%s: no tensor operand", c.Op.QualifiedName())
	}
	promoted, err := ResultType(promo)
	if err != nil {
		return nil, Errorf(CodeDType, "", "%s", err.Error())
	}
	if c.Op.Schema.Name == "sub" || c.Op.Schema.Name == "sub_" || c.Op.Schema.Name == "rsub" {
		if err := checkBoolSub(ops); err != nil {
			return nil, err
		}
	}
	dev, err := CommonDevice(tensors)
	if err != nil {
		return nil, err
	}
	shape, err := env.BroadcastShapes(shapes...)
	if err != nil {
		return nil, err
	}
	if c.Op.IsInplace() {
		return env.inplaceResult(c, kind, promoted, shape)
	}
	strides := env.ElementwiseStrides(shape, tensors)
	if sameShapeContiguous(shape, tensors) {
		strides = ir.ContiguousStrides(shape)
	}
	return env.Fresh(kind.ResultDType(promoted), shape, strides, dev), nil
}

// sameShapeContiguous is TensorIterator's CONTIGUOUS fast setup: every
// tensor operand has the result's shape and is contiguous as PyTorch
// counts it (size-1 dims' strides ignored, an empty tensor always is), so
// the result is row-major; e.g. [1, 3, 2][2, 2, 1] · itself is
// [1, 3, 2][6, 2, 1] under FakeTensorMode.
func sameShapeContiguous(shape []sym.Expr, tensors []*ir.TensorType) bool {
	for _, t := range tensors {
		if !sym.EqualLists(t.Shape, shape) || !IsContiguous(t) {
			return false
		}
	}
	return true
}

func checkBoolSub(ops []operand) error {
	for _, o := range ops {
		if o.promo && o.dtype != ir.Bool {
			return nil
		}
	}
	return Errorf(CodeDType, "use the ^ operator or logical_xor() on bool tensors",
		"Subtraction, the `-` operator, with two bool tensors is not supported. Use the `^` or `logical_xor()` operator instead.")
}

// inplaceResult checks an in-place op: the result is self, which must hold
// the broadcast shape and be able to take the computed dtype.
func (env *Env) inplaceResult(c *Call, kind PromotionKind, promoted ir.DType, shape []sym.Expr) (*ir.TensorType, error) {
	self, err := c.Tensor(c.Op.Schema.Params[0].Name)
	if err != nil {
		return nil, err
	}
	if !sym.EqualLists(self.Shape, shape) {
		return nil, Errorf(CodeShape, "in-place ops cannot grow self; use the out-of-place op",
			"output with shape %s doesn't match the broadcast shape %s", shapeString(self.Shape), shapeString(shape))
	}
	if res := kind.ResultDType(promoted); kind != PromoteAlwaysBool && !CanCast(res, self.DType) {
		return nil, errCannotCast(res, self.DType)
	}
	return self.Clone(), nil
}

// shapeString prints sizes as PyTorch's messages do: [4, 3].
func shapeString(shape []sym.Expr) string {
	parts := make([]string, len(shape))
	for i, s := range shape {
		parts[i] = s.String()
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

// CommonDevice is TensorIterator's compute_device with the mixed-device
// check: CPU 0-dim tensors may join tensors on any device.
func CommonDevice(ts []*ir.TensorType) (ir.Device, error) {
	var dev ir.Device
	var cpuScalar bool
	for _, t := range ts {
		d := t.Device
		if !d.Known() {
			continue
		}
		if d.IsCPU() && t.Rank() == 0 {
			cpuScalar = true
			continue
		}
		if !dev.Known() {
			dev = d
			continue
		}
		if d != dev {
			return ir.Device{}, Errorf(CodeDevice, "move the tensors to one device first (.to(device))",
				"Expected all tensors to be on the same device, but found at least two devices, %s and %s!", dev, d)
		}
	}
	if !dev.Known() && cpuScalar {
		dev = ir.CPU
	}
	return dev, nil
}

// ElementwiseStrides is TensorIterator's output layout: dims sorted by the
// operands' strides (broadcast dims ignored), innermost first, then dense
// strides in that order. Inputs all row-major give row-major output; a
// transposed or channels-last input gives an output in its dim order.
func (env *Env) ElementwiseStrides(shape []sym.Expr, ts []*ir.TensorType) []sym.Expr {
	n := len(shape)
	if n == 0 {
		return []sym.Expr{}
	}
	strides := make([][]sym.Expr, 0, len(ts))
	for _, t := range ts {
		strides = append(strides, expandStrides(t, shape))
	}
	if n == 1 {
		return []sym.Expr{c1}
	}
	perm := make([]int, n) // innermost first
	for i := range perm {
		perm[i] = n - 1 - i
	}
	for i := 1; i < n; i++ {
		d1 := i
		for d0 := i - 1; d0 >= 0; d0-- {
			cmp := env.shouldSwap(perm[d0], perm[d1], shape, strides)
			if cmp > 0 {
				perm[d0], perm[d1] = perm[d1], perm[d0]
				d1 = d0
			} else if cmp < 0 {
				break
			}
		}
	}
	inverted := true
	for j, d := range perm {
		inverted = inverted && d == n-1-j
	}
	if inverted {
		return ir.ContiguousStrides(shape)
	}
	out := make([]sym.Expr, n)
	acc := c1
	for _, d := range perm {
		out[d] = acc
		acc = sym.Mul(acc, shape[d])
	}
	return out
}

// shouldSwap is reorder_dimensions' comparison: 1 when dim a should be
// outside dim b, -1 when inside, 0 when no operand decides.
func (env *Env) shouldSwap(a, b int, shape []sym.Expr, strides [][]sym.Expr) int {
	for _, st := range strides {
		sa, sb := st[a], st[b]
		if isConst(sa, 0) || isConst(sb, 0) {
			continue
		}
		switch env.cmpExpr(sa, sb) {
		case -1:
			return -1
		case 1:
			return 1
		case 2:
			continue
		}
		if env.cmpExpr(shape[a], shape[b]) == 1 {
			return 1
		}
	}
	return 0
}
