"""Mutation testing for kernel files: do the tests notice when a kernel computes a wrong number?
(torch has no such tool; mutmut / cosmic-ray do this for any Python project.)

Each mutant changes one thing in one file, chosen from its syntax tree: an arithmetic operator
(+ -> -, * -> /, // -> /, % -> //, ** -> *), a comparison (< -> <=, == -> !=, ...), ``and``/``or``,
a numeric constant (n -> n + 1, 0.5 -> 1.5, ...) or ``True``/``False``. Every mutant runs the tests
that cover the file in a fresh interpreter, with the mutated source served by an import hook (the
file on disk is never touched, so an interrupted run leaves nothing behind). A mutant is *killed*
when the tests fail (or time out) and *survives* when they pass; the report lists the survivors.

By default the tests are tests/ops/test_ops.py restricted (``-k``) to the ops whose CPU or Meta
kernels the yaml of native/ points at this file (``--narrow``: per mutant, to the ops whose kernel
functions are, or use through module-level names, the definition holding the mutated line);
``--tests`` gives any pytest selection instead.

    python tools/mutate.py src/ember/kernels/cpu/elementwise.py --max-mutants 40 --budget 900
    nice -n 19 python tools/mutate.py src/ember/kernels/cpu/loss.py --narrow --checks test_parity
    python tools/mutate.py FILE --list                   # the mutation sites, no test run
"""
import argparse
import ast
import json
import os
import random
import re
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SRC = os.path.join(ROOT, "src")
NATIVE = os.path.join(SRC, "ember", "native")

BINOP_SWAPS = {ast.Add: ast.Sub, ast.Sub: ast.Add, ast.Mult: ast.Div, ast.Div: ast.Mult,
               ast.FloorDiv: ast.Div, ast.Mod: ast.FloorDiv, ast.Pow: ast.Mult,
               ast.BitAnd: ast.BitOr, ast.BitOr: ast.BitAnd, ast.LShift: ast.RShift, ast.RShift: ast.LShift}
CMP_SWAPS = {ast.Lt: ast.LtE, ast.LtE: ast.Lt, ast.Gt: ast.GtE, ast.GtE: ast.Gt, ast.Eq: ast.NotEq,
             ast.NotEq: ast.Eq, ast.Is: ast.IsNot, ast.IsNot: ast.Is, ast.In: ast.NotIn, ast.NotIn: ast.In}
BOOL_SWAPS = {ast.And: ast.Or, ast.Or: ast.And}


def _mutated_constant(value):
    if isinstance(value, bool):
        return not value
    if isinstance(value, int):
        return value + 1
    if isinstance(value, float):
        return value + 1.0 if value == 0.0 or abs(value) >= 1.0 else value * 3.0
    return None


def _skip_ranges(tree):
    """Line ranges not worth mutating: docstrings, error messages, __all__ and other module constants
    that are only names."""
    skip = set()
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if isinstance(body, list) and body and isinstance(body[0], ast.Expr) and \
                isinstance(body[0].value, ast.Constant) and isinstance(body[0].value.value, str):
            skip.update(range(body[0].lineno, body[0].end_lineno + 1))
        if isinstance(node, ast.Raise) and node.exc is not None:
            skip.update(range(node.lineno, node.end_lineno + 1))
    return skip


class _Sites(ast.NodeVisitor):
    """Finds mutation sites in a deterministic order: (kind, line, col, description)."""

    def __init__(self, skip):
        self.sites = []
        self.skip = skip

    def _add(self, node, kind, desc):
        if node.lineno not in self.skip:
            self.sites.append((kind, node.lineno, node.col_offset, desc))

    def visit_BinOp(self, node):
        if type(node.op) in BINOP_SWAPS:
            self._add(node, f"binop:{type(node.op).__name__}", f"{type(node.op).__name__} -> {BINOP_SWAPS[type(node.op)].__name__}")
        self.generic_visit(node)

    def visit_AugAssign(self, node):
        if type(node.op) in BINOP_SWAPS:
            self._add(node, "augassign", f"{type(node.op).__name__}= -> {BINOP_SWAPS[type(node.op)].__name__}=")
        self.generic_visit(node)

    def visit_Compare(self, node):
        for i, op in enumerate(node.ops):
            if type(op) in CMP_SWAPS:
                self._add(node, f"cmp{i}", f"{type(op).__name__} -> {CMP_SWAPS[type(op)].__name__}")
        self.generic_visit(node)

    def visit_BoolOp(self, node):
        self._add(node, f"boolop:{type(node.op).__name__}", f"{type(node.op).__name__} -> {BOOL_SWAPS[type(node.op)].__name__}")
        self.generic_visit(node)

    def visit_Constant(self, node):
        new = _mutated_constant(node.value)
        if new is not None and not isinstance(node.value, str):
            self._add(node, "const", f"{node.value!r} -> {new!r}")


