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
// buffers) runs on lanes so; bf16 buffers still run on the scalar loop.

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
	u := func(name, value string) string {
		v := "k" + name
		if !l.used[v] {
			l.hoist = append(l.hoist, hoisted{v, fmt.Sprintf("%s := archsimd.BroadcastUint32x8(%s)", v, value)})
			l.used[v] = true
		}
		return v
	}
	p := dst + "_"
	b := &l.body
	b.line("%su := %s.AsUint32x8()", p, x)
	b.line("%[1]sr := %[1]su.Add(%[1]su.ShiftAllRight(16).And(%[2]s)).Add(%[3]s).And(%[4]s)", p,
		u("U1", "1"), u("BF16Half", "0x7fff"), u("BF16Keep", "0xffff0000"))
	b.line("%s := %s.AsFloat32x8().Merge(%sr.AsFloat32x8(), %s.IsNaN())", dst, u("BF16NaN", "0x7fc00000"), p, x)
}
