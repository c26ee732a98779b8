package interp

import (
	"fmt"
	"math"
	"runtime"
	"sync"

	"github.com/kiln-compiler/kiln/ir"
	"github.com/kiln-compiler/kiln/ops"
)

// Matrix products and convolution. PyTorch runs these in BLAS / oneDNN,
// whose summation order is unspecified; kiln accumulates in float64 and
// rounds once into the result dtype, so results agree with PyTorch within
// the dtype's tolerance rather than bit for bit.

// dense reads t as a row-major float64 (or int64) array.
func dense(t *Tensor) []float64 { return t.Floats() }

// parallelRows splits rows over workers when rows·perRow is large.
func parallelRows(rows, perRow int64, f func(lo, hi int64)) {
	workers := int64(runtime.GOMAXPROCS(0))
	if rows*perRow < 1<<20 || workers == 1 || rows < 2 {
		f(0, rows)
		return
	}
	parts := min(workers, rows)
	var wg sync.WaitGroup
	for p := int64(0); p < parts; p++ {
		lo, hi := rows*p/parts, rows*(p+1)/parts
		wg.Add(1)
		go func() {
			defer wg.Done()
			f(lo, hi)
		}()
	}
	wg.Wait()
}

func hasNonFinite(xs []float64) bool {
	for _, x := range xs {
		if x-x != 0 {
			return true
		}
	}
	return false
}

// sameDTypes is the matmul family's check.
func sameDTypes(a, b *Tensor) error {
	if a.DType != b.DType {
		return fmt.Errorf("expected m1 and m2 to have the same dtype, but got: %s != %s", ops.CppTypeName(a.DType), ops.CppTypeName(b.DType))
	}
	if a.DType == ir.Bool {
		return fmt.Errorf("\"addmm_impl_cpu_\" not implemented for 'Bool'")
	}
	return nil
}

// bmm is [B,M,K]·[B,K,N].
func bmm(a, b *Tensor) (*Tensor, error) {
	vals, shape, err := bmmProduct(a, b)
	if err != nil {
		return nil, err
	}
	return FromFloatsOn(a.DType, shape, vals, a.Device()), nil
}

// bmmProduct is bmm's product before it is rounded to the dtype.
func bmmProduct(a, b *Tensor) ([]float64, []int64, error) {
	if a.Dim() != 3 || b.Dim() != 3 {
		return nil, nil, fmt.Errorf("batch1 must be a 3D tensor")
	}
	if err := sameDTypes(a, b); err != nil {
		return nil, nil, err
	}
	if a.Shape[0] != b.Shape[0] || a.Shape[2] != b.Shape[1] {
		return nil, nil, fmt.Errorf("Expected size for first two dimensions of batch2 tensor to be: [%d, %d] but got: [%d, %d].",
			a.Shape[0], a.Shape[2], b.Shape[0], b.Shape[1])
	}
	batch, m, k, n := a.Shape[0], a.Shape[1], a.Shape[2], b.Shape[2]
	return bmmRaw(dense(a), dense(b), batch, m, k, n), []int64{batch, m, n}, nil
}

// FromFloatsOn is FromFloats on a device.
func FromFloatsOn(dt ir.DType, shape []int64, vals []float64, dev ir.Device) *Tensor {
	t := FromFloats(dt, shape, vals)
	t.Storage.Device = dev
	return t
}

// mm is [M,K]·[K,N].
func mm(a, b *Tensor) (*Tensor, error) {
	vals, shape, err := mmProduct(a, b)
	if err != nil {
		return nil, err
	}
	return FromFloatsOn(a.DType, shape, vals, a.Device()), nil
}