class _Apply(ast.NodeTransformer):
    def __init__(self, site):
        self.kind, self.line, self.col, _ = site
        self.done = False

    def _here(self, node):
        return not self.done and node.lineno == self.line and node.col_offset == self.col

    def visit_BinOp(self, node):
        self.generic_visit(node)
        if self.kind == f"binop:{type(node.op).__name__}" and self._here(node):
            node.op = BINOP_SWAPS[type(node.op)]()
            self.done = True
        return node

    def visit_AugAssign(self, node):
        self.generic_visit(node)
        if self.kind == "augassign" and self._here(node):
            node.op = BINOP_SWAPS[type(node.op)]()
            self.done = True
        return node

    def visit_Compare(self, node):
        self.generic_visit(node)
        if self.kind.startswith("cmp") and self._here(node):
            i = int(self.kind[3:])
            node.ops[i] = CMP_SWAPS[type(node.ops[i])]()
            self.done = True
        return node

    def visit_BoolOp(self, node):
        self.generic_visit(node)
        if self.kind == f"boolop:{type(node.op).__name__}" and self._here(node):
            node.op = BOOL_SWAPS[type(node.op)]()
            self.done = True
        return node

    def visit_Constant(self, node):
        if self.kind == "const" and self._here(node):
            self.done = True
            return ast.copy_location(ast.Constant(_mutated_constant(node.value)), node)
        return node


def sites(source):
    tree = ast.parse(source)
    v = _Sites(_skip_ranges(tree))
    v.visit(tree)
    return v.sites


def mutant_source(source, site):
    tree = ast.parse(source)
    t = _Apply(site)
    tree = t.visit(tree)
    if not t.done:
        raise RuntimeError(f"mutation site {site} not found")
    return ast.unparse(ast.fix_missing_locations(tree))


def module_name(path):
    rel = os.path.relpath(os.path.abspath(path), SRC)
    if rel.startswith(".."):
        raise SystemExit(f"{path} is not under {SRC}")
    return rel[:-3].replace(os.sep, ".")


def covering_ops(path):
    """Names of the ops whose CPU/Meta kernels native/*.yaml puts in this file."""
    mod = module_name(path)
    if not mod.startswith("ember.kernels."):
        return set()
    short = mod[len("ember.kernels."):]
    ops, current = set(), None
    for fname in sorted(os.listdir(NATIVE)):
        if not fname.endswith(".yaml"):
            continue
        with open(os.path.join(NATIVE, fname), encoding="utf-8") as f:
            for line in f:
                m = re.match(r"^- func:\s*([A-Za-z0-9_]+)", line)
                if m:
                    current = m.group(1)
                elif current and re.match(rf"^\s+[A-Za-z]+:\s*{re.escape(short)}:", line):
                    ops.add(current.rstrip("_"))
    return ops


def kernel_ops(path):
    """{kernel function name in this file: op names whose CPU/Meta kernel it is} from native/*.yaml."""
    mod = module_name(path)
    if not mod.startswith("ember.kernels."):
        return {}
    short = mod[len("ember.kernels."):]
    out, current = {}, None
    for fname in sorted(os.listdir(NATIVE)):
        if not fname.endswith(".yaml"):
            continue
        with open(os.path.join(NATIVE, fname), encoding="utf-8") as f:
            for line in f:
                m = re.match(r"^- func:\s*([A-Za-z0-9_]+)", line)
                if m:
                    current = m.group(1)
                    continue
                k = re.match(rf"^\s+[A-Za-z]+:\s*{re.escape(short)}:([A-Za-z0-9_]+)", line)
                if current and k:
                    out.setdefault(k.group(1), set()).add(current.rstrip("_"))
    return out


