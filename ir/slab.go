package ir

// slab hands out a graph's nodes, values and result lists from chunks, so
// that building a large graph makes a few thousand allocations instead of
// several million. Chunks start small and double up to a bound, so a small
// graph wastes little. An object lives as long as its chunk does: a node a
// pass removes stays allocated while its neighbours in the chunk live.
type slab struct {
	nodes  []Node
	values []Value
	ptrs   []*Value
	nodeN  int // the size of the next node chunk
	valueN int
	ptrN   int
}

const (
	slabFirst = 8
	slabMax   = 512
)

func grow(n *int) int {
	*n = min(max(*n*2, slabFirst), slabMax)
	return *n
}

func (s *slab) node() *Node {
	if len(s.nodes) == 0 {
		s.nodes = make([]Node, grow(&s.nodeN))
	}
	n := &s.nodes[0]
	s.nodes = s.nodes[1:]
	return n
}

func (s *slab) value() *Value {
	if len(s.values) == 0 {
		s.values = make([]Value, grow(&s.valueN))
	}
	v := &s.values[0]
	s.values = s.values[1:]
	return v
}

// results returns an empty list with room for n results; appending past n
// reallocates it, so lists never share memory.
func (s *slab) results(n int) []*Value {
	if n > slabMax/4 {
		return make([]*Value, 0, n)
	}
	if len(s.ptrs) < n {
		s.ptrs = make([]*Value, max(grow(&s.ptrN), n))
	}
	r := s.ptrs[:0:n]
	s.ptrs = s.ptrs[n:]
	return r
}
