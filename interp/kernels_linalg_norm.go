package interp

import (
	"fmt"
	"math"

	"github.com/kiln-compiler/kiln/ir"
)

// Matrix norms as ATen's linalg_matrix_norm composes them: 'fro' is the
// vector 2-norm over both dims; ±1 (±∞) the max (min) over columns (rows)
// of the vector 1-norm; ±2 the largest (smallest) singular value and
// 'nuc' their sum. linalg_norm picks the matrix norm when an ord is given
// with two dims (or none, for a matrix) and the vector norm otherwise.

func init() {
	register(kLinalgNorm, "linalg_norm", "linalg_norm.ord_str")
	register(kMatrixNorm, "linalg_matrix_norm", "linalg_matrix_norm.str_ord")
	register(kMatrixRank, "linalg_matrix_rank", "linalg_matrix_rank.tol_tensor", "linalg_matrix_rank.atol_rtol_tensor", "linalg_matrix_rank.atol_rtol_float")
	register(kCond, "linalg_cond", "linalg_cond.p_str")
}

// normOrd reads ord: a number, a string ('fro', 'nuc'), or absent.
func normOrd(c *call) (num float64, str string, given bool, err error) {
	if !c.has("ord") || c.isNone("ord") {
		return 0, "", false, nil
	}
	x, err := c.val("ord")
	if err != nil {
		return 0, "", false, err
	}
	if s, ok := x.(string); ok {
		return 0, s, true, nil
	}
	num, err = c.float("ord")
	return num, "", true, err
}

func kLinalgNorm(c *call) ([]any, error) {
	t, dims, keepdim, dt, hasDT, err := reduceArgs(c)
	if err != nil {
		return nil, err
	}
	num, str, given, err := normOrd(c)
	if err != nil {
		return nil, err
	}
	if !hasDT {
		dt = t.DType
	}
	if given && (len(dims) == 2 || dims == nil && t.Dim() == 2) || str != "" {
		if dims == nil {
			dims = []int64{0, 1}
		}
		return oneT(matrixNorm(t, num, str, dims, keepdim, dt))
	}
	if !given {
		num = 2
	}
	return oneT(vectorNorm(t, num, dims, keepdim, dt))
}

func kMatrixNorm(c *call) ([]any, error) {
	t, dims, keepdim, dt, hasDT, err := reduceArgs(c)
	if err != nil {
		return nil, err
	}
	num, str, _, err := normOrd(c)
	if err != nil {
		return nil, err
	}
	if !hasDT {
		dt = t.DType
	}
	return oneT(matrixNorm(t, num, str, dims, keepdim, dt))
}

func matrixNorm(t *Tensor, ord float64, str string, dims []int64, keepdim bool, dt ir.DType) (*Tensor, error) {
	if len(dims) != 2 {
		return nil, fmt.Errorf("linalg.matrix_norm: dim must be a 2-tuple. Got %v", dims)
	}
	d0, err := wrapDim(dims[0], t.Dim())
	if err != nil {
		return nil, err
	}
	d1, err := wrapDim(dims[1], t.Dim())
	if err != nil {
		return nil, err
	}
	if d0 == d1 {
		return nil, fmt.Errorf("linalg.matrix_norm: dims must be different. Got (%d, %d)", dims[0], dims[1])
	}
	abs := math.Abs(ord)
	switch {
	case str == "fro":
		return vectorNorm(t, 2, dims, keepdim, dt)
	case str == "nuc" || str == "" && abs == 2:
		return spectralNorm(t, ord, str == "nuc", d0, d1, keepdim, dt)
	case str != "" || abs != 1 && !math.IsInf(abs, 1):
		return nil, fmt.Errorf("linalg.matrix_norm: Order %v not supported.", map[bool]any{true: str, false: ord}[str != ""])
	}
	if math.IsInf(abs, 1) { // the ∞-norm is the 1-norm of the transpose
		d0, d1 = d1, d0
	}
	col, err := vectorNorm(t, 1, []int64{int64(d0)}, keepdim, dt)
	if err != nil {
		return nil, err
	}
	if !keepdim && d0 < d1 {
		d1--
	}
	r, err := plan(col, []int64{int64(d1)}, keepdim)
	if err != nil {
		return nil, err
	}
	return r.reduceTo(col.DType, true, func(xs []float64) float64 {
		best := xs[0]
		for _, x := range xs {
			if ord > 0 && x > best || ord < 0 && x < best || math.IsNaN(x) {
				best = x
			}
		}
		return best
	}, nil)
}

