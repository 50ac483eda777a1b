//! The NapiSkbCache model against a live TLC run on the current spec
//! (common::vs_tlc says what the two tests compare).

mod common;

model_vs_tlc_tests!(napi_cache, "NapiSkbCache", "napi", 2, 11);
