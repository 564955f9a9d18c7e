"""DDArray as a NumPy citizen (issue 17, items 4-7): dtype, astype, tolist, item; save/load and the
xprec / numpy-quaddtype conversions; format(), to_decimal_string and the print options;
random's shape-independent draws; np.dot on N-d arrays."""
from __future__ import annotations

import decimal
import io
import math
import os
import pickle
import random
import re
import subprocess
import sys
import zipfile
from fractions import Fraction

import mpmath
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ddblas
from ddvalues import dd_value, exact_values, gemm_constant, same_bits, to_ddarray

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# Adversarial pairs: -0, subnormals, the largest DD, NaN, infinities, wide gaps hi/lo.
SPECIAL_PAIRS = [(0.0, 0.0), (-0.0, 0.0), (5e-324, 0.0), (1e-300, -5e-324),
                 (1.0, 2.0 ** -200), (1.0, -2.0 ** -1074), (1.7976931348623157e308, 2.0 ** 969),
                 (math.nan, math.nan), (math.inf, 0.0), (-math.inf, 0.0), (0.1, -5.551115123125783e-18)]


def mpf_fraction(value) -> Fraction:
    """An mpmath mpf's exact value (man_exp: every mpmath version has it)."""
    man, exp = value.man_exp  # the magnitude's
    return (-1 if value < 0 else 1) * Fraction(abs(man)) * Fraction(2) ** exp


def special_array(device):
    hi = np.array([p[0] for p in SPECIAL_PAIRS])
    lo = np.array([p[1] for p in SPECIAL_PAIRS])
    return ddblas.DDArray(hi, lo, normalize=False).to_device(device)


# ---- item 4: dtype, astype, tolist, item ----
def test_dtype_marker(device):
    x = ddblas.zeros((2, 3), device=device)
    assert x.dtype is ddblas.dd and x.dtype == "dd" and x.dtype != "float64"
    assert (ddblas.dd.name, ddblas.dd.kind, ddblas.dd.itemsize, str(ddblas.dd)) == ("dd", "f", 16, "dd")
    assert repr(ddblas.dd) == "ddblas.dd" and hash(ddblas.dd) == hash("dd")
    assert x.parts_dtype == np.float64
    with pytest.raises(TypeError):
        np.dtype(ddblas.dd)


def test_astype(device):
    x = special_array(device)
    f = x.astype(np.float64)
    assert type(f) is type(x.hi) and same_bits(f, x.hi)  # fl(hi + lo) = hi, -0.0 kept
    for name in (float, "float64", "f8", np.dtype(np.float64)):
        assert same_bits(x.astype(name), f)
    for marker in ("dd", ddblas.dd):
        y = x.astype(marker)
        assert same_bits(y, x) and y is not x and y.hi is not x.hi
    assert x.astype("dd", copy=False) is x
    objects = x.astype(object)
    assert isinstance(objects, np.ndarray) and objects.dtype == object and objects.shape == x.shape
    for value, (hi, lo) in zip(objects, SPECIAL_PAIRS):
        if math.isnan(hi):
            assert mpmath.isnan(value)
        elif math.isinf(hi):
            assert value == hi
        else:
            assert isinstance(value, mpmath.mpf) and mpf_fraction(value) == \
                Fraction(hi) + Fraction(lo)
    for bad in (np.float32, np.int64, "complex128", "ddd"):
        with pytest.raises(TypeError, match="dtype"):
            x.astype(bad)


@settings(max_examples=40)
@given(st.lists(dd_value(min_exp=-1000, max_exp=1000), min_size=1, max_size=6))
def test_tolist_and_item_are_exact(device, pairs):
    x = to_ddarray(pairs, device)
    exact = exact_values(x)
    values = x.tolist()
    assert [mpf_fraction(v) for v in values] == exact
    assert x.tolist(kind="float") == [float(h + l) for h, l in pairs]
    assert mpf_fraction(x.item(len(pairs) - 1)) == exact[-1]
    assert x.item(0, kind="float") == pairs[0][0] + pairs[0][1]
    assert x.to_mpmath() == values
    grid = x.reshape(1, len(pairs), 1)
    assert grid.tolist() == [[[v] for v in values]]
    assert mpf_fraction(grid.item(0, len(pairs) - 1, 0)) == exact[-1]


