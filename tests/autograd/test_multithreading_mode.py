"""torch.autograd.set_multithreading_enabled (ember.autograd.set_multithreading_enabled) against torch."""
import threading

import numpy as np
import pytest

import ember
from ember.autograd.grad_mode import _is_multithreading_enabled

torch = pytest.importorskip("torch")


def _flag(lib):
    return _is_multithreading_enabled() if lib is ember else torch._C._is_multithreading_enabled()


@pytest.mark.parity
def test_function_context_and_decorator_forms_match_torch():
    for lib in (ember, torch):
        seen = [_flag(lib)]
        with lib.autograd.set_multithreading_enabled(False):
            seen.append(_flag(lib))
            with lib.autograd.set_multithreading_enabled(True):
                seen.append(_flag(lib))
            seen.append(_flag(lib))
        seen.append(_flag(lib))

        @lib.autograd.set_multithreading_enabled(True)
        def inner():
            return _flag(lib)
        lib.autograd.set_multithreading_enabled(False)       # the constructor sets the mode (torch's)
        seen += [_flag(lib), inner(), _flag(lib)]
        lib.autograd.set_multithreading_enabled(True)
        seen.append(_flag(lib))
        assert seen == [True, False, True, False, True, False, True, False, True], lib.__name__


@pytest.mark.parity
def test_thread_local_and_backward_unchanged():
    other = []
    for lib in (ember, torch):
        with lib.autograd.set_multithreading_enabled(False):
            t = threading.Thread(target=lambda: other.append(_flag(lib)))
            t.start()
            t.join()
            x = lib.tensor(np.linspace(-1, 1, 5), requires_grad=True)
            (x.sin() * x).sum().backward()
            other.append(x.grad.numpy().copy())
    assert other[0] is True and other[2] is True
    np.testing.assert_allclose(other[1], other[3], rtol=1e-12)
