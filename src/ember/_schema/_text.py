"""Low-level text helpers shared by the schema parsers.

PyTorch counterpart: the tokenizing half of ``torch/csrc/jit/frontend/function_schema_parser.cpp``
(torchgen gets away with ``str.split(", ")``; we track brackets and quotes so that defaults such as
``[0,1]`` or ``"a, b"`` never confuse the argument splitter).
"""
from __future__ import annotations

_OPEN = {"(": ")", "[": "]"}
_CLOSE = {")": "(", "]": "["}


def scan_depth(text: str):
    """Yield ``(index, char, depth)`` for every character outside string literals.

    ``depth`` is the bracket depth *before* the character. Raises ``ValueError`` naming ``text``
    for unbalanced brackets or an unterminated string literal.
    """
    stack: list[str] = []
    quote = None
    i = 0
    n = len(text)
    while i < n:
        c = text[i]
        if quote is not None:
            if c == "\\":
                i += 2
                continue
            if c == quote:
                quote = None
            i += 1
            continue
        if c in ("'", '"'):
            quote = c
        elif c in _OPEN:
            yield i, c, len(stack)
            stack.append(c)
            i += 1
            continue
        elif c in _CLOSE:
            if not stack or stack[-1] != _CLOSE[c]:
                raise ValueError(f"unbalanced {c!r} in schema text {text!r}")
            stack.pop()
        yield i, c, len(stack)
        i += 1
    if quote is not None:
        raise ValueError(f"unterminated string literal in schema text {text!r}")
    if stack:
        raise ValueError(f"unbalanced {stack[-1]!r} in schema text {text!r}")


def split_top_level(text: str, sep: str = ",") -> list[str]:
    """Split ``text`` on ``sep`` where it is outside brackets and quotes; pieces are stripped."""
    pieces: list[str] = []
    start = 0
    for i, c, depth in scan_depth(text):
        if c == sep and depth == 0:
            pieces.append(text[start:i].strip())
            start = i + 1
    pieces.append(text[start:].strip())
    return pieces


def find_top_level(text: str, char: str) -> int:
    """Index of the first ``char`` outside brackets and quotes, or -1."""
    for i, c, depth in scan_depth(text):
        if c == char and depth == 0:
            return i
    return -1


def rfind_top_level(text: str, char: str) -> int:
    """Index of the last ``char`` outside brackets and quotes, or -1."""
    found = -1
    for i, c, depth in scan_depth(text):
        if c == char and depth == 0:
            found = i
    return found


def matching_paren(text: str, open_index: int) -> int:
    """Index of the ``)`` closing the ``(`` at ``open_index`` (raises ``ValueError`` if none)."""
    target = None
    for i, c, depth in scan_depth(text):
        if i == open_index:
            target = depth
        elif target is not None and c == ")" and depth == target:
            return i
    raise ValueError(f"unbalanced '(' in schema text {text!r}")


def check_balanced(text: str) -> None:
    """Raise ``ValueError`` naming ``text`` unless its brackets and quotes are balanced."""
    for _ in scan_depth(text):
        pass
