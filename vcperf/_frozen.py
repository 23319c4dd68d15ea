"""Read-only cached results: what a cache returns to one caller cannot be changed for the next.

:func:`cache` is ``functools.cache`` whose result is made read-only once, before it is stored
(:func:`freeze`): dicts become :class:`ReadOnlyDict`, lists tuples, sets frozensets, numpy arrays
read-only copies, and the fields of frozen dataclasses are frozen the same way, recursively. So
``vmotion.limits().max_concurrent_per_host["7.0u1"] = 10**6`` raises ``TypeError`` instead of
changing ``vmotion.settings()`` for every later caller.

Examples
--------
>>> @cache
... def sizes():
...     return {"small": {"vcpus": 4.0}}
>>> sizes()["small"]["vcpus"] = 0
Traceback (most recent call last):
...
TypeError: this dict is a cached result and read-only; copy it first (dict(...))
>>> sizes()["small"]["vcpus"]
4.0
"""

from __future__ import annotations

import copy
import dataclasses
import functools

import numpy as np


def _read_only(self, *args, **kwargs):
    raise TypeError("this dict is a cached result and read-only; copy it first (dict(...))")


class ReadOnlyDict(dict):
    """A ``dict`` whose every mutator raises ``TypeError`` (a cached result; ``dict(d)`` copies it).

    It is still a ``dict`` for readers (``isinstance``, ``json``, ``**``, pickling); ``dict(d)``,
    ``copy.copy(d)`` and ``copy.deepcopy(d)`` give the caller an ordinary, mutable dict.

    Examples
    --------
    >>> d = ReadOnlyDict(a=1)
    >>> d.pop("a")
    Traceback (most recent call last):
    ...
    TypeError: this dict is a cached result and read-only; copy it first (dict(...))
    >>> {**d, "b": 2}
    {'a': 1, 'b': 2}
    """

    __slots__ = ()
    __setitem__ = __delitem__ = __ior__ = _read_only
    clear = pop = popitem = setdefault = update = _read_only

    def __reduce__(self):
        return (type(self), (dict(self),))

    def __copy__(self):
        return dict(self)  # a copy is the caller's own: an ordinary dict

    def __deepcopy__(self, memo):
        return {copy.deepcopy(k, memo): copy.deepcopy(v, memo) for k, v in self.items()}


def freeze(value):
    """``value`` made read-only, recursively (see the module); other objects are returned unchanged.

    A frozen dataclass is frozen in place (its fields replaced by read-only versions), so call this
    only on an object just built for a cache.

    Examples
    --------
    >>> import numpy as np
    >>> a = freeze({"x": [1, 2], "y": np.zeros(2)})
    >>> a["x"], a["y"].flags.writeable
    ((1, 2), False)
    """
    if isinstance(value, ReadOnlyDict) or value is None or isinstance(value, str | bytes | int | float):
        return value
    if isinstance(value, dict):
        return ReadOnlyDict({k: freeze(v) for k, v in value.items()})
    if isinstance(value, list):
        return tuple(freeze(v) for v in value)
    if type(value) is tuple:
        return tuple(freeze(v) for v in value)
    if isinstance(value, tuple) and hasattr(value, "_make"):  # a namedtuple
        return value._make(freeze(v) for v in value)
    if isinstance(value, set):
        return frozenset(value)
    if isinstance(value, np.ndarray):
        if not value.flags.writeable:
            return value
        out = value.copy()
        out.flags.writeable = False
        return out
    if dataclasses.is_dataclass(value) and not isinstance(value, type) and \
            type(value).__dataclass_params__.frozen:
        for field in dataclasses.fields(value):
            old = getattr(value, field.name)
            new = freeze(old)
            if new is not old:
                object.__setattr__(value, field.name, new)
    return value


def cache(fn):
    """``functools.cache`` of ``fn`` whose result is :func:`freeze` d once, before it is stored.

    Examples
    --------
    >>> @cache
    ... def table():
    ...     return [1, 2]
    >>> table()
    (1, 2)
    """
    @functools.cache
    @functools.wraps(fn)
    def cached(*args, **kwargs):
        return freeze(fn(*args, **kwargs))

    return cached
