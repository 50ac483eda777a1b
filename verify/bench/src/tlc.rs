//! Model checking: every model of the CI tier (with `--deep`, the deep tier
//! too) checked by TLC with 1 and then 2 workers: distinct states, states
//! per second and wall time (the JVM's start included, as `ringlab check`
//! pays it). Models that must fail are run on both worker counts too
//! (`ringlab check` runs them on one) and totalled apart. Nothing is saved:
//! counterexamples stay what `ringlab check` last wrote.

use std::path::Path;

use ringlab_tlc::{self as tlc, Tlc};

use super::table::{col, ratio, ChartSpec, Fmt, Table, Val};
use ringlab_tlc::manifest::{cfg_properties, Manifest, Model};

/// The time the CI set should take on two cores.
pub const CI_BUDGET_SECS: f64 = 600.0;

pub struct TlcOpts {
    pub deep: bool,
    /// Only a few small models (for a quick look).
    pub quick: bool,
}

/// One model on one worker count.
#[derive(Clone, Debug)]
struct Run {
    outcome: String,
    states: Option<u64>,
    secs: f64,
}

fn run_model(t: &Tlc, root: &Path, m: &Model, workers: usize) -> Run {
    let specs = root.join("specs");
    let cfg = specs.join(&m.config);
    let metadir = std::env::temp_dir().join(format!("ringlab-bench-{}-{}-{workers}", std::process::id(), m.name));
    let opts = tlc::RunOpts { workers, metadir, library: None, extra: Vec::new() };
    match tlc::run(t, &specs.join(&m.spec), &cfg, &cfg_properties(&cfg), &opts, &mut |_| {}) {
        Ok(r) => Run { outcome: r.outcome.label(), states: r.distinct_states, secs: r.seconds },
        Err(e) => Run { outcome: format!("error: {e}"), states: None, secs: 0.0 },
    }
}

/// The models to run: CI (and deep), must-pass first; in quick mode the
/// three smallest that must pass and the two smallest that must fail.
fn chosen<'a>(man: &'a Manifest, o: &TlcOpts) -> (Vec<&'a Model>, Vec<&'a Model>) {
    let tiers: Vec<&Model> = man.models.iter().filter(|m| m.tier == "ci" || o.deep).collect();
    let (mut pass, mut fail): (Vec<&Model>, Vec<&Model>) = tiers.into_iter().partition(|m| m.expected == "pass");
    if o.quick {
        for v in [&mut pass, &mut fail] {
            v.sort_by_key(|m| m.distinct_states.unwrap_or(u64::MAX));
        }
        pass.truncate(3);
        fail.truncate(2);
    }
    (pass, fail)
}

#[derive(Default)]
struct Sum {
    states: u64,
    s1: f64,
    s2: f64,
    n: usize,
}

