"""Tensor indexing: __getitem__ / __setitem__ (torch/csrc/autograd/python_variable_indexing.cpp)."""
