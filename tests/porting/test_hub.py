"""torch.hub in ember: the cache directory, downloads (file:// URLs: no network in tests), checkpoints from URLs,
hubconf.py entry points from a local dir and from a (monkeypatched) github download, each against real torch.hub
run on the same files: the same values, cache file names, messages and errors."""
import hashlib
import io
import os
import subprocess
import sys
import textwrap
import zipfile
from urllib.error import URLError

import numpy as np
import pytest

import ember
import ember.hub as ehub
from _porting import outcome, torch_fixture  # noqa: F401  (the `torch` fixture)


@pytest.fixture(autouse=True)
def _fresh_hub_dir(monkeypatch, tmp_path):
    """Every test starts from the default dir under a private TORCH_HOME, set_dir undone afterwards."""
    monkeypatch.setattr(ehub, "_hub_dir", None)
    monkeypatch.setenv("TORCH_HOME", str(tmp_path / "torch_home"))
    for var in ("TORCH_HUB", "TORCH_MODEL_ZOO"):
        monkeypatch.delenv(var, raising=False)
    if "torch.hub" in sys.modules:
        monkeypatch.setattr(sys.modules["torch.hub"], "_hub_dir", None)


def _url(path):
    return "file://" + str(path)


def _sha(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def _tree(root):
    """The files and dirs under root, relative, sorted (without the bytecode importing hubconf.py may write)."""
    out = []
    for d, dirs, files in os.walk(root):
        dirs[:] = [n for n in dirs if n != "__pycache__"]
        out += [os.path.relpath(os.path.join(d, n), root) for n in dirs + files]
    return sorted(out)


# ---- the cache directory -------------------------------------------------------------------------------------

@pytest.mark.parity
def test_get_dir_follows_torch_home_and_xdg(torch, monkeypatch, tmp_path):
    import torch.hub as thub
    cases = [{"TORCH_HOME": str(tmp_path / "th")}, {"XDG_CACHE_HOME": str(tmp_path / "xdg")},
             {"HOME": str(tmp_path / "home")}, {"TORCH_HOME": "~/relative_home", "HOME": str(tmp_path / "h2")}]
    for env in cases:
        for var in ("TORCH_HOME", "XDG_CACHE_HOME"):
            monkeypatch.delenv(var, raising=False)
        for k, v in env.items():
            monkeypatch.setenv(k, v)
        assert ehub.get_dir() == thub.get_dir(), env
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.delenv("TORCH_HOME")
    assert ehub.get_dir() == os.path.join(str(tmp_path / "home"), ".cache", "torch", "hub")


@pytest.mark.parity
def test_set_dir_expands_user_and_takes_paths(torch, monkeypatch, tmp_path):
    import pathlib

    import torch.hub as thub
    monkeypatch.setenv("HOME", str(tmp_path))
    for d in ("~/my_hub", pathlib.Path(tmp_path / "p")):
        ehub.set_dir(d)
        thub.set_dir(d)
        assert ehub.get_dir() == thub.get_dir() and isinstance(ehub.get_dir(), str)
    assert ehub.get_dir() == str(tmp_path / "p")


@pytest.mark.parity
def test_deprecated_env_variables_warn_like_torch(torch, monkeypatch, tmp_path):
    import torch.hub as thub
    monkeypatch.setenv("TORCH_HUB", "/somewhere")
    for hub in (ehub, thub):
        with pytest.warns(UserWarning, match="TORCH_HUB is deprecated, please use env TORCH_HOME instead"):
            hub.get_dir()


def test_hub_is_lazy_and_at_torchs_path():
    code = ("import sys; sys.path.insert(0, %r); import ember; "
            "print(sorted(m for m in ('ember.hub', 'urllib.request', 'packaging.version') if m in sys.modules)); "
            "import ember as torch; print(torch.hub.load_state_dict_from_url.__module__, 'hub' in dir(torch))"
            % os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "src"))
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split("\n")
    assert out[:2] == ["[]", "ember.hub True"]


