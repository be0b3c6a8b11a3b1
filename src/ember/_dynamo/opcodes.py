"""torch._dynamo.symbolic_convert's opcode handlers: one method per CPython opcode, registered per version.

Each handler is registered with `@opcode(*names, since=, until=)` (CPython versions, `until` exclusive), as
Lightning Thunder does; `opcode_table(version)` picks, per opcode name, the one handler valid on that version.
An opcode missing from the table is a graph break (`Unsupported`). The handlers run on the translator
(`self`): its value stack, locals, cells, and the semantics in symbolic_convert/calls (call_function, getattr,
binary, subscript, truth...).
"""
import builtins
import operator
import sys

from ember._grad_mode import _set_enabled

from .exc import Unsupported
from .variables import (BuiltinVariable, CellVariable, ConstantVariable, DictVariable, GradModeVariable, IteratorVariable,
                        ListVariable, NestedFunctionVariable, NNModuleVariable, NullVariable, TensorVariable,
                        TupleVariable, UserObjectVariable, WithExitVariable)
from .variables.builder import LazyLocal, RealCellVariable, _wrap_const_result, global_source

_BINARY = {"+": operator.add, "-": operator.sub, "*": operator.mul, "/": operator.truediv,
           "//": operator.floordiv, "%": operator.mod, "**": operator.pow, "@": operator.matmul,
           "&": operator.and_, "|": operator.or_, "^": operator.xor, "<<": operator.lshift, ">>": operator.rshift,
           "+=": operator.iadd, "-=": operator.isub, "*=": operator.imul, "/=": operator.itruediv,
           "//=": operator.ifloordiv, "%=": operator.imod, "**=": operator.ipow, "@=": operator.imatmul,
           "&=": operator.iand, "|=": operator.ior, "^=": operator.ixor, "<<=": operator.ilshift,
           ">>=": operator.irshift}
_COMPARE = {"<": operator.lt, "<=": operator.le, "==": operator.eq, "!=": operator.ne, ">": operator.gt,
            ">=": operator.ge}

_BINARY_310 = {"BINARY_ADD": operator.add, "BINARY_SUBTRACT": operator.sub, "BINARY_MULTIPLY": operator.mul,
               "BINARY_TRUE_DIVIDE": operator.truediv, "BINARY_FLOOR_DIVIDE": operator.floordiv,
               "BINARY_MODULO": operator.mod, "BINARY_POWER": operator.pow,
               "BINARY_MATRIX_MULTIPLY": operator.matmul, "BINARY_AND": operator.and_, "BINARY_OR": operator.or_,
               "BINARY_XOR": operator.xor, "BINARY_LSHIFT": operator.lshift, "BINARY_RSHIFT": operator.rshift,
               "INPLACE_ADD": operator.iadd, "INPLACE_SUBTRACT": operator.isub, "INPLACE_MULTIPLY": operator.imul,
               "INPLACE_TRUE_DIVIDE": operator.itruediv, "INPLACE_FLOOR_DIVIDE": operator.ifloordiv,
               "INPLACE_MODULO": operator.imod, "INPLACE_POWER": operator.ipow,
               "INPLACE_MATRIX_MULTIPLY": operator.imatmul, "INPLACE_AND": operator.iand,
               "INPLACE_OR": operator.ior, "INPLACE_XOR": operator.ixor, "INPLACE_LSHIFT": operator.ilshift,
               "INPLACE_RSHIFT": operator.irshift}

_VARIANTS = {}      # opcode name -> [(since, until, handler)]


def opcode(*names, since=(3, 10), until=None):
    """Register the decorated handler for the opcodes `names` on CPython `since` <= version < `until`."""
    def register(fn):
        for n in names:
            _VARIANTS.setdefault(n, []).append((since, until, fn))
        return fn
    return register


