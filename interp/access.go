package interp

import (
	"encoding/binary"
	"math"

	"github.com/kiln-compiler/kiln/ir"
)

// Element access. Kernels compute in one of two lanes: float64 values (for
// floating dtypes; every float dtype kiln knows converts to float64
// exactly) or int64 values (integers and bool as 0/1). Loads convert a
// stored element into a lane; stores convert a lane value into the stored
// dtype the way PyTorch's static_cast does on x86 CPUs.

var le = binary.LittleEndian

// loadF reads element off (in elements) of a dt storage as a float64.
func loadF(dt ir.DType, b []byte, off int64) float64 {
	switch dt {
	case ir.F32:
		return float64(math.Float32frombits(le.Uint32(b[off*4:])))
	case ir.F64:
		return math.Float64frombits(le.Uint64(b[off*8:]))
	case ir.BF16:
		return float64(F32FromBF16(le.Uint16(b[off*2:])))
	case ir.F16:
		return half.decode(uint32(le.Uint16(b[off*2:])))
	case ir.F8E4M3FN, ir.F8E5M2, ir.F8E4M3FNUZ, ir.F8E5M2FNUZ:
		return miniOfDTy[dt].decode(uint32(b[off]))
	case ir.F8E8M0FNU:
		return float64(F32FromE8M0(b[off]))
	case ir.U64:
		return float64(le.Uint64(b[off*8:]))
	case ir.C32, ir.C64, ir.C128:
		return loadC(dt, b, off).re // a cast to a real type keeps the real part, as c10 does
	}
	return float64(loadI(dt, b, off))
}

// loadI reads element off as an int64 (floats truncate as C++ casts do).
func loadI(dt ir.DType, b []byte, off int64) int64 {
	switch dt {
	case ir.Bool: // any nonzero byte is true (uninitialized bool memory holds others)
		return int64(boolByte(b[off] != 0))
	case ir.U8, ir.Bits1x8, ir.F4E2M1FNX2:
		return int64(b[off])
	case ir.I8:
		return int64(int8(b[off]))
	case ir.I16:
		return int64(int16(le.Uint16(b[off*2:])))
	case ir.U16, ir.Bits16:
		return int64(le.Uint16(b[off*2:]))
	case ir.I32:
		return int64(int32(le.Uint32(b[off*4:])))
	case ir.U32:
		return int64(le.Uint32(b[off*4:]))
	case ir.I64, ir.U64:
		return int64(le.Uint64(b[off*8:]))
	}
	return floatToInt(loadF(dt, b, off), ir.I64)
}

// storeF writes a float lane value into element off of a dt storage.
func storeF(dt ir.DType, b []byte, off int64, v float64) {
	switch dt {
	case ir.F32:
		le.PutUint32(b[off*4:], math.Float32bits(float32(v)))
	case ir.F64:
		le.PutUint64(b[off*8:], math.Float64bits(v))
	case ir.BF16:
		le.PutUint16(b[off*2:], BF16FromF32(float32(v)))
	case ir.F16:
		le.PutUint16(b[off*2:], uint16(half.encode(float32(v))))
	case ir.F8E4M3FN, ir.F8E5M2, ir.F8E4M3FNUZ, ir.F8E5M2FNUZ:
		b[off] = uint8(miniOfDTy[dt].encode(float32(v)))
	case ir.F8E8M0FNU:
		b[off] = E8M0FromF32(float32(v))
	case ir.Bool:
		b[off] = boolByte(v != 0)
	case ir.C32, ir.C64, ir.C128:
		storeC(dt, b, off, cplx{re: v})
	default:
		storeI(dt, b, off, floatToInt(v, dt))
	}
}

// storeI writes an int lane value into element off, wrapping at the
// dtype's width.
func storeI(dt ir.DType, b []byte, off int64, v int64) {
	switch dt {
	case ir.Bool:
		b[off] = boolByte(v != 0)
	case ir.U8, ir.I8, ir.Bits1x8, ir.F4E2M1FNX2:
		b[off] = uint8(v)
	case ir.I16, ir.U16, ir.Bits16:
		le.PutUint16(b[off*2:], uint16(v))
	case ir.I32, ir.U32:
		le.PutUint32(b[off*4:], uint32(v))
	case ir.I64, ir.U64:
		le.PutUint64(b[off*8:], uint64(v))
	case ir.F32:
		le.PutUint32(b[off*4:], math.Float32bits(float32(v)))
	case ir.F64:
		le.PutUint64(b[off*8:], math.Float64bits(float64(v)))
	case ir.C32, ir.C64, ir.C128:
		storeC(dt, b, off, cplx{re: float64(v)})
	default: // reduced floats: through float32, as c10 converts
		storeF(dt, b, off, float64(float32(v)))
	}
}

func boolByte(v bool) byte {
	if v {
		return 1
	}
	return 0
}

// floatToInt is static_cast<int_t>(float) as x86 compiles it: truncation
// toward zero; NaN and out-of-range values give the "integer indefinite"
// (the most negative value of the 32- or 64-bit conversion), then the
// result wraps to dt's width.
func floatToInt(v float64, dt ir.DType) int64 {
	wide := dt == ir.I64 || dt == ir.U64 || dt == ir.U32
	if wide {
		if v != v || v >= 9223372036854775807 || v < -9223372036854775808 {
			return math.MinInt64
		}
		return int64(v)
	}
	if v != v || v >= 2147483648 || v < -2147483648 {
		return math.MinInt32
	}
	return int64(int32(v))
}

// offsetIter walks a strided geometry in row-major logical order, giving
// each element's storage offset.
type offsetIter struct {
	shape, strides, idx []int64
	off                 int64
	dense               bool // offsets are consecutive
}

