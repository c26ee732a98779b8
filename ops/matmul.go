package ops

import (
	"fmt"

	"github.com/kiln-compiler/kiln/ir"
	"github.com/kiln-compiler/kiln/ir/sym"
)

// Matmul-family meta rules, after torch/_meta_registrations.py (mm, bmm,
// addmm, baddbmm) and LinearAlgebra.cpp (matmul): row-major outputs, equal
// dtypes, matching inner sizes.

func tensorsOf(c *Call, names ...string) ([]*ir.TensorType, error) {
	out := make([]*ir.TensorType, len(names))
	for i, n := range names {
		t, err := c.Tensor(n)
		if err != nil {
			return nil, err
		}
		if t == nil {
			return nil, fmt.Errorf("%s: argument %s is None", c.Op.QualifiedName(), n)
		}
		out[i] = t
	}
	return out, nil
}

func sameDTypes(a, b *ir.TensorType) error {
	if a.DType != b.DType {
		return Errorf(CodeDType, "cast the operands to one dtype first",
			"expected m1 and m2 to have the same dtype, but got: %s != %s", CppTypeName(a.DType), CppTypeName(b.DType))
	}
	return nil
}

// CppTypeName is how c10 prints a dtype in matmul messages: float,
// c10::BFloat16 (interp's messages use it too).
func CppTypeName(d ir.DType) string {
	switch d {
	case ir.F32:
		return "float"
	case ir.F64:
		return "double"
	case ir.F16:
		return "c10::Half"
	case ir.BF16:
		return "c10::BFloat16"
	case ir.I64:
		return "long int"
	case ir.I32:
		return "int"
	}
	return d.Name()
}

// mmShape checks and returns the [n, p] result of a [n, m] x [m, p]
// product, with meta_mm's messages (mm) or meta_addmm's (addmm).
func (env *Env) mmShape(a, b *ir.TensorType, addmm bool) ([]sym.Expr, error) {
	if a.Rank() != 2 || b.Rank() != 2 {
		if addmm {
			return nil, Errorf(CodeShape, "", "mat1 must be a matrix, got %d-D tensor", a.Rank())
		}
		return nil, Errorf(CodeShape, "", "a must be 2D")
	}
	if eq, known := env.eqSize(a.Shape[1], b.Shape[0]); known && !eq {
		hint := "the inner sizes of a matrix product must agree"
		if addmm {
			return nil, Errorf(CodeShape, hint, "mat1 and mat2 shapes cannot be multiplied (%sx%s and %sx%s)", a.Shape[0], a.Shape[1], b.Shape[0], b.Shape[1])
		}
		return nil, Errorf(CodeShape, hint, "a and b must have same reduction dim, but got %s X %s.", shapeString(a.Shape), shapeString(b.Shape))
	}
	if err := sameDTypes(a, b); err != nil {
		return nil, err
	}
	return []sym.Expr{a.Shape[0], b.Shape[1]}, nil
}

// productRule is mm and bmm: shape checks the operands' sizes and dtypes;
// the result is row-major on the operands' common device.
func productRule(shape func(env *Env, a, b *ir.TensorType) ([]sym.Expr, error)) MetaFunc {
	return func(env *Env, c *Call) ([]ir.Type, error) {
		ts, err := tensorsOf(c, "self", "mat2")
		if err != nil {
			return nil, err
		}
		out, err := shape(env, ts[0], ts[1])
		if err != nil {
			return nil, err
		}
		dev, err := CommonDevice(ts)
		if err != nil {
			return nil, err
		}
		return one(env.Contiguous(ts[0].DType, out, dev)), nil
	}
}

var (
	metaMM  = productRule(func(env *Env, a, b *ir.TensorType) ([]sym.Expr, error) { return env.mmShape(a, b, false) })
	metaBMM = productRule((*Env).bmmShape)
)

// biasedRule is addmm(self, mat1, mat2) and baddbmm(self, batch1,
// batch2): self broadcasts to the product. addmm also requires one device
// (checkDevice); baddbmm's meta takes batch1's.
func biasedRule(m1, m2 string, shape func(env *Env, a, b *ir.TensorType) ([]sym.Expr, error), checkDevice bool) MetaFunc {
	return func(env *Env, c *Call) ([]ir.Type, error) {
		ts, err := tensorsOf(c, "self", m1, m2)
		if err != nil {
			return nil, err
		}
		out, err := shape(env, ts[1], ts[2])
		if err != nil {
			return nil, err
		}
		if err := env.checkBias(ts[0], out); err != nil {
			return nil, err
		}
		dev := ts[1].Device
		if checkDevice {
			if dev, err = CommonDevice(ts); err != nil {
				return nil, err
			}
		}
		if c.Op.IsInplace() {
			return one(ts[0].Clone()), nil
		}
		return one(env.Contiguous(ts[1].DType, out, dev)), nil
	}
}

var (
	metaAddmm   = biasedRule("mat1", "mat2", func(env *Env, a, b *ir.TensorType) ([]sym.Expr, error) { return env.mmShape(a, b, true) }, true)
	metaBaddbmm = biasedRule("batch1", "batch2", (*Env).bmmShape, false)
)

func (env *Env) checkBias(bias *ir.TensorType, shape []sym.Expr) error {
	b, err := env.BroadcastShapes(bias.Shape, shape)
	if err != nil {
		return err
	}
	if !sym.EqualLists(b, shape) {
		return Errorf(CodeShape, "", "The expanded size of the tensor (%s) must match the existing size (%s)", shapeString(shape), shapeString(bias.Shape))
	}
	return nil
}

