package report_test

import (
	"context"
	"encoding/json"
	"html"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/kiln-compiler/kiln/codegen/dot"
	"github.com/kiln-compiler/kiln/driver"
	"github.com/kiln-compiler/kiln/internal/graphgen"
	"github.com/kiln-compiler/kiln/internal/tooltest"
)

// chromium runs headless Chromium on url with extra flags, at a laptop's
// window size, and returns its stdout.
func chromium(t *testing.T, url string, extra ...string) string {
	bin := tooltest.Need(t, "chromium")
	args := append([]string{"--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
		"--disable-component-update", "--disable-sync", "--no-first-run", "--user-data-dir=" + t.TempDir(),
		"--window-size=1366,768", "--virtual-time-budget=5000"}, extra...)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	out, err := exec.CommandContext(ctx, bin, append(args, url)...).Output()
	require.NoError(t, err)
	return string(out)
}

// compiledReport writes the report of a two-layer transformer stack, as
// `kiln compile` does, into dir and returns its path.
func compiledReport(t *testing.T, dir, probe string) string {
	src := graphgen.Blocks(graphgen.Config{Nodes: 120})
	run, err := driver.Compile(driver.Input{Name: "gen.fx", Src: []byte(src)},
		driver.Options{Pipeline: driver.CompilePipeline, Record: true})
	require.NoError(t, err)
	require.False(t, run.Diags.HasErrors())
	progs, err := driver.Backend(run, driver.BackendOptions{Go: true})
	require.NoError(t, err)
	rec := run.Stages[0]
	progs[0].AddToReport(rec)
	var page strings.Builder
	require.NoError(t, rec.Write(&page, run.Diags.Items))
	text := strings.Replace(page.String(), "</body>", "<script>"+probe+"</script></body>", 1)
	path := filepath.Join(dir, "report0.html")
	require.NoError(t, os.WriteFile(path, []byte(text), 0o644))
	return path
}

// probe acts on the page as a user would (click a value, search, follow a
// diagnostic and a kernel link) and records what the page showed in
// body[data-result], which --dump-dom prints.
const probe = `
(function(){
var r={},W=innerWidth,H=innerHeight;
try{
function vis(el){var b=el.getBoundingClientRect();return b.width>0&&b.height>0&&b.right>0&&b.bottom>0&&b.left<W&&b.top<H}
r.pageScrollsX=document.documentElement.scrollWidth>W+1;
r.mainFits=document.getElementById('cols').getBoundingClientRect().bottom<=H+1;
r.visibleCols=[].filter.call(document.querySelectorAll('section.col:not(.folded)'),vis).length;
r.folded=document.querySelectorAll('section.col.folded').length;
var v=[].find.call(document.querySelectorAll('#c0 i'),function(x){return x.textContent==='mm_L0'});
v.click();
var hl=document.querySelectorAll('i.hl'),cols={};
hl.forEach(function(x){cols[x.closest('section').id]=1});
r.highlighted=hl.length;r.highlightCols=Object.keys(cols).length;r.clickedVisible=vis(v);
var q=document.getElementById('q');q.value='addmm';q.dispatchEvent(new Event('input'));
q.dispatchEvent(new KeyboardEvent('keydown',{key:'Enter'}));
r.searchHits=document.querySelectorAll('.code div.f').length;r.searchCurVisible=vis(document.querySelector('.code div.f.cur'));
r.searchCount=document.getElementById('qn').textContent;
var d=document.querySelector('header li a');r.diagHref=d.getAttribute('href');
location.hash=r.diagHref;dispatchEvent(new HashChangeEvent('hashchange'));
r.diagTargetVisible=vis(document.getElementById(r.diagHref.slice(1)));
var k=document.querySelector('a.k');r.kernelLink=k.getAttribute('href');
location.hash=r.kernelLink;dispatchEvent(new HashChangeEvent('hashchange'));
var det=document.getElementById(r.kernelLink.slice(1));r.kernelOpen=det.open;r.kernelVisible=vis(det);
r.kernelHasCode=det.textContent.indexOf('func ')>=0&&det.textContent.indexOf('loop IR')>=0;
var back=det.querySelector('summary a');r.backLink=back.getAttribute('href');
location.hash=r.backLink;dispatchEvent(new HashChangeEvent('hashchange'));
r.backVisible=vis(document.getElementById(r.backLink.slice(1)));
}catch(e){r.error=String(e)+' '+e.stack}
document.body.setAttribute('data-result',JSON.stringify(r));
})();
`

var resultRE = regexp.MustCompile(`data-result="([^"]*)"`)