def _top_level(tree):
    """[(first line, last line, names bound, names referenced)] for each top-level statement."""
    out = []
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            bound = {node.name}
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            bound = {n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)}
        else:
            continue
        used = {n.id for n in ast.walk(node) if isinstance(n, ast.Name)} - bound
        out.append((node.lineno, node.end_lineno, bound, used))
    return out


def site_ops(path, source, line):
    """The ops whose kernels can run the code at `line`: the kernel functions that are, or (through
    module-level names) use, the top-level definition holding the line. None when that is every kernel
    of the file or cannot be told (module-level code, a factory all kernels share)."""
    kernels = kernel_ops(path)
    stmts = _top_level(ast.parse(source))
    here = next((b for first, last, b, _ in stmts if first <= line <= last), None)
    if not here:
        return None
    users = {}
    for _, _, bound, used in stmts:
        for name in bound:
            users.setdefault(name, set()).update(used)
    reach, todo = set(here), list(here)
    while todo:      # every top-level name that (transitively) uses the one holding the line
        n = todo.pop()
        for name, used in users.items():
            if n in used and name not in reach:
                reach.add(name)
                todo.append(name)
    ops = set().union(*(kernels.get(n, set()) for n in reach))
    all_ops = set().union(*kernels.values()) if kernels else set()
    return None if not ops or ops == all_ops else ops


def _opinfo_names(ops):
    """The op database's entry names for these aten ops (nn.functional.mse_loss for mse_loss, ...)."""
    if SRC not in sys.path:
        sys.path.insert(0, SRC)
    from ember.testing import op_db
    # internal kernels are tested through their public op: _softmax_backward_data -> softmax,
    # native_batch_norm -> batch_norm, _weight_norm_interface -> weight_norm_interface
    base = {re.sub(r"^native_", "", o.lstrip("_")).split("_backward")[0] for o in ops}
    names = set(ops) | base
    return set(ops) | {o.name for o in op_db if o.aten_name.rstrip("_") in names or o.name.split(".")[-1] in names}


def op_tests(ops, checks="test_reference or test_parity or test_out or test_inplace"):
    # test ids are "<opinfo name>-<dtype>": match the op name at the start of the id; only the tests
    # that compare numbers (with numpy's reference, torch, and between the function/out=/in-place forms)
    names = " or ".join(f"[{o}-" for o in sorted(_opinfo_names(ops)))
    return [os.path.join(ROOT, "tests", "ops", "test_ops.py"), "-k", f"({checks}) and ({names})"]


def default_tests(path):
    ops = sorted(covering_ops(path))
    if not ops:
        raise SystemExit(f"no op in native/*.yaml has a kernel in {path}; pass --tests")
    return op_tests(ops)


_BOOT = r"""
import importlib.machinery, importlib.util, sys
target, real_path, mutant_path = sys.argv[1:4]
with open(mutant_path, encoding="utf-8") as f:
    mutant = f.read().encode("utf-8")

class MutantLoader(importlib.machinery.SourceFileLoader):
    def get_data(self, path):
        return mutant if path == real_path else super().get_data(path)
    def path_stats(self, path):
        raise OSError("no bytecode cache for a mutant")

class MutantFinder:
    @staticmethod
    def find_spec(name, path=None, target_module=None):
        if name == target:
            return importlib.util.spec_from_file_location(name, real_path, loader=MutantLoader(name, real_path))
        return None

sys.meta_path.insert(0, MutantFinder)
sys.argv = ["pytest", *sys.argv[4:]]
import pytest
sys.exit(pytest.main())
"""


