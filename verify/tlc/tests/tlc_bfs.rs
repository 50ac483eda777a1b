//! The model's breadth-first search against TLC's, run now on the current
//! spec: same distinct states, states generated, depth and outcome for
//! every ci model (or every config when there is no manifest). Needs java
//! and the TLC jar (`make deps`).

mod common;

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

use ringlab_model::replay::replay_checking;
use ringlab_model::tla::{parse_value, Vars};
use ringlab_model::xsk_ring::invariant;
use ringlab_model::{explore, ExploreOptions, ModelCfg, Outcome, State};
use ringlab_tlc::{RunOpts, Tlc, TlcResult, TraceState};

/// The configs to compare: the manifest's ci tier, else every .cfg.
fn configs() -> Vec<String> {
    match common::manifest_models() {
        Some(models) => models
            .into_iter()
            .filter(|m| m.tier == "ci")
            .map(|m| m.cfg)
            .collect(),
        None => {
            let mut names: Vec<String> = std::fs::read_dir(common::specs_dir().join("mc"))
                .unwrap()
                .filter_map(|e| {
                    let f = e.unwrap().file_name().to_string_lossy().to_string();
                    Some(
                        f.strip_prefix("MCXskRing_")?
                            .strip_suffix(".cfg")?
                            .to_string(),
                    )
                })
                .collect();
            names.sort();
            names
        }
    }
}

/// What TLC's run says, in the model's terms.
struct TlcRun {
    generated: Option<usize>,
    distinct: Option<usize>,
    depth: Option<usize>,
    /// "pass", "violation:Inv", "liveness", "deadlock" or "error".
    outcome: String,
    /// The error trace, when there is one.
    trace: Vec<State>,
}

fn model_state(s: &TraceState) -> Result<State, String> {
    let mut vars = Vars::new();
    for (name, value) in &s.vars {
        let v = parse_value(value).map_err(|e| format!("TLC's state {}, {name}: {e}", s.num))?;
        vars.insert(name.clone(), v);
    }
    State::from_tla(&vars).map_err(|e| format!("TLC's state {}: {e}", s.num))
}

fn tlc_run(r: &TlcResult) -> Result<TlcRun, String> {
    let outcome = match &r.outcome {
        ringlab_tlc::Outcome::Liveness(_) => "liveness".to_string(),
        o => o.label(),
    };
    Ok(TlcRun {
        generated: r.states_generated.map(|n| n as usize),
        distinct: r.distinct_states.map(|n| n as usize),
        depth: r.depth.map(|n| n as usize),
        outcome,
        trace: r.trace.iter().map(model_state).collect::<Result<_, _>>()?,
    })
}

/// TLC's error, or its trace as TLC prints it.
fn tlc_text(r: &TlcResult) -> String {
    if let ringlab_tlc::Outcome::Error(e) = &r.outcome {
        return e.clone();
    }
    let mut text = String::new();
    for s in &r.trace {
        text += &format!("State {}: <{}>\n", s.num, s.action);
        for (name, value) in &s.vars {
            text += &format!("/\\ {name} = {value}\n");
        }
    }
    text
}

/// Compare one config; the row to print, or what differs.
fn compare(tlc: &Tlc, name: &str) -> Result<String, String> {
    let path = common::cfg_path(name);
    let m = ModelCfg::from_file(&path).map_err(|e| e.to_string())?;
    let opts = ExploreOptions::from_model_cfg(&m)?;
    let dir = common::scratch(&format!("bfs-{name}"));
    let spec = common::specs_dir().join("XskRing.tla");
    let run_opts = RunOpts {
        workers: 1,
        metadir: dir.join("meta"),
        library: None,
        extra: Vec::new(),
    };
    let res = ringlab_tlc::run(tlc, &spec, &path, &[], &run_opts, &mut |_| {});
    let _ = std::fs::remove_dir_all(&dir);
    let res = res?;
    let tlc_secs = res.seconds;
    let text = tlc_text(&res);
    let tlc = tlc_run(&res)?;
    let r = explore(&m.config, &opts);
    let mut diffs = Vec::new();
    let mut differ = |what: &str, t: Option<usize>, model: usize| {
        if t != Some(model) {
            diffs.push(format!("{what}: TLC {t:?}, model {model}"));
        }
    };
    differ("distinct", tlc.distinct, r.distinct);
    if tlc.depth.is_some() {
        differ("depth", tlc.depth, r.depth);
    }
    match (tlc.outcome.as_str(), &r.outcome) {
        ("pass" | "liveness", Outcome::Pass) => {
            differ("generated", tlc.generated, r.generated);
            // A liveness counterexample is still a behaviour of the model.
            if !tlc.trace.is_empty() {
                replay_checking(&m.config, &tlc.trace, &[])
                    .map_err(|e| format!("TLC's trace: {e}"))?;
            }
        }
        ("deadlock", Outcome::Deadlock { .. }) => {}
        (
            v,
            Outcome::Violation {
                invariant: inv,
                trace,
            },
        ) if v == format!("violation:{inv}") => {
            differ("trace length", Some(tlc.trace.len()), trace.len());
            // TLC's counterexample is a behaviour of the model ending in
            // the same violation.
            let (name, holds) = invariant(inv).unwrap();
            replay_checking(&m.config, &tlc.trace, &[])
                .map_err(|e| format!("{name}: TLC's trace: {e}"))?;
            if tlc.trace.last().is_some_and(|s| holds(s, &m.config)) {
                diffs.push(format!("TLC's last state satisfies {name}"));
            }
        }
        (t, o) => diffs.push(format!("outcome: TLC {t}, model {}", o.summary())),
    }
    let row = format!(
        "{name:<18} TLC {:>7} distinct {:>8} generated depth {:>3} {:<26} {tlc_secs:>5.1}s | model {:>7} {:>8} depth {:>3} {:<26} {:.3}s",
        tlc.distinct.unwrap_or(0),
        tlc.generated.unwrap_or(0),
        tlc.depth.map_or("-".into(), |d| d.to_string()),
        tlc.outcome,
        r.distinct,
        r.generated,
        r.depth,
        r.outcome.summary(),
        r.elapsed.as_secs_f64(),
    );
    if diffs.is_empty() {
        Ok(row)
    } else {
        Err(format!("{row}\n    {}\n{text}", diffs.join("\n    ")))
    }
}

#[test]
fn model_bfs_matches_tlc() {
    let tlc = common::tlc();
    let names = configs();
    assert!(!names.is_empty());
    let next = AtomicUsize::new(0);
    let results = Mutex::new(Vec::new());
    std::thread::scope(|s| {
        for _ in 0..2 {
            s.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::SeqCst);
                let Some(name) = names.get(i) else { break };
                let r = compare(&tlc, name);
                results.lock().unwrap().push((i, r));
            });
        }
    });
    let mut results = results.into_inner().unwrap();
    results.sort_by_key(|(i, _)| *i);
    let mut failed = Vec::new();
    for (_, r) in &results {
        match r {
            Ok(row) => println!("{row}"),
            Err(e) => {
                println!("MISMATCH {e}");
                failed.push(e.lines().next().unwrap_or("").to_string());
            }
        }
    }
    assert!(
        failed.is_empty(),
        "model and TLC differ on:\n{}",
        failed.join("\n")
    );
}
