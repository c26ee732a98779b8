package golang

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/kiln-compiler/kiln/interp"
	"github.com/kiln-compiler/kiln/lowering"
	"github.com/kiln-compiler/kiln/rt"
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

// copyLoop is the bandwidth reference: the same 16M f32 read and 16M
// f32 written as the kernel, split by rt.ParallelFor into the same chunks
// over the same GOMAXPROCS goroutines, each chunk one copy() (memmove:
// the fastest way Go moves those bytes).
func copyLoop(dst, src []float32) {
	_ = rt.ParallelFor(int64(len(dst)), 1, func(lo, hi int64) error {
		copy(dst[lo:hi], src[lo:hi])
		return nil
	})
}

// BenchmarkGeneratedChain16M times, in one run, the generated Go built
// twice (GOEXPERIMENT=simd, whose chain kernel runs on 8 AVX2 lanes, and
// the scalar build; each binary's -bench), interp on the FX graph, and a
// parallel copy of the same bytes; for both builds it reports the speedup
// over interp and the fraction of the copy's bandwidth (bytes moved per
// second, same bytes), and the load average while it ran.
func BenchmarkGeneratedChain16M(b *testing.B) {
	t := &testing.T{}
	goBin := goTool(b)
	dir := b.TempDir()
	if err := WriteModule(dir, "kilngen", []*lowering.Program{chainProgram()}); err != nil {
		b.Fatal(err)
	}
	bins := map[string]string{"simd": filepath.Join(dir, "kernels-simd"), "scalar": filepath.Join(dir, "kernels-scalar")}
	for name, exp := range map[string]string{"simd": "GOEXPERIMENT=simd", "scalar": "GOEXPERIMENT="} {
		cmd := goCmd(goBin, dir, "build", "-o", bins[name], ".")
		cmd.Env = append(cmd.Env, exp)
		if out, err := cmd.CombinedOutput(); err != nil {
			b.Fatalf("go build (%s): %v\n%s", exp, err, out)
		}
	}
	if status, err := exec.Command(bins["simd"], "-simd").Output(); err != nil || !strings.Contains(string(status), "avx") {
		b.Logf("the SIMD build runs no lanes here: %s %v", status, err)
	}
	xt := interp.FromFloats(f32, []int64{benchN}, wave(benchN, 4))
	in := b.TempDir()
	if err := interp.SaveNPY(filepath.Join(in, "x.npy"), xt); err != nil {
		b.Fatal(err)
	}
	g := parseFX(t, chainFX())
	src := f32s(xt)
	dst := make([]float32, benchN)
	load := loadAvg()
	var simdNs, scalarNs, interpNs, copyNs float64
	b.ResetTimer()
	for range b.N {
		simdNs += runBench(b, bins["simd"], in)
		scalarNs += runBench(b, bins["scalar"], in)
		start := time.Now()
		if _, err := interp.Run(g, []any{xt}, interp.Options{}); err != nil {
			b.Fatal(err)
		}
		interpNs += float64(time.Since(start).Nanoseconds())
		const reps = 20    // as the binaries' -bench
		copyLoop(dst, src) // warm-up, as the binaries warm up
		start = time.Now()
		for range reps {
			copyLoop(dst, src)
		}
		copyNs += float64(time.Since(start).Nanoseconds()) / reps
	}
	b.StopTimer()
	n := float64(b.N)
	b.ReportMetric(simdNs/n, "gen-simd-ns/op")
	b.ReportMetric(scalarNs/n, "gen-scalar-ns/op")
	b.ReportMetric(interpNs/n, "interp-ns/op")
	b.ReportMetric(copyNs/n, "copy-ns/op")
	b.ReportMetric(interpNs/simdNs, "simd-speedup-vs-interp")
	b.ReportMetric(interpNs/scalarNs, "scalar-speedup-vs-interp")
	b.ReportMetric(copyNs/simdNs, "simd-copy-bandwidth-fraction")
	b.ReportMetric(copyNs/scalarNs, "scalar-copy-bandwidth-fraction")
	b.Logf("GOMAXPROCS=%d; /proc/loadavg before: %s; after: %s", runtime.GOMAXPROCS(0), load, loadAvg())
}

// loadAvg is /proc/loadavg's text ("?" where there is none): what else
// the machine was doing bounds what a timing means.
func loadAvg() string {
	raw, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	return strings.TrimSpace(string(raw))
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
