//! The seeded deterministic scheduler: one thread, one spec action per
//! step, drawn with weights from the actions enabled now by a generator
//! seeded from the config, so a seed replays a run exactly. After every
//! step the concrete checks and every spec invariant run (see
//! [`super::invariants`]); the first to break stops the run with the seed,
//! the step and the action. OwnTokensOnly is watched, not enforced: the
//! report tells the step it first broke (array mode gives it up).

use std::collections::BTreeMap;
use std::panic::{self, AssertUnwindSafe};

use ringlab_model::devmem::{Action, Bst, Mode, Niov, Sock, Tok};

use super::config::DevmemConfig;
use super::cost::Cost;
use super::invariants::{self, Violation};
use super::system::Devmem;
pub use crate::copy_tx::sched::Failure;
use crate::xsk_ring::outcome::panic_message;
use ringlab_model::rng::Rng;

/// What a clean run did.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Report {
    pub seed: u64,
    pub mode: String,
    pub steps: u64,
    /// Invariant checks made (each covers every checked invariant).
    pub checks: u64,
    /// Steps of each action.
    pub actions: BTreeMap<&'static str, u64>,
    /// The step at which a socket first released a token another received
    /// (OwnTokensOnly broke), if one did.
    pub own_tokens_broken_at: Option<u64>,
    pub cost: Cost,
}

/// The deterministic simulation of a devmem system.
#[derive(Debug)]
pub struct Sched {
    pub sys: Devmem,
    rng: Rng,
    step: u64,
    checks: u64,
    actions: BTreeMap<&'static str, u64>,
    own_tokens_broken_at: Option<u64>,
}

impl Sched {
    pub fn new(cfg: DevmemConfig) -> Result<Sched, String> {
        let rng = Rng::new(cfg.seed);
        Ok(Sched::with(Devmem::new(cfg)?, rng))
    }

    /// A scheduler over a system as it is (the real-thread runner's, to
    /// drain it), its generator seeded from `seed`.
    pub fn over(sys: Devmem, seed: u64) -> Sched {
        Sched::with(sys, Rng::new(seed))
    }

    fn with(sys: Devmem, rng: Rng) -> Sched {
        Sched {
            sys,
            rng,
            step: 0,
            checks: 0,
            actions: BTreeMap::new(),
            own_tokens_broken_at: None,
        }
    }

    pub fn steps(&self) -> u64 {
        self.step
    }

    fn pick<T: Copy>(&mut self, xs: &[T]) -> Option<T> {
        (!xs.is_empty()).then(|| xs[self.rng.below(xs.len() as u32) as usize])
    }

    /// A token for a release through s: mostly one the application holds
    /// through s, sometimes (array mode) one another socket of the
    /// binding received, sometimes any value of Toks.
    fn token_for(&mut self, s: Sock) -> Tok {
        let app = &self.sys.app;
        let own: Vec<Tok> = app.held(s).into_iter().map(|(t, _)| t).collect();
        let others: Vec<Tok> = self
            .sys
            .cfg
            .spec
            .socks_of(s.b)
            .into_iter()
            .filter(|&o| o != s)
            .flat_map(|o| app.held(o))
            .map(|(t, _)| t)
            .collect();
        let toks = self.sys.cfg.spec.toks();
        match self.rng.below(10) {
            0..=6 if !own.is_empty() => self.pick(&own).unwrap(),
            7 if !others.is_empty() => self.pick(&others).unwrap(),
            _ => self.rng.below(toks),
        }
    }

    /// A token_count: mostly 1, sometimes up to MaxCount.
    fn count(&mut self) -> u32 {
        let max = self.sys.cfg.spec.max_count;
        if self.rng.chance(3, 4) {
            1
        } else {
            self.rng.one_to(max)
        }
    }

    /// The actions to draw from, with weights: binds and frags keep the
    /// system fed, receives and releases (of tokens the application holds)
    /// are the common steps; closes and unbinds rare, so that they come
    /// with tokens out.
    fn choices(&mut self) -> Vec<(Action, u32)> {
        let spec = self.sys.cfg.spec.clone();
        let uref_race = cfg!(feature = "mutant-zcrx-uref-race");
        let mut out = Vec::new();
        for b in spec.binding_ids() {
            let binding = self.sys.bindings[usize::from(b)].clone();
            match binding.state() {
                Bst::Idle => {
                    for &m in &spec.modes {
                        let other = self
                            .sys
                            .bindings
                            .iter()
                            .any(|c| c.is_bound() && c.mode() != m);
                        if !other || cfg!(feature = "mutant-dm-mode-mix") {
                            out.push((Action::BindRx { b, m }, 32));
                        }
                    }
                }
                Bst::Bound if self.rng.chance(1, 16) => out.push((Action::Unbind { b }, 1)),
                Bst::Bound => {}
                Bst::Dead => {}
            }
        }
        for s in spec.socks() {
            let sock = self.sys.socks[spec.sock_index(s)].clone();
            if !sock.is_open() {
                continue;
            }
            let b = &sock.binding;
            let mode = b.mode();
            let free = b.pool.list();
            if b.is_bound() {
                if let Some(n) = self.pick(&free) {
                    let n = Niov { b: s.b, i: n as u8 };
                    out.push((Action::RxFrag { s, n }, 48));
                }
            }
            if !sock.skbs().is_empty() && (mode == Mode::Xarray || b.is_bound()) {
                out.push((Action::RecvMsg { s, told: true }, 64));
                if cfg!(feature = "mutant-dm-cmsg-trunc") {
                    out.push((Action::RecvMsg { s, told: false }, 8));
                }
            }
            let pend = self.sys.pend[spec.sock_index(s)];
            let holding = spec
                .socks_of(s.b)
                .into_iter()
                .any(|o| (o == s || mode == Mode::Array) && !self.sys.app.held(o).is_empty());
            if uref_race && mode == Mode::Array {
                match pend {
                    Some(_) => out.push((Action::DontneedPut { s }, 32)),
                    None => {
                        let t = self.token_for(s);
                        if b.niovs.get(t as usize).is_some_and(|n| n.uref_positive()) {
                            out.push((Action::DontneedRead { s, t }, 48));
                        }
                    }
                }
            } else {
                let t = self.token_for(s);
                let c = self.count();
                out.push((Action::Dontneed { s, t, c }, if holding { 48 } else { 4 }));
            }
            if pend.is_none() && self.rng.chance(1, 16) {
                out.push((Action::Close { s }, 1));
            }
        }
        if self.sys.is_done() {
            out.push((Action::Done, 1));
        }
        out
    }

