"""Self-contained HTML reports: the build report (`report.html`) and the evaluation report.

Charts are plotly figures with plotly.js inlined once per page, so a report opens with no network.
The plotting library is imported here only, never in the core.
"""
