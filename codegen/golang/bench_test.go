package golang

import (
	"bytes"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/kiln-compiler/kiln/codegen/golang/rt"
	"github.com/kiln-compiler/kiln/interp"
	"github.com/kiln-compiler/kiln/lowering"
)

const benchN = 16 << 20

// chainOps is the 8-op chain: each step's op and constant operand (NaN:
// the step takes x itself as its second operand; no constant for unary).
var chainOps = []struct {
	fn    string
	fx    string
	konst string // FX spelling of the scalar operand; "x" or "" as above
	value float64
}{
	{"mul", "torch.ops.aten.mul.Tensor", "1.5", 1.5},
	{"add", "torch.ops.aten.add.Tensor", "x", 0},
	{"sub", "torch.ops.aten.sub.Tensor", "0.25", 0.25},
	{"maximum", "torch.ops.aten.maximum.default", "x", 0},
	{"neg", "torch.ops.aten.neg.default", "", 0},
	{"abs", "torch.ops.aten.abs.default", "", 0},
	{"mul", "torch.ops.aten.mul.Tensor", "0.5", 0.5},
	{"add", "torch.ops.aten.add.Tensor", "1.0", 1},
}

// chainProgram is the chain fused into one pointwise kernel.
func chainProgram() *lowering.Program {
	b := newProg("chain")
	x := b.input("x", f32, c(benchN))
	o := b.output("out", f32, c(benchN))
	k := b.kernel(c(benchN))
	k.k.Vec = 4 // what the align pass proves for 64-byte aligned contiguous f32
	xl := k.load(x, f32, v("x0"))
	cur := xl
	for _, op := range chainOps {
		switch op.konst {
		case "":
			cur = k.call(op.fn, f32, cur)
		case "x":
			cur = k.call(op.fn, f32, cur, xl)
		default:
			cur = k.call(op.fn, f32, cur, k.fconst(f32, op.value))
		}
	}
	k.store(o, v("x0"), cur)
	return b.p
}

// chainFX is the same chain as an FX graph for interp.
func chainFX() string {
	ann := `"f32[` + strconv.Itoa(benchN) + `]"`
	var lines []string
	prev := "x"
	for i, op := range chainOps {
		name := "t" + strconv.Itoa(i)
		args := prev
		if op.konst != "" {
			args += ", " + op.konst
		}
		lines = append(lines, name+": "+ann+" = "+op.fx+"("+args+")")
		prev = name
	}
	return "def forward(self, x: " + ann + "):\n    " + strings.Join(lines, "\n    ") + "\n    return (" + prev + ",)\n"
}

// copyLoop is the hand-written baseline: read 16M f32, write 16M f32,
// split across cores as the generated code is.
func copyLoop(dst, src []float32) {
	_ = rt.ParallelFor(int64(len(dst)), 1, func(lo, hi int64) error {
		d, s := dst[lo:hi], src[lo:hi]
		s = s[:len(d)]
		for i := range d {
			d[i] = s[i]
		}
		return nil
	})
}

// BenchmarkGeneratedChain16M times, in one run, the generated Go (built
// binary, -bench), interp on the FX graph, and a copy loop over the same
// bytes; it reports the speedup over interp and the fraction of the copy
// loop's bandwidth the generated kernel reaches (same bytes moved).
func BenchmarkGeneratedChain16M(b *testing.B) {
	t := &testing.T{}
	goBin := goTool(b)
	dir := b.TempDir()
	if err := WriteModule(dir, "kilngen", []*lowering.Program{chainProgram()}); err != nil {
		b.Fatal(err)
	}
	bin := filepath.Join(dir, "kernels")
	if out, err := goCmd(goBin, dir, "build", "-o", bin, ".").CombinedOutput(); err != nil {
		b.Fatalf("go build: %v\n%s", err, out)
	}
	xt := interp.FromFloats(f32, []int64{benchN}, wave(benchN, 4))
	in := b.TempDir()
	if err := interp.SaveNPY(filepath.Join(in, "x.npy"), xt); err != nil {
		b.Fatal(err)
	}
	g := parseFX(t, chainFX())
	src := f32s(xt)
	dst := make([]float32, benchN)
	var genNs, interpNs, copyNs float64
	b.ResetTimer()
	for range b.N {
		genNs += runBench(b, bin, in)
		start := time.Now()
		if _, err := interp.Run(g, []any{xt}, interp.Options{}); err != nil {
			b.Fatal(err)
		}
		interpNs += float64(time.Since(start).Nanoseconds())
		const reps = 10
		copyLoop(dst, src) // warm-up, as the binary warms up
		start = time.Now()
		for range reps {
			copyLoop(dst, src)
		}
		copyNs += float64(time.Since(start).Nanoseconds()) / reps
	}
	n := float64(b.N)
	b.ReportMetric(genNs/n, "gen-ns/op")
	b.ReportMetric(interpNs/n, "interp-ns/op")
	b.ReportMetric(copyNs/n, "copy-ns/op")
	b.ReportMetric(interpNs/genNs, "speedup-vs-interp")
	b.ReportMetric(copyNs/genNs, "copy-bandwidth-fraction")
}

// runBench runs the binary's -bench mode and returns its ns/op.
func runBench(b *testing.B, bin, in string) float64 {
	cmd := exec.Command(bin, "-inputs", in, "-bench", "20")
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		b.Fatalf("%v: %s", err, out.String())
	}
	f := strings.Fields(out.String())
	if len(f) != 2 || f[0] != "ns/op" {
		b.Fatalf("unexpected -bench output %q", out.String())
	}
	ns, err := strconv.ParseFloat(f[1], 64)
	if err != nil {
		b.Fatal(err)
	}
	return ns
}
