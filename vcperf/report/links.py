"""The report's link check: every relative link of every page under a folder must lead somewhere."""

from __future__ import annotations

from pathlib import Path


def broken_links(root: Path) -> list[str]:
    """Every link of every HTML page under ``root`` that leads nowhere, as ``"page: href"``.

    A relative ``href``/``src`` must name an existing file (``#fragment`` an ``id`` or ``name`` on the
    page it points to); links out of the folder (``http(s)://``, ``mailto:``) and inline ``data:`` images
    are not followed. The report's link check (the test suite runs it over a regenerated ``build/``).

    Examples
    --------
    >>> import tempfile
    >>> d = Path(tempfile.mkdtemp())
    >>> _ = (d / "a.html").write_text('<a href="b.html">b</a> <a href="#x">x</a> <p id="x"></p>')
    >>> broken_links(d)
    ['a.html: b.html']
    """
    from html.parser import HTMLParser
    from urllib.parse import unquote, urlsplit

    class Page(HTMLParser):
        def __init__(self):
            super().__init__(convert_charrefs=True)
            self.links, self.ids = [], set()

        def handle_starttag(self, tag, attrs):
            a = dict(attrs)
            self.ids.update(a[k] for k in ("id", "name") if a.get(k))
            for k in ("href", "src"):
                if a.get(k) is not None and not (tag == "link" and a.get("rel") == "preconnect"):
                    self.links.append(a[k])

    root = Path(root)
    pages = {}

    def parse(path: Path) -> Page:
        if path not in pages:
            pages[path] = Page()
            pages[path].feed(path.read_text(encoding="utf-8", errors="replace"))
        return pages[path]

    bad = []
    for page in sorted(root.rglob("*.html")):
        for href in parse(page).links:
            parts = urlsplit(href)
            if parts.scheme or href.startswith("//"):
                continue  # http(s), mailto, data: not followed
            target = (page.parent / unquote(parts.path)).resolve() if parts.path else page.resolve()
            ok = target.is_file() or (target.is_dir() and (target / "index.html").is_file())
            if ok and parts.fragment and target.suffix == ".html":
                ids = parse(target).ids  # a browser tries the fragment as written, then decoded
                ok = parts.fragment in ids or unquote(parts.fragment) in ids
            if not ok:
                bad.append(f"{page.relative_to(root).as_posix()}: {href}")
    return bad
