"""DispatchKey and DispatchKeySet as int bitmasks (c10/core/DispatchKey.h, DispatchKeySet.h).

A key set is a plain int: bit k set means key k is present. The highest set bit is the key that
runs first, so dispatching is `keyset.bit_length() - 1`. Alias keys (CompositeImplicitAutograd,
CompositeExplicitAutograd) never appear in a key set: they are registration targets that resolve
onto real keys.
"""
import enum


class DispatchKey(enum.IntEnum):
    # runtime keys, lowest priority first (bit position = value)
    CPU = 0
    Meta = 1
    BackendSelect = 4
    Conjugate = 5        # the lazy conjugate bit (x.conj()): a fallback materializes before other kernels
    Negative = 6         # the lazy negative bit (x.conj().imag, _neg_view)
    ADInplaceOrView = 7
    Autograd = 8
    AutocastCPU = 9
    Python = 10
    # alias keys (registration only)
    CompositeExplicitAutograd = 32
    CompositeImplicitAutograd = 33
    CompositeExplicitAutogradNonFunctional = 34


K = DispatchKey
CPU_BIT = 1 << K.CPU
META_BIT = 1 << K.Meta
BACKEND_SELECT_BIT = 1 << K.BackendSelect
INPLACE_OR_VIEW_BIT = 1 << K.ADInplaceOrView
CONJ_BIT = 1 << K.Conjugate
NEG_BIT = 1 << K.Negative
MATH_BITS = CONJ_BIT | NEG_BIT
AUTOGRAD_BIT = 1 << K.Autograd
PYTHON_BIT = 1 << K.Python

BACKEND_KEYS = (K.CPU, K.Meta)
BACKEND_BITS = CPU_BIT | META_BIT
RUNTIME_KEYS = (K.Python, K.AutocastCPU, K.Autograd, K.ADInplaceOrView, K.Negative, K.Conjugate, K.BackendSelect,
                K.Meta, K.CPU)
ALIAS_KEYS = (K.CompositeExplicitAutograd, K.CompositeImplicitAutograd, K.CompositeExplicitAutogradNonFunctional)

# every key strictly below a key: used to redispatch "below myself"
def below(key):
    return (1 << int(key)) - 1


def backend_bit_for(device_type):
    if device_type == "cpu":
        return CPU_BIT
    if device_type == "meta":
        return META_BIT
    raise RuntimeError(f"no backend for device type {device_type!r}")


class DispatchKeySet:
    """A readable wrapper over the int bitmask (the hot path uses the int directly)."""

    __slots__ = ("repr",)

    def __init__(self, keys=()):
        if isinstance(keys, int) and not isinstance(keys, DispatchKey):
            self.repr = keys
        else:
            r = 0
            for k in ([keys] if isinstance(keys, DispatchKey) else keys):
                r |= 1 << int(k)
            self.repr = r

    def has(self, key):
        return bool(self.repr >> int(key) & 1)

    def add(self, key):
        return DispatchKeySet(self.repr | 1 << int(key))

    def remove(self, key):
        return DispatchKeySet(self.repr & ~(1 << int(key)))

    def highest_priority_key(self):
        if not self.repr:
            raise RuntimeError("empty DispatchKeySet has no highest priority key")
        return DispatchKey(self.repr.bit_length() - 1)

    def __or__(self, other):
        return DispatchKeySet(self.repr | DispatchKeySet._bits(other))

    def __and__(self, other):
        return DispatchKeySet(self.repr & DispatchKeySet._bits(other))

    def __sub__(self, other):
        return DispatchKeySet(self.repr & ~DispatchKeySet._bits(other))

    @staticmethod
    def _bits(other):
        return other.repr if isinstance(other, DispatchKeySet) else int(other)

    def __iter__(self):
        r = self.repr
        while r:
            k = r.bit_length() - 1
            yield DispatchKey(k)
            r &= ~(1 << k)

    def __eq__(self, other):
        return isinstance(other, DispatchKeySet) and other.repr == self.repr

    def __hash__(self):
        return hash(self.repr)

    def __repr__(self):
        return "DispatchKeySet(" + ", ".join(k.name for k in self) + ")"
