package driver

import (
	"fmt"
	"strings"

	"github.com/kiln-compiler/kiln/diag"
	"github.com/kiln-compiler/kiln/frontend/torchtrace"
)

// CodeProvenance is the remark code comparing kiln's fusion with Inductor's.
const CodeProvenance = "inductor-provenance"

func init() {
	diag.RegisterExplanation(CodeProvenance, `A TORCH_TRACE log written with
torch._inductor.config.trace.provenance_tracking_level = 1 carries
inductor_provenance_tracking_node_mappings: which post-grad nodes each generated kernel computes.
kiln lowers the same inductor_post_grad_graph, fuses it, and says where its kernels differ: an
Inductor kernel whose nodes kiln computes in several kernels, or a kiln kernel that joins nodes
Inductor kept in separate kernels. Extern kernels (convolution, mm) are one node on both sides.`)
}

// ProvenanceRemarks compares kiln's kernels with Inductor's for every
// post-grad graph whose provenance the log carried: one remark per kernel
// the two split differently, and one summary per graph.
func ProvenanceRemarks(run *Run, progs []*Program) []diag.Diagnostic {
	var out []diag.Diagnostic
	for _, p := range run.Provenance {
		for _, prog := range progs {
			if p.Graph != nil && prog.Graph == p.Graph && prog.Loop != nil {
				out = append(out, compareFusion(p, prog)...)
			}
		}
	}
	return out
}

func compareFusion(p torchtrace.Provenance, prog *Program) []diag.Diagnostic {
	kiln := map[string]string{} // node → kiln kernel
	var kilnOrder []string
	kilnNodes := map[string][]string{}
	for _, k := range prog.Loop.Kernels {
		for _, n := range k.Origins {
			if _, dup := kiln[n]; !dup {
				kiln[n] = k.Name
				kilnNodes[k.Name] = append(kilnNodes[k.Name], n)
			}
		}
		kilnOrder = append(kilnOrder, k.Name)
	}
	ind := map[string]string{} // node → Inductor kernel
	var out []diag.Diagnostic
	remark := func(format string, args ...any) {
		out = append(out, diag.Diagnostic{Severity: diag.Remark, Code: CodeProvenance, Pos: p.Pos,
			Message: fmt.Sprintf(p.Graph.Title+": "+format, args...)})
	}
	same := 0
	for _, k := range p.Kernels {
		var nodes []string
		split := map[string][]string{}
		var order []string
		for _, n := range k.Nodes {
			kk, ok := kiln[n]
			if !ok {
				continue // a view, an input, or a node kiln's passes replaced
			}
			ind[n] = k.Name
			nodes = append(nodes, n)
			if split[kk] == nil {
				order = append(order, kk)
			}
			split[kk] = append(split[kk], n)
		}
		if len(order) <= 1 {
			if len(order) == 1 {
				same++
			}
			continue
		}
		var parts []string
		for _, kk := range order {
			parts = append(parts, fmt.Sprintf("%s (%s)", kk, strings.Join(split[kk], ", ")))
		}
		remark("Inductor fused these %d nodes into one kernel %s; kiln made %d: %s (kiln's fusion remarks say why)",
			len(nodes), k.Name, len(order), strings.Join(parts, ", "))
	}
	for _, kk := range kilnOrder {
		var inds []string
		seen := map[string]bool{}
		for _, n := range kilnNodes[kk] {
			if ik, ok := ind[n]; ok && !seen[ik] {
				seen[ik] = true
				inds = append(inds, ik)
			}
		}
		if len(inds) > 1 {
			remark("kiln fused into %s nodes that Inductor computes in %d kernels: %s", kk, len(inds), strings.Join(inds, ", "))
		}
	}
	remark("%d of Inductor's %d kernels are one kiln kernel each; kiln made %d kernels", same, len(p.Kernels), len(prog.Loop.Kernels))
	return out
}
