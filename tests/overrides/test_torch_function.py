"""The __torch_function__ protocol (torch.overrides): subclass results, order rules, duck types, modes, the
disable context managers and the helpers, each compared with torch 2.13 running the same code."""
import os
import subprocess
import sys

import pytest

import ember

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.parity


def _name(x):
    return type(x).__name__


def _subclass_results(mod):
    class Sub(mod.Tensor):
        pass
    s = mod.arange(6.0).reshape(2, 3).as_subclass(Sub)
    p = mod.ones(3)
    out = {
        "function": mod.add(s, 1), "method": s.sum(dim=0), "operator": s * 2, "reflected": 1 - s, "rdiv": 2 / s,
        "plain_left": p + s, "index": s[0], "index_slice": s[:, 1:], "T": s.T, "mT": s.mT, "view": s.view(6),
        "to": s.to(mod.float64), "float": s.double().float(), "cat": mod.cat([p.reshape(1, 3), s]), "eq": s == 1,
        "neg": -s, "clone": s.clone(), "inplace": s.clone().add_(1), "stack": mod.stack([s, s]),
        "where": mod.where(s > 2, s, p),
    }
    res = {k: _name(v) for k, v in out.items()}
    res["split"] = [_name(v) for v in s.split(1)]
    res["split_fn"] = [_name(v) for v in mod.split(s, 1)]
    mx = s.max(dim=1)
    res["max"] = (_name(mx), _name(mx.values), _name(mx.indices))
    res["unbind"] = [_name(v) for v in s.unbind(0)]
    res["tolist"] = s.tolist()
    res["values"] = mod.add(s, 1).tolist()
    res["item"] = type(s[0, 0].item()).__name__
    res["len"] = len(s)
    return res


def test_subclass_results_keep_the_subclass():
    assert _subclass_results(ember) == _subclass_results(torch)


def _grad_case(mod):
    class Sub(mod.Tensor):
        pass
    x = mod.ones(3, requires_grad=True)
    s = x.as_subclass(Sub)
    y = (s * 2).sum()
    y.backward()
    return _name(y), type(y.grad_fn).__name__, x.grad.tolist(), _name(mod.nn.Parameter(mod.ones(2)) * 2)


def test_subclass_results_keep_grad_fn_and_parameter_results_are_plain():
    assert _grad_case(ember) == _grad_case(torch)


def _order_case(mod):
    calls = []

    class A(mod.Tensor):
        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            calls.append(("A", func.__name__, tuple(t.__name__ for t in types)))
            return super().__torch_function__(func, types, args, kwargs)

    class B(A):
        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            calls.append(("B", func.__name__, tuple(t.__name__ for t in types)))
            return super().__torch_function__(func, types, args, kwargs)

    class C(mod.Tensor):
        pass

    a = mod.ones(2).as_subclass(A)
    b = mod.ones(2).as_subclass(B)
    c = mod.ones(2).as_subclass(C)
    r1 = mod.add(a, b)       # the subclass B goes first, whatever the position
    r2 = mod.mul(b, a)
    try:
        mod.add(a, c)        # unrelated subclasses: both NotImplemented
        err = None
    except TypeError as e:
        err = str(e).replace("'torch.", "'ember.")
    return calls, _name(r1), _name(r2), err


def test_order_rules_and_the_error_when_every_override_declines():
    got, want = _order_case(ember), _order_case(torch)
    assert got[:3] == want[:3]
    # the message names the classes (their module differs: this test's classes are local to each run)
    assert got[3].splitlines()[0] == want[3].splitlines()[0] == (
        "Multiple dispatch failed for 'ember.add'; all __torch_function__ handlers returned NotImplemented:")
    assert [ln.split("<class")[0] for ln in got[3].splitlines()] == [ln.split("<class")[0] for ln in want[3].splitlines()]


def _duck_case(mod):
    seen = []

    class Duck:
        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            seen.append((func.__name__, [t.__name__ for t in types], len(args), kwargs))
            if func.__name__ == "mul":
                return NotImplemented
            return "duck"

    d = Duck()
    t = mod.ones(2)
    out = [mod.add(d, 1), mod.add(t, d, alpha=2), mod.cat([t, d]), t.add(d), mod.stack((d, t)), t[d]]
    try:
        mod.mul(d, 2)
        err = None
    except TypeError as e:
        err = str(e).replace("'torch.", "'ember.").split("<class")[0]
    return out, seen, err


