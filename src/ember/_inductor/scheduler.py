"""torch/_inductor/scheduler.py: which buffers are computed together in one loop nest (fusion), in what
order, and the memory plan.

Nodes are the computed buffers (a Pointwise or a Reduction each) and the extern kernels. A fused group
(`FusedGroup`, torch's FusedSchedulerNode) is one C function: a nest of *outer* loops shared by all its nodes,
and inside it one *section* per node, in dependency order:
  - a reduction section loops over its reduction ranges and stores one element per outer iteration;
  - a pointwise section either has no loop of its own (its ranges are the outer ranges) or loops over the
    trailing dims that the outer loops do not cover (softmax's `exp(x - max)` over a row).
So softmax (max, sum of exp, divide) is one kernel with three sections per row, layer norm one kernel per
row, and a chain of pointwise ops one kernel (they are inlined into each other already at lowering).

Fusion (`Scheduler.fuse`): candidate pairs of groups that share a buffer (one produces what the other
reads, or both read it: horizontal fusion), scored by the bytes of those buffers (the memory traffic the
fusion saves), tried best first. A pair fuses when
  1. their outer ranges agree (pure pointwise groups may take a shorter common prefix of their ranges),
  2. every read of a buffer produced inside the fused group is *row-local*: it reads, at the same outer
     index, elements the producer's section has already written (the affine index check in `_legal`),
  3. no path leads from one group to the other through a third one (the cycle check),
  4. the group stays under `MAX_SECTIONS`.
Rounds repeat until nothing fuses (torch does the same, at most 10 rounds). A scatter's or a scan's kernel
shares no loops with others, but takes pointwise epilogues that read its output only at the element they store
(`_try_fuse_serial_epilogue`).

Memory planning (`plan_memory`): a buffer that is not a graph output takes the storage of a buffer of the
same byte size whose last reader ran before it is first written (torch's `memory_planning` reuse pools).
"""
from .index import Index
from .ir import ComputedBuffer, body_reads
from .sizevars import heuristic_value

MAX_SECTIONS = 64
MAX_ROUNDS = 10


def _nonone(sizes):
    return tuple(s for s in sizes if s != 1)


class Section:
    """One node inside a kernel: the Index of each of its dims (outer vars, its own inner vars, or 0),
    its reduction indices, and its own loops (name, size)."""

    def __init__(self, buf, index, rindex, loops):
        self.buf = buf
        self.index = index
        self.rindex = rindex
        self.loops = loops


def make_section(buf, outer, k):
    """Map buf's iteration space onto the outer loops (`outer`, non-1 sizes) and loops of section k, or None."""
    ovars = [f"x{i}" for i in range(len(outer))]
    sizes = buf.ranges()
    if buf.is_reduction():
        if _nonone(sizes) != outer:
            return None
        index, j = [], 0
        for s in sizes:
            if s == 1:
                index.append(Index())
            else:
                index.append(Index.var(ovars[j]))
                j += 1
        rindex, loops = [], []
        for d, s in enumerate(buf.reduction_ranges()):
            if s == 1:
                rindex.append(Index())
            else:
                name = f"y{k}_{d}"
                rindex.append(Index.var(name))
                loops.append((name, s))
        return Section(buf, index, rindex, loops)
    # pointwise: the leading dims cover the outer loops, the rest become this section's loops
    index, loops, j = [], [], 0
    for d, s in enumerate(sizes):
        if s == 1:
            index.append(Index())
        elif j < len(outer):
            if s != outer[j]:
                return None
            index.append(Index.var(ovars[j]))
            j += 1
        else:
            name = f"y{k}_{d}"
            index.append(Index.var(name))
            loops.append((name, s))
    if j != len(outer):
        return None
    return Section(buf, index, None, loops)


