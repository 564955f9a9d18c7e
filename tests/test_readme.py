"""Every ```python block of README.md runs as written, each on its own (a fresh namespace).
Without a GPU its GPU lines run on the CPU instead ("gpu" read as "cpu"), so the CPU lines and
what they feed are still checked."""
from __future__ import annotations

import pathlib
import re

import pytest

import ddblas

README = pathlib.Path(__file__).resolve().parent.parent / "README.md"


def python_blocks(text: str) -> list[str]:
    """The bodies of the ```python fenced blocks of a markdown text."""
    return re.findall(r"^```python\n(.*?)^```", text, re.M | re.S)


def test_blocks_found():
    assert python_blocks("a\n```python\nx = 1\n```\n```sh\nls\n```\n```python\ny\n```\n") == \
        ["x = 1\n", "y\n"]
    assert len(python_blocks(README.read_text())) >= 2


@pytest.mark.parametrize("number", range(len(python_blocks(README.read_text()))))
def test_readme_snippet_runs(number, capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # files the snippets write (ddblas.save) land there
    code = python_blocks(README.read_text())[number]
    if not ddblas.gpu_available():
        code = code.replace('"gpu"', '"cpu"')
    try:
        exec(compile(code, f"README.md python block {number + 1}", "exec"), {})
    except ImportError as exc:  # an optional package of the test extra (xprec, numpy-quaddtype)
        if "pip install" not in str(exc):
            raise
        pytest.skip(f"README block {number + 1} needs an optional package: {exc}")
    assert capsys.readouterr().out  # every snippet prints what it shows
