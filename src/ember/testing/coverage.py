"""Which of torch's aten ops ember has, and which of those the op database tests:
`python -m ember.testing.coverage [--missing] [--have] [--untested]`.

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
    from ember._generated import registrations
    names = set()
    src = open(registrations.__file__).read()
    # one overload per line of the op table: `schema | kernels[ | tags]` (see ember._ops.define_table)
    names.update(re.findall(r"^([A-Za-z0-9_]+)(?:\.[A-Za-z0-9_]+)?\(.* \| ", src, re.M))
    return names


def opinfo_names():
    """The aten ops with an OpInfo in ember.testing.op_db (each entry's aten_name and in-place variant)."""
    from ._op_db import op_db
    return {op.aten_name for op in op_db} | {op.inplace_variant for op in op_db if op.inplace_variant}


def report(show_missing=False, show_have=False, out=sys.stdout, show_untested=False):
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
    tested = opinfo_names()
    untested = [n for n in have if n not in tested]
    print(f"op_db has an OpInfo for {len(have) - len(untested)} of the {len(have)} public ops ember has", file=out)
    if show_untested:
        print("\nno OpInfo:\n  " + "\n  ".join(untested), file=out)
    if show_have:
        print("\nhave:\n  " + "\n  ".join(have), file=out)
    if show_missing:
        print("\nmissing:\n  " + "\n  ".join(missing), file=out)
    return have, missing


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--missing", action="store_true", help="list the public torch ops ember lacks")
    p.add_argument("--have", action="store_true", help="list the public torch ops ember has")
    p.add_argument("--untested", action="store_true", help="list the ops ember has without an OpInfo in op_db")
    a = p.parse_args(argv)
    report(a.missing, a.have, show_untested=a.untested)
    return 0


if __name__ == "__main__":
    sys.exit(main())
