package golang

import (
	"fmt"

	"github.com/kiln-compiler/kiln/ir"
)

// Casts on lanes. A bfloat16 value lives in a float32 register, as the
// scalar loop keeps it (rt.RoundBF16: the float32 rounded to bfloat16's
// 8 significant bits, ties to even, NaN to 0x7fc0); so a cast to bf16 is
// that rounding on the lanes' bits and a cast back to f32 is nothing.
// autocast's arithmetic (x.bfloat16() * y.bfloat16() + 1 in float32
// buffers) runs on lanes so. A contiguous bf16 buffer is read as 16-bit
// lanes widened into the float32 bits (exact, rt.F32FromBF16) and written
// as the top halves of a rounded value's bits (rt.BF16FromF32 of a value
// already rounded): on 16 lanes by one narrowing store (VPMOVDW), on 8 by
// rt.StoreBF16x8 (AVX2 has no narrowing store: a shift and VPACKUSDW).

// laneBuffers are the element types lane loops read and write.
var laneBuffers = map[ir.DType]bool{ir.F32: true, ir.BF16: true}

// loadBF16Lanes is the float32 lanes of the bf16 bits at view[i:]. The
// shift is by a vector of counts (VPSLLVD), not an immediate: Go 1.26
// folds a where that picks an immediate shift's result into a masked
// VPSLLD and then cannot encode it ("invalid instruction: VPSLLD Z6, K1,
// Z7", building corpus 013's batch norm on 16 lanes).
func (l *simdLoop) loadBF16Lanes(view string) string {
	return fmt.Sprintf("archsimd.LoadUint16x8((*[8]uint16)(%s[i : i+8])).ExtendToUint32().ShiftLeft(%s).AsFloat32x8()",
		view, l.uintConst("U16", "16"))
}

// uintConst is the hoisted broadcast of a uint32 literal, k<name>.
func (l *simdLoop) uintConst(name, value string) string { return l.laneConst("Uint32x8", name, value) }

// storeBF16Lanes writes lane value x, a bf16 value (rounded, in float32
// bits), to the bf16 view at i.
func (l *simdLoop) storeBF16Lanes(x, view string) {
	l.lineAt16(fmt.Sprintf("rt.StoreBF16x8(%s, %s[i : i+8])", x, view),
		fmt.Sprintf("%s.AsUint32x16().ShiftAllRight(16).TruncateToUint16().Store((*[16]uint16)(%s[i : i+16]))", x, view))
}

// laneCasts are the casts a lane loop computes, by (from, to).
var laneCasts = map[[2]ir.DType]bool{
	{ir.F32, ir.F32}:  true,
	{ir.F32, ir.BF16}: true,
	{ir.BF16, ir.F32}: true,
}

// castLanes writes the cast of lane value x to dt into dst.
func (l *simdLoop) castLanes(dst, x string, dt ir.DType) {
	if dt != ir.BF16 {
		l.body.line("%s := %s", dst, x)
		return
	}
	u := l.uintConst
	p := dst + "_"
	b := &l.body
	b.line("%su := %s.AsUint32x8()", p, x)
	b.line("%[1]sr := %[1]su.Add(%[1]su.ShiftAllRight(16).And(%[2]s)).Add(%[3]s).And(%[4]s)", p,
		u("U1", "1"), u("BF16Half", "0x7fff"), u("BF16Keep", "0xffff0000"))
	b.line("%s := %s.AsFloat32x8().Merge(%sr.AsFloat32x8(), %s.IsNaN())", dst, u("BF16NaN", "0x7fc00000"), p, x)
}