class SchedulerNode:
    def __init__(self, buf, pos):
        self.buf = buf
        self.pos = pos
        self.is_extern = buf.is_extern
        if self.is_extern:
            self.reads = {v.buffer.name for v in buf.input_views()} if hasattr(buf, "input_views") else \
                {buf.kernel.name}
        else:
            n = len(buf.ranges())
            idx = [Index.var(f"_i{i}") for i in range(n)]
            ridx = [Index.var(f"_r{i}") for i in range(len(buf.reduction_ranges()))]
            # the loads once, over placeholder loop variables; a section substitutes its own (`reads_at`)
            self.canonical_reads = body_reads(buf, idx, ridx)
            self.reads = {name for name, _ in self.canonical_reads}

    def reads_at(self, section):
        """The node's loads with the loop variables of `section` substituted for the placeholders."""
        sub = {f"_i{d}": ix for d, ix in enumerate(section.index)}
        sub.update({f"_r{d}": ix for d, ix in enumerate(section.rindex or ())})
        out = []
        for name, index in self.canonical_reads:
            new = Index(None, index.const)
            for v, c in index.terms.items():
                new = new + (sub[v] * c if v in sub else Index({v: c}))
            out.append((name, new))
        return out


class FusedGroup:
    def __init__(self, nodes, outer, sections):
        self.nodes = nodes           # SchedulerNodes in dependency order
        self.outer = outer           # the outer loop sizes (non-1)
        self.sections = sections     # a Section per node, or None for an extern
        self.pos = min(n.pos for n in nodes)

    @property
    def is_extern(self):
        return self.nodes[0].is_extern

    def names(self):
        names = self.__dict__.get("_names")
        if names is None:
            names = self._names = frozenset(n.buf.name for n in self.nodes)
        return names

    def reads(self):
        """Buffers the group reads that other groups produce (or the graph's inputs). Cached: a group's nodes
        never change (fusion makes a new group)."""
        reads = self.__dict__.get("_reads")
        if reads is None:
            out = set()
            for n in self.nodes:
                out |= n.reads
            reads = self._reads = frozenset(out - self.names())
        return reads