@pytest.mark.parity
def test_public_names_match_torch(torch):
    import torch.hub as thub
    assert sorted(ehub.__all__) == sorted(thub.__all__)
    for name in ("HASH_REGEX", "ENV_GITHUB_TOKEN", "ENV_TORCH_HOME", "ENV_XDG_CACHE_HOME", "DEFAULT_CACHE_DIR",
                 "VAR_DEPENDENCY", "MODULE_HUBCONF", "READ_DATA_CHUNK"):
        a, b = getattr(ehub, name), getattr(thub, name)
        assert (a.pattern == b.pattern) if name == "HASH_REGEX" else a == b, name
    import inspect

    def params(fn):
        return [(p.name, p.kind, p.default) for p in inspect.signature(fn).parameters.values()]
    for name in thub.__all__:
        assert params(getattr(ehub, name)) == params(getattr(thub, name)), name


# ---- download_url_to_file -----------------------------------------------------------------------------------

def _blob(tmp_path, n=300_000):
    src = tmp_path / "src" / "blob.bin"
    src.parent.mkdir(exist_ok=True)
    src.write_bytes(np.random.default_rng(0).integers(0, 256, n, dtype=np.uint8).tobytes())
    return src


@pytest.mark.parity
def test_download_copies_and_checks_the_hash_prefix(torch, tmp_path):
    import torch.hub as thub
    src = _blob(tmp_path)
    digest = _sha(src)
    for name, hub in (("e", ehub), ("t", thub)):
        out = tmp_path / name
        out.mkdir()
        hub.download_url_to_file(_url(src), str(out / "a.bin"), progress=False)
        hub.download_url_to_file(_url(src), str(out / "b.bin"), hash_prefix=digest[:10], progress=False)
        assert (out / "a.bin").read_bytes() == src.read_bytes() == (out / "b.bin").read_bytes()
        assert _tree(out) == ["a.bin", "b.bin"]            # no .partial left behind


@pytest.mark.parity
def test_bad_hash_raises_torchs_error_and_keeps_the_old_file(torch, tmp_path):
    import torch.hub as thub
    src = _blob(tmp_path)
    results = []
    for name, hub in (("e", ehub), ("t", thub)):
        out = tmp_path / name
        out.mkdir()
        (out / "model.pth").write_bytes(b"the working checkpoint")
        results.append(outcome(lambda: hub.download_url_to_file(_url(src), str(out / "model.pth"), "deadbeef",
                                                                 progress=False)))
        assert (out / "model.pth").read_bytes() == b"the working checkpoint"
        assert _tree(out) == ["model.pth"]
    assert results[0] == results[1]
    assert results[0][:2] == ("raise", "RuntimeError")
    assert results[0][2] == f'invalid hash value (expected "deadbeef", got "{_sha(src)}")'


@pytest.mark.parity
def test_missing_url_raises_like_torch_and_leaves_nothing(torch, tmp_path):
    import torch.hub as thub
    res = []
    for name, hub in (("e", ehub), ("t", thub)):
        out = tmp_path / name
        out.mkdir()
        res.append(outcome(lambda: hub.download_url_to_file(_url(tmp_path / "nope.bin"), str(out / "x"),
                                                             progress=False)))
        assert _tree(out) == []
    assert res[0] == res[1] and res[0][1] == "URLError"


@pytest.mark.parity
def test_progress_bar_on_stderr_like_torch(torch, tmp_path, capfd):
    import torch.hub as thub
    src = _blob(tmp_path)
    if thub.tqdm is not thub._Faketqdm or ehub.tqdm is not ehub._Faketqdm:
        pytest.skip("tqdm installed: both draw tqdm's bar")
    err = []
    for name, hub in (("e", ehub), ("t", thub)):
        hub.download_url_to_file(_url(src), str(tmp_path / name), progress=True)
        err.append(capfd.readouterr().err)
    assert err[0] == err[1] and err[0].endswith("\r100.0%\n") and err[0].count("\r") == 3   # 3 chunks of 128 KiB
    ehub.download_url_to_file(_url(src), str(tmp_path / "quiet"), progress=False)
    assert capfd.readouterr().err == ""


