"""python -m ddblas accuracy (ddblas/tools/accuracy_report.py): the report flags bounds that
the measured errors exceed and writes its markdown and plots."""
from __future__ import annotations

import pytest

from ddblas.tools import accuracy_report


@pytest.mark.slow
def test_report_flags_a_bound_violation(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(accuracy_report.accuracy, "bound",
                        lambda op, variant=None, k=None: {"mul": 1e-3, "div": 1e-6}.get(op, 1e9))
    assert accuracy_report.run(quick=True, out_dir=str(tmp_path)) == 1
    out = capsys.readouterr().out
    assert "violations; the worst: div " in out and "exceeds the bound 1e-06" in out
    text = (tmp_path / "accuracy.md").read_text()
    assert "violations" in text and (tmp_path / "accuracy-gemm.png").stat().st_size > 1000
    assert "| 64 | 0 | " in text and "S = 5" in text and "fallback: entries more than 2^450" in text
    assert (tmp_path / "accuracy-ozaki.png").stat().st_size > 1000


def test_against_n_rows_say_out_of_memory_for_operands_that_cannot_be_made(tmp_path):
    """N = 200000 (596 GiB of operands): its rows say out of memory and the report is written
    (the operands were made outside the MemoryError handling: a traceback, no report)."""
    assert accuracy_report.run(quick=True, out_dir=str(tmp_path), n_sizes=[200000]) == 0
    text = (tmp_path / "accuracy.md").read_text()
    assert "| 200000 | classic (blocked) | | | out of memory" in text
