"""Compiled-artifact cache shared by the CPU and GPU backends.

The kernels are built by family (elementwise, reduce, gemm, tsm, batched, ozaki, linalg, bench; "host" on the
CPU), each from its entry unit cuda_src/units/<family>.cpp or .cu, at the first launch of one of
its kernels. An artifact is named by a hash of the text of its unit and of every header the unit
includes (followed transitively), the compiler flags and the compiler's identity, so a change to
any of them rebuilds only the families concerned.

Every artifact has a checksum file beside it (its size and SHA-256); an artifact that is missing,
truncated or altered is rebuilt (a warning says so) before anything loads it. Builds write to a
temporary name and rename into place (atomic on POSIX) under a per-artifact file lock, so
concurrent processes compile once and never see a half-written file. A cache folder that cannot be
written is checked before compiling: the build goes to a private per-user temporary folder, with a
warning naming DDBLAS_CACHE_DIR; so does one that fails the write itself (a full disk, another
user's file in a sticky folder). Artifacts are readable by all (0644), so that users who share a
cache folder share its builds.
"""
from __future__ import annotations

import contextlib
import errno
import functools
import hashlib
import logging
import os
import pathlib
import re
import stat
import tempfile
import threading
import time
import warnings

try:
    import fcntl
except ImportError:   # not POSIX
    fcntl = None

_HERE = pathlib.Path(__file__).resolve().parent
log = logging.getLogger("ddblas.build")

# The family of a kernel, by the first matching name prefix; "elementwise" when none matches.
KERNEL_FAMILIES = (
    ("ddblas_gemm_batched_", "batched"),
    ("ddblas_gemm_tsm", "tsm"),
    ("ddblas_gemm_pieces_", "tsm"),
    ("ddblas_gemm_", "gemm"),
    ("ddblas_ozaki", "ozaki"),
    ("ddblas_census_", "bench"),
    ("ddblas_madd_ceiling", "bench"),
    ("ddblas_linalg_batched_", "linalg_batched"),  # before "ddblas_linalg_"
    ("ddblas_linalg_", "linalg"),
    ("ddblas_reduce_", "reduce"),
    ("ddblas_trig_", "trig"),
    ("ddblas_elem_", "elementary"),
)
# The variants (cuda_src/kernels.h), as kernel names end.
VARIANTS = ("fma_accurate", "fma_sloppy", "nofma_accurate", "nofma_sloppy")
# Families built once per variant, so that a first call compiles only the variant it runs: every
# kernel name of theirs ends in its variant, and their units compiled with
# -DDDBLAS_UNIT_VARIANT=<variant> instantiate that variant alone (kernels.h).
VARIANT_FAMILIES = ("gemm", "tsm", "elementary", "trig")
UNIT_SUFFIX = {"cpu": ".cpp", "gpu": ".cu"}
_INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def source_dir() -> pathlib.Path:
    """cuda_src/: inside the installed package (wheel) or beside it (source tree, editable)."""
    for candidate in (_HERE.parent / "cuda_src", _HERE.parent.parent / "cuda_src"):
        if (candidate / "dd.h").is_file():
            return candidate
    raise RuntimeError(f"ddblas: kernel sources (cuda_src/) not found near {_HERE}; reinstall ddblas")


def family_of(kernel: str) -> str:
    """The family whose unit defines `kernel` (KERNEL_FAMILIES)."""
    return next((family for prefix, family in KERNEL_FAMILIES if kernel.startswith(prefix)),
                "elementwise")


@functools.cache
def build_of(kernel: str) -> tuple[str, str | None]:
    """(family, variant) of the artifact that defines `kernel`; variant None for the families
    built whole."""
    family = family_of(kernel)
    if family not in VARIANT_FAMILIES:
        return family, None
    variant = next((v for v in VARIANTS if kernel.endswith("_" + v)), None)
    if variant is None:
        raise ValueError(f"kernel {kernel!r} of the {family} family names no variant")
    return family, variant


