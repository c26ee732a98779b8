package lowering

import "fmt"

// PlanBuffers decides, for every intermediate buffer, whether it takes
// over the memory of a buffer whose last reader already ran
// (Buffer.ReuseOf), as Inductor's memory planning does: greedy in kernel
// order, a dead buffer of the same byte size (sym.Equal) is reused, the
// most recently freed first. Inputs and outputs are never reused and
// never reuse; a buffer a kernel reads is free only after that kernel, so
// no kernel writes over its own operands. It appends a remark per reuse.
func PlanBuffers(p *Program) {
	first, last := bufferLifetimes(p)
	free := map[string][]*Buffer{} // by byte size key
	reused := 0
	for i, k := range p.Kernels {
		for _, b := range kernelBuffers(k) {
			if b.Kind != BufIntermediate || first[b] != i {
				continue
			}
			b.ReuseOf = nil
			key := b.Bytes().Key()
			if pool := free[key]; len(pool) > 0 {
				b.ReuseOf = pool[len(pool)-1]
				free[key] = pool[:len(pool)-1]
				reused++
				p.Remarks = append(p.Remarks, fmt.Sprintf("%s reuses %s (%s bytes, dead after %s)",
					b.Name, b.ReuseOf.Name, key, p.Kernels[last[b.ReuseOf]].Name))
			}
		}
		for _, b := range kernelBuffers(k) {
			if b.Kind == BufIntermediate && last[b] == i {
				key := b.Bytes().Key()
				free[key] = append(free[key], b)
			}
		}
	}
	p.Remarks = append(p.Remarks, fmt.Sprintf("buffer planning: %d of %d intermediate buffers reuse memory",
		reused, countIntermediates(p)))
}

// bufferLifetimes finds, per buffer, the first and last kernel that
// touches it. Buffers an output names live to the end.
func bufferLifetimes(p *Program) (first, last map[*Buffer]int) {
	first, last = map[*Buffer]int{}, map[*Buffer]int{}
	for i, k := range p.Kernels {
		for _, b := range kernelBuffers(k) {
			if _, ok := first[b]; !ok {
				first[b] = i
			}
			last[b] = i
		}
	}
	for _, r := range p.Outputs {
		if r.Buffer != nil {
			last[r.Buffer] = len(p.Kernels)
		}
	}
	return first, last
}

// kernelBuffers lists the buffers a kernel reads or writes, in first-use
// order, without repeats.
func kernelBuffers(k *Kernel) []*Buffer {
	reads, writes := kernelAccesses(k)
	seen := make(map[*Buffer]bool, len(reads))
	for _, b := range reads {
		seen[b] = true
	}
	out := reads
	for _, b := range writes {
		if !seen[b] {
			out = append(out, b)
		}
	}
	return out
}

func countIntermediates(p *Program) int {
	n := 0
	for _, b := range p.Buffers {
		if b.Kind == BufIntermediate {
			n++
		}
	}
	return n
}