# ---- load_state_dict_from_url -------------------------------------------------------------------------------

def _torch_checkpoint(torch, tmp_path, name="weights"):
    """A state dict saved by real torch, named `<name>-<first 8 hex of sha256>.pth` as hub checkpoints are."""
    torch.manual_seed(0)
    sd = torch.nn.Linear(3, 2).state_dict()
    d = tmp_path / "server"
    d.mkdir(exist_ok=True)
    tmp = d / "tmp.pth"
    torch.save(sd, tmp)
    path = d / f"{name}-{_sha(tmp)[:8]}.pth"
    tmp.rename(path)
    return sd, path


@pytest.mark.parity
def test_checkpoint_from_url_matches_torch_values_cache_and_message(torch, tmp_path, capsys):
    import torch.hub as thub
    sd, path = _torch_checkpoint(torch, tmp_path)
    got, printed = {}, {}
    for name, hub in (("e", ehub), ("t", thub)):
        hub.set_dir(str(tmp_path / f"hub_{name}"))
        got[name] = hub.load_state_dict_from_url(_url(path), check_hash=True, progress=False)
        printed[name] = capsys.readouterr().out.replace(f"hub_{name}", "HUB")
    assert printed["e"] == printed["t"] == f'Downloading: "{_url(path)}" to {tmp_path}/HUB/checkpoints/{path.name}\n'
    assert _tree(tmp_path / "hub_e") == _tree(tmp_path / "hub_t") == ["checkpoints", f"checkpoints/{path.name}"]
    assert list(got["e"]) == list(sd) == list(got["t"])
    for k in sd:
        assert isinstance(got["e"][k], ember.Tensor) and got["e"][k].dtype == ember.float32
        np.testing.assert_array_equal(got["e"][k].numpy(), sd[k].numpy())
    # cached: the second call neither downloads (the source is gone) nor prints
    path.unlink()
    again = ehub.load_state_dict_from_url(_url(path), check_hash=True, map_location="cpu")
    assert capsys.readouterr().out == "" and list(again) == list(sd)


@pytest.mark.parity
def test_checkpoint_with_a_wrong_hash_name_raises_like_torch(torch, tmp_path):
    import torch.hub as thub
    _, path = _torch_checkpoint(torch, tmp_path)
    bad = path.with_name("weights-0123abcd.pth")
    path.rename(bad)
    res = []
    for name, hub in (("e", ehub), ("t", thub)):
        hub.set_dir(str(tmp_path / f"hub_{name}"))
        res.append(outcome(lambda: hub.load_state_dict_from_url(_url(bad), check_hash=True, progress=False)))
        assert _tree(tmp_path / f"hub_{name}") == ["checkpoints"]      # nothing cached
    assert res[0] == res[1] and res[0][:2] == ("raise", "RuntimeError") and "0123abcd" in res[0][2]
    # without check_hash the name is not checked
    assert set(ehub.load_state_dict_from_url(_url(bad), progress=False)) == {"weight", "bias"}


@pytest.mark.parity
def test_model_dir_and_file_name(torch, tmp_path):
    import torch.hub as thub
    sd, path = _torch_checkpoint(torch, tmp_path)
    for name, hub in (("e", ehub), ("t", thub)):
        md = tmp_path / f"models_{name}"
        hub.load_state_dict_from_url(_url(path), model_dir=str(md), progress=False, file_name="renamed.pt")
        assert _tree(md) == ["renamed.pt"]
    assert not os.path.exists(ehub.get_dir())       # model_dir given: the hub dir is not created


