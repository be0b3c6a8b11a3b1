"""torch._dynamo.resume_execution: continuation functions after a graph break (CPython 3.11 to 3.13).

A resume function is the frame's original bytecode with a prologue in front:

    COPY_FREE_VARS n          (if the code has free variables)
    DELETE_FAST x ...         (locals that were unbound at the break)
    MAKE_CELL c ...           (cell variables, passed by value)
    RESUME 0
    PUSH_NULL / LOAD_FAST s_i (rebuild the value stack)
    EXTENDED_ARG ... JUMP_FORWARD <offset>

Its parameters are every local of the original code followed by the stack values (`___stack0`...); on 3.11-3.13
every jump is relative, so the original bytes run unchanged after the prologue. The location table gets a
no-location entry for the prologue, the exception table's offsets shift by the prologue's length, and
`LOAD_DEREF`-family arguments (indices past the locals) shift by the number of stack parameters.
"""
import dis
import inspect
import sys
import types

from .exc import Unsupported

_OP = dis.opmap
_DEREF_OPS = {_OP[n] for n in ("LOAD_DEREF", "STORE_DEREF", "DELETE_DEREF", "LOAD_CLOSURE", "MAKE_CELL",
                               "LOAD_CLASSDEREF") if n in _OP}
# 3.13 compiles LOAD_CLOSURE to a LOAD_FAST of the cell's slot: slot-indexed ops that may name a free variable
_FAST_OPS = {_OP[n] for n in ("LOAD_FAST", "LOAD_FAST_CHECK", "LOAD_FAST_AND_CLEAR", "STORE_FAST", "DELETE_FAST")
             if n in _OP}
_FAST_PAIR_OPS = {_OP[n] for n in ("LOAD_FAST_LOAD_FAST", "STORE_FAST_LOAD_FAST", "STORE_FAST_STORE_FAST")
                  if n in _OP}
_CACHE = {}
_ORIGIN = {}      # resume code -> (the original code, the prologue's length in bytes)


def _varint(n):
    out = [n & 63]
    n >>= 6
    while n:
        out[-1] |= 64
        out.append(n & 63)
        n >>= 6
    return out


def _parse_exception_table(tab):
    entries, i = [], 0

    def read():
        nonlocal i
        b = tab[i]
        i += 1
        val = b & 63
        while b & 64:
            b = tab[i]
            i += 1
            val = (val << 6) | (b & 63)
        return val

    while i < len(tab):
        start = read()
        length = read()
        target = read()
        dl = read()
        entries.append((start, length, target, dl))
    return entries


def in_exception_range(code, offset):
    """Whether the instruction at byte `offset` is covered by a handler (inside `try` or `with`)."""
    for start, length, _, _ in _parse_exception_table(code.co_exceptiontable):
        if 2 * start <= offset < 2 * (start + length):
            return True
    return False


def _covering_entry(code, offset):
    for start, length, target, depth in _parse_exception_table(code.co_exceptiontable):
        if 2 * start <= offset < 2 * (start + length):
            return target * 2, depth
    return None


def exception_leaves_frame(code, offset):
    """Whether an exception raised by the instruction at `offset` leaves the frame having run only cleanup:
    the `__exit__` of enclosing `with` blocks (handler: PUSH_EXC_INFO, WITH_EXCEPT_START) and the cleanup of
    inlined comprehensions (3.12+: a handler that restores a local and re-raises). False when a user
    `try`/`except`/`finally` handler of this frame would run."""
    seen = set()
    while True:
        entry = _covering_entry(code, offset)
        if entry is None:
            return True
        target = entry[0]
        if target in seen:
            return False
        seen.add(target)
        insts = {i.offset: i for i in dis.get_instructions(code)}
        first = insts.get(target)
        if first is None:
            return False
        if first.opname == "PUSH_EXC_INFO":
            nxt = next((i for i in dis.get_instructions(code) if i.offset > target), None)
            if nxt is None or nxt.opname != "WITH_EXCEPT_START":
                return False               # a user handler (except / finally)
        elif first.opname not in ("SWAP", "COPY", "POP_TOP", "POP_EXCEPT"):
            return False
        offset = target                    # where that cleanup re-raises: follow its own handler


def _encode_varint_be(n):
    # exception-table varints are big-endian 6-bit groups, continuation bit 64
    groups = [n & 63]
    n >>= 6
    while n:
        groups.append(n & 63)
        n >>= 6
    groups.reverse()
    return [g | 64 for g in groups[:-1]] + [groups[-1]]


def _shift_exception_table(tab, shift_units):
    out = []
    for start, length, target, dl in _parse_exception_table(tab):
        first = _encode_varint_be(start + shift_units)
        first[0] |= 128
        out += first + _encode_varint_be(length) + _encode_varint_be(target + shift_units) + _encode_varint_be(dl)
    return bytes(out)


def _emit(op, arg=0):
    out = []
    if arg > 255:
        ext = []
        a = arg >> 8
        while a:
            ext.append(a & 255)
            a >>= 8
        for b in reversed(ext):
            out += [_OP["EXTENDED_ARG"], b]
    return out + [_OP[op] if isinstance(op, str) else op, arg & 255]