// mmProduct is mm's product before it is rounded to the dtype.
func mmProduct(a, b *Tensor) ([]float64, []int64, error) {
	if a.Dim() != 2 {
		return nil, nil, fmt.Errorf("self must be a matrix")
	}
	if b.Dim() != 2 {
		return nil, nil, fmt.Errorf("mat2 must be a matrix")
	}
	if a.Shape[1] != b.Shape[0] {
		return nil, nil, fmt.Errorf("mat1 and mat2 shapes cannot be multiplied (%dx%d and %dx%d)", a.Shape[0], a.Shape[1], b.Shape[0], b.Shape[1])
	}
	if err := sameDTypes(a, b); err != nil {
		return nil, nil, err
	}
	m, k, n := a.Shape[0], a.Shape[1], b.Shape[1]
	return bmmRaw(dense(a), dense(b), 1, m, k, n), []int64{m, n}, nil
}

// matmul is torch.matmul: 1-d operands get a unit dim that is dropped
// again, batch dims broadcast.
func matmul(a, b *Tensor) (*Tensor, error) {
	if a.Dim() == 0 || b.Dim() == 0 {
		return nil, fmt.Errorf("both arguments to matmul need to be at least 1D, but they are %dD and %dD", a.Dim(), b.Dim())
	}
	if err := sameDTypes(a, b); err != nil {
		return nil, err
	}
	a2, b2 := a, b
	if a.Dim() == 1 {
		a2, _ = unsqueeze(a, 0)
	}
	if b.Dim() == 1 {
		b2, _ = unsqueeze(b, 1)
	}
	batchA, batchB := a2.Shape[:a2.Dim()-2], b2.Shape[:b2.Dim()-2]
	batch, err := broadcastShapes(batchA, batchB)
	if err != nil {
		return nil, err
	}
	m, k, k2, n := a2.Shape[a2.Dim()-2], a2.Shape[a2.Dim()-1], b2.Shape[b2.Dim()-2], b2.Shape[b2.Dim()-1]
	if k != k2 {
		return nil, fmt.Errorf("mat1 and mat2 shapes cannot be multiplied (%dx%d and %dx%d)", numel(a2.Shape)/k, k, k2, n)
	}
	ea := expandTo(a2, append(clone64(batch), m, k))
	eb := expandTo(b2, append(clone64(batch), k, n))
	nb := numel(batch)
	out := bmmRaw(dense(ea), dense(eb), nb, m, k, n)
	shape := clone64(batch)
	if a.Dim() > 1 {
		shape = append(shape, m)
	}
	if b.Dim() > 1 {
		shape = append(shape, n)
	}
	return FromFloatsOn(a.DType, shape, out, a.Device()), nil
}

// addScaled is beta·self + alpha·prod rounded once into like's dtype;
// beta 0 ignores self (NaN too).
func addScaled(self, like *Tensor, p []float64, shape []int64, beta, alpha float64) (*Tensor, error) {
	var s []float64
	if beta != 0 {
		e, err := expandChecked(self, shape)
		if err != nil {
			return nil, err
		}
		s = e.Floats()
	}
	out := make([]float64, len(p))
	for i := range p {
		out[i] = alpha * p[i]
		if beta != 0 {
			out[i] += beta * s[i]
		}
	}
	return FromFloatsOn(like.DType, shape, out, like.Device()), nil
}

// expandChecked broadcasts t to shape or fails as expand does.
func expandChecked(t *Tensor, shape []int64) (*Tensor, error) {
	return expand(t, shape)
}

func betaAlpha(c *call) (float64, float64, error) {
	beta, err := c.float("beta")
	if err != nil {
		return 0, 0, err
	}
	alpha, err := c.float("alpha")
	return beta, alpha, err
}

func kAddmm(c *call) ([]any, error) {
	self, err := c.tensor("self")
	if err != nil {
		return nil, err
	}
	names := []string{"mat1", "mat2"}
	if c.has("batch1") {
		names = []string{"batch1", "batch2"}
	}
	a, err := c.tensor(names[0])
	if err != nil {
		return nil, err
	}
	b, err := c.tensor(names[1])
	if err != nil {
		return nil, err
	}
	// The product stays unrounded until the bias is added: PyTorch's GEMM
	// adds beta*self in its (f32) epilogue and rounds once.
	product := mmProduct
	if c.has("batch1") {
		product = bmmProduct
	}
	prod, shape, err := product(a, b)
	if err != nil {
		return nil, err
	}
	if self.DType != b.DType {
		return nil, fmt.Errorf("self and mat2 must have the same dtype, but got %s and %s", scalarTypeName(self.DType), scalarTypeName(b.DType))
	}
	beta, alpha, err := betaAlpha(c)
	if err != nil {
		return nil, err
	}
	if !a.DType.IsFloat() && !a.DType.IsComplex() {
		// an integer GEMM takes beta and alpha as its own type:
		// Scalar::to<int64_t>() truncates 1.5 to 1
		beta, alpha = math.Trunc(beta), math.Trunc(alpha)
	}
	return oneT(addScaled(self, a, prod, shape, beta, alpha))
}

