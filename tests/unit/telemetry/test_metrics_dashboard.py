"""The Grafana dashboard and the code cannot drift apart: every series a panel queries is one the
code exposes, and every scicustom metric family has a panel."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from scicustom.telemetry.metrics import PlatformMetrics

DASHBOARD = Path(__file__).resolve().parents[3] / "charts" / "scicustom" / "dashboards" / "scicustom.json"
METRIC_NAME = re.compile(r"\bscicustom_[a-z0-9_]+")
# The series prometheus_client writes for a family of each type.
SUFFIXES = {"counter": ("_total",), "gauge": ("",), "histogram": ("_bucket", "_count", "_sum")}


def _exposed() -> dict[str, set[str]]:
    """family name -> the series names it is scraped as."""
    return {family.name: {family.name + suffix for suffix in SUFFIXES[family.type]}
            for family in PlatformMetrics().registry.collect() if family.name.startswith("scicustom_")}


def _panels(dashboard: dict[str, Any]) -> list[dict[str, Any]]:
    return [p for p in dashboard["panels"] if p["type"] != "row"]


def test_the_dashboard_parses_and_queries_only_series_the_code_exposes() -> None:
    dashboard = json.loads(DASHBOARD.read_text(encoding="utf-8"))
    exposed = set().union(*_exposed().values())
    panels = _panels(dashboard)
    assert len({p["id"] for p in dashboard["panels"]}) == len(dashboard["panels"])
    assert [v["name"] for v in dashboard["templating"]["list"]] == ["datasource"]
    for panel in panels:
        assert panel["targets"], panel["title"]
        for target in panel["targets"]:
            expr = target["expr"]
            assert expr.count("(") == expr.count(")") and expr.count("{") == expr.count("}"), expr
            names = set(METRIC_NAME.findall(expr))
            assert names, f"{panel['title']}: {expr}"
            assert names <= exposed, f"{panel['title']} queries {sorted(names - exposed)}, which no code exposes"
            assert target["datasource"]["uid"] == "${datasource}"


def test_every_metric_family_has_a_panel() -> None:
    dashboard = json.loads(DASHBOARD.read_text(encoding="utf-8"))
    queried = {name for panel in _panels(dashboard) for target in panel["targets"]
               for name in METRIC_NAME.findall(target["expr"])}
    unshown = sorted(family for family, series in _exposed().items() if not series & queried)
    assert not unshown, f"metric families without a dashboard panel: {unshown}"
