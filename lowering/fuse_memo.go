package lowering

import "github.com/kiln-compiler/kiln/ir/sym"

// indexMemo remembers the index algebra of inlining by the printed form of
// its operands (sym's printing is canonical: Expr.Key). A model's layers
// repeat: layer 7's producer is read by its consumer at the offsets and
// over the sizes layer 1's was, so whether the read fuses, the producer's
// loop variables at the element read, and each of the producer's indexes
// moved there are worked out once per shape, not once per layer (on the
// 100k-node Mutations graph they were 0.9 s of fusion's 3 s of CPU).
type indexMemo struct {
	key      []byte
	fusable  map[string]bool
	producer map[string]*producerAt
}

// producerAt is the producer's loop variables at the element a consumer
// reads (producerIndex), and the producer's indexes moved there.
type producerAt struct {
	vars  map[string]sym.Expr
	moved map[string]sym.Expr // an index's key → the index with vars put in
}

func newIndexMemo() *indexMemo {
	return &indexMemo{fusable: map[string]bool{}, producer: map[string]*producerAt{}}
}

// fusableAt is the package's fusableAt, remembered.
func (m *indexMemo) fusableAt(prod, k *Kernel, s *Stage, store, ld *Instr) bool {
	m.key = m.key[:0]
	m.exprs(prod.Outer)
	m.exprs(k.Outer)
	m.exprs(s.Reduce)
	m.expr(store.Access.Index)
	m.expr(ld.Access.Index)
	if v, ok := m.fusable[string(m.key)]; ok {
		return v
	}
	v := fusableAt(prod, k, s, store, ld)
	m.fusable[string(m.key)] = v
	return v
}

// at is where the producer's body runs when inlined at site s.
func (m *indexMemo) at(prod *Kernel, s inlineSite) *producerAt {
	m.key = m.key[:0]
	m.exprs(prod.Outer)
	m.exprs(s.k.Outer)
	m.exprs(s.st.Reduce)
	m.expr(s.ld.Access.Index)
	if p, ok := m.producer[string(m.key)]; ok {
		return p
	}
	p := &producerAt{
		vars:  producerIndex(prod.Outer, s.ld.Access.Index, loopFacts(s.k.Outer, s.st.Reduce)),
		moved: map[string]sym.Expr{},
	}
	m.producer[string(m.key)] = p
	return p
}

// move is e with the producer's loop variables put in.
func (p *producerAt) move(e sym.Expr) sym.Expr {
	key := e.Key()
	if v, ok := p.moved[key]; ok {
		return v
	}
	v := e.Subst(p.vars)
	p.moved[key] = v
	return v
}

func (m *indexMemo) exprs(es []sym.Expr) {
	m.key = append(m.key, '[')
	for _, e := range es {
		m.expr(e)
	}
	m.key = append(m.key, ']')
}

func (m *indexMemo) expr(e sym.Expr) {
	m.key = append(append(m.key, e.Key()...), ';')
}