@pytest.mark.parity
def test_ember_checkpoint_through_torch_hub_and_back(torch, tmp_path):
    import torch.hub as thub
    d = tmp_path / "server"
    d.mkdir()
    sd = {"w": ember.arange(6, dtype=ember.float64).reshape(2, 3), "step": 7}
    ember.save(sd, d / "tmp.pt")
    path = d / f"ember-{_sha(d / 'tmp.pt')[:12]}.pt"
    (d / "tmp.pt").rename(path)
    thub.set_dir(str(tmp_path / "t"))
    ehub.set_dir(str(tmp_path / "e"))
    t = thub.load_state_dict_from_url(_url(path), check_hash=True, progress=False)
    e = ehub.load_state_dict_from_url(_url(path), check_hash=True, progress=False, weights_only=True)
    assert t["step"] == e["step"] == 7
    np.testing.assert_array_equal(t["w"].numpy(), e["w"].numpy())
    assert t["w"].dtype == torch.float64 and e["w"].dtype == ember.float64


@pytest.mark.parity
def test_legacy_single_file_zip_warns_and_loads_like_torch(torch, tmp_path):
    import torch.hub as thub
    sd, path = _torch_checkpoint(torch, tmp_path)
    zpath = tmp_path / "server" / "packed.zip"
    with zipfile.ZipFile(zpath, "w") as z:
        z.write(path, "inner.pth")
    out = {}
    for name, hub in (("e", ehub), ("t", thub)):
        hub.set_dir(str(tmp_path / f"hub_{name}"))
        with pytest.warns(FutureWarning, match="Falling back to the old format < 1.6"):
            out[name] = hub.load_state_dict_from_url(_url(zpath), progress=False)
    assert _tree(tmp_path / "hub_e") == _tree(tmp_path / "hub_t") == [
        "checkpoints", "checkpoints/inner.pth", "checkpoints/packed.zip"]
    for k in sd:
        np.testing.assert_array_equal(out["e"][k].numpy(), out["t"][k].numpy())


def test_zip_entries_cannot_escape_the_target(tmp_path):
    for bad, msg in (("../evil.txt", "directory traversal"), ("/abs.txt", "absolute path")):
        buf = io.BytesIO()
        with zipfile.ZipFile(buf, "w") as z:
            z.writestr(bad, b"x")
        with zipfile.ZipFile(buf) as z, pytest.raises(ValueError, match=msg):
            ehub._safe_extract_zip(z, tmp_path / "out")
        assert not (tmp_path / "evil.txt").exists()


# ---- hubconf.py from a local directory ---------------------------------------------------------------------

HUBCONF = '''
"""A repository's hub entry points."""
import helper_mod

dependencies = ["numpy", "json"]
VERSION = 3


def tiny(n, scale=1.0, *, shift=0):
    """Tiny model: a list."""
    return [helper_mod.double(n) * scale + shift]


def _private():
    return "hidden"


class Builder:
    """A class entry point."""
    def __init__(self, width=4):
        self.width = width
'''


def _repo(root, hubconf=HUBCONF, **extra):
    root.mkdir(parents=True, exist_ok=True)
    (root / "hubconf.py").write_text(textwrap.dedent(hubconf))
    (root / "helper_mod.py").write_text("def double(x):\n    return 2 * x\n")
    for name, text in extra.items():
        (root / name).write_text(text)
    return root


def _forget_helper():
    sys.modules.pop("helper_mod", None)


@pytest.mark.parity
def test_local_load_calls_the_entry_point_like_torch(torch, tmp_path):
    import torch.hub as thub
    repo = str(_repo(tmp_path / "repo"))
    path_before = list(sys.path)
    for hub in (ehub, thub):
        _forget_helper()
        assert hub.load(repo, "tiny", 5, scale=0.5, shift=1, source="local") == [6.0]
        assert hub.load(repo, "Builder", source="LOCAL", width=7).width == 7
        assert sys.path == path_before      # the repo dir is on sys.path only while loading
    _forget_helper()


