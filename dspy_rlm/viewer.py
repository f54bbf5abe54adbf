"""A self-contained HTML viewer for execution traces: one file, inline CSS and JS, no network.

``render_html(trace)`` returns the page; ``write_html(trace, path)`` writes it. The page shows the recursion
tree (collapsible), each iteration's reasoning, code, output and errors, and the budget as it was spent
(a per-iteration table with bars for sub-LM calls, tokens, cost and time). Without JavaScript it still shows
a static summary written on the server side: the answer, how the run ended, and each step's code and output
(the script replaces it with the full viewer).

Each page names its writer in ``<meta name="generator">`` (:data:`GENERATOR`, then who asked: ``run``,
``view``, the API); ``dspy-rlm view`` overwrites only pages it wrote itself (:func:`made_by_view`,
:func:`free_view_path`).

Safety: the trace is embedded as JSON inside ``<script type="application/json">`` with ``<``, ``>``, ``&``
and the JS line separators escaped, and the script renders every piece of model text with
``textContent`` (never ``innerHTML``), so model output such as ``<script>`` shows as text and never runs.
"""

from __future__ import annotations

import html
import json
from pathlib import Path
from typing import Any, Protocol, runtime_checkable


@runtime_checkable
class TraceLike(Protocol):
    """What the viewer needs of a trace (``dspy_rlm.trace.TraceNode``): its dict form. The viewer never
    imports the trace module, which imports it for ``TraceNode.to_html``."""

    def to_dict(self) -> dict[str, Any]: ...


#: The ``<meta name="generator">`` of every page; :data:`VIEW_MARK` is the one ``dspy-rlm view`` writes.
GENERATOR = "dspy-rlm trace viewer"
VIEW_MARK = "view"
#: Characters of model text shown per field in the static summary (the full text is in the JSON data).
SUMMARY_CHARS = 600

_JSON_ESCAPES = {"<": "\\u003c", ">": "\\u003e", "&": "\\u0026", "\u2028": "\\u2028", "\u2029": "\\u2029"}

_CSS = """
:root{--fg:#1d2430;--muted:#5b6675;--line:#d8dee6;--bg:#f6f8fa;--ok:#1a7f37;--warn:#9a6700;--err:#cf222e;--acc:#0969da}
*{box-sizing:border-box}body{font:14px/1.45 system-ui,-apple-system,Segoe UI,Roboto,sans-serif;color:var(--fg);
margin:0;padding:18px 22px;background:#fff}h1{font-size:19px;margin:0 0 6px}
.sub{color:var(--muted);margin-bottom:12px}.totals{display:flex;flex-wrap:wrap;gap:8px;margin:10px 0 16px}
.stat{border:1px solid var(--line);border-radius:6px;padding:5px 10px;background:var(--bg)}
.stat b{display:block;font-size:16px}.stat span{color:var(--muted);font-size:12px}
details.node{border:1px solid var(--line);border-left:4px solid var(--acc);border-radius:6px;margin:8px 0;background:#fff}
details.node.kind-llm{border-left-color:#8250df}details.node.kind-fallback{border-left-color:var(--warn)}
details.node.src-error{border-left-color:var(--err)}
details.node>summary{cursor:pointer;padding:7px 10px;list-style-position:inside;background:var(--bg);border-radius:6px}
.node-body{padding:6px 12px 10px 16px}.children{margin-left:14px;border-left:2px dashed var(--line);padding-left:10px}
.badge{display:inline-block;font-size:11px;padding:1px 7px;border-radius:10px;margin-right:5px;background:#e7ecf2;color:var(--fg)}
.badge.submit,.badge.final_direct,.badge.final_var{background:#dafbe1;color:var(--ok)}
.badge.extracted,.badge.forced{background:#fff8c5;color:var(--warn)}.badge.error{background:#ffebe9;color:var(--err)}
.task{font-weight:600}.meta{color:var(--muted);font-size:12px;margin-left:6px}
details.iteration{border-top:1px solid var(--line);padding:4px 0}details.iteration>summary{cursor:pointer;color:var(--fg)}
pre{background:#0d1117;color:#e6edf3;padding:8px 10px;border-radius:6px;overflow:auto;max-height:360px;
white-space:pre-wrap;word-break:break-word;margin:4px 0;font:12.5px/1.4 ui-monospace,SFMono-Regular,Menlo,monospace}
pre.out{background:#f6f8fa;color:var(--fg);border:1px solid var(--line)}pre.err{background:#ffebe9;color:#82071e}
.label{font-size:11px;text-transform:uppercase;letter-spacing:.04em;color:var(--muted);margin-top:6px}
.reasoning{white-space:pre-wrap;margin:2px 0 4px}.warn{color:var(--warn);margin:2px 0}
table.budget{border-collapse:collapse;margin:6px 0 4px;font-size:12.5px}
table.budget th,table.budget td{border:1px solid var(--line);padding:3px 8px;text-align:right}
table.budget th{background:var(--bg)}.bar{display:inline-block;height:8px;background:var(--acc);border-radius:4px;
vertical-align:middle;margin-left:6px;min-width:1px}.bar.tok{background:#8250df}.bar.cost{background:var(--warn)}
.bar.time{background:var(--ok)}.controls button{margin-right:6px}
#summary ol{padding-left:20px}#summary li{margin:6px 0}
"""

