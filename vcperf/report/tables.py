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
    """``x`` with at most ``digits`` significant digits, for people: no exponent between 1e-3 and 1e12,
    thousands separators above 9999 (``33,180``, ``54,000,000``), an exponent outside (``1.247e-16``)."""
    if not math.isfinite(x):
        return "—" if math.isnan(x) else ("∞" if x > 0 else "−∞")
    if x == 0:
        return "0"
    mag = math.floor(math.log10(abs(x)))
    if mag < -3 or mag >= 12:
        return f"{x:.{digits - 1}e}".replace("e-0", "e-").replace("e+0", "e+")
    decimals = digits - 1 - mag
    rounded = round(x, decimals)
    if decimals <= 0:  # an integer once rounded: 1234, or 33,180
        return f"{round(rounded):,}" if abs(rounded) >= 10**4 else f"{round(rounded)}"
    return f"{rounded:.{decimals}f}".rstrip("0").rstrip(".")


def round_table_floats(text: str) -> str:
    """Every ``<td>`` holding only a float, shown with :data:`SIGNIFICANT_DIGITS` significant digits."""
    return _TD_FLOAT.sub(lambda m: m.group(0) if "vc-num" in m.group(1) else
                         m.group(1) + format_number(float(m.group(2).replace("−", "-"))) + m.group(3), text)




_FRAME = re.compile(r'<table border="1" class="dataframe[^"]*">.*?</table>', re.S)
_ROW = re.compile(r"<tr[^>]*>(.*?)</tr>", re.S)
_CELL = re.compile(r"<(t[hd])([^>]*)>(.*?)</\1>", re.S)
#: Columns of a relative error (a fraction, shown in percent).
ERROR_COLUMNS = ("rel_error", "error", "relative_error")
#: Columns of an error already in percent.
PERCENT_ERROR_COLUMNS = ("error_percent", "error_pct", "rel_error_percent")
#: Columns of the paper's value and of the model's (a model value is shown at its row's paper precision).
PAPER_COLUMNS = ("paper", "paper_value", "paper_bound")
MODEL_COLUMNS = ("model", "model_value", "model_low", "model_high")
#: Columns of prose (wrapped, never cut).
NOTE_COLUMNS = ("note", "notes", "meaning", "statement", "why", "flags at the answer", "each workload alone",
                "fitted from")
#: A column name's last words that are its unit -> the unit as the header shows it, in parentheses.
HEADER_UNITS = {
    "s": "s", "ms": "ms", "h": "h", "min": "min", "percent": "%", "pct": "%", "mbps": "Mbit/s",
    "gbps": "Gbit/s", "kbps": "kbit/s", "bytes": "bytes", "bytes per s": "bytes/s", "ops per min": "ops/min",
    "ops per s": "ops/s", "per s": "/s", "gib": "GiB", "gb": "GB", "mb": "MB", "kb": "KB", "s per page": "s/page",
    "s per entry": "s/entry",
}
_NUMBER = re.compile(r"[-+−]?(?:\d{1,3}(?:,\d{3})+|\d+)?(?:\.\d+)?(?:[eE][-+]?\d+)?")
_NUMERIC_CELL = re.compile(r"^\s*[-+−]?(?:\d[\d,]*(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?(?:[\s\u00a0]?%)?\s*$")


def format_paper(x: float) -> str:
    """A paper's value as printed: its digits (up to 6 significant, as transcribed), no exponent between
    1e-6 and 1e12, thousands separators from 10,000.

    Examples
    --------
    >>> format_paper(11534.0), format_paper(0.013), format_paper(2.5e-05), format_paper(1.2e9)
    ('11,534', '0.013', '0.000025', '1,200,000,000')
    """
    if not math.isfinite(x) or x == 0 or not 1e-6 <= abs(x) < 1e12:
        return format_number(x)
    return _fixed(x, _decimals(x))


def format_model(x: float, paper: float) -> str:
    """A model value at the precision its paper value is printed with (at least two significant digits
    where that would show 0); a value below a billionth of the paper's is round-off, shown as 0.

    Examples
    --------
    >>> format_model(1370.4, 1392.0), format_model(2.1994, 1.4), format_model(1.71e-14, 0.013)
    ('1370', '2.2', '0')
    >>> format_model(0.00043, 0.1), format_model(33177.46, 33000.0)
    ('0.00043', '33,177')
    """
    if x == 0 or (math.isfinite(x) and abs(x) < 1e-9 * abs(paper)):
        return "0"
    if not math.isfinite(paper) or paper == 0 or not 1e-6 <= abs(x) < 1e12:
        return format_number(x)
    d = _decimals(paper)
    if round(x, d) == 0:
        d = 1 - math.floor(math.log10(abs(x)))
    return _fixed(x, max(d, 0))