def test_mpmath_values_show_32_digits_and_stay_exact():
    x = ddblas.array(["0.1", "1e-300"])
    first, second = x.to_mpmath()
    assert mpmath.mp.dps == 15
    assert repr(first) == "mpf('0.099999999999999999999999999999999692')"
    assert str(first) == "0.1" and str(ddblas.array(1) / 3).startswith("3.33333333333333333")
    assert len(repr(second).split("e")[0]) > 32
    assert repr(x.to_mpmath()).count("9999999999999999999999") == 2  # a list shows 32 digits
    assert isinstance(first + 1, mpmath.mpf) and type(first + 1) is mpmath.mpf
    assert pickle.loads(pickle.dumps(first)) == first
    with mpmath.workprec(300):  # arithmetic follows mpmath's precision, not the display's
        tiny = mpmath.mpf(2) ** -200
        assert first - tiny == mpf_fraction(first) - Fraction(1, 2 ** 200)
    assert first - tiny == 0.1  # rounded to mpmath's default 53 bits
    assert float(x[0].item()) == 0.1


def test_item_and_tolist_errors(device):
    x = ddblas.zeros((2, 2), device=device)
    with pytest.raises(ValueError, match="size 1"):
        x.item()
    with pytest.raises(IndexError):
        x.item(4)
    with pytest.raises(ValueError, match="kind"):
        x.tolist(kind="str")
    with pytest.raises(ValueError, match="kind"):
        x[0, 0].item(kind=float)
    assert ddblas.zeros((1, 1), device=device).item() == 0
    assert ddblas.zeros((0, 3), device=device).tolist() == []
    assert ddblas.array("2.5", device=device).tolist() == 2.5


# ---- item 5: save / load, xprec, numpy-quaddtype ----
@pytest.mark.parametrize("shape", [(11,), (0,), (), (3, 0, 2)])
def test_save_load_round_trip_bitwise(device, tmp_path, shape):
    x = special_array(device)
    x = x[0] if shape == () else (x if shape == (11,) else ddblas.zeros(shape, device=device))
    path = tmp_path / "x"
    ddblas.save(path, x)
    assert (tmp_path / "x.npz").exists()
    for target in ("cpu", device):
        y = ddblas.load(tmp_path / "x.npz", device=target)
        assert y.device == target and same_bits(y, x)


def test_save_load_strided_view_and_file_object(device, tmp_path):
    x = ddblas.random((6, 5), seed=3, device=device).T[::2, 1:]
    with open(tmp_path / "v.npz", "wb") as f:
        ddblas.save(f, x)
    with open(tmp_path / "v.npz", "rb") as f:
        assert same_bits(ddblas.load(f, device=device), x)


def test_load_refuses_other_files(tmp_path):
    np.save(tmp_path / "a.npy", np.zeros(3))
    np.savez(tmp_path / "b.npz", hi=np.zeros(2), lo=np.zeros(2))
    np.savez(tmp_path / "c.npz", format=np.array("ddblas-dd-v1"), hi=np.zeros(2))
    np.savez(tmp_path / "d.npz", format=np.array("ddblas-dd-v1"), shape=np.array([3]),
             hi=np.zeros(2), lo=np.zeros(2))
    (tmp_path / "e.txt").write_text("not numpy")
    cases = {"a.npy": "holds one NumPy array of dtype float64", "b.npz": "found no format tag",
             "c.npz": "lacks", "d.npz": "must be float64 of shape", "e.txt": "cannot read it"}
    for name, message in cases.items():
        with pytest.raises(ValueError, match=message) as info:
            ddblas.load(tmp_path / name)
        assert name in str(info.value) and "not a ddblas DD file" in str(info.value) or \
            "damaged" in str(info.value)
    with pytest.raises(FileNotFoundError):
        ddblas.load(tmp_path / "missing.npz")
    with pytest.raises(TypeError, match="DDArray"):
        ddblas.save(tmp_path / "f", np.zeros(3))
    with pytest.raises(ValueError, match="device"):
        ddblas.load(tmp_path / "a.npy", device="tpu")


def npy_bytes(array) -> bytes:
    buffer = io.BytesIO()
    np.save(buffer, array)
    return buffer.getvalue()


def write_members(path, **members):
    """An .npz archive of the given members: arrays, or raw bytes written as they are."""
    with zipfile.ZipFile(path, "w") as archive:
        for key, value in members.items():
            archive.writestr(key + ".npy", value if isinstance(value, bytes) else npy_bytes(value))


