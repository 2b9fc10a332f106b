"""Sphinx directives that turn committed JSON (benchmark output, verification reports) into
tables and plots at build time, and list a module's public API from its ``__all__``.

Every number on the generated pages comes from a JSON file written by a script
(``tools/bench_*.py --json``, ``python -m crlibm_py.verify --report``); nothing is typed by
hand. Directives (paths are relative to the page, as for images):

``json-table``
    One table row per JSON row. Content: one column per line, ``key | header | format``
    (header and format optional; format is a ``str.format`` spec such as ``.2f``).
    Options: ``:where: key=value, key=value`` keeps matching rows; ``:machine:`` adds a
    paragraph describing where the benchmark ran.
``bench-plot``
    A PNG (matplotlib, Agg) written under ``docs/_generated/`` and shown as an image.
    Options: ``:x:``, ``:y:`` (row keys), ``:series:`` (keys whose values name a line),
    ``:where:``, ``:kind: line|bar``, ``:logx:``, ``:logy:``, ``:hline:`` (a reference value),
    ``:xlabel:``, ``:ylabel:``, ``:title:``, ``:alt:``.
``verification-table``
    The results of ``crlibm_py.verify`` JSON reports (a glob): wrong results per path,
    inputs checked, inputs sent to MPFR, reference bound, times.
``api-summary``
    (reST pages) An ``autosummary`` table of the callables in ``module.__all__``, so new public
    functions appear without editing the page.
"""
import glob
import hashlib
import json
import os

from docutils import nodes
from docutils.parsers.rst import Directive, directives
from docutils.statemachine import StringList

GENERATED = "_generated"


# ---- loading ----

def _page_path(directive, rel):
    """(absolute path, path for messages) of a file named relative to the current page."""
    env = directive.state.document.settings.env
    rel_to_src, abspath = env.relfn2path(rel, env.docname)
    env.note_dependency(rel_to_src)
    return abspath, rel_to_src


def _load(directive, rel):
    path, shown = _page_path(directive, rel)
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError) as exc:
        raise directive.error(f"{directive.name}: cannot read {shown}: {exc}")


def _parse_where(text):
    """'threads=1, routine=gemm' -> {'threads': '1', 'routine': 'gemm'} (compared as text)."""
    where = {}
    for part in (text or "").split(","):
        if part.strip():
            key, _, value = part.partition("=")
            where[key.strip()] = value.strip()
    return where


def _select(rows, where, directive):
    if rows and where:
        unknown = [k for k in where if k not in rows[0]]
        if unknown:
            raise directive.error(f"{directive.name}: no key {unknown} in the rows "
                                  f"(keys: {sorted(rows[0])})")
    picked = [r for r in rows if all(str(r.get(k)) == v for k, v in where.items())]
    if not picked:
        raise directive.error(f"{directive.name}: no row matches {where}")
    return picked


def _machine_text(info):
    """One sentence from the 'machine' record of a benchmark JSON file."""
    parts = [f"{info.get('cpu', 'unknown CPU')} ({info.get('logical_cpus', '?')} logical CPUs)"]
    for key, label in (("python", "Python"), ("numpy", "NumPy"), ("scipy", "SciPy")):
        if info.get(key):
            parts.append(f"{label} {info[key]}")
    if info.get("blas"):
        parts.append("BLAS " + ", ".join(info["blas"]))
    for key in ("best_path", "reproblas_isa"):
        if info.get(key):
            parts.append(f"CPU path {info[key]}")
    if info.get("load_average") is not None:
        parts.append(f"load average {info['load_average']:.1f} at the end")
    if info.get("argv"):
        parts.append("command " + " ".join(["python"] + [os.path.relpath(a) if a.endswith(".py")
                                                          else a for a in info["argv"]]))
    return "Measured " + info.get("date_utc", "?") + " UTC on " + "; ".join(parts) + "."


# ---- tables ----

def _table(headers, body, numeric):
    table = nodes.table(classes=["generated"])
    group = nodes.tgroup(cols=len(headers))
    table += group
    for i, header in enumerate(headers):  # widths matter for the text builder only
        group += nodes.colspec(colwidth=max([len(header)] + [len(r[i]) for r in body]))

    def row(cells, head=False):
        tr = nodes.row()
        for i, text in enumerate(cells):
            entry = nodes.entry(classes=["num"] if numeric[i] and not head else [])
            entry += nodes.paragraph(text=text)
            tr += entry
        return tr

    thead = nodes.thead()
    thead += row(headers, head=True)
    tbody = nodes.tbody()
    for cells in body:
        tbody += row(cells)
    group += thead
    group += tbody
    return table


