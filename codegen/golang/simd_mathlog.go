package golang

// log, log1p and expm1 on lanes, written out in the loop as simd_math.go's
// exp: rt.LogF32's, rt.Log1pF32's and rt.Expm1F32's steps (rt/fastlog.go)
// in the same order, each FMA32 a MulAdd, so a lane gives the scalar
// loop's bits. The scalar functions' early returns (zeros, negatives,
// infinities, NaN) are merges here: every lane runs the main steps, and
// the lanes that took a special case in the scalar code are replaced.

// logReduceLanes writes p+"k" and p+"f" for positive normal lanes x, as
// rt.logReduce: x = 2^k·(1+f).
func (l *simdLoop) logReduceLanes(p, x string) {
	half := l.laneConst("Uint32x8", "LogSqrtHalf", "rt.LogSqrtHalf")
	mant := l.laneConst("Uint32x8", "LogMant", "0x7fffff")
	b := &l.body
	b.line("%su := %s.AsUint32x8().Sub(%s)", p, x, half)
	b.line("%[1]sk := %[1]su.AsInt32x8().ShiftAllRight(23).ConvertToFloat32()", p)
	b.line("%[1]sf := %[1]su.And(%[2]s).Add(%[3]s).AsFloat32x8().Sub(%[4]s)", p, mant, half, l.lanesConst("One", "1"))
}

// logTailLanes writes dst = k·ln 2 + log(1+f) + c, rt.logTail's steps.
func (l *simdLoop) logTailLanes(dst, p, k, f, c string) {
	l.sign = true
	b := &l.body
	b.line("%ss := %s.Div(%s.Add(%s))", p, f, l.lanesConst("Two", "2"), f)
	b.line("%[1]sz := %[1]ss.Mul(%[1]ss)", p)
	l.hornerLanes(p+"r", p+"z", "LogLg4", "LogLg3", "LogLg2", "LogLg1")
	b.line("%[1]sr = %[1]sz.Mul(%[1]sr)", p)
	b.line("%sh := %s.Mul(%s)", p, f, l.lanesConst("Half", "0.5"))
	b.line("%[1]shfsq := %[1]sh.Mul(%[2]s)", p, f)
	b.line("%[1]shfe := %[1]sh.MulAdd(%[2]s, %[3]s)", p, f, negLanes(p+"hfsq"))
	b.line("%[1]sa := %[2]s.MulAdd(%[3]s, %[4]s).Sub(%[1]shfe)", p, k, l.k("ExpC2"), c)
	b.line("%[1]slo := %[1]ss.MulAdd(%[1]shfsq.Add(%[1]sr), %[1]sa).Sub(%[1]shfsq)", p)
	b.line("%shi := %s.Mul(%s)", p, k, l.k("ExpC1"))
	b.line("%[1]st := %[1]shi.Add(%[2]s)", p, f)
	b.line("%[1]s := %[2]st.Add(%[3]s.Sub(%[2]st.Sub(%[2]shi)).Add(%[2]slo))", dst, p, f)
}

// logSpecialLanes writes p+"sp" = rt.logSpecial(v) for the lanes where v
// is not positive and finite (NaN where v < 0, -Inf where v = ±0, else
// v), and p+"ok", the lanes where v is positive and finite.
func (l *simdLoop) logSpecialLanes(p, v string) {
	zero, inf := l.lanesConst("Zero", "0"), l.lanesConst("Inf", "rt.Inf32(1)")
	b := &l.body
	b.line("%[1]ssp := %[2]s.Merge(%[3]s, %[3]s.Less(%[4]s))", p, l.lanesConst("LogNaN", "rt.LogNaN()"), v, zero)
	b.line("%[1]ssp = %[2]s.Merge(%[1]ssp, %[3]s.Equal(%[4]s))", p, l.lanesConst("NegInf", "rt.Inf32(-1)"), v, zero)
	b.line("%[1]sok := %[2]s.Greater(%[3]s).And(%[2]s.Less(%[4]s))", p, v, zero, inf)
}

// logLanes writes log x into dst, as rt.LogF32.
func (l *simdLoop) logLanes(dst string, args []string) {
	p := dst + "_"
	b := &l.body
	zero := l.lanesConst("Zero", "0")
	b.line("%sx := %s", p, args[0])
	b.line("%[1]stiny := %[1]sx.Less(%[2]s)", p, l.k("LogTiny"))
	b.line("%[1]sxs := %[1]sx.Mul(%[2]s).Merge(%[1]sx, %[1]stiny)", p, l.k("LogScale"))
	l.logReduceLanes(p, p+"xs")
	b.line("%[1]sk = %[1]sk.Add(%[2]s.Merge(%[3]s, %[1]stiny))", p, l.lanesConst("LogNeg23", "-23"), zero)
	l.logTailLanes(p+"res", p, p+"k", p+"f", zero)
	l.logSpecialLanes(p, p+"x")
	b.line("%[1]s := %[2]sres.Merge(%[2]ssp, %[2]sok)", dst, p)
}

