"""torch._dynamo.backends: compiler backends (a backend takes a GraphModule and example inputs, returns a callable)."""
