"""The build and evaluation reports in a real headless browser (Debian's chromium through
chromium-driver): no console error, every chart rendered as SVG, hostile text inert, a screenshot
for CI (`$SCICUSTOM_CI_ARTIFACTS`, default ci-artifacts/ at the repository root)."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from scicustom.app.report.build_report import build_report_html
from scicustom.app.report.evaluation_report import render_evaluation_report
from tests.unit.report.synthetic_build import HOSTILE, evaluation, hostile_build_files

REPO = Path(__file__).resolve().parents[2]
CHROMIUM = Path("/usr/bin/chromium")
CHROMEDRIVER = Path("/usr/bin/chromedriver")
MAX_SCREENSHOT_HEIGHT = 16000

# Per chart: how many plotly SVG layers it has, and the marks its traces drew (paths of bars, markers
# and lines; the image of a heatmap).
CHART_STATE = """
return Array.from(document.querySelectorAll('div.chart')).map(chart => [
  chart.dataset.chart, chart.querySelectorAll('svg.main-svg').length,
  chart.querySelectorAll('svg.main-svg .trace path, svg.main-svg .trace image, svg.main-svg .hm image').length]);
"""


def _artifacts() -> Path:
    folder = Path(os.environ.get("SCICUSTOM_CI_ARTIFACTS") or REPO / "ci-artifacts")
    folder.mkdir(parents=True, exist_ok=True)
    return folder


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    missing = [str(p) for p in (CHROMIUM, CHROMEDRIVER) if not p.exists()]
    if missing:
        reason = f"{', '.join(missing)} not installed (apt-get install chromium chromium-driver)"
        if os.environ.get("CI"):
            pytest.fail(f"CI must run the browser test: {reason}")
        pytest.skip(reason)
    os.environ["SE_OFFLINE"] = "true"  # selenium-manager must not try to download a driver
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = str(CHROMIUM)
    for argument in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                     "--window-size=1400,1000"):
        options.add_argument(argument)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=Service(executable_path=str(CHROMEDRIVER)), options=options)
    try:
        yield driver
    finally:
        driver.quit()


def _open(driver: Any, page: Path, screenshot: str) -> list[list[Any]]:
    """Load the page, check the console and the charts, save a full-page screenshot."""
    driver.set_window_size(1400, 1000)
    driver.get(page.as_uri())
    severe = [entry for entry in driver.get_log("browser") if entry["level"] == "SEVERE"]
    assert severe == []
    charts: list[list[Any]] = driver.execute_script(CHART_STATE)
    assert charts
    for name, layers, drawn in charts:
        assert layers > 0 and drawn > 0, f"{name} rendered nothing"
    assert driver.execute_script("return window.__pwned === undefined")
    height = driver.execute_script("return document.documentElement.scrollHeight")
    driver.set_window_size(1400, min(int(height), MAX_SCREENSHOT_HEIGHT))
    assert driver.save_screenshot(str(_artifacts() / screenshot))
    return charts


def test_build_report_renders_in_the_browser(browser: Any, tmp_path: Path) -> None:
    page = tmp_path / "report.html"
    page.write_text(build_report_html(hostile_build_files()), encoding="utf-8")
    charts = _open(browser, page, "report.png")
    assert [name for name, _, _ in charts] == ["chart-votes", "chart-relevance", "chart-hardness", "chart-quality",
                                               "chart-coverage", "chart-validity"]
    shown = browser.execute_script("return document.querySelector('#questions .question pre').textContent")
    assert shown.startswith("<script>window.__pwned = 1</script>")  # shown as text, never run
    assert (_artifacts() / "report.png").stat().st_size > 10_000


def test_evaluation_report_renders_in_the_browser(browser: Any, tmp_path: Path) -> None:
    page = tmp_path / "evaluation.html"
    page.write_text(render_evaluation_report(evaluation({"judge-a": 0.9, HOSTILE: 0.6}, hostile=True)),
                    encoding="utf-8")
    charts = _open(browser, page, "evaluation-report.png")
    assert [name for name, _, _ in charts] == ["chart-accuracy", "chart-units", "chart-reference"]
