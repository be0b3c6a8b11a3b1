"""Prototype checks for run-time built C (no torch counterpart; torch's cpp_builder trusts its own
generated wrappers): the exported functions of a C source and their ctypes signature letters, read
from the preprocessed text, so `ember._cc.function` can refuse a signature that does not match the C.

A wrong argument count or type in a ctypes call does not raise: it crashes the process or silently
passes garbage. The kernels' C functions are mostly stamped out by macros (one per dtype), so the
prototypes are read after the preprocessor has expanded them (`cc -E -P`). Letters as in
`_cc.function`: p pointer, l int64 (also long, size_t), i int, d double, f float; a void return is ''.
"""
import json
import os
import re
import subprocess

_DEF = re.compile(r"(?:^|[;}])\s*((?:[A-Za-z_]\w*\s+)+\**\s*)([A-Za-z_]\w*)\s*\(([^()]*)\)\s*\{")
_SCALAR = {"int64_t": "l", "long": "l", "size_t": "l", "ptrdiff_t": "l", "int": "i", "double": "d",
           "float": "f", "void": ""}
_QUALIFIERS = {"const", "volatile", "restrict", "__restrict", "__restrict__", "unsigned", "signed", "register"}


def _letter(decl):
    """The letter of one declaration (a parameter without its name, or a return type); None if unknown."""
    if "*" in decl:
        return "p"
    words = [w for w in re.findall(r"[A-Za-z_]\w*", decl) if w not in _QUALIFIERS]
    return _SCALAR.get(words[0]) if words else None


def parse(text):
    """{name: (return letter, argument letters)} of the non-static function definitions in
    preprocessed C text. Functions with a parameter type it does not know are left out."""
    out = {}
    for m in _DEF.finditer(text):
        ret, name, params = m.group(1), m.group(2), m.group(3).strip()
        words = ret.split()
        if "static" in words or name in ("if", "for", "while", "switch", "return", "sizeof"):
            continue
        r = _letter(" ".join(w for w in words if w not in ("inline", "extern")))
        args = ""
        if params and params != "void":
            for p in params.split(","):
                p = p.strip()
                if "*" not in p:                        # drop the parameter name
                    p = p.rsplit(None, 1)[0] if len(p.split()) > 1 else p
                a = _letter(p)
                if a is None or a == "":
                    args = None
                    break
                args += a
        if r is not None and args is not None:
            out[name] = (r, args)
    return out


def preprocess(cc, source, cpp_flags=()):
    """The source after the C preprocessor (with `cpp_flags`: the build's -I / -D flags), or None when that
    fails."""
    r = subprocess.run([cc, "-E", "-P", "-std=c11", *cpp_flags, "-x", "c", "-"], input=source, capture_output=True,
                       text=True)
    return r.stdout if r.returncode == 0 else None


def cached(cc, source, path, cpp_flags=()):
    """parse(preprocess(source)), kept in `path` (JSON) next to the built library; {} if it fails (then every
    process that loads the library runs the preprocessor again: a source that needs include directories, as
    the Python headers of csrc/parallel_call.c, passes them in `cpp_flags`)."""
    try:
        with open(path) as f:
            return {k: tuple(v) for k, v in json.load(f).items()}
    except (OSError, ValueError):
        pass
    text = preprocess(cc, source, cpp_flags)
    if text is None:
        return {}
    protos = parse(text)
    tmp = f"{path}.{os.getpid()}.tmp"
    try:
        with open(tmp, "w") as f:
            json.dump(protos, f)
        os.replace(tmp, path)
    except OSError:
        pass
    return protos
