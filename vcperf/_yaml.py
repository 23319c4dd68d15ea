"""The one YAML loader of the package: every file it reads (site plans, ``--params``, sweep grids) is untrusted.

A YAML file is refused, in one line (a ``ValueError`` naming the file, the field path and a truncated
value), before it can cost time or memory:

- anything but a regular file (a FIFO, a device such as ``/dev/zero``, a folder): checked with
  ``os.stat`` before opening, and opened non-blocking, so nothing waits for a writer;
- more than :data:`MAX_BYTES` bytes: checked from the file's size before reading it, and again on the
  bytes read (a file growing meanwhile);
- an anchor or an alias (``&a`` / ``*a``): an alias bomb of a few hundred bytes expands to gigabytes,
  and none of vcperf's files needs one;
- nesting deeper than :data:`MAX_DEPTH`, checked while the document is composed (never a
  ``RecursionError``);
- a key given twice in one mapping (plain ``safe_load`` silently keeps the last one);
- an integer outside ``±`` :data:`MAX_INT` (checked on its digits, before converting them) and a float
  literal that overflows to infinity (``.inf`` itself is allowed);
- anything YAML's safe loader refuses (``!!python/...`` tags).

Examples
--------
>>> loads("name: t\\nlinks: [{name: wan}]\\n", "plan 'p.yaml'")
{'name': 't', 'links': [{'name': 'wan'}]}
>>> loads("a: &x [1]\\nb: *x\\n", "plan 'p.yaml'")
Traceback (most recent call last):
...
ValueError: plan 'p.yaml': YAML anchors and aliases are not allowed; found anchor &x at a (line 1, column 4)
"""

from __future__ import annotations

import math
import os
import stat

import yaml

#: Largest YAML file read, in bytes (1 MiB): a plan, a grid or a file of parameters is a few kB; the
#: limit is checked from the file's size before reading it.
MAX_BYTES = 1 << 20
#: Deepest nesting of mappings and sequences (a plan nests 3 levels; checked while composing).
MAX_DEPTH = 32
#: Largest integer magnitude (an int64); a larger literal is refused before it is converted.
MAX_INT = 2**63 - 1
#: Characters of a value quoted in an error message.
SHOWN_CHARS = 60

_KINDS = ((stat.S_ISDIR, "a folder"), (stat.S_ISFIFO, "a FIFO"), (stat.S_ISCHR, "a character device"),
          (stat.S_ISBLK, "a block device"), (stat.S_ISSOCK, "a socket"))


def short(value, limit: int = SHOWN_CHARS) -> str:
    """``repr(value)`` cut to ``limit`` characters (``...`` and the full length after a cut).

    Examples
    --------
    >>> short("x" * 100, 10)
    "'xxxxxxxx... (102 characters)"
    """
    text = repr(value)
    return text if len(text) <= limit else f"{text[:limit - 1]}... ({len(text)} characters)"


def field_path(parts) -> str:
    """``links[0].bandwidth`` from ``("links", 0, "bandwidth")`` (``<document>`` when empty; a path of
    more than 8 parts shows its first and last 3).

    Examples
    --------
    >>> field_path(("links", 0, "bandwidth"))
    'links[0].bandwidth'
    >>> field_path([0] * 20)
    '[0][0][0]...(14 more)...[0][0][0]'
    """
    parts = tuple(parts)
    if len(parts) > 8:
        return f"{field_path(parts[:3])}...({len(parts) - 6} more)...{field_path(parts[-3:])}"
    out = ""
    for part in parts:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out or "<document>"


class Loader(yaml.SafeLoader):
    """YAML's safe loader with the limits of this module (no anchors or aliases, depth, duplicate keys,
    integer size); its errors are ``ValueError`` prefixed with :attr:`source`. Use :func:`loads`."""

    source = "YAML"

    def __init__(self, stream):
        super().__init__(stream)
        self._path: list = []
        self._paths: dict[int, tuple] = {}

    def _refuse(self, what: str, mark=None, path=None) -> None:
        where = field_path(self._path if path is None else path)
        at = f" (line {mark.line + 1}, column {mark.column + 1})" if mark is not None else ""
        raise ValueError(f"{self.source}: {what} at {where}{at}")

    def compose_node(self, parent, index):
        event = self.peek_event()
        if parent is not None:
            if index is None:
                self._path.append("<key>")
            else:
                self._path.append(index if isinstance(index, int) else
                                  index.value if isinstance(index, yaml.ScalarNode) else "<key>")
        try:
            if isinstance(event, yaml.AliasEvent) or getattr(event, "anchor", None) is not None:
                kind = "alias *" if isinstance(event, yaml.AliasEvent) else "anchor &"
                self._refuse(f"YAML anchors and aliases are not allowed; found {kind}{event.anchor}",
                             event.start_mark)
            if len(self._path) > MAX_DEPTH:
                self._refuse(f"nested deeper than {MAX_DEPTH} levels", event.start_mark)
            node = super().compose_node(parent, index)
            self._paths[id(node)] = tuple(self._path)
            return node
        finally:
            if parent is not None:
                self._path.pop()

    def construct_mapping(self, node, deep=False):
        seen = set()
        for key_node, _ in node.value:
            key = self.construct_object(key_node, deep=deep)
            try:
                duplicate = key in seen
            except TypeError:  # an unhashable key: the base class reports it
                break
            if duplicate:
                self._refuse(f"found duplicate key {short(key)}", key_node.start_mark,
                             self._paths.get(id(node), ()))
            seen.add(key)
        return super().construct_mapping(node, deep=deep)

    def construct_yaml_int(self, node):
        digits = sum(c.isalnum() for c in str(node.value)) - str(node.value).lower().startswith(("0x", "0b"))
        value = None if digits > 20 else super().construct_yaml_int(node)
        if value is None or abs(value) > MAX_INT:
            self._refuse(f"integer too large (at most {MAX_INT} in magnitude); got {short(node.value)}",
                         node.start_mark, self._paths.get(id(node), ()))
        return value

    def construct_yaml_float(self, node):
        value = super().construct_yaml_float(node)
        if math.isinf(value) and ".inf" not in str(node.value).lower():
            self._refuse(f"number too large for a float; got {short(node.value)}", node.start_mark,
                         self._paths.get(id(node), ()))
        return value


