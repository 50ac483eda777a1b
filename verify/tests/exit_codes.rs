//! How `ringlab` ends when a run would test nothing, when its reader goes
//! away, and when it is killed: each path gives a clear answer and an
//! exit code a script can act on (0 pass, 1 fell short, 2 bad usage,
//! 130/143 interrupted, SIGPIPE quietly).

use std::io::Read;
use std::os::unix::process::ExitStatusExt;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

fn ringlab() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_ringlab"));
    c.current_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/.."));
    c
}

fn run(args: &[&str]) -> Output {
    ringlab().args(args).output().unwrap()
}

fn text(o: &Output) -> String {
    format!("{}{}", String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr))
}

#[test]
fn a_count_of_zero_is_refused_unless_allowed() {
    for args in [
        &["diff", "--scenarios", "0"][..],
        &["faults", "--rounds", "0"],
        &["sim", "copy-tx", "--steps", "0"],
        &["sim", "ring", "--steps", "0"],
        &["sim", "devmem", "--steps", "0"],
        &["verify", "--diff-scenarios", "0"],
        &["kernel-test", "--scenarios", "0"],
        &["kernel-test", "--fault-rounds", "0"],
    ] {
        let o = run(args);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", text(&o));
        assert!(text(&o).contains("0 tests nothing") && text(&o).contains("--allow-empty"), "{args:?}: {}", text(&o));
    }
    let o = run(&["sim", "copy-tx", "--steps", "0", "--seed", "1", "--allow-empty"]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
}

#[test]
fn a_kernel_mutant_that_would_not_be_tested_is_an_error() {
    let o = run(&["kernel-test", "--no-vm", "--mutant", "/nonexistent.patch"]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(text(&o).contains("--mutant /nonexistent.patch: no such patch file"), "{}", text(&o));
    let real = "kernel/patches/mutants/xsk-batch-xmit/batch-partial-no-cancel.patch";
    let o = run(&["kernel-test", "--no-vm", "--mutant", real]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(text(&o).contains("tested only in the VM"), "{}", text(&o));
}

#[test]
fn a_reader_that_goes_away_ends_the_run_quietly() {
    let mut c = ringlab()
        .args(["sim", "ring", "--seed", "1", "--steps", "200000", "--size", "64", "--trace", "/dev/stdout"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut first = [0u8; 64];
    c.stdout.take().unwrap().read_exact(&mut first).unwrap();
    // the pipe's read end is closed here
    let o = c.wait_with_output().unwrap();
    assert_eq!(o.status.signal(), Some(libc::SIGPIPE), "{:?} {}", o.status, String::from_utf8_lossy(&o.stderr));
    assert!(!String::from_utf8_lossy(&o.stderr).contains("panicked"), "{}", String::from_utf8_lossy(&o.stderr));
}

/// Root and AF_XDP are needed for the live runs below.
fn live_skip() -> bool {
    if let Some(why) = ringlab_kernel::env::skip_reason() {
        println!("SKIP: {why}");
        return true;
    }
    false
}

/// A SKIP is not a pass, unless asked: run as nobody (setpriv), which
/// cannot create namespaces.
#[test]
fn a_skip_fails_unless_allowed() {
    if live_skip() {
        return;
    }
    if Command::new("setpriv").arg("--help").output().is_err() {
        println!("SKIP: no setpriv to run as an unprivileged user");
        return;
    }
    // ringlab as nobody (uid 65534), from / (no repository around it)
    let as_nobody = |args: &[&str]| {
        Command::new("setpriv")
            .args(["--reuid=65534", "--regid=65534", "--clear-groups", env!("CARGO_BIN_EXE_ringlab")])
            .args(args)
            .current_dir("/")
            .output()
            .unwrap()
    };
    let diff = ["diff", "--scenarios", "1", "--seed", "1"];
    let o = as_nobody(&diff);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    assert!(text(&o).contains("SKIP: needs root") && text(&o).contains("not a pass"), "{}", text(&o));
    let o = as_nobody(&[&diff[..], &["--allow-empty"]].concat());
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    assert!(text(&o).contains("SKIP: needs root"), "{}", text(&o));
    // a benchmark that measured nothing is not a pass either
    let out = std::env::temp_dir().join(format!("ringlab-bench-nobody-{}", std::process::id()));
    std::fs::create_dir_all(&out).unwrap();
    std::fs::set_permissions(&out, std::os::unix::fs::PermissionsExt::from_mode(0o777)).unwrap();
    let out_s = out.display().to_string();
    let bench = ["bench", "--only", "live", "--quick", "--out", out_s.as_str()];
    let o = as_nobody(&bench);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    assert!(text(&o).contains("SKIP: needs root") && text(&o).contains("nothing was measured"), "{}", text(&o));
    let o = as_nobody(&[&bench[..], &["--allow-empty"]].concat());
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let _ = std::fs::remove_dir_all(&out);
}

/// The namespaces a process `pid` created (`rl<pid>n<k>`).
fn netns_of(pid: u32) -> Vec<String> {
    let prefix = format!("rl{pid}n");
    std::fs::read_dir("/run/netns")
        .map(|d| d.flatten().map(|e| e.file_name().to_string_lossy().into_owned()).filter(|n| n.starts_with(&prefix)).collect())
        .unwrap_or_default()
}

/// A long diff, killed by `sig` once its first namespace exists.
fn killed_diff(sig: i32) -> (std::process::ExitStatus, u32, String) {
    let c = ringlab()
        .args(["diff", "--scenarios", "100000", "--seed", "1", "--no-chain"])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let pid = c.id();
    let t = Instant::now();
    while netns_of(pid).is_empty() {
        assert!(t.elapsed() < Duration::from_secs(60), "no namespace of {pid} after 60 s");
        std::thread::sleep(Duration::from_millis(20));
    }
    // Safety: a plain kill(2) of our child.
    unsafe { libc::kill(pid as i32, sig) };
    let o = c.wait_with_output().unwrap();
    (o.status, pid, String::from_utf8_lossy(&o.stderr).into_owned())
}

#[test]
fn sigterm_and_sigint_clean_up_and_exit_as_the_signal() {
    if live_skip() {
        return;
    }
    for (sig, code) in [(libc::SIGTERM, 143), (libc::SIGINT, 130)] {
        let (status, pid, err) = killed_diff(sig);
        assert_eq!(status.code(), Some(code), "signal {sig}: {status:?}\n{err}");
        assert_eq!(netns_of(pid), Vec::<String>::new(), "signal {sig} left namespaces");
    }
}

/// SIGKILL leaves the namespace; the next run removes it, and only it.
#[test]
fn a_killed_runs_namespace_is_reaped_by_the_next_run() {
    if live_skip() {
        return;
    }
    let (status, pid, _) = killed_diff(libc::SIGKILL);
    assert_eq!(status.signal(), Some(libc::SIGKILL));
    let left = netns_of(pid);
    assert!(!left.is_empty(), "SIGKILL cannot clean up, yet nothing was left");
    let o = run(&["diff", "--scenarios", "1", "--seed", "1", "--no-chain"]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    for ns in &left {
        assert!(text(&o).contains(&format!("removed netns {ns}")), "{}", text(&o));
    }
    assert_eq!(netns_of(pid), Vec::<String>::new());
}

/// A replay recorded under a profile this model does not know is refused,
/// naming the file and the profile, instead of replaying under another.
#[test]
fn a_replay_under_an_unknown_profile_is_refused() {
    if live_skip() {
        return;
    }
    let r = ringlab_kernel::campaign::Replay {
        kernel: "6.12.117".into(),
        profile: "6.99-custom".into(),
        seed: 1,
        scenario: ringlab_kernel::gen::scenario(1),
        mismatch: None,
        batch: 0,
        budget: 32,
        redirect: ringlab_kernel::bpf::Redirect::Map,
    };
    let f = std::env::temp_dir().join(format!("ringlab-replay-{}.json", std::process::id()));
    std::fs::write(&f, serde_json::to_string(&r).unwrap()).unwrap();
    let o = run(&["diff", "--replay", f.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(text(&o).contains(f.to_str().unwrap()) && text(&o).contains("'6.99-custom'"), "{}", text(&o));
    let o = run(&["diff", "--replay", "/nonexistent.json"]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(text(&o).contains("/nonexistent.json"), "{}", text(&o));
    let _ = std::fs::remove_file(&f);
}

#[test]
fn an_actor_the_spec_has_not_is_refused_naming_the_ones_it_has() {
    let o = run(&["check", "xsk-ring-no-b", "--actor", "user"]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(text(&o).contains("XskRing.tla, whose actors are consumer, producer"), "{}", text(&o));
    let o = run(&["check", "xsk-copytx-cq-leak", "--actor", "kernel", "--json"]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(text(&o).contains("--json or --quiet prints none"), "{}", text(&o));
}
