//! A reference model held to TLC state for state: TLC's -dump read as
//! states, each a map from variable to its value as TLC prints it, set
//! against every state the model reaches; TLC's counterexamples run in
//! the model step by step.

use std::collections::{BTreeMap, HashSet, VecDeque};
use std::path::Path;

use ringlab_model::SpecMachine;
use ringlab_tlc::{RunOpts, Tlc, TlcResult};

/// A state as variable -> value, whitespace removed (TLC breaks long
/// values over lines; no string value of the specs has a space inside).
pub type Printed = BTreeMap<String, String>;

/// A value with its whitespace removed, and a value that is an interval
/// `a..b` written as the set it is: TLC prints a variable still holding
/// the interval Init gave it (NapiSkbCache's slab = Skbs) as `1..4`, and
/// the same set, once rebuilt, as `{1, 2, 3, 4}`; the two are one state.
pub fn squash(s: &str) -> String {
    let v: String = s.chars().filter(|c| !c.is_whitespace()).collect();
    let interval = v
        .split_once("..")
        .and_then(|(a, b)| Some((a.parse::<i64>().ok()?, b.parse::<i64>().ok()?)));
    match interval {
        Some((a, b)) => {
            let xs: Vec<String> = (a..=b).map(|x| x.to_string()).collect();
            format!("{{{}}}", xs.join(","))
        }
        None => v,
    }
}

/// The states of a TLC -dump file.
pub fn dump_states(text: &str) -> Vec<Printed> {
    let mut out = Vec::new();
    let mut cur: Option<Printed> = None;
    let mut var: Option<String> = None;
    for line in text.lines() {
        if line.starts_with("State ") && line.ends_with(':') {
            out.extend(cur.take());
            cur = Some(Printed::new());
            var = None;
        } else if let Some(rest) = line.strip_prefix("/\\ ") {
            let (name, value) = rest.split_once(" = ").expect("`/\\ var = value`");
            cur.as_mut().expect("a state").insert(name.to_string(), squash(value));
            var = Some(name.to_string());
        } else if let (Some(c), Some(v)) = (cur.as_mut(), var.as_ref()) {
            c.get_mut(v).unwrap().push_str(&squash(line));
        }
    }
    out.extend(cur);
    out
}

/// Every reachable state of `m`, and the successors computed (TLC's
/// "states generated": a stutter the spec allows among them).
pub fn reachable<M: SpecMachine>(m: &M) -> (Vec<M::State>, usize) {
    let init = m.init_states();
    let mut generated = init.len();
    let mut seen: HashSet<M::State> = init.iter().cloned().collect();
    let mut queue: VecDeque<M::State> = init.iter().cloned().collect();
    let mut all = init;
    while let Some(s) = queue.pop_front() {
        for (_, t) in m.successors(&s) {
            generated += 1;
            if seen.insert(t.clone()) {
                all.push(t.clone());
                queue.push_back(t);
            }
        }
    }
    (all, generated)
}

/// A passing model: TLC on one worker with -dump reaches exactly the
/// states `m` reaches (printed by `print`), with the same counts of
/// distinct states and states generated.
pub fn assert_reaches_tlcs_states<M: SpecMachine>(
    name: &str,
    m: &M,
    print: impl Fn(&M::State) -> Printed,
    tlc: &Tlc,
    spec: &Path,
    cfg: &Path,
    scratch: &str,
) {
    let dir = super::scratch(scratch);
    let dump = dir.join("states");
    let out = ringlab_tlc::run_args(
        tlc,
        &dir,
        [
            "-tool".as_ref(),
            "-workers".as_ref(),
            "1".as_ref(),
            "-dump".as_ref(),
            dump.as_os_str(),
            "-config".as_ref(),
            cfg.as_os_str(),
            spec.as_os_str(),
        ],
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let stdout = String::from_utf8_lossy(&out.stdout);
    let res: TlcResult = ringlab_tlc::Parser::parse_str(&stdout);
    assert_eq!(res.outcome.label(), "pass", "{name}: TLC says\n{stdout}");
    let text = std::fs::read_to_string(dir.join("states.dump")).unwrap();
    let _ = std::fs::remove_dir_all(&dir);
    let theirs: HashSet<Printed> = dump_states(&text).into_iter().collect();

    let (states, generated) = reachable(m);
    let ours: HashSet<Printed> = states.iter().map(&print).collect();
    assert_eq!(ours.len(), states.len(), "{name}: two states print alike");
    let only_ours: Vec<_> = ours.difference(&theirs).take(2).collect();
    let only_theirs: Vec<_> = theirs.difference(&ours).take(2).collect();
    assert!(
        only_ours.is_empty() && only_theirs.is_empty(),
        "{name}: model only {only_ours:?}\nTLC only {only_theirs:?}"
    );
    assert_eq!(res.distinct_states, Some(states.len() as u64), "{name}");
    assert_eq!(res.states_generated, Some(generated as u64), "{name}");
    println!("{name}: {} states, {generated} generated, as TLC", states.len());
}

/// A failing model: TLC's counterexample (one worker) is `expected`
/// ("violation:Inv"), starts in `m`'s initial state, goes from state to
/// state by `m`'s successors, and ends where `m` first violates Inv.
/// Returns the counterexample's length.
pub fn assert_counterexample_replays<M: SpecMachine>(
    name: &str,
    expected: &str,
    m: &M,
    print: impl Fn(&M::State) -> Printed,
    tlc: &Tlc,
    spec: &Path,
    cfg: &Path,
    scratch: &str,
) -> usize {
    let dir = super::scratch(scratch);
    let opts = RunOpts { workers: 1, metadir: dir.join("meta"), library: None, extra: Vec::new() };
    let res = ringlab_tlc::run(tlc, spec, cfg, &[], &opts, &mut |_| {});
    let _ = std::fs::remove_dir_all(&dir);
    let res = res.unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(res.outcome.label(), expected, "{name}");
    let theirs: Vec<Printed> =
        res.trace.iter().map(|t| t.vars.iter().map(|(k, v)| (k.clone(), squash(v))).collect()).collect();
    assert!(!theirs.is_empty(), "{name}: no trace");
    let mut s = m
        .init_states()
        .into_iter()
        .find(|s| print(s) == theirs[0])
        .unwrap_or_else(|| panic!("{name}: initial state"));
    for (i, want) in theirs.iter().enumerate().skip(1) {
        let (_, next) = m
            .successors(&s)
            .into_iter()
            .find(|(_, t)| print(t) == *want)
            .unwrap_or_else(|| panic!("{name}: TLC's state {} is no successor", i + 1));
        s = next;
    }
    let inv = expected.strip_prefix("violation:").expect("a violation");
    assert_eq!(m.first_violated(&s), Some(inv), "{name}");
    theirs.len()
}
