package lowering

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// schedCheck asserts the structural facts fusion must keep, independent
// of Verify: every value is used where it is available (same stage
// earlier, an earlier outer-level stage, or an earlier stage's reduction),
// reductions sit in r-stages, indexes use only live loop variables and
// program symbols, every load of a buffer the program computes reads one
// written before it, ids and names are unique, and the outputs are the
// ones the program had before fusion.
func schedCheck(t *testing.T, p *Program, outputsBefore []string) {
	t.Helper()
	require.Equal(t, outputsBefore, outputBuffers(p), "output buffers changed")
	known := map[*Buffer]bool{}
	for _, b := range p.Buffers {
		known[b] = true
	}
	written := map[*Buffer]bool{}
	names := map[string]bool{}
	for _, k := range p.Kernels {
		require.False(t, names[k.Name], "duplicate kernel name %s", k.Name)
		names[k.Name] = true
		if k.Extern != nil {
			for _, a := range k.Extern.Args {
				requireWritten(t, a.Buffer, written, k.Name)
			}
			for _, w := range k.Extern.Written() {
				written[w] = true
			}
			continue
		}
		require.NoError(t, checkKernelValues(k, p.Syms, known, written), "%s\n%s", k.Name, k)
	}
	for _, r := range p.Outputs {
		if r.Buffer != nil && r.Buffer.Kind != BufInput {
			require.True(t, written[r.Buffer], "output %s never written", r.Name)
		}
	}
}

func outputBuffers(p *Program) []string {
	var out []string
	for _, r := range p.Outputs {
		if r.Buffer != nil {
			out = append(out, r.Buffer.Name)
		}
	}
	return out
}

func requireWritten(t *testing.T, b *Buffer, written map[*Buffer]bool, where string) {
	t.Helper()
	if b != nil && b.Kind != BufInput {
		require.True(t, written[b], "%s reads %s before anything writes it", where, b.Name)
	}
}

func checkKernelValues(k *Kernel, syms []string, known, written map[*Buffer]bool) error {
	ids := map[int]bool{}
	stageOf := map[*Instr]int{}
	for si, st := range k.Stages {
		allowed := slices.Clone(syms)
		for i := range k.Outer {
			allowed = append(allowed, OuterVar(i))
		}
		for i := range st.Reduce {
			allowed = append(allowed, ReduceVar(i))
		}
		for _, in := range st.Body {
			if ids[in.ID] {
				return fmt.Errorf("duplicate id tmp%d", in.ID)
			}
			ids[in.ID] = true
			if in.Op == OpReduce && len(st.Reduce) == 0 {
				return fmt.Errorf("tmp%d: reduce in an outer-level stage", in.ID)
			}
			for _, a := range in.Args {
				if err := available(k, a, si, stageOf); err != nil {
					return fmt.Errorf("tmp%d: %w", in.ID, err)
				}
			}
			if err := checkAccess(in, allowed, known, written); err != nil {
				return err
			}
			stageOf[in] = si
		}
	}
	return nil
}

// available: a is defined earlier in stage si, or in an earlier stage that
// is outer-level, or is an earlier stage's reduction.
func available(k *Kernel, a *Instr, si int, stageOf map[*Instr]int) error {
	as, ok := stageOf[a]
	switch {
	case !ok:
		return fmt.Errorf("uses tmp%d before it is defined", a.ID)
	case as == si && a.Op == OpReduce:
		return fmt.Errorf("uses reduction tmp%d inside its own loop", a.ID)
	case as < si && a.Op != OpReduce && len(k.Stages[as].Reduce) > 0:
		return fmt.Errorf("uses tmp%d, local to the loop of stage %d", a.ID, as)
	}
	return nil
}

func checkAccess(in *Instr, allowed []string, known, written map[*Buffer]bool) error {
	var free []string
	switch in.Op {
	case OpLoad, OpStore:
		if !known[in.Access.Buffer] {
			return fmt.Errorf("tmp%d: buffer %s not in the program", in.ID, in.Access.Buffer.Name)
		}
		free = in.Access.Index.Free()
		for _, t := range in.Access.Indirect {
			allowed = append(allowed[:len(allowed):len(allowed)], "tmp"+itoa(t.ID))
		}
	case OpIndex:
		free = in.Expr.Free()
	}
	for _, f := range free {
		if !slices.Contains(allowed, f) {
			return fmt.Errorf("tmp%d: index uses %s (allowed: %s)", in.ID, f, strings.Join(allowed, " "))
		}
	}
	b := func() *Buffer {
		if in.Access != nil {
			return in.Access.Buffer
		}
		return nil
	}()
	switch {
	case in.Op == OpLoad && b.Kind != BufInput && !written[b]:
		return fmt.Errorf("tmp%d: loads %s before anything writes it", in.ID, b.Name)
	case in.Op == OpStore:
		written[b] = true
	}
	return nil
}
