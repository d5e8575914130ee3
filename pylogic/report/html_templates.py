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
svg.chart { background: #fcfcfc; border: 1px solid #e4e4e4; }
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
<div class="side"><table><tr><th>run</th><th>verdict</th>{% for k in columns %}<th>{{ k|replace("_", " ") }}</th>{% endfor %}<th>detail</th></tr>
{% for c in p.cases %}<tr><td>args={{ c.args }} input={{ c.inputs }}</td><td>{{ c.verdict }}</td>
{% for k in columns %}<td class="num">{% if c.before %}{{ c.before[k] }} &rarr; {{ c.after[k] }}{% endif %}</td>{% endfor %}
<td>{{ c.detail }}</td></tr>{% endfor %}</table></div>
{% for c in p.cases if c.chart %}<div class="side">{{ c.chart }}</div>{% endfor %}{% endif %}
<p class="note">Red, struck through: removed; green: inserted; blue: moved to another block.
{% if p.cases %}Charts: the dynamic counts each pass targets on the run above, before and after
the pass.{% else %}Run with <code>--validate</code> for the dynamic counts of each pass.{% endif %}
CFGs: the functions a pass changed, before and after it (edge labels: the decision taking the
edge; red: loop edges; hover over a block for its code).</p>
{% for v in p.views %}
<h2>Pass {{ loop.index }}: {{ v.name }} <small>({{ v.totals.size_before }} &rarr; {{ v.totals.size_after }}
instructions; {{ v.totals.removed }} removed, {{ v.totals.added }} inserted, {{ v.totals.moved }} moved)</small></h2>
{% for f in v.functions %}
<h3>{{ f.name }}</h3>
{% if loop.first %}{% for ch in v.charts %}<div class="side chartbox">{{ ch }}</div>{% endfor %}{% endif %}
{% for side in ["before", "after"] %}<div class="side"><table><tr><th colspan="2">{{ side }}</th></tr>
{% for block, text, mark in f[side] %}<tr class="{{ mark }}"><td>{{ block }}</td><td class="code">{{ text }}</td></tr>
{% endfor %}</table></div>{% endfor %}
{% set g = v.cfgs[loop.index0] if v.cfgs else none %}{% if g %}
<h4>CFG of {{ g.name }} before and after {{ v.name }}</h4>
{% if g.note %}<p class="note">{{ g.note }}</p>{% else %}
<div class="side cfg"><p>before</p>{{ g.svg_before }}</div><div class="side cfg"><p>after</p>{{ g.svg_after }}</div>{% endif %}{% endif %}
{% else %}<p class="note">no function changed</p>
{% for ch in v.charts %}<div class="side chartbox">{{ ch }}</div>{% endfor %}
{% endfor %}
{% endfor %}
{% endblock %}
"""

RUN_PAGE = """{% extends "base.html" %}
{% block title %}run {{ d.file }}{% endblock %}
{% block body %}
<h1>pathlogic run {{ d.file }}</h1>
<p>Function {{ d.function }}, args {{ d.args }}, input {{ d.inputs }}:
{{ d.counts.instructions }} instructions executed{% if d.reuse %}, {{ d.reuse.loads }} loads{% endif %}.
Reproduce: <code>{{ d.command }}</code>; the numbers: <a href="run.json">run.json</a>.</p>

{% if d.reuse %}
<h2>The ideal limit of load reuse (PathFinder ch. 8)</h2>
<p class="note">A dynamic load is redundant when one of the last h addresses its static load, or a
static store, accessed holds the same location since (ideal aliasing: nothing kills). Whole
program: the earlier access anywhere; intra-procedural: in the load's own function (as the thesis
counts it, an earlier call of it included); same activation: in the same call, the most an
intra-procedural transformation can exploit.</p>
<div class="side"><table><tr><th>h</th>{% for v in levels %}<th>{{ v }}</th>{% endfor %}<th>from loads</th><th>from stores</th><th>register pressure</th></tr>
{% for h, r in d.reuse.reuse|dictsort %}<tr><td class="num">{{ h }}</td>
{% for v in ["whole", "intra", "activation"] %}<td class="num">{{ r.ideal[v].redundant }} ({{ pct(r.ideal[v].redundant, d.reuse.loads) }}%)</td>{% endfor %}
<td class="num">{{ r.ideal.whole.from_loads }}</td><td class="num">{{ r.ideal.whole.from_stores }}</td>
<td class="num">{{ d.reuse.register_pressure[h] }}</td></tr>{% endfor %}</table>
<table><tr><th>aliasing scenario (h=1)</th><th>intra-procedural</th><th>same activation</th></tr>
{% for s, by in d.reuse.reuse["1"].items() %}<tr><td>{{ s|replace("_", " ") }}</td>
<td class="num">{{ by.intra.redundant }} ({{ pct(by.intra.redundant, d.reuse.loads) }}%)</td>
<td class="num">{{ by.activation.redundant }} ({{ pct(by.activation.redundant, d.reuse.loads) }}%)</td></tr>{% endfor %}</table></div>
<div class="side">{{ reuse_chart }}</div>
{% endif %}

