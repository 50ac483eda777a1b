//! The version of ringlab's result documents (verify.json, kernel.json,
//! bench.json, `--json` output): every document names it, so a reader can
//! refuse one it does not know. docs/src/results.md describes the fields.

use serde::{Deserialize, Serialize};

/// Raised when a field changes meaning or goes away; new optional fields
/// keep the version.
pub const SCHEMA: &str = "ringlab/1";

/// The first two fields of every document.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Header {
    /// [`SCHEMA`] when written by this build.
    pub schema: String,
    /// Which document: verify, kernel-test, bench, diff, faults, probe, sim.
    pub document: String,
}

impl Header {
    pub fn new(document: &str) -> Header {
        Header { schema: SCHEMA.into(), document: document.into() }
    }

    /// An error naming the document if it is not of this schema.
    pub fn check(&self, what: &str) -> Result<(), String> {
        if self.schema != SCHEMA {
            return Err(format!("{what}: schema {:?}, this ringlab reads {SCHEMA:?}", self.schema));
        }
        Ok(())
    }
}

impl Default for Header {
    fn default() -> Header {
        Header::new("")
    }
}
