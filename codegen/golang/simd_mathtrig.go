package golang

// sin and cos on lanes, rt.SinF32's and rt.CosF32's steps (rt/fasttrig.go)
// written out as simd_mathlog.go's: the reduction, both polynomials (a
// lane's quadrant picks one, as the scalar branch does), the sign. A
// block with a lane past rt.TrigMax, ±Inf or NaN runs the scalar
// function on each of its lanes (the scalar code's float64 path there),
// so every lane still gives the scalar loop's bits.

func (l *simdLoop) sinLanes(dst string, args []string) { l.trigLanes(dst, args[0], "rt.SinF32", false) }
func (l *simdLoop) cosLanes(dst string, args []string) { l.trigLanes(dst, args[0], "rt.CosF32", true) }

// trigLanes writes sin x (cos x: the quadrant one further) into dst.
func (l *simdLoop) trigLanes(dst, x, scalar string, cos bool) {
	l.sign = true
	p := dst + "_"
	b := &l.body
	magic := l.k("ExpMagic")
	b.line("%sx := %s", p, x)
	b.line("%[1]sq := %[1]sx.MulAdd(%[2]s, %[3]s).Sub(%[3]s)", p, l.k("TrigTwoOvPi"), magic)
	b.line("%[1]st := %[1]sq.MulAdd(%[2]s, %[1]sx)", p, l.lanesConst("NegTrigA", "-rt.TrigA"))
	b.line("%[1]snp := %[1]sq.Mul(%[2]s)", p, l.lanesConst("NegTrigB", "-rt.TrigB"))
	b.line("%[1]spe := %[1]sq.MulAdd(%[2]s, %[1]snp)", p, l.k("TrigB"))
	b.line("%[1]srh := %[1]st.Add(%[1]snp)", p)
	b.line("%[1]sbv := %[1]srh.Sub(%[1]st)", p)
	b.line("%[1]se := %[1]st.Sub(%[1]srh.Sub(%[1]sbv)).Add(%[1]snp.Sub(%[1]sbv))", p)
	b.line("%[1]srl := %[1]sq.MulAdd(%[2]s, %[1]se.Sub(%[1]spe))", p, l.lanesConst("NegTrigC", "-rt.TrigC"))
	b.line("%[1]sz := %[1]srh.Mul(%[1]srh)", p)
	// sin: rh + (rh³·S(z) + rl·(1 - z/2)), rt.sinPoly
	b.line("%[1]ssc := %[1]sz.MulAdd(%[1]srl.Mul(%[2]s), %[1]srl)", p, l.lanesConst("NegHalf", "-0.5"))
	l.hornerLanes(p+"s", p+"z", "TrigS3", "TrigS2", "TrigS1", "TrigS0")
	b.line("%[1]ssin := %[1]srh.Add(%[1]srh.Mul(%[1]sz).MulAdd(%[1]ss, %[1]ssc))", p)
	// cos: w = 1 - rh²/2 rounded once and its rounding error, rt.cosPoly
	b.line("%[1]snh := %[1]srh.Mul(%[2]s)", p, l.lanesConst("NegHalf", "-0.5"))
	b.line("%[1]sw := %[1]snh.MulAdd(%[1]srh, %[2]s)", p, l.lanesConst("One", "1"))
	b.line("%[1]swerr := %[1]snh.MulAdd(%[1]srh, %[2]s.Sub(%[1]sw))", p, l.lanesConst("One", "1"))
	l.hornerLanes(p+"c", p+"z", "TrigC2", "TrigC1", "TrigC0")
	b.line("%[1]scos := %[1]sw.Add(%[1]sz.Mul(%[1]sz).MulAdd(%[1]sc, %[1]srh.MulAdd(%[2]s, %[1]swerr)))", p, negLanes(p+"rl"))
	// the quadrant n = q (+1 for cos): odd takes cos, n&2 flips the sign
	b.line("%[1]sn := %[1]sq.ConvertToInt32()", p)
	if cos {
		b.line("%[1]sn = %[1]sn.Add(%[2]s)", p, l.laneConst("Int32x8", "IOne", "1"))
	}
	b.line("%[1]sy := %[1]ssin.Merge(%[1]scos, %[1]sn.And(%[2]s).Equal(%[3]s))", p,
		l.laneConst("Int32x8", "IOne", "1"), l.laneConst("Int32x8", "IZero", "0"))
	b.line("%[1]s := %[2]sy.AsUint32x8().Xor(%[2]sn.And(%[3]s).ShiftAllLeft(30).AsUint32x8()).AsFloat32x8()", dst, p,
		l.laneConst("Int32x8", "ITwo", "2"))
	if !cos { // sin ±0 = ±0
		b.line("%[1]s = %[2]sx.Merge(%[1]s, %[2]sx.Equal(%[3]s))", dst, p, l.lanesConst("Zero", "0"))
	}
	b.line("if %[1]sin := %[1]sx.IsNaN().Or(%[2]s.Greater(%[3]s)).ToInt32x8().IsZero(); !%[1]sin {", p,
		absLanes(p+"x"), l.k("TrigMax"))
	b.line("var %sa [8]float32", p)
	b.line("%[1]sx.Store(&%[1]sa)", p)
	b.line("for %[1]sj := range %[1]sa {", p)
	b.line("%[1]sa[%[1]sj] = %[2]s(%[1]sa[%[1]sj])", p, scalar)
	b.line("}")
	b.line("%[1]s = archsimd.LoadFloat32x8(&%[2]sa)", dst, p)
	b.line("}")
}
