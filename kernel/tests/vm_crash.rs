//! kernel/vm/boot.sh when the guest's kernel crashes, with a stand-in for
//! qemu that writes a console and then hangs or powers off: the run ends
//! in seconds, exit 3, naming the plan step, the first crash line and the
//! console; the Rust side reads the same crash. No VM is needed.

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::{Duration, Instant};

use ringlab_kernel::kernel_test::crash;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_path_buf()
}

/// A qemu-system-x86_64 that writes `console` to the first -serial file,
/// then does `then` (a shell command).
fn fake_qemu(dir: &Path, console: &str, then: &str) {
    let bin = dir.join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    std::fs::write(dir.join("console.txt"), console).unwrap();
    let script = format!(
        "#!/bin/sh\nout=\nwhile [ $# -gt 0 ]; do\n  case \"$1\" in -serial) [ -z \"$out\" ] && out=${{2#file:}}; shift ;; esac\n  shift\ndone\ncat {} > \"$out\"\n{then}\n",
        dir.join("console.txt").display()
    );
    let q = bin.join("qemu-system-x86_64");
    std::fs::write(&q, script).unwrap();
    std::fs::set_permissions(&q, std::fs::Permissions::from_mode(0o755)).unwrap();
}

/// boot.sh on stand-in files, with the stand-in qemu first on PATH.
fn boot_cmd(dir: &Path) -> Command {
    for f in ["bzImage", "initramfs"] {
        std::fs::write(dir.join(f), b"x").unwrap();
    }
    let path = format!("{}:{}", dir.join("bin").display(), std::env::var("PATH").unwrap_or_default());
    let mut c = Command::new("bash");
    c.arg(root().join("kernel/vm/boot.sh"))
        .args(["--kernel", &dir.join("bzImage").display().to_string()])
        .args(["--initramfs", &dir.join("initramfs").display().to_string()])
        .args(["--out", &dir.join("out").display().to_string(), "--timeout", "300"])
        .env("PATH", path)
        .env("RINGLAB_VM_CRASH_GRACE", "2");
    c
}

fn boot(dir: &Path) -> (Output, Duration) {
    let t = Instant::now();
    let o = boot_cmd(dir).output().unwrap();
    (o, t.elapsed())
}

fn scratch(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("ringlab-vm-crash-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

const OOPS: &str = "\
[    1.02] Run /init as init process
ringlab-vm: step probe start
ringlab-vm: probe rc=0 0.41 s
ringlab-vm: step diff-batch16-budget64 start
[    7.71] BUG: kernel NULL pointer dereference, address: 0000000000000000
[    7.71] Oops: Oops: 0002 [#1] SMP PTI
[    7.71] RIP: 0010:xsk_generic_xmit+0x1c5/0x4a0
";

fn assert_crash_reported(o: &Output, dir: &Path) {
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(3), "{err}");
    let console = dir.join("out/console.log");
    assert!(
        err.contains("the guest kernel crashed in plan step diff-batch16-budget64"),
        "{err}"
    );
    assert!(
        err.contains("BUG: kernel NULL pointer dereference"),
        "{err}"
    );
    assert!(err.contains(&console.display().to_string()), "{err}");
    let c = crash::find(&dir.join("out")).expect("the Rust side sees the same crash");
    assert_eq!(c.step, "diff-batch16-budget64");
    assert_eq!(c.lines[1], "Oops: Oops: 0002 [#1] SMP PTI");
}

/// The oops left the guest hung (an RCU stall, a mutex held): the host's
/// console watch stops it a grace period after the first crash line.
#[test]
fn a_guest_hung_after_an_oops_is_stopped_in_seconds() {
    let d = scratch("hang");
    fake_qemu(&d, OOPS, "exec sleep 600");
    let (o, t) = boot(&d);
    assert_crash_reported(&o, &d);
    assert!(t < Duration::from_secs(60), "took {t:?}");
    assert!(String::from_utf8_lossy(&o.stderr).contains("did not power off"));
    let _ = std::fs::remove_dir_all(&d);
}

/// The panic powered the VM off with no results: the crash is the
/// answer, not "the VM did not return results".
#[test]
fn a_guest_that_panicked_and_powered_off_reports_the_crash() {
    let d = scratch("panic");
    fake_qemu(
        &d,
        &format!("{OOPS}[    7.80] Kernel panic - not syncing: Fatal exception\n"),
        "exit 0",
    );
    let (o, _) = boot(&d);
    assert_crash_reported(&o, &d);
    assert!(!String::from_utf8_lossy(&o.stderr).contains("did not return results"));
    let _ = std::fs::remove_dir_all(&d);
}

/// No crash and no results stays the plain failure it is.
#[test]
fn no_crash_and_no_results_is_not_called_a_crash() {
    let d = scratch("quiet");
    fake_qemu(
        &d,
        "ringlab-vm: step probe start\nringlab-vm: probe rc=0 BUG: 0.4 s\n",
        "exit 0",
    );
    let (o, _) = boot(&d);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(err.contains("the VM did not return results"), "{err}");
    assert!(crash::find(&d.join("out")).is_none());
    let _ = std::fs::remove_dir_all(&d);
}

/// SIGTERM to the boot script stops the VM with it (exit 143): no qemu
/// is left running after an interrupted kernel-test.
#[test]
fn a_signal_stops_the_vm_too() {
    let d = scratch("signal");
    let pidfile = d.join("qemu.pid");
    fake_qemu(&d, "ringlab-vm: step probe start\n", &format!("echo $$ > {}\nexec sleep 600", pidfile.display()));
    let child = boot_cmd(&d).stderr(std::process::Stdio::piped()).spawn().unwrap();
    let t = Instant::now();
    while !pidfile.exists() || std::fs::read_to_string(&pidfile).unwrap().trim().is_empty() {
        assert!(t.elapsed() < Duration::from_secs(30), "the stand-in qemu never started");
        std::thread::sleep(Duration::from_millis(50));
    }
    let qemu: i32 = std::fs::read_to_string(&pidfile).unwrap().trim().parse().unwrap();
    // Safety: kill(2) of our child.
    unsafe { libc::kill(child.id() as i32, libc::SIGTERM) };
    let o = child.wait_with_output().unwrap();
    assert_eq!(o.status.code(), Some(143), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(t.elapsed() < Duration::from_secs(30));
    let mut gone = false;
    for _ in 0..50 {
        // Safety: signal 0 only asks whether the process exists.
        if unsafe { libc::kill(qemu, 0) } != 0 {
            gone = true;
            break;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    assert!(gone, "qemu ({qemu}) outlived the interrupted boot");
    let _ = std::fs::remove_dir_all(&d);
}
