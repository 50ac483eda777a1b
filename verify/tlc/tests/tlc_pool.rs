//! Pooled JVMs (pool.rs) against a JVM per model: the same outcome,
//! counts, depth and counterexample for models of two specs run one after
//! another in one JVM, and a JVM that dies mid-run failing only that run.

mod common;

use common::{specs_dir, tlc};
use ringlab_tlc::manifest::{cfg_properties, Manifest};
use ringlab_tlc::{run, Outcome, RunOpts, Tlc, TlcResult};

fn check(t: &Tlc, name: &str, n: usize) -> TlcResult {
    let man = Manifest::load(&specs_dir().join("manifest.json")).unwrap();
    let m = man.model(name).unwrap_or_else(|| panic!("no model {name}"));
    let (spec, cfg) = (specs_dir().join(&m.spec), specs_dir().join(&m.config));
    // Unique: the tests run at once.
    static RUNS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let k = RUNS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let metadir = std::env::temp_dir().join(format!("ringlab-pool-test-{}-{name}-{n}-{k}", std::process::id()));
    let opts = RunOpts { workers: 1, metadir, library: None, extra: vec!["-coverage".into(), "1".into()] };
    run(t, &spec, &cfg, &cfg_properties(&cfg), &opts, &mut |_| {}).unwrap_or_else(|e| panic!("{name}: {e}"))
}

/// What must not differ between the two ways of running TLC. A liveness
/// failure is found when TLC next checks liveness, which it does by the
/// clock: where it stops is not the same from run to run even in a JVM of
/// its own, so only its outcome is compared.
fn figures(r: &TlcResult) -> String {
    if matches!(r.outcome, Outcome::Liveness(_)) {
        return format!("{:?}", r.outcome);
    }
    let trace: Vec<String> = r.trace.iter().map(|s| format!("{} {:?}", s.action, s.vars)).collect();
    format!(
        "{:?} distinct {:?} generated {:?} depth {:?} loop {:?} actions {:?}\n{}",
        r.outcome,
        r.distinct_states,
        r.states_generated,
        r.depth,
        r.loop_end,
        r.actions.iter().map(|a| format!("{a:?}")).collect::<Vec<_>>(),
        trace.join("\n")
    )
}

#[test]
fn pooled_runs_match_a_jvm_each() {
    // A pass, a violation and a liveness failure of XskRing, a liveness
    // failure of XskCopyTx, then the first two again: their second runs
    // follow the others in the same JVM.
    let models = [
        "xsk-ring-fill",
        "xsk-ring-no-a",
        "xsk-ring-cons-no-publish",
        "xsk-copytx-cq-leak-live",
        "xsk-ring-fill",
        "xsk-ring-no-a",
    ];
    let fresh = tlc();
    let pooled = tlc().pooled().unwrap();
    for (i, name) in models.iter().enumerate() {
        let a = figures(&check(&fresh, name, i));
        let b = figures(&check(&pooled, name, i));
        assert_eq!(a, b, "{name}: a JVM of its own (left) and the pooled JVM (right) differ");
    }
    assert_eq!(pooled.pool.as_ref().unwrap().started(), 1, "one JVM ran every model");
}

#[test]
fn a_jvm_that_dies_fails_only_its_run() {
    let t = tlc().pooled().unwrap();
    let pool = t.pool.clone().unwrap();
    assert_eq!(check(&t, "xsk-ring-fill", 0).outcome.label(), "pass");
    let pids = pool.idle_pids();
    assert_eq!(pids.len(), 1);
    let specs = specs_dir();
    let meta = std::env::temp_dir().join(format!("ringlab-pool-test-{}-killed", std::process::id()));
    let args: Vec<String> = ["-tool", "-metadir", &meta.display().to_string(), "-config", "mc/MCXskRing_Tx4.cfg", "XskRing.tla"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    let mut killed = false;
    let r = pool.run(&specs, None, &args, &mut |_| {
        if !killed {
            // as the kernel's OOM killer would
            // Safety: kill(2) on the pid of a JVM this pool started.
            let r = unsafe { libc::kill(pids[0] as libc::pid_t, libc::SIGKILL) };
            assert_eq!(r, 0, "kill: {}", std::io::Error::last_os_error());
            killed = true;
        }
    });
    let _ = std::fs::remove_dir_all(&meta);
    let e = r.err().expect("a run whose JVM was killed is an error");
    assert!(e.contains("the pooled TLC JVM ended during this run") && e.contains("killed by a signal"), "{e}");
    // The next run starts a new JVM and is unharmed.
    assert_eq!(check(&t, "xsk-ring-no-a", 1).outcome.label(), "violation:NoOverwrite");
    assert_eq!(pool.started(), 2);
}

#[test]
fn a_bad_argument_is_named() {
    let t = tlc().pooled().unwrap();
    let e = t.pool.as_ref().unwrap().run(&specs_dir(), None, &["a\tb".to_string()], &mut |_| {}).err().unwrap();
    assert!(e.contains("`a\tb`") && e.contains("tab"), "{e}");
}