class OpcodeHandlers:
    """Mixed into the instruction translator."""

    @opcode("NOP", "RESUME", "CACHE", "EXTENDED_ARG", "COPY_FREE_VARS", "POP_BLOCK", "GEN_START")
    @opcode("PRECALL", until=(3, 12))
    def NOP(self, inst):
        pass


    @opcode("PUSH_NULL")
    def PUSH_NULL(self, inst):
        self.push(NullVariable())

    @opcode("POP_TOP")
    def POP_TOP(self, inst):
        self.pop()

    @opcode("COPY")
    def COPY(self, inst):
        self.push(self.stack[-inst.arg])

    @opcode("SWAP")
    def SWAP(self, inst):
        self.stack[-1], self.stack[-inst.arg] = self.stack[-inst.arg], self.stack[-1]

    @opcode("LOAD_CONST")
    def LOAD_CONST(self, inst):
        self.push(ConstantVariable(inst.argval))

    @opcode("LOAD_FAST")
    @opcode("LOAD_FAST_CHECK", since=(3, 12))
    def LOAD_FAST(self, inst):
        self.load_fast(inst.argval)

    def load_fast(self, name):
        if name in self.cells and (name in self.code.co_cellvars or name in self.code.co_freevars):
            self.push(self.cells[name])        # 3.13 compiles LOAD_CLOSURE to a LOAD_FAST of the cell
            return
        if name not in self.locals:
            raise Unsupported(f"local {name!r} read before assignment")
        self.push(self.local_value(name))

    def local_value(self, name):
        v = self.locals[name]
        if type(v) is LazyLocal:
            v = self.locals[name] = self.wrap(v.value, v.source)
        return v


    @opcode("STORE_FAST")
    def STORE_FAST(self, inst):
        self.store_fast(inst.argval)

    def store_fast(self, name):
        v = self.pop()
        if isinstance(v, NullVariable):        # 3.12: restoring a local a comprehension shadowed
            self.locals.pop(name, None)
        else:
            self.locals[name] = v

    @opcode("DELETE_FAST")
    def DELETE_FAST(self, inst):
        self.locals.pop(inst.argval, None)

    def load_global(self, name):
        if self.f_globals is self.output.f_globals and name in self.output.global_overrides:
            return self.output.global_overrides[name]
        if name in self.f_globals:
            return self.wrap(self.f_globals[name], global_source(self, name))
        if hasattr(builtins, name):
            return self.wrap_builtin(getattr(builtins, name))
        raise Unsupported(f"name {name!r} is not defined")

    @opcode("LOAD_GLOBAL", since=(3, 11), until=(3, 13))
    def LOAD_GLOBAL(self, inst):
        if inst.arg & 1:                       # NULL first, then the callable
            self.push(NullVariable())
        self.push(self.load_global(inst.argval))

    @opcode("LOAD_GLOBAL", since=(3, 13))
    def LOAD_GLOBAL_313(self, inst):
        self.push(self.load_global(inst.argval))
        if inst.arg & 1:                       # 3.13: the callable, then NULL
            self.push(NullVariable())

    @opcode("STORE_GLOBAL")
    def STORE_GLOBAL(self, inst):
        v = self.pop()
        self.output.side_effects.append(("setglobal", inst.argval, v))
        self.output.global_overrides[inst.argval] = v

    @opcode("LOAD_ATTR", until=(3, 12))
    def LOAD_ATTR(self, inst):
        self.push(self.getattr(self.pop(), inst.argval))

    @opcode("LOAD_ATTR", since=(3, 12), until=(3, 13))
    def LOAD_ATTR_312(self, inst):
        # 3.12 folds LOAD_METHOD into LOAD_ATTR (low bit): NULL, then the bound method
        attr = self.getattr(self.pop(), inst.argval)
        if inst.arg & 1:
            self.push(NullVariable())
        self.push(attr)

    @opcode("LOAD_SUPER_ATTR", since=(3, 12))
    def LOAD_SUPER_ATTR(self, inst):
        # 3.12+: super().name with [super, __class__, self] on the stack (low bit: a method load)
        obj, cls, _ = self.pop(), self.pop(), self.pop()
        attr = self.getattr(self.call_function(BuiltinVariable(super), [cls, obj], {}), inst.argval)
        if inst.arg & 1 and not _PY313:
            self.push(NullVariable())
        self.push(attr)
        if inst.arg & 1 and _PY313:
            self.push(NullVariable())

    @opcode("LOAD_ATTR", since=(3, 13))
    def LOAD_ATTR_313(self, inst):
        # 3.13: the bound method, then NULL (CPython may push method + self; a bound method + NULL is the same call)
        self.push(self.getattr(self.pop(), inst.argval))
        if inst.arg & 1:
            self.push(NullVariable())

    @opcode("LOAD_METHOD", until=(3, 12))
    def LOAD_METHOD(self, inst):
        obj = self.pop()
        attr = self.getattr(obj, inst.argval)
        self.push(NullVariable())
        self.push(attr)

    @opcode("STORE_ATTR")
    def STORE_ATTR(self, inst):
        obj = self.pop()
        val = self.pop()
        self.setattr(obj, inst.argval, val)

    @opcode("MAKE_CELL")
    def MAKE_CELL(self, inst):
        if inst.argval in self.locals:
            self.local_value(inst.argval)
        self.cells[inst.argval] = CellVariable(self.locals.pop(inst.argval, None))

    @opcode("LOAD_CLOSURE")
    def LOAD_CLOSURE(self, inst):
        self.push(self.cells[inst.argval])

    @opcode("LOAD_DEREF")
    def LOAD_DEREF(self, inst):
        cell = self.cells[inst.argval]
        if isinstance(cell, RealCellVariable):
            self.push(cell.load(self))
        else:
            if cell.contents is None:
                raise Unsupported(f"free variable {inst.argval!r} read before assignment")
            self.push(cell.contents)

    @opcode("STORE_DEREF")
    def STORE_DEREF(self, inst):
        cell = self.cells[inst.argval]
        if isinstance(cell, RealCellVariable):
            raise Unsupported("assigning a nonlocal that exists outside the compiled function")
        cell.contents = self.pop()

    @opcode("MAKE_FUNCTION", since=(3, 11), until=(3, 13))
    def MAKE_FUNCTION(self, inst):
        code = self.pop().value
        flags = inst.arg
        closure = self.pop().items if flags & 0x08 else None
        if flags & 0x04:
            self.pop()
        kwdefaults = self.pop() if flags & 0x02 else None
        defaults = self.pop() if flags & 0x01 else None
        self.push(NestedFunctionVariable(code, self.f_globals, code.co_qualname, defaults, kwdefaults, closure))

    @opcode("MAKE_FUNCTION", since=(3, 13))
    def MAKE_FUNCTION_313(self, inst):
        code = self.pop().value                # 3.13: defaults, closure... come by SET_FUNCTION_ATTRIBUTE
        self.push(NestedFunctionVariable(code, self.f_globals, code.co_qualname))

    @opcode("SET_FUNCTION_ATTRIBUTE", since=(3, 13))
    def SET_FUNCTION_ATTRIBUTE(self, inst):
        fn = self.pop()
        value = self.pop()
        if inst.arg == 0x08:
            fn.closure = value.items
        elif inst.arg == 0x02:
            fn.kwdefaults = value
        elif inst.arg == 0x01:
            fn.defaults = value
        self.push(fn)

    @opcode("KW_NAMES", until=(3, 13))
    def KW_NAMES(self, inst):
        self.kw_names = self.code.co_consts[inst.arg]

    @opcode("CALL")
    def CALL(self, inst):
        kw = self.kw_names or ()
        self.kw_names = None
        fn, args, kwargs = split_call(self.popn(inst.arg + 2), kw)
        self.push(self.call_function(fn, args, kwargs))

    @opcode("CALL_KW", since=(3, 13))
    def CALL_KW(self, inst):
        kw = self.pop().as_python_constant()
        fn, args, kwargs = split_call(self.popn(inst.arg + 2), kw)
        self.push(self.call_function(fn, args, kwargs))

    @opcode("CALL_FUNCTION_EX", since=(3, 11))
    def CALL_FUNCTION_EX(self, inst):
        kwargs = self.pop() if inst.arg & 1 else DictVariable({})
        args = self.pop()
        fn, _ = split_call_ex(self.popn(2))
        if not isinstance(kwargs, DictVariable):
            raise Unsupported("**kwargs of a non-dict")
        self.push(self.call_function(fn, self.unpack(args), dict(kwargs.items)))

    @opcode("BINARY_OP")
    def BINARY_OP(self, inst):
        b = self.pop()
        a = self.pop()
        fn = _BINARY.get(inst.argrepr)
        if fn is None:
            raise Unsupported(f"binary operator {inst.argrepr}")
        self.push(self.binary(fn, a, b))

    @opcode("COMPARE_OP")
    def COMPARE_OP(self, inst):
        b = self.pop()
        a = self.pop()
        self.push(self.binary(_COMPARE[inst.argval], a, b))

    @opcode("IS_OP")
    def IS_OP(self, inst):
        b = self.pop()
        a = self.pop()
        self.push(ConstantVariable(self.is_op(a, b) != bool(inst.arg)))

    @opcode("CONTAINS_OP")
    def CONTAINS_OP(self, inst):
        container = self.pop()
        item = self.pop()
        if isinstance(container, DictVariable):
            r = item.as_python_constant() in container.items
        elif isinstance(container, NNModuleVariable):
            r = item.as_python_constant() in container.module._modules
        else:
            items = self.unpack(container)
            if not (item.is_python_constant() and all(i.is_python_constant() for i in items)):
                raise Unsupported("`in` over non-constant items")
            r = item.as_python_constant() in [i.as_python_constant() for i in items]
        self.push(ConstantVariable(r != bool(inst.arg)))

    @opcode("UNARY_NOT")
    def UNARY_NOT(self, inst):
        self.push(ConstantVariable(not self.truth(self.pop())))

    def _unary(self, fn):
        v = self.pop()
        if isinstance(v, TensorVariable):
            self.push(self.call_graph("call_function", fn, [v], {}))
        else:
            self.push(_wrap_const_result(fn(v.as_python_constant())))

    @opcode("UNARY_NEGATIVE")
    def UNARY_NEGATIVE(self, inst):
        self._unary(operator.neg)

    @opcode("UNARY_INVERT")
    def UNARY_INVERT(self, inst):
        self._unary(operator.invert)

    @opcode("UNARY_POSITIVE")
    def UNARY_POSITIVE(self, inst):
        self._unary(operator.pos)

    @opcode("BINARY_SUBSCR")
    def BINARY_SUBSCR(self, inst):
        idx = self.pop()
        obj = self.pop()
        self.push(self.subscript(obj, idx))

    @opcode("STORE_SUBSCR")
    def STORE_SUBSCR(self, inst):
        idx = self.pop()
        obj = self.pop()
        val = self.pop()
        if isinstance(obj, TensorVariable):
            self.call_graph("call_function", operator.setitem, [obj, idx, val], {})
        elif isinstance(obj, ListVariable):
            self.mutate(obj)
            obj.items[idx.as_python_constant()] = val
        elif isinstance(obj, DictVariable):
            self.mutate(obj)
            obj.items[idx.as_python_constant()] = val
        else:
            raise Unsupported(f"item assignment on {type(obj).__name__}")

    @opcode("BUILD_TUPLE")
    def BUILD_TUPLE(self, inst):
        self.push(TupleVariable(self.popn(inst.arg)))

    @opcode("BUILD_LIST")
    def BUILD_LIST(self, inst):
        self.push(ListVariable(self.popn(inst.arg)))

    @opcode("BUILD_MAP")
    def BUILD_MAP(self, inst):
        items = self.popn(2 * inst.arg)
        self.push(DictVariable({items[i].as_python_constant(): items[i + 1] for i in range(0, len(items), 2)}))

    @opcode("BUILD_CONST_KEY_MAP")
    def BUILD_CONST_KEY_MAP(self, inst):
        keys = self.pop().as_python_constant()
        vals = self.popn(inst.arg)
        self.push(DictVariable(dict(zip(keys, vals))))

    @opcode("BUILD_SLICE")
    def BUILD_SLICE(self, inst):
        parts = self.popn(inst.arg)
        if not all(p.is_python_constant() for p in parts):
            raise Unsupported("a slice with tensor bounds")
        self.push(ConstantVariable(slice(*[p.as_python_constant() for p in parts])))

    @opcode("BUILD_STRING")
    def BUILD_STRING(self, inst):
        parts = self.popn(inst.arg)
        self.push(ConstantVariable("".join(p.as_python_constant() for p in parts)))

    @opcode("CONVERT_VALUE", since=(3, 13))
    def CONVERT_VALUE(self, inst):
        v = self.pop()
        if not v.is_python_constant():
            raise Unsupported(f"formatting a {type(v).__name__} into a string")
        conv = (None, str, repr, ascii)[inst.arg]
        self.push(ConstantVariable(conv(_concrete(v.as_python_constant()))))

    @opcode("FORMAT_SIMPLE", since=(3, 13))
    def FORMAT_SIMPLE(self, inst):
        v = self.pop()
        if not v.is_python_constant():
            raise Unsupported(f"formatting a {type(v).__name__} into a string")
        self.push(ConstantVariable(format(_concrete(v.as_python_constant()), "")))

    @opcode("FORMAT_WITH_SPEC", since=(3, 13))
    def FORMAT_WITH_SPEC(self, inst):
        spec = self.pop().as_python_constant()
        v = self.pop()
        if not v.is_python_constant():
            raise Unsupported(f"formatting a {type(v).__name__} into a string")
        self.push(ConstantVariable(format(_concrete(v.as_python_constant()), spec)))

    @opcode("FORMAT_VALUE", until=(3, 13))
    def FORMAT_VALUE(self, inst):
        spec = self.pop().as_python_constant() if inst.arg & 0x04 else ""
        v = self.pop()
        if not v.is_python_constant():
            raise Unsupported(f"formatting a {type(v).__name__} into a string")
        v = _concrete(v.as_python_constant())
        conv = inst.arg & 0x03
        v = str(v) if conv == 1 else repr(v) if conv == 2 else ascii(v) if conv == 3 else v
        self.push(ConstantVariable(format(v, spec)))

    @opcode("LIST_APPEND")
    def LIST_APPEND(self, inst):
        v = self.pop()
        self.stack[-inst.arg].items.append(v)

    @opcode("LIST_EXTEND")
    def LIST_EXTEND(self, inst):
        v = self.pop()
        self.stack[-inst.arg].items.extend(self.unpack(v))

    @opcode("LIST_TO_TUPLE")
    def LIST_TO_TUPLE(self, inst):
        self.push(TupleVariable(self.pop().items))

    @opcode("DICT_MERGE", "DICT_UPDATE")
    def DICT_MERGE(self, inst):
        v = self.pop()
        if not isinstance(v, DictVariable):
            raise Unsupported("** of a non-dict")
        self.stack[-inst.arg].items.update(v.items)


    @opcode("MAP_ADD")
    def MAP_ADD(self, inst):
        v = self.pop()
        k = self.pop()
        self.stack[-inst.arg].items[k.as_python_constant()] = v

    @opcode("UNPACK_SEQUENCE")
    def UNPACK_SEQUENCE(self, inst):
        items = self.unpack(self.pop())
        if len(items) != inst.arg:
            raise Unsupported(f"unpacking {len(items)} values into {inst.arg}")
        for v in reversed(items):
            self.push(v)

    @opcode("UNPACK_EX")
    def UNPACK_EX(self, inst):
        # `a, *b, c = seq`: the low byte counts the names before the star, the high byte those after
        before, after = inst.arg & 0xFF, inst.arg >> 8
        items = self.unpack(self.pop())
        if len(items) < before + after:
            raise Unsupported(f"unpacking {len(items)} values into at least {before + after}")
        middle = items[before:len(items) - after]
        for v in reversed(items[len(items) - after:]):
            self.push(v)
        self.push(ListVariable(list(middle)))
        for v in reversed(items[:before]):
            self.push(v)

    @opcode("GET_ITER")
    def GET_ITER(self, inst):
        self.push(self.get_iter(self.pop()))

    @opcode("FOR_ITER")
    def FOR_ITER(self, inst):
        it = self.stack[-1]
        if not isinstance(it, IteratorVariable):
            raise Unsupported(f"iterating over {type(it).__name__}")
        v = it.next()
        if v is None:
            self.pop()
            self.jump(inst)
            # 3.12 skips the END_FOR at the target, 3.13 the END_FOR and the POP_TOP after it
            if self.instructions[self.ip].opname == "END_FOR":
                self.ip += 1
                if _PY313 and self.instructions[self.ip].opname == "POP_TOP":
                    self.ip += 1
        else:
            self.push(v)

    @opcode("RETURN_CONST", since=(3, 12))
    def RETURN_CONST(self, inst):
        self.push(ConstantVariable(inst.argval))
        return "return"

    @opcode("LOAD_FAST_AND_CLEAR", since=(3, 12))
    def LOAD_FAST_AND_CLEAR(self, inst):
        if inst.argval in self.locals:
            self.local_value(inst.argval)
        self.push(self.locals.pop(inst.argval, NullVariable()))

    @opcode("END_FOR", since=(3, 12), until=(3, 13))
    def END_FOR(self, inst):
        self.popn(2)

    @opcode("END_FOR", since=(3, 13))
    def END_FOR_313(self, inst):
        self.pop()

    @opcode("LOAD_FAST_LOAD_FAST", since=(3, 13))
    def LOAD_FAST_LOAD_FAST(self, inst):
        for name in inst.argval:
            self.load_fast(name)

    @opcode("STORE_FAST_LOAD_FAST", since=(3, 13))
    def STORE_FAST_LOAD_FAST(self, inst):
        self.store_fast(inst.argval[0])
        self.load_fast(inst.argval[1])

    @opcode("STORE_FAST_STORE_FAST", since=(3, 13))
    def STORE_FAST_STORE_FAST(self, inst):
        for name in inst.argval:
            self.store_fast(name)

    @opcode("TO_BOOL", since=(3, 13))
    def TO_BOOL(self, inst):
        v = self.stack[-1]
        if isinstance(v, TensorVariable) and self.instructions[self.ip].opname in (
                "POP_JUMP_IF_TRUE", "POP_JUMP_IF_FALSE"):
            return                             # the jump breaks the graph and branches on bool(tensor)
        self.pop()
        self.push(ConstantVariable(self.truth(v)))

    @opcode("BINARY_SLICE", since=(3, 12))
    def BINARY_SLICE(self, inst):
        end = self.pop()
        start = self.pop()
        obj = self.pop()
        if not (start.is_python_constant() and end.is_python_constant()):
            raise Unsupported("a slice with tensor bounds")
        self.push(self.subscript(obj, ConstantVariable(slice(start.as_python_constant(), end.as_python_constant()))))

    @opcode("STORE_SLICE", since=(3, 12))
    def STORE_SLICE(self, inst):
        end = self.pop()
        start = self.pop()
        obj = self.pop()
        val = self.pop()
        self.push(val)
        self.push(obj)
        self.push(ConstantVariable(slice(start.as_python_constant(), end.as_python_constant())))
        self.STORE_SUBSCR(inst)

    @opcode("CALL_INTRINSIC_1", since=(3, 12))
    def CALL_INTRINSIC_1(self, inst):
        name = inst.argrepr
        if name == "INTRINSIC_LIST_TO_TUPLE":
            self.push(TupleVariable(self.pop().items))
        elif name == "INTRINSIC_UNARY_POSITIVE":
            self._unary(operator.pos)
        else:
            raise Unsupported(f"CALL_INTRINSIC_1 {name}")

    @opcode("JUMP_FORWARD", "JUMP_BACKWARD", "JUMP_BACKWARD_NO_INTERRUPT")
    @opcode("JUMP_ABSOLUTE", until=(3, 11))
    def JUMP_FORWARD(self, inst):
        self.jump(inst)


    def _pop_jump(self, inst, when):
        v = self.stack[-1]
        t = self.truth(v)
        self.pop()
        if t == when:
            self.jump(inst)

    @opcode("POP_JUMP_FORWARD_IF_TRUE", "POP_JUMP_BACKWARD_IF_TRUE", until=(3, 12))
    @opcode("POP_JUMP_IF_TRUE", since=(3, 12))
    @opcode("POP_JUMP_IF_TRUE", until=(3, 11))
    def POP_JUMP_FORWARD_IF_TRUE(self, inst):
        self._pop_jump(inst, True)


    @opcode("POP_JUMP_FORWARD_IF_FALSE", "POP_JUMP_BACKWARD_IF_FALSE", until=(3, 12))
    @opcode("POP_JUMP_IF_FALSE", since=(3, 12))
    @opcode("POP_JUMP_IF_FALSE", until=(3, 11))
    def POP_JUMP_FORWARD_IF_FALSE(self, inst):
        self._pop_jump(inst, False)


    def _none_jump(self, inst, when_none):
        v = self.pop()
        is_none = isinstance(v, ConstantVariable) and v.value is None
        if is_none == when_none:
            self.jump(inst)

    @opcode("POP_JUMP_FORWARD_IF_NONE", "POP_JUMP_BACKWARD_IF_NONE", until=(3, 12))
    @opcode("POP_JUMP_IF_NONE", since=(3, 12))
    def POP_JUMP_FORWARD_IF_NONE(self, inst):
        self._none_jump(inst, True)


    @opcode("POP_JUMP_FORWARD_IF_NOT_NONE", "POP_JUMP_BACKWARD_IF_NOT_NONE", until=(3, 12))
    @opcode("POP_JUMP_IF_NOT_NONE", since=(3, 12))
    def POP_JUMP_FORWARD_IF_NOT_NONE(self, inst):
        self._none_jump(inst, False)


    @opcode("JUMP_IF_TRUE_OR_POP", until=(3, 12))
    def JUMP_IF_TRUE_OR_POP(self, inst):
        if self.truth(self.stack[-1]):
            self.jump(inst)
        else:
            self.pop()

    @opcode("JUMP_IF_FALSE_OR_POP", until=(3, 12))
    def JUMP_IF_FALSE_OR_POP(self, inst):
        if not self.truth(self.stack[-1]):
            self.jump(inst)
        else:
            self.pop()

    @opcode("LOAD_ASSERTION_ERROR")
    def LOAD_ASSERTION_ERROR(self, inst):
        self.push(UserObjectVariable(AssertionError))

    @opcode("RAISE_VARARGS")
    def RAISE_VARARGS(self, inst):
        raise Unsupported("raise (the exception is raised by Python)")

    @opcode("RETURN_GENERATOR")
    def RETURN_GENERATOR(self, inst):
        if getattr(self, "yielded", None) is None:
            raise Unsupported("generator")
        self.push(ConstantVariable(None))

    @opcode("YIELD_VALUE")
    def YIELD_VALUE(self, inst):
        if getattr(self, "yielded", None) is None:
            raise Unsupported("yield")
        self.yielded.append(self.pop())
        self.push(ConstantVariable(None))

    @opcode("BEFORE_WITH")
    def BEFORE_WITH(self, inst):
        ctx = self.pop()
        if not isinstance(ctx, GradModeVariable):
            raise Unsupported(f"with {type(ctx).__name__}")
        ctx.prev = self.output.grad_enabled
        self.set_grad(ctx.mode)
        self.block_stack.append(ctx)
        self.push(WithExitVariable(ctx))
        self.push(ConstantVariable(None))

    # ------------------------------------------------------------------ CPython 3.10
    # 3.10 has separate opcodes for each binary operator, CALL_FUNCTION/CALL_METHOD/CALL_FUNCTION_KW instead
    # of CALL, ROT_*/DUP_TOP instead of SWAP/COPY, absolute jumps (dis gives every target as an offset, so the
    # jump handlers are shared), SETUP_WITH + POP_BLOCK, and no MAKE_CELL (cells exist when the frame starts:
    # the translator makes them first, see `make_cells_310`).
    @opcode("ROT_TWO", "ROT_THREE", "ROT_FOUR", "ROT_N", until=(3, 11))
    def ROT_N(self, inst):
        n = {"ROT_TWO": 2, "ROT_THREE": 3, "ROT_FOUR": 4}.get(inst.opname, inst.arg)
        self.stack[-n:] = [self.stack[-1]] + self.stack[-n:-1]

    @opcode("DUP_TOP", until=(3, 11))
    def DUP_TOP(self, inst):
        self.push(self.stack[-1])

    @opcode("DUP_TOP_TWO", until=(3, 11))
    def DUP_TOP_TWO(self, inst):
        self.stack.extend(self.stack[-2:])

    @opcode("LOAD_GLOBAL", until=(3, 11))
    def LOAD_GLOBAL_310(self, inst):
        self.push(self.load_global(inst.argval))

    @opcode("MAKE_FUNCTION", until=(3, 11))
    def MAKE_FUNCTION_310(self, inst):
        qualname = self.pop().value                # 3.10: the qualified name is on the stack above the code
        code = self.pop().value
        flags = inst.arg
        closure = self.pop().items if flags & 0x08 else None
        if flags & 0x04:
            self.pop()
        kwdefaults = self.pop() if flags & 0x02 else None
        defaults = self.pop() if flags & 0x01 else None
        self.push(NestedFunctionVariable(code, self.f_globals, qualname, defaults, kwdefaults, closure))

    @opcode("CALL_FUNCTION", until=(3, 11))
    def CALL_FUNCTION(self, inst):
        items = self.popn(inst.arg + 1)
        self.push(self.call_function(items[0], list(items[1:]), {}))

    @opcode("CALL_FUNCTION_KW", until=(3, 11))
    def CALL_FUNCTION_KW(self, inst):
        kw = self.pop().as_python_constant()
        items = self.popn(inst.arg + 1)
        fn, args, kwargs = _kwargs(items[0], items[1:], kw)
        self.push(self.call_function(fn, args, kwargs))

    @opcode("CALL_METHOD", until=(3, 11))
    def CALL_METHOD(self, inst):
        # LOAD_METHOD left [NULL, callable] (as on 3.11): the call's items are laid out as CALL's
        fn, args, kwargs = _split_call_311(self.popn(inst.arg + 2), ())
        self.push(self.call_function(fn, args, kwargs))

    @opcode("CALL_FUNCTION_EX", until=(3, 11))
    def CALL_FUNCTION_EX_310(self, inst):
        kwargs = self.pop() if inst.arg & 1 else DictVariable({})
        args = self.pop()
        fn = self.pop()
        if not isinstance(kwargs, DictVariable):
            raise Unsupported("**kwargs of a non-dict")
        self.push(self.call_function(fn, self.unpack(args), dict(kwargs.items)))

    @opcode(*_BINARY_310, until=(3, 11))
    def BINARY_310(self, inst):
        b = self.pop()
        a = self.pop()
        self.push(self.binary(_BINARY_310[inst.opname], a, b))

    @opcode("SETUP_WITH", until=(3, 11))
    def SETUP_WITH(self, inst):
        self.BEFORE_WITH(inst)

    def make_cells_310(self):
        """3.10: the frame's cell variables exist before its first instruction (3.11's MAKE_CELL, for each)."""
        for name in self.code.co_cellvars:
            if name not in self.cells:
                if name in self.locals:
                    self.local_value(name)
                self.cells[name] = CellVariable(self.locals.pop(name, None))

    def set_grad(self, mode):
        if mode != self.output.grad_enabled:
            self.output.new_node("call_function", _set_enabled, (mode,), {})
            self.output.grad_enabled = mode


