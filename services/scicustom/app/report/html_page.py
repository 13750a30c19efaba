"""One self-contained HTML page: inline CSS, plotly.js inlined once, sections of escaped text.

Every piece of text from a build or an evaluation (questions, unit names, reasons) goes through
`text()`; only markup assembled here from escaped parts is `Markup`. The page loads nothing: a
Content-Security-Policy forbids every network source, so a mistake shows as a console error in the
browser test instead of a silent fetch.
"""

from __future__ import annotations

import html
import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import cache

# No source but the page itself: inline scripts and styles, data: images (plotly's icons).
CONTENT_SECURITY_POLICY = ("default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; "
                           "img-src data:; font-src data:")

STYLE = """
:root { color-scheme: light; --ink: #1f2933; --muted: #616e7c; --line: #d9e2ec; --thin: #fde8e8;
        --thin-ink: #9b1c1c; --ok: #e3f9e5; --ok-ink: #14532d; --accent: #2457a6; }
* { box-sizing: border-box; }
body { margin: 0; font: 15px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, "DejaVu Sans", sans-serif;
       color: var(--ink); background: #f7f9fb; }
header { background: #102a43; color: #fff; padding: 20px 32px; }
header h1 { margin: 0 0 4px; font-size: 24px; }
header p { margin: 0; color: #bcccdc; }
nav { padding: 8px 32px; background: #fff; border-bottom: 1px solid var(--line); position: sticky; top: 0; z-index: 5; }
nav a { margin-right: 16px; color: var(--accent); text-decoration: none; font-size: 14px; }
main { padding: 0 32px 48px; max-width: 1280px; }
section { background: #fff; border: 1px solid var(--line); border-radius: 6px; margin-top: 20px; padding: 16px 20px; }
h2 { margin: 0 0 12px; font-size: 19px; }
h3 { margin: 16px 0 8px; font-size: 16px; }
.cards { display: flex; flex-wrap: wrap; gap: 12px; margin: 8px 0; }
.card { border: 1px solid var(--line); border-radius: 6px; padding: 8px 14px; min-width: 130px; }
.card b { display: block; font-size: 20px; }
.card span { color: var(--muted); font-size: 13px; }
.badge { display: inline-block; padding: 1px 8px; border-radius: 10px; font-size: 13px; font-weight: 600; }
.badge.ok { background: var(--ok); color: var(--ok-ink); }
.badge.thin { background: var(--thin); color: var(--thin-ink); }
table { border-collapse: collapse; width: 100%; margin: 8px 0; font-size: 14px; }
th, td { border-bottom: 1px solid var(--line); padding: 4px 8px; text-align: left; vertical-align: top; }
th { background: #f0f4f8; }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; }
tr.thin td { background: var(--thin); }
.note { color: var(--muted); font-size: 14px; }
.warning { background: #fffbea; border-left: 4px solid #f0b429; padding: 6px 10px; margin: 6px 0; }
.chart { width: 100%; }
.question { border-top: 1px solid var(--line); padding: 10px 0; }
.question pre, pre.text { white-space: pre-wrap; font: inherit; margin: 0; }
.question ol { margin: 6px 0; padding-left: 0; list-style: none; }
.question li.correct { font-weight: 600; color: var(--ok-ink); }
.provenance { color: var(--muted); font-size: 13px; }
dl.pairs { display: grid; grid-template-columns: max-content auto; gap: 2px 16px; margin: 8px 0; }
dl.pairs dt { color: var(--muted); }
dl.pairs dd { margin: 0; }
"""


class Markup(str):
    """HTML built in this package from escaped parts; everything else is text to escape."""

    __slots__ = ()


def text(value: object) -> Markup:
    """Escaped text; Markup passes through unchanged."""
    if isinstance(value, Markup):
        return value
    return Markup(html.escape(plain(value), quote=True))


def plain(value: object) -> str:
    """A value as a reader sees it: no value is a dash, floats with at most four decimals."""
    if value is None:
        return "–"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        if not math.isfinite(value):
            return str(value)
        if value == int(value):
            return str(int(value))
        short = f"{value:.4f}".rstrip("0").rstrip(".")
        return short if short not in ("0", "-0") else f"{value:.3g}"
    if isinstance(value, list | tuple):
        return ", ".join(plain(v) for v in value)
    return str(value)


def join(parts: Iterable[object]) -> Markup:
    return Markup("".join(text(p) for p in parts))


def element(tag: str, content: object = "", **attrs: str | None) -> Markup:
    """`<tag attrs>content</tag>`; attribute names use `_` for `-` (and `class_` for `class`)."""
    rendered = "".join(f' {name.rstrip("_").replace("_", "-")}="{html.escape(value, quote=True)}"'
                       for name, value in attrs.items() if value is not None)
    return Markup(f"<{tag}{rendered}>{text(content)}</{tag}>")


def is_number(value: object) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def table(headers: Sequence[str], rows: Iterable[Sequence[object]], row_classes: Sequence[str | None] = (),
          id_: str | None = None) -> Markup:
    """A table; numeric cells are right-aligned, `row_classes[i]` marks row i (e.g. "thin")."""
    head = join(element("th", h) for h in headers)
    body = []
    for i, row in enumerate(rows):
        cells = join(element("td", c, class_="num" if is_number(c) else None) for c in row)
        body.append(element("tr", cells, class_=row_classes[i] if i < len(row_classes) else None))
    return element("table", join([element("thead", element("tr", head)), element("tbody", join(body))]), id=id_)


def pairs(items: Iterable[tuple[str, object]]) -> Markup:
    """A two-column list of names and values."""
    return element("dl", join(join([element("dt", k), element("dd", v)]) for k, v in items), class_="pairs")


def cards(items: Iterable[tuple[str, object]]) -> Markup:
    """Headline numbers: the value large, its label below."""
    return element("div", join(element("div", join([element("b", v), element("span", k)]), class_="card")
                               for k, v in items), class_="cards")


def note(value: object) -> Markup:
    return element("p", value, class_="note")


@dataclass(frozen=True)
class Section:
    id: str
    title: str
    body: Markup


@cache
def _plotly_js() -> str:
    # plotly.js ships inside the plotly wheel; ~4.8 MB, read once per process.
    from plotly.offline import get_plotlyjs

    return str(get_plotlyjs())


def page(title: str, subtitle: str, sections: Sequence[Section]) -> str:
    """The whole document; the same sections give the same bytes."""
    nav = join(element("a", s.title, href=f"#{s.id}") for s in sections)
    body = join(element("section", join([element("h2", s.title), s.body]), id=s.id) for s in sections)
    return "".join([
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n",
        f'<meta http-equiv="Content-Security-Policy" content="{CONTENT_SECURITY_POLICY}">\n',
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n',
        '<link rel="icon" href="data:,">\n',  # no favicon request
        f"<title>{text(title)}</title>\n<style>{STYLE}</style>\n",
        f"<script>{_plotly_js()}</script>\n</head>\n<body>\n",
        str(element("header", join([element("h1", title), element("p", subtitle)]))), "\n",
        str(element("nav", nav)), "\n", str(element("main", body)), "\n</body>\n</html>\n",
    ])