_JS = r"""
(function(){
const trace = JSON.parse(document.getElementById('trace-data').textContent);
function el(tag, cls, text){const e=document.createElement(tag); if(cls) e.className=cls;
  if(text!==undefined && text!==null) e.textContent=String(text); return e;}
function fmt(v, d){if(v===null||v===undefined) return '\u2013'; if(typeof v==='number')
  return Number.isInteger(v)? String(v) : v.toFixed(d===undefined?3:d); return String(v);}
function short(s, n){s=String(s||''); return s.length>n? s.slice(0,n)+'\u2026' : s;}
function stat(parent, value, label){const s=el('div','stat'); s.appendChild(el('b',null,value));
  s.appendChild(el('span',null,label)); parent.appendChild(s);}
function countNodes(n){return 1+(n.subcalls||[]).reduce((a,c)=>a+countNodes(c),0);}
function countIters(n){return (n.iterations||[]).length+(n.subcalls||[]).reduce((a,c)=>a+countIters(c),0);}
function maxDepth(n){return Math.max(n.depth||0, ...(n.subcalls||[]).map(maxDepth));}

function budgetTable(node){
  const its=(node.iterations||[]).filter(it=>it.budget&&Object.keys(it.budget).length);
  if(!its.length) return null;
  const wrap=el('div'); wrap.appendChild(el('div','label','Budget as it was spent'));
  const t=el('table','budget'); const head=el('tr');
  ['iter','sub-LM calls used','left','tokens used','cost used','elapsed s','time left','iters left']
    .forEach(h=>head.appendChild(el('th',null,h)));
  t.appendChild(head);
  const last=its[its.length-1].budget.spent||{};
  const maxOf=k=>Math.max(1e-12, ...its.map(it=>((it.budget.spent||{})[k])||0));
  its.forEach(it=>{const b=it.budget, s=b.spent||{}; const tr=el('tr'); tr.className='budget-row';
    const cell=(v,bar,k,d)=>{const td=el('td',null,fmt(v,d)); if(bar){const w=Math.round(60*((s[k]||0)/maxOf(k)));
      const sp=el('span','bar '+bar); sp.style.width=w+'px'; td.appendChild(sp);} return td;};
    tr.appendChild(el('td',null,it.index));
    tr.appendChild(cell(s.llm_calls,'calls','llm_calls'));
    tr.appendChild(el('td',null,fmt(b.llm_calls)));
    tr.appendChild(cell(s.tokens,'tok','tokens'));
    tr.appendChild(cell(s.cost,'cost','cost',4));
    tr.appendChild(cell(s.elapsed_s,'time','elapsed_s',2));
    tr.appendChild(el('td',null,fmt(b.time,1)));
    tr.appendChild(el('td',null,fmt(b.iterations)));
    t.appendChild(tr);});
  wrap.appendChild(t); return wrap;
}

function iteration(it){
  const d=el('details','iteration'); d.dataset.index=it.index;
  const execs=it.code_executions||[]; const failed=execs.some(c=>c.error);
  const s=el('summary'); s.appendChild(el('span','badge'+(failed?' error':''),'iteration '+it.index));
  s.appendChild(el('span','meta',execs.length+' block(s) \u00b7 '+fmt(it.duration_s,2)+' s (LM '+fmt(it.lm_duration_s,2)+' s)'));
  if(it.reasoning) s.appendChild(el('span','meta',short(it.reasoning,90)));
  d.appendChild(s);
  if(it.reasoning){d.appendChild(el('div','label','Reasoning')); d.appendChild(el('div','reasoning',it.reasoning));}
  execs.forEach((c,i)=>{
    d.appendChild(el('div','label','Code'+(execs.length>1?' block '+(i+1):'')+' \u00b7 '+fmt(c.duration_s,3)+' s'));
    d.appendChild(el('pre','code',c.code));
    if(c.stdout){d.appendChild(el('div','label','Output')); d.appendChild(el('pre','out',c.stdout));}
    if(c.error){d.appendChild(el('div','label','Error'));
      const e=c.error; d.appendChild(el('pre','err', typeof e==='string'? e : [e.type,e.message].filter(Boolean).join(': ')
        + (e.line? ' (line '+e.line+')':'') + (e.traceback? '\n'+e.traceback:'')));}
  });
  if(it.output && !execs.some(c=>c.stdout && it.output.indexOf(c.stdout.trim())>=0)){
    d.appendChild(el('div','label','Shown to the model')); d.appendChild(el('pre','out',it.output));}
  return d;
}

function node(n, open){
  const d=el('details','node kind-'+(n.kind||'rlm')+' src-'+(n.answer_source||'none'));
  d.dataset.id=n.id; d.dataset.depth=n.depth; if(open) d.open=true;
  const s=el('summary'); s.appendChild(el('span','badge',(n.kind||'rlm')+' \u00b7 depth '+n.depth));
  if(n.answer_source) s.appendChild(el('span','badge '+n.answer_source,n.answer_source));
  s.appendChild(el('span','task',short(n.task,140)));
  const u=n.usage||{};
  s.appendChild(el('span','meta',fmt(n.duration_s,2)+' s \u00b7 '+(n.iterations||[]).length+' iter \u00b7 '
    +fmt(u.llm_calls)+' sub-LM calls \u00b7 '+fmt((u.prompt_tokens||0)+(u.completion_tokens||0))+' tokens \u00b7 $'+fmt(u.cost||0,4)));
  d.appendChild(s);
  const body=el('div','node-body'); d.appendChild(body);
  (n.warnings||[]).forEach(w=>body.appendChild(el('div','warn','\u26a0 '+w)));
  if(n.task && n.task.length>140){body.appendChild(el('div','label','Task')); body.appendChild(el('pre','out',n.task));}
  if(n.outputs){body.appendChild(el('div','label','Outputs')); body.appendChild(el('pre','out',JSON.stringify(n.outputs,null,2)));}
  const bt=budgetTable(n); if(bt) body.appendChild(bt);
  const subs=n.subcalls||[], placed=new Set();
  const children=(list,label)=>{const ch=el('div','children'); ch.appendChild(el('div','label',label+' ('+list.length+')'));
    list.forEach(c=>{placed.add(c); ch.appendChild(node(c,false));}); return ch;};
  (n.iterations||[]).forEach(it=>{const d=iteration(it); body.appendChild(d);
    const mine=subs.filter(c=>c.parent_iteration===it.index); if(mine.length) d.appendChild(children(mine,'Sub-calls'));});
  const rest=subs.filter(c=>!placed.has(c)); if(rest.length) body.appendChild(children(rest,'Sub-calls'));
  return d;
}

const summary=document.getElementById('summary'); if(summary) summary.remove();
const root=document.getElementById('app');
root.appendChild(el('h1',null,'RLM trace: '+short(trace.task,120)));
root.appendChild(el('div','sub','result: '+(trace.result_kind||'?')+' \u00b7 answer source: '+(trace.answer_source||'?')
  +' \u00b7 started '+new Date((trace.started_at||0)*1000).toISOString()));
const tot=el('div','totals'); const u=trace.usage||{};
stat(tot,countNodes(trace),'nodes'); stat(tot,maxDepth(trace),'max depth'); stat(tot,countIters(trace),'iterations');
stat(tot,fmt(u.llm_calls),'sub-LM calls'); stat(tot,fmt(u.lm_calls_total),'LM calls (all)');
stat(tot,fmt((u.prompt_tokens||0)+(u.completion_tokens||0)),'tokens'); stat(tot,'$'+fmt(u.cost||0,4),'cost');
stat(tot,fmt(trace.duration_s,2)+' s','wall time'); root.appendChild(tot);
const ctl=el('div','controls'); const bo=el('button',null,'Expand all'), bc=el('button',null,'Collapse all');
bo.onclick=()=>document.querySelectorAll('details').forEach(x=>x.open=true);
bc.onclick=()=>document.querySelectorAll('details').forEach(x=>x.open=false);
ctl.appendChild(bo); ctl.appendChild(bc); root.appendChild(ctl);
root.appendChild(node(trace,true));
if(location.hash==='#expand') document.querySelectorAll('details').forEach(x=>x.open=true);
document.body.dataset.rendered='true';
})();
"""


