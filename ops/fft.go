package ops

import (
	"sort"

	"github.com/kiln-compiler/kiln/ir"
	"github.com/kiln-compiler/kiln/ir/sym"
)

// FFT on the CPU (MKL): the layouts follow PyTorch's meta functions
// (torch/_meta_registrations.py meta_fft_c2c/r2c/c2r and _exec_fft): batch
// dims first in the input's stride order, transformed dims last, the
// result strided back to the original dim order.

func fftTable() []Entry {
	f := func(schema string, meta MetaFunc) Entry { return Entry{Schema: schema, Kind: KindExtern, Meta: meta} }
	return []Entry{
		f("_fft_c2c(Tensor self, SymInt[] dim, int normalization, bool forward) -> Tensor", metaFFTC2C),
		f("_fft_r2c(Tensor self, int[] dim, int normalization, bool onesided) -> Tensor", metaFFTR2C),
		f("_fft_c2r(Tensor self, int[] dim, int normalization, SymInt last_dim_size) -> Tensor", metaFFTC2R),
	}
}

func fftDims(c *Call, self *ir.TensorType) ([]int, error) {
	raw, err := c.Ints("dim")
	if err != nil {
		return nil, err
	}
	return wrapDims(raw, self.Rank())
}

// sortByStride orders dims by the input's strides, largest first, stably;
// with exceptLast the last dim stays last.
func (env *Env) sortByStride(self *ir.TensorType, dims []int, exceptLast bool) []int {
	out := append([]int(nil), dims...)
	end := len(out)
	if exceptLast && end > 0 {
		end--
	}
	st := stridesOf(self)
	sort.SliceStable(out[:end], func(i, j int) bool { return env.cmpExpr(st[out[i]], st[out[j]]) == 1 })
	return out
}

// execFFT is _exec_fft's layout: the type of a transform of self over dims
// into a dt tensor of outSizes.
func (env *Env) execFFT(self *ir.TensorType, dt ir.DType, outSizes []sym.Expr, dims []int) *ir.TensorType {
	for _, s := range outSizes {
		if isConst(s, 0) {
			return env.Contiguous(dt, outSizes, self.Device)
		}
	}
	ndim := self.Rank()
	transformed := make([]bool, ndim)
	for _, d := range dims {
		transformed[d] = true
	}
	var perm []int
	for d := 0; d < ndim; d++ {
		if !transformed[d] {
			perm = append(perm, d)
		}
	}
	batchDims := len(perm)
	st := stridesOf(self)
	sort.SliceStable(perm, func(i, j int) bool { return env.cmpExpr(st[perm[i]], st[perm[j]]) == 1 })
	perm = append(perm, dims...)
	// out is contiguous over [batch, out sizes of dims...].
	inner := make([]sym.Expr, len(dims)+1) // inner[j] = stride of batched dim j
	inner[len(dims)] = sym.Const(1)
	for j := len(dims) - 1; j >= 0; j-- {
		inner[j] = sym.Mul(inner[j+1], outSizes[dims[j]])
	}
	strides := make([]sym.Expr, ndim)
	batchNumel := sym.Const(1)
	for i := batchDims - 1; i >= 0; i-- {
		strides[perm[i]] = sym.Mul(batchNumel, inner[0])
		batchNumel = sym.Mul(batchNumel, outSizes[perm[i]])
	}
	for i := batchDims; i < ndim; i++ {
		strides[perm[i]] = inner[1+i-batchDims]
	}
	return env.Fresh(dt, copyExprs(outSizes), strides, self.Device)
}

func metaFFTC2C(env *Env, c *Call) ([]ir.Type, error) {
	self, err := c.Tensor("self")
	if err != nil {
		return nil, err
	}
	dims, err := fftDims(c, self)
	if err != nil {
		return nil, err
	}
	return one(env.fftC2C(self, dims)), nil
}

func (env *Env) fftC2C(self *ir.TensorType, dims []int) *ir.TensorType {
	if len(dims) == 0 {
		return env.Fresh(self.DType, copyExprs(self.Shape), env.PreserveStrides(self), self.Device)
	}
	return env.execFFT(self, self.DType, self.Shape, env.sortByStride(self, dims, false))
}

func metaFFTR2C(env *Env, c *Call) ([]ir.Type, error) {
	self, err := c.Tensor("self")
	if err != nil {
		return nil, err
	}
	dims, err := fftDims(c, self)
	if err != nil || len(dims) == 0 {
		return nil, err
	}
	onesided, err := c.Bool("onesided")
	if err != nil {
		return nil, err
	}
	out := copyExprs(self.Shape)
	if last := dims[len(dims)-1]; onesided {
		out[last] = sym.Add(sym.FloorDiv(out[last], sym.Const(2)), sym.Const(1))
	}
	return one(env.execFFT(self, toComplex(self.DType), out, env.sortByStride(self, dims, true))), nil
}

func metaFFTC2R(env *Env, c *Call) ([]ir.Type, error) {
	self, err := c.Tensor("self")
	if err != nil {
		return nil, err
	}
	dims, err := fftDims(c, self)
	if err != nil || len(dims) == 0 {
		return nil, err
	}
	last, err := c.SymInt("last_dim_size")
	if err != nil {
		return nil, err
	}
	in := self
	if len(dims) > 1 {
		in = env.fftC2C(self, dims[:len(dims)-1])
		dims = dims[len(dims)-1:]
	}
	out := copyExprs(in.Shape)
	out[dims[0]] = last
	return one(env.execFFT(in, realPart(self.DType), out, dims)), nil
}