// spectralNorm is the largest (ord 2) or smallest (−2) singular value, or
// their sum (nuc), of the matrices spanning dims d0, d1.
func spectralNorm(t *Tensor, ord float64, nuc bool, d0, d1 int, keepdim bool, dt ir.DType) (*Tensor, error) {
	perm := []int64{}
	for i := 0; i < t.Dim(); i++ {
		if i != d0 && i != d1 {
			perm = append(perm, int64(i))
		}
	}
	batch := make([]int64, len(perm))
	for i, d := range perm {
		batch[i] = t.Shape[d]
	}
	moved, err := permute(t, append(perm, int64(d0), int64(d1)))
	if err != nil {
		return nil, err
	}
	if dt != t.DType {
		if moved, err = toCopy(moved, dt, t.Device(), "contiguous_format"); err != nil {
			return nil, err
		}
	}
	mb, err := readMats(moved, "linalg.matrix_norm")
	if err != nil {
		return nil, err
	}
	vals := make([]float64, len(mb.mats))
	for i, m := range mb.mats {
		_, s, _ := svd(m, false)
		v := 0.0
		for j, x := range s {
			switch {
			case nuc:
				v += x
			case j == 0 || ord > 0 && x > v || ord < 0 && x < v:
				v = x
			}
		}
		vals[i] = v
	}
	shape := batch
	if keepdim {
		shape = clone64(t.Shape)
		shape[d0], shape[d1] = 1, 1
	}
	return FromFloatsOn(realOf(dt), shape, vals, t.Device()), nil
}

// kMatrixRank counts the singular values (|eigenvalues| when hermitian)
// above max(atol, rtol·σ_max), with linalg_pinv's defaults; the float and
// tol overloads give an absolute tolerance.
func kMatrixRank(c *call) ([]any, error) {
	name := c.op.Schema.Params[0].Name
	a, err := c.tensor(name)
	if err != nil {
		return nil, err
	}
	herm, err := c.bool("hermitian")
	if err != nil {
		return nil, err
	}
	scalar := func(v float64) *Tensor { return FromFloatsOn(ir.F64, nil, []float64{v}, a.Device()) }
	var atol, rtol *Tensor
	switch {
	case c.has("tol") && !c.isNone("tol"):
		if atol, err = c.tensor("tol"); err != nil {
			tol, ferr := c.float("tol")
			if ferr != nil {
				return nil, ferr
			}
			atol = scalar(tol)
		}
		rtol = scalar(0)
	default:
		for _, p := range []struct {
			name string
			t    **Tensor
		}{{"atol", &atol}, {"rtol", &rtol}} {
			if !c.has(p.name) || c.isNone(p.name) {
				continue
			}
			if *p.t, err = c.tensor(p.name); err != nil {
				v, ferr := c.float(p.name)
				if ferr != nil {
					return nil, ferr
				}
				*p.t = scalar(v)
			}
		}
	}
	mb, err := readMats(a, "linalg.matrix_rank")
	if err != nil {
		return nil, err
	}
	at, rt, err := pinvTolerances(atol, rtol, mb, a.DType)
	if err != nil {
		return nil, err
	}
	ranks := make([]int64, len(mb.mats))
	for i, m := range mb.mats {
		var sv []float64
		if herm {
			w, _ := eighJacobi(m, true)
			for _, x := range w {
				sv = append(sv, math.Abs(x))
			}
		} else {
			_, sv, _ = svd(m, false)
		}
		smax := 0.0
		for _, x := range sv {
			smax = max(smax, x)
		}
		tol := max(at[i], rt[i]*smax)
		for _, x := range sv {
			if x > tol {
				ranks[i]++
			}
		}
	}
	out := FromInts(ir.I64, mb.batch, ranks)
	out.Storage.Device = a.Device()
	return one(out)
}

// kCond is σ_max/σ_min for p None or ±2 (σ_min/σ_max for −2), else
// ‖A‖_p·‖A⁻¹‖_p with the matrix norm of that order.
func kCond(c *call) ([]any, error) {
	a, err := c.tensor("self")
	if err != nil {
		return nil, err
	}
	num, str, given, err := normOrd(c.with(map[string]any{"ord": mustVal(c, "p")}))
	if err != nil {
		return nil, err
	}
	mb, err := readMats(a, "linalg.cond")
	if err != nil {
		return nil, err
	}
	rdt := realOf(a.DType)
	if !given || str == "" && math.Abs(num) == 2 {
		vals := make([]float64, len(mb.mats))
		for i, m := range mb.mats {
			_, s, _ := svd(m, false)
			if len(s) == 0 {
				continue
			}
			vals[i] = s[0] / s[len(s)-1]
			if given && num < 0 {
				vals[i] = s[len(s)-1] / s[0]
			}
		}
		return one(FromFloatsOn(rdt, mb.batch, vals, a.Device()))
	}
	inv := make([]*cmat, len(mb.mats))
	for i, m := range mb.mats {
		lu := m.clone()
		piv, _ := getrf(lu)
		inv[i] = luSolve(lu, piv, eye(mb.n), false)
	}
	invT, err := writeMats(a.DType, mb.batch, inv, mb.n, mb.n, false, a.Device())
	if err != nil {
		return nil, err
	}
	dims := []int64{-2, -1}
	na, err := matrixNorm(a, num, str, dims, false, a.DType)
	if err != nil {
		return nil, err
	}
	ni, err := matrixNorm(invT, num, str, dims, false, a.DType)
	if err != nil {
		return nil, err
	}
	x, y := na.Floats(), ni.Floats()
	for i := range x {
		x[i] *= y[i]
	}
	return one(FromFloatsOn(rdt, mb.batch, x, a.Device()))
}
