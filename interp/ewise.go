package interp

import (
	"fmt"
	"runtime"
	"sync"

	"github.com/kiln-compiler/kiln/ir"
	"github.com/kiln-compiler/kiln/ops"
)

// The elementwise engine, after TensorIterator: operands broadcast to one
// shape, are cast to the common (computation) dtype, a kernel runs in
// opmath precision over chunks of elements, and results are rounded once
// into the output dtype. The output's layout follows the operands' (a
// transposed input gives a transposed output), as TensorIterator's
// reorder_dimensions does.

// operand is one input of an elementwise op: a tensor, or a Python scalar.
type operand struct {
	t      *Tensor    // nil for a scalar
	f      float64    // scalar value, float lane
	i      int64      // scalar value, int lane
	c      complex128 // scalar value, complex (a Python complex)
	dt     ir.DType
	scalar bool
	promo  bool // takes part in type promotion
}

// scalarOperand wraps a Python number (int64, float64 or bool).
func scalarOperand(v any) (operand, error) {
	switch x := v.(type) {
	case int64:
		return operand{f: float64(x), i: x, dt: ir.I64, scalar: true, promo: true}, nil
	case float64:
		return operand{f: x, i: floatToInt(x, ir.I64), dt: ir.F64, scalar: true, promo: true}, nil
	case complex128:
		return operand{f: real(x), i: floatToInt(real(x), ir.I64), c: x, dt: ir.C128, scalar: true, promo: true}, nil
	case bool:
		b := int64(0)
		if x {
			b = 1
		}
		return operand{f: float64(b), i: b, dt: ir.Bool, scalar: true, promo: true}, nil
	case *Tensor:
		return operand{t: x, dt: x.DType, promo: true}, nil
	}
	return operand{}, fmt.Errorf("expected a tensor or a number, got %s", describe(v))
}

// chunkF computes one chunk: dst[i] from cols[k][i].
type chunkF func(dst []float64, cols [][]float64)

// chunkI is chunkF for the int lane.
type chunkI func(dst []int64, cols [][]int64)

// ewKernel is an elementwise kernel in both lanes; a nil lane means the op
// is not defined for that category of dtype.
type ewKernel struct {
	f func(compute ir.DType) chunkF
	i func(compute ir.DType) chunkI
	// opmathScalar: a CPU scalar operand enters in opmath precision, not
	// rounded to a reduced computation dtype (mul/div/add kernels read
	// iter.original_scalar_value<opmath_t>).
	opmathScalar bool
	// c is the complex formula (nil: the op is not defined for complex
	// dtypes in the interpreter).
	c func(xs []complex128) complex128
}

// ewSpec says how an elementwise op types its result.
type ewSpec struct {
	kind    ops.PromotionKind
	opName  string   // for messages: "add"
	outType ir.DType // when valid, the result dtype regardless of promotion
}

// promote computes the computation dtype and the result dtype.
func (s ewSpec) promote(opsIn []operand) (compute, result ir.DType, err error) {
	var ps []ops.Operand
	for _, o := range opsIn {
		if o.promo {
			ps = append(ps, ops.Operand{DType: o.dt, ZeroD: o.t != nil && o.t.Dim() == 0, Scalar: o.scalar})
		}
	}
	promoted, err := ops.ResultType(ps)
	if err != nil {
		return 0, 0, err
	}
	result = s.kind.ResultDType(promoted)
	compute = result
	switch s.kind {
	case ops.PromoteAlwaysBool, ops.PromoteComplexToFloat:
		compute = promoted
	}
	if s.outType.Valid() {
		result = s.outType
	}
	if compute.Category() == ir.CatBits {
		return 0, 0, fmt.Errorf("%s: dtype %s is not supported by the interpreter", s.opName, compute)
	}
	return compute, result, nil
}

// opmath is the precision PyTorch computes dt in: float32 for float32 and
// the reduced float formats, float64 for float64.
func opmath(dt ir.DType) ir.DType {
	if dt == ir.F64 {
		return ir.F64
	}
	if dt.IsFloat() {
		return ir.F32
	}
	return dt
}

// elementwise runs k over operands and returns a fresh result.
func elementwise(spec ewSpec, k ewKernel, in []operand) (*Tensor, error) {
	compute, result, err := spec.promote(in)
	if err != nil {
		return nil, err
	}
	return elementwiseAs(spec.opName, compute, result, k, in)
}

