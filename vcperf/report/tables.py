"""Numbers and tables for readers: significant digits, errors in percent, pandas tables without their
default index and with the misses highlighted, a ledger row's conditions without empty entries."""

from __future__ import annotations

import html
import math
import re

#: A held-out (loo or predicted) row further than this from the paper value is highlighted as a miss.
MISS_REL_ERROR = 0.25

#: Significant digits of a float shown in a report table.
SIGNIFICANT_DIGITS = 4



_FLOAT_RE = r"[-+−]?(?:\d+\.\d*|\.\d+|\d+(?=[eE]))(?:[eE][-+]?\d+)?"
_TD_FLOAT = re.compile(r"(<td\b[^>]*>)\s*(" + _FLOAT_RE + r")\s*(</td>)")


def format_number(x: float, digits: int = SIGNIFICANT_DIGITS) -> str:
    """``x`` with at most ``digits`` significant digits, for people: no exponent between 1e-3 and 1e7,
    thousands separators above 9999 (``33,180``), an exponent outside (``1.247e-16``)."""
    if not math.isfinite(x):
        return "—" if math.isnan(x) else ("∞" if x > 0 else "−∞")
    if x == 0:
        return "0"
    mag = math.floor(math.log10(abs(x)))
    if mag < -3 or mag >= 7:
        return f"{x:.{digits - 1}e}".replace("e-0", "e-").replace("e+0", "e+")
    decimals = digits - 1 - mag
    rounded = round(x, decimals)
    if decimals <= 0:  # an integer once rounded: 1234, or 33,180
        return f"{round(rounded):,}" if abs(rounded) >= 10**4 else f"{round(rounded)}"
    return f"{rounded:.{decimals}f}".rstrip("0").rstrip(".")


def round_table_floats(text: str) -> str:
    """Every ``<td>`` holding only a float, shown with :data:`SIGNIFICANT_DIGITS` significant digits."""
    return _TD_FLOAT.sub(lambda m: m.group(1) + format_number(float(m.group(2).replace("−", "-"))) + m.group(3),
                         text)




_FRAME = re.compile(r'<table border="1" class="dataframe[^"]*">.*?</table>', re.S)
_ROW = re.compile(r"<tr[^>]*>(.*?)</tr>", re.S)
_CELL = re.compile(r"<(t[hd])([^>]*)>(.*?)</\1>", re.S)
#: Columns of a relative error (shown in percent).
ERROR_COLUMNS = ("rel_error", "error", "relative_error")


def format_frames(text: str) -> str:
    """Every pandas table in ``text`` as a reader's table: no index column, relative errors in percent
    (signed, one decimal), held-out rows (loo, predicted) further than :data:`MISS_REL_ERROR` from the
    paper and failed bounds highlighted (``class="vc-miss"``)."""
    return _FRAME.sub(lambda m: _format_frame(m.group(0)), text)


def _format_frame(table: str) -> str:
    rows = [[(t, a, c) for t, a, c in _CELL.findall(r)] for r in _ROW.findall(table)]
    if not rows:
        return table
    header_rows = [r for r in rows if all(t == "th" for t, _, _ in r)]
    body = [r for r in rows if not all(t == "th" for t, _, _ in r)]
    # pandas' default index (0, 1, 2, ...) says nothing: dropped. A named index (a pivot's row labels) stays.
    if body and len(header_rows) == 1 and all(r[0][0] == "th" and r[0][2].strip().isdigit() for r in body):
        header_rows, body = [r[1:] for r in header_rows], [r[1:] for r in body]
    # A pivot's two header rows (the columns' name over the labels, then the index's name over blanks) read
    # as one: the index's name heads its column, the labels head theirs.
    if len(header_rows) == 2 and len(header_rows[0]) == len(header_rows[1]) and header_rows[1][0][2].strip() \
            and not any(c.strip() for _, _, c in header_rows[1][1:]):
        header_rows = [[header_rows[1][0], *header_rows[0][1:]]]
    head = [c.strip() for _, _, c in header_rows[-1]] if header_rows else []
    if header_rows and len(body[0] if body else []) == len(head) + 1:  # a named index: its column has no header
        head = ["", *head]
    err = next((i for i, h in enumerate(head) if h in ERROR_COLUMNS), None)
    kind = head.index("kind") if "kind" in head else None
    passed = head.index("passed") if "passed" in head else None
    out = ['<table class="dataframe vc-frame">']
    for r in header_rows:
        out.append("<tr>" + "".join(f"<th>{'error' if c.strip() in ERROR_COLUMNS else c.replace('_', ' ')}</th>"
                                    for _, _, c in r) + "</tr>")
    for r in body:
        cells = ["—" if c.strip() in ("None", "NaN", "nan", "&lt;NA&gt;") else c.strip() for _, _, c in r]
        tags = [t for t, _, _ in r]
        cond = head.index("conditions") if "conditions" in head else None
        if cond is not None and cond < len(cells):
            cells[cond] = html.escape(clean_conditions(html.unescape(cells[cond])))
        miss, mark = False, None
        if err is not None and err < len(cells):
            x = _error_value(cells[err])
            if x is not None:
                cells[err] = _pct_signed(x)
            else:
                x = math.nan
            held = kind is None or (kind < len(cells) and cells[kind] in ("loo", "predicted"))
            miss = held and math.isfinite(x) and abs(x) > MISS_REL_ERROR
            mark = err if miss else None
        if passed is not None and kind is not None and passed < len(cells) and cells[kind] == "bound":
            if cells[passed] == "False":
                miss, mark = True, passed
        tds = "".join(f'<td class="vc-err{" vc-miss-cell" if i == mark else ""}">{c}</td>' if i == err else
                      f'<td class="vc-miss-cell">{c}</td>' if i == mark else
                      f'<td class="vc-kind">{c}</td>' if i == kind else f"<{t}>{c}</{t}>"
                      for i, (t, c) in enumerate(zip(tags, cells, strict=True)))
        out.append(f'<tr class="vc-miss">{tds}</tr>' if miss else f"<tr>{tds}</tr>")
    out.append("</table>")
    return "\n".join(out)


def _error_value(text: str) -> float | None:
    """A relative error cell as a float (``0.757``, ``+75.7%``, ``NaN``), or None if it is not one."""
    t = text.strip().replace("−", "-")
    try:
        return float(t[:-1].strip()) / 100 if t.endswith("%") else float(t)
    except ValueError:
        return None


def _pct_signed(x: float) -> str:
    if not math.isfinite(x):
        return "—"
    if abs(x) < 5e-4:
        return "0.0\u00a0%"
    return f"{100 * x:+.1f}\u00a0%"


def pct_cell(x) -> str:
    """A fraction as a table cell in percent with one decimal (``—`` when missing)."""
    return "—" if x is None or not math.isfinite(float(x)) else f"{100 * float(x):.1f}\u00a0%"


def clean_conditions(text) -> str:
    """A ledger row's conditions without empty entries: ``"powered_on_vms=24; network="`` ->
    ``"powered_on_vms=24"``.

    Examples
    --------
    >>> clean_conditions("powered_on_vms=24; network=")
    'powered_on_vms=24'
    """
    parts = [c.strip() for c in text_cell(text).split(";")]
    return "; ".join(c for c in parts if c and not c.endswith("="))


def text_cell(x) -> str:
    """A table cell's text (empty for None or NaN)."""
    return "" if x is None or (isinstance(x, float) and math.isnan(x)) else str(x)
