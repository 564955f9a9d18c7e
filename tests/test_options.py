"""ddblas.options: defaults, the context manager, thread-locality, per-call keywords."""
from __future__ import annotations

import threading

import numpy as np
import pytest

import ddblas


def test_defaults_and_context_manager():
    assert ddblas.get_options() == ddblas.Options(fma=True, add="accurate")
    with ddblas.options(fma=False):
        assert ddblas.get_options() == ddblas.Options(fma=False, add="accurate")
        with ddblas.options(add="sloppy"):
            assert ddblas.get_options() == ddblas.Options(fma=False, add="sloppy")
        assert ddblas.get_options().add == "accurate"
    assert ddblas.get_options() == ddblas.Options()


def test_context_is_restored_after_an_exception():
    with pytest.raises(RuntimeError):
        with ddblas.options(fma=False):
            raise RuntimeError
    assert ddblas.get_options().fma is True


def test_options_are_thread_local():
    seen = {}
    inside = threading.Event()
    release = threading.Event()

    def worker():
        with ddblas.options(add="sloppy"):
            inside.set()
            release.wait(5)
            seen["worker"] = ddblas.get_options().add

    t = threading.Thread(target=worker)
    t.start()
    inside.wait(5)
    seen["main"] = ddblas.get_options().add
    release.set()
    t.join()
    assert seen == {"worker": "sloppy", "main": "accurate"}


def test_options_select_the_kernels(device):
    a = ddblas.random((4096,), seed=1, device=device)
    b = ddblas.random((4096,), seed=2, device=device)
    with ddblas.options(fma=False):
        in_context = a * b
    assert bool((in_context == ddblas.multiply(a, b, fma=False)).all())
    assert bool((in_context != ddblas.multiply(a, b, fma=True)).any())
    with ddblas.options(fma=False):  # a per-call keyword beats the context
        assert bool((ddblas.multiply(a, b, fma=True) == a * b).all()) is False
        assert bool((ddblas.multiply(a, b, fma=True) == ddblas.multiply(a, b, fma=True)).all())


def test_invalid_options_are_refused_with_the_value_quoted():
    with pytest.raises(ValueError, match="'fast'"):
        with ddblas.options(add="fast"):
            pass
    with pytest.raises(ValueError, match="'yes'"):
        ddblas.options(fma="yes").__enter__()



def test_numpy_bools_are_bools():
    """fma=np.True_ (from a NumPy comparison, say) is True: it was refused."""
    for value in (np.True_, np.False_):
        with ddblas.options(fma=value) as opts:
            assert opts.fma is bool(value)
    assert ddblas.multiply(ddblas.ones(2), 3, fma=np.False_).hi.tolist() == [3.0, 3.0]


def test_options_are_per_asyncio_task():
    """Interleaved tasks see only their own options, and every block restores what was in force
    (with a thread-local, task a saw b's add and the thread kept a's fma afterwards)."""
    import asyncio

    async def a():
        with ddblas.options(fma=False):
            await asyncio.sleep(0.01)
            return ddblas.get_options()

    async def b():
        with ddblas.options(add="sloppy"):
            await asyncio.sleep(0.02)
            return ddblas.get_options()

    async def both():
        return await asyncio.gather(a(), b())

    before = ddblas.get_options()
    seen_a, seen_b = asyncio.run(both())
    assert seen_a == ddblas.Options(fma=False, add=before.add)
    assert seen_b == ddblas.Options(fma=before.fma, add="sloppy")
    assert ddblas.get_options() == before


@pytest.mark.parametrize("fma, add", [("no", "accurate"), (None, "accurate"), (True, "foo")])
def test_options_objects_are_validated(fma, add):
    """Options(fma="no") was accepted and bound() then used the FMA row."""
    with pytest.raises(ValueError, match="fma|add|Options"):
        ddblas.Options(fma=fma, add=add)


def test_options_take_numpy_bools_as_options_does():
    """Probe of 2026-11-28: ddblas.options(fma=np.True_) was accepted and Options(fma=np.True_)
    a ValueError; both take it as True now (a Python bool in the Options)."""
    made = ddblas.Options(fma=np.False_, add="sloppy")
    assert made == ddblas.Options(fma=False, add="sloppy") and type(made.fma) is bool
    with ddblas.options(fma=np.False_):
        assert ddblas.get_options().fma is False