pub fn bench(root: &Path, man: &Manifest, o: &TlcOpts, progress: bool) -> Table {
    let title = "model checking (TLC, 1 vs 2 workers; seconds include the JVM's start)";
    let t = match Tlc::locate() {
        Ok(t) => t,
        Err(e) => return Table::skipped("tlc", title, e),
    };
    let mut table = Table::new(
        "tlc",
        title,
        vec![
            col("model", "model", Fmt::Text),
            col("expected", "expected", Fmt::Text),
            col("states", "states", Fmt::Count),
            col("rate_1", "states/s 1w", Fmt::Rate),
            col("secs_1", "s 1w", Fmt::Secs),
            col("rate_2", "states/s 2w", Fmt::Rate),
            col("secs_2", "s 2w", Fmt::Secs),
            col("speedup", "1w/2w", Fmt::Ratio),
            col("check", "outcome", Fmt::Text),
        ],
    );
    let (pass, fail) = chosen(man, o);
    let mut total = Sum::default();
    let mut unexpected = Vec::new();
    let mut others = Vec::new();
    for (group, models) in [("must pass", &pass), ("must fail", &fail)] {
        let mut sum = Sum::default();
        for m in models.iter() {
            let r1 = run_model(&t, root, m, 1);
            let r2 = run_model(&t, root, m, 2);
            if progress {
                eprintln!("  tlc: {:<34} {:>5.1}s 1w {:>5.1}s 2w", m.name, r1.secs, r2.secs);
            }
            // With 2 workers TLC's search is breadth-first only roughly: a
            // model with two reachable violations may report the other one
            // first (why `ringlab check` runs these on one worker).
            let other = r1.outcome == m.expected
                && r2.outcome != m.expected
                && group == "must fail"
                && r2.outcome.split(':').next() == m.expected.split(':').next();
            let ok = r1.outcome == m.expected && r2.outcome == m.expected;
            let check = if ok {
                "ok".to_string()
            } else if other {
                others.push(format!("{}: {}", m.name, r2.outcome));
                "ok, 2w: other".to_string()
            } else {
                unexpected.push(format!("{}: {} / {} (expected {})", m.name, r1.outcome, r2.outcome, m.expected));
                "UNEXPECTED".to_string()
            };
            // The states of the 1-worker run: a failing model's count is
            // where TLC stopped, which more workers move.
            let states = r1.states;
            let rate = |r: &Run| states.zip(r.states).map(|(_, s)| s as f64 / r.secs.max(1e-9));
            table.push(vec![
                m.name.as_str().into(),
                m.expected.as_str().into(),
                states.map_or(Val::None, Val::from),
                rate(&r1).into(),
                r1.secs.into(),
                rate(&r2).into(),
                r2.secs.into(),
                ratio(Some(r1.secs), Some(r2.secs)).into(),
                check.into(),
            ]);
            sum.states += states.unwrap_or(0);
            sum.s1 += r1.secs;
            sum.s2 += r2.secs;
            sum.n += 1;
        }
        push_total(&mut table, &format!("total, {} {group}", sum.n), &sum);
        total.states += sum.states;
        total.s1 += sum.s1;
        total.s2 += sum.s2;
        total.n += sum.n;
    }
    let set = match (o.quick, o.deep) {
        (true, _) => "quick subset",
        (false, true) => "ci+deep set",
        (false, false) => "ci set",
    };
    push_total(&mut table, &format!("total, {set} ({})", total.n), &total);
    if !o.quick {
        let best = total.s1.min(total.s2);
        table.note(format!(
            "the {set}: {:.0}s on 1 worker, {:.0}s on 2 ({} the {:.0}-minute goal on two cores)",
            total.s1,
            total.s2,
            if best <= CI_BUDGET_SECS { "within" } else { "OVER" },
            CI_BUDGET_SECS / 60.0
        ));
    }
    table.note("states: distinct states of the 1-worker run (for a model that must fail, where TLC stopped)");
    if o.quick {
        table.note("quick: the three smallest models that must pass and the two smallest that must fail");
    }
    if !others.is_empty() {
        table.note(format!(
            "2w: other: on 2 workers TLC reached another violation first ({}), as it may; `ringlab check` runs models that must fail on one",
            others.join("; ")
        ));
    }
    for u in unexpected {
        table.note(format!("UNEXPECTED outcome: {u}"));
    }
    table.chart = Some(ChartSpec {
        label: "model",
        series: vec!["secs_1", "secs_2"],
        unit: "wall seconds per model, 1 and 2 workers (shorter is faster)".into(),
        skip_prefix: Some("total"),
    });
    table
}

fn push_total(t: &mut Table, label: &str, s: &Sum) {
    let rate = |secs: f64| (secs > 0.0).then(|| s.states as f64 / secs);
    t.push(vec![
        label.into(),
        "".into(),
        s.states.into(),
        rate(s.s1).into(),
        s.s1.into(),
        rate(s.s2).into(),
        s.s2.into(),
        ratio(Some(s.s1), Some(s.s2)).into(),
        "".into(),
    ]);
}
