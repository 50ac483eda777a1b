//! Named network namespaces as iproute2 keeps them: a file under
//! /run/netns with the namespace bind-mounted on it, so `ip netns list`
//! shows ours and `ip netns exec` enters them. Made with unshare(2) on a
//! thread of its own, entered with setns(2), removed by unmounting.

use std::fs::{self, File};
use std::io;
use std::path::{Path, PathBuf};

use nix::mount::{mount, umount2, MntFlags, MsFlags};
use nix::sched::{setns, unshare, CloneFlags};

use crate::sandbox::Error;

const DIR: &str = "/run/netns";

fn path(name: &str) -> PathBuf {
    Path::new(DIR).join(name)
}

fn sys<'a>(call: &'static str, path: &'a Path) -> impl FnOnce(nix::Error) -> Error + 'a {
    move |e| Error::Syscall { call, path: path.into(), source: io::Error::from(e) }
}

/// `ip netns add NAME`.
pub fn add(name: &str) -> Result<(), Error> {
    share_dir()?;
    let file = path(name);
    File::options()
        .write(true)
        .create_new(true)
        .open(&file)
        .map_err(|source| Error::Syscall { call: "create", path: file.clone(), source })?;
    // unshare(2) moves its caller: a thread that ends once the namespace
    // is mounted.
    let made = on_thread(|| {
        unshare(CloneFlags::CLONE_NEWNET).map_err(sys("unshare(CLONE_NEWNET) for", &file))?;
        let own = Path::new("/proc/thread-self/ns/net");
        mount(Some(own), &file, None::<&str>, MsFlags::MS_BIND, None::<&str>).map_err(sys("bind mount on", &file))
    });
    if made.is_err() {
        let _ = fs::remove_file(&file);
    }
    made
}

/// /run/netns as a shared mount, so that namespaces mounted later appear in
/// every mount namespace (`ip netns add` does the same).
fn share_dir() -> Result<(), Error> {
    let dir = Path::new(DIR);
    fs::create_dir_all(dir).map_err(|source| Error::Syscall { call: "mkdir", path: dir.into(), source })?;
    let shared = || mount(None::<&str>, dir, Some("none"), MsFlags::MS_SHARED | MsFlags::MS_REC, None::<&str>);
    match shared() {
        Err(nix::Error::EINVAL) => {
            // Not a mount point yet: bind it on itself first.
            mount(Some(dir), dir, Some("none"), MsFlags::MS_BIND | MsFlags::MS_REC, None::<&str>)
                .map_err(sys("bind mount on", dir))?;
            shared().map_err(sys("make-shared", dir))
        }
        r => r.map_err(sys("make-shared", dir)),
    }
}

/// Runs `f` on a fresh thread inside namespace `name`.
pub fn run_in<T: Send>(name: &str, f: impl FnOnce() -> Result<T, Error> + Send) -> Result<T, Error> {
    on_thread(|| {
        enter(name)?;
        f()
    })
}

fn on_thread<T: Send>(f: impl FnOnce() -> T + Send) -> T {
    std::thread::scope(|s| s.spawn(f).join().unwrap_or_else(|p| std::panic::resume_unwind(p)))
}

/// Moves the calling thread into namespace `name` (setns(2) acts per thread).
pub fn enter(name: &str) -> Result<(), Error> {
    let file = path(name);
    let f = File::open(&file).map_err(|source| Error::Syscall { call: "open", path: file.clone(), source })?;
    setns(f, CloneFlags::CLONE_NEWNET).map_err(sys("setns(CLONE_NEWNET) to", &file))
}

/// `ip netns del NAME`: the namespace goes once no thread is in it and no
/// socket holds it, and its interfaces with it.
pub fn remove(name: &str) -> Result<(), Error> {
    let file = path(name);
    let _ = umount2(&file, MntFlags::MNT_DETACH);
    fs::remove_file(&file).map_err(|source| Error::Syscall { call: "unlink", path: file, source })
}

/// The named namespaces there are.
pub fn list() -> Vec<String> {
    let Ok(dir) = fs::read_dir(DIR) else { return Vec::new() };
    dir.filter_map(|e| e.ok()?.file_name().into_string().ok()).collect()
}
