// Package torchtrace reads TORCH_TRACE structured logs (TORCH_TRACE=/dir,
// what tlparse reads) into kiln's IR: every graph payload becomes a graph of
// the module, named by its compile id and stage ("[0/0] aot_forward_graph"),
// in file order, with positions into the log; compile failures and fake-kernel
// events become diagnostics at the log's line.
//
// A log is glog-prefixed envelope lines, each a one-line JSON object naming
// the event, optionally followed by a payload whose lines start with a tab:
//
//	V1124 04:30:39.81 7474 torch/_dynamo/output_graph.py:2993] {"dynamo_output_graph": {...}, "frame_id": 0, "frame_compile_id": 0, "attempt": 0, "has_payload": "..."}
//		class GraphModule(torch.nn.Module):
//		    def forward(self, L_x_: "f32[4][1]cpu"):
//		...
package torchtrace

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
)

// glogRe matches the glog prefix PyTorch's trace handler writes:
// LEVEL MMDD HH:MM:SS.micros PID FILE:LINE] .
var glogRe = regexp.MustCompile(`^[VIWEFD]\d{4} \d\d:\d\d:\d\d\.\d+ +\d+ [^\]]*\] `)

// IsLog reports whether line (one line of a file) is a TORCH_TRACE envelope.
func IsLog(line string) bool {
	loc := glogRe.FindStringIndex(line)
	return loc != nil && strings.HasPrefix(line[loc[1]:], "{")
}

// event is one envelope and its payload.
type event struct {
	line     int    // 1-based line of the envelope
	kind     string // the event's key: dynamo_output_graph, artifact, ...
	meta     json.RawMessage
	artifact string // for kind "artifact": its name and encoding
	encoding string
	frame    *int
	compile  *int
	attempt  int
	payload  []string // payload lines, the leading tab removed
	payLine  int      // line of the first payload line
}

// compileID is tlparse's spelling of the compile id: [0/0], [0/0_1] for a
// second attempt, "" when the event names no frame.
func (e *event) compileID() string {
	if e.frame == nil || e.compile == nil {
		return ""
	}
	if e.attempt > 0 {
		return fmt.Sprintf("[%d/%d_%d]", *e.frame, *e.compile, e.attempt)
	}
	return fmt.Sprintf("[%d/%d]", *e.frame, *e.compile)
}

// envelopeKeys are the keys every envelope may carry besides its event.
var envelopeKeys = map[string]bool{"frame_id": true, "frame_compile_id": true, "attempt": true,
	"has_payload": true, "compiled_autograd_id": true, "rank": true}

// scan splits a log into events. Lines that are neither envelopes nor
// payloads (a header comment, stray prints) are counted, not fatal.
func scan(src string) (events []*event, skipped int, bad []int) {
	lines := strings.Split(src, "\n")
	var cur *event
	for i, line := range lines {
		line = strings.TrimSuffix(line, "\r")
		if strings.HasPrefix(line, "\t") {
			if cur != nil {
				if cur.payload == nil {
					cur.payLine = i + 1
				}
				cur.payload = append(cur.payload, line[1:])
			}
			continue
		}
		cur = nil
		loc := glogRe.FindStringIndex(line)
		if loc == nil {
			if strings.TrimSpace(line) != "" {
				skipped++
			}
			continue
		}
		e, ok := parseEnvelope(line[loc[1]:])
		if !ok {
			bad = append(bad, i+1)
			continue
		}
		e.line = i + 1
		events = append(events, e)
		cur = e
	}
	return events, skipped, bad
}

func parseEnvelope(text string) (*event, bool) {
	dec := json.NewDecoder(strings.NewReader(text))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil, false
	}
	e := &event{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, false
		}
		k, _ := tok.(string)
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, false
		}
		switch k {
		case "frame_id":
			e.frame = intPtr(v)
		case "frame_compile_id":
			e.compile = intPtr(v)
		case "attempt":
			if p := intPtr(v); p != nil {
				e.attempt = *p
			}
		default:
			if !envelopeKeys[k] && e.kind == "" { // the first other key names the event
				e.kind, e.meta = k, v
			}
		}
	}
	if e.kind == "artifact" {
		var a struct{ Name, Encoding string }
		_ = json.Unmarshal(e.meta, &a)
		e.artifact, e.encoding = a.Name, a.Encoding
	}
	return e, e.kind != ""
}

func intPtr(raw json.RawMessage) *int {
	var n int
	if json.Unmarshal(raw, &n) != nil {
		return nil
	}
	return &n
}