def run_tests(path, mutant, tests, timeout, workdir, module=None, src=SRC):
    """Run ``tests`` (pytest arguments, from ROOT) in a fresh interpreter where importing the module
    of ``path`` (dotted name ``module``, found under ``src``) executes the source ``mutant`` instead.
    Returns "killed", "survived", "timeout" or "no tests"."""
    mutant_path = os.path.join(workdir, "mutant.py")
    with open(mutant_path, "w", encoding="utf-8") as f:
        f.write(mutant)
    env = dict(os.environ, PYTHONPATH=src + os.pathsep + os.environ.get("PYTHONPATH", ""),
               PYTHONDONTWRITEBYTECODE="1")
    cmd = [sys.executable, "-c", _BOOT, module or module_name(path), os.path.abspath(path), mutant_path,
           *tests, "-x", "-q", "-p", "no:cacheprovider", "-p", "no:randomly"]
    try:
        r = subprocess.run(cmd, env=env, cwd=ROOT, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return "timeout"
    if r.returncode == 0:
        return "survived"
    if r.returncode == 5:
        return "no tests"
    return "killed"


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("file", help="a Python file under src/ (a kernel module)")
    ap.add_argument("--tests", nargs=argparse.REMAINDER,
                    help="pytest selection to run per mutant (default: test_ops.py for the file's ops)")
    ap.add_argument("--max-mutants", type=int, default=None, help="a seeded random sample of this many sites")
    ap.add_argument("--budget", type=float, default=None, help="stop starting mutants after this many seconds")
    ap.add_argument("--timeout", type=float, default=600, help="seconds per mutant's test run (then: killed)")
    ap.add_argument("--seed", type=int, default=0, help="seed of the sample")
    ap.add_argument("--lines", help="only sites on these lines, FIRST-LAST (a function's span)")
    ap.add_argument("--list", action="store_true", help="list the mutation sites and stop")
    ap.add_argument("--json", help="write the results here")
    ap.add_argument("--narrow", action="store_true",
                    help="default tests only: per mutant, only the ops whose kernels can run the mutated line")
    ap.add_argument("--checks", default="test_reference or test_parity or test_out or test_inplace",
                    help="the test_ops.py tests to run (a -k expression)")
    args = ap.parse_args(argv)
    with open(args.file, encoding="utf-8") as f:
        source = f.read()
    all_sites = sites(source)
    if args.lines:
        first, _, last = args.lines.partition("-")
        all_sites = [s for s in all_sites if int(first) <= s[1] <= int(last or first)]
    if args.list:
        for s in all_sites:
            print(f"{args.file}:{s[1]}:{s[2]}: {s[3]}")
        print(f"{len(all_sites)} sites")
        return None
    chosen = list(all_sites)
    if args.max_mutants is not None and args.max_mutants < len(chosen):
        chosen = sorted(random.Random(args.seed).sample(chosen, args.max_mutants), key=lambda s: s[1:3])
    tests = args.tests or op_tests(covering_ops(args.file) or default_tests(args.file), args.checks)
    import tempfile
    start = time.monotonic()
    results = []
    with tempfile.TemporaryDirectory() as workdir:
        baseline = run_tests(args.file, ast.unparse(ast.parse(source)), tests, args.timeout, workdir)
        if baseline != "survived":
            raise SystemExit(f"the tests do not pass on the unmutated file ({baseline}): {' '.join(tests)}")
        for site in chosen:
            if args.budget is not None and time.monotonic() - start > args.budget:
                break
            t0 = time.monotonic()
            ops = site_ops(args.file, source, site[1]) if args.narrow and not args.tests else None
            outcome = run_tests(args.file, mutant_source(source, site), op_tests(ops, args.checks) if ops else tests,
                                args.timeout, workdir)
            results.append({"line": site[1], "col": site[2], "mutation": site[3], "outcome": outcome,
                            "seconds": round(time.monotonic() - t0, 1)})
            print(f"{args.file}:{site[1]}:{site[2]} {site[3]:<24} {outcome} ({results[-1]['seconds']}s)",
                  flush=True)
    judged = [r for r in results if r["outcome"] in ("killed", "survived", "timeout")]
    survived = [r for r in judged if r["outcome"] == "survived"]
    rate = len(survived) / len(judged) if judged else float("nan")
    print(f"\n{args.file}: {len(all_sites)} sites, {len(judged)} mutants run, {len(survived)} survived "
          f"({100 * rate:.1f}%), {time.monotonic() - start:.0f}s")
    for r in survived:
        print(f"  survived: line {r['line']}: {r['mutation']}")
    summary = {"file": args.file, "sites": len(all_sites), "run": len(judged), "survived": len(survived),
               "survival_rate": rate, "tests": tests, "results": results}
    if args.json:
        with open(args.json, "w") as f:
            json.dump(summary, f, indent=1)
    return summary


if __name__ == "__main__":
    main()
