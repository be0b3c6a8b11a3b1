"""torch/_inductor/ir.py's ExternKernel buffers, as ember's C entry passes them: the part every extern call plan
(convolution, pooling, attention) shares.

A plan holds `views` (operand name -> the BufferView it reads) and `writes` (result name -> the Buffer it writes);
the entry passes each distinct buffer's address once, the operands read first, then those written.
"""


class ExternPlan:
    """Base of ConvPlan, PoolPlan and AttentionPlan: the buffers an extern call's C statements use."""

    def buffer_names(self):
        """The buffers whose addresses the entry passes: the operands read, then those written, each once."""
        names = []
        for v in self.views.values():
            if v.buffer.name not in names:
                names.append(v.buffer.name)
        for b in self.writes.values():
            if b.name not in names:
                names.append(b.name)
        return names

    def written(self):
        return list(self.writes.values())