// elementwiseAs runs k with an explicit computation and result dtype.
func elementwiseAs(name string, compute, result ir.DType, k ewKernel, in []operand) (*Tensor, error) {
	if compute.IsComplex() || result.IsComplex() {
		if k.c == nil {
			k.c = complexByName[name] // eval_complex.go
		}
		if k.c == nil {
			return nil, fmt.Errorf("%s: dtype %s is not supported by the interpreter", name, compute)
		}
		return complexElementwise(result, k.c, in)
	}
	floatLane := isFloatLane(compute)
	if floatLane && k.f == nil || !floatLane && k.i == nil {
		return nil, fmt.Errorf("\"%s\" not implemented for '%s'", name, scalarTypeName(compute))
	}
	shape, views, dev, err := broadcastOperands(in)
	if err != nil {
		return nil, err
	}
	var strideSets [][]int64
	for _, v := range views {
		if v != nil {
			strideSets = append(strideSets, v.Strides)
		}
	}
	out, err := Empty(result, shape, iterStrides(shape, strideSets), dev)
	if err != nil {
		return nil, err
	}
	run := ewRun{opmathScalar: k.opmathScalar, in: in, views: views, out: out, compute: compute}
	if floatLane {
		run.kf = k.f(compute)
	} else {
		run.ki = k.i(compute)
	}
	parallelChunks(out.Numel(), run.chunk)
	return out, nil
}

// ewRun is one elementwise evaluation.
type ewRun struct {
	kf           chunkF
	ki           chunkI
	opmathScalar bool
	in           []operand
	views        []*Tensor
	out          *Tensor
	compute      ir.DType
}

const chunkSize = 4096

// chunk computes elements [lo, hi) of the output.
func (r *ewRun) chunk(lo, hi int64) {
	n := int(min(hi-lo, chunkSize))
	offs := make([]int64, n)
	outIt := newOffsetIter(r.out.Shape, r.out.Strides, r.out.Offset, lo)
	if r.out.IsContiguous() {
		outIt = denseIter(r.out.Offset + lo)
	}
	its := make([]*offsetIter, len(r.in))
	for j, v := range r.views {
		switch {
		case v == nil:
		case v.IsContiguous():
			its[j] = denseIter(v.Offset + lo)
		default:
			its[j] = newOffsetIter(v.Shape, v.Strides, v.Offset, lo)
		}
	}
	if isFloatLane(r.compute) {
		r.floatChunks(lo, hi, offs, outIt, its)
	} else {
		r.intChunks(lo, hi, offs, outIt, its)
	}
}

func (r *ewRun) floatChunks(lo, hi int64, offs []int64, outIt *offsetIter, its []*offsetIter) {
	cols := make([][]float64, len(r.in))
	for j := range cols {
		cols[j] = make([]float64, len(offs))
	}
	dst := make([]float64, len(offs))
	sub := make([][]float64, len(cols))
	scalarMath := opmath(r.compute)
	for start := lo; start < hi; start += int64(len(offs)) {
		m := int(min(hi-start, int64(len(offs))))
		for j, o := range r.in {
			col := cols[j][:m]
			sub[j] = col
			if o.t == nil {
				v := roundTo(r.compute, o.f)
				if r.opmathScalar {
					v = roundTo(scalarMath, o.f)
				}
				for i := range col {
					col[i] = v
				}
				continue
			}
			its[j].fill(offs[:m])
			gatherF(o.t.DType, o.t.Storage.Data, offs[:m], col)
			if o.t.DType == r.compute {
				continue
			}
			cast := r.compute
			if r.opmathScalar && o.t.Dim() == 0 && o.t.Device().IsCPU() {
				cast = scalarMath
			}
			for i := range col {
				col[i] = roundTo(cast, col[i])
			}
		}
		r.kf(dst[:m], sub)
		outIt.fill(offs[:m])
		scatterF(r.out.DType, r.out.Storage.Data, offs[:m], dst[:m])
	}
}

func (r *ewRun) intChunks(lo, hi int64, offs []int64, outIt *offsetIter, its []*offsetIter) {
	cols := make([][]int64, len(r.in))
	for j := range cols {
		cols[j] = make([]int64, len(offs))
	}
	dst := make([]int64, len(offs))
	sub := make([][]int64, len(cols))
	for start := lo; start < hi; start += int64(len(offs)) {
		m := int(min(hi-start, int64(len(offs))))
		for j, o := range r.in {
			col := cols[j][:m]
			if o.t == nil {
				v := r.compute.WrapInt(o.i)
				for i := range col {
					col[i] = v
				}
			} else {
				its[j].fill(offs[:m])
				gatherI(o.t.DType, o.t.Storage.Data, offs[:m], col)
				if o.t.DType != r.compute {
					for i := range col {
						col[i] = r.compute.WrapInt(col[i])
					}
				}
			}
			sub[j] = col
		}
		r.ki(dst[:m], sub)
		outIt.fill(offs[:m])
		scatterI(r.out.DType, r.out.Storage.Data, offs[:m], dst[:m])
	}
}

