"""ember._inductor.config (torch._inductor.config): torch's knob names and defaults, the `cpp` namespace, and
patch() as a context manager and a decorator that restores values, also after an exception."""
import pytest

import ember
from ember._inductor import config


def test_knobs_and_defaults():
    assert config.cpp.threads == -1
    assert config.cpp.simdlen is None
    assert config.cpp.enable_kernel_profile is False
    assert config.cpp.cxx[0] is None and isinstance(config.cpp.cxx[1], str)
    assert config.max_autotune is False and config.fallback_random is False and config.freezing is False
    assert isinstance(config.compile_threads, int) and config.compile_threads >= 1
    assert not hasattr(config, "triton")
    copy = config.get_config_copy()
    assert copy["cpp.threads"] == -1 and "debug" in copy and "cpp_wrapper" in copy


def test_patch_forms_restore():
    with config.patch("max_autotune", True):
        assert config.max_autotune is True
    assert config.max_autotune is False
    with config.patch({"cpp.threads": 3, "debug": True}):
        assert config.cpp.threads == 3 and config.debug is True
    assert config.cpp.threads == -1 and config.debug is False
    with config.patch(fallback_random=True):
        assert config.fallback_random is True
    assert config.fallback_random is False


def test_patch_decorator_and_exception():
    @config.patch("cpp.simdlen", 8)
    def f():
        assert config.cpp.simdlen == 8
        raise ValueError("inside")
    with pytest.raises(ValueError, match="inside"):
        f()
    assert config.cpp.simdlen is None
    with config.patch("cpp.threads", 2):
        with config.patch("cpp.threads", 1):
            assert config.cpp.threads == 1
        assert config.cpp.threads == 2
    assert config.cpp.threads == -1


def test_patch_unknown_key_changes_nothing():
    with pytest.raises(AttributeError, match=r"ember\._inductor\.config\.bogus does not exist"):
        config.patch({"debug": True, "bogus": 1})
    assert config.debug is False
    with pytest.raises(AttributeError, match="cpp.nope does not exist"):
        config.patch("cpp.nope", 1)
    with pytest.raises(AssertionError, match="cannot pass both"):
        config.patch({"debug": True}, debug=True)


def test_threads_follows_ember():
    assert config.threads() == ember.get_num_threads()
    with config.patch("cpp.threads", 1):
        assert config.threads() == 1


@pytest.mark.parity
def test_same_names_as_torch():
    pytest.importorskip("torch")
    from torch._inductor import config as tconfig
    for key in config.get_config_copy():
        if key == "fallback_by_default":        # torch 2.13 has it too; older versions do not
            continue
        obj = tconfig
        for part in key.split("."):
            obj = getattr(obj, part)
    assert tconfig.cpp.threads == config.cpp.threads
    assert tconfig.cpp.simdlen == config.cpp.simdlen