class Scheduler:
    def __init__(self, buffers, nbytes_of, output_names=()):
        """buffers: computed and extern buffers in creation (topological) order."""
        self.nodes = [SchedulerNode(b, i) for i, b in enumerate(buffers)]
        # a write into a graph input's storage runs after every other reader of that input (its old value)
        for n in self.nodes:
            target = getattr(n.buf, "mutated_input", None)
            if target is not None:
                n.reads = n.reads | {m.buf.name for m in self.nodes if m is not n and target in m.reads}
        self.nbytes_of = nbytes_of
        self.output_names = set(output_names)
        self.groups = []
        self._facts_cache = {}
        for n in self.nodes:
            if n.is_extern:
                self.groups.append(FusedGroup([n], None, None))
            else:
                outer = _nonone(n.buf.ranges())
                self.groups.append(FusedGroup([n], outer, [make_section(n.buf, outer, 0)]))
        self.fuse()
        self.groups = self._topo_order(self.groups)
        for g in self.groups:          # number the sections as they will be emitted
            if not g.is_extern:
                g.sections = [make_section(n.buf, g.outer, k) for k, n in enumerate(g.nodes)]

    # ------------------------------------------------------------------ fusion
    def _producer_map(self, groups):
        prod = {}
        for g in groups:
            for n in g.nodes:
                prod[n.buf.name] = g
        return prod

    def fuse(self):
        for _ in range(MAX_ROUNDS):
            if not self._fuse_round():
                break

    def _candidates(self, groups):
        by_buf = {}
        prod = self._producer_map(groups)
        for g in groups:
            if g.is_extern:
                continue
            for name in g.reads():
                by_buf.setdefault(name, set()).add(g)
            for n in g.nodes:
                by_buf.setdefault(n.buf.name, set()).add(g)
        pairs = {}
        for name, gs in by_buf.items():
            gs = sorted(gs, key=lambda g: g.pos)
            if len(gs) > 32:          # a buffer read everywhere (an input): pair only neighbours
                gs_pairs = zip(gs, gs[1:])
            else:
                gs_pairs = ((a, b) for i, a in enumerate(gs) for b in gs[i + 1:])
            for a, b in gs_pairs:
                key = (id(a), id(b))
                pairs.setdefault(key, [a, b, 0])
                pairs[key][2] += heuristic_value(self.nbytes_of(name))
        del prod
        return sorted(pairs.values(), key=lambda p: (-p[2], abs(p[0].pos - p[1].pos)))

    def _fuse_round(self):
        groups = self.groups
        fused_any = False
        alive = {id(g): g for g in groups}
        self._build_edges(groups)
        for a, b, _score in self._candidates(groups):
            if id(a) not in alive or id(b) not in alive:
                continue
            merged = self._try_fuse(a, b, groups)
            if merged is None:
                continue
            del alive[id(a)], alive[id(b)]
            alive[id(merged)] = merged
            self._merge_edges(a, b, merged)
            fused_any = True
        self.groups = list(alive.values())
        return fused_any

    def _try_fuse(self, a, b, groups):
        if len(a.nodes) + len(b.nodes) > MAX_SECTIONS:
            return None
        if any(n.buf.is_serial() for g in (a, b) for n in g.nodes):
            return self._try_fuse_serial_epilogue(a, b)
        fixed = [g.outer for g in (a, b) if any(n.buf.is_reduction() for n in g.nodes)]
        if fixed and any(f != fixed[0] for f in fixed):
            return None
        outer = fixed[0] if fixed else min(a.outer, b.outer, key=len)
        nodes = sorted(a.nodes + b.nodes, key=lambda n: n.pos)
        if any(n.buf.mutated_input is not None and _nonone(n.buf.ranges()) != outer for n in nodes
               if not n.is_extern):
            return None          # an in-place write keeps its own loops (the same-element rule needs them shared)
        facts = []
        for n in nodes:
            f = self._facts(n, outer)
            if f is None:
                return None
            facts.append(f)
        if not self._legal(nodes, facts):
            return None
        if self._would_cycle(a, b):
            return None
        return FusedGroup(nodes, outer, [f[0] for f in facts])

    def _try_fuse_serial_epilogue(self, a, b):
        """A scatter's or scan's group and a pointwise group after it that reads what the first group wrote only at
        the element it stores (`scatter_add(...) * 2 + 1`, `cumsum(1) * 2`): one kernel with no outer loops, the
        pointwise sections looping over the output after the stores (when the scatter or scan splits an output dim
        over threads, the pointwise loops over that dim take the same range). Else None."""
        first, second = (a, b) if a.pos < b.pos else (b, a)
        if not first.nodes[0].buf.is_serial() or any(n.buf.is_serial() for n in first.nodes[1:]):
            return None
        size = first.nodes[0].buf.layout.size
        names = first.names()
        if not (second.reads() & names):
            return None
        for n in second.nodes:
            buf = n.buf
            if n.is_extern or buf.is_serial() or buf.is_reduction() or buf.mutated_input is not None or \
                    tuple(buf.ranges()) != tuple(size) or n.pos < first.nodes[0].pos:
                return None
            sec = make_section(buf, (), n.pos)
            for name, idx in n.reads_at(sec):
                if name in names and idx != self._buffer(first, name).layout.flat(sec.index):
                    return None        # another element of the scatter's output: it may not be written yet
        if self._would_cycle(a, b):
            return None
        nodes = sorted(a.nodes + b.nodes, key=lambda n: n.pos)
        return FusedGroup(nodes, (), [make_section(n.buf, (), n.pos) for n in nodes])

    @staticmethod
    def _buffer(group, name):
        return next(n.buf for n in group.nodes if n.buf.name == name)

    def _facts(self, node, outer):
        """What the legality check needs of `node` placed under `outer` loops, computed once per (node, outer):
        (its Section, the outer part / lowest / highest element of its stores or the exact store index of a
        permuted layout, its loads (name, outer part, lowest, highest, index, uses only its own loops)), or None
        if it does not fit `outer`. The section's own loop variables are named after the node's position
        (unique in any group; the final sections are renumbered after fusion)."""
        key = (node.pos, outer)
        cache = self._facts_cache
        if key in cache:
            return cache[key]
        s = make_section(node.buf, outer, node.pos)
        if s is None:
            cache[key] = None
            return None
        outer_vars = {f"x{i}" for i in range(len(outer))}
        st = s.buf.layout.flat(s.index)
        sizes = dict(s.loops)
        inner = [(v, c) for v, c in st.terms.items() if v not in outer_vars]
        if any(v not in sizes for v, _ in inner):
            store = False                     # stores through a loop that is not its own: never fusable
        else:
            lo = st.const + sum(c * (sizes[v] - 1) for v, c in inner if c < 0)
            hi = st.const + sum(c * (sizes[v] - 1) for v, c in inner if c > 0)
            outer_part = {v: c for v, c in st.terms.items() if v in outer_vars}
            store = (outer_part, lo, hi, None if s.buf.layout.is_contiguous() else st)
        own = {name for name, _ in s.loops}
        loads = []
        for name, idx in node.reads_at(s):
            o_part = {v: c for v, c in idx.terms.items() if v in outer_vars}
            rest = [(v, c) for v, c in idx.terms.items() if v not in outer_vars]
            local = all(v in own for v, _ in rest)
            rlo = idx.const + sum(c * (sizes[v] - 1) for v, c in rest if c < 0) if local else 0
            rhi = idx.const + sum(c * (sizes[v] - 1) for v, c in rest if c > 0) if local else 0
            loads.append((name, o_part, rlo, rhi, idx, local))
        cache[key] = (s, store, loads)
        return cache[key]

    def _legal(self, nodes, facts):
        """Every read of a buffer produced in the group is row-local and comes after its producer; an input the
        group writes in place is read only at the very element being written."""
        names = {n.buf.name for n in nodes}
        written = {n.buf.mutated_input: f[0].buf.layout.flat(f[0].index) for n, f in zip(nodes, facts)
                   if getattr(n.buf, "mutated_input", None) is not None}
        if written:
            seen = set()
            for node, (_, _, loads) in zip(nodes, facts):
                for name, _, _, _, idx, _ in loads:
                    if name in written and (idx != written[name] or name in seen):
                        return False      # another element, or read after the write in the kernel
                if getattr(node.buf, "mutated_input", None) is not None:
                    seen.add(node.buf.mutated_input)
        store = {}
        for node, (s, st, loads) in zip(nodes, facts):
            if st is False:
                return False
            store[s.buf.name] = st
            for name, o_part, rlo, rhi, idx, local in loads:
                if name not in store:
                    if name in names:
                        return False     # read before it is produced
                    continue
                s_part, slo, shi, exact = store[name]
                if exact is not None:        # a permuted (non-contiguous) producer: only the same element
                    if idx != exact:
                        return False
                    continue
                if o_part != s_part:
                    return False
                if not local:
                    return False          # an opaque (indirect) index or another section's loop
                if rlo < slo or rhi > shi:
                    return False
        return True

    # the dependency graph between the groups of a round, kept up to date as groups merge
    def _build_edges(self, groups):
        prod = self._producer_map(groups)
        self._succ = {id(g): set() for g in groups}
        self._pred = {id(g): set() for g in groups}
        for g in groups:
            for name in g.reads():
                p = prod.get(name)
                if p is not None and p is not g:
                    self._succ[id(p)].add(g)
                    self._pred[id(g)].add(p)

    def _merge_edges(self, a, b, m):
        succ, pred = self._succ, self._pred
        s = (succ.pop(id(a)) | succ.pop(id(b))) - {a, b}
        p = (pred.pop(id(a)) | pred.pop(id(b))) - {a, b}
        succ[id(m)], pred[id(m)] = s, p
        for g in s:
            pg = pred[id(g)]
            pg.discard(a)
            pg.discard(b)
            pg.add(m)
        for g in p:
            sg = succ[id(g)]
            sg.discard(a)
            sg.discard(b)
            sg.add(m)

    def _would_cycle(self, a, b):
        """True if a path from a to b (or b to a) passes through another group (a search over the round's
        dependency edges, which `_merge_edges` keeps current)."""
        succ = self._succ

        def reaches_via_other(src, dst):
            stack = [g for g in succ[id(src)] if g is not dst]
            seen = set()
            while stack:
                g = stack.pop()
                if id(g) in seen:
                    continue
                seen.add(id(g))
                for h in succ[id(g)]:
                    if h is dst:
                        return True
                    stack.append(h)
            return False
        return reaches_via_other(a, b) or reaches_via_other(b, a)

    def _topo_order(self, groups):
        prod = self._producer_map(groups)
        indeg = {id(g): 0 for g in groups}
        succ = {}
        for g in groups:
            deps = {id(prod[n]) for n in g.reads() if n in prod and prod[n] is not g}
            indeg[id(g)] = len(deps)
            for d in deps:
                succ.setdefault(d, []).append(g)
        import heapq
        ready = [(g.pos, id(g), g) for g in groups if indeg[id(g)] == 0]
        heapq.heapify(ready)
        order = []
        while ready:
            _, _, g = heapq.heappop(ready)
            order.append(g)
            for h in succ.get(id(g), ()):
                indeg[id(h)] -= 1
                if indeg[id(h)] == 0:
                    heapq.heappush(ready, (h.pos, id(h), h))
        if len(order) != len(groups):
            raise AssertionError("ember._inductor scheduler: the fused groups have a cycle")
        return order

    def kernel_groups(self):
        return [g for g in self.groups if not g.is_extern]


