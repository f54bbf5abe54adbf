"""Values read as numbers and dates, for counts with a bound and rankings: the first number in a value
(``1,024 KB`` is 1024), a date or timestamp as seconds (``2013-12-24T15:26:06``, ``1 Jan 1991``). Stdlib only:
:func:`dspy_rlm.library.helpers.standalone_source` inlines it before :mod:`~dspy_rlm.library.lookup`."""

import re
from datetime import datetime, timezone
from typing import Any

_NUMBER = re.compile(r"[-+]?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?|[-+]?\.\d+")


_HEX = re.compile(r"\s*([-+]?)0[xX]([0-9a-fA-F]+)[uUlL]{0,3}\s*")


def _number(value: str) -> float | None:
    """The first number in ``value`` ('1,234' is 1234); a value written wholly in hex (``0x0060``, ``0xFFUL``) is
    its value."""
    if h := _HEX.fullmatch(value):
        return float(int(h.group(1) + h.group(2), 16))
    m = _NUMBER.search(value)
    return float(m.group().replace(",", "")) if m else None


_DATE_FORMATS = ("%d %b %Y", "%d %B %Y", "%b %d, %Y", "%B %d, %Y", "%b %d %Y", "%B %d %Y", "%Y/%m/%d", "%m/%d/%Y")
_NUMERIC_FORMATS = ("%d-%m-%Y", "%m-%d-%Y", "%d.%m.%Y")  # dashes and dots: day first, as Europe writes them
_DATE_SHAPE = re.compile(
    r"\d{4}-\d\d-\d\d|\d{4}/\d\d/\d\d|\d{1,2}/\d{1,2}/\d{4}|\d{1,2}-\d{1,2}-\d{4}|\d{1,2}\.\d{1,2}\.\d{4}"
    r"|\d{1,2} [A-Za-z]{3,9}\.? \d{4}|[A-Za-z]{3,9}\.? \d{1,2},? \d{4}"
)


def _date(value: str) -> float | None:
    """A date or timestamp as seconds (``2013-12-24T15:26:06``, ``2024-11-05``, ``1 Jan 1991``, ``Jan 1, 1991``),
    a naive time read as UTC; None for anything else."""
    v = value.strip()
    if not _DATE_SHAPE.match(v) or len(v) > 40:
        return None
    try:
        when = datetime.fromisoformat(v[:-1] + "+00:00" if v.endswith("Z") else v)
    except ValueError:
        parsed = next((d for f in _NUMERIC_FORMATS if (d := _strptime(v, f))), None) or next(
            (d for f in _DATE_FORMATS if (d := _strptime(v.replace(".", ""), f))), None
        )
        if parsed is None:
            return None
        when = parsed
    return (when if when.tzinfo else when.replace(tzinfo=timezone.utc)).timestamp()


def _year(value: str) -> int | None:
    """The year of a date or timestamp value (``2023-11-29`` -> 2023), None for anything else."""
    seconds = _date(value)
    return None if seconds is None else datetime.fromtimestamp(seconds, timezone.utc).year


def _numbered(values: list[tuple[str, Any]]) -> list[tuple[float, Any]]:
    """Each value's number (:func:`_number`); a column of bare hex codes (``0800``, ``86DD``, ``A0ED``: every value
    two hex digits or more, a tenth of them with a letter, half of them opening with a digit) read in hex."""
    bare = [v.strip() for v, _ in values]
    hexed = len(bare) >= 3 and all(_BARE_HEX.fullmatch(v) for v in bare)
    lettered = sum(not v.isdigit() for v in bare) * 10 >= len(bare)
    if hexed and lettered and sum(v[:1].isdigit() for v in bare) * 2 >= len(bare):
        return [(float(int(v, 16)), r) for v, (_, r) in zip(bare, values, strict=True)]
    return [(n, r) for v, r in values if (n := _number(v)) is not None]


_BARE_HEX = re.compile(r"[0-9A-Fa-f]{2,16}")


def _strptime(value: str, form: str) -> datetime | None:
    try:
        return datetime.strptime(value, form)
    except ValueError:
        return None
