package ops

import (
	"fmt"
	"math"

	"github.com/kiln-compiler/kiln/ir"
	"github.com/kiln-compiler/kiln/ir/sym"
)

// Python functions that have no ATen op of their own, typed by what their
// Python bodies compute (torch/nn/functional.py, torch/_tensor.py). Each
// rule was checked against PyTorch 2.15's fake tensors on contiguous,
// channels-last and permuted inputs.

// pyRule types a Python-level call from its arguments bound by name.
type pyRule struct {
	sig  []string
	meta func(env *Env, a pyArgs) ([]ir.Type, error)
}

var pyRules = map[string]pyRule{
	"torch.tensor":                    {sig: []string{"data", "dtype", "device", "requires_grad", "pin_memory"}, meta: ruleTorchTensor},
	"torch.nn.functional.normalize":   {sig: []string{"input", "p", "dim", "eps", "out"}, meta: ruleNormalize},
	"torch.nn.functional.interpolate": {sig: []string{"input", "size", "scale_factor", "mode", "align_corners", "recompute_scale_factor", "antialias"}, meta: ruleInterpolate},
}

// pyArgs are a Python call's arguments by parameter name.
type pyArgs map[string]ir.Arg

func bindPy(target string, sig []string, args []ir.Arg, kwargs []ir.Kwarg) (pyArgs, error) {
	if len(args) > len(sig) {
		return nil, fmt.Errorf("%s takes at most %d positional arguments but %d were given", target, len(sig), len(args))
	}
	a := pyArgs{}
	for i, x := range args {
		a[sig[i]] = x
	}
	for _, k := range kwargs {
		a[k.Name] = k.Arg
	}
	return a, nil
}

func (a pyArgs) tensor(name string) (*ir.TensorType, error) {
	x, ok := a[name]
	if !ok {
		return nil, fmt.Errorf("missing argument %s", name)
	}
	return argTensor(x, name)
}

func (a pyArgs) given(name string) bool { x, ok := a[name]; return ok && x.Kind != ir.ArgNone }

// ruleTorchTensor is torch.tensor(data): the dtype Python's values infer
// (bool, int64, or the default float32), the nesting's shape, contiguous.
func ruleTorchTensor(env *Env, a pyArgs) ([]ir.Type, error) {
	shape, dt, err := literalShape(a["data"])
	if err != nil {
		return nil, err
	}
	if a.given("dtype") && a["dtype"].Kind == ir.ArgDType {
		dt = a["dtype"].DType
	}
	dev := ir.CPU
	if a.given("device") && a["device"].Kind == ir.ArgDevice {
		dev = a["device"].Device
	}
	return one(env.Contiguous(dt, shape, dev)), nil
}

func literalShape(x ir.Arg) ([]sym.Expr, ir.DType, error) {
	switch x.Kind {
	case ir.ArgBool:
		return nil, ir.Bool, nil
	case ir.ArgInt:
		return nil, ir.I64, nil
	case ir.ArgFloat:
		return nil, ir.F32, nil
	case ir.ArgList, ir.ArgTuple:
		dt := ir.Bool
		var inner []sym.Expr
		for i, e := range x.Elems {
			s, d, err := literalShape(e)
			if err != nil {
				return nil, 0, err
			}
			if i > 0 && len(s) != len(inner) {
				return nil, 0, Errorf(CodeShape, "", "expected sequence of length %s at dim 1 (got %s)", inner, s)
			}
			inner, dt = s, promoteLiteral(dt, d)
		}
		if len(x.Elems) == 0 {
			dt = ir.F32
		}
		return append([]sym.Expr{sym.Const(int64(len(x.Elems)))}, inner...), dt, nil
	}
	return nil, 0, fmt.Errorf("torch.tensor of %s is not modelled", x)
}

func promoteLiteral(a, b ir.DType) ir.DType {
	if a == ir.F32 || b == ir.F32 {
		return ir.F32
	}
	if a == ir.I64 || b == ir.I64 {
		return ir.I64
	}
	return ir.Bool
}

// ruleNormalize is F.normalize: input / norm(...).clamp_min(eps).expand_as(input),
// an elementwise result in input's layout.
func ruleNormalize(env *Env, a pyArgs) ([]ir.Type, error) {
	in, err := a.tensor("input")
	if err != nil {
		return nil, err
	}
	return one(env.Fresh(in.DType, copyExprs(in.Shape), env.PreserveStrides(in), in.Device)), nil
}

// ruleInterpolate is F.interpolate: the batch and channel dims, then each
// spatial dim from size, or floor(in * scale_factor); laid out in the
// memory format the input suggests (the upsample kernels' output).
func ruleInterpolate(env *Env, a pyArgs) ([]ir.Type, error) {
	in, err := a.tensor("input")
	if err != nil {
		return nil, err
	}
	spatial := in.Rank() - 2
	if spatial < 1 || spatial > 3 {
		return nil, Errorf(CodeShape, "", "Input Error: Only 3D, 4D and 5D input Tensors supported (got %dD)", in.Rank())
	}
	shape := copyExprs(in.Shape[:2])
	switch {
	case a.given("size"):
		sizes := a["size"]
		for i := range spatial {
			e := sizes
			if sizes.IsSequence() {
				if len(sizes.Elems) != spatial {
					return nil, Errorf(CodeShape, "", "Input and output must have the same number of spatial dimensions, but got input with spatial dimensions of %s and output size of %s", shapeString(in.Shape[2:]), sizes)
				}
				e = sizes.Elems[i]
			}
			s, err := ArgSymInt(e)
			if err != nil {
				return nil, err
			}
			shape = append(shape, s)
		}
	case a.given("scale_factor"):
		scales := a["scale_factor"]
		for i := range spatial {
			e := scales
			if scales.IsSequence() {
				e = scales.Elems[i]
			}
			f := e.Float
			if e.Kind == ir.ArgInt {
				f = float64(e.Int)
			}
			n, ok := in.Shape[2+i].Const()
			if !ok || e.Kind != ir.ArgInt && e.Kind != ir.ArgFloat {
				return nil, Errorf(CodeUnsupported, "", "interpolate with a scale factor over a symbolic size is not modelled")
			}
			shape = append(shape, sym.Const(int64(math.Floor(float64(n)*f))))
		}
	default:
		return nil, Errorf(CodeShape, "", "either size or scale_factor should be defined")
	}
	return one(env.layoutLike(in.DType, shape, in)), nil
}

// BindPython binds a call of a Python function with a rule (F.interpolate)
// to its parameter names, for a pass that expands it into ATen ops; ok is
// false for a callable with no rule.
func BindPython(target string, args []ir.Arg, kwargs []ir.Kwarg) (a map[string]ir.Arg, ok bool, err error) {
	rule, ok := pyRules[target]
	if !ok {
		return nil, false, nil
	}
	a, err = bindPy(target, rule.sig, args, kwargs)
	return a, true, err
}
