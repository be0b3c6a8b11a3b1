"""torch.func.rearrange (functorch.einops): einops-style reordering of a tensor's dims by a pattern.

`rearrange(x, "b c (h w) -> b (c h) w", w=4)`: each side lists axes by name; a parenthesized group is one dim
made of several axes (split on the left, merged on the right), `1` is a dim of size one, `...` stands for the
dims not named. The result is a reshape into the left side's elementary axes, a permute into the right side's
order and a reshape into its groups. A list or tuple of tensors is stacked first.
"""
import math

_ELLIPSIS = "\u2026"


class _Expression:
    """One side of a pattern: `groups` (each a list of axis names; [] for `1`), the names, the ellipsis."""

    def __init__(self, text):
        self.has_ellipsis = False
        self.ellipsis_parenthesized = None
        self.identifiers = set()
        self.has_numbered_axes = False
        self.groups = []
        if "." in text:
            if "..." not in text:
                raise ValueError("Expression may contain dots only inside ellipsis (...)")
            if text.count("...") != 1 or text.count(".") != 3:
                raise ValueError("Expression may contain dots only inside ellipsis (...); only one ellipsis for "
                                 "tensor ")
            text = text.replace("...", _ELLIPSIS)
            self.has_ellipsis = True
        group = None
        word = ""
        for ch in text + " ":
            if ch in "() ":
                if word:
                    self._add(word, group)
                word = ""
                if ch == "(":
                    if group is not None:
                        raise ValueError("Axis composition is one-level (brackets inside brackets not allowed)")
                    group = []
                elif ch == ")":
                    if group is None:
                        raise ValueError("Brackets are not balanced")
                    self.groups.append(group)
                    group = None
            elif ch.isalnum() or ch in ("_", _ELLIPSIS):
                word += ch
            else:
                raise ValueError(f"Unknown character '{ch}'")
        if group is not None:
            raise ValueError(f"Imbalanced parentheses in expression: '{text}'")

    def _add(self, name, group):
        if name in self.identifiers:
            raise ValueError(f"Indexing expression contains duplicate dimension '{name}'")
        if name == _ELLIPSIS:
            self.identifiers.add(name)
            self.ellipsis_parenthesized = group is not None
            (self.groups.append(name) if group is None else group.append(name))     # bare: a str, not a group
            return
        if name.isdecimal():
            if int(name) == 1:
                if group is None:
                    self.groups.append([])
                return
            if int(name) < 1:
                raise ValueError(f"Anonymous axis should have positive length, not {int(name)}")
            self.has_numbered_axes = True
            self.identifiers.add(object())          # anonymous axes never match one another
            (self.groups.append([name]) if group is None else group.append(name))
            return
        if not name.isidentifier():
            raise ValueError(f"Invalid axis identifier: {name}\nnot a valid python identifier")
        if name.startswith("_") or name.endswith("_"):
            raise ValueError(f"Invalid axis identifier: {name}\naxis name should should not start or end with "
                             "underscore")
        self.identifiers.add(name)
        (self.groups.append([name]) if group is None else group.append(name))


def rearrange(tensor, pattern, **axes_lengths):
    """tensor (or the stack of a list/tuple of tensors) with its dims reordered, split and merged as `pattern`
    says (torch.func.rearrange)."""
    from .. import stack
    from .._tensor import Tensor
    if not isinstance(tensor, Tensor):
        tensor = stack(tensor)
    try:
        left_text, right_text = pattern.split("->")
    except ValueError:
        raise ValueError("Pattern must contain a single '->' separator") from None
    if _ELLIPSIS in axes_lengths:
        raise ValueError(f"'{_ELLIPSIS}' is not an allowed axis identifier")
    left, right = _Expression(left_text), _Expression(right_text)
    if not left.has_ellipsis and right.has_ellipsis:
        raise ValueError(f"Ellipsis found in right side, but not left side of a pattern {pattern}")
    if left.has_ellipsis and left.ellipsis_parenthesized:
        raise ValueError(f"Ellipsis is parenthesis in the left side is not allowed: {pattern}")
    for length in axes_lengths.values():
        if type(length) is not int:
            raise TypeError(f"rearrange axis lengths must be integers, got: {type(length)}")
    if left.has_numbered_axes or right.has_numbered_axes:
        raise ValueError("rearrange only supports unnamed axes of size 1")
    difference = left.identifiers ^ right.identifiers
    if difference:
        raise ValueError(f"Identifiers only on one side of rearrange expression (should be on both): {difference}")
    unmatched = axes_lengths.keys() - left.identifiers
    if unmatched:
        raise ValueError(f"Identifiers not found in rearrange expression: {unmatched}")

    ndim = tensor.dim()
    if left.has_ellipsis:
        n_pattern = len(left.groups) - 1
        if n_pattern > ndim:
            raise ValueError(f"Number of dimensions in pattern ({n_pattern}) must be less than or equal to the number "
                             f"of dimensions in the tensor ({ndim})")
        n_ell = ndim - n_pattern
    else:
        if len(left.groups) != ndim:
            raise ValueError(f"Number of dimensions in pattern ({len(left.groups)}) must be equal to the number of "
                             f"dimensions in the tensor ({ndim})")
        n_ell = 0
    ell_names = [f"{_ELLIPSIS}{i}" for i in range(n_ell)]

    def expand(groups):
        out = []
        for g in groups:
            if g == _ELLIPSIS:
                out.extend([n] for n in ell_names)
            else:
                out.append([n for a in g for n in (ell_names if a == _ELLIPSIS else [a])])
        return out
    lgroups, rgroups = expand(left.groups), expand(right.groups)
    sizes = {}
    for g, dim_size in zip(lgroups, tensor.shape):
        if not g:
            if dim_size != 1:
                raise ValueError(f"rearrange: a dim written as 1 has size {dim_size}")
            continue
        unknown = [a for a in g if a not in axes_lengths]
        known = math.prod(axes_lengths[a] for a in g if a in axes_lengths)
        if len(unknown) > 1:
            raise ValueError(f"rearrange: cannot infer the sizes of {unknown} from a dim of size {dim_size}; give "
                             f"all but one of them as keyword arguments")
        if unknown:
            if known == 0 or dim_size % known:
                raise ValueError(f"rearrange: a dim of size {dim_size} cannot be split into {g} with "
                                 f"{ {a: axes_lengths[a] for a in g if a in axes_lengths} }")
            sizes[unknown[0]] = dim_size // known
        elif known != dim_size:
            raise ValueError(f"rearrange: the axes {g} of sizes {[axes_lengths[a] for a in g]} do not make a dim of "
                             f"size {dim_size}")
        for a in g:
            if a in axes_lengths:
                sizes[a] = axes_lengths[a]
    elementary = [a for g in lgroups for a in g]
    order = [a for g in rgroups for a in g]
    x = tensor.reshape([sizes[a] for a in elementary])
    x = x.permute([elementary.index(a) for a in order])
    return x.reshape([math.prod(sizes[a] for a in g) for g in rgroups])
