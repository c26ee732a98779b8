package report

// style lays the page out for a laptop screen: the header on top, the
// columns side by side below it, each as tall as the window and scrolling
// on its own; folded columns are a narrow strip with a vertical title.
const style = `*{box-sizing:border-box}
html,body{height:100%;margin:0}
body{font-family:sans-serif;display:flex;flex-direction:column}
header{flex:0 0 auto;padding:4px 8px;border-bottom:1px solid #ccc;max-height:30vh;overflow:auto}
h1{font-size:1.1em;display:inline;margin:0 1em 0 0}
#q{width:22em}#qn,.help,.note{color:#777;font-size:.8em}
ul{margin:.3em 0;padding-left:1.2em;font-size:.85em}
li.error{color:#b00}li.warning{color:#a60}.hint{color:#555}.pass{color:#555}
main{flex:1 1 auto;display:flex;overflow-x:auto;overflow-y:hidden;min-height:0}
.col{flex:0 0 auto;max-width:62ch;min-width:12ch;height:100%;overflow:auto;border-right:1px solid #ccc;padding:0 4px}
.col h2{font-size:.9em;margin:0;padding:2px 0;position:sticky;top:0;background:#eef;cursor:pointer;z-index:1}
.col.folded{max-width:2.2em;min-width:2.2em;background:#f4f4f4;overflow:hidden}
.col.folded h2{writing-mode:vertical-rl;background:none}
.col.folded>:not(h2){display:none}
.kernels{max-width:80ch}
.code{font-family:monospace;font-size:11px;white-space:pre;width:max-content}
.code div.n{background:#e6f4ea}
.code div.f{background:#fff3b0}
.code div.f.cur{outline:2px solid #f29900}
.code div:target,details:target>summary{background:#ffd7d7}
i{font-style:normal;cursor:pointer}
i:hover{text-decoration:underline}
i.hl{background:#ffe066;outline:1px solid #e0a800}
a.k{color:#9334e6;font-size:10px}
details summary{cursor:pointer;white-space:normal}
pre{margin:0 0 .4em 1em;font-size:11px}
h3{font-size:.8em;margin:.3em 0 0 1em;color:#555}`

// script: fold on title click; click a name to highlight it everywhere;
// search lines; open a kernel navigated to.
const script = `
(function(){
var cols=document.getElementById('cols');
cols.addEventListener('click',function(e){
  var t=e.target;
  if(t.tagName==='H2'&&t.parentElement.classList.contains('col')){t.parentElement.classList.toggle('folded');return}
  if(t.tagName!=='I')return;
  var v=t.textContent,on=!t.classList.contains('hl');
  document.querySelectorAll('i.hl').forEach(function(x){x.classList.remove('hl')});
  if(!on)return;
  document.querySelectorAll('main i').forEach(function(x){if(x.textContent===v)x.classList.add('hl')});
});
var q=document.getElementById('q'),qn=document.getElementById('qn'),hits=[],cur=-1;
function search(){
  hits.forEach(function(x){x.classList.remove('f','cur')});hits=[];cur=-1;
  var s=q.value;
  if(s){document.querySelectorAll('.col:not(.folded) .code>div').forEach(function(x){if(x.textContent.indexOf(s)>=0){x.classList.add('f');hits.push(x)}})}
  qn.textContent=s?hits.length+' line(s)':'';
}
function next(){
  if(!hits.length)return;
  if(cur>=0)hits[cur].classList.remove('cur');
  cur=(cur+1)%hits.length;hits[cur].classList.add('cur');
  hits[cur].scrollIntoView({block:'center',inline:'nearest'});
  qn.textContent=(cur+1)+' of '+hits.length+' line(s)';
}
q.addEventListener('input',search);
q.addEventListener('keydown',function(e){if(e.key==='Enter')next()});
function reveal(){
  var id=decodeURIComponent(location.hash.slice(1)),t=id&&document.getElementById(id);
  if(!t)return;
  if(t.tagName==='DETAILS')t.open=true;
  var c=t.closest('.col');if(c)c.classList.remove('folded');
  t.scrollIntoView({block:'center',inline:'nearest'});
}
window.addEventListener('hashchange',reveal);reveal();
})();
`
