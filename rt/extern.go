package rt

import (
	"encoding/binary"
	"fmt"
	"math"
	"strings"
)

// Extern kernels as plain loops: operands are gathered into contiguous
// slices of the accumulation type (float64 for f64, float32 for f32 and
// the reduced formats, as PyTorch's CPU kernels accumulate), computed, and
// rounded into the output's layout. Operand tensors are views of whole
// buffers (Data is the buffer, Strides and Offset the layout).

// Extern runs one extern op on views of buffers; params are the op's
// integer arguments by schema name.
func Extern(op string, out *Tensor, args []*Tensor, params map[string][]int64) error {
	if !isFloat(out.DType) {
		return fmt.Errorf("%s: dtype %s is not supported by the Go backend", op, out.DType)
	}
	switch base, _, _ := strings.Cut(op, "."); base { // "aten::mm.default" is aten::mm
	case "aten::mm", "aten::bmm":
		if out.DType == "f64" {
			return matmul[float64](op, out, args)
		}
		return matmul[float32](op, out, args)
	case "aten::addmm":
		return addmmF32(op, out, args)
	case "aten::convolution":
		if out.DType == "f64" {
			return convolution[float64](out, args, params)
		}
		return convolution[float32](out, args, params)
	case "aten::upsample_bilinear2d_backward":
		if out.DType == "f64" {
			return upsampleBilinear2dBackward[float64](out, args, params)
		}
		return upsampleBilinear2dBackward[float32](out, args, params)
	case "aten::_adaptive_avg_pool2d_backward":
		if out.DType == "f64" {
			return adaptiveAvgPool2dBackward[float64](out, args)
		}
		return adaptiveAvgPool2dBackward[float32](out, args)
	case "aten::_embedding_bag_backward":
		switch out.DType {
		case "f64":
			return embeddingBagBackward[float64](op, out, args, params)
		case "f32":
			return embeddingBagBackward[float32](op, out, args, params)
		}
		return fmt.Errorf("%s: dtype %s is not supported by the Go backend (f32, f64)", op, out.DType)
	}
	return fmt.Errorf("extern op %s is not supported by the Go backend", op)
}

func isFloat(dt string) bool {
	switch dt {
	case "f16", "bf16", "f32", "f64", "f8e4m3fn", "f8e5m2", "f8e4m3fnuz", "f8e5m2fnuz":
		return true
	}
	return false
}

// loadAs gathers t's elements (row-major) as T.
func loadAs[T float32 | float64](t *Tensor) ([]T, error) {
	b, err := t.Bytes()
	if err != nil {
		return nil, err
	}
	n := Numel(t.Shape)
	out := make([]T, n)
	for i := range out {
		out[i] = T(decodeFloat(t.DType, b, int64(i)))
	}
	return out, nil
}

// decodeFloat reads element i of a float dtype's bytes (exact).
func decodeFloat(dt string, b []byte, i int64) float64 {
	switch dt {
	case "f64":
		return math.Float64frombits(binary.LittleEndian.Uint64(b[i*8:]))
	case "f32":
		return float64(math.Float32frombits(binary.LittleEndian.Uint32(b[i*4:])))
	case "bf16":
		return float64(F32FromBF16(binary.LittleEndian.Uint16(b[i*2:])))
	case "f16":
		return float64(F32FromF16(binary.LittleEndian.Uint16(b[i*2:])))
	case "f8e4m3fn":
		return float64(F32FromE4M3FN(b[i]))
	case "f8e5m2":
		return float64(F32FromE5M2(b[i]))
	case "f8e4m3fnuz":
		return float64(F32FromE4M3FNUZ(b[i]))
	case "f8e5m2fnuz":
		return float64(F32FromE5M2FNUZ(b[i]))
	}
	return math.NaN()
}

// encodeFloat writes v rounded into element i of a float dtype's bytes
// (through float32 for the reduced formats, as c10 converts).
func encodeFloat(dt string, b []byte, i int64, v float64) {
	f := float32(v)
	switch dt {
	case "f64":
		binary.LittleEndian.PutUint64(b[i*8:], math.Float64bits(v))
	case "f32":
		binary.LittleEndian.PutUint32(b[i*4:], math.Float32bits(f))
	case "bf16":
		binary.LittleEndian.PutUint16(b[i*2:], BF16FromF32(f))
	case "f16":
		binary.LittleEndian.PutUint16(b[i*2:], F16FromF32(f))
	case "f8e4m3fn":
		b[i] = E4M3FNFromF32(f)
	case "f8e5m2":
		b[i] = E5M2FromF32(f)
	case "f8e4m3fnuz":
		b[i] = E4M3FNUZFromF32(f)
	case "f8e5m2fnuz":
		b[i] = E5M2FNUZFromF32(f)
	}
}

// storeAs writes row-major values into out's layout.
func storeAs[T float32 | float64](out *Tensor, vals []T) error {
	tmp := NewTensor(out.DType, out.Shape)
	for i, v := range vals {
		encodeFloat(out.DType, tmp.Data, int64(i), float64(v))
	}
	return Copy(out.Data, int64(ItemSize(out.DType)), out.Shape, out.strides(), out.Offset, tmp.Data, RowMajor(out.Shape), 0)
}

