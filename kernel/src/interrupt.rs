//! SIGINT and SIGTERM remove every namespace this process created before it
//! exits (with 130 and 143, as the signal would). signal-hook's handler
//! wakes a watcher thread, which runs `ip netns del` for each and exits.

use std::io;
use std::process::Command;
use std::sync::{Mutex, MutexGuard, OnceLock};

use signal_hook::consts::{SIGINT, SIGTERM};
use signal_hook::iterator::Signals;

static NAMES: Mutex<Vec<String>> = Mutex::new(Vec::new());
static WATCHER: OnceLock<Result<(), String>> = OnceLock::new();

fn names() -> MutexGuard<'static, Vec<String>> {
    NAMES.lock().unwrap_or_else(|p| p.into_inner())
}

/// Starts the watcher, once per process.
pub fn install() -> io::Result<()> {
    WATCHER.get_or_init(|| watch().map_err(|e| e.to_string())).clone().map_err(io::Error::other)
}

fn watch() -> io::Result<()> {
    let mut signals = Signals::new([SIGINT, SIGTERM])?;
    std::thread::Builder::new().name("ringlab-signals".into()).spawn(move || {
        let Some(sig) = signals.forever().next() else { return };
        let what = if sig == SIGINT { "SIGINT" } else { "SIGTERM" };
        for ns in names().iter() {
            let _ = Command::new("ip").args(["netns", "del", ns]).status();
            eprintln!("ringlab: {what}; removed netns {ns}");
        }
        std::process::exit(128 + sig);
    })?;
    Ok(())
}

pub fn register(ns: &str) {
    names().push(ns.to_string());
}

pub fn unregister(ns: &str) {
    names().retain(|n| n != ns);
}