def npy_header_only(shape) -> bytes:
    """A .npy file whose header announces float64 `shape` and which holds 64 bytes of data."""
    header = f"{{'descr': '<f8', 'fortran_order': False, 'shape': {shape}, }}".ljust(117) + "\n"
    return b"\x93NUMPY\x01\x00" + len(header).to_bytes(2, "little") + header.encode() + bytes(64)


def test_load_reads_a_file_written_on_a_big_endian_machine(device, tmp_path):
    """Probe of 2026-11-28: parts stored as >f8 were refused as damaged ("hi and lo must be
    float64"); they load as this machine's float64, the same values."""
    x = ddblas.random((4, 3), seed=5)
    write_members(tmp_path / "big.npz", format=np.array("ddblas-dd-v1"), shape=np.array([4, 3]),
                  hi=x.hi.astype(">f8"), lo=x.lo.astype(">f8"))
    y = ddblas.load(tmp_path / "big.npz", device=device)
    assert y.hi.dtype == np.float64 and y.hi.dtype.isnative and same_bits(y, x.to_device(device))


def test_load_reports_every_damage_as_a_value_error_naming_the_path(tmp_path):
    tag, parts = np.array("ddblas-dd-v1"), {"hi": np.zeros(3), "lo": np.zeros(3)}
    good = tmp_path / "good.npz"
    ddblas.save(good, ddblas.random((100,), seed=1))
    raw = bytearray(good.read_bytes())
    with zipfile.ZipFile(good) as archive:
        info = archive.getinfo("hi.npy")
    raw[info.header_offset + 30 + len(info.filename) + len(info.extra) + 300] ^= 1
    (tmp_path / "crc.npz").write_bytes(bytes(raw))
    cases = {"crc.npz": "unreadable member 'hi' (BadZipFile: Bad CRC-32"}
    for name, shape, message in [
            ("shape2d.npz", np.array([[3]]), "int64 and shape (1, 1)"),
            ("shape0d.npz", np.array(3), "int64 and shape ()"),
            ("shapefloat.npz", np.array([3.7]), "float64 and shape (1,)"),
            ("shapestr.npz", np.array(["3"]), "<U1 and shape (1,)"),
            ("shapebool.npz", np.array([True]), "bool and shape (1,)"),
            ("shapenegative.npz", np.array([-3]), "negative sizes [-3]")]:
        write_members(tmp_path / name, format=tag, shape=shape, **parts)
        cases[name] = message
    write_members(tmp_path / "truncated.npz", format=tag, shape=np.array([100]),
                  hi=npy_bytes(np.zeros(100))[:300], lo=np.zeros(100))
    cases["truncated.npz"] = "member 'hi' announcing float64(100,) but holding 172 bytes"
    write_members(tmp_path / "hugeheader.npz", format=tag, shape=np.array([3]),
                  hi=npy_header_only((10 ** 11,)), lo=np.zeros(3))
    cases["hugeheader.npz"] = "hi float64(100000000000,) (hi and lo must be float64 of shape"
    write_members(tmp_path / "hugeshape.npz", format=tag, shape=np.array([10 ** 11]),
                  hi=npy_header_only((10 ** 11,)), lo=np.zeros(3))
    cases["hugeshape.npz"] = "announcing float64(100000000000,) but holding 64 bytes"
    write_members(tmp_path / "notnpy.npz", format=tag, shape=np.array([3]),
                  hi=b"not an npy file", lo=np.zeros(3))
    cases["notnpy.npz"] = "unreadable member 'hi'"
    for name, message in cases.items():
        with pytest.raises(ValueError, match=re.escape(message)) as info:
            ddblas.load(tmp_path / name)
        assert f"load: '{tmp_path / name}' is a damaged ddblas DD file: found" in str(info.value)
    # the central directory's offset (end record) damaged: zipfile seeks before the file's start
    # when a member is read, an OSError that load let through without naming the path
    raw = bytearray(good.read_bytes())
    raw[-3] ^= 0x40
    (tmp_path / "offset.npz").write_bytes(bytes(raw))
    with pytest.raises(ValueError, match=r"offset.npz' .*unreadable member 'format' \(OSError"):
        ddblas.load(tmp_path / "offset.npz")