    fn failure(
        &self,
        action: Option<&Action>,
        invariant: Option<&'static str>,
        message: String,
    ) -> Failure {
        Failure {
            seed: self.sys.cfg.seed,
            step: self.step,
            action: action.map(|a| a.to_string()),
            invariant,
            message,
        }
    }

    /// One step: the action, then every check. A panic of the simulator's
    /// code (an assertion) or a disabled action is a failure too.
    pub fn apply(&mut self, a: &Action) -> Result<(), Failure> {
        self.step += 1;
        let sys = &mut self.sys;
        match panic::catch_unwind(AssertUnwindSafe(|| sys.step(a))) {
            Ok(Ok(())) => {}
            Ok(Err(d)) => {
                return Err(self.failure(
                    Some(a),
                    None,
                    format!("the scheduler chose a disabled step: {d}"),
                ))
            }
            Err(p) => {
                return Err(self.failure(Some(a), None, format!("panic: {}", panic_message(&*p))))
            }
        }
        *self.actions.entry(a.name()).or_default() += 1;
        self.checks += 1;
        if let Err(m) = invariants::concrete(&self.sys) {
            return Err(self.failure(Some(a), None, m));
        }
        match panic::catch_unwind(AssertUnwindSafe(|| invariants::check(&self.sys))) {
            Ok(Ok(st)) => {
                if self.own_tokens_broken_at.is_none() && !st.stolen.is_empty() {
                    self.own_tokens_broken_at = Some(self.step);
                }
                Ok(())
            }
            Ok(Err(Violation { invariant, detail })) => {
                Err(self.failure(Some(a), Some(invariant), detail))
            }
            Err(p) => Err(self.failure(
                Some(a),
                None,
                format!("panic in the checks: {}", panic_message(&*p)),
            )),
        }
    }

    /// A step drawn from the seed; None if nothing is left to do (every
    /// socket closed, no binding bound).
    pub fn step_random(&mut self) -> Result<Option<Action>, Failure> {
        let mut choices = self.choices();
        if choices.iter().any(|(a, _)| *a == Action::Done) {
            return Ok(None);
        }
        while choices.is_empty() {
            // Only a rare close or unbind is left: draw again.
            choices = self.choices();
        }
        let weights: Vec<u32> = choices.iter().map(|(_, w)| *w).collect();
        let a = choices[self.rng.weighted(&weights)].0;
        self.apply(&a)?;
        Ok(Some(a))
    }

    /// Drain to the end, every step still a checked spec step: finish
    /// pending releases, close every socket, unbind every binding; then
    /// every net_iov must be back in its pool with nothing on it.
    pub fn drain(&mut self) -> Result<(), Failure> {
        let spec = self.sys.cfg.spec.clone();
        for s in spec.socks() {
            if self.sys.pend[spec.sock_index(s)].is_some() {
                self.apply(&Action::DontneedPut { s })?;
            }
        }
        for s in spec.socks() {
            if self.sys.socks[spec.sock_index(s)].is_open() {
                self.apply(&Action::Close { s })?;
            }
        }
        for b in spec.binding_ids() {
            if self.sys.bindings[usize::from(b)].is_bound() {
                self.apply(&Action::Unbind { b })?;
            }
        }
        invariants::quiescent(&self.sys)
            .map_err(|m| self.failure(None, None, format!("not quiescent after the drain: {m}")))
    }

    pub fn report(&self) -> Report {
        let modes: Vec<&str> = self.sys.cfg.spec.modes.iter().map(|m| m.id()).collect();
        Report {
            seed: self.sys.cfg.seed,
            mode: modes.join("+"),
            steps: self.step,
            checks: self.checks,
            actions: self.actions.clone(),
            own_tokens_broken_at: self.own_tokens_broken_at,
            cost: self.sys.cost,
        }
    }

    /// Up to `steps` random steps, then [`Sched::drain`].
    pub fn run(&mut self, steps: u64) -> Result<Report, Failure> {
        for _ in 0..steps {
            if self.step_random()?.is_none() {
                break;
            }
        }
        self.drain()?;
        Ok(self.report())
    }
}

/// A deterministic run of `cfg` (its seed) for `steps` steps, then a drain.
pub fn run(cfg: DevmemConfig, steps: u64) -> Result<Report, Failure> {
    let seed = cfg.seed;
    Sched::new(cfg)
        .map_err(|m| Failure {
            seed,
            step: 0,
            action: None,
            invariant: None,
            message: m,
        })?
        .run(steps)
}