// log1pLanes writes log(1+x) into dst, as rt.Log1pF32: u = 1+x and the
// sum's error (TwoSum), log u with the error over u added to its small
// terms; NaN below -1, -Inf at -1, x itself where x is ±0, +Inf or NaN.
func (l *simdLoop) log1pLanes(dst string, args []string) {
	p := dst + "_"
	b := &l.body
	one, zero := l.lanesConst("One", "1"), l.lanesConst("Zero", "0")
	b.line("%sx := %s", p, args[0])
	b.line("%[1]su0 := %[2]s.Add(%[1]sx)", p, one)
	b.line("%[1]sbv := %[1]su0.Sub(%[2]s)", p, one)
	b.line("%[1]se := %[2]s.Sub(%[1]su0.Sub(%[1]sbv)).Add(%[1]sx.Sub(%[1]sbv))", p, one)
	l.logReduceLanes(p, p+"u0")
	l.logTailLanes(p+"res", p, p+"k", p+"f", p+"e.Div("+p+"u0)")
	negOne := l.lanesConst("NegOne", "-1")
	b.line("%[1]ssp := %[2]s.Merge(%[1]sx, %[1]sx.Less(%[3]s))", p, l.lanesConst("LogNaN", "rt.LogNaN()"), negOne)
	b.line("%[1]ssp = %[2]s.Merge(%[1]ssp, %[1]sx.Equal(%[3]s))", p, l.lanesConst("NegInf", "rt.Inf32(-1)"), negOne)
	b.line("%[1]sok := %[1]sx.Greater(%[2]s).And(%[1]sx.Less(%[3]s)).And(%[1]sx.NotEqual(%[4]s))", p, negOne,
		l.lanesConst("Inf", "rt.Inf32(1)"), zero)
	b.line("%[1]s := %[2]sres.Merge(%[2]ssp, %[2]sok)", dst, p)
}

// expm1Lanes writes e^x - 1 into dst, as rt.Expm1F32: x itself where x
// is ±0 or NaN.
func (l *simdLoop) expm1Lanes(dst string, args []string) {
	l.sign = true
	p := dst + "_"
	b := &l.body
	one, zero := l.lanesConst("One", "1"), l.lanesConst("Zero", "0")
	bias := l.laneConst("Int32x8", "Bias", "127")
	lo, hi, magic := l.k("Expm1Lo"), l.k("ExpClampHi"), l.k("ExpMagic")
	b.line("%sx0 := %s", p, args[0])
	b.line("%[1]sx := %[2]s.Merge(%[1]sx0, %[1]sx0.Less(%[2]s))", p, lo)
	b.line("%[1]sx = %[2]s.Merge(%[1]sx, %[1]sx.Greater(%[2]s))", p, hi)
	b.line("%[1]sn := %[1]sx.MulAdd(%[2]s, %[3]s).Sub(%[3]s)", p, l.k("ExpLog2e"), magic)
	b.line("%[1]sr := %[1]sn.MulAdd(%[2]s, %[1]sx)", p, l.lanesConst("NegExpC1", "-rt.ExpC1"))
	b.line("%[1]sr = %[1]sn.MulAdd(%[2]s, %[1]sr)", p, l.lanesConst("NegExpC2", "-rt.ExpC2"))
	nmax := l.k("Expm1NMax")
	b.line("%[1]sp := %[3]s.Sub(%[2]s.Merge(%[1]sn, %[1]sn.Greater(%[2]s)).ConvertToInt32()).ShiftAllLeft(23).AsFloat32x8()", p, nmax, bias)
	b.line("%[1]sbig := %[1]sn.GreaterEqual(%[2]s)", p, l.k("Expm1Split"))
	b.line("%[1]schi := %[2]s.Merge(%[2]s.Sub(%[1]sp), %[1]sbig)", p, one)
	b.line("%[1]sclo := %[2]s.Merge(%[3]s, %[1]sbig)", p, negLanes(p+"p"), zero)
	b.line("%[1]ss := %[1]schi.Add(%[1]sr)", p)
	b.line("%[1]se := %[1]sr.Sub(%[1]ss.Sub(%[1]schi))", p)
	b.line("%[1]sr3 := %[1]sr.Mul(%[1]sr).Mul(%[1]sr)", p)
	l.hornerLanes(p+"q", p+"r", "Expm1Q4", "Expm1Q3", "Expm1Q2", "Expm1Q1", "Expm1Q0")
	b.line("%[1]sw := %[1]sr3.MulAdd(%[1]sq, %[1]se.Add(%[1]sclo))", p)
	b.line("%[1]sy := %[1]ss.Add(%[1]sr.Mul(%[2]s).MulAdd(%[1]sr, %[1]sw))", p, l.lanesConst("Half", "0.5"))
	b.line("%[1]sk := %[1]sn.ConvertToInt32()", p)
	b.line("%[1]sk1 := %[1]sk.ShiftAllRight(1)", p)
	b.line("%[1]sres := %[1]sy.Mul(%[1]sk1.Add(%[2]s).ShiftAllLeft(23).AsFloat32x8()).Mul(%[1]sk.Sub(%[1]sk1).Add(%[2]s).ShiftAllLeft(23).AsFloat32x8())", p, bias)
	b.line("%[1]s := %[2]sx0.Merge(%[2]sres, %[2]sx0.IsNaN().Or(%[2]sx0.Equal(%[3]s)))", dst, p, zero)
}