def test_xprec_conversion_leaves_scipy_importable():
    """Probe of 2026-11-28: after ddblas.to_xprec, a CPU solve failed ('finfo' object has no
    attribute 'min'): scipy.linalg imports numpy.ma, whose import reads every registered dtype's
    finfo, and xprec's has no .min. ddblas imports numpy.ma with itself now."""
    pytest.importorskip("xprec")
    child = ("import ddblas, numpy as np; from ddblas import linalg\n"
             "ddblas.to_xprec(ddblas.ones(2))\n"
             "x = linalg.solve(ddblas.eye(2) * 4, ddblas.ones(2), method='refine')\n"
             "print(*x.hi, np.median(np.arange(3.0)))\n")
    out = subprocess.run([sys.executable, "-c", child], capture_output=True, text=True,
                         timeout=300, env=dict(os.environ, PYTHONPATH=REPO))
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["0.25", "0.25", "1.0"]


def test_xprec_round_trip(device):
    xprec = pytest.importorskip("xprec")
    x = special_array(device)
    a = ddblas.to_xprec(x)
    assert a.dtype == xprec.ddouble and a.shape == x.shape
    assert same_bits(ddblas.from_xprec(a, device=device), x)
    third = np.array([1.0, 1e-300, -7.0], dtype=xprec.ddouble) / 3  # xprec's own arithmetic
    back = ddblas.from_xprec(third.reshape(3, 1)[::-1], device=device)
    pairs = third.view(np.float64).reshape(3, 2)[::-1]
    assert back.shape == (3, 1) and same_bits(back.hi.ravel(), pairs[:, 0].copy())
    for scalar in (x[1], x[4]):  # 0-d: -0.0, 1 + 2^-200
        a = ddblas.to_xprec(scalar)
        assert a.shape == () and a.dtype == xprec.ddouble
        assert a.reshape(1).view(np.float64).tolist() == [float(scalar.hi), float(scalar.lo)]
        assert same_bits(ddblas.from_xprec(a, device=device), scalar)
    with pytest.raises(TypeError, match="xprec.ddouble"):
        ddblas.from_xprec(np.zeros(3))
    with pytest.raises(TypeError, match="from_xprec"):
        ddblas.array(third)
    # probe of 2026-12-01: an element of such an array raised AttributeError (no
    # as_integer_ratio), and so did comparing a DDArray with it
    with pytest.raises(TypeError, match="ddouble value .*from_xprec"):
        ddblas.array(third[0])
    with pytest.raises(TypeError, match="from_xprec"):
        ddblas.ones(2, device=device) < third[0]


def _quad_fraction(q) -> Fraction:
    """The exact value of a finite IEEE binary128 scalar, from its bits."""
    bits = int.from_bytes(np.array([q], dtype=q.dtype).tobytes(), "little")
    sign, exponent, fraction = bits >> 127, (bits >> 112) & 0x7FFF, bits & ((1 << 112) - 1)
    value = Fraction(fraction, 1 << 112) * Fraction(2) ** -16382 if exponent == 0 else \
        (1 + Fraction(fraction, 1 << 112)) * Fraction(2) ** (exponent - 16383)
    return -value if sign else value


@settings(max_examples=40)
@given(st.lists(dd_value(min_exp=-1000, max_exp=1000), min_size=1, max_size=5))
def test_quad_conversions(device, pairs):
    quaddtype = pytest.importorskip("numpy_quaddtype")
    x = to_ddarray(pairs, device)
    q = ddblas.to_quad(x)
    assert isinstance(q.dtype, quaddtype.QuadPrecDType)
    for value, exact in zip(q, exact_values(x)):
        got = _quad_fraction(value)
        top = math.floor(math.log2(abs(exact))) if exact else 0
        assert abs(got - exact) <= Fraction(2) ** (top - 113)  # correctly rounded to 113 bits
        hi, lo = ddblas.core.convert.dd_from_fraction(exact)
        if lo == 0 or abs(lo) >= 2.0 ** -60 * abs(hi):
            assert got == exact  # the documented exact case
    back = ddblas.from_quad(q, device=device)
    for value, got in zip(q, exact_values(back)):  # the nearest DD of the quad value
        assert (float(got), float(got - Fraction(float(got)))) == \
            ddblas.core.convert.dd_from_fraction(_quad_fraction(value))


