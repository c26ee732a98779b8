package golang

import "fmt"

// exp, tanh, max and min on lanes, written out in the loop: rt.ExpF32x8
// and rt.TanhF32x8 are too big for Go's inliner, and a lane function is
// often too big for it to inline even rt.MaxF32x8 (Go inlines only the
// cheapest calls into a function past 5000 nodes); a call per block costs
// more than the operations (vectors go through the stack). The
// statements are rt's, step for step (rt/fastmath_amd64.go,
// rt/simd_amd64.go), so a lane gives the scalar loop's bits; the
// constants are broadcast once, before the loop.

// lanesConst is the hoisted float32 broadcast of an rt constant (or
// literal), k<name>.
func (l *simdLoop) lanesConst(name, value string) string {
	return l.laneConst("Float32x8", name, value)
}

// k is the hoisted float32 broadcast of rt.<name>.
func (l *simdLoop) k(name string) string { return l.lanesConst(name, "rt."+name) }

// hornerLanes writes v = c[0]·y^(n-1) + ... + c[n-1] for rt's constants
// named c, one MulAdd a step: rt.horner32 on the lanes.
func (l *simdLoop) hornerLanes(v, y string, c ...string) {
	l.body.line("%s := %s.MulAdd(%s, %s)", v, l.k(c[0]), y, l.k(c[1]))
	for _, name := range c[2:] {
		l.body.line("%s = %s.MulAdd(%s, %s)", v, v, y, l.k(name))
	}
}

// laneConst is the hoisted broadcast k<name> of value on lanes of typ
// (Float32x8, Int32x8, Uint32x8), made once per function.
func (l *simdLoop) laneConst(typ, name, value string) string {
	v := "k" + name
	if !l.used[v] {
		l.hoist = append(l.hoist, hoisted{v, fmt.Sprintf("%s := archsimd.Broadcast%s(%s)", v, typ, value)})
		l.used[v] = true
	}
	return v
}

// expLanes writes e^x into dst (a new variable) on the lanes: as
// rt.ExpF32x8, the shortcut where every lane's k is in [-124, 126] (one
// factor 2^k, no clamps: the same bits); the shortcut again, with +0 in
// the lanes below rt.ExpClampLo (-Inf too), where those are the only
// others: ExpF32 clamps them to -104, whose e^x rounds to +0 (a masked
// softmax's -Inf lanes, in nearly every block); else the whole function
// (rt.ExpClampedF32x8, called: written out, its constants held registers
// in the loop, and 1024×1024's silu(x) * y took 212 µs, not 203, and
// exact gelu 577, not 515; one thread, 16 lanes).
func (l *simdLoop) expLanes(dst string, args []string) {
	x := args[0]
	p := dst + "_"
	b := &l.body
	l.laneConst("Int32x8", "Bias", "127")
	l.laneConst("Int32x8", "ExpFastOff", "rt.ExpFastOff")
	l.laneConst("Int32x8", "ExpFastMax", "rt.ExpFastMax")
	log2e, magic := l.k("ExpLog2e"), l.k("ExpMagic")
	b.line("%sx0 := %s", p, x)
	b.line("%[1]sn0 := %[1]sx0.MulAdd(%[2]s, %[3]s).Sub(%[3]s)", p, log2e, magic)
	b.line("%[1]sk0 := %[1]sn0.ConvertToInt32()", p)
	b.line("%s := %sx0", dst, p)
	b.line("%[1]sout := %[1]sk0.Add(kExpFastOff).Greater(kExpFastMax)", p)
	fast := func() {
		l.expPoly(p, p+"x0", p+"n0")
		// ·2^k, exact here (a normal result): on 16 lanes one VSCALEFPS
		// by n (the integral float k came from) instead of building 2^k.
		l.lineAt16(fmt.Sprintf("%s = %sy.Mul(%sk0.Add(kBias).ShiftAllLeft(23).AsFloat32x8())", dst, p, p),
			fmt.Sprintf("%s = %sy.Scale(%sn0)", dst, p, p))
	}
	b.line("if %sout.ToInt32x8().IsZero() {", p)
	fast()
	b.line("} else if %[1]slo := %[1]sx0.Less(%[2]s); %[1]sout.ToBits()&^%[1]slo.ToBits() == 0 {", p, l.k("ExpClampLo"))
	fast()
	b.line("%[1]s = archsimd.Float32x8{}.Merge(%[1]s, %[2]slo)", dst, p)
	b.line("} else {")
	b.line("%s = rt.ExpClampedF32x8(%sx0) // rare: a call keeps its constants out of the loop's registers", dst, p)
	b.line("}")
}

// expPoly writes p+"y" = e^r for r = x - n·ln 2 (rt.ExpF32's polynomial).
func (l *simdLoop) expPoly(p, x, n string) {
	b := &l.body
	b.line("%sr := %s.MulAdd(%s, %s)", p, n, l.lanesConst("NegExpC1", "-rt.ExpC1"), x)
	b.line("%sr = %s.MulAdd(%s, %sr)", p, n, l.lanesConst("NegExpC2", "-rt.ExpC2"), p)
	b.line("%sz := %sr.Mul(%sr)", p, p, p)
	l.hornerLanes(p+"y", p+"r", "ExpP0", "ExpP1", "ExpP2", "ExpP3", "ExpP4", "ExpP5")
	b.line("%sy = %sy.MulAdd(%sz, %sr).Add(%s)", p, p, p, p, l.lanesConst("One", "1"))
}