// matmul is mm ([M,K]·[K,N]) and bmm ([B,M,K]·[B,K,N]).
func matmul[T float32 | float64](op string, out *Tensor, args []*Tensor) error {
	if len(args) != 2 {
		return fmt.Errorf("%s: want 2 operands, got %d", op, len(args))
	}
	a, b := args[0], args[1]
	rank := 2
	if strings.HasPrefix(op, "aten::bmm") {
		rank = 3
	}
	if len(a.Shape) != rank || len(b.Shape) != rank || len(out.Shape) != rank {
		return fmt.Errorf("%s: operands must be %d-D, got %v and %v", op, rank, a.Shape, b.Shape)
	}
	batch := int64(1)
	if rank == 3 {
		batch = a.Shape[0]
		if b.Shape[0] != batch || out.Shape[0] != batch {
			return fmt.Errorf("%s: batch sizes differ: %v, %v", op, a.Shape, b.Shape)
		}
	}
	m, k, n := a.Shape[rank-2], a.Shape[rank-1], b.Shape[rank-1]
	if b.Shape[rank-2] != k || out.Shape[rank-2] != m || out.Shape[rank-1] != n {
		return fmt.Errorf("%s: mat1 and mat2 shapes cannot be multiplied (%dx%d and %dx%d)", op, m, k, b.Shape[rank-2], n)
	}
	if a.DType == "f32" && b.DType == "f32" && out.DType == "f32" {
		return matmulF32(a, b, out, batch, m, k, n)
	}
	av, err := loadAs[T](a)
	if err != nil {
		return fmt.Errorf("%s: mat1: %w", op, err)
	}
	bv, err := loadAs[T](b)
	if err != nil {
		return fmt.Errorf("%s: mat2: %w", op, err)
	}
	ov := make([]T, batch*m*n)
	err = ParallelFor(batch*m, k*n, func(lo, hi int64) error {
		for row := lo; row < hi; row++ {
			bi, i := row/m, row%m
			dst := ov[row*n : (row+1)*n]
			arow := av[(bi*m+i)*k : (bi*m+i+1)*k]
			for p, x := range arow {
				brow := bv[(bi*k+int64(p))*n : (bi*k+int64(p)+1)*n]
				brow = brow[:len(dst)]
				for j := range dst {
					dst[j] += x * brow[j]
				}
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	return storeAs(out, ov)
}

// matmulF32 is matmul on float32 operands through sgemm (gemm.go), reading
// the operands in their layouts and writing a contiguous output in place.
func matmulF32(a, b, out *Tensor, batch, m, k, n int64) error {
	view := func(t *Tensor, bi int64) f32Matrix {
		st := t.strides()
		r := len(st)
		off := t.Offset
		if r == 3 {
			off += bi * st[0]
		}
		return f32Matrix{data: F32s(t.Data), off: off, rs: st[r-2], cs: st[r-1]}
	}
	if err := a.fits(); err != nil {
		return err
	}
	if err := b.fits(); err != nil {
		return err
	}
	if err := out.fits(); err != nil {
		return err
	}
	direct := out.IsContiguous()
	var ov []float32
	if direct {
		ov = F32s(out.Data)[:batch*m*n]
	} else {
		ov = make([]float32, batch*m*n)
	}
	for bi := range batch {
		av := view(a, bi).rowMajor(m, k)
		if err := sgemm(m, k, n, av, view(b, bi), ov[bi*m*n:(bi+1)*m*n]); err != nil {
			return err
		}
	}
	if direct {
		return nil
	}
	return storeAs(out, ov)
}

// addmmF32 is addmm on f32 with alpha = beta = 1, as lowering emits it:
// args are self (already expanded to the output's shape, broadcast
// dimensions of stride 0), mat1 and mat2; out = self + mat1·mat2, the
// product held in f32 and self added once, as PyTorch's GEMM epilogue.
func addmmF32(op string, out *Tensor, args []*Tensor) error {
	if len(args) != 3 || out.DType != "f32" || args[0].DType != "f32" || len(out.Shape) != 2 {
		return fmt.Errorf("%s: want f32 self, mat1, mat2 and a 2-D f32 output", op)
	}
	self := args[0]
	if len(self.Shape) != 2 || self.Shape[0] != out.Shape[0] || self.Shape[1] != out.Shape[1] {
		return fmt.Errorf("%s: self of shape %v is not expanded to the output's %v", op, self.Shape, out.Shape)
	}
	if err := self.fits(); err != nil {
		return fmt.Errorf("%s: self: %w", op, err)
	}
	if err := matmul[float32]("aten::mm", out, args[1:]); err != nil {
		return err
	}
	os, ss := out.strides(), self.strides()
	od, sd := F32s(out.Data), F32s(self.Data)
	if n := out.Shape[1]; os[1] == 1 && ss[1] == 1 { // rows: on lanes where there are
		for i := range out.Shape[0] {
			orow, srow := od[out.Offset+i*os[0]:][:n], sd[self.Offset+i*ss[0]:][:n]
			for j := addF32Lanes(orow, srow); j < len(orow); j++ {
				orow[j] = srow[j] + orow[j]
			}
		}
		return nil
	}
	for i := range out.Shape[0] {
		for j := range out.Shape[1] {
			o := out.Offset + i*os[0] + j*os[1]
			od[o] = sd[self.Offset+i*ss[0]+j*ss[1]] + od[o]
		}
	}
	return nil
}