def variant_defines(variant: str | None) -> tuple[str, ...]:
    """The compiler options that restrict a unit to one variant (none for variant None)."""
    if variant is None:
        return ()
    if variant not in VARIANTS:
        raise ValueError(f"variant must be one of {', '.join(VARIANTS)}, got {variant!r}")
    return (f"-DDDBLAS_UNIT_VARIANT={variant}",)


def artifact_stem(device: str, family: str, variant: str | None) -> str:
    """The start of an artifact's file name, e.g. ddblas_gpu_gemm_fma_sloppy."""
    return f"ddblas_{device}_{family}" + (f"_{variant}" if variant else "")


def units(device: str) -> dict[str, pathlib.Path]:
    """Family -> entry unit (cuda_src/units/<family>.cpp for "cpu", .cu for "gpu")."""
    suffix = UNIT_SUFFIX[device]
    return {p.stem: p for p in sorted((source_dir() / "units").iterdir()) if p.suffix == suffix}


def unit(family: str, device: str) -> pathlib.Path:
    """The entry unit of a family on a device; a ValueError names the families there are."""
    found = units(device)
    if family not in found:
        raise ValueError(f"family must be one of {', '.join(found)} on the {device}, "
                         f"got {family!r}")
    return found[family]


def unit_sources(path: pathlib.Path) -> dict[str, str]:
    """Name -> text of the unit and of every header it includes with #include "...",
    transitively (headers are looked up in cuda_src/)."""
    files, todo = {}, [path]
    while todo:
        current = todo.pop()
        name = current.name if current != path else "units/" + current.name
        if name in files:
            continue
        text = current.read_text()
        files[name] = text
        todo += [source_dir() / header for header in _INCLUDE.findall(text)
                 if header not in files]
    return dict(sorted(files.items()))


def artifact_key(path: pathlib.Path, *parts: str) -> str:
    """A hex digest of the unit's sources (unit_sources) followed by the given parts."""
    h = hashlib.sha256()
    for name, text in unit_sources(path).items():
        h.update(name.encode() + b"\0" + text.encode() + b"\0")
    for part in parts:
        h.update(part.encode() + b"\0")
    return h.hexdigest()[:32]


def cache_dir() -> pathlib.Path:
    """$DDBLAS_CACHE_DIR, else $XDG_CACHE_HOME/ddblas (where absolute: the XDG specification
    ignores relative values), else ~/.cache/ddblas (not created here), absolute (ctypes searches
    the library path for a bare file name: "." failed to load); without a home folder (no $HOME
    and no passwd entry, as for a container run under an arbitrary uid) fallback_dir()."""
    override = os.environ.get("DDBLAS_CACHE_DIR")
    if override:   # "~/x" is the home's x, as a shell would expand it (it made a folder "~")
        try:
            return pathlib.Path(override).expanduser().absolute()
        except RuntimeError as exc:   # "~nosuchuser/x"
            raise RuntimeError(f"DDBLAS_CACHE_DIR={override}: {exc}") from None
    base = os.environ.get("XDG_CACHE_HOME", "")
    if not os.path.isabs(base):
        home = os.path.expanduser("~")
        if not os.path.isabs(home):   # "~" unexpanded: it made a folder "~" in the working one
            return fallback_dir()
        base = os.path.join(home, ".cache")
    return pathlib.Path(base) / "ddblas"


def _private_dir(path: pathlib.Path) -> bool:
    """Whether path is a folder of this user that nobody else may write to."""
    try:
        info = path.lstat()
    except OSError:
        return False
    return (stat.S_ISDIR(info.st_mode) and info.st_uid == os.getuid()
            and not info.st_mode & (stat.S_IWGRP | stat.S_IWOTH))


def _user_temp_dir() -> pathlib.Path:
    return pathlib.Path(tempfile.gettempdir()) / f"ddblas-cache-{os.getuid()}"


