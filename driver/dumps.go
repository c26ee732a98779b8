package driver

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/kiln-compiler/kiln/passes"
	"github.com/kiln-compiler/kiln/report"
)

// Dumps writes `kiln compile`'s files into an output folder while the
// pipeline runs: each stage's text is queued as soon as the stage made it
// and written on a goroutine of its own, so the disk works while the next
// stage computes, and a text the report will not show is let go once
// queued instead of living to the end of the run (on a 100k-node graph
// each is tens of MB). The folder is opened (OpenOutDir: the last run's
// files removed) at the first file, so a run that fails before any stage
// leaves the folder as it was.
type Dumps struct {
	Dir string
	// PTX asks for graphN.ptx next to each graphN.cu (WriteOutputs).
	PTX bool

	mu    sync.Mutex // guards od, err, queue
	od    *OutDir
	err   error
	queue chan dumpFile
	done  chan struct{}
}

type dumpFile struct {
	name string
	fill func(w *bufio.Writer) error
}

// NewDumps returns the dumps of a run into dir; nothing is written until
// the first file.
func NewDumps(dir string) *Dumps { return &Dumps{Dir: dir} }

// dumpQueue bounds the texts waiting for the disk: a producer faster than
// the disk waits rather than holding every stage's text at once.
const dumpQueue = 8

// File queues dir/name, filled by fill on the writer goroutine. Files are
// written in the order queued; fill may read a file queued before it.
func (d *Dumps) File(name string, fill func(w *bufio.Writer) error) {
	if q := d.open(); q != nil {
		q <- dumpFile{name, fill}
	}
}

// open opens the folder and starts the writer, once; it returns the queue,
// nil after an error.
func (d *Dumps) open() chan<- dumpFile {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.queue == nil && d.err == nil && d.done == nil {
		d.od, d.err = OpenOutDir(d.Dir)
		if d.err == nil {
			d.queue, d.done = make(chan dumpFile, dumpQueue), make(chan struct{})
			go d.write(d.queue)
		}
	}
	return d.queue
}

func (d *Dumps) failure() error {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.err
}

func (d *Dumps) fail(err error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.err == nil {
		d.err = err
	}
}

// Text queues dir/name holding text.
func (d *Dumps) Text(name, text string) {
	d.File(name, func(w *bufio.Writer) error {
		_, err := w.WriteString(text)
		return err
	})
}

func (d *Dumps) write(queue <-chan dumpFile) {
	defer close(d.done)
	for f := range queue {
		if err := writeFile(d.Dir, f.name, f.fill); err != nil {
			d.fail(fmt.Errorf("writing %s: %w", filepath.Join(d.Dir, f.name), err))
		}
	}
}

// Close waits for every queued file, then writes the folder's manifest
// (OutDir.Close). It returns the first error; a second Close, or Close of
// nil, does nothing more.
func (d *Dumps) Close() error {
	if d == nil {
		return nil
	}
	d.mu.Lock()
	q := d.queue
	d.queue = nil
	d.mu.Unlock()
	if q == nil {
		return d.err
	}
	close(q)
	<-d.done
	if d.err == nil {
		d.err = d.od.Close()
	}
	return d.err
}

// column queues column ci of a graph's report as its dump file (File
// already named) and lets go of column ci-1's text where the page will
// not show it (report.Recorder.DropIfUnshown).
func (d *Dumps) column(rec *report.Recorder, ci int) {
	if c := rec.Columns[ci]; c.File != "" {
		d.Text(c.File, c.Text)
	}
	if ci > 0 {
		rec.DropIfUnshown(ci - 1)
	}
}

// graphColumn names and queues the graph column just recorded for graph
// gi: graphN.CC-pass.fx.
func (d *Dumps) graphColumn(gi int, rec *report.Recorder) {
	ci := len(rec.Columns) - 1
	rec.Columns[ci].File = graphDumpName(gi, ci, rec.Columns[ci].Title)
	d.column(rec, ci)
}

// graphDumpName is the dump of a graph after one pass: graph0.03-decompose.fx.
func graphDumpName(gi, ci int, pass string) string {
	return fmt.Sprintf("graph%d.%02d-%s.fx", gi, ci, pass)
}

// backendColumn records a back-end stage in its graph's report as the
// stage finishes (Manager.AfterStage), queues its dump (graphN.ir_pre_fusion.txt,
// ...; a code generator's spill wrote its own) and lets go of the texts the
// page will not show.
func (d *Dumps) backendColumn(rec *report.Recorder, u *passes.Unit, pr *passes.PassResult, nextNewForm bool) {
	c := backendColumn(rec, u.Name, *pr)
	var sp *spill
	if lp, ok := u.Prog.(*loopProg); ok {
		sp = lp.code[pr.Pass]
	}
	if sp != nil {
		c.Lines = sp.lines
		if pr.Pass == "go" {
			rec.Kernels = sp.kernels
		}
	} else if c.File != "" {
		d.Text(c.File, c.Text)
	}
	rec.Columns = append(rec.Columns, c)
	if n := len(rec.Columns); n > 1 {
		rec.DropIfUnshown(n - 2)
	}
	if nextNewForm { // no column will compare lines with this one
		rec.DropIfUnshown(len(rec.Columns) - 1)
	}
	pr.Text = "" // the column holds it while the page needs it
}

// spill is a code generator's output on its way to its dump file: held in
// memory while the report could still show it (report.MaxColumnLines
// lines), then streamed to the file. Each code generator writes its own
// (they run at once).
type spill struct {
	d       *Dumps
	name    string
	b       bytes.Buffer
	f       *os.File
	w       *bufio.Writer
	lines   int
	kernels []report.Kernel // the go stage's, for the report
}

func (s *spill) Write(p []byte) (int, error) {
	s.lines += bytes.Count(p, []byte("\n"))
	if s.f != nil {
		return s.w.Write(p)
	}
	s.b.Write(p)
	if s.lines <= report.MaxColumnLines {
		return len(p), nil
	}
	if s.d.open() == nil {
		return 0, s.d.failure()
	}
	f, err := os.Create(filepath.Join(s.d.Dir, s.name))
	if err != nil {
		return 0, err
	}
	s.f, s.w = f, bufio.NewWriterSize(f, 1<<16)
	_, err = s.w.Write(s.b.Bytes())
	s.b = bytes.Buffer{}
	return len(p), err
}

func (s *spill) WriteString(text string) (int, error) {
	if s.f != nil { // the common case on a large program: no copy into a []byte
		s.lines += strings.Count(text, "\n")
		return s.w.WriteString(text)
	}
	return s.Write([]byte(text))
}

// close ends the file: the text when it stayed short enough to show (the
// caller records it, and the file is queued), "" once streamed.
func (s *spill) close() (string, error) {
	if s.f == nil {
		text := s.b.String()
		s.d.Text(s.name, text)
		return text, nil
	}
	err := s.w.Flush()
	if cerr := s.f.Close(); err == nil {
		err = cerr
	}
	return "", err
}

// spills are the code generators' files for program name: graphN.go, and
// graphN.cu unless PTX is asked for (clang reads the text).
func (d *Dumps) spills(name string) map[string]*spill {
	out := map[string]*spill{"go": {d: d, name: name + ".go"}}
	if !d.PTX {
		out["cuda"] = &spill{d: d, name: name + ".cu"}
	}
	return out
}
