package interp

import (
	"fmt"
	"math"
	"math/cmplx"

	"github.com/kiln-compiler/kiln/ir"
	"github.com/kiln-compiler/kiln/rt"
)

// Reductions (aten/src/ATen/native/ReduceOps.cpp, cpu/SumKernel.cpp):
// float sums are pairwise (cascade) sums in opmath precision — float32
// for float32 and the half types, each partial sum rounded — and are
// rounded once into the result dtype; integer and bool inputs sum in
// int64. An empty dim list reduces every dim.

// reduction is one reduction's geometry.
type reduction struct {
	src      *Tensor // permuted: kept dims first, reduced dims last
	outShape []int64 // with or without the reduced dims (keepdim)
	groups   int64   // number of output elements
	size     int64   // elements per group
}

// plan resolves dims (nil or empty: all) and builds the geometry.
func plan(t *Tensor, dims []int64, keepdim bool) (*reduction, error) {
	reduce := make([]bool, t.Dim())
	if len(dims) == 0 {
		for i := range reduce {
			reduce[i] = true
		}
	}
	for _, d := range dims {
		w, err := wrapDim(d, t.Dim())
		if err != nil {
			return nil, err
		}
		if t.Dim() > 0 {
			if reduce[w] && len(dims) > 0 {
				return nil, fmt.Errorf("dim %d appears multiple times in the list of dims", w)
			}
			reduce[w] = true
		}
	}
	var kept, red []int64
	out := []int64{}
	r := &reduction{groups: 1, size: 1}
	for i, s := range t.Shape {
		if reduce[i] {
			red = append(red, int64(i))
			r.size *= s
			if keepdim {
				out = append(out, 1)
			}
			continue
		}
		kept = append(kept, int64(i))
		r.groups *= s
		out = append(out, s)
	}
	src, err := permute(t, append(kept, red...))
	if err != nil {
		return nil, err
	}
	r.src, r.outShape = src, out
	return r, nil
}

// castReduction reads reduceArgs and plans the reduction of self cast to
// its dtype= argument, or to def(self's dtype); check, when set, vets that
// dtype first. sum(dtype=) and mean compute in the cast dtype.
func castReduction(c *call, def func(ir.DType) ir.DType, check func(ir.DType) error) (*reduction, ir.DType, error) {
	t, dims, keepdim, dt, hasDT, err := reduceArgs(c)
	if err != nil {
		return nil, 0, err
	}
	if !hasDT {
		dt = def(t.DType)
	}
	if check != nil {
		if err := check(dt); err != nil {
			return nil, 0, err
		}
	}
	if dt != t.DType {
		if t, err = toCopy(t, dt, t.Device(), ""); err != nil {
			return nil, 0, err
		}
	}
	r, err := plan(t, dims, keepdim)
	return r, dt, err
}

// sumDType is sum's and prod's default: ints and bools accumulate in int64.
func sumDType(dt ir.DType) ir.DType {
	if !dt.IsFloat() {
		return ir.I64
	}
	return dt
}

// eachGroupF calls f with the values of every group, in output order.
func (r *reduction) eachGroupF(f func(g int64, xs []float64)) { eachGroup(r, gatherF, f) }

func (r *reduction) eachGroupI(f func(g int64, xs []int64)) { eachGroup(r, gatherI, f) }

func eachGroup[T lane](r *reduction, gather func(ir.DType, []byte, []int64, []T), f func(g int64, xs []T)) {
	it := newOffsetIter(r.src.Shape, r.src.Strides, r.src.Offset, 0)
	offs := make([]int64, r.size)
	xs := make([]T, r.size)
	for g := int64(0); g < r.groups; g++ {
		it.fill(offs)
		gather(r.src.DType, r.src.Storage.Data, offs, xs)
		f(g, xs)
	}
}

