"""Worker for test_failure: rank 1 dies (SIGKILL) while rank 0 waits in all_reduce."""
import os
import signal
import sys
import time
from datetime import timedelta

import ember
import ember.distributed as dist

dist.init_process_group("gloo", timeout=timedelta(seconds=float(sys.argv[1])))
t = ember.ones(1 << 16)
dist.all_reduce(t)                      # everyone arrives once (shared memory is in use)
if dist.get_rank() == 1:
    time.sleep(0.3)
    os.kill(os.getpid(), signal.SIGKILL)
dist.all_reduce(t)
print("UNREACHABLE", flush=True)
