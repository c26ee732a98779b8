// Package suggest finds the known name closest to a misspelled one, for
// "did you mean" hints on commands, flags, pass names and op names.
package suggest

// Closest returns the candidate nearest to name by edit distance, when it
// is close enough to be a typo (at most a third of the name's length, and
// at least 1, edits); "" otherwise. Ties go to the earlier candidate, so
// the answer is deterministic for a fixed candidate order.
func Closest(name string, candidates []string) string {
	best, bestD := "", len(name)/3+1
	if bestD > 3 {
		bestD = 3
	}
	for _, c := range candidates {
		if c == name {
			return ""
		}
		if d := distance(name, c); d <= bestD && (best == "" || d < distance(name, best)) {
			best = c
		}
	}
	return best
}

// distance is the Levenshtein distance with transpositions counted as one
// edit (optimal string alignment), over bytes.
func distance(a, b string) int {
	if len(a) > 64 || len(b) > 64 {
		return 1 << 30 // names are short; never spend quadratic time on junk
	}
	prev2 := make([]int, len(b)+1)
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(b)]
}

// Hint is ` (did you mean "x"?)` for the closest candidate, or "".
func Hint(name string, candidates []string) string {
	if c := Closest(name, candidates); c != "" {
		return ` (did you mean "` + c + `"?)`
	}
	return ""
}
