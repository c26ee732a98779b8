package ir

// Chunks hands out short slices of T cut from shared chunks, so that
// building a large graph (millions of nodes, values and small argument
// lists) makes a few thousand allocations instead of millions. Chunks
// start at 8 elements and double up to Max (512 when 0), so a small graph
// wastes little; a slice longer than Max/4 gets an array of its own. A
// slice's capacity is its length, so appending to it reallocates rather
// than overwrite a neighbour. An element lives as long as its chunk does:
// a node a pass removes stays allocated while its neighbours live.
type Chunks[T any] struct {
	Max  int
	free []T // the current chunk's unused part
	size int // the current chunk's size
}

// Take returns n elements, zero unless written through Spare.
func (c *Chunks[T]) Take(n int) []T {
	if n == 0 || !c.Shared(n) {
		return make([]T, n)
	}
	if len(c.free) < n {
		c.size = min(max(2*c.size, 8), c.max())
		c.free = make([]T, max(c.size, n))
	}
	s := c.free[:n:n]
	c.free = c.free[n:]
	return s
}

// One returns one element.
func (c *Chunks[T]) One() *T { return &c.Take(1)[0] }

// Shared says whether Take cuts n elements from a chunk.
func (c *Chunks[T]) Shared(n int) bool { return n <= c.max()/4 }

// Spare is the current chunk's unused part, empty, for a caller that
// appends into it before it knows how many elements it needs: Take(n) then
// returns what it wrote when n is Shared and the appends stayed within
// Spare's capacity.
func (c *Chunks[T]) Spare() []T { return c.free[:0] }

func (c *Chunks[T]) max() int {
	if c.Max == 0 {
		return 512
	}
	return c.Max
}

// slab is where a graph's nodes, values and result lists come from.
type slab struct {
	nodes   Chunks[Node]
	values  Chunks[Value]
	results Chunks[*Value]
}