func kLinear(c *call) ([]any, error) {
	x, w, err := c.tensor2("input", "weight")
	if err != nil {
		return nil, err
	}
	wt, err := kT(c, w)
	if err != nil {
		return nil, err
	}
	bias, err := c.optTensor("bias")
	if err != nil {
		return nil, err
	}
	if bias != nil && wt.Dim() == 2 && linearIsAddmm(x, bias) {
		return linearAddmm(x, wt, bias)
	}
	out, err := matmul(x, wt)
	if err != nil || bias == nil {
		return oneT(out, err)
	}
	return oneT(addScaled(bias, out, out.Floats(), out.Shape, 1, 1))
}

// linearIsAddmm is ATen's linear choosing addmm (2-d input) or
// _flatten_nd_linear (contiguous n-d input): the bias then joins the
// product before it is rounded.
func linearIsAddmm(x, bias *Tensor) bool {
	return x.Dim() == 2 || x.Dim() > 2 && x.IsContiguous() && (x.Dim() == 3 || bias.Dim() == 1)
}

// linearAddmm is addmm(bias, x as [rows, k], wt), viewed back to x's
// leading dims.
func linearAddmm(x, wt, bias *Tensor) ([]any, error) {
	flat := x
	if x.Dim() > 2 { // contiguous: rows of k
		k := x.Shape[x.Dim()-1]
		var err error
		if flat, err = x.View([]int64{numel(x.Shape) / max(k, 1), k}, []int64{k, 1}, x.Offset); err != nil {
			return nil, err
		}
	}
	prod, shape, err := mmProduct(flat, wt)
	if err != nil {
		return nil, err
	}
	out, err := addScaled(bias, x, prod, shape, 1, 1)
	if err != nil {
		return nil, err
	}
	outShape := append(clone64(x.Shape[:x.Dim()-1]), wt.Shape[1])
	return oneT(out.View(outShape, ContiguousStrides(outShape), 0))
}

// two reads two tensor parameters and applies f.
func two(a, b string, f func(x, y *Tensor) (*Tensor, error)) kernel {
	return func(c *call) ([]any, error) {
		x, err := c.tensor(a)
		if err != nil {
			return nil, err
		}
		y, err := c.tensor(b)
		if err != nil {
			return nil, err
		}
		return oneT(f(x, y))
	}
}

func vecProduct(x, y *Tensor) (*Tensor, error) {
	if x.Dim() != 1 || y.Dim() != 1 {
		return nil, fmt.Errorf("1D tensors expected, but got %dD and %dD tensors", x.Dim(), y.Dim())
	}
	if x.Shape[0] != y.Shape[0] {
		return nil, fmt.Errorf("inconsistent tensor size, expected tensor [%d] and src [%d] to have the same number of elements, but got %d and %d elements respectively",
			x.Shape[0], y.Shape[0], x.Shape[0], y.Shape[0])
	}
	return matmul(x, y)
}

func init() {
	register(two("self", "mat2", mm), "mm")
	register(two("self", "mat2", bmm), "bmm")
	register(two("self", "other", matmul), "matmul")
	register(two("self", "vec", matmul), "mv")
	register(two("self", "tensor", vecProduct), "dot")
	register(two("self", "other", vecProduct), "vdot") // vdot conjugates self: the same for real dtypes
	register(kAddmm, "addmm", "baddbmm")
	register(kLinear, "linear")
}
