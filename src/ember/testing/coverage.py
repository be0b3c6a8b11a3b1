"""Which of torch's aten ops ember has: `python -m ember.testing.coverage [--missing] [--have]`.

torch's op names come from torchgen's packaged native_functions.yaml when torchgen is importable (it ships
with the torch wheel), else from ember/testing/torch_ops.txt if present. Ember's come from its op registry."""
import argparse
import os
import re
import sys


def torch_op_names():
    try:
        import torchgen
        path = os.path.join(os.path.dirname(torchgen.__file__), "packaged", "ATen", "native", "native_functions.yaml")
        text = open(path).read()
        names = re.findall(r"^- func: ([A-Za-z0-9_]+)[.(]", text, re.M)
    except ImportError:
        path = os.path.join(os.path.dirname(__file__), "torch_ops.txt")
        names = open(path).read().split()
    return sorted(set(names))


def ember_op_names():
    import ember
    from ember._generated import registrations
    names = set()
    src = open(registrations.__file__).read()
    names.update(re.findall(r"""['"]([A-Za-z0-9_]+)(?:\.[A-Za-z0-9_]+)?\(""", src))
    return names


def report(show_missing=False, show_have=False, out=sys.stdout):
    theirs = torch_op_names()
    ours = ember_op_names()
    public = [n for n in theirs if not n.startswith("_")]
    have = [n for n in public if n in ours]
    missing = [n for n in public if n not in ours]
    have_all = [n for n in theirs if n in ours]
    print(f"torch aten ops: {len(theirs)} ({len(public)} public, not starting with '_')", file=out)
    print(f"ember has: {len(have_all)} of all, {len(have)} of public ({100.0 * len(have) / max(len(public), 1):.1f}%)",
          file=out)
    print(f"ember lacks: {len(missing)} public ops", file=out)
    if show_have:
        print("\nhave:\n  " + "\n  ".join(have), file=out)
    if show_missing:
        print("\nmissing:\n  " + "\n  ".join(missing), file=out)
    return have, missing


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--missing", action="store_true", help="list the public torch ops ember lacks")
    p.add_argument("--have", action="store_true", help="list the public torch ops ember has")
    a = p.parse_args(argv)
    report(a.missing, a.have)
    return 0


if __name__ == "__main__":
    sys.exit(main())