def test_quad_specials(device):
    pytest.importorskip("numpy_quaddtype")
    x = special_array(device)
    back = ddblas.from_quad(ddblas.to_quad(x), device=device)
    for i, (hi, lo) in enumerate(SPECIAL_PAIRS):
        if math.isfinite(hi) and (lo == 0 or abs(lo) >= 2.0 ** -60 * abs(hi)):  # fits 113 bits
            assert same_bits(back[i], x[i])
    assert exact_values(back[4]) == [1]  # 1 + 2^-200 rounds to 1 in binary128
    h = back.to_device("cpu").hi
    assert np.isnan(h[7]) and h[8] == math.inf and h[9] == -math.inf and np.signbit(h[1])
    with pytest.raises(TypeError, match="QuadPrecDType"):
        ddblas.from_quad(np.zeros(2))
    with pytest.raises(TypeError, match="from_quad"):
        ddblas.asarray(ddblas.to_quad(x))


def test_quad_longdouble_backend(device):
    """from_quad reads the longdouble backend in its own format: its cast to binary128 goes
    through float64 (0.1 had come back with lo = 0)."""
    quaddtype = pytest.importorskip("numpy_quaddtype")
    texts = ["0.1", "-1.7", "3.3e-310", "1e-320", "1.7976931348623157e308", "1e4000", "1e-4000",
             "-0.0"]
    with np.errstate(over="ignore", under="ignore"):
        values = np.array(texts + ["nan", "-inf"], dtype=np.longdouble)
    values = np.concatenate([values, np.longdouble(1) / np.arange(3, 12, dtype=np.longdouble)])
    a = values.astype(quaddtype.QuadPrecDType(backend="longdouble"))
    back = ddblas.from_quad(a, device=device).to_device("cpu")
    for value, hi, lo in zip(values, back.hi, back.lo):
        if np.isnan(value):
            assert np.isnan(hi)
            continue
        expected = (float(value), 0.0) if np.isinf(value) else \
            ddblas.core.convert.dd_from_fraction(Fraction(*value.as_integer_ratio()))
        assert (hi, lo) == expected and np.signbit(hi) == np.signbit(value)
    if np.finfo(np.longdouble).nmant > 52:
        assert back.lo[0] != 0


# ---- item 6: formatting ----
SPECS = [".40e", ".25f", "g", ".3", ">50.10e", "+.5E", "e", ".0e", ".3g", "#.3g", "G", ".17g",
         "12.4g", ",.3f", "<12.3e", "=+12.3e", "012.3f", "*^30.4e", "#.0f", "_.4f",
         # grouping with the 0 flag: the zeros grouped too (they were not)
         "015,.2f", "020_.3f", " 014,.1f", "030,.3e", ">20,.2f", "#012,.0f"]


@pytest.mark.parametrize("value", [1234567.125, -1234567.125, 0.5, 1e20, 123456789012.0,
                                   -98765.5])
def test_format_grouping_without_a_type(value):
    """No type and no precision: DD's shortest string (here the same as repr's), grouped as
    Python groups floats (the grouping was dropped), zero padding grouped too."""
    x = ddblas.array(value)
    for spec in (",", "_", "+016,", "020_", " ,", ">18,", "<18_"):
        assert format(x, spec) == format(value, spec), spec


@pytest.mark.parametrize("value", [1e16, -1e22, 2.0 ** -20, 5e-324, 123.0, 1.5, 1e20, math.inf,
                                   -0.0])
def test_format_alternate_without_a_type(device, value):
    """'#' with no type and no precision: a decimal point always, as a float's repr gives it
    (1e+16 had stayed 1e+16 where Python writes 1.e+16)."""
    x = ddblas.array(value, device=device)
    for spec in ("#", "+#", "#010", "#>12", "#,", " #_"):
        assert format(x, spec) == format(value, spec), spec


@settings(max_examples=60)
@given(st.floats(allow_nan=True, allow_infinity=True))
def test_format_of_doubles_matches_python(device, value):
    x = ddblas.array(value, device=device)
    for spec in SPECS:
        assert format(x, spec) == format(value, spec)


def _rounding_ok(text: str, exact: Fraction, unit: Fraction) -> bool:
    """text is exact rounded to a multiple of unit, to nearest (ties to even digit)."""
    got = Fraction(decimal.Decimal(text.replace(",", "").replace("_", "").strip()))
    error = abs(got - exact)
    return error < unit / 2 or (error == unit / 2 and (got / unit) % 2 == 0)


