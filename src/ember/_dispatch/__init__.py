"""Layer 2: dispatch keys, key sets and the dispatch-mode stack (c10/core/DispatchKey*.h)."""
