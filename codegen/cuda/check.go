package cuda

import (
	"fmt"
	"strings"

	"github.com/kiln-compiler/kiln/ir"
	"github.com/kiln-compiler/kiln/lowering"
)

// Index checks (lowering.OpCheck). A kernel that reads indices from a
// tensor takes one more parameter, the program's error record kiln_err
// (three long longs: message number + 1, the index, the size). A thread
// whose index is out of range claims the record with a compare-and-swap,
// so the first failure stays, and returns before the access; the host
// reads the record after each launch of such a kernel and exits with the
// message, as PyTorch raises it. Emulated launches run threads in order,
// so the failure reported is the first in iteration order, as interp's;
// on a GPU it is the first thread to get there.

// errParam is the error record's kernel parameter and host variable.
const errParam = "kiln_err"

// checkMsgs numbers the distinct messages of a program's checks.
type checkMsgs struct {
	list []string
	ids  map[string]int
}

func newCheckMsgs() *checkMsgs { return &checkMsgs{ids: map[string]int{}} }

func (m *checkMsgs) id(msg string) int {
	if i, ok := m.ids[msg]; ok {
		return i
	}
	m.ids[msg] = len(m.list)
	m.list = append(m.list, msg)
	return len(m.list) - 1
}

// hasChecks reports whether a kernel checks indices.
func hasChecks(k *lowering.Kernel) bool {
	for _, s := range k.Stages {
		for _, in := range s.Body {
			if in.Op == lowering.OpCheck {
				return true
			}
		}
	}
	return false
}

// check emits an index check: one unsigned compare when negative indices
// are rejected.
func (g *kgen) check(in *lowering.Instr) error {
	if len(in.Args) != 1 || in.Check == nil {
		return fmt.Errorf("check needs one argument and a message")
	}
	v, err := castExpr(g.ref(in.Args[0]), in.Args[0].DType, ir.I64)
	if err != nil {
		return err
	}
	size := "(long long)(" + in.Expr.Code() + ")"
	cond := fmt.Sprintf("(unsigned long long)(%s) >= (unsigned long long)%s", v, size)
	if in.Check.Neg {
		cond = fmt.Sprintf("(%s) < -%s || (%s) >= %s", v, size, v, size)
	}
	id := g.msgs.id(in.Check.Msg)
	g.e.line("if (%s) { kiln_index_fail(%s, %d, %s, %s); return; } // %s", cond, errParam, id, v, size, in.Check.Msg)
	return nil
}

// allocCheckRecord gives the index checks' failure record device memory.
func (h *hostGen) allocCheckRecord() {
	if len(h.msgs.list) == 0 {
		return
	}
	h.stmt()
	h.e.line("%s = (long long*)kiln_alloc(3 * sizeof(long long));", errParam)
	h.done()
}

// emitCheckMsgs declares the host's message table and failure record.
func (h *hostGen) emitCheckMsgs() {
	if len(h.msgs.list) == 0 {
		return
	}
	quoted := make([]string, len(h.msgs.list))
	for i, m := range h.msgs.list {
		quoted[i] = cString(m)
	}
	h.e.line("static const char* const kiln_check_msgs[] = {%s};", strings.Join(quoted, ", "))
	h.e.line("static long long* %s;", errParam)
}

// preludeCheck is the device side's failure record and the host side's
// report of it ({index} and {size} filled in, as lowering.Check.Message).
const preludeCheck = `
// ---- index checks ----
KD void kiln_index_fail(long long* err, long long msg, long long index, long long size) {
#if defined(KILN_EMULATE)
  if (err[0] != 0) return;
  err[0] = msg + 1;
#elif defined(KILN_CUDA_RUNTIME) || defined(KILN_RTC)
  if (atomicCAS((unsigned long long*)err, 0ULL, (unsigned long long)(msg + 1)) != 0ULL) return;
#else
  if (__nvvm_atom_cas_gen_ll(err, 0, msg + 1) != 0) return;
#endif
  err[1] = index;
  err[2] = size;
}
#if defined(KILN_HOST_CODE)
// kiln_check_message writes tmpl with {index} and {size} replaced.
static void kiln_check_message(char* out, size_t n, const char* tmpl, long long index, long long size) {
  size_t o = 0;
  out[0] = 0;
  for (const char* p = tmpl; *p && o + 1 < n; o = strlen(out)) {
    if (strncmp(p, "{index}", 7) == 0) {
      snprintf(out + o, n - o, "%lld", index);
      p += 7;
    } else if (strncmp(p, "{size}", 6) == 0) {
      snprintf(out + o, n - o, "%lld", size);
      p += 6;
    } else {
      out[o] = *p++;
      out[o + 1] = 0;
    }
  }
}
// kiln_index_report exits with the message of a failed check, if any.
static void kiln_index_report(const long long* err, const char* kernel, const char* const* msgs) {
  long long rec[3];
  kiln_download(rec, err, sizeof rec);
  if (rec[0] == 0) return;
  char msg[1024];
  kiln_check_message(msg, sizeof msg, msgs[rec[0] - 1], rec[1], rec[2]);
  kiln_fail("%s: %s", kernel, msg);
}
#endif
`