# ---------------------------------------------------------------------------- memory planning
def plan_memory(groups, buffers, keep, also=(), written_by=None):
    """Assign each computed buffer (and each extern result named in `also`: the matmuls and convolutions the C
    entry calls) a storage slot: {buffer name: slot name}. `written_by` maps an extern's name to buffers its call
    writes (convolution_backward's MultiOutputs): they are live from that call on. A buffer in `keep` (a graph output, or anything the wrapper hands
    out) gets its own slot; others reuse a slot of the same byte size whose previous occupant is dead. Returns
    (assignment, {slot: nbytes})."""
    first_write, last_read = {}, {}
    for step, g in enumerate(groups):
        for n in g.nodes:
            first_write.setdefault(n.buf.name, step)
            for w in (written_by or {}).get(n.buf.name, ()):
                first_write.setdefault(w, step)
            for r in n.reads:
                last_read[r] = step
    free = {}            # nbytes -> [(slot, free_from_step)]
    assign, slots = {}, {}
    by_name = {b.name: b for b in buffers}
    events = sorted(first_write.items(), key=lambda kv: kv[1])
    for name, step in events:
        b = by_name.get(name)
        if name in also:
            pass
        elif not isinstance(b, ComputedBuffer) or b.mutated_input is not None:
            continue                      # an extern's result, or a write into an input's storage
        nbytes = b.nbytes()
        slot = None
        if name not in keep:
            pool = free.get(nbytes, [])
            for i, (sname, free_from) in enumerate(pool):
                if free_from < step:
                    slot = sname
                    pool.pop(i)
                    break
        if slot is None:
            slot = f"slot{len(slots)}"
            slots[slot] = nbytes
        assign[name] = slot
        if name not in keep:
            free.setdefault(nbytes, []).append((slot, last_read.get(name, step)))
    return assign, slots