def _as_dict(trace: TraceLike | dict[str, Any] | str | Path) -> dict[str, Any]:
    if isinstance(trace, TraceLike):
        return trace.to_dict()
    if isinstance(trace, dict):
        return trace
    if isinstance(trace, (str, Path)):
        text = str(trace)
        if not text.lstrip().startswith("{"):
            text = Path(trace).read_text(encoding="utf-8")
        return json.loads(text)
    raise TypeError(
        f"render_html takes a TraceNode, its dict, its JSON text or a JSON file path, not {type(trace).__name__}"
    )


def embed_json(data: Any) -> str:
    """JSON safe to place inside a ``<script>`` element (no ``</script>``, no HTML comment openers)."""
    text = json.dumps(data, default=repr, ensure_ascii=False)
    for char, escape in _JSON_ESCAPES.items():
        text = text.replace(char, escape)
    return text


def _short(value: Any, limit: int = SUMMARY_CHARS) -> str:
    text = value if isinstance(value, str) else json.dumps(value, default=repr, ensure_ascii=False)
    return text if len(text) <= limit else text[:limit] + "\u2026"


def static_summary(data: dict[str, Any]) -> str:
    """The root run as plain HTML, readable without JavaScript: the answer, how it ended, and its steps
    (reasoning, code, output); every piece of model text escaped."""
    esc = html.escape
    outputs = data.get("outputs") or {}
    answer = "".join(
        f'<dt>{esc(str(k))}</dt><dd><pre class="out">{esc(_short(v))}</pre></dd>' for k, v in outputs.items()
    )
    usage = data.get("usage") or {}
    steps = []
    for it in data.get("iterations") or []:
        parts = [f"<b>step {esc(str(it.get('index', '?')))}</b> ({float(it.get('duration_s') or 0):.2f} s)"]
        if it.get("reasoning"):
            parts.append(f'<div class="reasoning">{esc(_short(it["reasoning"]))}</div>')
        for ex in it.get("code_executions") or []:
            parts.append(f"<pre>{esc(_short(ex.get('code', '')))}</pre>")
            if ex.get("stdout"):
                parts.append(f'<pre class="out">{esc(_short(ex["stdout"]))}</pre>')
            if ex.get("error"):
                parts.append(f'<pre class="err">{esc(_short(ex["error"]))}</pre>')
        if it.get("output") and not it.get("code_executions"):
            parts.append(f'<pre class="out">{esc(_short(it["output"]))}</pre>')
        steps.append("<li>" + "".join(parts) + "</li>")
    ending = f"result: {data.get('result_kind') or '?'} \u00b7 answer source: {data.get('answer_source') or '?'}"
    warnings = "".join(f'<div class="warn">{esc(_short(w, 300))}</div>' for w in data.get("warnings") or [])
    return (
        '<section id="summary">\n'
        f"<h1>RLM trace: {esc(_short(str(data.get('task', '')), 120))}</h1>\n"
        f'<div class="sub">{esc(ending)} \u00b7 {len(data.get("iterations") or [])} steps \u00b7 '
        f"{esc(str(usage.get('lm_calls_total', '?')))} LM calls \u00b7 {float(data.get('duration_s') or 0):.1f} s</div>\n"
        f'<div class="label">Answer</div><dl>{answer or "<dd>(none)</dd>"}</dl>\n{warnings}'
        f'<div class="label">Steps</div><ol>{"".join(steps)}</ol>\n'
        '<p class="sub">A static summary; with JavaScript the page shows the whole recursion tree and budget.</p>\n'
        "</section>\n"
    )


