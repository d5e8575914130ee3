"""The jinja2 templates of the HTML report (autoescaped; no scripts, no external fonts or
stylesheets: the pages work offline)."""

BASE = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<link rel="icon" href="data:,">
<title>{% block title %}{% endblock %} - pathlogic</title>
<style>
body { font-family: sans-serif; margin: 1.5em; color: #222; }
table { border-collapse: collapse; margin: .5em 0 1.5em; }
th, td { border: 1px solid #ccc; padding: .2em .6em; text-align: left; font-size: 90%; }
th { background: #f0f0f0; }
td.num { text-align: right; }
tr.failed td, .failure { color: #a00000; }
.disagree { background: #ffb3b3; font-weight: bold; }
.weaker { background: #fff0c0; }
.note { color: #666; font-style: italic; }
.graph { overflow: auto; border: 1px solid #ddd; padding: .5em; margin-bottom: 1.5em; }
pre { background: #f7f7f7; padding: .6em; overflow: auto; font-size: 85%; }
code { background: #f4f4f4; }
nav a { margin-right: 1em; }
td.code { font-family: monospace; white-space: pre; }
tr.removed td.code { background: #ffd6d6; text-decoration: line-through; }
tr.inserted td.code { background: #d6f5d6; }
tr.moved td.code { background: #d6e6ff; }
.side { display: inline-block; vertical-align: top; margin-right: 2em; }
</style></head>
<body>
<nav><a href="{{ root }}index.html">index</a></nav>
{% block body %}{% endblock %}
</body></html>
"""

INDEX = """{% extends "base.html" %}
{% block title %}{{ summary.input }}{% endblock %}
{% block body %}
<h1>pathlogic analyze: {{ summary.input }}</h1>
<p>{{ summary.files }} files ({{ summary.files_analyzed }} analyzed), {{ functions|length }} functions;
engine {{ summary.engine }}; {{ summary.seconds.total if summary.seconds else "?" }} s{% if summary.if_conversion %}; if-converted first{% endif %}.</p>

<h2>Failures</h2>
{% if failures %}<ul>{% for f in failures %}<li class="failure">{{ f }}</li>{% endfor %}</ul>
{% else %}<p>None: every file was read and every function analyzed.</p>{% endif %}
{% if summary.problems %}<h3>Notes from loading</h3><ul>{% for p in summary.problems %}<li>{{ p }}</li>{% endfor %}</ul>{% endif %}

<h2>Functions</h2>
{% for file, rows in by_file %}
<h3>{{ file }}</h3>
<table><tr><th>function</th><th>blocks</th><th>edges</th><th>unreachable</th><th>loops</th>
<th>irreducible</th><th>cdep</th><th>analyses</th><th>error</th></tr>
{% for f in rows %}<tr{% if f.stats.error %} class="failed"{% endif %}>
<td><a href="{{ f.page }}">{{ f.name }}</a></td><td class="num">{{ f.stats.blocks }}</td>
<td class="num">{{ f.stats.edges }}</td><td class="num">{{ f.stats.unreachable }}</td>
<td class="num">{{ f.stats.loops }}</td><td>{{ "yes" if f.stats.irreducible else "" }}</td>
<td class="num">{{ f.stats.cdep }}</td><td>{{ f.stats.analyses }}</td><td>{{ f.stats.error or "" }}</td></tr>
{% endfor %}</table>
{% endfor %}

{% if summary.predicates %}
<h2>Predicates: BDD (PAS) vs PPG</h2>
<table><tr><th>function</th><th>defines</th><th>predicates</th><th>BDD nodes</th><th>pairs</th>
<th>disjoint BDD</th><th>disjoint PPG</th><th>implied BDD</th><th>implied PPG</th><th>covers BDD</th><th>covers PPG</th></tr>
{% for p in summary.predicates %}<tr><td>{% if p.function in pages %}<a href="{{ pages[p.function] }}">{{ p.function }}</a>{% else %}{{ p.function }}{% endif %}</td>
{% for k in ["defines", "predicates", "bdd_nodes", "pairs", "disjoint_bdd", "disjoint_ppg", "implied_bdd", "implied_ppg", "covers_bdd", "covers_ppg"] %}<td class="num">{{ p[k] if p[k] is not none else "" }}</td>{% endfor %}</tr>
{% endfor %}</table>
{% endif %}

{% if summary.pre %}
<h2>PRE statistics (PathFinder Table 6.1)</h2>
<table><tr><th>function</th><th>computations</th><th>loads</th><th>redundant</th><th>strictly partial</th>
<th>prevented (CMP)</th><th>loop invariant</th><th>invariant prevented</th></tr>
{% for p in summary.pre.functions %}<tr><td>{% if p.function in pages %}<a href="{{ pages[p.function] }}">{{ p.function }}</a>{% else %}{{ p.function }}{% endif %}</td>
{% for k in ["computations", "loads", "redundant", "strictly_partial", "prevented", "loop_invariant", "invariant_prevented"] %}<td class="num">{{ p[k] }}</td>{% endfor %}</tr>
{% endfor %}<tr><td>total</td>{% for k in ["computations", "loads", "redundant", "strictly_partial", "prevented", "loop_invariant", "invariant_prevented"] %}<td class="num">{{ summary.pre.totals[k] }}</td>{% endfor %}</tr></table>
<table><tr><th>Table 6.1</th><th>ours (%)</th><th>thesis, SPEC95 avg (%)</th></tr>
{% for k, v in summary.pre.percent.items() %}<tr><td>{{ k|replace("_", " ") }}</td><td class="num">{{ v if v is not none else "-" }}</td><td class="num">{{ summary.pre.thesis[k] }}</td></tr>{% endfor %}
</table>
{% endif %}

<h2>Relations</h2>
<table><tr><th>relation</th><th>rows</th></tr>
{% for rel, n in (summary.relations or {}).items() %}<tr><td>{{ rel }}</td><td class="num">{{ n }}</td></tr>{% endfor %}
</table>
{% endblock %}
"""

FUNCTION = """{% extends "base.html" %}
{% block title %}{{ f.name }}{% endblock %}
{% block body %}
<h1>{{ f.name }} <small>in {{ f.file }}</small></h1>
<p>{{ f.blocks|length }} blocks, {{ f.edges|length }} edges{% if f.stats.error %};
<span class="failure">error: {{ f.stats.error }}</span>{% endif %}.
Analyses: {{ f.stats.analyses }}.</p>

<h2>Control-flow graph</h2>
<p class="note">Bold: entry; double border: exits; shaded: loop blocks (darker = deeper), thick
border: loop headers; red: back edges; grey dashed: unreachable. Edge labels: the decision that
takes the edge, <code>true</code> or <code>false</code> (dashed) out of a <code>cbr</code> with the
comparison that set its condition (a C <code>switch</code> shows its case values on the compares
LLVM lowers it to), and the guard of a guarded branch. Hover over a block for its code.</p>
{{ graph(cfg) }}
{% if f.code %}<details><summary>Code of the {{ f.blocks|length }} blocks</summary>
{% for b in f.blocks %}<pre id="block-{{ loop.index }}">{{ b }}:
{% for line in f.code.get(b, []) %}    {{ line }}
{% endfor %}</pre>{% endfor %}</details>{% endif %}

<h2>Dominator tree</h2>{{ graph(domtree) }}
<h2>Post-dominator tree</h2>{{ graph(pdomtree) }}

{% for t in tables %}
<h2>{{ t.title }}</h2>
{% if t.rows %}<table><tr>{% for c in t.columns %}<th>{{ c }}</th>{% endfor %}<th>why</th></tr>
{% for r in t.rows %}<tr>{% for v in r.cells %}<td>{{ v }}</td>{% endfor %}
<td>{% if r.link %}<a href="{{ r.link }}">explain</a>{% else %}<code>{{ r.command }}</code>{% endif %}</td></tr>
{% endfor %}</table>
{% else %}<p class="note">none</p>{% endif %}
{% endfor %}
{% if f.explain_note %}<p class="note">{{ f.explain_note }}</p>{% endif %}

<h2>Predicate relations: BDD / SAT / PPG</h2>
{% if f.matrix %}
<p class="note">Red: SAT or the PPG claims what the BDD refutes (a disagreement); yellow: the PPG
proves less than the BDD (it is less precise, not wrong).</p>
<table><tr><th>a</th><th>b</th><th>BDD</th><th>SAT</th><th>PPG</th></tr>
{% for m in matrix %}<tr><td>{{ m.a }}</td><td>{{ m.b }}</td><td>{{ m.bdd }}</td>
<td class="{{ m.sat_class }}">{{ m.sat }}</td><td class="{{ m.ppg_class }}">{{ m.ppg }}</td></tr>
{% endfor %}</table>
{% elif f.matrix_note %}<p class="note">{{ f.matrix_note }}</p>
{% else %}<p class="note">no predicate defines</p>{% endif %}
{% endblock %}
"""

EXPLAIN = """{% extends "base.html" %}
{% block title %}why: {{ f.name }}{% endblock %}
{% block body %}
<h1>Derivations in {{ f.name }} <small>in {{ f.file }}</small></h1>
<p><a href="{{ back }}">back to the function</a>. Each tree is one rule instance per line, down to
input facts (rebuilt from the engine's rows, as <code>pathlogic explain</code> prints it); the
steps inside a library rule set of <code>datalog/lib/</code> are one line naming it
(<code>pathlogic explain --expand</code> shows them).</p>
{% if parts|length > 1 %}<p>Part {{ part }} of {{ parts|length }}:{% for p in parts %}
<a href="{{ p }}">{{ loop.index }}</a>{% endfor %}</p>{% endif %}
{% for e in entries %}
<h3 id="{{ e.anchor }}">{{ e.atom }}</h3>
<pre>{{ e.text }}</pre>
{% endfor %}
{% endblock %}
"""

OPT_INDEX = """{% extends "base.html" %}
{% block title %}optimize {{ passes|join(",") }}{% endblock %}
{% block body %}
<h1>pathlogic optimize --passes {{ passes|join(",") }}</h1>
<table><tr><th>program</th><th>pass</th><th>size</th><th>after</th><th>removed</th><th>inserted</th>
<th>moved</th><th>check</th></tr>
{% for p in programs %}{% if p.error %}<tr class="failed"><td>{{ p.relpath }}</td><td colspan="7">{{ p.error }}</td></tr>
{% else %}{% for v in p.views %}<tr><td><a href="{{ p.page }}">{{ p.relpath }}</a></td><td>{{ v.name }}</td>
<td class="num">{{ v.totals.size_before }}</td><td class="num">{{ v.totals.size_after }}</td>
<td class="num">{{ v.totals.removed }}</td><td class="num">{{ v.totals.added }}</td>
<td class="num">{{ v.totals.moved }}</td><td>{{ p.verdict }}</td></tr>{% endfor %}{% endif %}
{% endfor %}</table>
{% endblock %}
"""

OPT_PROGRAM = """{% extends "base.html" %}
{% block title %}{{ p.relpath }}{% endblock %}
{% block body %}
<h1>{{ p.relpath }}: {{ passes|join(",") }}</h1>
{% if p.cases %}<h2>Behaviour: {{ p.verdict }}</h2>
<table><tr><th>run</th><th>verdict</th>{% for k in columns %}<th>{{ k }}</th>{% endfor %}<th>detail</th></tr>
{% for c in p.cases %}<tr><td>args={{ c.args }} input={{ c.inputs }}</td><td>{{ c.verdict }}</td>
{% for k in columns %}<td class="num">{% if c.before %}{{ c.before[k] }} &rarr; {{ c.after[k] }}{% endif %}</td>{% endfor %}
<td>{{ c.detail }}</td></tr>{% endfor %}</table>{% endif %}
<p class="note">Red, struck through: removed; green: inserted; blue: moved to another block.</p>
{% for v in p.views %}
<h2>Pass {{ loop.index }}: {{ v.name }} <small>({{ v.totals.size_before }} &rarr; {{ v.totals.size_after }}
instructions; {{ v.totals.removed }} removed, {{ v.totals.added }} inserted, {{ v.totals.moved }} moved)</small></h2>
{% for f in v.functions %}
<h3>{{ f.name }}</h3>
{% for side in ["before", "after"] %}<div class="side"><table><tr><th colspan="2">{{ side }}</th></tr>
{% for block, text, mark in f[side] %}<tr class="{{ mark }}"><td>{{ block }}</td><td class="code">{{ text }}</td></tr>
{% endfor %}</table></div>{% endfor %}
{% else %}<p class="note">no function changed</p>
{% endfor %}
{% endfor %}
{% endblock %}
"""

TEMPLATES = {"base.html": BASE, "index.html": INDEX, "function.html": FUNCTION,
             "explain.html": EXPLAIN, "optimize.html": OPT_INDEX,
             "optimize_program.html": OPT_PROGRAM}
