"""ember.utils: helpers outside the core (checkpoint, ...)."""
