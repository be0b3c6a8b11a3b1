"""torch.version: the build's version strings; ember is built for the CPU only (`cuda` and `hip` None)."""
__version__ = "0.1.0"
cuda = None
hip = None
git_version = "unknown"
debug = False