def render_html(trace: TraceLike | dict[str, Any] | str | Path, title: str | None = None, made_by: str = "api") -> str:
    """The trace as one self-contained HTML page (inline CSS and JS, no network).

    Args:
        trace: A :class:`TraceNode` (``pred.trace``), its ``to_dict()``, its JSON text or a JSON file path.
        title: The page title (default: the root task).
        made_by: Who wrote the page (``run``, ``view``, ``api``), in its ``<meta name="generator">``.

    Returns:
        The HTML text.
    """
    data = _as_dict(trace)
    title = title or f"RLM trace: {str(data.get('task', ''))[:80]}"
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">\n'
        f'<meta name="generator" content="{GENERATOR}; {html.escape(made_by)}">\n'
        '<meta http-equiv="Content-Security-Policy" content="default-src \'none\'; '
        "style-src 'unsafe-inline'; script-src 'unsafe-inline'\">\n"
        f'<meta name="viewport" content="width=device-width, initial-scale=1">\n<title>{html.escape(title)}</title>\n'
        f'<style>{_CSS}</style></head>\n<body>\n{static_summary(data)}<div id="app"></div>\n'
        f'<script type="application/json" id="trace-data">{embed_json(data)}</script>\n'
        f"<script>{_JS}</script>\n</body></html>\n"
    )


