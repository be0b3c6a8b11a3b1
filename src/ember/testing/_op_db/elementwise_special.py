"""OpInfo entries of the special functions (torch's common_methods_invocations.py op_db and
_internal/opinfo/definitions/special.py, this family's part): lgamma, digamma, polygamma, mvlgamma, i0 and
torch.special's functions, compared with torch (no numpy reference: numpy has none of them)."""
from .._opinfo import OpInfo, SampleInput
from .._samples import SHAPES, make
from ._common import F, FI, _u


def _special(name, domain=(-3.0, 3.0), dtypes=FI, **kw):
    return OpInfo(f"special.{name}", _unary_samples(domain), dtypes=dtypes, method_variant=False,
                  supports_out=True, aten_name=f"special_{name}", **kw)


def _unary_samples(domain, args=()):
    def f(op, dt):
        return [SampleInput(make(s, dt, *domain), tuple(args), {}, f"{s}") for s in SHAPES]
    return f


def _zeta(op, dt):
    return [SampleInput(make(s, dt, 1.5, 4.0, seed=1), (make(s, dt, 0.5, 3.0, seed=2),), {}, f"{s}")
            for s in SHAPES]


def _igamma(op, dt):
    return [SampleInput(make(s, dt, 0.5, 4.0, seed=3), (make(s, dt, 0.1, 6.0, seed=4),), {}, f"{s}") for s in SHAPES]


def _mvlgamma(op, dt):
    return [SampleInput(make(s, dt, 2.0, 5.0), (p,), {}, f"{s}-{p}") for s in SHAPES for p in (1, 3)]


op_db = [
    _u("lgamma", domain=(0.1, 6.0), dtypes=FI),
    _u("digamma", domain=(0.1, 6.0), dtypes=FI),
    _u("i0", domain=(-4.0, 4.0), dtypes=FI),
    _u("sinc", dtypes=FI),
    OpInfo("mvlgamma", _mvlgamma, dtypes=F, supports_out=True, inplace_variant="mvlgamma_"),
    _special("i0e"), _special("i1"), _special("i1e"), _special("erfcx"), _special("log_ndtr", (-6.0, 3.0)),
    _special("ndtri", (0.02, 0.98), dtypes=F), _special("ndtr"), _special("entr", (0.1, 3.0), dtypes=F),
    _special("sinc"), _special("expit"), _special("gammaln", (0.1, 6.0)), _special("psi", (0.1, 6.0)),
    OpInfo("special.multigammaln", _mvlgamma, dtypes=F, method_variant=False, supports_out=True,
           aten_name="mvlgamma"),
    OpInfo("special.xlog1py", _zeta, dtypes=F, method_variant=False, supports_out=True, aten_name="special_xlog1py"),
    OpInfo("special.zeta", _zeta, dtypes=F, method_variant=False, supports_out=True, aten_name="special_zeta"),
    # the Bessel-type functions (torch's special.py OpInfos: the K and Y functions on the positive axis)
    _special("airy_ai", (-6.0, 4.0)), _special("bessel_j0", (-12.0, 12.0)), _special("bessel_j1", (-12.0, 12.0)),
    _special("bessel_y0", (0.1, 12.0)), _special("bessel_y1", (0.1, 12.0)), _special("modified_bessel_i0", (-9.0, 9.0)),
    _special("modified_bessel_i1", (-9.0, 9.0)), _special("modified_bessel_k0", (0.1, 6.0)),
    _special("modified_bessel_k1", (0.1, 6.0)), _special("scaled_modified_bessel_k0", (0.1, 6.0)),
    _special("scaled_modified_bessel_k1", (0.1, 6.0)), _special("spherical_bessel_j0", (-12.0, 12.0)),
    OpInfo("igamma", _igamma, dtypes=F, supports_out=True, inplace_variant="igamma_"),
    OpInfo("igammac", _igamma, dtypes=F, supports_out=True, inplace_variant="igammac_"),
    OpInfo("special.gammainc", _igamma, dtypes=F, method_variant=False, supports_out=True,
           aten_name="special_gammainc"),
    OpInfo("special.gammaincc", _igamma, dtypes=F, method_variant=False, supports_out=True,
           aten_name="special_gammaincc"),
]