@pytest.mark.parity
def test_local_load_errors_match_torch(torch, tmp_path):
    import torch.hub as thub
    repo = str(_repo(tmp_path / "repo"))
    deps = str(_repo(tmp_path / "deps", HUBCONF.replace('["numpy", "json"]', '["numpy", "no_such_pkg_a", "no_such_b"]')))
    cases = [((repo, "missing"), {"source": "local"}),
             ((repo, "VERSION"), {"source": "local"}),
             ((repo, 3), {"source": "local"}),
             ((repo, "tiny", 1), {"source": "svn"}),
             ((deps, "tiny", 1), {"source": "local"}),
             ((repo, "tiny"), {"source": "local"}),                 # the entry point's own TypeError
             ((str(tmp_path / "nowhere"), "tiny", 1), {"source": "local"})]
    for args, kw in cases:
        _forget_helper()
        e = outcome(lambda: ehub.load(*args, **kw))
        _forget_helper()
        t = outcome(lambda: thub.load(*args, **kw))
        assert e == t, (args, kw)
        assert e[0] == "raise"
    _forget_helper()
    msgs = [outcome(lambda a=a, k=k: ehub.load(*a, **k))[1:] for a, k in cases[:5]]
    assert msgs == [("RuntimeError", "Cannot find callable missing in hubconf"),
                    ("RuntimeError", "Cannot find callable VERSION in hubconf"),
                    ("ValueError", "Invalid input: model should be a string of function name"),
                    ("ValueError", 'Unknown source: "svn". Allowed values: "github" | "local".'),
                    ("RuntimeError", "Missing dependencies: no_such_pkg_a, no_such_b")]
    _forget_helper()


def test_local_hubconf_building_an_ember_model_from_url_weights(tmp_path):
    """The usual hubconf: build the model, fill it from load_state_dict_from_url (`import ember as torch`)."""
    torch = ember
    torch.manual_seed(0)
    ref = torch.nn.Linear(4, 3)
    (tmp_path / "srv").mkdir()
    torch.save(ref.state_dict(), tmp_path / "srv" / "lin.pt")
    repo = _repo(tmp_path / "repo", f'''
        import ember as torch

        dependencies = ["ember"]


        def linear(pretrained=False, **kwargs):
            """Linear(4, 3), optionally with the published weights."""
            model = torch.nn.Linear(4, 3, **kwargs)
            if pretrained:
                model.load_state_dict(torch.hub.load_state_dict_from_url({_url(tmp_path / "srv" / "lin.pt")!r},
                                                                         progress=False))
            return model
        ''')
    model = torch.hub.load(str(repo), "linear", pretrained=True, source="local")
    x = torch.randn(2, 4)
    np.testing.assert_array_equal(model(x).detach().numpy(), ref(x).detach().numpy())
    assert torch.hub.load(str(repo), "linear", source="local", bias=False).bias is None


# ---- github repositories ---------------------------------------------------------------------------------------

def _cached_github_repo(hub_dir, owner="someone", name="repo", ref="main"):
    return _repo(hub_dir / f"{owner}_{name}_{ref.replace('/', '_')}")


@pytest.mark.parity
def test_github_list_help_load_from_the_cache_like_torch(torch, tmp_path, capsys):
    import torch.hub as thub
    res = {}
    for name, hub in (("e", ehub), ("t", thub)):
        hd = tmp_path / f"hub_{name}"
        _cached_github_repo(hd, ref="feature/x")
        hub.set_dir(str(hd))
        _forget_helper()
        res[name] = (hub.list("someone/repo:feature/x", trust_repo=True),
                     hub.help("someone/repo:feature/x", "tiny", trust_repo=True),
                     hub.load("someone/repo:feature/x", "tiny", 2, trust_repo=True, verbose=False),
                     (hd / "trusted_list").read_text())
        res[name] += (capsys.readouterr().err.replace(f"hub_{name}", "HUB"),)
    _forget_helper()
    assert res["e"] == res["t"]
    assert res["e"][:4] == (["Builder", "tiny"], "Tiny model: a list.", [4.0], "")     # already downloaded: trusted
    assert res["e"][4] == f"Using cache found in {tmp_path}/HUB/someone_repo_feature_x\n" * 2


