"""Engine overhead: backward of a 200-op elementwise chain on 1,000 elements (per-node µs)."""
import time, ember, numpy as np
x = ember.tensor(np.random.rand(1000).tolist(), dtype=ember.float32, requires_grad=True)
def run():
    y = x
    for i in range(200):
        y = y * 1.0001 if i % 2 else y + 0.001
    return y.sum()
for _ in range(3): run().backward()
t=time.perf_counter(); n=20
for _ in range(n):
    s=run()
t1=time.perf_counter()
for _ in range(n):
    s=run(); s.backward()
t2=time.perf_counter()
fw=(t1-t)/n; bw=(t2-t1)/n-fw
print(f"forward {fw*1e3:.2f} ms, backward {bw*1e3:.2f} ms, per-node backward {bw/201*1e6:.1f} us")
