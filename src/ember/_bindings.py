"""Loading of the generated Python bindings (torch's python_torch_functions.cpp and python_variable_methods.cpp,
which torch compiles into its extension): one module per op family, run the first time one of its names is used.

The generated bindings are about 1.4 MB of Python source: with cached bytecode that costs little, but an
interpreter that may not write bytecode (PYTHONDONTWRITEBYTECODE, a read-only install, every test subprocess
on CI) compiles all of it on each `import ember`, about 170 ms on a quiet machine. So the generator splits
them by native/<family>.yaml (measured with callgrind, `import ember` without bytecode: 3,086M instructions
before, 828M after, of which numpy is 381M; with cached bytecode 453M -> 425M; torch 5,158M):

- `_generated/functions.py` maps each ember.<name> binding to its family and has a module `__getattr__`
  (`module_getattr` below) that imports `_generated/torch_functions/<family>.py` on the first read of any of its
  names and keeps every name of that family in its own namespace, so later reads are plain global lookups;
  `ember.__getattr__` asks it for the names ember re-exports and keeps them in ember's namespace the same way.
- `_generated/tensor_methods.py`'s class `TensorMethods` holds a `LazyMethod` per method name until its family
  (`_generated/variable_methods/<family>.py`) is loaded: the first lookup of any of them (an attribute of a
  tensor, of the class, or a Python operator: `__add__ = vars(TensorMethods)["add"]` in Tensor's class statement
  is the same placeholder) loads the family and puts its functions in the place of every placeholder of that
  family, in every class that named one, so a method costs what it did once its family is loaded.

A family loaded after `import ember` is not gc-frozen (the import freezes what it made, ember/__init__.py):
gc.freeze() cannot pick objects, it moves every tracked object to the permanent generation, so freezing after a
lazy load would also freeze the program's own objects of that moment (a model, its optimizer, their reference
cycles), never to be collected once they become garbage. What it would save is small: loading all 30 families
(both halves) adds ~5.8k tracked objects, and a full collection then takes ~0.4 ms longer (0.0 -> 0.4 ms,
gc.collect() minimum of 5, load ~9); young collections see them at most twice before they reach the oldest
generation.
"""
import importlib


def module_getattr(namespace, package, families):
    """(`__getattr__`, `__dir__`) for the module whose globals are `namespace`: the binding `name` is defined by
    module `package + families[name]`, imported on first use; all of that module's names (its `__all__`) are
    then copied into `namespace`, so Python finds them there without calling this again."""
    def __getattr__(name):
        family = families.get(name)
        if family is None:
            raise AttributeError(f"module {namespace['__name__']!r} has no attribute {name!r}")
        mod = importlib.import_module(package + family)
        for n in mod.__all__:
            namespace[n] = getattr(mod, n)
        return namespace[name]

    def __dir__():
        return sorted(set(namespace) | set(families))
    return __getattr__, __dir__


class LazyMethod:
    """The placeholder of a generated method in a class until its family module is loaded: it behaves as the
    method it stands for (binds to an instance, answers a lookup on the class, can be called directly) by
    loading that module first. `__set_name__` records every (class, attribute) that holds it, so loading
    replaces each of them (`TensorMethods.add` and `Tensor.__add__` alike)."""

    __slots__ = ("module", "places")

    def __init__(self, module):
        self.module = module            # the family module's name: it defines METHODS, {name: function}
        self.places = []                # (class, attribute name) holding this placeholder, first the defining one

    def __set_name__(self, owner, name):
        self.places.append((owner, name))

    def resolve(self):
        """The function this placeholder stands for, after putting its family in place."""
        owner, name = self.places[0]
        mod = importlib.import_module(self.module)
        fn = mod.METHODS[name]
        for n, f in mod.METHODS.items():
            held = owner.__dict__.get(n)
            if held.__class__ is LazyMethod:
                for cls, attr in held.places:
                    if cls.__dict__.get(attr) is held:
                        setattr(cls, attr, f)
        return fn

    def __get__(self, obj, cls=None):
        fn = self.resolve()
        return fn if obj is None else fn.__get__(obj, cls)

    def __call__(self, *args, **kwargs):
        return self.resolve()(*args, **kwargs)

    def __repr__(self):
        owner, name = self.places[0] if self.places else (None, "?")
        return f"<generated method {name!r} of {getattr(owner, '__name__', '?')}, not loaded yet ({self.module})>"
