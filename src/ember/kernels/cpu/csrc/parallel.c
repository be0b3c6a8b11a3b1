/* ember's C thread pool for flat elementwise kernels (the counterpart of ATen's at::parallel_for over an
   OpenMP team): `ember_parallel_for(fn, p0, p1, p2, p3, s0, s1, n, grain, nthreads)` runs
   fn(p, s, begin, end) over [0, n) in chunks of `grain` elements on the calling thread and up to
   nthreads - 1 worker pthreads, and returns when every chunk is done.

   Why not the Python pool (runtime/pool.py): a Python worker sleeps on a lock, wakes through the scheduler
   and must take the GIL before its numpy call; on 2 busy cores that hand-off cost more than the second core
   gave back (a 1M-element float add ran slower on 2 threads than on 1). Here:
   - workers spin for a short while after each job (EP_SPIN_NS of wall time) before they sleep on a
     futex (Linux; a condition variable elsewhere: its wake-up took the mutex on both sides, and a woken
     worker could block again on the mutex its waker still held), so a run of big ops with a little Python
     between them (5-30 us) finds them awake, as OpenMP's spinning threads are. Kept short, and counted in wall time rather than the worker's cpu
     time (as it was up to session 13): on a loaded machine a spinning worker is preempted, and one that
     keeps spinning when it gets its core back takes cpu from the caller and everything else while the
     scheduler ranks it below a thread that slept (a woken sleeper is run sooner: CFS's wake-up credit).
     Measured on the MLP train step at 2 threads, load ~7.5 on 2 cores, alternated in one process (ms,
     median of 40-50 steps): spin 0 / 20 / 50 / 200 / 1000 us of cpu: step 14.6 / 13.9 / 15.6 / 16.7 / 26.9
     wall, process cpu 6.4 / 6.5 / 6.6 / 7.3 / 9.6, and a worker joined 60 / 61 / 57 / 51 / 38% of the
     jobs (a spinning worker that was preempted joins less often than one woken from sleep). A spinning
     worker also takes a core from OpenBLAS's threads in a matmul that follows. Since session 14 the spin
     grows up to EP_SPIN_MAX_NS (4 ms since session 16) while jobs keep coming soon after the worker sleeps,
     no other thread preempts it and its wake-ups are quick (an idle second core), and falls back to 50 us
     when one does not hold (ep_spin_adapt); the Python pool sends spinning workers to sleep before its own
     threads need the cpus (ember_parallel_hush);
   - a worker asks the scheduler for a 100 us time slice (ep_apply_slice): woken while another process runs
     on the other core, it preempts that process at once instead of waiting 1-2 ms for its slice to end;
   - on a loaded machine the scheduler put a woken worker on the caller's own core, where it preempted the
     caller (ep_on_callers_cpu): such a worker moves itself to another allowed cpu (ep_move_off), and where
     none is allowed the caller backs off from waking workers (ep_wake_policy). Same process, 100 calls,
     load ~10 on 2 cores, min / median us: 1M float32 add 175 / 231 -> 75 / 77, mul by a number 98 / 110
     -> 54 / 56. benchmarks/elementwise_bandwidth.py reports how often a worker took part and why not
     (runtime/flat.py's pool_stats);
   - each thread runs its own contiguous part first (the same elements each call: cache affinity), chunk
     by chunk from an atomic counter, then claims the chunks left in the others' parts; the caller does the
     same: when a worker is not running (its core busy with another process), the caller does its part
     too, so a split op never costs much more than the one-thread loop;
   - no Python, no GIL: the caller released it (csrc/parallel_call.c, the CPython entry runtime/flat.py
     uses, or ctypes).

   One job at a time: a second thread that calls in while a job runs (the pool busy) runs its job inline.
   Fork safety (DataLoader workers): a pthread_atfork child handler forgets the parent's workers (they do not
   exist in the child) and re-initialises the locks, so a forked child starts its own workers on first use
   and never waits on a parent's thread. */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <time.h>
#ifdef __linux__
#include <limits.h>
#include <linux/futex.h>
#include <sys/syscall.h>
#include <unistd.h>
#define EP_FUTEX 1                 /* sleeping workers wait on a futex (else on the condition variable) */
#else
#define EP_FUTEX 0
#endif

#define EP_MAX_WORKERS 63
#define EP_CLOSED (1ull << 31)
#define EP_SPIN_NS 50000           /* how long an idle worker spins before it sleeps: 50 us of wall time, */
#define EP_SPIN_MAX_NS 4000000     /* ... up to 4 ms while jobs come soon after it sleeps (ep_spin_adapt) */
#define EP_PREEMPT_NS 20000        /* a gap this long between two clock reads of a spinning worker: it lost its cpu */
#define EP_SOON_NS 2000000         /* a job this soon after the worker went to sleep: a longer spin would have met it */
#define EP_IDLE_NS 20000000        /* asleep this long: the run of jobs has ended */
#define EP_SLOW_WAKE_NS 200000     /* woken this long after its job was published: no idle cpu (ep_spin_adapt) */
#define EP_SLOW_SPIN_NS 400000     /* the budget's cap after such a wake-up (the ceiling up to session 15) */
#define EP_SLICE_NS 100000         /* a worker's scheduler time slice (ep_apply_slice): 0.1 ms, the kernel's least */
#define EP_WAIT_NS 1000000         /* how long the caller spins for a late chunk before it yields */

