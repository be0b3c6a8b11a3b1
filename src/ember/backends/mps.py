"""torch.backends.mps: Apple's Metal backend; ember has none, so it is neither built nor available."""


def is_built():
    return False


def is_available():
    return False


def is_macos_or_newer(major, minor):
    return False


def is_macos13_or_newer(minor=0):
    return False


def get_name():
    return ""


def get_core_count():
    return 0