@functools.lru_cache(maxsize=None)
def _fresh_private_dir(parent: str) -> pathlib.Path:
    """One fresh private folder in parent for this process (a folder made per call made each
    kernel family compile in its own, and again at every call)."""
    return pathlib.Path(tempfile.mkdtemp(prefix="ddblas-cache-", dir=parent))


def fallback_dir() -> pathlib.Path:
    """A private per-user folder under the system's temporary folder (created 0700); when that
    name is taken by a folder another user owns or may write, a fresh private folder instead,
    the same for the whole process."""
    path = _user_temp_dir()
    try:
        path.mkdir(mode=0o700, exist_ok=True)
    except OSError:
        pass
    return path if _private_dir(path) else _fresh_private_dir(tempfile.gettempdir())


def writable(path: pathlib.Path) -> bool:
    """Whether files can be created in `path` (created if missing), tried with a real file."""
    try:
        path.mkdir(parents=True, exist_ok=True)
        fd, probe = tempfile.mkstemp(dir=path, prefix=".probe.")
        os.close(fd)
        os.unlink(probe)
        return True
    except OSError:
        return False


def checksum_path(path: pathlib.Path) -> pathlib.Path:
    """The file beside an artifact holding its size and SHA-256."""
    return path.with_name(path.name + ".sha256")


def _checksum(data: bytes) -> str:
    return f"{len(data)} {hashlib.sha256(data).hexdigest()}\n"


def check(path: pathlib.Path) -> str:
    """"ok" when the artifact and its checksum file exist and agree, "missing" when the artifact
    does not exist, else why it must not be loaded (a FIFO or a folder under its name is not
    read: reading a FIFO would wait forever)."""
    for name in (path, checksum_path(path)):
        try:
            mode = name.stat().st_mode
        except FileNotFoundError:
            continue
        except OSError as exc:   # a folder this user may not search, a name too long...
            return f"unreadable ({exc})"
        if not stat.S_ISREG(mode):
            return f"{name} is not a regular file"
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return "missing"
    except OSError as exc:
        return f"unreadable ({exc})"
    try:   # bytes: a checksum file of other bytes than UTF-8 is damaged, not an error
        recorded = checksum_path(path).read_bytes()
    except OSError:
        return "no checksum file"
    if recorded != _checksum(data).encode():
        return f"size or SHA-256 differs from its checksum file ({len(data)} bytes)"
    return "ok"


def write_atomically(path: pathlib.Path, data: bytes) -> None:
    """Write data to path through a temporary file in the same folder and an atomic rename."""
    if path.is_dir() and not path.is_symlink():
        raise RuntimeError(f"ddblas: {path} is a folder where a compiled kernel belongs: remove "
                           f"it (or set DDBLAS_CACHE_DIR to another folder)")
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=path.name + ".", suffix=".tmp")
    try:
        os.fchmod(fd, 0o644)   # mkstemp's 0600 made other users of a shared cache rebuild
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def store(path: pathlib.Path, data: bytes) -> None:
    """Write an artifact and its checksum file (each atomically)."""
    write_atomically(path, data)
    write_atomically(checksum_path(path), _checksum(data).encode())


# The descriptors of the locks this process holds: a child forked meanwhile closes its copies,
# which would otherwise keep the lock after the parent's release (flock belongs to the open file,
# which the child shares), so that the child waited forever on a lock it held itself.
_held_locks: set = set()
_held_locks_guard = threading.Lock()


def _close_inherited_locks() -> None:
    for fd in _held_locks:
        os.close(fd)
    _held_locks.clear()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_close_inherited_locks)


# How long a build waits for another process's lock before a warning says so (it waits on).
LOCK_PATIENCE_S = 60.0
# flock's errors on file systems that take no locks (Lustre mounted without -o flock: ENOSYS;
# NFS without its lock daemon: ENOLCK).
_NO_LOCKS = {errno.ENOSYS, errno.ENOLCK, errno.EOPNOTSUPP, getattr(errno, "ENOTSUP", 0)}
_warned_no_locks: set = set()