def _cell(value, fmt):
    if value is None:
        return "-"
    if fmt:
        try:
            return format(value, fmt)
        except (TypeError, ValueError):
            return str(value)
    return str(value)


class JsonTable(Directive):
    required_arguments = 1
    has_content = True
    option_spec = {"where": directives.unchanged, "machine": directives.flag}

    def run(self):
        data = _load(self, self.arguments[0])
        columns = []
        for line in self.content:
            if line.strip():
                key, header, fmt = ([p.strip() for p in line.split("|")] + ["", ""])[:3]
                columns.append((key, header or key, fmt))
        if not columns:
            raise self.error("json-table: list the columns, one 'key | header | format' a line")
        rows = _select(data["rows"], _parse_where(self.options.get("where")), self)
        missing = [k for k, _, _ in columns if k not in rows[0]]
        if missing:
            raise self.error(f"json-table: no key {missing} in the rows (keys: {sorted(rows[0])})")
        body = [[_cell(r[k], fmt) for k, _, fmt in columns] for r in rows]
        numeric = [isinstance(rows[0][k], (int, float)) for k, _, _ in columns]
        out = []
        if "machine" in self.options:
            out.append(nodes.paragraph(text=_machine_text(data.get("machine", {}))))
        out.append(_table([h for _, h, _ in columns], body, numeric))
        return out


# ---- plots ----

class BenchPlot(Directive):
    required_arguments = 1
    option_spec = {key: directives.unchanged for key in
                   ("x", "y", "series", "where", "kind", "hline", "xlabel", "ylabel", "title",
                    "alt")}
    option_spec.update({"logx": directives.flag, "logy": directives.flag})

    def run(self):
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        opts = self.options
        data = _load(self, self.arguments[0])
        if "x" not in opts or "y" not in opts:
            raise self.error("bench-plot: :x: and :y: are required")
        rows = _select(data["rows"], _parse_where(opts.get("where")), self)
        x_key, y_key = opts["x"], opts["y"]
        series_keys = [k.strip() for k in opts.get("series", "").split(",") if k.strip()]
        for key in [x_key, y_key] + series_keys:
            if key not in rows[0]:
                raise self.error(f"bench-plot: no key {key!r} in the rows")
        series = {}
        for r in rows:
            name = " ".join(str(r[k]) for k in series_keys) or y_key
            series.setdefault(name, []).append((r[x_key], r[y_key]))

        fig, ax = plt.subplots(figsize=(7.5, 4.0), dpi=100)
        if opts.get("kind", "line") == "bar":
            categories = list(dict.fromkeys(r[x_key] for r in rows))
            width = 0.8 / max(len(series), 1)
            for i, (name, points) in enumerate(series.items()):
                values = dict(points)
                xs = [j + (i - (len(series) - 1) / 2) * width for j in range(len(categories))]
                ax.bar(xs, [values.get(c, 0) for c in categories], width, label=name)
            ax.set_xticks(range(len(categories)))
            ax.set_xticklabels([str(c) for c in categories], rotation=30, ha="right")
        else:
            for name, points in series.items():
                points.sort()
                ax.plot([p[0] for p in points], [p[1] for p in points], marker="o", label=name)
            if "logx" in opts:
                ax.set_xscale("log", base=2)
                xs = sorted({p[0] for pts in series.values() for p in pts})
                ax.set_xticks(xs)
                ax.set_xticklabels([str(x) for x in xs])
        if "logy" in opts:
            ax.set_yscale("log")
        if "hline" in opts:
            ax.axhline(float(opts["hline"]), color="black", linewidth=0.8, linestyle="--")
        ax.set_xlabel(opts.get("xlabel", x_key))
        ax.set_ylabel(opts.get("ylabel", y_key))
        if opts.get("title"):
            ax.set_title(opts["title"])
        ax.grid(True, alpha=0.3)
        if len(series) > 1:
            ax.legend(fontsize="small")
        fig.tight_layout()

        env = self.state.document.settings.env
        key = json.dumps([self.arguments[0], sorted(opts.items()), env.docname])
        name = f"{os.path.basename(env.docname)}-{hashlib.sha1(key.encode()).hexdigest()[:10]}.png"
        outdir = os.path.join(env.srcdir, GENERATED)
        os.makedirs(outdir, exist_ok=True)
        fig.savefig(os.path.join(outdir, name), metadata={"Software": None})
        plt.close(fig)
        alt = opts.get("alt") or f"{y_key} against {x_key}"
        return [nodes.image(uri=f"/{GENERATED}/{name}", alt=alt)]