// reduceTo computes one float or int value per group into a fresh
// tensor of dt.
func (r *reduction) reduceTo(dt ir.DType, floatLane bool, ff func([]float64) float64, fi func([]int64) int64) (*Tensor, error) {
	out, err := Empty(dt, r.outShape, nil, r.src.Device())
	if err != nil {
		return nil, err
	}
	if floatLane {
		r.eachGroupF(func(g int64, xs []float64) { storeF(dt, out.Storage.Data, g, ff(xs)) })
	} else {
		r.eachGroupI(func(g int64, xs []int64) { storeI(dt, out.Storage.Data, g, fi(xs)) })
	}
	return out, nil
}

// pairwiseSum is a cascade sum with every partial sum rounded by r.
func pairwiseSum(xs []float64, r rounder) float64 {
	if len(xs) <= 8 {
		s := 0.0
		for _, x := range xs {
			s = r(s + x)
		}
		return s
	}
	h := len(xs) / 2
	return r(pairwiseSum(xs[:h], r) + pairwiseSum(xs[h:], r))
}

// optDimArgs reads self, an int? dim and keepdim (argmax, aminmax).
func optDimArgs(c *call) (t *Tensor, d int64, hasDim, keepdim bool, err error) {
	if t, err = c.tensor("self"); err != nil {
		return
	}
	if d, hasDim, err = c.optInt("dim"); err != nil {
		return
	}
	keepdim, err = c.bool("keepdim")
	return
}

// planReduce reads reduceArgs and plans the reduction of self.
func planReduce(c *call) (*Tensor, *reduction, error) {
	t, dims, keepdim, _, _, err := reduceArgs(c)
	if err != nil {
		return nil, nil, err
	}
	r, err := plan(t, dims, keepdim)
	return t, r, err
}

// reduceArgs reads self, dim (int[]? or int[1]), keepdim and dtype.
func reduceArgs(c *call) (t *Tensor, dims []int64, keepdim bool, dt ir.DType, hasDT bool, err error) {
	if t, err = c.tensor("self"); err != nil {
		return
	}
	if c.has("dim") && !c.isNone("dim") {
		if dims, err = c.intList("dim"); err != nil {
			return
		}
	}
	if c.has("keepdim") {
		if keepdim, err = c.bool("keepdim"); err != nil {
			return
		}
	}
	if c.has("dtype") {
		dt, hasDT, err = c.dtype("dtype")
	}
	return
}

// sumLike is sum, nansum and prod: ints and bools accumulate in int64.
func sumLike(name string, product, skipNaN bool) kernel {
	return func(c *call) ([]any, error) {
		r, dt, err := castReduction(c, sumDType, nil)
		if err != nil {
			return nil, err
		}
		round := rounderFor(dt)
		ff := func(xs []float64) float64 {
			if product {
				p := 1.0
				for _, x := range xs {
					p = round(p * x)
				}
				return p
			}
			if skipNaN {
				kept := xs[:0:0]
				for _, x := range xs {
					if x == x {
						kept = append(kept, x)
					}
				}
				xs = kept
			}
			return pairwiseSum(xs, round)
		}
		fi := func(xs []int64) int64 {
			acc := int64(0)
			if product {
				acc = 1
			}
			for _, x := range xs {
				if product {
					acc *= x
				} else {
					acc += x
				}
			}
			return acc
		}
		return oneT(r.reduceTo(dt, dt.IsFloat(), ff, fi))
	}
}

