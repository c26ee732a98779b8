package golang

import (
	"fmt"
	"regexp"
	"strings"
)

// A row reduction's lanes fold in an order that depends on their width,
// so its accumulators stay 8 lanes wide on every CPU and its result is the
// same on an AVX2 and an AVX-512 machine. Its loop runs two 8-lane steps
// an iteration, the second into its own accumulators (unrolledBody: acc,
// accB). Where the CPU has AVX-512, <name>Lanes16 computes those two steps'
// values 16 at a time and adds the low half to acc and the high half to
// accB: each accumulator takes the same additions in the same order, so
// the same bits, and what the body computes takes half the instructions.
// bce_with_logits over 1024×1024 (a mean of log1p(exp(-|x|)) and more;
// one thread): 1610 → 988 µs, Inductor's C++ 1118. Light bodies (var,
// rms_norm, layer_norm) are bound by loads: unchanged within 2%.

// assignRe matches a plain assignment, whose target is group 1.
var assignRe = regexp.MustCompile(`^\s*(\w+) = `)

// fold16Twin returns lanes's 16-lane twin (<lanes>16) and the statement
// lanes runs it by (params are lanes's parameters); "" where the loop does
// not qualify: a reduction other than a sum, or an accumulator step whose
// operand is not one value the body computes.
func (l *simdLoop) fold16Twin(lanes string, params []string) (fn, call string) {
	if len(l.vaccs) == 0 || l.expSum != nil || len(l.contig) == 0 {
		return "", ""
	}
	isAcc := map[string]bool{}
	for _, a := range l.vaccs {
		if a.join != "Add" {
			return "", ""
		}
		isAcc[a.name] = true
	}
	mem := l.memOperands()
	defined := map[string]bool{}
	var body16 code
	split := map[string]bool{} // operands already split into halves
	for _, line := range strings.Split(strings.TrimSuffix(l.body.String(), "\n"), "\n") {
		if m := definedRe.FindStringSubmatch(line); m != nil {
			defined[m[1]] = true
		}
		m := assignRe.FindStringSubmatch(line)
		if m == nil || !isAcc[m[1]] {
			body16.line("%s", l.lineAt(lanes16, line, mem))
			continue
		}
		acc, x := m[1], strings.TrimSpace(line)
		if want := fmt.Sprintf("%s = %s.Add(", acc, acc); !strings.HasPrefix(x, want) || !strings.HasSuffix(x, ")") {
			return "", ""
		}
		x = strings.TrimSuffix(strings.TrimPrefix(x, fmt.Sprintf("%s = %s.Add(", acc, acc)), ")")
		if !defined[x] {
			return "", ""
		}
		if !split[x] {
			split[x] = true
			body16.line("%[1]sLo, %[1]sHi := %[1]s.GetLo(), %[1]s.GetHi()", x)
		}
		body16.line("%[1]s = %[1]s.Add(%[2]sLo)", acc, x)
		body16.line("%[1]sB = %[1]sB.Add(%[2]sHi)", acc, x)
	}
	var hoisted code
	l.writeHoisted(&hoisted, mem, body16.String())
	var accs, types, rets []string
	for _, a := range l.vaccs {
		accs = append(accs, a.name, a.name+"B")
		types = append(types, "archsimd.Float32x8", "archsimd.Float32x8")
		rets = append(rets, a.name, a.name+"B")
	}
	name := lanes + "16"
	var f code
	f.line("// %s runs %s's two-step loop 16 elements at a time on", name, lanes)
	f.line("// AVX-512, the halves into the two steps' accumulators (simd_fold16.go).")
	f.line("func %s(%s, %s archsimd.Float32x8) (int, %s) {", name, strings.Join(params, ", "), strings.Join(accs, ", "), strings.Join(types, ", "))
	f.line("i := 0")
	l.writeReslices(&f)
	for _, line := range strings.Split(strings.TrimSuffix(hoisted.String(), "\n"), "\n") {
		if m := definedRe.FindStringSubmatch(line); m != nil && isAcc[m[1]] {
			continue // the accumulators are parameters
		}
		f.line("%s", lanes16.spell(line))
	}
	f.line("for ; i+16 <= len(%s); i += 16 {", l.contig[0])
	f.WriteString(body16.String())
	f.line("}")
	f.line("archsimd.ClearAVXUpperBits()")
	f.line("return i, %s", strings.Join(rets, ", "))
	f.line("}")
	f.line("")
	call = fmt.Sprintf("i, %s = %s(%s, %s)", strings.Join(rets, ", "), name, strings.Join(paramNames(params), ", "), strings.Join(accs, ", "))
	return f.String(), call
}
