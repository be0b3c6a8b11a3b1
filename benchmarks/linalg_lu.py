"""LU / LDL factor and solve times, ember vs torch (same data, same thread count): ember as configured (scipy's
LAPACK for LU of matrices >= kernels.cpu.linalg_lu.SCIPY_MIN_N and for every LDL factorisation, when scipy is
installed) and with the numpy loops only. Prints one JSON object:
{case: {ember_ms, ember_numpy_ms, torch_ms, ratio, numpy_ratio}} (wall-clock best of 5).
Run from the repo root: python benchmarks/linalg_lu.py [--threads N]"""
import json
import sys

from _harness import best as _best, threads_arg  # noqa: E402  (also puts src/ on sys.path)
import numpy as np  # noqa: E402

import ember  # noqa: E402
from ember.kernels.cpu import linalg_lu as K  # noqa: E402


def best(fn, reps=5):
    return _best(fn, reps)


def main():
    import torch
    threads = threads_arg()
    torch.set_num_threads(threads)
    rng = np.random.default_rng(0)
    out = {}
    for b, n in ((256, 8), (64, 32), (4, 128), (1, 512)):
        a = rng.standard_normal((b, n, n))
        s = a + np.swapaxes(a, -1, -2)
        rhs = rng.standard_normal((b, n, 4))
        ea, es, eb = ember.from_numpy(a), ember.from_numpy(s), ember.from_numpy(rhs)
        ta, ts, tb = torch.from_numpy(a), torch.from_numpy(s), torch.from_numpy(rhs)
        eLU, epiv = ember.linalg.lu_factor(ea)
        tLU, tpiv = torch.linalg.lu_factor(ta)
        eLD, elp = ember.linalg.ldl_factor(es)
        tLD, tlp = torch.linalg.ldl_factor(ts)
        cases = {
            f"lu_factor {b}x{n}x{n}": (lambda: ember.linalg.lu_factor(ea), lambda: torch.linalg.lu_factor(ta)),
            f"lu_solve {b}x{n}x{n} k=4": (lambda: ember.linalg.lu_solve(eLU, epiv, eb),
                                          lambda: torch.linalg.lu_solve(tLU, tpiv, tb)),
            f"ldl_factor {b}x{n}x{n}": (lambda: ember.linalg.ldl_factor(es), lambda: torch.linalg.ldl_factor(ts)),
            f"ldl_solve {b}x{n}x{n} k=4": (lambda: ember.linalg.ldl_solve(eLD, elp, eb),
                                           lambda: torch.linalg.ldl_solve(tLD, tlp, tb)),
        }
        for name, (fe, ft) in cases.items():
            prev = K.use_scipy(False)
            e_np = best(fe)
            K.use_scipy(prev)
            e = best(fe)
            t = best(ft)
            out[name] = {"ember_ms": round(e, 3), "ember_numpy_ms": round(e_np, 3), "torch_ms": round(t, 3),
                         "ratio": round(e / t, 1), "numpy_ratio": round(e_np / t, 1)}
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
