"""torch._dynamo.convert_frame: capture one frame into a cache entry.

`capture(state, L, G, C)` runs InstructionTranslator over the frame's bytecode; a RestartAnalysis (something
unsupported) records a graph break at that instruction and starts again. At RETURN_VALUE the entry returns
the rebuilt value; at a break it runs the graph so far, replays side effects, runs the breaking instruction in
Python (a call goes through ember.compile, a branch on a tensor picks one of two resume functions) and calls
the resume function, which is compiled in turn with its own cache.
"""
import dis
import sys
import types

from ember.nn import Module

from . import utils
from .exc import RestartAnalysis, Unsupported
from .guards import ClosureSource, LocalSource
from .opcodes import RESUME_VERSIONS, split_call, split_call_ex
from .output_graph import OutputGraph
from ember._grad_mode import _set_enabled

from .resume_execution import (exception_leaves_frame, frame_local_names, in_exception_range, resume_code,
                               resume_origin)
from .symbolic_convert import InstructionTranslator
from .trace_rules import _disallowed
from .variables import WithExitVariable
from .variables.builder import LazyLocal, RealCellVariable

MAX_RESTARTS = 64
# filled by eval_frame (which calls capture): what the code generated at a break calls at run time
RUNTIME = {}
_JUMPS_TRUE = {"POP_JUMP_FORWARD_IF_TRUE", "POP_JUMP_BACKWARD_IF_TRUE", "POP_JUMP_IF_TRUE"}
_JUMPS_FALSE = {"POP_JUMP_FORWARD_IF_FALSE", "POP_JUMP_BACKWARD_IF_FALSE", "POP_JUMP_IF_FALSE"}


class SkipFrame(Exception):
    """The frame cannot be captured at all; it runs eagerly (reason in args[0])."""


def frame_arg_names(code):
    n = code.co_argcount + code.co_kwonlyargcount
    n += bool(code.co_flags & 0x04) + bool(code.co_flags & 0x08)
    return code.co_varnames[:n]


def capture(state, L, G, C):
    code = state.code
    breaks = {}
    for _ in range(MAX_RESTARTS):
        output = OutputGraph(code, G, C, state.options)
        output.dynamic_dims = state.dynamic_dims
        output.dynamic_ints = state.dynamic_ints
        tx = InstructionTranslator(output, code, G, {}, {}, breaks)
        try:
            names = frame_arg_names(code)
            n_plain = code.co_argcount + code.co_kwonlyargcount
            star = n_plain if code.co_flags & 0x04 else None
            dstar = n_plain + (star is not None) if code.co_flags & 0x08 else None
            for i, name in enumerate(names):
                src = LocalSource(i, name)
                # the binder always gives *args as a tuple and **kwargs as a dict: no TYPE_MATCH needed
                src.known_type = tuple if i == star else dict if i == dstar else None
                tx.locals[name] = LazyLocal(L[i], src)
            for i, name in enumerate(code.co_freevars):
                tx.cells[name] = RealCellVariable(C[i], ClosureSource(i))
        except Unsupported as e:
            raise SkipFrame(f"an argument cannot be tracked: {e.reason}") from None
        try:
            result = tx.run()
        except RestartAnalysis as r:
            offset, err = r.args
            if offset in breaks:
                raise SkipFrame(f"graph break at offset {offset} could not be placed: {err}") from None
            breaks[offset] = err
            utils.counters["graph_break"][err.reason] += 1
            utils.log("graph_breaks", f"Graph break in {code.co_name}: {err.reason}\n  at {err.location}")
            state.break_log.append((err.reason, err.location))
            continue
        try:
            return _build_entry(state, tx, output, result)
        except Unsupported as e:
            raise SkipFrame(str(e)) from None
    raise SkipFrame("too many graph breaks")


