"""Selection: discovery, groups, include/exclude, TESTS_TO_INCLUDE, serial scan."""
import pytest

from runner_helpers import write_project
from testrunner import selection

FILES = [
    "tests/core/test_tensor.py",
    "tests/schema/test_parse.py",
    "tests/dispatch/test_keys.py",
    "tests/codegen/test_gen.py",
    "tests/ops/test_add.py",
    "tests/autograd/test_grad.py",
    "tests/nn/test_linear.py",
    "tests/optim/test_sgd.py",
    "tests/data/test_loader.py",
    "tests/serialization/test_save.py",
    "tests/extra/test_misc.py",
    "tests/test_top.py",
]


@pytest.fixture
def root(tmp_path):
    files = {f: "def test_x():\n    pass\n" for f in FILES}
    files["tests/core/helpers.py"] = "x = 1\n"
    files["tests/core/__pycache__/test_cached.py"] = ""
    return write_project(tmp_path, files)


def test_discover_all_sorted(root):
    assert selection.discover(root) == sorted(FILES)


def test_default_is_everything(root):
    assert selection.select(root).files == sorted(FILES)


def test_core_group_maps_four_dirs(root):
    got = selection.select(root, groups=["core"]).files
    assert got == sorted(["tests/core/test_tensor.py", "tests/schema/test_parse.py",
                          "tests/dispatch/test_keys.py", "tests/codegen/test_gen.py"])


def test_nn_group_and_comma_lists(root):
    got = selection.select(root, groups=["nn,ops"]).files
    assert got == sorted(["tests/nn/test_linear.py", "tests/optim/test_sgd.py",
                          "tests/data/test_loader.py", "tests/ops/test_add.py"])


def test_empty_known_group_selects_nothing(root):
    assert selection.select(root, groups=["compile"]).files == []


def test_existing_directory_is_a_group(root):
    assert selection.select(root, groups=["extra"]).files == ["tests/extra/test_misc.py"]


def test_unknown_group_is_error(root):
    with pytest.raises(selection.SelectionError, match="unknown test group 'bogus'"):
        selection.select(root, groups=["core", "bogus"])


@pytest.mark.parametrize("pattern", [
    "core/test_tensor", "tests/core/test_tensor.py", "tests/core/*", "*tensor*", "core", "tests/core/",
])
def test_include_pattern_forms(root, pattern):
    assert selection.select(root, include=[pattern]).files == ["tests/core/test_tensor.py"]


def test_include_union_with_groups_then_exclude(root):
    got = selection.select(root, groups=["core"], include=["ops/test_add"],
                           exclude=["schema", "*gen*"]).files
    assert got == ["tests/core/test_tensor.py", "tests/dispatch/test_keys.py", "tests/ops/test_add.py"]


def test_exclude_alone_removes_from_everything(root):
    got = selection.select(root, exclude=["tests/*/test_*"]).files
    assert got == ["tests/test_top.py"]


def test_env_merged_with_flags(root):
    got = selection.select(root, include=["ops/test_add"], env_value="autograd, nn/test_linear").files
    assert got == ["tests/autograd/test_grad.py", "tests/nn/test_linear.py", "tests/ops/test_add.py"]


def test_unmatched_include_is_reported(root):
    sel = selection.select(root, include=["nothing_here"])
    assert sel.files == [] and sel.unmatched_includes == ["nothing_here"]


@pytest.mark.parametrize("text,serial", [
    ("import pytest\npytestmark = pytest.mark.serial\n", True),
    ("import pytest\npytestmark = [\n    pytest.mark.slow,\n    pytest.mark.serial,\n]\n", True),
    ("import pytest\npytestmark = pytest.mark.slow\n", False),
    ("import pytest\n@pytest.mark.serial\ndef test_x():\n    pass\n", False),
    ("# pytestmark = pytest.mark.serial\n", False),
])
def test_serial_scan(tmp_path, text, serial):
    (tmp_path / "test_s.py").write_text(text)
    assert selection.is_serial(str(tmp_path), "test_s.py") is serial
