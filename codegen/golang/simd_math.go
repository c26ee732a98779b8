package golang

import "fmt"

// exp and tanh on lanes, written out in the loop: rt.ExpF32x8 and
// rt.TanhF32x8 are too big for Go's inliner, and a call per 8 elements
// costs more than the polynomial (vectors go through the stack). The
// statements are rt's, step for step (rt/fastmath_amd64.go), so a lane
// gives rt.ExpF32's and rt.TanhF32's bits, which the scalar loop calls;
// the constants are broadcast once, before the loop.

// lanesConst is the hoisted broadcast of an rt constant (or literal).
func (l *simdLoop) lanesConst(name, value string) string {
	v := "k" + name
	if !l.used[v] {
		l.hoist = append(l.hoist, hoisted{v, fmt.Sprintf("%s := archsimd.BroadcastFloat32x8(%s)", v, value)})
		l.used[v] = true
	}
	return v
}

// expLanes writes e^x into dst (a new variable) on the lanes.
func (l *simdLoop) expLanes(dst, x string) {
	k := func(name string) string { return l.lanesConst(name, "rt."+name) }
	p := dst + "_"
	b := &l.body
	if !l.used["kBias"] {
		l.hoist = append(l.hoist, hoisted{"kBias", "kBias := archsimd.BroadcastInt32x8(127)"})
		l.used["kBias"] = true
	}
	lo, hi := k("ExpClampLo"), k("ExpClampHi")
	b.line("%sx := %s", p, x)
	b.line("%[1]sx = %[2]s.Merge(%[1]sx, %[1]sx.Less(%[2]s))", p, lo)
	b.line("%[1]sx = %[2]s.Merge(%[1]sx, %[1]sx.Greater(%[2]s))", p, hi)
	b.line("%[1]sn := %[1]sx.MulAdd(%[2]s, %[3]s).Sub(%[3]s)", p, k("ExpLog2e"), k("ExpMagic"))
	b.line("%sr := %sn.MulAdd(%s, %sx)", p, p, l.lanesConst("NegExpC1", "-rt.ExpC1"), p)
	b.line("%sr = %sn.MulAdd(%s, %sr)", p, p, l.lanesConst("NegExpC2", "-rt.ExpC2"), p)
	b.line("%sz := %sr.Mul(%sr)", p, p, p)
	b.line("%sy := %s.MulAdd(%sr, %s)", p, k("ExpP0"), p, k("ExpP1"))
	for _, c := range []string{"ExpP2", "ExpP3", "ExpP4", "ExpP5"} {
		b.line("%sy = %sy.MulAdd(%sr, %s)", p, p, p, k(c))
	}
	b.line("%sy = %sy.MulAdd(%sz, %sr).Add(%s)", p, p, p, p, l.lanesConst("One", "1"))
	b.line("%sk := %sn.ConvertToInt32()", p, p)
	b.line("%sk1 := %sk.ShiftAllRight(1)", p, p)
	b.line("%s := %sy.Mul(%sk1.Add(kBias).ShiftAllLeft(23).AsFloat32x8()).Mul(%sk.Sub(%sk1).Add(kBias).ShiftAllLeft(23).AsFloat32x8())",
		dst, p, p, p, p)
}

// tanhLanes writes tanh x into dst on the lanes: both of rt.TanhF32's
// branches, merged by |x| > rt.TanhSmall.
func (l *simdLoop) tanhLanes(dst, x string) {
	l.sign = true
	k := func(name string) string { return l.lanesConst(name, "rt."+name) }
	p := dst + "_"
	b := &l.body
	one := l.lanesConst("One", "1")
	b.line("%sa := rt.AbsF32x8(%s, sign)", p, x)
	l.expLanes(p+"e", p+"a.Add("+p+"a)")
	b.line("%[1]sbig := %[2]s.Sub(%[3]s.Div(%[1]se.Add(%[2]s))).AsUint32x8().Or(%[4]s.AsUint32x8().And(sign)).AsFloat32x8()",
		p, one, l.lanesConst("Two", "2"), x)
	b.line("%sz := %s.Mul(%s)", p, x, x)
	b.line("%sp := %s.MulAdd(%sz, %s)", p, k("TanhP0"), p, k("TanhP1"))
	for _, c := range []string{"TanhP2", "TanhP3", "TanhP4"} {
		b.line("%sp = %sp.MulAdd(%sz, %s)", p, p, p, k(c))
	}
	b.line("%[1]s := %[2]sbig.Merge(%[2]sp.Mul(%[2]sz).MulAdd(%[3]s, %[3]s), %[2]sa.Greater(%[4]s))", dst, p, x, k("TanhSmall"))
}
