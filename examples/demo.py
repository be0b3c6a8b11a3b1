"""ember's tour: tensors over storages, views, promotion, the dispatcher, meta tensors, custom ops.

    python examples/demo.py

It takes a few seconds and prints what each step does; train_digits.py and char_gpt.py train real models.
"""
import argparse

import ember
from ember._dispatch.modes import TorchDispatchMode
from ember.library import custom_op


def build_parser():
    return argparse.ArgumentParser(description=__doc__.splitlines()[0],
                                   epilog="See also: examples/train_digits.py (a CNN on handwritten digits) "
                                          "and examples/char_gpt.py (a character-level GPT).")


def main(argv=None):
    build_parser().parse_args(argv)
    print("== tensors over storages")
    x = ember.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    print(x)
    print("shape", tuple(x.shape), "stride", x.stride(), "dtype", x.dtype, "device", x.device)

    print("\n== type promotion (torch's rules)")
    i = ember.tensor([1, 2, 3])
    print("int64 + 2.5 ->", (i + 2.5).dtype, "| int32 + 5 ->", (ember.tensor([1], dtype=ember.int32) + 5).dtype,
          "| bool + 1 ->", (ember.tensor([True]) + 1).dtype)

    print("\n== every op goes through the dispatcher; a mode sees them all")

    class LogOps(TorchDispatchMode):
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            out = func(*args, **(kwargs or {}))
            print(f"  {func}  ->  {tuple(out.shape) if isinstance(out, ember.Tensor) else type(out).__name__}")
            return out

    with LogOps():
        y = ember.sigmoid(x * 2 - 1)
    print(y)

    print("\n== meta tensors: shapes and dtypes without data")
    from ember.kernels.common import empty_tensor
    m = empty_tensor((64, 3, 224, 224), ember.float16, "meta")
    out = (m * 2.0 + m).exp()
    print(out.device, tuple(out.shape), out.dtype)

    print("\n== a custom op dispatches like a built-in")

    @custom_op("demo::scaled_tanh", mutates_args=())
    def scaled_tanh(t: ember.Tensor, scale: float) -> ember.Tensor:
        return ember.tanh(t) * scale

    print(ember.ops.demo.scaled_tanh.default._schema)
    print(scaled_tanh(x, 0.5))


if __name__ == "__main__":
    main()
