"""docs/api.md is the page ddblas.tools.apidoc generates from the package, entry for entry."""
from __future__ import annotations

import pytest

import ddblas
from ddblas.tools import apidoc


def test_api_page_is_up_to_date():
    assert apidoc.DEFAULT_PATH.read_text() == apidoc.render(), (
        "docs/api.md is out of date: run python -m ddblas.tools.apidoc")


def test_every_public_name_has_an_entry_with_a_summary():
    page = apidoc.render()
    for name in ddblas.__all__:
        assert f"`ddblas.{name}" in page, name
    for name in ("astype", "tolist", "item", "to_decimal_string", "dtype", "to_mpmath"):
        assert f"`DDArray.{name}" in page, name
    for name in ddblas.linalg.__all__:
        assert f"`ddblas.linalg.{name}" in page, name
        assert apidoc.summary(getattr(ddblas.linalg, name)), name
    undocumented = [name for name in ddblas.__all__ if not apidoc.summary(getattr(ddblas, name))
                    and not isinstance(getattr(ddblas, name), ddblas.DDType)]
    assert undocumented == []


def test_summary_and_signature():
    def f(a, b=2, *, c=None):
        """First line
        continues.

        Second paragraph."""
    assert apidoc.summary(f) == "First line continues."
    assert apidoc.signature("f", f) == "f(a, b=2, *, c=None)"
    assert apidoc.signature("len", len) == "len(obj, /)"


def test_main_writes_the_page(tmp_path, capsys):
    assert apidoc.main([str(tmp_path / "api.md")]) == 0
    assert (tmp_path / "api.md").read_text() == apidoc.render()
    assert "wrote" in capsys.readouterr().out


def test_main_help_and_bad_arguments_write_nothing(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(SystemExit) as exit_info:
        apidoc.main(["--help"])
    assert exit_info.value.code == 0 and "usage: python -m ddblas.tools.apidoc" in \
        capsys.readouterr().out
    for argv, message in [(["a.md", "b.md"], "unrecognized arguments: b.md"),
                          ([str(tmp_path)], "is a directory")]:
        with pytest.raises(SystemExit) as exit_info:
            apidoc.main(argv)
        assert exit_info.value.code == 2 and message in capsys.readouterr().err
    assert list(tmp_path.iterdir()) == []