// tanhLanes writes tanh x into dst on the lanes: both of rt.TanhF32's
// branches, merged by |x| > rt.TanhSmall.
func (l *simdLoop) tanhLanes(dst string, args []string) {
	x := args[0]
	l.sign = true
	p := dst + "_"
	b := &l.body
	one := l.lanesConst("One", "1")
	b.line("%sa := %s", p, absLanes(x))
	l.expLanes(p+"e", []string{p + "a.Add(" + p + "a)"})
	b.line("%[1]sbig := %[2]s.Sub(%[3]s.Div(%[1]se.Add(%[2]s))).AsUint32x8().Or(%[4]s.AsUint32x8().And(sign)).AsFloat32x8()",
		p, one, l.lanesConst("Two", "2"), x)
	b.line("%sz := %s.Mul(%s)", p, x, x)
	l.hornerLanes(p+"p", p+"z", "TanhP0", "TanhP1", "TanhP2", "TanhP3", "TanhP4")
	b.line("%[1]s := %[2]sbig.Merge(%[2]sp.Mul(%[2]sz).MulAdd(%[3]s, %[3]s), %[2]sa.Greater(%[4]s))", dst, p, x, l.k("TanhSmall"))
}

// minLanes writes Go's min of two lanes into dst, as rt.MinF32x8: VMINPS
// where the operands are ordered and unequal, their bitwise or elsewhere.
func (l *simdLoop) minLanes(dst string, args []string) {
	p := dst + "_"
	b := &l.body
	b.line("%sx := %s", p, args[0])
	b.line("%sy := %s", p, args[1])
	b.line("%[1]s := %[2]sx.Min(%[2]sy).Merge(%[2]sx.AsUint32x8().Or(%[2]sy.AsUint32x8()).AsFloat32x8(), %[2]sx.Less(%[2]sy).Or(%[2]sx.Greater(%[2]sy)))", dst, p)
}

// maxLanes writes Go's max of two lanes into dst, as rt.MaxF32x8: the
// negated min of the negated operands.
func (l *simdLoop) maxLanes(dst string, args []string) {
	l.sign = true
	p := dst + "_"
	l.minLanes(p+"m", []string{negLanes(args[0]), negLanes(args[1])})
	l.body.line("%s := %s", dst, negLanes(p+"m"))
}

// reciprocalLanes, rsqrtLanes and sigmoidLanes write 1/x, 1/√x and
// 1/(1+e^-x) into dst on the lanes, rt.Reciprocal's (through float64, the
// same as one float32 division), rt.RsqrtF32's and rt.SigmoidF32's steps.
func (l *simdLoop) reciprocalLanes(dst string, args []string) {
	l.body.line("%s := %s.Div(%s)", dst, l.lanesConst("One", "1"), args[0])
}

func (l *simdLoop) rsqrtLanes(dst string, args []string) {
	l.body.line("%s := %s.Div(%s.Sqrt())", dst, l.lanesConst("One", "1"), args[0])
}

func (l *simdLoop) sigmoidLanes(dst string, args []string) {
	l.sign = true
	p := dst + "_"
	l.expLanes(p+"e", []string{negLanes(args[0])})
	one := l.lanesConst("One", "1")
	l.body.line("%s := %s.Div(%s.Add(%se))", dst, one, one, p)
}

// erfLanes writes erf x into dst on the lanes: both of rt.ErfF32's
// branches, step for step, merged by |x| <= rt.ErfSmall.
func (l *simdLoop) erfLanes(dst string, args []string) {
	l.sign = true
	p := dst + "_"
	b := &l.body
	b.line("%sx := %s", p, args[0])
	b.line("%sa := %s", p, absLanes(p+"x"))
	b.line("%[1]sz := %[1]sx.Mul(%[1]sx)", p)
	l.hornerLanes(p+"t", p+"z", "ErfT0", "ErfT1", "ErfT2", "ErfT3", "ErfT4", "ErfT5", "ErfT6m1")
	b.line("%[1]ssmall := %[1]sx.MulAdd(%[1]st, %[1]sx)", p)
	l.expLanes(p+"e", []string{negLanes(p + "z")})
	one := l.lanesConst("One", "1")
	b.line("%[1]sq := %[2]s.Div(%[1]sa)", p, one)
	b.line("%[1]sy := %[1]sq.Mul(%[1]sq)", p)
	b.line("%[1]su := %[2]s.MulAdd(%[1]sy, %[3]s)", p, l.k("ErfUa"), l.k("ErfUb"))
	l.hornerLanes(p+"p", p+"u", "ErfQ0", "ErfQ1", "ErfQ2", "ErfQ3", "ErfQ4", "ErfQ5", "ErfQ6", "ErfQ7", "ErfQ8", "ErfQ9", "ErfQ10", "ErfQ11", "ErfQ12")
	b.line("%[1]sbig := %[2]s.MulAdd(%[1]sp, %[3]s).AsUint32x8().Or(%[1]sx.AsUint32x8().And(sign)).AsFloat32x8()", p, negLanes(p+"e.Mul("+p+"q)"), one)
	b.line("%[1]s := %[2]ssmall.Merge(%[2]sbig, %[2]sa.LessEqual(%[3]s))", dst, p, l.k("ErfSmall"))
	b.line("%[1]s = %[2]sx.Merge(%[1]s, %[2]sx.IsNaN())", dst, p)
}
