//! The choice policy: one spec action drawn with weights from the actions
//! enabled now. Binds and frags keep the system fed, receives and
//! releases (of tokens the application holds) are the common steps;
//! closes and unbinds rare, so that they come with tokens out.

use ringlab_model::devmem::{Action, Bst, Mode, Niov, Sock, Tok};
use ringlab_model::rng::Rng;

use super::system::Devmem;

fn one_of<T: Copy>(rng: &mut Rng, xs: &[T]) -> Option<T> {
    (!xs.is_empty()).then(|| xs[rng.below(xs.len() as u32) as usize])
}

impl Devmem {
    /// A step drawn from `rng`; None if nothing is left to do (every
    /// socket closed, no binding bound).
    pub(crate) fn pick(&mut self, rng: &mut Rng) -> Option<Action> {
        let mut choices = self.choices(rng);
        if choices.iter().any(|(a, _)| *a == Action::Done) {
            return None;
        }
        while choices.is_empty() {
            // Only a rare close or unbind is left: draw again.
            choices = self.choices(rng);
        }
        let weights: Vec<u32> = choices.iter().map(|(_, w)| *w).collect();
        Some(choices[rng.weighted(&weights)].0)
    }

    /// A token for a release through s: mostly one the application holds
    /// through s, sometimes (array mode) one another socket of the
    /// binding received, sometimes any value of Toks.
    fn token_for(&self, s: Sock, rng: &mut Rng) -> Tok {
        let app = &self.app;
        let own: Vec<Tok> = app.held(s).into_iter().map(|(t, _)| t).collect();
        let others: Vec<Tok> = self
            .cfg
            .spec
            .socks_of(s.b)
            .into_iter()
            .filter(|&o| o != s)
            .flat_map(|o| app.held(o))
            .map(|(t, _)| t)
            .collect();
        let toks = self.cfg.spec.toks();
        match rng.below(10) {
            0..=6 if !own.is_empty() => one_of(rng, &own).unwrap(),
            7 if !others.is_empty() => one_of(rng, &others).unwrap(),
            _ => rng.below(toks),
        }
    }

    /// A token_count: mostly 1, sometimes up to MaxCount.
    fn count(&self, rng: &mut Rng) -> u32 {
        let max = self.cfg.spec.max_count;
        if rng.chance(3, 4) {
            1
        } else {
            rng.one_to(max)
        }
    }

    /// The actions to draw from, with weights.
    fn choices(&mut self, rng: &mut Rng) -> Vec<(Action, u32)> {
        let spec = self.cfg.spec.clone();
        let uref_race = ringlab_mutant::on("mutant-zcrx-uref-race");
        let mut out = Vec::new();
        for b in spec.binding_ids() {
            let binding = self.bindings[usize::from(b)].clone();
            match binding.state() {
                Bst::Idle => {
                    for &m in &spec.modes {
                        let other = self
                            .bindings
                            .iter()
                            .any(|c| c.is_bound() && c.mode() != m);
                        if !other || ringlab_mutant::on("mutant-dm-mode-mix") {
                            out.push((Action::BindRx { b, m }, 32));
                        }
                    }
                }
                Bst::Bound if rng.chance(1, 16) => out.push((Action::Unbind { b }, 1)),
                Bst::Bound => {}
                Bst::Dead => {}
            }
        }
        for s in spec.socks() {
            let sock = self.socks[spec.sock_index(s)].clone();
            if !sock.is_open() {
                continue;
            }
            let b = &sock.binding;
            let mode = b.mode();
            let free = b.pool.list();
            if b.is_bound() {
                if let Some(n) = one_of(rng, &free) {
                    let n = Niov { b: s.b, i: n as u8 };
                    out.push((Action::RxFrag { s, n }, 48));
                }
            }
            if !sock.skbs().is_empty() && (mode == Mode::Xarray || b.is_bound()) {
                out.push((Action::RecvMsg { s, told: true }, 64));
                if ringlab_mutant::on("mutant-dm-cmsg-trunc") {
                    out.push((Action::RecvMsg { s, told: false }, 8));
                }
            }
            let pend = self.pend[spec.sock_index(s)];
            let holding = spec
                .socks_of(s.b)
                .into_iter()
                .any(|o| (o == s || mode == Mode::Array) && !self.app.held(o).is_empty());
            if uref_race && mode == Mode::Array {
                match pend {
                    Some(_) => out.push((Action::DontneedPut { s }, 32)),
                    None => {
                        let t = self.token_for(s, rng);
                        if b.niovs.get(t as usize).is_some_and(|n| n.uref_positive()) {
                            out.push((Action::DontneedRead { s, t }, 48));
                        }
                    }
                }
            } else {
                let t = self.token_for(s, rng);
                let c = self.count(rng);
                out.push((Action::Dontneed { s, t, c }, if holding { 48 } else { 4 }));
            }
            if pend.is_none() && rng.chance(1, 16) {
                out.push((Action::Close { s }, 1));
            }
        }
        if self.is_done() {
            out.push((Action::Done, 1));
        }
        out
    }
}
