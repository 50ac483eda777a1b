//! Unit tests of the actions whose semantics are easy to get wrong.