// bmmShape checks [b, n, m] x [b, m, p].
func (env *Env) bmmShape(a, b *ir.TensorType) ([]sym.Expr, error) {
	if a.Rank() != 3 {
		return nil, Errorf(CodeShape, "", "batch1 must be a 3D tensor")
	}
	if b.Rank() != 3 {
		return nil, Errorf(CodeShape, "", "batch2 must be a 3D tensor")
	}
	e0, k0 := env.eqSize(a.Shape[0], b.Shape[0])
	e1, k1 := env.eqSize(a.Shape[2], b.Shape[1])
	if k0 && !e0 || k1 && !e1 {
		return nil, Errorf(CodeShape, "the batch sizes and inner sizes of a batched product must agree",
			"Expected size for first two dimensions of batch2 tensor to be: [%s, %s] but got: [%s, %s].", a.Shape[0], a.Shape[2], b.Shape[0], b.Shape[1])
	}
	if err := sameDTypes(a, b); err != nil {
		return nil, err
	}
	return []sym.Expr{pickSize(a.Shape[0], b.Shape[0]), a.Shape[1], b.Shape[2]}, nil
}

// metaMatmul is matmul's shape logic: 1-d operands gain and lose a dim,
// batch dims broadcast.
func metaMatmul(env *Env, c *Call) ([]ir.Type, error) {
	ts, err := tensorsOf(c, "self", "other")
	if err != nil {
		return nil, err
	}
	a, b := ts[0], ts[1]
	if a.Rank() == 0 || b.Rank() == 0 {
		return nil, Errorf(CodeShape, "", "both arguments to matmul need to be at least 1D, but they are %dD and %dD", a.Rank(), b.Rank())
	}
	if err := sameDTypes(a, b); err != nil {
		return nil, err
	}
	as, bs := a.Shape, b.Shape
	if len(as) == 1 {
		as = []sym.Expr{c1, as[0]}
	}
	if len(bs) == 1 {
		bs = []sym.Expr{bs[0], c1}
	}
	n, k1 := as[len(as)-2], as[len(as)-1]
	k2, p := bs[len(bs)-2], bs[len(bs)-1]
	if eq, known := env.eqSize(k1, k2); known && !eq {
		return nil, Errorf(CodeShape, "the inner sizes of a matrix product must agree",
			"mat1 and mat2 shapes cannot be multiplied (%sx%s and %sx%s)", product(as[:len(as)-1]), k1, k2, p)
	}
	batch, err := env.BroadcastShapes(as[:len(as)-2], bs[:len(bs)-2])
	if err != nil {
		return nil, err
	}
	shape := append([]sym.Expr{}, batch...)
	if a.Rank() > 1 {
		shape = append(shape, n)
	}
	if b.Rank() > 1 {
		shape = append(shape, p)
	}
	return one(env.Contiguous(a.DType, shape, a.Device)), nil
}

// metaLinear is linear(input, weight, bias): [..., in] x [out, in]^T.
func metaLinear(env *Env, c *Call) ([]ir.Type, error) {
	ts, err := tensorsOf(c, "input", "weight")
	if err != nil {
		return nil, err
	}
	in, w := ts[0], ts[1]
	if in.Rank() == 0 || w.Rank() == 0 || w.Rank() > 2 {
		return nil, Errorf(CodeShape, "", "linear: weight must be 1-D or 2-D and input at least 1-D")
	}
	k := w.Shape[w.Rank()-1]
	if eq, known := env.eqSize(in.Shape[in.Rank()-1], k); known && !eq {
		return nil, Errorf(CodeShape, "the input's last dim must equal the weight's in_features",
			"mat1 and mat2 shapes cannot be multiplied (%sx%s and %sx%s)", product(in.Shape[:in.Rank()-1]), in.Shape[in.Rank()-1], k, w.Shape[0])
	}
	if err := sameDTypes(in, w); err != nil {
		return nil, err
	}
	shape := copyExprs(in.Shape[:in.Rank()-1])
	if w.Rank() == 2 {
		shape = append(shape, w.Shape[0])
	}
	return one(env.Contiguous(in.DType, shape, in.Device)), nil
}

// metaDot is dot/vdot: two 1-d tensors of equal size give a 0-d tensor.
func metaDot(env *Env, c *Call) ([]ir.Type, error) {
	ts, err := tensorsOf(c, "self", c.Op.Schema.Params[1].Name)
	if err != nil {
		return nil, err
	}
	if ts[0].Rank() != 1 || ts[1].Rank() != 1 {
		return nil, Errorf(CodeShape, "", "1D tensors expected, but got %dD and %dD tensors", ts[0].Rank(), ts[1].Rank())
	}
	if err := sameDTypes(ts[0], ts[1]); err != nil {
		return nil, err
	}
	return one(env.Contiguous(ts[0].DType, []sym.Expr{}, ts[0].Device)), nil
}

// metaMV is mv: [n, m] x [m] -> [n].
func metaMV(env *Env, c *Call) ([]ir.Type, error) {
	ts, err := tensorsOf(c, "self", "vec")
	if err != nil {
		return nil, err
	}
	if ts[0].Rank() != 2 || ts[1].Rank() != 1 {
		return nil, Errorf(CodeShape, "", "vector + matrix @ vector expected, got %d, %d", ts[0].Rank(), ts[1].Rank())
	}
	if eq, known := env.eqSize(ts[0].Shape[1], ts[1].Shape[0]); known && !eq {
		return nil, Errorf(CodeShape, "", "size mismatch, got input (%s), mat (%sx%s), vec (%s)", ts[0].Shape[0], ts[0].Shape[0], ts[0].Shape[1], ts[1].Shape[0])
	}
	return one(env.Contiguous(ts[0].DType, []sym.Expr{ts[0].Shape[0]}, ts[0].Device)), nil
}
