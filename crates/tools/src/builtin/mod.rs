//! orbit's built-in tools, each in its own module, and the default set.