def _acquire(lock: int, name: pathlib.Path) -> bool:
    """flock(lock, LOCK_EX): True once held; False where the file system takes no locks (a
    warning, once per folder). While another process holds it, an INFO line says whose build
    is awaited, and a warning after LOCK_PATIENCE_S names the lock file (a process stopped with
    ^Z or hung while building holds it; a killed one's lock is gone with it)."""
    start, waited, delay = time.monotonic(), False, 0.01
    while True:
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return True
        except BlockingIOError:
            pass
        except OSError as exc:
            if exc.errno not in _NO_LOCKS:
                raise
            if name.parent not in _warned_no_locks:
                _warned_no_locks.add(name.parent)
                log.warning("ddblas: the file system of %s takes no file locks (%s); building "
                            "without one (concurrent processes may compile the same kernels, "
                            "each file is still written whole)", name.parent, exc.strerror)
            return False
        if not waited:
            log.info("ddblas: waiting for another process building %s (it holds %s) ...",
                     name.name[:-len(".lock")], name)
        elif start is not None and time.monotonic() - start > LOCK_PATIENCE_S:
            log.warning("ddblas: still waiting after %.0f s for %s, held by another process: if "
                        "no ddblas process is compiling (one stopped with ^Z, or hung), end it "
                        "or set DDBLAS_CACHE_DIR to another folder", LOCK_PATIENCE_S, name)
            start = None   # once
        waited = True
        time.sleep(delay)
        delay = min(2 * delay, 0.2)


@contextlib.contextmanager
def _locked(path: pathlib.Path):
    """An exclusive lock on path + ".lock" for the block (POSIX flock; none elsewhere, nor on a
    file system that takes no locks)."""
    if fcntl is None:  # not POSIX: the atomic renames alone keep files whole
        yield
        return
    # read-only: a lock file another user created (shared cache) still locks; non-blocking
    # open: a FIFO under the lock's name is refused below instead of waiting for a writer
    name = path.with_name(path.name + ".lock")
    lock = os.open(name, os.O_RDONLY | os.O_CREAT | os.O_NONBLOCK, 0o644)
    try:
        info = os.fstat(lock)
        if not stat.S_ISREG(info.st_mode):
            raise RuntimeError(f"ddblas: {name} is not a regular file: remove it (or set "
                               f"DDBLAS_CACHE_DIR to another folder)")
        if info.st_uid == os.getuid() and info.st_mode & 0o044 != 0o044:
            # a umask of 077 made it 0600: other users of a shared cache could not open it
            # and built their kernels in a temporary folder instead
            with contextlib.suppress(OSError):
                os.fchmod(lock, 0o644)
        if _acquire(lock, name):
            with _held_locks_guard:
                _held_locks.add(lock)
        yield
    finally:
        with _held_locks_guard:
            _held_locks.discard(lock)
        os.close(lock)  # releases the lock


_warned_fallback: set = set()


def _fallback(primary: pathlib.Path, why: str) -> pathlib.Path:
    """fallback_dir(), with a warning (once per folder) naming DDBLAS_CACHE_DIR and why."""
    fallback = fallback_dir()
    if not writable(fallback):
        raise RuntimeError(f"ddblas: cannot write compiled kernels to {primary} nor {fallback}; "
                           "set DDBLAS_CACHE_DIR to a writable folder")
    if primary not in _warned_fallback:
        _warned_fallback.add(primary)
        message = (f"ddblas: the kernel cache {primary} {why}; compiling into {fallback} instead "
                   "(set DDBLAS_CACHE_DIR to a writable folder to keep compiled kernels)")
        log.warning(message)
        warnings.warn(message, RuntimeWarning, stacklevel=4)
    return fallback


def build_dir() -> pathlib.Path:
    """The folder new artifacts go to: cache_dir() when writable, else fallback_dir() with a
    warning (once per folder) naming DDBLAS_CACHE_DIR."""
    primary = cache_dir()
    if writable(primary):
        return primary
    return _fallback(primary, "is a file, not a folder" if primary.is_file() else
                     "is not writable")