@settings(max_examples=60)
@given(dd_value(min_exp=-300, max_exp=300, allow_zero=False), st.integers(1, 60))
def test_format_rounds_the_exact_value(device, pair, digits):
    x = ddblas.DDArray(*pair).to_device(device)
    (exact,) = exact_values(x)
    top = decimal.Decimal(exact.numerator) / decimal.Decimal(exact.denominator)
    text = format(x, f".{digits - 1}e")
    mantissa, exponent = text.split("e")
    assert len(exponent) >= 3 and len(mantissa.lstrip("-").replace(".", "")) == digits
    assert _rounding_ok(text, exact, Fraction(10) ** (int(exponent) - digits + 1))
    fixed = format(x, f".{digits}f")
    assert _rounding_ok(fixed, exact, Fraction(1, 10 ** digits))
    assert x.to_decimal_string(digits) == text.replace("E", "e")
    assert Fraction(decimal.Decimal(x.to_decimal_string())) == exact
    assert abs(top) > 0


def test_format_examples(device):
    x = ddblas.array("0.1", device=device)
    assert f"{x:.40e}" == "9.9999999999999999999999999999999691851209e-02"
    assert "{:.25f}".format(x) == "0.1000000000000000000000000"
    assert "{:g}".format(x) == "0.1" and f"{x}" == str(x)
    # '%' scales the exact value (a float's x * 100 rounds first: 36028797018964096.00%)
    assert f"{ddblas.array(360287970189641.0, device=device):.2%}" == "36028797018964100.00%"
    assert f"{ddblas.array('-0', device=device):.3e}" == "-0.000e+00"
    assert format(ddblas.array([1, 2], device=device), "") == str(ddblas.array([1, 2]))
    with pytest.raises(TypeError, match="0-d"):
        format(ddblas.array([1, 2], device=device), ".3e")
    for bad in ("d", ".3x", "s", "10.3.2f"):
        with pytest.raises(ValueError, match="format spec"):
            format(x, bad)


def test_to_decimal_string(device):
    x = special_array(device)
    strings = x.to_decimal_string()
    assert strings[0] == "0e+00" and strings[1] == "-0e+00" and strings[7:10] == ["nan", "inf", "-inf"]
    for text, (hi, lo) in zip(strings, SPECIAL_PAIRS):
        if math.isfinite(hi):
            assert Fraction(decimal.Decimal(text)) == Fraction(hi) + Fraction(lo)
    assert ddblas.array("0.1", device=device).to_decimal_string(5) == "1.0000e-01"
    assert ddblas.zeros((2, 1), device=device).to_decimal_string(3) == [["0.00e+00"], ["0.00e+00"]]
    for bad in (0, 1401, 2.5, True):
        with pytest.raises(ValueError, match="digits"):
            x.to_decimal_string(bad)


def test_printoptions(device):
    x = ddblas.array(["0.1", "-2"], device=device)
    defaults = {"precision": None, "threshold": 1000, "edgeitems": 3}
    assert ddblas.get_printoptions() == defaults
    assert repr(x) == f"DDArray([0.1, -2.0], device='{device}')"
    with ddblas.printoptions(precision=5) as options:
        assert options == {**defaults, "precision": 5} == ddblas.get_printoptions()
        assert repr(x) == f"DDArray([1.0000e-01, -2.0000e+00], device='{device}')"
        assert str(x[0]) == "1.0000e-01"
    assert ddblas.get_printoptions() == defaults
    assert str(x[0]) == "1.0000000000000000000000000000000e-01"
    ddblas.set_printoptions(precision=40)
    try:
        assert repr(x[0]) == f"DDArray({x[0].to_decimal_string(40)}, device='{device}')"
    finally:
        ddblas.set_printoptions(precision=None)
    with ddblas.printoptions(precision=np.int64(5)) as options:  # review of 2026-11-25
        assert options["precision"] == 5 and type(options["precision"]) is int
        assert str(x[0]) == "1.0000e-01"
    for bad in (0, -1, 2.0, "5", True):
        with pytest.raises(ValueError, match="precision"):
            ddblas.set_printoptions(precision=bad)
        with pytest.raises(ValueError, match="precision"):
            with ddblas.printoptions(precision=bad):
                pass
    assert ddblas.get_printoptions() == defaults


