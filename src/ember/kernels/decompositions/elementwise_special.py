"""CompositeImplicitAutograd special functions (torch's special_gammainc / special_gammaincc): each is the
top-level op of the same math called by its torch.special name, so its node is that op's (IgammaBackward0)."""
from ..._ops import ops

aten = ops.aten


def special_gammainc(self, other):
    return aten.igamma.default(self, other)


def special_gammainc_out(self, other, *, out):
    return aten.igamma.out(self, other, out=out)


def special_gammaincc(self, other):
    return aten.igammac.default(self, other)


def special_gammaincc_out(self, other, *, out):
    return aten.igammac.out(self, other, out=out)