{% if d.captured %}
<h2>How much of it our PRE captures (PRE-completeness, §8.3)</h2>
<p class="note">Each pipeline's output runs on the same input; the loads it no longer executes,
as a share of the ideal reuse at h=1 (the thesis: about 80% of the intra-procedural reuse).</p>
<div class="side"><table><tr><th>pipeline</th><th>loads removed</th><th>evaluations removed</th><th>% of intra h=1 ({{ d.captured.ideal.intra_h1 }})</th><th>% of same activation h=1 ({{ d.captured.ideal.activation_h1 }})</th><th>note</th></tr>
{% for r in d.captured.pipelines %}<tr><td><code>{{ r.pipeline }}</code></td>
<td class="num">{{ r.loads_removed if r.loads_removed is not none else "-" }}</td>
<td class="num">{{ r.evaluations_removed if r.evaluations_removed is not none else "-" }}</td>
<td class="num">{{ r.share_intra_h1 if r.share_intra_h1 is not none else "-" }}</td>
<td class="num">{{ r.share_activation_h1 if r.share_activation_h1 is not none else "-" }}</td><td>{{ r.note }}</td></tr>{% endfor %}
{% if analysis %}<tr><td>{{ analysis.pipeline }}</td><td class="num">{{ analysis.lower }} - {{ analysis.upper }}</td><td class="num">-</td>
<td class="num">{{ analysis.share_intra_h1 if analysis.share_intra_h1 is not none else "-" }}</td>
<td class="num">{{ analysis.share_activation_h1 if analysis.share_activation_h1 is not none else "-" }}</td><td>the dynamic loads the analysis finds reusable: CMP<sup>r</sup>'s bounds from this run's edge profile, their average as the share</td></tr>{% endif %}</table></div>
<div class="side">{{ capture_chart }}</div>
{% endif %}

