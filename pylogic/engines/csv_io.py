"""Soufflé's fact and output files: tab-separated (or ``delimiter=``), no header, one tuple a
line; ``number`` columns are 32-bit signed integers, checked on the way in (never wrapped)."""
from __future__ import annotations

import gzip
import zlib
from operator import itemgetter
from pathlib import Path

from pylogic.engines import floats, record_text
from pylogic.engines.record_text import is_structured
from pylogic.engines.dialect import INT32_MAX, INT32_MIN
from pylogic.errors import DatalogError, SourceLoc


def parse_number(text: str) -> int:
    """A Soufflé number column value (decimal, or ``0x``/``0b`` prefixed). ValueError if not."""
    s = text.strip()
    try:
        return int(s)
    except ValueError:
        body = s[1:] if s[:1] in "+-" else s
        if body[:2].lower() in ("0x", "0b"):
            return int(s, 0)
        raise


_GZIP_MAGIC = b"\x1f\x8b"


def _facts_bytes(path: Path) -> bytes:
    """The bytes of a facts file, gunzipped when it is gzip-compressed: Soufflé reads facts
    through zlib's gzip stream, which takes plain and compressed files alike."""
    data = path.read_bytes()
    if not data.startswith(_GZIP_MAGIC):
        return data
    try:
        return gzip.decompress(data)
    except (OSError, EOFError, zlib.error) as exc:
        raise DatalogError(f"gzip-compressed facts file cannot be decompressed: {exc}",
                           SourceLoc(str(path))) from None


def read_facts(path: str | Path, relation, delimiter: str = "\t", *,
               any_bytes: bool = False, types=None) -> list[tuple]:
    """Read ``path`` as tuples of ``relation`` (a semantics.Relation); a gzip-compressed file is
    read decompressed, as Soufflé does. A missing file is an empty relation (callers that must
    refuse it check first: ``run.check_input_files``). Raises DatalogError naming file and line
    on a bad row, and on bytes that are not UTF-8 unless ``any_bytes`` (an output file: a
    Soufflé string is any bytes, ``substr`` may cut a character; held as in ``functors.py``).
    With the program's ``types``, record and ADT values are checked as Soufflé reads them
    (``record_text.py``; kept as text, each engine builds its own values)."""
    path = Path(path)
    try:
        data = _facts_bytes(path)
        text = data.decode("utf-8", "surrogateescape" if any_bytes else "strict")
    except FileNotFoundError:
        return []
    except UnicodeDecodeError as exc:               # located: line and column of the bad byte
        head = data[:exc.start]
        line, col = head.count(b"\n") + 1, exc.start - (head.rfind(b"\n") + 1) + 1
        raise DatalogError(f"facts file is not UTF-8 (byte 0x{exc.object[exc.start]:02x})",
                           SourceLoc(str(path), line, col)) from None
    except OSError as exc:
        raise DatalogError(f"cannot read facts file: {exc}", SourceLoc(str(path))) from None
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    arity = relation.arity
    if arity == 0:                    # any line, blank included, is the empty tuple (Soufflé)
        return [()] if lines else []
    kinds = relation.kinds
    number_cols = [i for i, k in enumerate(kinds) if k in ("number", "unsigned")]
    enum_cols = [(i, e) for i, e in enumerate(getattr(relation, "enums", ()) or ()) if e]
    float_cols = [i for i, k in enumerate(kinds) if k == "float"]
    structured = [i for i, k in enumerate(kinds) if types is not None and is_structured(k)]
    rows = []
    for lineno, line in enumerate(lines, 1):
        if line.endswith("\r"):
            line = line[:-1]
        fields = line.split(delimiter)
        if len(fields) != arity:
            raise DatalogError(f"{relation.name}: expected {arity} column(s), found {len(fields)}",
                               SourceLoc(str(path), lineno))
        for i in number_cols:
            try:
                value = parse_number(fields[i])
            except ValueError:
                raise DatalogError(f"{relation.name} column {i + 1} "
                                   f"({relation.columns[i][0]}): not a number: {fields[i]!r}",
                                   SourceLoc(str(path), lineno)) from None
            low, high = (0, 2 ** 32 - 1) if kinds[i] == "unsigned" else (INT32_MIN, INT32_MAX)
            if not low <= value <= high:
                raise DatalogError(f"{relation.name} column {i + 1} ({relation.columns[i][0]}): "
                                   f"{value} is outside the 32-bit {kinds[i]} range",
                                   SourceLoc(str(path), lineno))
            fields[i] = value
        for i in float_cols:                  # kept as text, checked as std::stof reads it
            try:
                floats.parse(fields[i])
            except (ValueError, ZeroDivisionError):
                raise DatalogError(f"{relation.name} column {i + 1} "
                                   f"({relation.columns[i][0]}): not a float: {fields[i]!r}",
                                   SourceLoc(str(path), lineno)) from None
        for i, allowed in enum_cols:          # an enumeration ADT: $Branch
            if not (fields[i].startswith("$") and fields[i][1:] in allowed):
                raise DatalogError(f"{relation.name} column {i + 1} ({relation.columns[i][0]}): "
                                   f"{fields[i]!r} is not one of "
                                   f"{', '.join('$' + b for b in sorted(allowed))}",
                                   SourceLoc(str(path), lineno))
        for i in structured:
            try:
                record_text.parse(fields[i], kinds[i], types, _nothing, _nothing)
            except ValueError as exc:
                raise DatalogError(f"{relation.name} column {i + 1} ({relation.columns[i][0]}):"
                                   f" {exc}", SourceLoc(str(path), lineno)) from None
        rows.append(tuple(fields))
    return rows


