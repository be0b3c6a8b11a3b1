"""A bad argument to a name with several overloads: torch's print_error rule. When the number of
arguments given fits one overload only, the error is that overload's own ("f(): argument 'x'
(position n) must be T, not U"); when it fits several (or none), "f() received an invalid
combination of arguments" listing the signatures. Compared message by message with torch."""
import warnings

import pytest

import ember

CALLS = [
    "L.sum(X, 'a')", "L.sum(X, 0, 'a')", "X.sum(0, 'a')",
    "L.max(X, 'a')", "L.max(X, 0, 'a')", "L.min(X, X, 'a')", "L.std(X, 0, True, 'a')", "L.var(X, 'a')",
    "L.clamp(X, 'a')", "L.split(X, 'a')", "X.view('a')", "X.reshape('a')",
    "L.full((2,), 'a', 3)", "L.arange('a')", "L.arange(0, 'a', 1)", "L.arange(0, 1, 'a', 1)",
    "L.cumsum(X, 'a')", "L.topk(X, 'a')", "L.mean(X, 0, 'a')", "L.prod(X, 0, 'a')", "L.prod(X, 'a')",
    "L.norm(X, 'a')", "L.index_select(X, 'a', X)", "L.gather(X, 'a', X)", "L.scatter(X, 0, X, 'a')",
    "L.scatter(X, 0, X, X, 'a')", "X.new_zeros('a')", "L.squeeze(X, 'a')", "L.transpose(X, 0, 'a')",
    "L.flatten(X, 'a')", "L.sort(X, 'a')", "L.sort(X, 0, True, 'a')", "L.argmax(X, 'a')", "L.unbind(X, 'a')",
    "L.median(X, 'a')", "L.mode(X, 'a')", "L.kthvalue(X, 'a')", "L.logsumexp(X, 'a')", "L.randint(5, 'a')",
    "L.normal(X, 'a')", "L.add(X, 'a')", "L.lerp(X, X, 'a')", "L.addcmul(X, X, X, value='a')",
    "L.quantile(X, 'a')", "L.nanquantile(X, 0.5, 'a')", "L.repeat_interleave(X, 'a')", "L.diff(X, 'a')",
    "L.cat('a')", "L.stack([X], 'a')", "L.div(X, X, rounding_mode=3)",
    "L.mm(X, X, 'a')", "L.addmm(X, X, X, 'a')", "L.bmm(B, B, 'a')", "L.baddbmm(B, B, B, 'a')",
    # Scalar twins (eq.Tensor / eq.Scalar are two signatures in torch: the count fits both)
    "L.eq(X, 'a')", "X.eq('a')", "L.pow(X, 'a')", "L.pow('a', X)", "L.where(X > 0, X, 'a')", "L.bucketize(X, 'a')",
    # calls that cannot bind the one plausible signature: torch's count / missing / unknown-keyword messages
    "L.max(dim=0)", "L.min(other=X)", "L.max(X, 0, True, 1)", "L.sum(X, 0, foo=1)", "L.max(X, 0, foo=1)",
    "L.sum(X, 0, True, 1, 2, 3)", "L.clamp(X, 1, 2, 3)",
    "L.searchsorted(X, 'a')", "L.fmod(X, None)", "X.add(X, alpha='a')", "L.remainder(X, 'a')",
]


def _outcome(lib, call):
    env = {"L": lib, "X": lib.ones(2, 2), "B": lib.ones(1, 2, 2)}
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            eval(call, env)
        return "ok"
    except Exception as e:   # noqa: BLE001  (the exception and its first line are what is compared)
        return f"{type(e).__name__}: {str(e).splitlines()[0]}".replace("torch.", "ember.")


@pytest.mark.parity
@pytest.mark.parametrize("call", CALLS)
def test_overload_argument_errors_like_torch(call):
    torch = pytest.importorskip("torch")
    assert _outcome(ember, call) == _outcome(torch, call)


def test_one_plausible_overload_names_its_argument():
    with pytest.raises(TypeError, match=r"^median\(\): argument 'dim' \(position 2\) must be int, not str$"):
        ember.median(ember.ones(2), "a")   # median(input) takes one argument, median(input, dim, ...) 2 to 4


def test_several_plausible_overloads_list_the_signatures():
    with pytest.raises(TypeError, match=r"^max\(\) received an invalid combination of arguments"):
        ember.max(ember.ones(2), "a")      # max(input, dim) and max(input, other) both take two


LISTINGS = ["L.baddbmm(B, B, B, 'a')", "L.clamp(X, 'a', 'b')", "L.var(X, 0, 'a')", "X.view('a')", "L.max(X, 'a')",
            "L.std(X, [0], 'a')", "L.mm(X, X, 'a')", "L.addmm(X, X, X, 'a')"]


@pytest.mark.parity
@pytest.mark.parametrize("call", LISTINGS)
def test_signature_listing_like_torch(call):
    """The signatures an invalid combination lists, in torch's type names (Number, tuple of ints, ember.dtype, no
    `?`; a list's `[]` default printed as None; a multi-output out= as tuple of Tensors). Order not compared."""
    torch = pytest.importorskip("torch")
    got = []
    for lib in (torch, ember):
        with pytest.raises(TypeError) as e:
            eval(call, {"L": lib, "X": lib.ones(2, 2), "B": lib.ones(1, 2, 2)})
        got.append(sorted(ln for ln in str(e.value).replace("torch.", "ember.").splitlines() if ln.startswith(" * ")))
    assert got[0] == got[1]


SIZE_CALLS = ["L.zeros()", "L.zeros(size=(2, 3))", "L.ones(size=[4])", "L.empty(size=(2,)).shape", "L.zeros(5, size=(2,))",
              "L.rand()", "L.randn(size=(2, 3)).shape", "L.rand(size=(1, 2), dtype=L.float64).dtype",
              "L.zeros(dtype=L.float32)", "X.new_zeros()", "X.new_ones(size=(3,))", "X.new_empty(size=(1, 2)).shape",
              "X.view()", "X.view(size=(4,))", "X.reshape()", "X.permute()", "X.expand()", "X.repeat()",
              "L.zeros(())", "L.zeros([])", "L.ones(size=())"]


@pytest.mark.parity
@pytest.mark.parametrize("call", SIZE_CALLS)
def test_size_parameter_binds_like_torch(call):
    """A `*size` parameter takes the sizes positionally or as one sequence, or by keyword (`zeros(size=(2, 3))`);
    none at all is torch's "missing 1 required positional arguments" for a lone signature and the invalid
    combination listing where there are several (rand, randn, view)."""
    torch = pytest.importorskip("torch")
    got = []
    for lib in (torch, ember):
        try:
            r = eval(call, {"L": lib, "X": lib.ones(2, 2)})
            got.append(repr(tuple(r.shape)) if hasattr(r, "shape") else str(r).split(".")[-1])
        except Exception as e:   # noqa: BLE001  (the exception and its first line are what is compared)
            got.append(f"{type(e).__name__}: {str(e).splitlines()[0]}".replace("torch.", "ember."))
    assert got[1] == got[0].replace("torch", "ember")
