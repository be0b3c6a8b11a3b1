"""ember.utils: helpers outside the core (safetensors, ...)."""