/* ember_parallel_stats' counters: split jobs, jobs a worker joined, jobs published while a worker slept, jobs
   whose caller waited for a joined worker after its own chunks, the ns it waited, chunks of split jobs, chunks
   the caller ran, calls run inline because another thread's job held the pool, jobs published without waking
   a sleeping worker (the wake-up back-off, ep_wake_policy), joined jobs whose caller waited long for a worker
   that had lost its cpu (EP_LONG_WAIT_NS) and the jobs then run inline (counted as jobs too); then (worker
   side) wake-ups
   from sleep, wake-ups that found their job already closed, and wake-ups that ran on the
   caller's cpu (ep_on_callers_cpu). */
enum { EP_JOBS, EP_JOINED, EP_ASLEEP, EP_WAITED, EP_WAIT_NS_SUM, EP_CHUNKS, EP_CALLER_CHUNKS, EP_BUSY,
       EP_WAKE_SKIPPED, EP_LONG_WAITS, EP_BACKED_OFF, EP_NSTATS };

typedef void (*ep_fn)(void *const *p, const double *s, int64_t begin, int64_t end);

static struct {
    pthread_mutex_t busy;          /* held by the thread that runs a job */
    pthread_mutex_t mu;            /* without futexes sleeping workers wait on cv under mu */
    pthread_cond_t cv;
    int started;                   /* workers started (each runs ep_worker forever) */
    int atfork;                    /* the atfork handler is registered */
    _Atomic uint64_t gen;          /* job generation: a worker takes part in a job when it changes */
    _Atomic int sleeping;          /* workers asleep (on the futex `seq`, or on cv) */
    _Atomic uint32_t seq;          /* gen's low 32 bits, stored after it: the futex word sleeping workers wait on */
    struct { _Atomic int64_t v; char pad[56]; } next[EP_MAX_WORKERS + 1];   /* next chunk of each part */
    _Atomic uint64_t ticket;       /* (job generation << 32) | closed << 31 | workers that joined the job */
    _Atomic int left;              /* joined workers that have left the job */
    /* the job, written by the caller before gen is bumped */
    ep_fn fn;
    void *p[4];
    double s[2];
    int64_t n, grain, nchunks;
    int nworkers;                  /* workers allowed to take part (nthreads - 1) */
    int nparts;                    /* nworkers + 1 */
    _Atomic int64_t spin_ns;       /* the idle spin budget's floor (ember_parallel_set_spin) */
    _Atomic int64_t spin_max_ns;   /* its ceiling (ember_parallel_set_spin_max) */
    _Atomic int64_t spin_cur_ns;   /* the budget now, between the two (ep_spin_adapt) */
    /* counters for benchmarks (ember_parallel_stats): the caller's written under `busy`, the workers' atomic */
    int64_t st[EP_NSTATS];
    _Atomic int64_t st_woke, st_woke_late, st_same_cpu, st_moved;
    _Atomic int64_t st_spun_out, st_preempted, st_gave_way;     /* why an idle worker stopped spinning */
    _Atomic int64_t st_wake_ns, st_slow_wakes;   /* woken workers' delay after the publishing, summed; those slow */
    _Atomic int64_t st_hushed;     /* idle workers sent to sleep by ember_parallel_hush */
    _Atomic int64_t pub_ns;        /* when the caller published the last job (ep_now_ns) */
    _Atomic int hush;              /* set by ember_parallel_hush: spinning workers sleep now (cleared by a job) */
    _Atomic int caller_cpu;        /* the cpu the caller last ran on (at publishing, after each chunk), or -1 */
    _Atomic int woke_where;        /* wake-ups since the caller last looked: 1 on the caller's cpu, 2 elsewhere */
    int backoff, wake_skip;        /* the caller's wake-up back-off (ep_wake_policy), under `busy` */
    int64_t inline_until_ns;       /* jobs run inline until then (EP_LONG_WAIT_NS), under `busy` */
    int64_t long_ns, long_span_ns; /* the last long wait's end and the back-off it set, under `busy` */
    int long_factor;               /* that back-off in waits: 1, doubled on each long wait that follows one */
    int64_t policy_ns;             /* when ep_wake_policy last ran */
} P = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, .spin_ns = EP_SPIN_NS,
       .spin_max_ns = EP_SPIN_MAX_NS, .spin_cur_ns = EP_SPIN_NS,
       .caller_cpu = -1};

