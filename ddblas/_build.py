"""Compiled-artifact cache shared by the CPU and GPU backends.

Both backends compile the same sources in ``cuda_src/`` once and keep the result on disk, under a
name that hashes every source file's text, the compiler flags and the compiler's identity, so a
change to any of them builds anew. Files are written to a temporary name and renamed into place
(atomic on POSIX), so concurrent processes never see a half-written artifact.
"""
from __future__ import annotations

import hashlib
import os
import pathlib
import tempfile

_HERE = pathlib.Path(__file__).resolve().parent


def source_dir() -> pathlib.Path:
    """cuda_src/: inside the installed package (wheel) or beside it (source tree, editable)."""
    for candidate in (_HERE / "cuda_src", _HERE.parent / "cuda_src"):
        if (candidate / "dd.h").is_file():
            return candidate
    raise RuntimeError(f"ddblas: kernel sources (cuda_src/) not found near {_HERE}; reinstall ddblas")


def source_files() -> dict[str, str]:
    """Name -> text of every file in cuda_src/ (headers and the two entry files)."""
    return {p.name: p.read_text() for p in sorted(source_dir().iterdir())
            if p.suffix in (".h", ".cpp", ".cu")}


def cache_dir() -> pathlib.Path:
    """$DDBLAS_CACHE_DIR, else $XDG_CACHE_HOME/ddblas, else ~/.cache/ddblas."""
    override = os.environ.get("DDBLAS_CACHE_DIR")
    if override:
        path = pathlib.Path(override)
    else:
        base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
        path = pathlib.Path(base) / "ddblas"
    path.mkdir(parents=True, exist_ok=True)
    return path


def artifact_key(*parts: str) -> str:
    """A hex digest of every source file's name and text followed by the given parts."""
    h = hashlib.sha256()
    for name, text in source_files().items():
        h.update(name.encode() + b"\0" + text.encode() + b"\0")
    for part in parts:
        h.update(part.encode() + b"\0")
    return h.hexdigest()[:32]


def write_atomically(path: pathlib.Path, data: bytes) -> None:
    """Write data to path through a temporary file in the same folder and an atomic rename."""
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=path.name + ".", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise
