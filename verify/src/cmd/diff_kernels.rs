//! `ringlab diff --kernels host,vm:6.12`: the same seeded campaign on the
//! running kernel and on 6.12.117 in the test VM, each held to the model
//! under its own profile, then the two kernels held to each other
//! (ringlab_kernel::kernels). Every difference is printed once per
//! explanation, on a shrunk scenario, both kernels' answers side by side,
//! with the rules that explain it and where each rule comes from. Each
//! kernel also judges every boundary descriptor alone (`ringlab diff
//! --boundary`, ringlab_kernel::boundary): both held to the model's
//! validator, and every descriptor the two judged differently shown.

use serde::Serialize;

use ringlab_kernel::boundary::{self, kernel_differences, BoundaryDoc, KernelDifference};
use ringlab_kernel::boundary_live;
use ringlab_kernel::campaign::{self, Opts};
use ringlab_kernel::compare::check;
use ringlab_kernel::env::release;
use ringlab_kernel::kernel_test::kernels as vm_side;
use ringlab_kernel::kernels::{compare, Comparison, Explained, Side};
use ringlab_model::afxdp::rules::{rule, value};
use ringlab_model::afxdp::{Obs, Op, Profile};
use ringlab_model::schema::Header;

/// The one pair this machine has.
pub const PAIR: &str = "host,vm:6.12";

#[derive(Serialize)]
struct KernelsDoc<'a> {
    #[serde(flatten)]
    header: Header,
    seed: u64,
    host: SideDoc,
    vm: SideDoc,
    comparison: &'a Comparison,
    boundary: BoundaryPair,
    ok: bool,
}

/// Both kernels' boundary descriptors (Err: why a side has none).
#[derive(Serialize)]
struct BoundaryPair {
    host: Result<BoundaryDoc, String>,
    vm: Result<BoundaryDoc, String>,
    differences: Vec<KernelDifference>,
}

impl BoundaryPair {
    /// Both sides ran every umem of boundary::CASES and agree with the model.
    fn ok(&self) -> bool {
        let whole = |d: &BoundaryDoc| d.ok && d.cases.len() == boundary::CASES.len();
        matches!((&self.host, &self.vm), (Ok(a), Ok(b)) if whole(a) && whole(b))
    }
}

#[derive(Serialize)]
struct SideDoc {
    kernel: String,
    profile: String,
    scenarios: u64,
    divergences: u64,
    seconds: f64,
}

pub fn run(pair: &str, scenarios: u64, seed: Option<u64>, json: bool) -> Result<bool, String> {
    if pair != PAIR {
        return Err(format!(
            "--kernels {pair}: the one pair this machine has is {PAIR} (the running kernel, and 6.12.117 as released in the test VM)"
        ));
    }
    let seed = super::diff::seed_or_clock(seed);
    let root = ringlab_model::paths::find_root()?;
    let host_profile = Profile::for_release(&release());
    eprintln!("diff --kernels: {scenarios} scenarios, seed {seed}, on {} (profile {}) and 6.12.117 in the VM (profile 6.12)", release(), host_profile.name);
    let opts = Opts { scenarios, seed, progress: false, out: None, stop_after: None, jobs: 0, observe: true };
    let host = campaign::run(opts).map_err(|e| format!("the host's campaign: {e}"))?;
    let host_boundary = boundary_live::run().map_err(|e| format!("the host's boundary descriptors: {e}"));
    eprintln!("diff --kernels: host done ({:.1} s); booting 6.12.117", host.seconds);
    let vm = vm_side::run(&root, scenarios, seed)?;
    let vm_profile = Profile::for_release("6.12");
    let c = compare(
        &Side { kernel: host.kernel.clone(), profile: host_profile, observed: &host.observed },
        &Side { kernel: vm.doc.kernel.clone(), profile: vm_profile, observed: &vm.observed },
    );
    // Each shrunk scenario run again on the host: its answer must be the
    // host profile's, as on every scenario of the campaign.
    let mut problems = Vec::new();
    for e in &c.explained {
        let s = e.shrunk.clone();
        match campaign::in_sandbox(move |env| check(env, &s, &host_profile)) {
            Ok(None) => {}
            Ok(Some(m)) => problems.push(format!("the shrunk scenario of {} differs from the host's model at observation {}", e.rules.join("+"), m.at)),
            Err(err) => problems.push(format!("the shrunk scenario of {} did not run on the host: {err}", e.rules.join("+"))),
        }
    }
    let differences = match (&host_boundary, &vm.boundary) {
        (Ok(a), Ok(b)) => kernel_differences(a, b),
        _ => Vec::new(),
    };
    let boundary = BoundaryPair { host: host_boundary, vm: vm.boundary, differences };
    let ok = c.ok() && problems.is_empty() && host.divergences.is_empty() && vm.doc.divergences == 0 && boundary.ok();
    let side = |kernel: &str, profile: &str, n: u64, d: u64, s: f64| SideDoc { kernel: kernel.into(), profile: profile.into(), scenarios: n, divergences: d, seconds: s };
    let doc = KernelsDoc {
        header: Header::new("diff-kernels"),
        seed,
        host: side(&host.kernel, host_profile.name, host.scenarios, host.divergences.len() as u64, host.seconds),
        vm: side(&vm.doc.kernel, &vm.doc.profile, vm.doc.scenarios, vm.doc.divergences, vm.boot_seconds),
        comparison: &c,
        boundary,
        ok,
    };
    if json {
        println!("{}", serde_json::to_string(&doc).map_err(|e| e.to_string())?);
    } else {
        print(&doc, &host_profile, &vm_profile, &problems);
    }
    Ok(ok)
}

fn print(d: &KernelsDoc, pa: &Profile, pb: &Profile, problems: &[String]) {
    let c = d.comparison;
    println!("diff --kernels {PAIR}, seed {}", d.seed);
    for (name, s) in [("host", &d.host), ("vm", &d.vm)] {
        println!("  {name:<4} {} (profile {}): {} scenarios, {} divergences from its model, {:.1} s", s.kernel, s.profile, s.scenarios, s.divergences, s.seconds);
    }
    let differ: u64 = c.explained.iter().map(|e| e.scenarios).sum::<u64>() + c.unexplained.len() as u64;
    println!(
        "  the two kernels: {} scenarios compared, {} answered the same, {differ} differently: {} explained, {} unexplained",
        c.scenarios,
        c.same,
        differ - c.unexplained.len() as u64,
        c.unexplained.len()
    );
    println!(
        "  boundary grid: {} descriptors (every field at and around its limits, chunk sizes {:?}), each kernel's accept/refuse its model's",
        c.boundary_descs, c.boundary_chunks
    );
    for e in &c.explained {
        explained(e, pa, pb, &d.host.kernel, &d.vm.kernel);
    }
    for u in &c.unexplained {
        println!("\nUNEXPLAINED scenario seed {:#x}, first difference at observation {}: {}", u.seed, u.at, u.rules.as_ref().err().map_or("", String::as_str));
        side_by_side(&u.scenario.ops, &u.a, &u.b, u.at, &d.host.kernel, &d.vm.kernel);
    }
    for p in c.problems.iter().chain(problems) {
        println!("PROBLEM {p}");
    }
    print_boundary(&d.boundary);
    println!("diff --kernels: {}", if d.ok { "every difference explained" } else { "FAILED" });
}

/// Both kernels' boundary tables side by side, or why a side has none.
fn print_boundary(b: &BoundaryPair) {
    println!();
    match (&b.host, &b.vm) {
        (Ok(h), Ok(v)) => print!("{}", boundary::side_by_side(h, v, "host", "vm")),
        (h, v) => {
            for (name, r) in [("host", h), ("vm", v)] {
                if let Err(e) = r {
                    println!("PROBLEM boundary descriptors on the {name}: {e}");
                }
            }
        }
    }
    println!("boundary: {}", if b.ok() { "both kernels agree with the model on every descriptor" } else { "FAILED" });
}

fn explained(e: &Explained, pa: &Profile, pb: &Profile, a: &str, b: &str) {
    println!(
        "\n{} ({} scenarios; shrunk from seed {:#x} to {} operations, first difference at observation {}):",
        e.rules.join(" + "),
        e.scenarios,
        e.seed,
        e.shrunk.ops.len(),
        e.at
    );
    for name in &e.rules {
        if let Some(r) = rule(name) {
            println!("  {name}: {} — {}: {}, {}: {}", r.what, pa.name, value(pa, name).unwrap_or_default(), pb.name, value(pb, name).unwrap_or_default());
            println!("    decided in {}; {}{}", r.function, r.provenance, r.commit.map(|c| format!("; commit {c}")).unwrap_or_default());
        }
    }
    side_by_side(&e.shrunk.ops, &e.a, &e.b, e.at, a, b);
}

/// Each operation with both kernels' observation of it (once when they
/// agree); `*` marks those that differ, the last row is the rings at the
/// end.
fn side_by_side(ops: &[Op], a: &[Obs], b: &[Obs], at: usize, ka: &str, kb: &str) {
    for (i, (oa, ob)) in a.iter().zip(b).enumerate() {
        let op = ops.get(i).map_or_else(|| "(the rings at the end)".to_string(), |o| format!("{o:?}"));
        if oa == ob {
            println!("    {i:>3}  {op}\n           both: {oa:?}");
        } else {
            let mark = if i == at { "*>" } else { "* " };
            println!("  {mark}{i:>3}  {op}\n           {ka}: {oa:?}\n           {kb}: {ob:?}");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ringlab_kernel::boundary::{compare, model_verdict, seen_as_modelled, Case, CaseResult, CASES};

    /// A case's result from a kernel that judges as the model does.
    fn agreeing(case: &Case) -> CaseResult {
        compare(case, Ok(()), &seen_as_modelled(case).unwrap(), model_verdict)
    }

    fn pair(host: Result<BoundaryDoc, String>, vm: Result<BoundaryDoc, String>) -> BoundaryPair {
        BoundaryPair { host, vm, differences: Vec::new() }
    }

    #[test]
    fn each_side_must_hold_every_umem_and_agree() {
        let whole = BoundaryDoc::of("k".into(), CASES.iter().map(agreeing).collect());
        assert!(whole.ok);
        assert!(pair(Ok(whole.clone()), Ok(whole.clone())).ok());
        // A side that ran fewer umems agrees with the model on those it ran.
        let short = BoundaryDoc::of("k".into(), CASES[..1].iter().map(agreeing).collect());
        assert!(short.ok);
        assert!(!pair(Ok(whole.clone()), Ok(short.clone())).ok(), "the vm ran one umem of {}", CASES.len());
        assert!(!pair(Ok(short), Ok(whole.clone())).ok(), "the host ran one umem of {}", CASES.len());
        assert!(!pair(Ok(whole), Err("the guest printed no JSON".into())).ok());
    }
}