// The report in headless Chromium: it fits a laptop screen, a click on a
// value highlights it in every column, search finds and scrolls to lines,
// and diagnostic and kernel links land on visible lines both ways.
func TestReportInChromium(t *testing.T) {
	tooltest.Need(t, "chromium")
	path := compiledReport(t, t.TempDir(), probe)
	dom := chromium(t, "file://"+path, "--dump-dom")
	m := resultRE.FindStringSubmatch(dom)
	require.NotNil(t, m, "the probe did not finish: %.2000s", dom)
	var r struct {
		PageScrollsX, MainFits                       bool
		VisibleCols, Folded                          int
		Highlighted, HighlightCols                   int
		ClickedVisible                               bool
		SearchHits                                   int
		SearchCurVisible                             bool
		SearchCount, DiagHref, KernelLink, BackLink  string
		DiagTargetVisible, KernelOpen, KernelVisible bool
		KernelHasCode, BackVisible                   bool
		Error                                        string
	}
	require.NoError(t, json.Unmarshal([]byte(html.UnescapeString(m[1])), &r))
	t.Logf("%+v", r)
	require.Empty(t, r.Error, "the probe failed")
	require.False(t, r.PageScrollsX, "the page itself never scrolls sideways; the columns do")
	require.True(t, r.MainFits, "the columns end inside the window")
	require.GreaterOrEqual(t, r.VisibleCols, 3, "several columns side by side on 1366x768")
	require.GreaterOrEqual(t, r.Folded, 1, "unchanged passes fold")
	require.True(t, r.ClickedVisible)
	require.GreaterOrEqual(t, r.HighlightCols, 4, "a clicked value lights up in every column that has it")
	require.Greater(t, r.Highlighted, r.HighlightCols)
	require.Greater(t, r.SearchHits, 0)
	require.True(t, r.SearchCurVisible, "Enter scrolls to the match")
	require.Contains(t, r.SearchCount, "1 of ")
	require.True(t, r.DiagTargetVisible, "a diagnostic's link lands on its node's line (%s)", r.DiagHref)
	require.True(t, r.KernelOpen && r.KernelVisible && r.KernelHasCode, "node -> kernel opens the kernel with its loop IR and code")
	require.True(t, r.BackVisible, "kernel -> node lands on the node's line (%s)", r.BackLink)
}

// A click on a value shows in a screenshot: the highlight colour covers
// pixels of several columns.
func TestReportScreenshotShowsHighlight(t *testing.T) {
	tooltest.Need(t, "chromium")
	dir := t.TempDir()
	click := `[].find.call(document.querySelectorAll('#c0 i'),function(x){return x.textContent==='x'}).click();`
	path := compiledReport(t, dir, click)
	shot := filepath.Join(dir, "shot.png")
	chromium(t, "file://"+path, "--screenshot="+shot)
	lit, cols := highlightPixels(t, shot)
	require.Greater(t, lit, 50, "highlighted pixels (#ffe066) on screen")
	require.GreaterOrEqual(t, cols, 3, "in at least three places across the width")
}

// highlightPixels counts pixels of the highlight colour and in how many
// 200-pixel-wide bands of the screen they appear.
func highlightPixels(t *testing.T, path string) (int, int) {
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	img, err := png.Decode(f)
	require.NoError(t, err)
	n, bands := 0, map[int]bool{}
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			r, g, bl, _ := img.At(x, y).RGBA()
			if r>>8 == 0xff && g>>8 == 0xe0 && bl>>8 == 0x66 {
				n++
				bands[x/200] = true
			}
		}
	}
	return n, len(bands)
}

// graph.svg of a few-hundred-node graph opens on the drawing, not on the
// empty corner of a wide layout.
func TestSVGOpensOnContent(t *testing.T) {
	tooltest.Need(t, "chromium")
	src := graphgen.Blocks(graphgen.Config{Nodes: 300})
	run, err := driver.Compile(driver.Input{Name: "gen.fx", Src: []byte(src)}, driver.Options{Pipeline: driver.CompilePipeline})
	require.NoError(t, err)
	g := run.Module.Graphs[0]
	require.Greater(t, len(g.Nodes), 300)
	svg, note, err := dot.Drawing(context.Background(), g, dot.Options{}, "graph.dot")
	require.NoError(t, err)
	require.Empty(t, note, "the whole graph is drawn")
	dir := t.TempDir()
	path := filepath.Join(dir, "graph.svg")
	require.NoError(t, os.WriteFile(path, svg, 0o644))
	shot := filepath.Join(dir, "shot.png")
	chromium(t, "file://"+path, "--screenshot="+shot)
	f, err := os.Open(shot)
	require.NoError(t, err)
	defer f.Close()
	img, err := png.Decode(f)
	require.NoError(t, err)
	dark := 0
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			r, g, bl, _ := img.At(x, y).RGBA()
			if r>>8 < 200 && g>>8 < 200 && bl>>8 < 200 {
				dark++
			}
		}
	}
	require.Greater(t, dark, 500, "the first screen shows boxes and text, not blank space")
}