@pytest.mark.parity
def test_github_trust_prompt_like_torch(torch, tmp_path, monkeypatch, capsys):
    import torch.hub as thub
    answers = []
    monkeypatch.setattr("builtins.input", lambda prompt: (answers.append(prompt), reply)[1])
    out = {}
    for name, hub in (("e", ehub), ("t", thub)):
        hd = tmp_path / f"hub_{name}"
        hub.set_dir(str(hd))
        hd.mkdir()
        _repo(tmp_path / f"elsewhere_{name}")
        # an untrusted repository that is not downloaded: refusing, or an odd answer, raises before any network use
        r = []
        for reply in ("n", "", "maybe"):
            r.append(outcome(lambda: hub._check_repo_is_trusted("stranger", "repo", "stranger_repo_main", "check")))
        reply = "yes"
        hub._check_repo_is_trusted("stranger", "repo", "stranger_repo_main", "check")
        hub._check_repo_is_trusted("pytorch", "vision", "pytorch_vision_main", True)      # trusted owner
        reply = "y"
        hub._check_repo_is_trusted("stranger", "repo", "stranger_repo_main", False)        # asks even if trusted
        out[name] = (r, (hd / "trusted_list").read_text(), capsys.readouterr().out)
    assert out["e"] == out["t"]
    assert out["e"][0] == [("raise", "Exception", "Untrusted repository.")] * 2 + [
        ("raise", "ValueError", "Unrecognized response maybe.")]
    assert out["e"][1] == "stranger_repo\n" and out["e"][2] == "The repository is already trusted.\n"
    assert len(set(answers)) == 1 and "stranger_repo does not belong to the list of trusted" in answers[0]


@pytest.mark.parity
def test_github_offline_without_a_ref_raises_like_torch(torch, tmp_path, monkeypatch):
    import torch.hub as thub

    def offline(*a, **k):
        raise URLError("no network in tests")
    res = []
    for name, hub in (("e", ehub), ("t", thub)):
        monkeypatch.setattr(hub, "urlopen", offline)
        hub.set_dir(str(tmp_path / "shared"))
        res.append(outcome(lambda: hub.load("someone/repo", "tiny", 1, trust_repo=True)))
        res.append(outcome(lambda: hub.list("not-a-repo-spec")))
    assert res[0] == res[2] and res[1] == res[3]
    assert res[0] == ("raise", "RuntimeError", "It looks like there is no internet connection and the repo could not "
                      f"be found in the cache ({tmp_path / 'shared'})")
    assert res[1][:2] == ("raise", "ValueError")
    # offline, but the master branch is cached: that is the one used
    _cached_github_repo(tmp_path / "shared", ref="master")
    _forget_helper()
    assert ehub.load("someone/repo", "tiny", 1, trust_repo=True, verbose=False) == [2.0]
    _forget_helper()


def _github_zip(tmp_path, top="repo-0123abc"):
    """What github serves for /zipball/<ref>: the tree under one `<name>-<sha>/` folder."""
    src = _repo(tmp_path / "zipsrc")
    zpath = tmp_path / "zipball.zip"
    with zipfile.ZipFile(zpath, "w") as z:
        z.writestr(f"{top}/", b"")
        for f in sorted(os.listdir(src)):
            z.write(src / f, f"{top}/{f}")
    return zpath


