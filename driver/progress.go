package driver

import (
	"fmt"
	"io"
	"os"
	"sync"
	"time"
)

// ProgressDelay is how long work runs before Progress says anything:
// quick runs stay quiet.
const ProgressDelay = 2 * time.Second

// Progress reports long work on stderr: the stage, its count, the elapsed
// time. On a terminal it rewrites one line about twice a second; when
// forced on another writer (a log) it writes a line per stage. Nothing is
// written before Delay has passed, and a nil *Progress does nothing.
type Progress struct {
	w        io.Writer
	terminal bool
	delay    time.Duration
	start    time.Time

	mu      sync.Mutex
	stage   string
	printed bool // a line was written
	last    string
	stop    chan struct{}
	done    sync.WaitGroup
}

// NewProgress returns a reporter for mode "auto" (only when w is a
// terminal), "on" or "off"; nil when it would never print.
func NewProgress(w io.Writer, mode string) (*Progress, error) {
	term := isTerminal(w)
	switch mode {
	case "off":
		return nil, nil
	case "auto", "":
		if !term {
			return nil, nil
		}
	case "on":
	default:
		return nil, fmt.Errorf("-progress=%q: want auto, on or off", mode)
	}
	p := &Progress{w: w, terminal: term, delay: ProgressDelay, start: time.Now(), stop: make(chan struct{})}
	p.done.Add(1)
	go p.tick()
	return p, nil
}

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// Stage names the work now running, with a count ("lower", 15553, "nodes").
func (p *Progress) Stage(name string, count int, unit string) {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.stage = name
	if count > 0 {
		p.stage = fmt.Sprintf("%s (%d %s)", name, count, unit)
	}
	if !p.terminal {
		p.printLocked()
	}
}

func (p *Progress) tick() {
	defer p.done.Done()
	t := time.NewTicker(500 * time.Millisecond)
	defer t.Stop()
	for {
		select {
		case <-p.stop:
			return
		case <-t.C:
			if p.terminal {
				p.mu.Lock()
				p.printLocked()
				p.mu.Unlock()
			}
		}
	}
}

// printLocked writes the current stage once Delay has passed: over the
// last line on a terminal, as a new line (once per stage) elsewhere.
func (p *Progress) printLocked() {
	elapsed := time.Since(p.start)
	if elapsed < p.delay || p.stage == "" {
		return
	}
	if p.terminal {
		fmt.Fprintf(p.w, "\r\033[Kkiln: %5.1fs  %s", elapsed.Seconds(), p.stage)
	} else if p.stage != p.last {
		fmt.Fprintf(p.w, "kiln: %5.1fs  %s\n", elapsed.Seconds(), p.stage)
	}
	p.last = p.stage
	p.printed = true
}

// Done stops the reporter; after a long run it ends with the total time.
func (p *Progress) Done() {
	if p == nil {
		return
	}
	close(p.stop)
	p.done.Wait()
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.printed {
		return
	}
	if p.terminal {
		fmt.Fprint(p.w, "\r\033[K")
	}
	fmt.Fprintf(p.w, "kiln: %5.1fs  done\n", time.Since(p.start).Seconds())
}