def write_html(
    trace: TraceLike | dict[str, Any] | str | Path, path: str | Path, title: str | None = None, made_by: str = "api"
) -> Path:
    """Write :func:`render_html` to ``path`` (UTF-8) and return the path."""
    out = Path(path)
    out.write_text(render_html(trace, title, made_by), encoding="utf-8")
    return out


def made_by_view(path: str | Path) -> bool:
    """Whether ``path`` is a page ``dspy-rlm view`` wrote (its generator mark in the first 1,000 bytes)."""
    try:
        with open(path, "rb") as f:
            head = f.read(1000)
    except OSError:
        return False
    return f'<meta name="generator" content="{GENERATOR}; {VIEW_MARK}">'.encode() in head


def free_view_path(path: Path) -> Path:
    """``path`` if it is free or a page ``view`` wrote, else ``NAME.view.html``, ``NAME.view-2.html`` ... (the
    first free one): ``view`` never overwrites a page ``run --html`` or anyone else wrote."""
    candidates = [path, path.with_suffix(".view.html")]
    candidates += [path.with_suffix(f".view-{n}.html") for n in range(2, 1000)]
    for candidate in candidates:
        if not candidate.exists() or made_by_view(candidate):
            return candidate
    raise FileExistsError(f"no free name for the viewer next to {path}; give --out")