{% if d.estimates %}
<h2>Profile estimators against the exact benefit (PathFinder ch. 5)</h2>
<p class="note">From the run's edge profile, each estimator bounds the dynamic evaluations PRE can
remove; the exact value comes from the run's block paths ({{ d.estimates.local }} of it inside
blocks).{% if d.estimates.pre_removed %} <code>pre-mr</code> removes
{{ d.estimates.pre_removed.values()|sum }} on this input.{% endif %}</p>
<div class="side"><table><tr><th>estimator</th><th>lower</th><th>upper</th><th>(U-L)/L</th></tr>
{% for name, b in d.estimates.estimators.items() %}<tr><td>{{ name }}</td><td class="num">{{ b.lower }}</td><td class="num">{{ b.upper }}</td>
<td class="num">{{ "%.1f%%"|format(100 * b.error) if b.error is not none else "-" }}</td></tr>{% endfor %}
<tr><td>exact</td><td class="num" colspan="2">{{ d.estimates.exact }}</td><td></td></tr></table></div>
<div class="side">{{ estimate_chart }}</div>
{% endif %}
{% endblock %}
"""

LIMIT_INDEX = """{% extends "base.html" %}
{% block title %}evaluation chapters{% endblock %}
{% block body %}
<h1>PathFinder's evaluation chapters on the corpus</h1>
<p>{% if limit %}Ideal load reuse and PRE-completeness: <code>{{ limit.command }}</code> ({{ limit.totals.programs }} programs completed).{% endif %}
{% if estimators %}Estimators: <code>{{ estimators.command }}</code> ({{ estimators.summary.programs }} programs, {{ estimators.summary.estimated }} estimated).{% endif %}</p>
{% if limit %}
<h2>The ideal limit of load reuse (ch. 8)</h2>
<div class="side"><table><tr><th>h</th>{% for v in ["whole", "intra", "activation"] %}<th>{{ v }} (total %)</th><th>{{ v }} (mean %)</th>{% endfor %}</tr>
{% for h in range(4) %}<tr><td class="num">{{ h + 1 }}</td>{% for v in ["whole", "intra", "activation"] %}<td class="num">{{ limit.totals.reuse[v][h] }}</td><td class="num">{{ limit.totals.reuse_mean[v][h] }}</td>{% endfor %}</tr>{% endfor %}</table>
<p class="note">The thesis: about {{ limit.thesis.loads_with_reuse_pct }}% of executed loads exhibit reuse.</p></div>
<div class="side">{{ totals.reuse }}</div>
<h2>PRE-completeness: how much of it <code>{{ pipeline }}</code> removes{% if captured %} and the analysis captures{% endif %} (§8.3)</h2>
<div class="side"><table><tr><th>measure</th><th>removed, total %</th>{% if captured %}<th>{{ analysis }}, total %</th>{% endif %}</tr>
{% for k, name in names.items() %}<tr><td>{{ name }}</td><td class="num">{{ limit.totals.pre[k] }}</td>{% if captured %}<td class="num">{{ captured[k] if captured[k] is not none else "-" }}</td>{% endif %}</tr>{% endfor %}
<tr><td>mean over programs, intra h=1</td><td class="num">{{ limit.totals.pre.complete_intra_h1_mean }}</td>{% if captured %}<td class="num">{{ limit.totals.captured.of_intra_h1_mean }}</td>{% endif %}</tr></table>
{% if captured %}{% set c = limit.totals.captured %}<table><tr><th>CMPr load bounds ({{ c.programs }} programs)</th><th>loads</th></tr>
<tr><td>lower</td><td class="num">{{ c.lower }}</td></tr><tr><td>upper</td><td class="num">{{ c.upper }}</td></tr><tr><td>average</td><td class="num">{{ c.average }}</td></tr>
<tr><td>loads removed by the pipeline ({{ limit.totals.pre.programs }} programs)</td><td class="num">{{ limit.totals.pre.removed }}</td></tr>
{% for h in range(4) %}<tr><td>average, % of intra-procedural reuse, h={{ h + 1 }}</td><td class="num">{{ c.of_intra[h] }}</td></tr>{% endfor %}</table>{% endif %}
<p class="note">The thesis: about {{ limit.thesis.pre_complete_pct }}% PRE-complete.{% if captured %} What the analysis captures: the average of CMP<sup>r</sup>'s bounds of the dynamic loads it finds reusable, from the simulated runs' edge profiles.{% endif %}</p></div>
<div class="side">{{ totals.pre }}</div>
{% if limit.coverage %}{% set cov = limit.coverage %}
<h2>Whole corpora (coverage)</h2>
<p>Totals only, merged by <code>{{ cov.merge }}</code> from {% for c in cov.commands %}<code>{{ c }}</code>{{ ", " if not loop.last }}{% endfor %}.</p>
<table><tr><th>corpus</th><th>programs ran</th><th>executed loads</th><th>reuse h=1 / h=4 (%)</th><th>removed (%)</th><th>PRE-complete, intra h=1 / same activation (%)</th><th>captured, intra h=1 / same activation (%)</th></tr>
{% for kind, b in [("all", cov.all)] + cov.by_kind|dictsort %}<tr><td>{{ kind }}</td><td class="num">{{ b.programs }}</td><td class="num">{{ b.loads }}</td>
<td class="num">{{ b.reuse.whole[0] }} / {{ b.reuse.whole[3] }}</td><td class="num">{{ b.pre.removed_pct }}</td>
<td class="num">{{ b.pre.complete_intra_h1 }} / {{ b.pre.complete_activation_h1 }}</td>
<td class="num">{% if b.captured is defined and b.captured.of_intra is defined %}{{ b.captured.of_intra[0] }} / {{ b.captured.of_activation_h1 }}{% else %}-{% endif %}</td></tr>{% endfor %}
<tr><td>thesis</td><td></td><td></td><td class="num">about {{ cov.thesis.loads_with_reuse_pct }}</td><td></td><td class="num">about {{ cov.thesis.pre_complete_pct }}</td><td></td></tr></table>
{% endif %}
{% endif %}
{% if totals.estimators %}
<h2>Profile estimators against the exact reuse (ch. 5)</h2>
<div class="side"><table><tr><th>estimator</th><th>lower</th><th>upper</th><th>(U-L)/L of totals</th><th>mean (U-L)/L</th><th>thesis mean</th><th>programs with exact bounds</th></tr>
{% for name, b in estimators.summary.estimators.items() %}<tr><td>{{ name }}</td><td class="num">{{ b.lower }}</td><td class="num">{{ b.upper }}</td>
<td class="num">{{ b.error_of_totals }}</td><td class="num">{{ b.mean_error }}</td><td class="num">{{ b.thesis_mean_error if b.thesis_mean_error is not none else "-" }}</td><td class="num">{{ b.programs_exact_bounds }}</td></tr>{% endfor %}
<tr><td>exact</td><td class="num" colspan="2">{{ estimators.summary.exact }}</td><td colspan="4"></td></tr></table></div>
<div class="side">{{ totals.estimators }}</div>
{% endif %}
{% if sensitivity %}{% set t = sensitivity.totals %}
<h2>Input sensitivity (§8.2, Table 8.1)</h2>
<p>Two inputs per program: <code>{{ sensitivity.command }}</code> ({{ t.compared }} of {{ t.programs }} programs compared).</p>
<div class="side"><table><tr><th>measure</th><th>programs</th><th>max</th><th>mean</th><th>within 18%</th></tr>
{% for k, name in [("reuse_variation", "reuse level, larger/smaller - 1"), ("reuse_variation_where_reuse_over_5pct", "the same, reuse over 5% on both"), ("reuse_points", "reuse level, points apart"), ("exact_rate_variation", "exact reuse rate, larger/smaller - 1")] %}{% if t[k] is defined %}<tr><td>{{ name }}</td><td class="num">{{ t[k].programs }}</td><td class="num">{{ t[k].max }}</td><td class="num">{{ t[k].mean }}</td><td class="num">{{ t[k].within_18pct }}</td></tr>{% endif %}{% endfor %}
{% for k, name in [("estimators_on_b", "CMPr from A's profile against B's exact rate"), ("estimators_on_b_where_reuse_over_1pct", "the same, exact reuse over 1%")] %}{% if t[k] is defined and t[k].CMPr is defined %}<tr><td>{{ name }}</td><td class="num">{{ t[k].CMPr.programs }}</td><td class="num">{{ t[k].CMPr.max }}</td><td class="num">{{ t[k].CMPr.mean }}</td><td class="num">{{ t[k].CMPr.within_18pct }}</td></tr>{% endif %}{% endfor %}
<tr><td>PRE-completeness, points apart (largest)</td><td></td><td class="num">{{ t.completeness_points_max }}</td><td></td><td></td></tr></table>
<p class="note">Variations as fractions (0.18 = 18%). The thesis: the reuse level varies within {{ sensitivity.thesis.input_sensitivity_pct }}% between inputs (m88ksim {{ sensitivity.thesis.table81.m88ksim|join(" against ") }}).</p></div>
{% for ch in figure %}<div class="side">{{ ch }}</div>{% endfor %}
{% endif %}
<h2>Programs</h2>
<table><tr><th>program</th><th>kind</th><th>status</th><th>loads</th><th>reuse h=1 (%)</th><th>reuse h=4 (%)</th><th>PRE-complete, intra h=1 (%)</th><th>captured (CMPr), intra h=1 (%)</th><th>exact reuse</th><th>CMPr (U-L)/L</th><th>reuse at two inputs, variation (%)</th></tr>
{% for p in programs %}<tr><td><a href="{{ p.page }}">{{ p.name }}</a></td><td>{{ p.kind }}</td><td>{{ p.status }}</td>
{% for v in p.cells %}<td class="num">{{ v }}</td>{% endfor %}</tr>{% endfor %}
</table>
{% endblock %}
"""

LIMIT_PROGRAM = """{% extends "base.html" %}
{% block title %}{{ p.name }}{% endblock %}
{% block body %}
<h1>{{ p.name }}</h1>
{% set r = p.row %}
{% if r %}<p>{{ r.kind }}; {{ r.status }}{% if r.detail is defined %}: {{ r.detail }}{% endif %}{% if r.loads is defined %}; {{ r.loads }} loads executed{% endif %}.</p>{% endif %}
{% if p.charts.reuse %}
<h2>The ideal limit of load reuse (ch. 8)</h2>
<div class="side"><table><tr><th>h</th>{% for v in ["whole", "intra", "activation"] %}<th>{{ v }} (%)</th>{% endfor %}<th>register pressure</th></tr>
{% for h in range(4) %}<tr><td class="num">{{ h + 1 }}</td>{% for v in ["whole", "intra", "activation"] %}<td class="num">{{ r.reuse[v][h] }}</td>{% endfor %}<td class="num">{{ r.register_pressure[h] }}</td></tr>{% endfor %}</table>
<table><tr><th>Table 8.1 (h=4)</th><th>%</th></tr>{% for k, v in r.table81.items() %}<tr><td>{{ k|replace("_", " ") }}</td><td class="num">{{ v }}</td></tr>{% endfor %}</table></div>
<div class="side">{{ p.charts.reuse }}</div>
{% endif %}
{% if r and r.pre is defined %}
<h2>PRE-completeness of <code>{{ pipeline }}</code> (§8.3)</h2>
<div class="side"><table><tr><th>measure</th><th>value</th></tr>
<tr><td>verdict</td><td>{{ r.pre.verdict }}</td></tr>
{% if r.pre.removed is defined %}<tr><td>loads removed</td><td class="num">{{ r.pre.removed }} of {{ r.pre.loads_before }} ({{ r.pre.removed_pct }}%)</td></tr>{% endif %}
{% for k, name in names.items() %}{% if r.pre[k] is defined %}<tr><td>{{ name }}</td><td class="num">{{ r.pre[k] if r.pre[k] is not none else "-" }}%</td></tr>{% endif %}{% endfor %}</table>
{% if r.captured is defined %}<table><tr><th>{{ analysis }} (CMP<sup>r</sup> load bounds)</th><th>value</th></tr>
{% if p.captured %}<tr><td>bounds of the reusable loads</td><td class="num">{{ r.captured.lower }} - {{ r.captured.upper }}</td></tr>
<tr><td>average</td><td class="num">{{ r.captured.average }}</td></tr>
{% for h in range(4) %}<tr><td>average, % of intra-procedural reuse, h={{ h + 1 }}</td><td class="num">{{ r.captured.of_intra[h] if r.captured.of_intra[h] is not none else "-" }}</td></tr>{% endfor %}
<tr><td>average, % of same-activation reuse, h=1</td><td class="num">{{ r.captured.of_activation_h1 if r.captured.of_activation_h1 is not none else "-" }}</td></tr>
{% else %}<tr><td>not estimated</td><td>{{ r.captured.note }}</td></tr>{% endif %}</table>{% endif %}</div>
{% if p.charts.pre %}<div class="side">{{ p.charts.pre }}</div>{% endif %}
{% endif %}
{% if p.est %}
<h2>Profile estimators against the exact reuse (ch. 5)</h2>
{% if p.est.estimators %}<div class="side"><table><tr><th>estimator</th><th>lower</th><th>upper</th><th>(U-L)/L</th></tr>
{% for name, b in p.est.estimators.items() %}<tr><td>{{ name }}</td><td class="num">{{ b.lower }}</td><td class="num">{{ b.upper }}</td><td class="num">{{ b.error if b.error is not none else "-" }}</td></tr>{% endfor %}
<tr><td>exact</td><td class="num" colspan="2">{{ p.est.exact }}</td><td></td></tr></table></div>
<div class="side">{{ p.charts.estimators }}</div>
{% else %}<p class="note">not estimated{% if p.est.not_estimated is defined %}: {{ p.est.not_estimated }}{% endif %}</p>{% endif %}
{% endif %}
{% if p.sens %}
<h2>At two inputs (§8.2, Table 8.1)</h2>
{% if p.inputs %}<div class="side"><table><tr><th>measure</th>{% for name in p.inputs %}<th>{{ name }}</th>{% endfor %}</tr>
{% for k, label in measures.items() %}<tr><td>{{ label }}</td>{% for m in p.inputs.values() %}<td class="num">{{ m[k] if m[k] is not none else "-" }}</td>{% endfor %}</tr>{% endfor %}</table>
<table><tr><th>variation</th><th>value</th></tr>
<tr><td>reuse level, larger/smaller - 1</td><td class="num">{{ p.sens.reuse_variation if p.sens.reuse_variation is not none else "-" }}</td></tr>
<tr><td>PRE-completeness, B - A (points)</td><td class="num">{{ p.sens.completeness_points if p.sens.completeness_points is not none else "-" }}</td></tr>
{% if p.sens.estimate_on_b and p.sens.estimate_on_b.estimators.CMPr is defined %}{% set e = p.sens.estimate_on_b.estimators.CMPr %}<tr><td>CMPr rate from A's profile, against B's exact rate {{ p.sens.estimate_on_b.exact_rate_B }}</td><td class="num">{{ e.rate_A|join(" - ") }} (error {{ e.error if e.error is not none else "-" }})</td></tr>{% endif %}</table></div>
<div class="side">{{ p.charts.sensitivity }}</div>
{% else %}<p class="note">{{ p.sens.status }}{% if p.sens.detail is defined %}: {{ p.sens.detail }}{% endif %}</p>{% endif %}
{% endif %}
{% endblock %}
"""

TEMPLATES = {"base.html": BASE, "index.html": INDEX, "function.html": FUNCTION,
             "explain.html": EXPLAIN, "optimize.html": OPT_INDEX,
             "optimize_program.html": OPT_PROGRAM, "run.html": RUN_PAGE,
             "limit.html": LIMIT_INDEX, "limit_program.html": LIMIT_PROGRAM}