# ---- verification reports ----

class VerificationTable(Directive):
    required_arguments = 1

    def run(self):
        env = self.state.document.settings.env
        pattern, _ = _page_path(self, self.arguments[0])
        files = sorted(glob.glob(pattern))
        if not files:
            raise self.error(f"verification-table: no report matches {self.arguments[0]}")
        headers = ["report", "tier", "function", "inputs checked", "wrong per path",
                   "undecided → MPFR", "ref. error / bound (2^-52)", "CPU s", "ok"]
        body, notes = [], []
        for path in files:
            env.note_dependency(os.path.relpath(path, env.srcdir))
            with open(path) as f:
                report = json.load(f)
            name = os.path.basename(path)
            e = report.get("environment", {})
            notes.append(f"{name}: {report['tier']} tier, paths {', '.join(report['paths'])}, "
                         f"range {report['range'][0]}:{report['range'][1]}, "
                         f"{report.get('jobs')} jobs, {report.get('wall_time_s', 0):.0f} s wall; "
                         f"{e.get('cpu')}, {e.get('libc')}, MPFR {e.get('mpfr_loaded')}, "
                         f"NumPy {e.get('numpy')}, commit {str(e.get('git_commit'))[:10]}.")
            for fn, res in report["functions"].items():
                wrong = " / ".join(f"{p} {r['wrong']}" for p, r in res["paths"].items())
                bound = res.get("reference_bound") or {}
                if "max_rel_error_in_2^-52" in bound:
                    ref = (f"{bound['max_rel_error_in_2^-52']:.2f} / "
                           f"{bound['declared_bound'] / 2.0**-52:.0f}")
                else:
                    ref = "-"
                body.append([name, res["tier"], fn, f"{res['inputs_checked']:,}", wrong,
                             _cell(res.get("undecided_to_mpfr"), ","), ref,
                             _cell(res.get("cpu_time_s"), ".0f"),
                             "yes" if res["ok"] and res.get("complete", True) else "NO"])
        numeric = [False, False, False, True, False, True, True, True, False]
        out = [_table(headers, body, numeric)]
        out.extend(nodes.paragraph(text=n) for n in notes)
        return out


# ---- API lists ----

class ApiSummary(Directive):
    """autosummary of every callable in module.__all__ (documented by automodule on the
    same page), in __all__'s order. Options: ``:automodule:`` also documents the module here;
    ``:optional:`` turns an ImportError (a subpackage whose extra is not installed) into a
    note instead of a failed build."""
    required_arguments = 1
    option_spec = {"automodule": directives.flag, "optional": directives.flag}

    def run(self):
        import importlib
        modname = self.arguments[0]
        try:
            module = importlib.import_module(modname)
        except ImportError as exc:
            if "optional" not in self.options:
                raise
            return [nodes.note("", nodes.paragraph(text=f"{modname} is not documented in "
                                                        f"this build: {exc}"))]
        names = [n for n in getattr(module, "__all__", []) if callable(getattr(module, n))]
        # full names, resolved from no current module (an automodule above may have set one)
        lines = [".. py:currentmodule:: None", "", ".. autosummary::", ""]
        lines += [f"   {modname}.{n}" for n in names]
        if "automodule" in self.options:
            lines += ["", f".. automodule:: {modname}"]
        lines = StringList(lines)
        node = nodes.section()
        node.document = self.state.document
        self.state.nested_parse(lines, self.content_offset, node)
        return node.children


def setup(app):
    app.add_directive("json-table", JsonTable)
    app.add_directive("bench-plot", BenchPlot)
    app.add_directive("verification-table", VerificationTable)
    app.add_directive("api-summary", ApiSummary)
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}
