"""ember's code generator (torchgen in PyTorch): schema YAML -> committed `_generated/` modules."""
