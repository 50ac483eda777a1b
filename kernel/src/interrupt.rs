//! SIGINT and SIGTERM remove every namespace this process created before it
//! exits (with 130 and 143, as the signal would). signal-hook's handler
//! wakes a watcher thread, which removes them (no `ip` needed) and exits.

use std::sync::{Mutex, MutexGuard, OnceLock};

use signal_hook::consts::{SIGINT, SIGTERM};
use signal_hook::iterator::Signals;

use crate::netns;
use crate::sandbox::Error;

/// Our namespaces. Held while one is created, so that a signal meanwhile
/// waits and then finds it.
static NAMES: Mutex<Vec<String>> = Mutex::new(Vec::new());
static WATCHER: OnceLock<Result<(), String>> = OnceLock::new();
/// Process groups of the scripts we run (the VM pipeline): signalled in
/// turn, and waited for, so no kernel build or VM outlives us.
static GROUPS: Mutex<Vec<i32>> = Mutex::new(Vec::new());

fn names() -> MutexGuard<'static, Vec<String>> {
    NAMES.lock().unwrap_or_else(|p| p.into_inner())
}

/// Starts the watcher, once per process.
pub fn install() -> Result<(), Error> {
    WATCHER.get_or_init(|| watch().map_err(|e| e.to_string())).clone().map_err(Error::Signals)
}

fn watch() -> std::io::Result<()> {
    let mut signals = Signals::new([SIGINT, SIGTERM])?;
    std::thread::Builder::new().name("ringlab-signals".into()).spawn(move || {
        let Some(sig) = signals.forever().next() else { return };
        let what = if sig == SIGINT { "SIGINT" } else { "SIGTERM" };
        stop_groups(sig, what);
        let names = names();
        for ns in names.iter() {
            match netns::remove(ns) {
                Ok(()) => eprintln!("ringlab: {what}; removed netns {ns}"),
                Err(e) => eprintln!("ringlab: {what}; could not remove netns {ns}: {e}"),
            }
        }
        std::process::exit(128 + sig);
    })?;
    Ok(())
}

/// Passes the signal to every script's process group and waits up to ten
/// seconds for each to go.
fn stop_groups(sig: i32, what: &str) {
    let groups = GROUPS.lock().unwrap_or_else(|p| p.into_inner()).clone();
    for g in &groups {
        eprintln!("ringlab: {what}; stopping process group {g}");
        // Safety: kill(2) of a process group we started.
        unsafe { libc::kill(-g, sig) };
    }
    for g in groups {
        for _ in 0..100 {
            // Safety: signal 0 only asks whether the group still exists.
            if unsafe { libc::kill(-g, 0) } != 0 {
                break;
            }
            std::thread::sleep(std::time::Duration::from_millis(100));
        }
    }
}

/// Runs `cmd` in a process group of its own, which a SIGINT or SIGTERM of
/// ours reaches and waits for; returns its output.
pub fn output_in_group(cmd: &mut std::process::Command) -> std::io::Result<std::process::Output> {
    use std::os::unix::process::CommandExt;
    install().map_err(std::io::Error::other)?;
    let child = {
        let mut groups = GROUPS.lock().unwrap_or_else(|p| p.into_inner());
        let child = cmd.process_group(0).spawn()?;
        groups.push(child.id() as i32);
        child
    };
    let pid = child.id() as i32;
    let out = child.wait_with_output();
    GROUPS.lock().unwrap_or_else(|p| p.into_inner()).retain(|g| *g != pid);
    out
}

/// Runs `create` (which makes namespace `ns`) with no removal on a signal
/// in between; from its success on, a signal removes `ns`.
pub fn track<T>(ns: &str, create: impl FnOnce() -> Result<T, Error>) -> Result<T, Error> {
    let mut names = names();
    let r = create()?;
    names.push(ns.to_string());
    Ok(r)
}

/// Runs `remove` (which removes namespace `ns`) and forgets `ns`, with no
/// signal handled in between.
pub fn untrack<T>(ns: &str, remove: impl FnOnce() -> T) -> T {
    let mut names = names();
    names.retain(|n| n != ns);
    remove()
}
