package ir

// ValueMap maps a graph's values to T. Values are looked up by id in a
// slice (a graph's ids are dense), so a pass that keeps a fact per value
// does not hash a million pointers; a value whose id is out of range or
// taken by another value falls back to a map, so ValueMap behaves as a
// map[*Value]T for any values at all.
type ValueMap[T any] struct {
	owner  []*Value
	vals   []T
	sparse map[*Value]T
}

// NewValueMap returns an empty map sized for g's value ids.
func NewValueMap[T any](g *Graph) *ValueMap[T] {
	n := g.NumValueIDs()
	return &ValueMap[T]{owner: make([]*Value, n), vals: make([]T, n)}
}

// Get returns the entry for v.
func (m *ValueMap[T]) Get(v *Value) (T, bool) {
	if id := v.ID; id >= 0 && id < len(m.owner) && m.owner[id] == v {
		return m.vals[id], true
	}
	x, ok := m.sparse[v]
	return x, ok
}

// At returns the entry for v, or T's zero value.
func (m *ValueMap[T]) At(v *Value) T {
	x, _ := m.Get(v)
	return x
}

// Set sets the entry for v.
func (m *ValueMap[T]) Set(v *Value, x T) {
	if id := v.ID; id >= 0 && id < len(m.owner) && (m.owner[id] == nil || m.owner[id] == v) {
		m.owner[id], m.vals[id] = v, x
		return
	}
	if m.sparse == nil {
		m.sparse = map[*Value]T{}
	}
	m.sparse[v] = x
}
