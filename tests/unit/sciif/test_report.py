from __future__ import annotations

import json

import pytest

from scicustom.core.sciif.audit import ConstraintAudit, CorrectnessAudit, ItemAudit, PointAudit
from scicustom.core.sciif.report import build_report, counts


def audit(catalog, item_id, model, statuses, correctness="pass", reward=None):
    constraints = tuple(
        ConstraintAudit(cid, catalog.by_id(cid).name, catalog.by_id(cid).family, status,
                        (PointAudit("point_1", "main", True, status, "judges"),))
        for cid, status in statuses.items()
    )
    compliance = ("fail" if "fail" in statuses.values() else
                  "undecided" if "undecided" in statuses.values() else "pass")
    gated = "fail" if "fail" in (compliance, correctness) else (
        "undecided" if "undecided" in (compliance, correctness) else "pass")
    return ItemAudit(item_id, model, len(statuses), constraints, compliance,
                     CorrectnessAudit(correctness, "rule"), gated, reward)


@pytest.fixture
def audits(catalog):
    return [
        audit(catalog, "a", "m1", {"units_standard": "pass"}, reward=1.0),
        audit(catalog, "b", "m1", {"units_standard": "fail"}, correctness="fail", reward=0.0),
        audit(catalog, "c", "m1", {"assumptions": "pass", "units_standard": "pass"}, correctness="fail", reward=0.7),
        audit(catalog, "d", "m1", {"assumptions": "pass", "numerical_methods": "undecided"}),
        audit(catalog, "e", "m1", {"assumptions": "fail", "boundary_conditions": "pass",
                                   "numerical_methods": "pass"}, reward=0.5),
        audit(catalog, "a", "m2", {"units_standard": "fail"}, reward=0.3),
    ]


def test_counts():
    assert counts(["pass", "fail", "undecided", "pass"]) == {
        "pass": 2, "fail": 1, "undecided": 1, "total": 4, "rate": 0.5, "decided_rate": 2 / 3}
    assert counts([])["rate"] is None


def test_model_summary(catalog, audits):
    report = build_report(audits, catalog, mode="strict", judges=["a", "b"])
    m1 = report["models"]["m1"]
    assert m1["items"] == 5
    assert (m1["correctness"]["pass"], m1["correctness"]["fail"]) == (3, 2)
    assert m1["single_constraint"] == counts(["pass", "fail"])
    assert m1["multi_constraint"] == counts(["pass", "undecided", "fail"])
    assert m1["compliance_vs_k"] == {"1": counts(["pass", "fail"]), "2": counts(["pass", "undecided"]),
                                     "3": counts(["fail"])}
    assert m1["per_constraint"]["Units Standard"] == counts(["pass", "fail", "pass"])
    assert m1["per_constraint"]["Assumptions"] == counts(["pass", "pass", "fail"])
    assert m1["per_family"]["Process"] == counts(["undecided", "pass"])
    assert m1["reward"]["items"] == 4 and m1["reward"]["undecided"] == 1
    assert m1["reward"]["mean"] == pytest.approx((1.0 + 0.0 + 0.7 + 0.5) / 4)


def test_gating_on_correctness(catalog, audits):
    report = build_report(audits, catalog, mode="strict", judges=[], gate_on_correctness=True)
    # c complies but is wrong: gated, it no longer counts as compliant.
    assert report["models"]["m1"]["multi_constraint"] == counts(["fail", "undecided", "fail"])


def test_tables_and_serialisable(catalog, audits):
    report = build_report(audits, catalog, mode="loose", judges=["a"])
    assert report["table5_compliance_vs_k"] == {
        "k": [1, 2, 3], "rows": {"m1": {"1": 0.5, "2": 0.5, "3": 0.0}, "m2": {"1": 0.0, "2": None, "3": None}}}
    assert report["table1_per_constraint_rate"]["m1"] == {"A": 2 / 3, "BC": 1.0, "US": 2 / 3, "NM": 0.5}
    assert len(report["items"]) == 6
    json.dumps(report, allow_nan=False)