Loader.add_constructor("tag:yaml.org,2002:int", Loader.construct_yaml_int)
Loader.add_constructor("tag:yaml.org,2002:float", Loader.construct_yaml_float)


def loads(text: str, source: str = "YAML"):
    """The document in ``text``, loaded within this module's limits.

    Parameters
    ----------
    text : str
        The YAML text (at most :data:`MAX_BYTES` bytes encoded).
    source : str
        What the text is, for the errors (``"plan 'site.yaml'"``).

    Raises
    ------
    ValueError
        One line starting with ``source``: too large, not valid YAML (with the line and column), an
        anchor or alias, too deep, a duplicate key, an integer or float out of range.

    Examples
    --------
    >>> loads("[[[1]]]", "grid")
    [[[1]]]
    >>> loads("n: " + "9" * 500, "grid")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: grid: integer too large (at most ... in magnitude); got '9999...(502 characters) at n (line 1, column 4)
    """
    if not isinstance(text, str):
        raise TypeError(f"text must be a str; got {type(text).__name__}")
    if len(text) > MAX_BYTES or len(text.encode("utf-8", "surrogatepass")) > MAX_BYTES:
        raise ValueError(f"{source} is too large: more than {MAX_BYTES} bytes")
    loader = Loader(text)
    loader.source = source
    try:
        return loader.get_single_data()
    except yaml.MarkedYAMLError as err:
        mark = err.problem_mark or err.context_mark
        at = f" (line {mark.line + 1}, column {mark.column + 1})" if mark is not None else ""
        reason = " ".join(" ".join(filter(None, (err.context, err.problem))).split())
        raise ValueError(f"{source} is not valid YAML: {reason[:200]}{at}") from None
    except yaml.YAMLError as err:
        raise ValueError(f"{source} is not valid YAML: {' '.join(str(err).split())[:200]}") from None
    except RecursionError:
        raise ValueError(f"{source}: nested too deeply") from None
    finally:
        loader.dispose()


def read_text(path, source: str, limit: int = MAX_BYTES) -> str:
    """The UTF-8 text of a regular file of at most ``limit`` bytes, read without ever blocking.

    A FIFO, a device or a folder is refused from ``os.stat`` before it is opened; the file is opened
    ``O_NONBLOCK`` and checked again on the open descriptor; a leading byte-order mark is dropped.

    Raises
    ------
    ValueError
        ``"<source> cannot be read: <reason>"`` (missing, not a regular file, not UTF-8) or
        ``"<source> is too large: ..."``.

    Examples
    --------
    >>> read_text("/dev/zero", "plan '/dev/zero'")
    Traceback (most recent call last):
    ...
    ValueError: plan '/dev/zero' cannot be read: a character device, not a regular file
    """
    def refuse_kind(mode):
        kind = next((k for test, k in _KINDS if test(mode)), None if stat.S_ISREG(mode) else "not a file")
        if kind is not None:
            raise ValueError(f"{source} cannot be read: {kind}, not a regular file")

    try:
        info = os.stat(path)
        refuse_kind(info.st_mode)
        if info.st_size > limit:
            raise ValueError(f"{source} is too large: {info.st_size} bytes (at most {limit})")
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0))
        try:
            refuse_kind(os.fstat(fd).st_mode)  # replaced between stat and open
            chunks, size = [], 0
            while size <= limit:
                chunk = os.read(fd, min(1 << 16, limit + 1 - size))
                if not chunk:
                    break
                chunks.append(chunk)
                size += len(chunk)
        finally:
            os.close(fd)
    except OSError as err:
        raise ValueError(f"{source} cannot be read: {err.strerror or err}") from None
    data = b"".join(chunks)
    if len(data) > limit:
        raise ValueError(f"{source} is too large: more than {limit} bytes")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as err:
        raise ValueError(f"{source} cannot be read: not UTF-8 text (byte {data[err.start]:#04x} at offset "
                         f"{err.start})") from None


def load_file(path, source: str | None = None):
    """The document of a YAML file: :func:`read_text` then :func:`loads` (see the module's limits).

    Parameters
    ----------
    path : str or os.PathLike
        The file.
    source : str, optional
        What the file is, for the errors (default ``"file '<path>'"``).

    Examples
    --------
    >>> import os, tempfile
    >>> fd, name = tempfile.mkstemp(suffix=".yaml")
    >>> _ = os.write(fd, b"\\xef\\xbb\\xbfa: 1\\r\\nb: [x, y]\\r\\n"); os.close(fd)
    >>> load_file(name)
    {'a': 1, 'b': ['x', 'y']}
    >>> os.unlink(name)
    """
    if not isinstance(path, str | os.PathLike) or isinstance(path, bytes):
        raise TypeError(f"path must be a str or os.PathLike; got {type(path).__name__}")
    source = f"file {short(os.fspath(path), 200)}" if source is None else source
    return loads(read_text(path, source), source)
