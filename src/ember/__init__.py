"""ember: PyTorch's architecture, rebuilt in readable Python."""
