//! `ringlab repro`: reproducers of kernel bugs ringlab found, each held
//! against what the fix makes the kernel do. They can take the machine
//! down on a kernel without the fix, so they run only when told the
//! kernel may crash (the VM of `ringlab kernel-test` is told so).

use clap::{Args, Subcommand};
use serde::Serialize;

use ringlab_kernel::bpf::Redirect;
use ringlab_kernel::env::skip_reason;
use ringlab_kernel::repro::{rx_ring_missing, RxRingMissing};
use ringlab_model::schema::Header;

#[derive(Args, Debug)]
pub struct ReproArgs {
    #[command(subcommand)]
    pub bug: Bug,
    /// Run although a kernel without the fix crashes (NULL dereference in
    /// softirq): only in a VM or on a machine that may go down
    #[arg(long, global = true)]
    pub this_kernel_may_crash: bool,
}

#[derive(Subcommand, Debug)]
pub enum Bug {
    /// Frames redirected to a socket bound without an Rx ring
    /// (kernel/patches/xsk-rx-ring-check)
    RxRingMissing {
        /// Fill ring entries given first (0: the kernel crashes all the same)
        #[arg(long, default_value_t = 4)]
        fill: u32,
        /// Frames sent to the socket's queue
        #[arg(long, default_value_t = 8)]
        frames: u32,
        /// The helper the XDP program redirects with (xsk: every frame must
        /// take bpf_redirect_xsk()'s fallback)
        #[arg(long, value_enum, default_value_t = Redirect::Map)]
        redirect: Redirect,
    },
}

#[derive(Serialize)]
struct Out<'a> {
    #[serde(flatten)]
    header: Header,
    ok: bool,
    #[serde(flatten)]
    result: &'a RxRingMissing,
}

pub fn run(a: &ReproArgs) -> Result<bool, String> {
    let Bug::RxRingMissing { fill, frames, redirect } = a.bug;
    if !a.this_kernel_may_crash {
        return Err("repro rx-ring-missing: on a kernel without kernel/patches/xsk-rx-ring-check (6.12.117 and, as far as known, every kernel since 2020) the first frame NULL-dereferences in softirq and takes the machine down; run it in a VM (ringlab kernel-test does) or add --this-kernel-may-crash".into());
    }
    if frames == 0 {
        return Err("repro rx-ring-missing: --frames 0 sends nothing and tests nothing".into());
    }
    if let Some(why) = skip_reason() {
        return Err(format!("repro rx-ring-missing: cannot run here: {why}"));
    }
    let r = rx_ring_missing(fill, frames, redirect).map_err(|e| format!("repro rx-ring-missing: {e}"))?;
    let out = Out { header: Header::new("repro"), ok: r.ok(), result: &r };
    println!("{}", serde_json::to_string(&out).map_err(|e| e.to_string())?);
    for p in &r.problems {
        eprintln!("repro rx-ring-missing: {p}");
    }
    Ok(r.ok())
}
