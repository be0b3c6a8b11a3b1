"""torch.version: the build's version strings; ember is built for the CPU only (`cuda` and `hip` None).

`__version__` is the torch release whose behaviour ember implements, with ember's own release as the local
label ("2.13.0+ember0.1.0", as a CPU wheel of torch says "2.13.0+cpu"): scripts gate features on
`torch.__version__ >= "1.8"` or `version.parse(torch.__version__)`, and those checks must see the API ember
provides, not ember's own 0.x release number, which is `ember_version` (the package version in pyproject.toml).
"""
ember_version = "0.1.0"
torch_release = "2.13.0"
__version__ = f"{torch_release}+ember{ember_version}"
cuda = None
hip = None
git_version = "unknown"
debug = False