def test_objects_with_torch_function_that_are_not_tensors():
    assert _duck_case(ember) == _duck_case(torch)


def _mode_case(mod, overrides):
    log = []

    class Log(overrides.TorchFunctionMode):
        def __init__(self, tag):
            super().__init__()
            self.tag = tag

        def __torch_function__(self, func, types, args=(), kwargs=None):
            log.append((self.tag, func.__name__, [t.__name__ for t in types], kwargs or {}))
            return func(*args, **(kwargs or {}))

    class Sub(mod.Tensor):
        pass

    a = mod.ones(2)
    s = mod.ones(2).as_subclass(Sub)
    with Log("outer"), Log("inner"):
        r1 = mod.add(a, 1)
        r2 = s.sum()
        z = mod.zeros(3)                       # a factory: only a mode sees it
    with Log("m"):
        with mod._C.DisableTorchFunctionSubclass():
            r3 = mod.add(s, 1)                 # the mode, with no overloaded types; no conversion
        with mod._C.DisableTorchFunction():
            mod.add(a, 1)                      # nothing
        enabled = mod._C._is_torch_function_mode_enabled()
    return log, _name(r1), _name(r2), _name(z), _name(r3), enabled, mod._C._is_torch_function_mode_enabled()


def test_modes_nest_and_the_disable_context_managers():
    import torch.overrides
    import ember.overrides
    assert _mode_case(ember, ember.overrides) == _mode_case(torch, torch.overrides)


def _mode_not_implemented(mod, overrides):
    class No(overrides.TorchFunctionMode):
        def __torch_function__(self, func, types, args=(), kwargs=None):
            return NotImplemented
    a = mod.ones(2)
    with No():
        try:
            mod.add(a, 1)
        except TypeError as e:
            return str(e).replace("'torch.", "'ember.").split("<")[0]


def test_mode_returning_not_implemented_raises_torchs_error():
    import torch.overrides
    import ember.overrides
    got = _mode_not_implemented(ember, ember.overrides)
    assert got == _mode_not_implemented(torch, torch.overrides)
    assert got.startswith("Multiple dispatch failed for 'ember.add'")


def _helpers_case(mod, overrides):
    class Sub(mod.Tensor):
        pass

    class Duck:
        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            return ("duck", func.__name__, args, kwargs)

    t, s = mod.ones(1), mod.ones(1).as_subclass(Sub)

    def dispatcher(x, y=None):
        return (x, y)

    @overrides.wrap_torch_function(dispatcher)
    def myfunc(x, y=None):
        return "plain"

    return (overrides.has_torch_function((t,)), overrides.has_torch_function((s,)),
            overrides.has_torch_function_unary(Duck()), overrides.has_torch_function_variadic(1, t, s),
            overrides.has_torch_function((mod.nn.Parameter(mod.ones(1)),)),
            overrides.is_tensor_like(t), overrides.is_tensor_like(s), overrides.is_tensor_like(Duck()),
            overrides.is_tensor_like(1), myfunc(t), myfunc(Duck(), 2)[:2],
            overrides.handle_torch_function(myfunc, (Duck(),), 1, y=2)[0])


def test_overrides_helpers():
    import torch.overrides
    import ember.overrides
    assert _helpers_case(ember, ember.overrides) == _helpers_case(torch, torch.overrides)


def test_handle_torch_function_error_message():
    import ember.overrides

    class No:
        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            return NotImplemented

    def f(x):
        return x
    with pytest.raises(TypeError, match="no implementation found for '.*f' on types that implement "
                                        r"__torch_function__: \[<class"):
        ember.overrides.handle_torch_function(f, (No(),), No())


def test_overridable_functions_list_bindings_and_properties():
    import ember.overrides
    fns = ember.overrides.get_overridable_functions()
    assert ember.add in fns[ember] and ember.Tensor.add in fns[ember.Tensor]
    assert ember.Tensor.split in fns[ember.Tensor]
    assert ember.is_tensor in ember.overrides.get_ignored_functions()
    over = ember.overrides.get_testing_overrides()
    assert over[ember.add](ember.ones(1), 1) == -1