static inline int ep_cpu(void) {
#ifdef __linux__
    return sched_getcpu();
#else
    return -1;
#endif
}

/* Whether this worker runs on the cpu the caller last reported: then the caller is not running now (it was
   preempted for this worker, or has moved). On a loaded machine the scheduler puts a worker woken by the
   caller on the caller's own core (wake-affine: the other core is busy with another process), where it
   preempts the caller and can only run while the caller waits. Measured at load ~8 on 2 cores (1M float32
   add / mul by a number / zero_, 100 calls each): every join by a woken worker (31-43% of the calls) was on
   the caller's cpu, and those calls were no faster than the caller alone. A worker spinning there stops
   spinning (it holds the caller's core); a woken one still takes its chunks (it has already cost the
   caller its core: leaving the job to it measured slower, 1M zero_ 49 -> 63 us) and tells the caller,
   which then wakes workers less often (ep_wake_policy). */
static inline int ep_on_callers_cpu(void) {
    const int c = ep_cpu();
    return c >= 0 && c == atomic_load_explicit(&P.caller_cpu, memory_order_relaxed);
}

/* A worker found on the caller's cpu moves itself off it: its cpu affinity becomes the cpus it was allowed at
   its start minus the caller's, so the kernel migrates it now and later wake-ups place it there too (a woken
   thread goes back to its last cpu or its waker's; with both the caller's it stayed beside the caller for
   good: under nice -20, with torch's two threads getting both cores in the same process, every wake-up of
   ember's worker still landed on the caller's cpu). When the caller later runs on the worker's cpu, the worker
   moves again. Returns 1 when moved (0: no other cpu allowed, or not Linux). */
#ifdef __linux__
static __thread cpu_set_t ep_allowed;          /* the worker's affinity when it started */
static __thread int ep_allowed_ok;
#endif
static int ep_move_off(void) {
#ifdef __linux__
    const int c = atomic_load_explicit(&P.caller_cpu, memory_order_relaxed);
    if (!ep_allowed_ok || c < 0 || c >= CPU_SETSIZE)
        return 0;
    cpu_set_t m = ep_allowed;
    CPU_CLR(c, &m);
    if (CPU_COUNT(&m) == 0 || sched_setaffinity(0, sizeof m, &m) != 0)
        return 0;
    atomic_fetch_add_explicit(&P.st_moved, 1, memory_order_relaxed);
    return 1;
#else
    return 0;
#endif
}

/* The worker's time slice (EEVDF's custom slice, Linux 6.12+: sched_attr.sched_runtime of a SCHED_OTHER thread,
   0: the kernel's default). A woken thread waits for the running one's slice to end unless its own is shorter
   (the scheduler's PREEMPT_SHORT): with the default ~3 ms slices, a worker woken while another process ran on
   the other core reached its job 1-2 ms late at load ~14, even at nice -20 (benchmark rows: asleep at every
   call of a 6-call block). A short slice lets it preempt at once; fairness is unchanged (a thread's share
   follows its weight, its slices are only cut finer). Older kernels ignore the field or refuse the call. */
static _Atomic int64_t ep_slice_ns = EP_SLICE_NS;
static __thread int64_t ep_my_slice = -1;
struct ep_sched_attr {
    uint32_t size, sched_policy;
    uint64_t sched_flags;
    int32_t sched_nice;
    uint32_t sched_priority;
    uint64_t sched_runtime, sched_deadline, sched_period;
    uint32_t sched_util_min, sched_util_max;
};
static void ep_apply_slice(void) {
    const int64_t want = atomic_load_explicit(&ep_slice_ns, memory_order_relaxed);
    if (want == ep_my_slice)
        return;
    ep_my_slice = want;
#if defined(__linux__) && defined(SYS_sched_getattr) && defined(SYS_sched_setattr)
    struct ep_sched_attr a = {0};
    if (syscall(SYS_sched_getattr, 0, &a, (unsigned)sizeof a, 0) != 0 || a.sched_policy != 0)
        return;                                   /* not SCHED_OTHER (a real-time process): leave it */
    a.size = sizeof a;
    a.sched_flags = 0;
    a.sched_runtime = (uint64_t)want;
    syscall(SYS_sched_setattr, 0, &a, 0);
#endif
}

static inline void ep_pause(void) {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#endif
}

