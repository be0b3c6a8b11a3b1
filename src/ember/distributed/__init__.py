"""torch.distributed: stores, rendezvous, process groups and collectives on MPI (mpi4py + the mpich wheel).

The collectives run on MPI through mpi4py, imported lazily: ``import ember.distributed`` works without it, and
``is_mpi_available()`` says whether the backend can run.  ``backend="gloo"`` is accepted as ember's name for its
CPU backend, which is MPI, so torch scripts written for gloo run unchanged.
"""
from ._errors import DistBackendError, DistError, DistNetworkError, DistStoreError  # noqa: F401
from ._store import FileStore, HashStore, PrefixStore, Store, TCPStore  # noqa: F401
from .constants import default_pg_timeout  # noqa: F401
from .distributed_c10d import *
from .distributed_c10d import _World  # noqa: F401
from .rendezvous import register_rendezvous_handler, rendezvous  # noqa: F401
