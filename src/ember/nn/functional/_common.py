"""Helpers shared by nn.functional's family modules (torch/nn/functional.py's private helpers): reduction
strings, torch.Size formatting, argument checks."""



__all__ = []


_RED = {"none": 0, "mean": 1, "sum": 2}


def _apply_reduction(loss, reduction):
    return loss if reduction == "none" else (loss.mean() if reduction == "mean" else loss.sum())


def _torch_size(t):
    return f"torch.Size([{', '.join(map(str, t.shape))}])"


def _chk():
    from ... import _arg_parser
    return _arg_parser


def assert_int_or_pair(arg, arg_name, message):
    """torch's check that an argument is an int or a pair (an AssertionError with `message` naming it)."""
    assert isinstance(arg, int) or len(arg) == 2, message.format(arg_name)


def boolean_dispatch(arg_name, arg_index, default, if_true, if_false, module_name, func_name):
    """One function that calls `if_true` or `if_false` by a boolean argument (given by name or position, else
    `default`), as F.max_pool2d picks its with-indices form by return_indices; the one docstring is shared."""
    def fn(*args, **kwargs):
        flag = default
        if arg_name in kwargs:
            flag = kwargs[arg_name]
        elif arg_index < len(args):
            flag = args[arg_index]
        return if_true(*args, **kwargs) if flag else if_false(*args, **kwargs)

    if if_true.__doc__ is None and if_false.__doc__ is not None:
        doc = if_true.__doc__ = if_false.__doc__
    elif if_false.__doc__ is None and if_true.__doc__ is not None:
        doc = if_false.__doc__ = if_true.__doc__
    elif if_false.__doc__ is None and if_true.__doc__ is None:
        doc = None
    else:
        raise RuntimeError("only one function can have a docstring")
    fn.__doc__ = doc
    if module_name is not None:
        fn.__module__ = module_name
    if func_name is not None:
        fn.__name__ = func_name
    return fn