def _decimals(x: float) -> int:
    """Decimals of ``x`` written with at most 6 significant digits (0.013 -> 3, 1392 -> 0, 2.5e-5 -> 6)."""
    text = f"{abs(x):.6g}"
    mant, _, exp = text.partition("e")
    frac = len(mant.partition(".")[2])
    return max(frac - int(exp or 0), 0)


def _fixed(x: float, decimals: int) -> str:
    text = f"{x:,.{decimals}f}" if abs(x) >= 10**4 else f"{x:.{decimals}f}"
    return "0" if re.fullmatch(r"-?0(\.0*)?", text) else text


def _header(name: str) -> str:
    """A column name for people: spaces for underscores, a trailing unit in parentheses
    (``sync_time_s`` -> "sync time (s)", ``bandwidth_mbps`` -> "bandwidth (Mbit/s)")."""
    text = name.strip()
    if text in ERROR_COLUMNS or text in PERCENT_ERROR_COLUMNS:
        return "error"
    words = text.replace("_", " ").split(" ")
    for n in (3, 2, 1):
        unit = HEADER_UNITS.get(" ".join(words[-n:]).lower()) if len(words) > n else None
        if unit:
            return " ".join(words[:-n]) + f" ({unit})"
    return " ".join(words)


#: Units a number may carry in a report table (a no-break space keeps them together; the browser test looks for
#: these tokens broken across lines).
UNITS = ("%", "µs", "us", "ms", "s", "min", "h", "B", "kB", "KB", "MB", "GB", "TB", "KiB", "MiB", "GiB", "TiB",
         "bit/s", "kbit/s", "Mbit/s", "Gbit/s", "bps", "Kbps", "kbps", "Mbps", "Gbps", "ops/min", "ops/s", "GHz",
         "MHz", "x")
_UNIT = "(?:" + "|".join(re.escape(u) for u in sorted(UNITS, key=len, reverse=True)) + ")(?![A-Za-z0-9/])"
#: The space between a number and its unit (``9.49 Gbps``, ``7 s``, ``0.3 %``): a no-break space.
_UNIT_AFTER_NUMBER = re.compile(r"(?<=\d) (?=" + _UNIT + ")")
_TABLE_CELL = re.compile(r"(<t[hd]\b[^>]*>)(.*?)(</t[hd]>)", re.S)


def keep_units(text: str) -> str:
    """In every table cell of ``text`` (an HTML page), a number and its unit joined by a no-break space.

    Examples
    --------
    >>> keep_units("<td>94, 2.3 %, 24.4 %</td><p>2 s</p><td>64 clients, <b>9.49 Gbps</b></td>")
    '<td>94, 2.3\xa0%, 24.4\xa0%</td><p>2 s</p><td>64 clients, <b>9.49\xa0Gbps</b></td>'
    """
    def cell(m: re.Match) -> str:
        parts = re.split(r"(<[^>]*>)", m.group(2))
        return m.group(1) + "".join(p if p.startswith("<") else _UNIT_AFTER_NUMBER.sub("\u00a0", p)
                                    for p in parts) + m.group(3)

    return _TABLE_CELL.sub(cell, text)


def _breakable(text: str) -> str:
    """Text with a line-break opportunity after each ``/`` and ``_`` of a long identifier (never inside a word
    or a number)."""
    return re.sub(r"(?<=[/_])(?=[A-Za-z])", "<wbr>", text) if len(text) > 16 and "<" not in text else text