def _nothing(*_):
    return None


def check_rows(rows, relation, origin: str, types=None) -> list[tuple]:
    """Validate in-memory tuples against ``relation``'s columns (types, int32 range; with the
    program's ``types``, record and ADT values and floats as their facts-file text)."""
    rows = list(rows)
    if set(map(type, rows)) - {tuple}:
        rows = [r if type(r) is tuple else tuple(r) for r in rows]
    for i, k in enumerate(relation.kinds):
        if types is None or not (k == "float" or is_structured(k)):
            continue
        for n, r in enumerate(rows, 1):
            try:
                if not isinstance(r[i], str):
                    raise ValueError(f"expected its text (a str), got {r[i]!r}")
                if k == "float":
                    floats.parse(r[i])
                else:
                    record_text.parse(r[i], k, types, _nothing, _nothing)
            except (ValueError, ZeroDivisionError, IndexError) as exc:
                raise DatalogError(f"{relation.name}: tuple {n} column {i + 1}: {exc}",
                                   SourceLoc(origin)) from None
    for i, allowed in enumerate(getattr(relation, "enums", ()) or ()):
        if allowed:
            bad = next((r for r in rows if not (isinstance(r[i], str) and r[i][1:] in allowed
                                                and r[i][:1] == "$")), None)
            if bad is not None:
                raise DatalogError(f"{relation.name}: {bad!r} column {i + 1} is not one of "
                                   f"{', '.join('$' + b for b in sorted(allowed))}",
                                   SourceLoc(origin))
    if _rows_ok(rows, relation.kinds):
        return rows
    return _check_rows_one_by_one(rows, relation, origin)


def _rows_ok(rows: list[tuple], kinds: tuple) -> bool:
    """Fast column-wise check of the common, valid case."""
    n = len(kinds)
    if set(map(len, rows)) - {n}:
        return False
    for i, k in enumerate(kinds):               # each test over a column in C (#32)
        col = list(map(itemgetter(i), rows))
        if k in ("number", "unsigned"):
            low, high = (0, 2 ** 32 - 1) if k == "unsigned" else (INT32_MIN, INT32_MAX)
            if set(map(type, col)) - {int}:
                return False
            if col and not (low <= min(col) and max(col) <= high):
                return False
        else:
            if set(map(type, col)) - {str}:
                return False
            joined = "".join(col)
            if "\t" in joined or "\n" in joined:
                return False
    return True


def _check_rows_one_by_one(rows, relation, origin: str) -> list[tuple]:
    out = []
    kinds = relation.kinds
    for n, row in enumerate(rows, 1):
        row = tuple(row)
        if len(row) != len(kinds):
            raise DatalogError(f"{relation.name}: tuple {n} {row!r} has {len(row)} value(s), "
                               f"expected {len(kinds)}", SourceLoc(origin))
        for i, (v, k) in enumerate(zip(row, kinds)):
            if k in ("number", "unsigned"):
                if not isinstance(v, int) or isinstance(v, bool):
                    raise DatalogError(f"{relation.name}: tuple {n} column {i + 1}: expected an "
                                       f"int, got {v!r}", SourceLoc(origin))
                low, high = (0, 2 ** 32 - 1) if k == "unsigned" else (INT32_MIN, INT32_MAX)
                if not low <= v <= high:
                    raise DatalogError(f"{relation.name}: tuple {n} column {i + 1}: {v} is "
                                       f"outside the 32-bit {k} range", SourceLoc(origin))
            elif not isinstance(v, str):
                raise DatalogError(f"{relation.name}: tuple {n} column {i + 1}: expected a str, "
                                   f"got {v!r}", SourceLoc(origin))
            elif "\n" in v or "\t" in v:
                raise DatalogError(f"{relation.name}: tuple {n} column {i + 1}: a symbol cannot "
                                   "hold a tab or newline (Soufflé's file format)", SourceLoc(origin))
        out.append(row)
    return out


def format_rows(rows, delimiter: str = "\t") -> str:
    """Soufflé's output text for ``rows`` (nullary relations print ``()``)."""
    rows = rows if isinstance(rows, list) else list(rows)
    width = len(rows[0]) if rows else 0
    if width and set(map(type, rows)) == {tuple}:
        try:                # one %-format per row: half the time of a join per row (#32)
            return "".join(map((delimiter.join(("%s",) * width) + "\n").__mod__, rows))
        except TypeError:   # rows of several widths
            pass
    parts = []
    for row in rows:
        parts.append("()" if not row else delimiter.join(str(v) for v in row))
    return "".join(p + "\n" for p in parts)


def write_rows(path: str | Path, rows, delimiter: str = "\t") -> None:
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    # a string cut inside a UTF-8 character gets its bytes back (functors.py), as Soufflé
    Path(path).write_text(format_rows(rows, delimiter), encoding="utf-8", errors="surrogateescape")


def read_output(path: str | Path, relation, delimiter: str = "\t") -> list[tuple]:
    """Read an output ``.csv`` written by Soufflé (or by us) back as typed tuples."""
    return read_facts(path, relation, delimiter, any_bytes=True)