# ---- item 7: random ----
@pytest.mark.parametrize("shapes", [((5,), (3,)), ((4, 3), (2, 3)), ((7,), (1,)), ((2, 2, 2), (8,))])
def test_random_prefix_does_not_depend_on_the_shape(device, shapes):
    long, short = (ddblas.random(s, seed=1, device=device).ravel() for s in shapes)
    assert same_bits(long[:short.size], short)


def test_random_values_are_106_bit_fractions(device):
    x = ddblas.random((300,), seed=7, device=device)
    for value in exact_values(x):
        assert 0 <= value < 1 and (value * 2 ** 106).denominator == 1
    assert same_bits(x, ddblas.random((300,), seed=7, device="cpu"))
    assert not same_bits(x, ddblas.random((300,), seed=8, device=device))



def test_random_draws_in_chunks_the_values_of_one_draw(device, monkeypatch):
    """The values are drawn RANDOM_CHUNK at a time (host memory stays bounded): the same
    stream as one draw, across chunk boundaries."""
    whole = ddblas.random((7, 11), seed=5, device=device)
    monkeypatch.setattr(ddblas.core.array, "RANDOM_CHUNK", 10)
    assert same_bits(ddblas.random((7, 11), seed=5, device=device), whole)


def test_random_beyond_memory_raises_memory_error(device):
    """596 GiB of values: a MemoryError before any is drawn (on the 128 GiB GPU host, Linux
    overcommitted the host draw and the process was killed while it filled it)."""
    with pytest.raises(MemoryError):
        ddblas.random((200000, 200000), seed=1, device=device)


def test_random_beyond_the_available_memory_raises_memory_error(monkeypatch):
    """2026-11-28: the check was against the machine's whole memory, so the second of two arrays
    that each fit it (the demo's A and B at n = 25000 on a 16 GiB machine) could still be
    killed while filled; it is now against what Linux says is available (MemAvailable plus free
    swap)."""
    from ddblas.engines import backend
    monkeypatch.setattr(backend, "_available_host_memory", lambda: (2 ** 30, "available"))
    with pytest.raises(MemoryError, match=r"random\(\(20000, 20000\)\) needs 6.0 GiB, more "
                                          r"than this machine's 1.0 GiB of available memory"):
        ddblas.random((20000, 20000), seed=1)
    assert ddblas.random((100, 100), seed=1).shape == (100, 100)
    if os.path.exists("/proc/meminfo"):
        monkeypatch.undo()
        available, what = backend._available_host_memory()
        assert what == "available" and 0 < available

# ---- item 7: np.dot on N-d arrays ----
@pytest.mark.parametrize("shapes", [((3, 4), (4, 2)), ((4,), (4, 3)), ((2, 4), (4,)),
                                    ((2, 3, 4), (5, 4, 2)), ((2, 1, 3), (3,)), ((3,), (2, 3, 1)),
                                    ((0, 3), (3, 2)), ((2, 0), (0, 3)), ((1, 1), (1, 1))])
def test_np_dot_nd_within_the_gemm_bound(device, variant, shapes):
    x = ddblas.random(shapes[0], seed=11, device=device) * 4 - 2
    y = ddblas.random(shapes[1], seed=12, device=device) - 0.5
    with ddblas.options(**variant):
        result = np.dot(x, y)
    expected = np.dot(np.zeros(shapes[0]), np.zeros(shapes[1])).shape
    assert isinstance(result, ddblas.DDArray) and result.shape == expected
    xs = np.array(exact_values(x), dtype=object).reshape(shapes[0])
    ys = np.array(exact_values(y), dtype=object).reshape(shapes[1])
    exact = np.dot(xs, ys) if xs.size and ys.size else np.zeros(expected, dtype=object)
    scale = np.dot(abs(xs), abs(ys)) if xs.size and ys.size else exact
    k = shapes[0][-1]
    limit = gemm_constant(variant["fma"], variant["add"], max(k, 1))
    for got, e, s in zip(exact_values(result), np.ravel(exact), np.ravel(scale)):
        assert abs(got - e) <= limit * s
    if len(shapes[0]) == 2 and len(shapes[1]) == 2:
        with ddblas.options(**variant):
            assert same_bits(result, x @ y)