def format_frames(text: str) -> str:
    """Every pandas table in ``text`` as a reader's table: no index column, units in the headers, relative errors
    in percent (signed, one decimal), the paper's values as printed and the model's at the same precision (round-off
    as 0), numbers kept on one line, notes in full, held-out rows (loo, predicted) further than
    :data:`MISS_REL_ERROR` from the paper and failed bounds highlighted (``class="vc-miss"``)."""
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
    col = {h: i for i, h in reversed(list(enumerate(head)))}
    err = next((i for i, h in enumerate(head) if h in ERROR_COLUMNS + PERCENT_ERROR_COLUMNS), None)
    in_percent = err is not None and head[err] in PERCENT_ERROR_COLUMNS
    kind, passed, cond = col.get("kind"), col.get("passed"), col.get("conditions")
    paper = next((col[h] for h in PAPER_COLUMNS if h in col), None)
    models = [col[h] for h in MODEL_COLUMNS if h in col]
    notes = {i for i, h in enumerate(head) if h.replace("_", " ") in NOTE_COLUMNS}
    quantity = col.get("quantity")
    out = [f'<table class="dataframe vc-frame{" vc-wide" if len(head) >= 8 else ""}">']
    for r in header_rows:
        out.append("<tr>" + "".join(f"<th>{_header(c)}</th>" for _, _, c in r) + "</tr>")
    for r in body:
        if all(c.strip() == "..." for _, _, c in r):  # pandas' row of left-out rows (display.max_rows)
            out.append(f'<tr class="vc-elided"><td colspan="{len(r)}">… rows left out here; every row is in the '
                       "notebook's CSV table (build/tables/)</td></tr>")
            continue
        cells = ["—" if c.strip() in ("None", "NaN", "nan", "&lt;NA&gt;") else c.strip() for _, _, c in r]
        tags = [t for t, _, _ in r]
        cls = [""] * len(cells)
        if cond is not None and cond < len(cells):
            cells[cond] = html.escape(clean_conditions(html.unescape(cells[cond])))
        if quantity is not None and quantity < len(cells) and "<" not in cells[quantity]:
            cells[quantity] = cells[quantity].replace("_", " ")
        p = _float(cells[paper]) if paper is not None and paper < len(cells) else None
        for i, c in enumerate(cells):
            if i == err:
                continue
            x = _float(c)
            if x is None:
                if i in notes:  # a block of its own width: a table gives a cell's min-width no weight
                    cls[i], cells[i] = "vc-note", f'<div class="vc-notebox">{_breakable(c)}</div>' if c != "—" else c
                elif tags[i] == "td":
                    cells[i] = _breakable(c)
                continue
            cls[i] = "vc-num"
            if i == paper:
                cells[i] = format_paper(x)
            elif i in models and p is not None:
                cells[i] = format_model(x, p)
            elif tags[i] == "td" and re.search(r"[.eE]", c) and not c.strip().endswith("%"):
                cells[i] = format_number(x)
        miss, mark = False, None
        if err is not None and err < len(cells):
            x = _error_value(cells[err])
            if x is not None:
                x = x / 100 if in_percent and not cells[err].strip().endswith("%") else x
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
                      f'<td class="vc-kind">{c}</td>' if i == kind else
                      f'<{t} class="{cls[i]}">{c}</{t}>' if cls[i] else f"<{t}>{c}</{t}>"
                      for i, (t, c) in enumerate(zip(tags, cells, strict=True)))
        out.append(f'<tr class="vc-miss">{tds}</tr>' if miss else f"<tr>{tds}</tr>")
    out.append("</table>")
    return "\n".join(out)


def _float(text: str) -> float | None:
    """A cell holding only a number (``1,392``, ``-0.45``, ``1e-4``) as a float, else None."""
    t = text.strip().replace("−", "-")
    if not t or not _NUMERIC_CELL.match(t) or t.endswith("%"):
        return None
    try:
        return float(t.replace(",", ""))
    except ValueError:
        return None


_NUMBER_TD = re.compile(r"<td>\s*([-+−]?[\d.,]*\d(?:[eE][-+]?\d+)?"
                        r"(?:[ \u00a0](?:%|[A-Za-zµ]{1,8}(?:/[A-Za-z]{1,4})?))?)\s*</td>")


def nowrap_numbers(text: str) -> str:
    """Every plain ``<td>`` holding a number with or without its unit (``12.5 ms``, ``0.3 %``) kept on one line:
    ``class="vc-num"``, the space before the unit a no-break space.

    Examples
    --------
    >>> nowrap_numbers("<td>12.5 ms</td><td>DSL link</td>")
    '<td class="vc-num">12.5\xa0ms</td><td>DSL link</td>'
    """
    return _NUMBER_TD.sub(lambda m: f'<td class="vc-num">{m.group(1).replace(" ", chr(0xA0))}</td>', text)


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
    if abs(x) < 5e-4:  # below the one decimal shown: round-off, not a sign
        return "0.0\u00a0%"
    return f"{100 * x:+.1f}\u00a0%"




def _pct(x) -> str:
    return "—" if x is None or not math.isfinite(float(x)) else f"{100 * float(x):.1f}\u00a0%"




def _cell(text: str, cls: str = "") -> str:
    return f'<td class="{cls}">{text}</td>' if cls else f"<td>{text}</td>"


