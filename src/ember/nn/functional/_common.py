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
