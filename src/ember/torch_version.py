"""torch.torch_version: TorchVersion, the str subclass `torch.__version__` is, which compares with version
strings, packaging Versions and tuples by version order (`TorchVersion("2.1.0") > "2.0"`, `>= (1, 10)`)."""
from collections.abc import Iterable

from .version import __version__ as internal_version

try:
    from packaging.version import InvalidVersion, Version
except ImportError:                     # packaging absent: release numbers and a/b/rc pre-releases
    import re

    class InvalidVersion(ValueError):
        pass

    class Version:
        _RE = re.compile(r"v?(\d+(?:\.\d+)*)(?:[-_.]?(a|b|rc|alpha|beta|c)[-_.]?(\d*))?(?:\.?(dev)(\d*))?"
                         r"(?:\+[a-z0-9.]+)?", re.I)

        def __init__(self, s):
            m = self._RE.fullmatch(str(s).strip())
            if m is None:
                raise InvalidVersion(f"Invalid version: '{s}'")
            rel = [int(p) for p in m.group(1).split(".")]
            while len(rel) > 1 and rel[-1] == 0:
                rel.pop()
            pre = {"alpha": "a", "beta": "b", "c": "rc"}.get((m.group(2) or "").lower(), (m.group(2) or "").lower())
            rank = {"a": 0, "b": 1, "rc": 2}.get(pre, 3)
            dev = -1 if m.group(4) else 0
            self._key = (tuple(rel), dev if rank == 3 else 0, rank, int(m.group(3) or 0), dev)

        def __lt__(self, o):
            return self._key < o._key

        def __le__(self, o):
            return self._key <= o._key

        def __gt__(self, o):
            return self._key > o._key

        def __ge__(self, o):
            return self._key >= o._key

        def __eq__(self, o):
            return isinstance(o, Version) and self._key == o._key

        def __ne__(self, o):
            return not self == o

        def __hash__(self):
            return hash(self._key)

__all__ = ["TorchVersion"]


class TorchVersion(str):
    """A str that compares as a version with strings ("1.2.1"), Versions and tuples ((1, 2) is "1.2");
    against something that is not a version ("parrot") it compares as a plain string."""

    __slots__ = ()

    def _convert_to_version(self, inp):
        if isinstance(inp, Version):
            return inp
        if isinstance(inp, str):
            return Version(inp)
        if isinstance(inp, Iterable):
            return Version(".".join(str(item) for item in inp))
        raise InvalidVersion(inp)

    def _cmp_wrapper(self, cmp, method):
        try:
            return getattr(Version(self), method)(self._convert_to_version(cmp))
        except InvalidVersion:
            return getattr(super(), method)(cmp)


for _method in ("__gt__", "__lt__", "__eq__", "__ge__", "__le__"):
    setattr(TorchVersion, _method, lambda self, cmp, method=_method: self._cmp_wrapper(cmp, method))
TorchVersion.__hash__ = str.__hash__

__version__ = TorchVersion(internal_version)