def summary_table(summ, titles: dict, glossary: str = "glossary.html") -> str:
    """Per study: the errors on numbers the model did not see first, then the interval, the bounds, the fit; each
    column's word linked to the glossary (``glossary``: its path from the page)."""
    def word(text: str, term: str) -> str:
        return f'<a href="{glossary}#{term}">{html.escape(text)}</a>'

    head = ("<tr><th>study</th>"
            f"<th>error on numbers left out of the fit ({word('loo', 'loo')}): median, max (n)</th>"
            f"<th>error on numbers no fit used ({word('predicted', 'predicted')}): median, max (n)</th>"
            f"<th>paper values inside the {word('90 % interval', 'interval')}</th>"
            f"<th>stated {word('bounds', 'bound')} that hold</th>"
            f"<th>error on {word('fitted', 'fitted')} numbers: median (n)</th>"
            f"<th>{word('parameters / fit points', 'parameters-fit-points')}</th></tr>")
    rows = []
    for _, r in summ.iterrows():
        title = titles.get(r["study"], r["study"])
        ne = f", {r['loo_not_estimable']} {word('not estimable', 'not-estimable')}" if r["loo_not_estimable"] else ""

        def err(median, largest, n, extra=""):
            if not n:
                return _cell("none", "num")
            miss = math.isfinite(float(largest)) and float(largest) > MISS_REL_ERROR
            return _cell(f"{_pct(median)}, {_pct(largest)} ({n}{extra})", "num vc-miss-cell" if miss else "num")

        bounds_cls = "num" if r["bounds_passed"] == r["n_bound"] else "num vc-miss-cell"
        rows.append(
            "<tr>" + _cell(f'<a href="#{r["study"]}">{html.escape(title)}</a>')
            + err(r["loo_median"], r["loo_max"], r["n_loo"], ne)
            + err(r["predicted_median"], r["predicted_max"], r["n_predicted"])
            + _cell(f"{_pct(r['coverage'])} of {r['n_interval']}", "num")
            + _cell(f"{r['bounds_passed']} of {r['n_bound']}", bounds_cls)
            + _cell(f"{_pct(r['fitted_median'])} ({r['n_fitted']})", "num")
            + _cell(f"{r['n_params']} / {r['n_fit_points']}", "num") + "</tr>"
        )
    return f"<table>{head}{''.join(rows)}</table>"


def misses_table(g) -> str:
    """The study's held-out rows and bounds that miss: |error| > MISS_REL_ERROR, not estimable, failed bound."""
    held = g[g["kind"].isin(["loo", "predicted"])]
    misses = held[held["rel_error"].abs() > MISS_REL_ERROR]
    misses = misses.iloc[misses["rel_error"].abs().to_numpy().argsort(kind="stable")[::-1]]
    failed = g[(g["kind"] == "bound") & ~g["passed"].astype(bool)]
    if misses.empty and failed.empty:
        return (f'<p class="vc-ok">Every estimable held-out number is within {MISS_REL_ERROR:.0%} of the paper '
                "and every stated bound holds.</p>")
    head = ("<tr><th>kind</th><th>source</th><th>quantity</th><th>conditions</th><th>paper</th><th>model</th>"
            "<th>error</th></tr>")
    rows = []
    for _, r in list(misses.iterrows()) + list(failed.iterrows()):
        error = "bound failed" if r["kind"] == "bound" else _pct(r["rel_error"])
        rows.append('<tr class="vc-miss">' + _cell(html.escape(r["kind"])) + _cell(html.escape(_text(r["locator"])))
                    + _cell(html.escape(_text(r["quantity"]))) + _cell(html.escape(clean_conditions(r["conditions"])))
                    + _cell(format_paper(float(r["paper_value"])), "num")
                    + _cell(format_model(float(r["model_value"]), float(r["paper_value"])), "num")
                    + _cell(error, "num vc-miss-cell") + "</tr>")
    return (f"<p>Held-out numbers more than {MISS_REL_ERROR:.0%} from the paper, and failed bounds "
            f"(highlighted; each is discussed in the study's notebook):</p><table>{head}{''.join(rows)}</table>")


def clean_conditions(text) -> str:
    """A ledger row's conditions without empty entries: ``"powered_on_vms=24; network="`` ->
    ``"powered_on_vms=24"``.

    Examples
    --------
    >>> clean_conditions("powered_on_vms=24; network=")
    'powered_on_vms=24'
    """
    parts = [c.strip() for c in _text(text).split(";")]
    return "; ".join(c for c in parts if c and not c.endswith("="))


def _text(x) -> str:
    return "" if x is None or (isinstance(x, float) and math.isnan(x)) else str(x)