static int64_t ep_clock_ns(clockid_t clock) {
    struct timespec ts;
    clock_gettime(clock, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static int64_t ep_now_ns(void) { return ep_clock_ns(CLOCK_MONOTONIC); }

/* The chunks are split into one contiguous part per thread (part 0 the caller's, part i + 1 worker i's): a
   thread runs its own part first, front to back, then claims what is left of the others'. A run of ops over
   the same tensors so gives each thread the same elements each time when all threads are running (what is
   in its core's L2 cache from the last op: torch's static split has that affinity, a shared chunk counter
   lost it: 1M-element in-place float ops ran at half torch's best GB/s), and a part whose thread is late
   is done by the others. */
static int64_t ep_chunks(int me) {
    const int64_t nchunks = P.nchunks, grain = P.grain, n = P.n;
    const int nparts = P.nparts;
    const ep_fn fn = P.fn;
    int64_t done = 0;
    for (int r = 0; r < nparts; r++) {
        const int q = (me + r) % nparts;
        const int64_t end = (q + 1) * nchunks / nparts;
        for (;;) {
            int64_t c = atomic_fetch_add_explicit(&P.next[q].v, 1, memory_order_relaxed);
            if (c >= end)
                break;
            int64_t b = c * grain, e = b + grain < n ? b + grain : n;
            fn(P.p, P.s, b, e);
            done++;
            if (me == 0)
                atomic_store_explicit(&P.caller_cpu, ep_cpu(), memory_order_relaxed);
        }
    }
    return done;
}

/* A worker joins job g unless the caller has closed it (finished every chunk): a worker that wakes late
   is not waited for. The job's fields are stable from here until it leaves. */
static int ep_join(uint32_t g, int index) {
    uint64_t t = atomic_load(&P.ticket);
    for (;;) {
        if ((uint32_t)(t >> 32) != g || (t & EP_CLOSED) || index >= P.nworkers)
            return 0;
        if (atomic_compare_exchange_weak(&P.ticket, &t, t + 1))
            return 1;
    }
}

/* The idle spin budget adapts between the floor (spin_ns, 50 us) and the ceiling (spin_max_ns, 4 ms; torch's
   OpenMP worker, libgomp with its default GOMP_SPINCOUNT, spins about 10 ms after a parallel region here: an idle
   process burns 8-11 ms of cpu after a burst of 1M-element adds):
   - a worker that slept and got a job less than max(EP_SOON_NS, the ceiling) later doubles the budget: ops that
     split come in runs with some Python between them (batch-1 generation: a GPT block's three big Linears 30-150
     us apart at T >= 16; a train step: a split job every 0.1-5 ms), and a woken worker reaches a job tens of
     microseconds late on this VM (a halted vcpu), after the caller has done most of a 20-80 us op
     (benchmarks/train_step.py generate: a worker joined 88 of 400 split products, asleep at 379 of them, with
     the 50 us spin). With the budget fixed, ember's train steps alone (load 5-8, 2 threads; sleeps with the
     budget spent, per split job): 400 us: MLP 0.23, GPT 0.21; 2 ms: 0.10, 0.12; 5 ms: 0, 0;
   - beyond EP_SLOW_SPIN_NS (400 us, the ceiling up to session 15) only while the worker runs again within
     EP_SLOW_WAKE_NS of its job's publishing (a wake-up on an idle cpu): a slower wake-up (no idle cpu, the
     machine is loaded) caps the budget at 400 us again. At load 7 with a slow wake-up sending it to the floor,
     the MLP/CNN/GPT steps kept it at 50-100 us (mean wake-up 1.7-2.2 ms, 40-65% of them slow);
   - a worker that was preempted while spinning (EP_PREEMPT_NS between two clock reads ~2 us apart: another
     thread wanted its cpu) goes back to the floor: on a loaded machine a spinning worker only takes cpu from the
     caller and everyone else (the MLP step at load 7.5: spin 200 us 16.7 ms against 15.6 at 50 us, session 13;
     fixed budgets at load 5-8, cpu per step: MLP 400 us 7.9 ms, 2 ms 9.3, 5 ms 10.3; GPT 142 / 163 / 174);
   - one that slept longer than EP_IDLE_NS halves it (the run of jobs ended).
   On an idle second core (a quiet machine) the budget so grows within a few jobs and the worker meets the splits
   of a train step awake; under load it behaves as up to session 15 (50-400 us). An idle process stops spinning
   within the budget (at most the ceiling) after its last split op. */
static void ep_spin_adapt(int preempted, int64_t slept_ns, int64_t wake_ns) {
    const int64_t lo = atomic_load_explicit(&P.spin_ns, memory_order_relaxed);
    const int64_t hi = atomic_load_explicit(&P.spin_max_ns, memory_order_relaxed);
    int64_t cur = atomic_load_explicit(&P.spin_cur_ns, memory_order_relaxed);
    if (preempted)
        cur = lo;
    else if (slept_ns >= 0 && slept_ns < (hi > EP_SOON_NS ? hi : EP_SOON_NS))
        cur = 2 * cur;
    else if (slept_ns > EP_IDLE_NS)
        cur = cur / 2;
    if (wake_ns >= EP_SLOW_WAKE_NS && cur > EP_SLOW_SPIN_NS)
        cur = EP_SLOW_SPIN_NS;
    cur = cur > hi ? hi : cur;
    cur = cur < lo ? lo : cur;
    atomic_store_explicit(&P.spin_cur_ns, cur, memory_order_relaxed);
}

static void *ep_worker(void *arg) {
    const int index = (int)(intptr_t)arg;
    uint64_t seen = atomic_load(&P.gen);
#ifdef __linux__
    ep_allowed_ok = sched_getaffinity(0, sizeof ep_allowed, &ep_allowed) == 0;
#endif
    ep_apply_slice();
    for (;;) {
        uint64_t g = atomic_load_explicit(&P.gen, memory_order_acquire);
        int slept = 0;
        if (g == seen) {
            const int64_t t0 = ep_now_ns(), budget = atomic_load_explicit(&P.spin_cur_ns, memory_order_relaxed);
            int64_t last = t0;
            int spins = 0, preempted = 0, spun_out = 0, hushed = 0;
            while ((g = atomic_load_explicit(&P.gen, memory_order_acquire)) == seen) {
                if (atomic_load_explicit(&P.hush, memory_order_relaxed)) {
                    hushed = 1;   /* read every pause: off the cpu before the thread that hushed it is woken */
                    break;
                }
                ep_pause();
                if (++spins == 64) {      /* ~2 us of pauses; the monotonic clock is a vDSO read */
                    spins = 0;
                    const int64_t t = ep_now_ns();
                    if (t - last > EP_PREEMPT_NS) {
                        preempted = 1;
                        break;
                    }
                    last = t;
                    if (t - t0 > budget) {
                        spun_out = 1;
                        break;
                    }
                    if (ep_on_callers_cpu() && !ep_move_off())
                        break;
                }
            }
            if (g == seen) {
                atomic_fetch_add_explicit(preempted ? &P.st_preempted : spun_out ? &P.st_spun_out
                                          : hushed ? &P.st_hushed : &P.st_gave_way, 1, memory_order_relaxed);
                ep_spin_adapt(preempted, -1, 0);
                const int64_t ts = ep_now_ns();
#if EP_FUTEX
                /* the kernel sleeps only while seq still holds the job seen: a job published after the check
                   of gen changed seq first, or its caller saw `sleeping` and wakes the futex */
                atomic_fetch_add(&P.sleeping, 1);
                while ((g = atomic_load(&P.gen)) == seen)
                    syscall(SYS_futex, &P.seq, FUTEX_WAIT_PRIVATE, (uint32_t)seen, NULL, NULL, 0);
                atomic_fetch_sub(&P.sleeping, 1);
#else
                pthread_mutex_lock(&P.mu);
                atomic_fetch_add(&P.sleeping, 1);
                while ((g = atomic_load(&P.gen)) == seen)
                    pthread_cond_wait(&P.cv, &P.mu);
                atomic_fetch_sub(&P.sleeping, 1);
                pthread_mutex_unlock(&P.mu);
#endif
                slept = 1;
                ep_apply_slice();                       /* ember_parallel_set_slice may have changed it */
                const int64_t tw = ep_now_ns();
                /* the delay since the publishing of the job it woke for (or of a later one: then shorter) */
                int64_t wake_ns = tw - atomic_load_explicit(&P.pub_ns, memory_order_relaxed);
                wake_ns = wake_ns < 0 ? 0 : wake_ns;
                atomic_fetch_add_explicit(&P.st_wake_ns, wake_ns, memory_order_relaxed);
                if (wake_ns >= EP_SLOW_WAKE_NS)
                    atomic_fetch_add_explicit(&P.st_slow_wakes, 1, memory_order_relaxed);
                if (!preempted)
                    ep_spin_adapt(0, tw - ts, wake_ns);
            }
        }
        seen = g;
        if (slept) {
            const int same = ep_on_callers_cpu();
            const int stuck = same && !ep_move_off();
            atomic_fetch_or_explicit(&P.woke_where, stuck ? 1 : 2, memory_order_relaxed);
            if (same)
                atomic_fetch_add_explicit(&P.st_same_cpu, 1, memory_order_relaxed);
        }
        if (index < EP_MAX_WORKERS && ep_join((uint32_t)g, index)) {
            ep_chunks(index + 1);
            atomic_fetch_add_explicit(&P.left, 1, memory_order_release);
        } else if (slept) {
            atomic_fetch_add_explicit(&P.st_woke_late, 1, memory_order_relaxed);
        }
        if (slept)
            atomic_fetch_add_explicit(&P.st_woke, 1, memory_order_relaxed);
    }
    return 0;
}

static void ep_after_fork_child(void) {
    pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
    pthread_cond_t c = PTHREAD_COND_INITIALIZER;
    P.busy = m;
    P.mu = m;
    P.cv = c;
    P.started = 0;                 /* the parent's workers do not exist here */
    atomic_store(&P.sleeping, 0);
    atomic_store(&P.woke_where, 0);  /* nor their wake-up reports: the child's back-off starts afresh */
    P.backoff = 0;
    P.wake_skip = 0;
    P.inline_until_ns = 0;
    P.long_ns = P.long_span_ns = 0;
    P.long_factor = 0;
}

static int ep_start(int want) {
    if (!P.atfork) {
        if (pthread_atfork(0, 0, ep_after_fork_child) != 0)
            return 0;
        P.atfork = 1;
    }
    while (P.started < want) {
        pthread_t t;
        pthread_attr_t attr;
        pthread_attr_init(&attr);
        pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
        pthread_attr_setstacksize(&attr, 1 << 16);
        int rc = pthread_create(&t, &attr, ep_worker, (void *)(intptr_t)P.started);
        pthread_attr_destroy(&attr);
        if (rc != 0)
            break;
        P.started++;
    }
    return P.started;
}

/* Whether the caller wakes the sleeping workers for the job it is publishing (called under `busy`). While
   woken workers land on the caller's own cpu (the other core busy elsewhere: see ep_on_callers_cpu), a
   wake-up only costs the caller two context switches, so after such a wake-up the next 1, 2, 4 ... up to
   EP_BACKOFF_MAX jobs run without waking anyone (a worker still spinning joins them), then one wakes them
   again to probe; a wake-up that lands on another cpu ends the back-off, and so does a pause of 10 ms
   without split jobs (the load may have changed). A spinning worker is never affected, so on a quiet machine
   (workers woken on the idle core) nothing changes. */
#define EP_BACKOFF_MAX 32
static int ep_backoff_max = EP_BACKOFF_MAX;   /* ember_parallel_set_backoff: 0 wakes for every job */
static int ep_wake_policy(void) {
    const int w = atomic_exchange_explicit(&P.woke_where, 0, memory_order_relaxed);
    const int64_t now = ep_now_ns();
    const int stale = now - P.policy_ns > 10000000;
    P.policy_ns = now;
    if ((w & 2) || stale) {
        P.backoff = 0;
        P.wake_skip = 0;
    } else if (w & 1) {
        const int cap = ep_backoff_max;
        P.backoff = P.backoff ? (2 * P.backoff < cap ? 2 * P.backoff : cap) : (cap > 0);
        P.wake_skip = P.backoff;
    }
    if (P.wake_skip > 0) {
        P.wake_skip--;
        P.st[EP_WAKE_SKIPPED]++;
        return 0;
    }
    return 1;
}

/* A caller that waited this long for a joined worker after its own chunks, and more than twice the time it took
   for them, met a worker that lost its cpu mid-chunk (another process took it: on a loaded machine a woken
   worker runs in fragments, preempted for a whole scheduling period once its wake-up credit is spent); the
   jobs of the next k times that wait (at most EP_BACKOFF_MAX_NS) then run on the caller alone, without
   publishing them. k starts at 1 and doubles (up to EP_BACKOFF_WAITS) while each long wait follows the last
   one's back-off within twice its span plus EP_LONG_GAP_NS, so on a loaded machine a probe soon costs at most
   ~1/16 of the time, while a one-off preemption on a quiet one (torch's OpenMP threads spinning after its own
   op, a kworker) costs one wait's span: with k fixed at 16, one 4 ms wait put 64 ms of 1M-element in-place
   adds on the caller alone, and elementwise_bandwidth.py's add_/relu_/add out= rows at 1M ran at 0.4-0.56x
   torch on a quiet machine (every job backed off). Measured on this 2-core VM, a (512, 128)
   by (128, 32) product in two row blocks, load ~3: the worker joined 74% of 3,000 calls, asleep at 99% of
   them, and the caller waited 23 ms a call on average (median 36 ms, against 30 us on one thread); at load 15
   (1,500 calls) 35-40 ms a call, median 70-80 ms. A worker that keeps its cpu finishes its chunk within
   about the caller's own time, which the factor of two allows, so on an idle second core nothing changes. */
#define EP_LONG_WAIT_NS 200000
#define EP_BACKOFF_WAITS 16
#define EP_BACKOFF_MAX_NS 1000000000
#define EP_LONG_GAP_NS 10000000

/* Runs fn over [0, n) in chunks of `grain` on up to `nthreads` threads (the caller included). Returns how
   many threads were allowed to take part (1: it ran inline). */
int ember_parallel_for(void *fn, void *p0, void *p1, void *p2, void *p3, double s0, double s1, int64_t n,
                       int64_t grain, int nthreads) {
    ep_fn f = (ep_fn)fn;
    void *p[4] = {p0, p1, p2, p3};
    double s[2] = {s0, s1};
    if (grain < 1)
        grain = 1;
    int64_t nchunks = (n + grain - 1) / grain;
    if (nthreads > EP_MAX_WORKERS + 1)
        nthreads = EP_MAX_WORKERS + 1;
    if (nthreads < 2 || nchunks < 2) {
        f(p, s, 0, n);
        return 1;
    }
    if (pthread_mutex_trylock(&P.busy) != 0) {
        __atomic_fetch_add(&P.st[EP_BUSY], 1, __ATOMIC_RELAXED);     /* the one counter written without `busy` */
        f(p, s, 0, n);
        return 1;
    }
    if (P.inline_until_ns && ep_now_ns() < P.inline_until_ns) {     /* backing off after a long wait */
        P.st[EP_JOBS]++;
        P.st[EP_BACKED_OFF]++;
        P.st[EP_CHUNKS] += nchunks;
        P.st[EP_CALLER_CHUNKS] += nchunks;
        pthread_mutex_unlock(&P.busy);
        f(p, s, 0, n);
        return 1;
    }
    int workers = ep_start(nthreads - 1 < nchunks - 1 ? nthreads - 1 : (int)(nchunks - 1));
    if (workers < 1) {
        pthread_mutex_unlock(&P.busy);
        f(p, s, 0, n);
        return 1;
    }
    P.fn = f;
    P.p[0] = p0; P.p[1] = p1; P.p[2] = p2; P.p[3] = p3;
    P.s[0] = s0; P.s[1] = s1;
    P.n = n; P.grain = grain; P.nchunks = nchunks;
    P.nworkers = workers;
    P.nparts = workers + 1;
    atomic_store_explicit(&P.caller_cpu, ep_cpu(), memory_order_relaxed);
    for (int q = 0; q <= workers; q++)
        atomic_store_explicit(&P.next[q].v, q * nchunks / (workers + 1), memory_order_relaxed);
    atomic_store_explicit(&P.left, 0, memory_order_relaxed);
    uint64_t g = atomic_load(&P.gen) + 1;
    atomic_store(&P.ticket, (uint64_t)(uint32_t)g << 32);
    const int64_t t_pub = ep_now_ns();
    atomic_store_explicit(&P.pub_ns, t_pub, memory_order_relaxed);
    atomic_store_explicit(&P.hush, 0, memory_order_relaxed);
    atomic_store(&P.gen, g);                          /* publishes the job (sequentially consistent) */
    atomic_store(&P.seq, (uint32_t)g);                /* then the futex word (before `sleeping` is read) */
    const int asleep = atomic_load(&P.sleeping) > 0;
    if (asleep && ep_wake_policy()) {
#if EP_FUTEX
        syscall(SYS_futex, &P.seq, FUTEX_WAKE_PRIVATE, INT_MAX, NULL, NULL, 0);
#else
        pthread_mutex_lock(&P.mu);
        pthread_cond_broadcast(&P.cv);
        pthread_mutex_unlock(&P.mu);
#endif
    }
    const int64_t mine = ep_chunks(0);
    /* every chunk is claimed: close the job to latecomers, then wait for the workers that joined it (their
       chunks finished, and none reads the job's fields once the next job starts writing them) */
    int joined = (int)(atomic_fetch_or(&P.ticket, EP_CLOSED) & (EP_CLOSED - 1));
    int64_t t0 = 0;
    P.st[EP_JOBS]++;
    P.st[EP_JOINED] += joined > 0;
    P.st[EP_ASLEEP] += asleep;
    P.st[EP_CHUNKS] += nchunks;
    P.st[EP_CALLER_CHUNKS] += mine;
    const int64_t w0 = joined && atomic_load_explicit(&P.left, memory_order_acquire) < joined ? ep_now_ns() : 0;
    for (int spins = 0; atomic_load_explicit(&P.left, memory_order_acquire) < joined;) {
        ep_pause();
        if (++spins == 256) {      /* a chunk takes microseconds: spin, yield only when a worker lost its core */
            spins = 0;
            int64_t t = ep_now_ns();
            if (!t0)
                t0 = t;
            else if (t - t0 > EP_WAIT_NS)
                sched_yield();
        }
    }
    if (w0) {
        const int64_t waited = ep_now_ns() - w0;
        P.st[EP_WAITED]++;
        P.st[EP_WAIT_NS_SUM] += waited;
        if (waited > EP_LONG_WAIT_NS && waited > 2 * (w0 - t_pub)) {
            const int64_t now = ep_now_ns();
            if (P.long_factor && now - P.long_ns < 2 * P.long_span_ns + EP_LONG_GAP_NS)
                P.long_factor = 2 * P.long_factor < EP_BACKOFF_WAITS ? 2 * P.long_factor : EP_BACKOFF_WAITS;
            else
                P.long_factor = 1;
            int64_t span = P.long_factor * waited;
            span = span < EP_BACKOFF_MAX_NS ? span : EP_BACKOFF_MAX_NS;
            P.inline_until_ns = now + span;
            P.long_ns = now;
            P.long_span_ns = span;
            P.st[EP_LONG_WAITS]++;
        }
    }
    pthread_mutex_unlock(&P.busy);
    return joined + 1;
}

/* Sends the idle workers that are spinning to sleep now (each within ~2 us), leaving the budget as it is; the next
   job clears it. For other threads about to need the cpus: runtime/pool.py's Python pool calls it before it hands
   parts to its threads (a conv or max pool of the CNN step), which otherwise shared a core with a worker spinning
   out its budget (up to EP_SPIN_MAX_NS). */
void ember_parallel_hush(void) {
    atomic_store_explicit(&P.hush, 1, memory_order_relaxed);
}

/* Counters since the last reset into out[0 .. EP_NSTATS + 3] (see the enum; then wake-ups, late wake-ups,
   wake-ups on the caller's cpu, moves off it);
   reset when `reset` is set. For benchmarks: read while no job runs. */
void ember_parallel_stats(int64_t *out, int reset) {
    for (int i = 0; i < EP_NSTATS; i++) {
        out[i] = P.st[i];
        if (reset)
            P.st[i] = 0;
    }
    out[EP_NSTATS] = reset ? atomic_exchange(&P.st_woke, 0) : atomic_load(&P.st_woke);
    out[EP_NSTATS + 1] = reset ? atomic_exchange(&P.st_woke_late, 0) : atomic_load(&P.st_woke_late);
    out[EP_NSTATS + 2] = reset ? atomic_exchange(&P.st_same_cpu, 0) : atomic_load(&P.st_same_cpu);
    out[EP_NSTATS + 3] = reset ? atomic_exchange(&P.st_moved, 0) : atomic_load(&P.st_moved);
}

/* Why idle workers went to sleep since the last reset, into out[0 .. 5]: their spin budget ran out
   (`spun_out`: no job came within it), another thread took their cpu while they spun (`preempted`), or they
   stopped on the caller's cpu (`gave_way`: ep_move_off failed); then the woken workers' delays after their job's
   publishing, summed (ns), how many of them were EP_SLOW_WAKE_NS or longer, and the sleeps ember_parallel_hush
   asked for (`hushed`); reset when `reset` is set. A separate call so that
   ember_parallel_stats' buffer (EP_NSTATS + 4 counters) keeps its size for callers built against it. */
void ember_parallel_sleep_stats(int64_t *out, int reset) {
    _Atomic int64_t *c[6] = {&P.st_spun_out, &P.st_preempted, &P.st_gave_way, &P.st_wake_ns, &P.st_slow_wakes,
                             &P.st_hushed};
    for (int i = 0; i < 6; i++)
        out[i] = reset ? atomic_exchange(c[i], 0) : atomic_load(c[i]);
}

/* Sets how many ns (wall time) an idle worker spins before it sleeps (0: sleep at once); returns the previous
   budget. Benchmarks compare policies with it (benchmarks/elementwise_bandwidth.py --spin-us). */
int64_t ember_parallel_set_spin(int64_t ns) {
    ns = ns < 0 ? 0 : ns;
    atomic_store(&P.spin_cur_ns, ns);
    return atomic_exchange(&P.spin_ns, ns);
}

/* Sets the ceiling (ns of wall time) up to which the idle spin grows (ep_spin_adapt; at or below the floor set
   by ember_parallel_set_spin: a fixed spin); returns the previous ceiling. */
int64_t ember_parallel_set_spin_max(int64_t ns) {
    return atomic_exchange(&P.spin_max_ns, ns < 0 ? 0 : ns);
}

/* Sets the workers' scheduler time slice in ns (ep_apply_slice; 0: the kernel's default), applied by each worker at
   its next wake-up; returns the previous setting. For benchmarks comparing policies in one process. */
int64_t ember_parallel_set_slice(int64_t ns) {
    return atomic_exchange(&ep_slice_ns, ns < 0 ? 0 : ns);
}

/* The idle spin budget now, in ns (for tests and benchmarks). */
int64_t ember_parallel_spin_now(void) {
    return atomic_load(&P.spin_cur_ns);
}

/* Sets the wake-up back-off's cap in jobs (ep_wake_policy; 0: wake sleeping workers for every job, as before
   session 13); returns the previous cap. For benchmarks comparing policies in one process. */
int ember_parallel_set_backoff(int jobs) {
    pthread_mutex_lock(&P.busy);                   /* the back-off state is the caller's: no job runs now */
    const int prev = ep_backoff_max;
    ep_backoff_max = jobs < 0 ? 0 : jobs;
    P.backoff = 0;
    P.wake_skip = 0;
    P.inline_until_ns = 0;
    P.long_factor = 0;
    pthread_mutex_unlock(&P.busy);
    return prev;
}