@pytest.mark.parity
def test_github_download_unpacks_into_the_cache_like_torch(torch, tmp_path, monkeypatch, capsys):
    import torch.hub as thub
    zpath = _github_zip(tmp_path)
    urls, res = [], {}
    for name, hub in (("e", ehub), ("t", thub)):
        def fake_download(url, dst, hash_prefix=None, progress=True):
            urls.append((url, os.path.basename(dst), progress))
            with open(dst, "wb") as f:
                f.write(zpath.read_bytes())
        monkeypatch.setattr(hub, "download_url_to_file", fake_download)
        hd = tmp_path / f"hub_{name}"
        hub.set_dir(str(hd))
        _cached_github_repo(hd, owner="pytorch", name="demo", ref="v1.0")        # stale: force_reload replaces it
        (hd / "pytorch_demo_v1.0" / "stale.py").write_text("")
        _forget_helper()
        res[name] = (hub.load("pytorch/demo:v1.0", "tiny", 3, skip_validation=True, force_reload=True),
                     _tree(hd), capsys.readouterr().out.replace(f"hub_{name}", "HUB"))
    _forget_helper()
    assert res["e"] == res["t"]
    assert urls[0] == urls[1] == ("https://github.com/pytorch/demo/zipball/v1.0", "v1.0.zip", False)
    assert res["e"][0] == [6.0]
    assert "pytorch_demo_v1.0/stale.py" not in res["e"][1] and "v1.0.zip" not in res["e"][1]
    assert res["e"][2] == f'Downloading: "https://github.com/pytorch/demo/zipball/v1.0" to {tmp_path}/HUB/v1.0.zip\n'


def test_github_validation_rejects_a_ref_the_repo_lacks(tmp_path, monkeypatch):
    pages = {"branches": [[{"name": "main", "commit": {"sha": "aaa111"}}], []], "tags": [[]]}

    def fake_read(req):
        kind = "branches" if "/branches" in req.full_url else "tags"
        page = int(req.full_url.rsplit("page=", 1)[1])
        return __import__("json").dumps(pages[kind][page - 1] if page <= len(pages[kind]) else [])
    monkeypatch.setattr(ehub, "_read_url", fake_read)
    ehub._validate_not_a_forked_repo("someone", "repo", "main")
    ehub._validate_not_a_forked_repo("someone", "repo", "aaa1")          # a commit prefix
    with pytest.raises(ValueError, match=r"Cannot find feature in https://github.com/someone/repo\. If it's a commit "
                                         r"from a forked repo, please call hub.load\(\) with forked repo directly\."):
        ehub._validate_not_a_forked_repo("someone", "repo", "feature")


@pytest.mark.parity
def test_github_ambiguous_ref_takes_the_branch_like_torch(torch, tmp_path, monkeypatch, capsys):
    """github answers 300 for a ref that is both a tag and a branch: warn, then fetch refs/heads/<ref>."""
    import torch.hub as thub
    from urllib.error import HTTPError
    zpath = _github_zip(tmp_path)
    urls = {}
    for name, hub in (("e", ehub), ("t", thub)):
        urls[name] = []

        def fake_download(url, dst, hash_prefix=None, progress=True, seen=urls[name]):
            seen.append(url)
            if "refs/heads" not in url:
                raise HTTPError(url, 300, "Multiple Choices", {}, None)
            with open(dst, "wb") as f:
                f.write(zpath.read_bytes())
        monkeypatch.setattr(hub, "download_url_to_file", fake_download)
        hub.set_dir(str(tmp_path / f"hub_{name}"))
        _forget_helper()
        with pytest.warns(UserWarning, match="The ref v2 is ambiguous. Perhaps it is both a tag and a branch"):
            assert hub.list("pytorch/demo:v2", skip_validation=True) == ["Builder", "tiny"]
        assert _tree(tmp_path / f"hub_{name}") == ["pytorch_demo_v2", "pytorch_demo_v2/helper_mod.py",
                                                   "pytorch_demo_v2/hubconf.py", "trusted_list"]
    _forget_helper()
    capsys.readouterr()
    assert urls["e"] == urls["t"] == ["https://github.com/pytorch/demo/zipball/v2",
                                      "https://github.com/pytorch/demo/zipball/refs/heads/v2"]
