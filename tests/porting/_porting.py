"""Helpers for the porting suite: run a torch-style snippet with `torch` bound to ember or to real
torch, and compare what each returned or raised."""


def outcome(fn):
    """("ok", value) or ("raise", exception type name, message) of calling fn()."""
    try:
        return ("ok", fn())
    except Exception as e:     # noqa: BLE001  (the outcome is what is compared)
        return ("raise", type(e).__name__, str(e))


def run_script(source, module):
    """exec a script with `torch` resolved to `module`; returns its globals (the script's results)."""
    env = {"torch": module, "__name__": "__porting__"}
    exec(compile(source, "<porting script>", "exec"), env)
    return env
