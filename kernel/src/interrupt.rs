//! Ctrl-C removes every namespace this process created before it exits.
//! The SIGINT handler only writes a byte to a pipe (all it may safely do);
//! a watcher thread reads it, runs `ip netns del` for each registered name
//! and exits with 130.

use std::process::Command;
use std::sync::{Mutex, Once};

static NAMES: Mutex<Vec<String>> = Mutex::new(Vec::new());
static INSTALL: Once = Once::new();
static mut PIPE_WR: libc::c_int = -1;

extern "C" fn on_sigint(_: libc::c_int) {
    // Safety: PIPE_WR is set before the handler is installed; write(2) is
    // async-signal-safe.
    unsafe {
        let b = 1u8;
        libc::write(PIPE_WR, &b as *const u8 as *const libc::c_void, 1);
    }
}

pub fn install() {
    INSTALL.call_once(|| {
        let mut fds = [0; 2];
        // Safety: fds has room for two descriptors.
        if unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) } != 0 {
            return;
        }
        // Safety: written once, before the handler can run.
        unsafe { PIPE_WR = fds[1] };
        let rd = fds[0];
        std::thread::spawn(move || {
            let mut b = 0u8;
            // Safety: rd is our pipe's read end.
            let n = unsafe { libc::read(rd, &mut b as *mut u8 as *mut libc::c_void, 1) };
            if n == 1 {
                let names = NAMES.lock().map(|v| v.clone()).unwrap_or_default();
                for ns in names {
                    let _ = Command::new("ip").args(["netns", "del", &ns]).status();
                    eprintln!("ringlab: interrupted; removed netns {ns}");
                }
                std::process::exit(130);
            }
        });
        // Safety: a plain extern "C" handler.
        unsafe { libc::signal(libc::SIGINT, on_sigint as *const () as libc::sighandler_t) };
    });
}

pub fn register(ns: &str) {
    if let Ok(mut v) = NAMES.lock() {
        v.push(ns.to_string());
    }
}

pub fn unregister(ns: &str) {
    if let Ok(mut v) = NAMES.lock() {
        v.retain(|n| n != ns);
    }
}
