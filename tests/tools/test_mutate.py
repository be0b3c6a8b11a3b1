"""tools/mutate.py: mutation sites from the syntax tree, one change per mutant, and the run that serves
the mutant through an import hook (killed when the tests fail, survived when they pass)."""
import ast
import textwrap

import mutate

SNIPPET = textwrap.dedent('''
    """Module docstring: 1 + 1 is not a site."""
    def f(a, b):
        """doc 2 * 3"""
        if a < b and b != 0:
            raise ValueError(f"bad {a + 1}")
        x = a * 2 + 0.5
        x += 1
        return x if True else -x
''')


def test_sites_skip_docstrings_and_error_messages():
    kinds = sorted(d for _, _, _, d in mutate.sites(SNIPPET))
    assert kinds == sorted(["Lt -> LtE", "NotEq -> Eq", "And -> Or", "0 -> 1", "Mult -> Div", "2 -> 3",
                            "Add -> Sub", "0.5 -> 1.5", "Add= -> Sub=", "1 -> 2", "True -> False"])


def test_each_mutant_changes_one_site():
    base = ast.dump(ast.parse(SNIPPET))
    seen = set()
    for site in mutate.sites(SNIPPET):
        m = mutate.mutant_source(SNIPPET, site)
        assert ast.dump(ast.parse(m)) != base
        seen.add(m)
        again = [s for s in mutate.sites(m)]          # still one site per position, none vanished
        assert len(again) == len(mutate.sites(SNIPPET))
    assert len(seen) == len(mutate.sites(SNIPPET))


def test_run_kills_and_survives(tmp_path):
    pkg = tmp_path / "src" / "calcpkg"
    pkg.mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    calc = pkg / "calc.py"
    source = "def half(x):\n    return x / 2\n\n\ndef unused():\n    return 7\n"
    calc.write_text(source)
    test = tmp_path / "test_calc.py"
    test.write_text("from calcpkg.calc import half\n\n\ndef test_half():\n    assert half(4) == 2\n")
    sites = {d: s for s in mutate.sites(source) for d in [s[3]]}
    run = lambda m: mutate.run_tests(str(calc), m, [str(test)], 120, str(tmp_path),  # noqa: E731
                                     module="calcpkg.calc", src=str(tmp_path / "src"))
    assert run(source) == "survived"                                  # the baseline passes
    assert run(mutate.mutant_source(source, sites["Div -> Mult"])) == "killed"
    assert run(mutate.mutant_source(source, sites["7 -> 8"])) == "survived"
    assert calc.read_text() == source                                 # the file itself is never changed


def test_default_tests_follow_the_yaml():
    ops = mutate.covering_ops(mutate.os.path.join(mutate.SRC, "ember", "kernels", "cpu", "elementwise.py"))
    assert {"add", "div", "floor_divide", "remainder"} <= ops


def test_lines_restrict_the_sites(tmp_path, capsys):
    f = tmp_path / "m.py"
    f.write_text(SNIPPET)
    mutate.main([str(f), "--list", "--lines", "7-8"])
    out = capsys.readouterr().out.splitlines()
    assert out[-1] == "6 sites" and all(":7:" in line or ":8:" in line for line in out[:-1])


def test_narrow_picks_the_ops_whose_kernels_run_the_line():
    """--narrow: a line in _floor_div runs only div(rounding_mode="floor") and floor_divide; a line of the
    shared binary-op factory runs every binary op (None: the file's whole selection)."""
    path = mutate.os.path.join(mutate.SRC, "ember", "kernels", "cpu", "elementwise.py")
    with open(path, encoding="utf-8") as f:
        src = f.read()
    tree = ast.parse(src)
    floor = next(n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == "_floor_div")
    ops = mutate.site_ops(path, src, floor.body[-1].lineno)
    assert ops is not None and "floor_divide" in ops and "div" in ops and "add" not in ops
    k = mutate.op_tests({"_softmax_backward_data"}, "test_parity")[-1]
    assert "[nn.functional.softmax-" in k and k.startswith("(test_parity) and (")
