//! The one harness every protocol runs on.