func kMean(c *call) ([]any, error) {
	r, dt, err := castReduction(c, func(dt ir.DType) ir.DType { return dt }, func(dt ir.DType) error {
		if !dt.IsFloat() {
			return fmt.Errorf("mean(): could not infer output dtype. Input dtype must be either a floating point or complex dtype. Got: %s", scalarTypeName(dt))
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	round := rounderFor(dt)
	return oneT(r.reduceTo(dt, true, func(xs []float64) float64 {
		return round(pairwiseSum(xs, round) / float64(len(xs)))
	}, nil))
}

// nanExtreme is the max (sign 1) or min (-1) of a group; a NaN wins.
func nanExtreme(sign float64) func(xs []float64) float64 {
	return func(xs []float64) float64 {
		best := xs[0]
		for _, x := range xs {
			if x != x {
				return x
			}
			if (x-best)*sign > 0 {
				best = x
			}
		}
		return best
	}
}

// extremeKernel is amax/amin (and max()/min() over everything): NaN wins.
func extremeKernel(name string, sign float64) kernel {
	return func(c *call) ([]any, error) {
		t, r, err := planReduce(c)
		if err != nil {
			return nil, err
		}
		if r.size == 0 {
			return nil, fmt.Errorf("%s(): Expected reduction dim to have non-zero size.", name)
		}
		ff := nanExtreme(sign)
		fi := func(xs []int64) int64 {
			best := xs[0]
			for _, x := range xs {
				if float64(x-best)*sign > 0 {
					best = x
				}
			}
			return best
		}
		return oneT(r.reduceTo(t.DType, t.DType.IsFloat(), ff, fi))
	}
}

// argExtreme finds the first index of the max (sign 1) or min (-1); a NaN
// is the extreme.
func argExtreme(xs []float64, sign float64) int64 {
	best, at := xs[0], int64(0)
	for i, x := range xs {
		if best != best {
			break
		}
		if x != x || (x-best)*sign > 0 {
			best, at = x, int64(i)
		}
	}
	return at
}

// maxDim is max.dim / min.dim: (values, indices).
func maxDim(sign float64) kernel {
	return func(c *call) ([]any, error) {
		t, d, err := c.selfInt("dim")
		if err != nil {
			return nil, err
		}
		keepdim, err := c.bool("keepdim")
		if err != nil {
			return nil, err
		}
		r, err := plan(t, []int64{d}, keepdim)
		if err != nil {
			return nil, err
		}
		if r.size == 0 {
			return nil, fmt.Errorf("max(): Expected reduction dim %d to have non-zero size.", d)
		}
		vals, _ := Empty(t.DType, r.outShape, nil, t.Device())
		idx, _ := Empty(ir.I64, r.outShape, nil, t.Device())
		sz := int64(t.DType.ItemSize())
		offs := r.src.offsets()
		r.eachGroupF(func(g int64, xs []float64) {
			i := argExtreme(xs, sign)
			o := offs[g*r.size+i]
			copy(vals.Storage.Data[g*sz:(g+1)*sz], t.Storage.Data[o*sz:(o+1)*sz])
			storeI(ir.I64, idx.Storage.Data, g, i)
		})
		return []any{vals, idx}, nil
	}
}

// argKernel is argmax/argmin; dim None searches the flattened tensor.
func argKernel(sign float64) kernel {
	return func(c *call) ([]any, error) {
		t, d, hasDim, keepdim, err := optDimArgs(c)
		if err != nil {
			return nil, err
		}
		var r *reduction
		if hasDim {
			r, err = plan(t, []int64{d}, keepdim)
		} else {
			flat := contiguous(t)
			flat = flat.view([]int64{flat.Numel()}, []int64{1}, 0)
			r, err = plan(flat, nil, false)
			if err == nil && keepdim {
				r.outShape = make([]int64, t.Dim())
				for i := range r.outShape {
					r.outShape[i] = 1
				}
			}
		}
		if err != nil {
			return nil, err
		}
		if r.size == 0 {
			return nil, fmt.Errorf("argmax(): Expected reduction dim to be specified for input.numel() == 0.")
		}
		return oneT(r.reduceTo(ir.I64, true, func(xs []float64) float64 { return float64(argExtreme(xs, sign)) }, nil))
	}
}

// anyAll is any/all: the result is bool (uint8 for uint8 input).
func anyAll(all bool) kernel {
	return func(c *call) ([]any, error) {
		t, r, err := planReduce(c)
		if err != nil {
			return nil, err
		}
		dt := ir.Bool
		if t.DType == ir.U8 {
			dt = ir.U8
		}
		return oneT(r.reduceTo(dt, true, func(xs []float64) float64 {
			for _, x := range xs {
				if (x != 0) != all {
					return rt.B2F(!all)
				}
			}
			return rt.B2F(all)
		}, nil))
	}
}

// varArgs reads the correction (unbiased or correction=) of var/std.
func varArgs(c *call) (float64, error) {
	if c.has("correction") {
		if c.isNone("correction") {
			return 1, nil
		}
		return c.float("correction")
	}
	if c.has("unbiased") {
		u, err := c.bool("unbiased")
		return rt.B2F(u), err
	}
	return 1, nil
}

// moments computes var (or std) and mean in float64 and rounds once.
func moments(c *call, std, withMean bool) ([]any, error) {
	t, dims, keepdim, _, _, err := reduceArgs(c)
	if err != nil {
		return nil, err
	}
	if !t.DType.IsFloat() {
		return nil, fmt.Errorf("std and var only support floating point and complex dtypes")
	}
	corr, err := varArgs(c)
	if err != nil {
		return nil, err
	}
	r, err := plan(t, dims, keepdim)
	if err != nil {
		return nil, err
	}
	v, _ := Empty(t.DType, r.outShape, nil, t.Device())
	m, _ := Empty(t.DType, r.outShape, nil, t.Device())
	r.eachGroupF(func(g int64, xs []float64) {
		mean := 0.0
		for _, x := range xs {
			mean += x
		}
		mean /= float64(len(xs))
		ss := 0.0
		for _, x := range xs {
			ss += (x - mean) * (x - mean)
		}
		vr := ss / math.Max(0, float64(len(xs))-corr)
		if std {
			vr = math.Sqrt(vr)
		}
		storeF(t.DType, v.Storage.Data, g, vr)
		storeF(t.DType, m.Storage.Data, g, mean)
	})
	if withMean {
		return []any{v, m}, nil
	}
	return one(v)
}

func kLogSumExp(c *call) ([]any, error) {
	t, r, err := planReduce(c)
	if err != nil {
		return nil, err
	}
	dt := t.DType
	if !dt.IsFloat() {
		dt = ir.F32
	}
	return oneT(r.reduceTo(dt, true, func(xs []float64) float64 {
		m := math.Inf(-1)
		for _, x := range xs {
			m = math.Max(m, x)
		}
		if math.IsInf(m, 0) {
			m = 0
		}
		s := 0.0
		for _, x := range xs {
			s += math.Exp(x - m)
		}
		return math.Log(s) + m
	}, nil))
}

func kVectorNorm(c *call) ([]any, error) {
	t, dims, keepdim, dt, hasDT, err := reduceArgs(c)
	if err != nil {
		return nil, err
	}
	ord, err := c.float("ord")
	if err != nil {
		return nil, err
	}
	if !hasDT {
		dt = t.DType
	}
	return oneT(vectorNorm(t, ord, dims, keepdim, dt))
}

// vectorNorm is linalg.vector_norm of t in dtype dt (its real dtype for
// complex ones).
func vectorNorm(t *Tensor, ord float64, dims []int64, keepdim bool, dt ir.DType) (*Tensor, error) {
	if !dt.IsFloat() && !dt.IsComplex() {
		return nil, fmt.Errorf("linalg.vector_norm: Expected a floating point or complex tensor as input. Got %s", scalarTypeName(dt))
	}
	var err error
	if t.DType.IsComplex() || dt.IsComplex() {
		// The norm of complex elements is the norm of their moduli; the
		// result has the real dtype (toRealValueType).
		if t, err = modulus(t); err != nil {
			return nil, err
		}
		dt = realOf(dt)
	}
	r, err := plan(t, dims, keepdim)
	if err != nil {
		return nil, err
	}
	return r.reduceTo(dt, true, func(xs []float64) float64 {
		switch {
		case math.IsInf(ord, 1), math.IsInf(ord, -1):
			best := math.Abs(xs[0])
			for _, x := range xs {
				if ord > 0 {
					best = math.Max(best, math.Abs(x))
				} else {
					best = math.Min(best, math.Abs(x))
				}
			}
			return best
		case ord == 0:
			n := 0.0
			for _, x := range xs {
				n += rt.B2F(x != 0)
			}
			return n
		}
		s := 0.0
		for _, x := range xs {
			s += math.Pow(math.Abs(x), ord)
		}
		return math.Pow(s, 1/ord)
	}, nil)
}

// scan reads a running op along dim (cumsum, cumprod): self copied to the
// result dtype (dtype, else defaultDType of self's), and the offsets of the
// copy's elements in runs of n along dim. A 0-d self is its own result
// (offs nil).
func scan(c *call, defaultDType func(ir.DType) ir.DType) (out *Tensor, offs []int64, n int64, err error) {
	t, d, err := c.selfInt("dim")
	if err != nil {
		return nil, nil, 0, err
	}
	dt, ok, err := c.dtype("dtype")
	if err != nil {
		return nil, nil, 0, err
	}
	if !ok {
		dt = defaultDType(t.DType)
	}
	w, err := wrapDim(d, t.Dim())
	if err != nil {
		return nil, nil, 0, err
	}
	out, err = toCopy(t, dt, t.Device(), "contiguous_format")
	if err != nil || t.Dim() == 0 {
		return out, nil, 0, err
	}
	moved, _ := transposeDims(out, int64(w), int64(t.Dim()-1))
	return out, moved.offsets(), t.Shape[w], nil
}

// cumulative is cumsum/cumprod along dim (ints accumulate in int64).
func cumulative(product bool) kernel {
	return func(c *call) ([]any, error) {
		out, offs, n, err := scan(c, sumDType)
		if err != nil || offs == nil {
			return oneT(out, err)
		}
		dt := out.DType
		if dt == ir.Bool { // the meta function accepts it, the CPU kernel does not
			return nil, fmt.Errorf("%q not implemented for 'Bool'", c.op.Schema.Name+"_out_cpu")
		}
		// ATen's CPU acc_type: the half types accumulate in float32,
		// float32 and float64 in double.
		round := func(x float64) float64 { return x }
		if dt.IsReducedFloat() {
			round = rounderFor(ir.F32)
		}
		for start := int64(0); start < int64(len(offs)); start += n {
			accF, accI := rt.B2F(product), rt.B2I(product)
			for _, o := range offs[start : start+n] {
				if dt.IsFloat() {
					x := loadF(dt, out.Storage.Data, o)
					if product {
						accF = round(accF * x)
					} else {
						accF = round(accF + x)
					}
					storeF(dt, out.Storage.Data, o, accF)
				} else {
					x := loadI(dt, out.Storage.Data, o)
					if product {
						accI *= x
					} else {
						accI += x
					}
					storeI(dt, out.Storage.Data, o, accI)
				}
			}
		}
		return one(out)
	}
}

func init() {
	register(sumLike("sum", false, false), "sum", "sum.dim_IntList")
	register(sumLike("nansum", false, true), "nansum")
	register(sumLike("prod", true, false), "prod", "prod.dim_int")
	register(kMean, "mean", "mean.dim")
	register(extremeKernel("amax", 1), "amax", "max")
	register(extremeKernel("amin", -1), "amin", "min")
	register(maxDim(1), "max.dim")
	register(maxDim(-1), "min.dim")
	register(argKernel(1), "argmax")
	register(argKernel(-1), "argmin")
	register(anyAll(false), "any", "any.dim", "any.dims")
	register(anyAll(true), "all", "all.dim", "all.dims")
	register(func(c *call) ([]any, error) { return moments(c, false, false) }, "var", "var.dim", "var.correction")
	register(func(c *call) ([]any, error) { return moments(c, true, false) }, "std", "std.dim", "std.correction")
	register(func(c *call) ([]any, error) { return moments(c, false, true) }, "var_mean", "var_mean.dim", "var_mean.correction")
	register(func(c *call) ([]any, error) { return moments(c, true, true) }, "std_mean", "std_mean.dim", "std_mean.correction")
	register(kLogSumExp, "logsumexp")
	register(kVectorNorm, "linalg_vector_norm")
	register(cumulative(false), "cumsum")
	register(cumulative(true), "cumprod")
}

// modulus is |t| elementwise as an f64 tensor (complex moduli unrounded).
func modulus(t *Tensor) (*Tensor, error) {
	vals := readComplex(t)
	out := make([]float64, len(vals))
	for i, v := range vals {
		out[i] = cmplx.Abs(v)
	}
	return FromFloatsOn(ir.F64, t.Shape, out, t.Device()), nil
}
