"""The helpers the backward formulas of native/derivatives/<family>.yaml call (torch's
torch/csrc/autograd/FunctionsManual.cpp), one module per op family; shared helpers in _common.py.
The generated autograd modules import each name explicitly from its family module."""