def test_plain_tensors_and_ember_nn_leave_the_flag_clear():
    # the hot path's one check stays false unless a subclass taking part in the protocol exists or a mode is on
    code = ("import ember, ember.nn, ember._subclasses.fake_tensor\n"
            "from ember._core import torch_function as tf\n"
            "ember.nn.Linear(2, 2)(ember.ones(1, 2)); ember.nn.LazyLinear(2)\n"
            "assert tf.TF_ACTIVE[0] == 0, 'set at import'\n"
            "import ember.overrides as o\n"
            "with o.BaseTorchFunctionMode():\n"
            "    assert tf.TF_ACTIVE[0] == 1\n"
            "assert tf.TF_ACTIVE[0] == 0\n"
            "class S(ember.Tensor): pass\n"
            "assert tf.TF_ACTIVE[0] == 1\n")
    env = dict(os.environ, PYTHONPATH=os.path.dirname(os.path.dirname(ember.__file__)))
    subprocess.run([sys.executable, "-c", code], check=True, env=env)


@pytest.mark.parametrize("backend", ["eager", "inductor"])
def test_compiled_function_with_a_subclass_gives_eager_results(backend):
    # torch's dynamo traces __torch_function__; ember's breaks the graph there: the same results and calls
    def case(mod, compile_):
        calls = []

        class Sub(mod.Tensor):
            @classmethod
            def __torch_function__(cls, func, types, args=(), kwargs=None):
                calls.append(func.__name__)
                return super().__torch_function__(func, types, args, kwargs)

        g = compile_(lambda x: x * 2 + 1)
        plain = g(mod.arange(3.0))                 # compiled for a plain tensor first: not reused for Sub
        r = g(mod.arange(3.0).as_subclass(Sub))
        return _name(plain), _name(r), r.tolist(), [c for c in calls if c != "__get__"]
    got = case(ember, lambda f: ember.compile(f, backend=backend))
    assert got == ("Tensor", "Sub", [1.0, 3.0, 5.0], ["mul", "add", "tolist"])     # (torch eager's calls)


def _functional_case(mod):
    F = mod.nn.functional

    class Sub(mod.Tensor):
        pass
    s = mod.ones(2, 4).as_subclass(Sub)
    w = mod.ones(3, 4)
    out = {"linear": F.linear(s, w), "Linear": mod.nn.Linear(4, 3)(s), "relu": F.relu(s), "gelu": F.gelu(s),
           "softmax": F.softmax(s, -1), "layer_norm": F.layer_norm(s, (4,)), "mse": F.mse_loss(s, s),
           "cross_entropy": F.cross_entropy(s, mod.tensor([0, 1])), "pad": F.pad(s, (1, 1)),
           "threshold": F.threshold(s, 0.5, 0.0), "normalize": F.normalize(s),
           "sdpa": F.scaled_dot_product_attention(s[None], s[None], s[None])}
    return {k: _name(v) for k, v in out.items()}


def test_nn_functional_results_keep_the_subclass():
    # (pad and threshold: bindings with a parameter named as the function itself)
    assert _functional_case(ember) == _functional_case(torch)


def test_direct_paths_keep_the_subclass_after_warm_up():
    # F.linear/F.layer_norm skip the dispatcher once its cache holds the plain kernel (nn/functional's `_direct`
    # paths): a subclass must still reach __torch_function__ then, as it does on a cold cache
    F = ember.nn.functional
    with ember.no_grad():
        for _ in range(2):
            F.linear(ember.ones(2, 4), ember.ones(3, 4), ember.ones(3))
            F.linear(ember.ones(2, 4), ember.ones(3, 4))
            F.layer_norm(ember.ones(2, 4), (4,), ember.ones(4), ember.ones(4), 1e-5)

    class Sub(ember.Tensor):
        pass
    s = ember.ones(2, 4).as_subclass(Sub)
    with ember.no_grad():
        outs = [F.linear(s, ember.ones(3, 4), ember.ones(3)), F.linear(s, ember.ones(3, 4)),
                F.layer_norm(s, (4,), ember.ones(4), ember.ones(4), 1e-5)]
    assert [type(o).__name__ for o in outs] == ["Sub", "Sub", "Sub"]