def cached(name: str, build, what: str | None) -> pathlib.Path:
    """The path of the verified artifact `name`: from cache_dir() or fallback_dir() when it checks
    out there, else built by build() -> bytes into build_dir(), with one INFO line on the
    "ddblas.build" logger ("compiling ddblas <what> (first use, cached) ...", what e.g. "gemm
    kernels for sm_90"; none for what=None, a probe's quick result) and a warning first if a
    damaged copy is being replaced. An exception from build() propagates and stores nothing
    (an OSError too: only the cache's own OSErrors send the build to the fallback folder)."""
    places = [cache_dir() / name]
    if _private_dir(_user_temp_dir()):
        places.append(_user_temp_dir() / name)
    for path in places:
        if check(path) == "ok":
            return path
    folder = build_dir()
    built = None
    building = False
    while True:
        path = folder / name
        try:
            with _locked(path):
                status = check(path)  # another process may have built it meanwhile
                if status == "ok":
                    return path
                if status != "missing":
                    log.warning("ddblas: the cached kernels %s are damaged (%s); rebuilding",
                                path, status)
                if built is None:
                    if what is not None:
                        log.info("compiling ddblas %s (first use, cached) ...", what)
                    building = True
                    built = build()
                    building = False
                store(path, built)
            return path
        except OSError as exc:   # a full disk, another user's file in a sticky folder...
            if building or folder != cache_dir():
                raise
            folder = _fallback(folder, f"cannot take the build ({exc})")


def cache_folders() -> list[pathlib.Path]:
    """The folders cached() looks in: cache_dir() and, where it is this user's private one, the
    per-user fallback folder (the fresh folders made when that name is someone else's hold one
    process's builds and are not listed)."""
    folders = [cache_dir()]
    if _private_dir(_user_temp_dir()) and _user_temp_dir() not in folders:
        folders.append(_user_temp_dir())
    return folders


def cache_files(folder: pathlib.Path) -> list[pathlib.Path]:
    """ddblas's files in a cache folder: artifacts, checksums, locks and the temporary files of
    writes cut short (every name starts with "ddblas_"; nothing else there is ddblas's, since
    DDBLAS_CACHE_DIR may name a folder of other files); [] for a folder that cannot be read."""
    try:
        names = sorted(os.listdir(folder))
    except OSError:
        return []
    return [folder / n for n in names
            if n.startswith("ddblas_") and os.path.isfile(folder / n)
            and not os.path.islink(folder / n)]


def clear_cache() -> tuple[int, int]:
    """Remove ddblas's files from cache_folders() (the kernels are compiled again at their next
    use): (files removed, bytes freed). A lock that another process holds (it is building) is
    left with its artifact; other files of the folders are never touched. Safe while other
    processes run: they hold their libraries open, and a removed artifact is rebuilt."""
    removed = freed = 0
    for folder in cache_folders():
        files = cache_files(folder)
        busy = set()
        for lock in (f for f in files if f.name.endswith(".lock")):
            try:
                fd = os.open(lock, os.O_RDONLY | os.O_NONBLOCK)
            except OSError:
                continue
            try:
                if fcntl is not None:
                    try:
                        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                    except BlockingIOError:
                        busy.add(lock.name[:-len(".lock")])
                        continue
                    except OSError:
                        pass
                size = os.fstat(fd).st_size
                os.unlink(lock)   # while held: nobody builds meanwhile under this lock
                removed, freed = removed + 1, freed + size
            except OSError:
                pass
            finally:
                os.close(fd)
        for path in files:
            artifact = ".".join(path.name.split(".")[:2])   # of x.so.sha256, x.so.1a2b.tmp
            if path.name.endswith(".lock") or artifact in busy:
                continue
            try:
                size = path.stat().st_size
                path.unlink()
                removed, freed = removed + 1, freed + size
            except OSError:
                pass
    return removed, freed