// commonDevice is TensorIterator's device check: CPU 0-dim tensors may
// join tensors on any device; other tensors must share one.
// broadcastOperands is the common device of in's tensors, their broadcast
// shape, and each tensor expanded to it (nil for a scalar operand).
func broadcastOperands(in []operand) (shape []int64, views []*Tensor, dev ir.Device, err error) {
	var shapes [][]int64
	for _, o := range in {
		if o.t != nil {
			shapes = append(shapes, o.t.Shape)
		}
	}
	if dev, err = commonDevice(in); err != nil {
		return nil, nil, dev, err
	}
	if shape, err = broadcastShapes(shapes...); err != nil {
		return nil, nil, dev, err
	}
	views = make([]*Tensor, len(in))
	for j, o := range in {
		if o.t != nil {
			views[j] = expandTo(o.t, shape)
		}
	}
	return shape, views, dev, nil
}

func commonDevice(in []operand) (ir.Device, error) {
	var dev ir.Device
	cpuScalar := false
	for _, o := range in {
		if o.t == nil {
			continue
		}
		d := o.t.Device()
		switch {
		case d.IsCPU() && o.t.Dim() == 0:
			cpuScalar = true
		case !dev.Known():
			dev = d
		case !sameDevice(d, dev):
			return ir.Device{}, fmt.Errorf("Expected all tensors to be on the same device, but found at least two devices, %s and %s!", dev, d)
		}
	}
	if !dev.Known() && cpuScalar {
		dev = ir.CPU
	}
	return dev, nil
}

// parallelChunks splits [0, n) over GOMAXPROCS workers when n is large.
func parallelChunks(n int64, f func(lo, hi int64)) {
	const grain = 1 << 15
	workers := int64(runtime.GOMAXPROCS(0))
	if n < 2*grain || workers == 1 {
		if n > 0 {
			f(0, n)
		}
		return
	}
	parts := min(workers, n/grain)
	var wg sync.WaitGroup
	for p := int64(0); p < parts; p++ {
		lo, hi := n*p/parts, n*(p+1)/parts
		wg.Add(1)
		go func() {
			defer wg.Done()
			f(lo, hi)
		}()
	}
	wg.Wait()
}

// broadcastShapes is infer_size over any number of shapes.
func broadcastShapes(shapes ...[]int64) ([]int64, error) {
	rank := 0
	for _, s := range shapes {
		rank = max(rank, len(s))
	}
	out := make([]int64, rank)
	for i := range out {
		out[i] = 1
	}
	for _, s := range shapes {
		for i := range s {
			d := rank - len(s) + i
			switch {
			case s[i] == out[d] || s[i] == 1:
			case out[d] == 1:
				out[d] = s[i]
			default:
				return nil, fmt.Errorf("The size of tensor a (%d) must match the size of tensor b (%d) at non-singleton dimension %d",
					out[d], s[i], d)
			}
		}
	}
	return out, nil
}

// expandTo views t broadcast to shape: stride 0 on new and size-1 dims.
func expandTo(t *Tensor, shape []int64) *Tensor {
	st := make([]int64, len(shape))
	lead := len(shape) - t.Dim()
	for i := range shape {
		j := i - lead
		if j < 0 || t.Shape[j] == 1 && shape[i] != 1 {
			continue
		}
		st[i] = t.Strides[j]
	}
	return t.view(clone64(shape), st, t.Offset)
}

// iterStrides is TensorIterator's output layout: dims ordered by the
// operands' strides (innermost first; broadcast dims ignored; equal strides
// put the smaller size inside), then dense strides in that order.
func iterStrides(shape []int64, strideSets [][]int64) []int64 {
	n := len(shape)
	perm := make([]int, n) // innermost first
	for i := range perm {
		perm[i] = n - 1 - i
	}
	shouldSwap := func(d0, d1 int) int {
		for _, st := range strideSets {
			s0, s1 := st[d0], st[d1]
			switch {
			case s0 == 0 || s1 == 0:
				continue
			case s0 < s1:
				return -1
			case s0 > s1:
				return 1
			}
			if shape[d0] > shape[d1] {
				return 1
			}
		}
		return 0
	}
	for i := 1; i < n; i++ {
		d1 := i
		for d0 := i - 1; d0 >= 0; d0-- {
			c := shouldSwap(perm[d0], perm[d1])
			if c > 0 {
				perm[d0], perm[d1] = perm[d1], perm[d0]
				d1 = d0
			} else if c < 0 {
				break
			}
		}
	}
	out := make([]int64, n)
	acc := int64(1)
	for _, d := range perm {
		out[d] = acc
		acc *= max(shape[d], 1)
	}
	return out
}

// scalarTypeName is c10's ScalarType name used in messages: Float, Long.
func scalarTypeName(d ir.DType) string { return ops.ScalarTypeName(d) }
