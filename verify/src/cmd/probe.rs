//! `ringlab probe`: what the running kernel offers ringlab (the batch
//! series' socket options, fault injection), as one JSON object.

use serde::Serialize;

use ringlab_kernel::probe::{probe, Probe};
use ringlab_model::schema::Header;

#[derive(Serialize)]
struct ProbeOut {
    #[serde(flatten)]
    header: Header,
    #[serde(flatten)]
    probe: Probe,
}

pub fn run() -> Result<bool, String> {
    let p = probe().map_err(|e| format!("probe: {e}"))?;
    let out = ProbeOut { header: Header::new("probe"), probe: p };
    println!("{}", serde_json::to_string(&out).map_err(|e| e.to_string())?);
    Ok(true)
}
