"""Plotly figures as page fragments: fixed element ids, no plotly.js (the page inlines it once), no
logo link, a white template. `to_html` with a fixed `div_id` gives the same bytes for the same figure."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from scicustom.app.report.html_page import Markup, element

# Colours of the charts, also used for thin/ok highlighting.
BLUE, ORANGE, GREEN, RED, GREY, PURPLE = "#2457a6", "#e67e22", "#2f9e44", "#c92a2a", "#8292a2", "#7048e8"
SERIES = (BLUE, ORANGE, PURPLE, GREEN, "#0b7285", "#a61e4d", "#5c940d", "#862e9c")
CONFIG = {"displaylogo": False, "responsive": True}
AXIS = {"gridcolor": "#e4e9f0", "linecolor": "#9aa5b1", "zerolinecolor": "#c3ccd6", "automargin": True}


def chart(div_id: str, title: str, data: Sequence[Mapping[str, Any]], layout: Mapping[str, Any],
          height: int = 380, caption: str = "") -> Markup:
    """One chart in a `div.chart` (the browser test finds every chart by that class), its title a
    heading above it and its legend on top, so neither collides with axis titles."""
    import plotly.graph_objects as go
    import plotly.io as pio

    # go.Figure validates every property name, so a typo fails the unit tests instead of rendering blank.
    # No named template: plotly's would be copied, validated and embedded in every chart (slow, large).
    names = ["xaxis", "yaxis", *(["yaxis2"] if "yaxis2" in layout else [])]
    axes = {name: {**AXIS, **layout.get(name, {})} for name in names}
    figure = go.Figure(data=list(data), layout={
        "template": "none", "height": height, "margin": {"l": 60, "r": 40, "t": 30, "b": 50},
        "font": {"family": "system-ui, sans-serif", "size": 13, "color": "#1f2933"},
        "paper_bgcolor": "white", "plot_bgcolor": "white", "colorway": list(SERIES),
        "legend": {"orientation": "h", "x": 0, "xanchor": "left", "y": 1.0, "yanchor": "bottom"},
        **layout, **axes})
    fragment = pio.to_html(figure, include_plotlyjs=False, full_html=False, div_id=div_id, config=CONFIG,
                           validate=True)
    parts = [element("h3", title), Markup(fragment)]
    if caption:
        parts.append(element("p", caption, class_="note"))
    return element("div", Markup("".join(parts)), class_="chart", data_chart=div_id)


def label(value: object) -> str:
    """Text for a chart: plotly reads a few HTML tags in labels, so data text is entity-escaped
    (plotly shows `&lt;` as `<`)."""
    import html

    return html.escape(str(value), quote=False)
