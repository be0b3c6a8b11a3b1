"""A call matching none of a binding's signatures: torch's TypeError text exactly (torch's
invalid_arguments.cpp): the signatures in torch's order, each on a " * " line, a "didn't match because ..." line
under those whose parameter count is the call's (the misfitting types between '!'), and a trailing newline."""
import pytest

import ember

from _porting import outcome, torch_fixture  # noqa: F401  (the `torch` fixture)

pytestmark = pytest.mark.parity

CALLS = {
    "view_str": lambda t, x: x.view("a"),
    "view_float_list": lambda t, x: x.view([1.5]),
    "sum_str_dim": lambda t, x: t.sum(x, "a"),
    "sum_float_dim": lambda t, x: t.sum(x, 1.5),
    "sum_dim_keyword": lambda t, x: t.sum(x, dim="a"),
    "sum_unknown_keyword": lambda t, x: t.sum(x, foo=1),
    "sum_method_dtype_keyword": lambda t, x: x.sum(dtype="a"),
    "mm_one_argument": lambda t, x: t.mm(x),
    "clamp_str": lambda t, x: t.clamp(x, "a"),
    "clamp_keyword": lambda t, x: t.clamp(x, min="a"),
    "max_str": lambda t, x: t.max(x, "a"),
    "max_float": lambda t, x: t.max(x, 1.5),
    "max_method_str": lambda t, x: x.max("a"),
    "std_str": lambda t, x: t.std(x, "a"),
    "sort_str": lambda t, x: t.sort(x, "a"),
    "squeeze_method_str": lambda t, x: x.squeeze("a"),
    "add_four": lambda t, x: t.add(1, 2, 3, 4),
}


@pytest.mark.parametrize("name", sorted(CALLS))
def test_invalid_combination_message_is_torchs(torch, name):
    fn = CALLS[name]
    e = outcome(lambda: fn(ember, ember.ones(2, 3)))
    t = outcome(lambda: fn(torch, torch.ones(2, 3)))
    assert e[0] == "raise" and e[:2] == t[:2]
    assert e[2].replace("ember.", "torch.") == t[2]


def test_the_message_layout(torch):
    msg = outcome(lambda: ember.ones(2, 3).view("a"))[2]
    assert msg == ("view() received an invalid combination of arguments - got (str), but expected one of:\n"
                   " * (ember.dtype dtype)\n"
                   "      didn't match because some of the arguments have invalid types: (!str!)\n"
                   " * (tuple of ints size)\n"
                   "      didn't match because some of the arguments have invalid types: (!str!)\n")