// newOffsetIter starts at logical (row-major) element start.
func newOffsetIter(shape, strides []int64, base, start int64) *offsetIter {
	it := &offsetIter{shape: shape, strides: strides, idx: make([]int64, len(shape)), off: base}
	for d := len(shape) - 1; d >= 0 && start > 0; d-- {
		if shape[d] == 0 {
			continue
		}
		i := start % shape[d]
		start /= shape[d]
		it.idx[d] = i
		it.off += i * strides[d]
	}
	return it
}

// denseIter walks consecutive offsets from start (a contiguous tensor).
func denseIter(start int64) *offsetIter { return &offsetIter{off: start, dense: true} }

// fill writes the next len(dst) offsets.
func (it *offsetIter) fill(dst []int64) {
	if it.dense {
		for i := range dst {
			dst[i] = it.off + int64(i)
		}
		it.off += int64(len(dst))
		return
	}
	n := len(it.shape)
	if n == 0 {
		for i := range dst {
			dst[i] = it.off
		}
		return
	}
	last := n - 1
	size, stride := it.shape[last], it.strides[last]
	for i := range dst {
		dst[i] = it.off
		it.idx[last]++
		it.off += stride
		if it.idx[last] < size {
			continue
		}
		it.off -= size * stride
		it.idx[last] = 0
		for d := last - 1; d >= 0; d-- {
			it.idx[d]++
			it.off += it.strides[d]
			if it.idx[d] < it.shape[d] {
				break
			}
			it.off -= it.shape[d] * it.strides[d]
			it.idx[d] = 0
		}
	}
}

// offsets returns every element's storage offset in logical order.
func (t *Tensor) offsets() []int64 {
	out := make([]int64, t.Numel())
	newOffsetIter(t.Shape, t.Strides, t.Offset, 0).fill(out)
	return out
}

// gatherF loads the elements at offs into dst.
func gatherF(dt ir.DType, b []byte, offs []int64, dst []float64) {
	switch dt {
	case ir.F32:
		for i, o := range offs {
			dst[i] = float64(math.Float32frombits(le.Uint32(b[o*4:])))
		}
	case ir.F64:
		for i, o := range offs {
			dst[i] = math.Float64frombits(le.Uint64(b[o*8:]))
		}
	case ir.BF16:
		for i, o := range offs {
			dst[i] = float64(math.Float32frombits(uint32(le.Uint16(b[o*2:])) << 16))
		}
	default:
		for i, o := range offs {
			dst[i] = loadF(dt, b, o)
		}
	}
}

// scatterF stores src at offs, rounding into dt.
func scatterF(dt ir.DType, b []byte, offs []int64, src []float64) {
	switch dt {
	case ir.F32:
		for i, o := range offs {
			le.PutUint32(b[o*4:], math.Float32bits(float32(src[i])))
		}
	case ir.F64:
		for i, o := range offs {
			le.PutUint64(b[o*8:], math.Float64bits(src[i]))
		}
	case ir.BF16:
		for i, o := range offs {
			le.PutUint16(b[o*2:], BF16FromF32(float32(src[i])))
		}
	default:
		for i, o := range offs {
			storeF(dt, b, o, src[i])
		}
	}
}

// gatherI loads the elements at offs into dst as ints.
func gatherI(dt ir.DType, b []byte, offs []int64, dst []int64) {
	switch dt {
	case ir.I64:
		for i, o := range offs {
			dst[i] = int64(le.Uint64(b[o*8:]))
		}
	case ir.U8:
		for i, o := range offs {
			dst[i] = int64(b[o])
		}
	default:
		for i, o := range offs {
			dst[i] = loadI(dt, b, o)
		}
	}
}

// scatterI stores int lane values at offs, wrapping into dt.
func scatterI(dt ir.DType, b []byte, offs []int64, src []int64) {
	switch dt {
	case ir.I64:
		for i, o := range offs {
			le.PutUint64(b[o*8:], uint64(src[i]))
		}
	default:
		for i, o := range offs {
			storeI(dt, b, o, src[i])
		}
	}
}

// Floats returns t's elements in row-major order as float64.
func (t *Tensor) Floats() []float64 { return elems(t, gatherF) }

// Ints returns t's elements in row-major order as int64.
func (t *Tensor) Ints() []int64 { return elems(t, gatherI) }

func elems[T lane](t *Tensor, gather func(ir.DType, []byte, []int64, []T)) []T {
	offs := t.offsets()
	out := make([]T, len(offs))
	gather(t.DType, t.Storage.Data, offs, out)
	return out
}

// FromFloats builds a contiguous cpu tensor of dt holding vals (rounded
// into dt as PyTorch's torch.tensor(vals, dtype=dt) would from float32
// for reduced types).
func FromFloats(dt ir.DType, shape []int64, vals []float64) *Tensor {
	return fromElems(dt, shape, vals, scatterF)
}

// FromInts builds a contiguous cpu tensor of dt holding vals.
func FromInts(dt ir.DType, shape []int64, vals []int64) *Tensor {
	return fromElems(dt, shape, vals, scatterI)
}

func fromElems[T lane](dt ir.DType, shape []int64, vals []T, scatter func(ir.DType, []byte, []int64, []T)) *Tensor {
	t := MustEmpty(dt, shape...)
	offs := t.offsets()
	scatter(dt, t.Storage.Data, offs, vals[:len(offs)])
	return t
}

// isFloatLane reports whether dt computes in the float lane.
func isFloatLane(dt ir.DType) bool { return dt.IsFloat() }