def test_np_dot_errors(device):
    a = ddblas.zeros((5, 4), device=device)
    with pytest.raises(ValueError, match="not aligned"):
        np.dot(a, a)
    with pytest.raises(ValueError, match="not aligned"):
        ddblas.dot(ddblas.zeros(3, device=device), ddblas.zeros(4, device=device))
    with pytest.raises(ValueError, match="out= has shape"):   # NumPy's rule: the result's
        np.dot(a, a.T, out=ddblas.zeros((5, 4), device=device))   # shape exactly
    with pytest.raises(TypeError, match="out= must be a DDArray"):
        np.dot(a, a.T, out=np.zeros((5, 5)))


@pytest.mark.parametrize("function, package", [("from_xprec", "pip install xprec"),
                                               ("to_xprec", "pip install xprec"),
                                               ("from_quad", "pip install numpy-quaddtype"),
                                               ("to_quad", "pip install numpy-quaddtype")])
def test_missing_optional_package_names_it(monkeypatch, function, package):
    monkeypatch.setitem(sys.modules, "xprec", None)
    monkeypatch.setitem(sys.modules, "numpy_quaddtype", None)
    with pytest.raises(ImportError, match=package):
        getattr(ddblas, function)(ddblas.zeros(2) if function.startswith("to") else np.zeros(2))


def test_ddblas_imports_after_xprec():
    """Probe of 2026-12-01: ``import xprec`` before ``import ddblas`` made ddblas's own import
    fail (AttributeError: 'finfo' object has no attribute 'min', from numpy.ma, which it
    imports); now numpy.ma is imported with xprec's type left out of NumPy's table for the
    time, and scipy.linalg and numpy.ma work too."""
    pytest.importorskip("xprec")
    child = ("import xprec, numpy as np\n"
             "import ddblas\nfrom ddblas import linalg\n"
             "a = np.array([1.0, 2.0], dtype=xprec.ddouble) / 3\n"
             "print(*ddblas.from_xprec(a).lo, np.ma.masked_array([1, 2], [0, 1]).sum())\n"
             "x = linalg.solve(ddblas.eye(2) * 4, ddblas.ones(2), method='refine')\n"
             "print(*x.hi, *ddblas.to_xprec(x).view(np.float64))\n")
    out = subprocess.run([sys.executable, "-c", child], capture_output=True, text=True,
                         timeout=300, env=dict(os.environ, PYTHONPATH=REPO))
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == [repr(float(Fraction(1, 3) - Fraction(1 / 3))),
                                  repr(float(Fraction(2, 3) - Fraction(2 / 3))), "1",
                                  "0.25", "0.25", "0.25", "0.0", "0.25", "0.0"]


def test_quad_subnormal_results_are_rounded_once(device):
    """Probe of 2026-12-01: numpy-quaddtype's cast to float64 (sleef backend) rounds a value whose
    double is subnormal twice (to 53 bits, then to the grid of 2^-1074): 16 % of random ones
    came back one ulp off, 2^-1075 (1 + 2^-60) as 0, so from_quad missed the nearest DD there
    (hi below 2^-1022, or lo below it for hi up to 2^-969)."""
    quaddtype = pytest.importorskip("numpy_quaddtype")
    rng = random.Random(4)
    values = [Fraction(2) ** -1075 * (1 + Fraction(1, 2 ** 60)), Fraction(2) ** -1075,
              Fraction(3, 2 ** 1076) - Fraction(1, 2 ** 1130), Fraction(2) ** -1022 -
              Fraction(1, 2 ** 1075) - Fraction(1, 2 ** 1140), Fraction(0)]
    values += [Fraction(rng.randrange(2 ** 112, 2 ** 113), 2 ** 112) * Fraction(2) ** e
               for e in range(-1080, -960, 2) for _ in range(3)]
    values += [-v for v in values]
    texts = []
    for v in values:   # decimal strings of 60 digits, parsed by numpy-quaddtype
        with decimal.localcontext() as ctx:
            ctx.prec = 60
            texts.append(str(decimal.Decimal(v.numerator) / decimal.Decimal(v.denominator)))
    a = np.array(texts + ["-0.0"], dtype=quaddtype.QuadPrecDType(backend="sleef"))
    back = ddblas.from_quad(a, device=device).to_device("cpu")
    for value, hi, lo in zip(a, back.hi.tolist(), back.lo.tolist()):
        assert (hi, lo) == ddblas.core.convert.dd_from_fraction(_quad_fraction(value)), value
    assert np.signbit(back.hi[-1]) and np.signbit(back.hi[len(values) // 2 + 1])  # -2^-1075
