//go:build goexperiment.simd && amd64

package rt

import "simd/archsimd"

// The lane twins of ExpF32 and TanhF32 (fastmath.go): the same float32
// operations in the same order on each lane, so they give the scalar
// functions' bits (NaN payloads included: the only NaN operand of each
// step is the one the scalar step sees).

// ExpF32x8 is ExpF32 on each lane (MulAdd is VFMADD213PS: the lanes need
// FMA, which SIMD() requires). Where every lane's k is in the range where
// the clamps do nothing and one factor 2^k is exact (ExpFastOff), it
// takes the shortcut: the same bits with 8 operations fewer.
func ExpF32x8(x archsimd.Float32x8, sign archsimd.Uint32x8) archsimd.Float32x8 {
	magic := archsimd.BroadcastFloat32x8(ExpMagic)
	n := x.MulAdd(archsimd.BroadcastFloat32x8(ExpLog2e), magic).Sub(magic)
	k := n.ConvertToInt32()
	bias := archsimd.BroadcastInt32x8(127)
	if k.Add(archsimd.BroadcastInt32x8(ExpFastOff)).Greater(archsimd.BroadcastInt32x8(ExpFastMax)).ToInt32x8().IsZero() {
		return expPolyF32x8(x, n).Mul(k.Add(bias).ShiftAllLeft(23).AsFloat32x8())
	}
	return ExpClampedF32x8(x)
}

// ExpClampedF32x8 is ExpF32 on each lane the whole way: the clamps, and
// 2^k as two factors. Generated loops call it where some lane's k is
// outside the shortcut's range, a rare path whose constants would
// otherwise hold registers in the loop (codegen/golang expLanes).
func ExpClampedF32x8(x archsimd.Float32x8) archsimd.Float32x8 {
	lo, hi := archsimd.BroadcastFloat32x8(ExpClampLo), archsimd.BroadcastFloat32x8(ExpClampHi)
	x = lo.Merge(x, x.Less(lo))
	x = hi.Merge(x, x.Greater(hi))
	magic := archsimd.BroadcastFloat32x8(ExpMagic)
	n := x.MulAdd(archsimd.BroadcastFloat32x8(ExpLog2e), magic).Sub(magic)
	y := expPolyF32x8(x, n)
	bias := archsimd.BroadcastInt32x8(127)
	k := n.ConvertToInt32()
	k1 := k.ShiftAllRight(1)
	s1 := k1.Add(bias).ShiftAllLeft(23).AsFloat32x8()
	s2 := k.Sub(k1).Add(bias).ShiftAllLeft(23).AsFloat32x8()
	return y.Mul(s1).Mul(s2)
}

// ExpClampedF32x16 is ExpClampedF32x8 on 16 lanes.
func ExpClampedF32x16(x archsimd.Float32x16) archsimd.Float32x16 {
	lo, hi := archsimd.BroadcastFloat32x16(ExpClampLo), archsimd.BroadcastFloat32x16(ExpClampHi)
	x = lo.Merge(x, x.Less(lo))
	x = hi.Merge(x, x.Greater(hi))
	magic := archsimd.BroadcastFloat32x16(ExpMagic)
	n := x.MulAdd(archsimd.BroadcastFloat32x16(ExpLog2e), magic).Sub(magic)
	y := expPolyF32x16(x, n)
	bias := archsimd.BroadcastInt32x16(127)
	k := n.ConvertToInt32()
	k1 := k.ShiftAllRight(1)
	s1 := k1.Add(bias).ShiftAllLeft(23).AsFloat32x16()
	s2 := k.Sub(k1).Add(bias).ShiftAllLeft(23).AsFloat32x16()
	return y.Mul(s1).Mul(s2)
}

// expPolyF32x8 is e^r for r = x - n·ln 2, ExpF32's polynomial.
func expPolyF32x8(x, n archsimd.Float32x8) archsimd.Float32x8 {
	r := n.MulAdd(archsimd.BroadcastFloat32x8(-ExpC1), x)
	r = n.MulAdd(archsimd.BroadcastFloat32x8(-ExpC2), r)
	z := r.Mul(r)
	y := archsimd.BroadcastFloat32x8(ExpP0).MulAdd(r, archsimd.BroadcastFloat32x8(ExpP1))
	y = y.MulAdd(r, archsimd.BroadcastFloat32x8(ExpP2))
	y = y.MulAdd(r, archsimd.BroadcastFloat32x8(ExpP3))
	y = y.MulAdd(r, archsimd.BroadcastFloat32x8(ExpP4))
	y = y.MulAdd(r, archsimd.BroadcastFloat32x8(ExpP5))
	return y.MulAdd(z, r).Add(archsimd.BroadcastFloat32x8(1))
}

// expPolyF32x16 is expPolyF32x8 on 16 lanes.
func expPolyF32x16(x, n archsimd.Float32x16) archsimd.Float32x16 {
	r := n.MulAdd(archsimd.BroadcastFloat32x16(-ExpC1), x)
	r = n.MulAdd(archsimd.BroadcastFloat32x16(-ExpC2), r)
	z := r.Mul(r)
	y := archsimd.BroadcastFloat32x16(ExpP0).MulAdd(r, archsimd.BroadcastFloat32x16(ExpP1))
	y = y.MulAdd(r, archsimd.BroadcastFloat32x16(ExpP2))
	y = y.MulAdd(r, archsimd.BroadcastFloat32x16(ExpP3))
	y = y.MulAdd(r, archsimd.BroadcastFloat32x16(ExpP4))
	y = y.MulAdd(r, archsimd.BroadcastFloat32x16(ExpP5))
	return y.MulAdd(z, r).Add(archsimd.BroadcastFloat32x16(1))
}

// TanhF32x8 is TanhF32 on each lane: both branches, merged.
func TanhF32x8(x archsimd.Float32x8, sign archsimd.Uint32x8) archsimd.Float32x8 {
	a := AbsF32x8(x, sign)
	one := archsimd.BroadcastFloat32x8(1)
	e := ExpF32x8(a.Add(a), sign)
	big := one.Sub(archsimd.BroadcastFloat32x8(2).Div(e.Add(one)))
	big = big.AsUint32x8().Or(x.AsUint32x8().And(sign)).AsFloat32x8()
	z := x.Mul(x)
	p := archsimd.BroadcastFloat32x8(TanhP0).MulAdd(z, archsimd.BroadcastFloat32x8(TanhP1))
	p = p.MulAdd(z, archsimd.BroadcastFloat32x8(TanhP2))
	p = p.MulAdd(z, archsimd.BroadcastFloat32x8(TanhP3))
	p = p.MulAdd(z, archsimd.BroadcastFloat32x8(TanhP4))
	small := p.Mul(z).MulAdd(x, x)
	return big.Merge(small, a.Greater(archsimd.BroadcastFloat32x8(TanhSmall)))
}