def _split_call_311(items, kw):
    # 3.11, 3.12: [NULL, callable, args...] or [callable, self, args...]
    if isinstance(items[0], NullVariable):
        fn, args = items[1], items[2:]
    else:
        fn, args = items[0], items[1:]
    return _kwargs(fn, args, kw)


def _split_call_313(items, kw):
    # 3.13: [callable, NULL, args...] or [callable, self, args...]
    fn = items[0]
    args = items[2:] if isinstance(items[1], NullVariable) else items[1:]
    return _kwargs(fn, args, kw)


def _kwargs(fn, args, kw):
    kwargs = {}
    if kw:
        kwargs = dict(zip(kw, args[len(args) - len(kw):]))
        args = args[:len(args) - len(kw)]
    return fn, list(args), kwargs


def _split_call_ex_311(pair):
    return pair[1], pair[0]                    # [NULL, callable] -> (callable, NULL)


def _split_call_ex_313(pair):
    return pair[0], pair[1]                    # [callable, NULL]


_PY313 = sys.version_info[:2] >= (3, 13)
# (callable, positional args, kwargs) from the CALL's stack items and keyword names, on this version
split_call = _split_call_313 if _PY313 else _split_call_311
# (callable, NULL) from the two stack items under CALL_FUNCTION_EX's arguments
split_call_ex = _split_call_ex_313 if _PY313 else _split_call_ex_311


def opcode_table(version):
    """{opcode name: handler} for CPython `version` (a (major, minor) tuple)."""
    table = {}
    for name, variants in _VARIANTS.items():
        for since, until, fn in variants:
            if since <= version and (until is None or version < until):
                if name in table:
                    raise RuntimeError(f"two handlers for {name} on Python {version}")
                table[name] = fn
    return table


SUPPORTED_VERSIONS = {(3, 10), (3, 11), (3, 12), (3, 13)}
# graph breaks resume in a function made from the frame's bytecode (resume_execution.py), written for 3.11+;
# on 3.10 a graph break runs the whole frame eagerly instead
RESUME_VERSIONS = {(3, 11), (3, 12), (3, 13)}
OPCODE_TABLE = opcode_table(sys.version_info[:2])


def _concrete(v):
    """A value as text sees it: a SymInt/SymFloat is specialised (its example value, guarded), as torch does
    when a symbolic size is formatted into a string."""
    from ember._core.symint import SymFloat, SymInt
    if v.__class__ is SymInt:
        return int(v)
    if v.__class__ is SymFloat:
        return float(v)
    return v
