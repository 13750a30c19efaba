"""Scrape a metrics endpoint as Prometheus does (plain HTTP GET) and look samples up by name and labels."""

from __future__ import annotations

import urllib.request
from dataclasses import dataclass

from prometheus_client.openmetrics.parser import text_string_to_metric_families as parse_openmetrics
from prometheus_client.parser import text_string_to_metric_families as parse_text
from prometheus_client.samples import Sample

OPENMETRICS = "application/openmetrics-text; version=1.0.0; charset=utf-8"


@dataclass
class Scrape:
    content_type: str
    samples: list[Sample]
    types: dict[str, str]  # family name -> counter, gauge, histogram, ...

    def value(self, name: str, **labels: str) -> float | None:
        """The sample `name` whose labels include `labels`; None when there is none (two is an error)."""
        found = self.find(name, **labels)
        assert len(found) <= 1, found
        return found[0].value if found else None

    def find(self, name: str, **labels: str) -> list[Sample]:
        return [s for s in self.samples if s.name == name and labels.items() <= s.labels.items()]


def scrape(url: str, *, openmetrics: bool = False) -> Scrape:
    request = urllib.request.Request(url, headers={"Accept": OPENMETRICS} if openmetrics else {})
    with urllib.request.urlopen(request, timeout=10) as response:
        content_type = response.headers["Content-Type"]
        text = response.read().decode("utf-8")
    families = list((parse_openmetrics if openmetrics else parse_text)(text))
    return Scrape(content_type, [s for f in families for s in f.samples], {f.name: f.type for f in families})
