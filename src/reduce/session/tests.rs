//! Unit tests for the session reducer.