def _build_entry(state, tx, output, result):
    if result[0] == "return":
        ret = result[1]

        def tail(cg):
            lines = [f"___ret = {cg.expr(ret)}"]
            lines += cg.side_effect_lines()
            lines.append("return ___ret")
            return lines
        entry = output.compile_and_codegen(tail)
        entry.breaks = []
        return entry
    _, inst, reason = result
    if sys.version_info[:2] not in RESUME_VERSIONS:
        raise Unsupported(f"graph break ({reason.reason if hasattr(reason, 'reason') else reason}): resume "
                          f"functions need CPython 3.11+, so the frame runs eagerly on "
                          f"{sys.version_info[0]}.{sys.version_info[1]}")
    # Inside a user `try`/`except`/`finally` of this frame the breaking instruction must run in the frame's
    # bytecode (its handler may catch what it raises): the resume function starts at it and runs uncompiled.
    # Inside `with` blocks (grad mode) the tail re-enters each block before running the instruction and hands
    # the blocks' `__exit__`s to the resume function on its stack, as CPython's stack holds them.
    user_handler = in_exception_range(state.code, inst.offset) and \
        not exception_leaves_frame(state.code, inst.offset)
    code, shift = resume_origin(state.code)      # offsets below are in `code`, the original bytecode
    next_offset = tx.instructions[tx.ip].offset - shift if tx.ip < len(tx.instructions) else None
    stack = list(tx.stack)
    call_at_break, compiled_resume = RUNTIME["call_at_break"], RUNTIME["compiled_resume"]
    from .variables import NullVariable
    local_names = frame_local_names(code)
    from .variables import CellVariable

    def local_vt(n):
        """The tracker of local `n` at the break (a cell variable's contents), or None if unbound."""
        cell = tx.cells.get(n)
        if n in code.co_cellvars and isinstance(cell, CellVariable) and not isinstance(cell, RealCellVariable):
            return cell.contents
        return tx.locals.get(n)
    unbound = tuple(n for n in local_names if local_vt(n) is None)
    consts = {}

    def resume_fn(offset, stack_after, compiled):
        null_mask = tuple(isinstance(v, NullVariable) for v in stack_after)
        rc = resume_code(code, offset, null_mask, unbound)
        fn = types.FunctionType(rc, output.f_globals, rc.co_name, None, output.closure or None)
        return compiled_resume(fn, state) if compiled else fn

    def values(cg, stack_after):
        exprs = [cg.expr(local_vt(n)) if local_vt(n) is not None else "None" for n in local_names]
        exprs += [cg.expr(v) for v in stack_after if not isinstance(v, NullVariable)]
        return "(" + "".join(e + ", " for e in exprs) + ")"

    def enter_blocks(cg):
        # the graph left the grad mode of the innermost block: go back to the mode before the outermost one;
        # evaluating the stack values (values()) then enters each block again, outermost first
        if not tx.block_stack:
            return []
        return [f"{cg.const(_set_enabled)}({bool(tx.block_stack[0].prev)})"]

    def guarded(cg, stack_after, lines):
        """`lines` (running the breaking instruction) under a handler that exits the re-entered blocks."""
        kept = [v for v in stack_after if not isinstance(v, NullVariable)]
        exits = [len(local_names) + i for i, v in enumerate(kept) if isinstance(v, WithExitVariable)]
        if not exits:
            return lines
        return ["try:"] + ["    " + ln for ln in lines] + [
            "except BaseException as ___e:",
            f"    {cg.const(_exit_blocks)}(___s, {tuple(exits)!r}, ___e)",
            "    raise"]

    op = inst.opname
    if user_handler:
        op = None                      # the generic path below: resume at the instruction itself
    if op in ("CALL", "CALL_KW", "CALL_FUNCTION_EX"):
        if op in ("CALL", "CALL_KW"):
            kw_items = 1 if op == "CALL_KW" else 0          # 3.13: the keyword names are on the stack
            n = inst.arg + 2 + kw_items
            items = stack[len(stack) - n:]
            rest = stack[:len(stack) - n]
            kw = items[-1].as_python_constant() if kw_items else (tx.kw_names or ())
            fn, args, kwargs = split_call(items[:len(items) - kw_items], kw)
            star = False
        else:
            n = 4 if inst.arg & 1 else 3
            items = stack[len(stack) - n:]
            rest = stack[:len(stack) - n]
            fn, _ = split_call_ex(items[:2])
            args = items[2]
            kwargs = items[3] if n == 4 else None
            star = True
        placeholder = _ResultSlot()
        resume = resume_fn(next_offset, rest + [placeholder], True)

        def tail(cg):
            lines = enter_blocks(cg) + [f"___s = {values(cg, rest)}", f"___f = {cg.expr(fn)}"]
            if star:
                lines.append(f"___a = tuple({cg.expr(args)})")
                lines.append(f"___kw = dict({cg.expr(kwargs)})" if kwargs is not None else "___kw = {}")
            else:
                lines.append("___a = (" + "".join(cg.expr(a) + ", " for a in args) + ")")
                lines.append("___kw = {" + ", ".join(f"{k!r}: {cg.expr(v)}" for k, v in kwargs.items()) + "}")
            lines += cg.side_effect_lines()
            lines += guarded(cg, rest, [f"___r = {cg.const(call_at_break)}(___f, ___a, ___kw, "
                                        f"{cg.const(state.options)})"])
            lines.append(f"return {cg.const(resume)}(*___s, ___r)")
            return lines
    elif op in _JUMPS_TRUE or op in _JUMPS_FALSE or op in ("JUMP_IF_TRUE_OR_POP", "JUMP_IF_FALSE_OR_POP"):
        value = stack[-1]
        rest = stack[:-1]
        jump_when = op in _JUMPS_TRUE or op == "JUMP_IF_TRUE_OR_POP"
        keep_on_jump = op.startswith("JUMP_IF")
        jump_resume = resume_fn(inst.argval - shift, rest + ([value] if keep_on_jump else []), True)
        fall_resume = resume_fn(next_offset, rest, True)

        def tail(cg):
            lines = enter_blocks(cg) + [f"___v = {cg.expr(value)}", f"___s = {values(cg, rest)}"]
            lines += cg.side_effect_lines()
            jump_args = "*___s, ___v" if keep_on_jump else "*___s"
            lines += guarded(cg, rest, [f"___t = {'' if jump_when else 'not '}___v"])
            lines.append("if ___t:")
            lines.append(f"    return {cg.const(jump_resume)}({jump_args})")
            lines.append(f"return {cg.const(fall_resume)}(*___s)")
            return lines
    else:
        resume = resume_fn(inst.offset - shift, stack, False)

        def tail(cg):
            lines = enter_blocks(cg) + [f"___s = {values(cg, stack)}"]
            lines += cg.side_effect_lines()
            lines.append(f"return {cg.const(resume)}(*___s)")
            return lines
    entry = output.compile_and_codegen(tail)
    entry.breaks = [(reason.reason, reason.location)]
    del consts
    return entry


def _exit_blocks(values, positions, exc):
    """The breaking instruction raised inside re-entered `with` blocks: exit them, innermost first."""
    for i in reversed(positions):
        values[i](type(exc), exc, exc.__traceback__)


class _ResultSlot:
    """Stands for the value a call at a break returns (a non-NULL stack slot)."""


_ = (dis, Module, _disallowed)