def frame_local_names(code):
    """The values a resume function of `code` takes before the stack: its locals, then its cell variables that
    are not arguments (their slots follow the locals' in CPython's frame layout)."""
    return code.co_varnames + tuple(n for n in code.co_cellvars if n not in code.co_varnames)


def resume_code(code, offset, null_mask, unbound):
    """The code object resuming `code` at `offset` with a stack described by `null_mask` (True: NULL) and
    the locals in `unbound` deleted. Cached, so each continuation has one code object (and one cache)."""
    key = (code, offset, null_mask, unbound)
    rc = _CACHE.get(key)
    if rc is not None:
        return rc
    if sys.version_info[:2] not in ((3, 11), (3, 12), (3, 13)):
        raise Unsupported("resume functions are implemented for CPython 3.11 to 3.13")
    if code.co_flags & (inspect.CO_GENERATOR | inspect.CO_COROUTINE | inspect.CO_ASYNC_GENERATOR):
        raise Unsupported("graph break in a generator")
    # parameters: the locals, then the cell variables that are not arguments (passed by value and made cells
    # again by MAKE_CELL, as the original prologue does), then the stack values. The cells keep their slots,
    # so only free variables (after them) move, by the number of stack parameters.
    names = frame_local_names(code)
    nlocals = len(names)
    nstack = sum(1 for n in null_mask if not n)
    stack_names = tuple(f"___stack{i}" for i in range(nstack))
    pro = []
    if code.co_freevars:
        pro += _emit("COPY_FREE_VARS", len(code.co_freevars))
    for name in unbound:
        pro += _emit("DELETE_FAST", names.index(name))
    for name in code.co_cellvars:
        pro += _emit("MAKE_CELL", names.index(name))
    pro += _emit("RESUME", 0)
    si = 0
    for is_null in null_mask:
        if is_null:
            pro += _emit("PUSH_NULL")
        else:
            pro += _emit("LOAD_FAST", nlocals + si)
            si += 1
    # a fixed-size jump: EXTENDED_ARG x2 + JUMP_FORWARD
    jump_at = len(pro) + 6
    delta_units = (len(pro) + 6 + offset - jump_at) // 2
    pro += [_OP["EXTENDED_ARG"], (delta_units >> 16) & 255, _OP["EXTENDED_ARG"], (delta_units >> 8) & 255,
            _OP["JUMP_FORWARD"], delta_units & 255]
    # original bytes, free-variable opargs shifted past the stack parameters
    body = bytearray(code.co_code)
    if nstack and code.co_freevars:
        ext = 0
        for i in range(0, len(body), 2):
            op, arg = body[i], body[i + 1]
            full = (ext << 8) | arg
            if (op in _DEREF_OPS or op in _FAST_OPS) and full >= nlocals:
                if full + nstack > 255 or ext:
                    raise Unsupported("too many locals for a resume function")
                body[i + 1] = arg + nstack
            elif op in _FAST_PAIR_OPS:          # 3.13: two 4-bit slot indices in one argument
                hi, lo = arg >> 4, arg & 15
                hi, lo = (hi + nstack if hi >= nlocals else hi), (lo + nstack if lo >= nlocals else lo)
                if hi > 15 or lo > 15:
                    raise Unsupported("too many locals for a resume function")
                body[i + 1] = (hi << 4) | lo
            ext = arg if op == _OP["EXTENDED_ARG"] else 0
    co_code = bytes(pro) + bytes(body)
    units = len(pro) // 2
    lt = []
    n = units
    while n > 0:
        k = min(n, 8)
        lt.append(0x80 | (15 << 3) | (k - 1))
        n -= k
    flags = code.co_flags & ~(inspect.CO_VARARGS | inspect.CO_VARKEYWORDS)
    rc = code.replace(
        co_code=co_code, co_argcount=nlocals + nstack, co_posonlyargcount=0, co_kwonlyargcount=0,
        co_nlocals=nlocals + nstack, co_varnames=names + stack_names, co_flags=flags,
        co_stacksize=code.co_stacksize + nstack + 2,
        co_name=f"__resume_at_{offset}_{code.co_name}",
        co_qualname=f"__resume_at_{offset}_{code.co_qualname}",
        co_linetable=bytes(lt) + code.co_linetable,
        co_exceptiontable=_shift_exception_table(code.co_exceptiontable, units))
    _CACHE[key] = rc
    _ORIGIN[rc] = (code, len(pro))
    return rc


def resume_origin(code):
    """(original code, byte shift) of a resume function's code; (code, 0) for any other code. A break in a
    resume function resumes in the original code, so a loop that breaks each iteration reuses one resume
    function (one cache) instead of nesting a new one per iteration."""
    return _ORIGIN.get(code, (code, 0))


class ResumeIterator:
    """An iterator in progress handed to a resume function (a list iterator cannot be inspected)."""

    def __init__(self, items, index=0):
        self.items, self.index = items, index

    def __iter__(self):
        return self

    def __next__(self):
        if self.index >= len(self.items):
            raise StopIteration
        self.index += 1
        return self.items[self.index - 1]


def clear():
    _CACHE.clear()
    _ORIGIN.clear()


_ = types
