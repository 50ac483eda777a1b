//! Broken variants of the index arithmetic; each must be refuted with a
//! concrete counterexample.

use super::ring::{c, d, inv_and, le, on_all, umin, Branch, Builder, Pair, Ring, W};
use super::user_prod;
use super::{refuted, Entry};
use z3::ast::Bool;

/// `cp < cc + size` computed without wrapping at u32.
fn room_nonwrapping(q: &Ring) -> Bool {
    let (cp, cc, size) = (&q.prod.cached_prod, &q.prod.cached_cons, &q.size);
    cp.zero_ext(W).bvult(cc.zero_ext(W) + size.zero_ext(W))
}

/// Kernel reserve(1) with the room test done in unbounded arithmetic.
fn nonwrapping_nb_free(b: &mut Builder) -> Vec<Bool> {
    let r = Ring::any(b, Pair::KernelToUser);
    let (cached, mut refresh) = Branch::start(&r).split(room_nonwrapping(&r), "cached", "refresh");
    refresh.post.prod.cached_cons = r.consumer.clone();
    let refreshed_room = room_nonwrapping(&refresh.post);
    let (room_after, full) = refresh.split(refreshed_room, "room", "full");
    let mut bs = vec![cached, room_after, full];
    for p in &mut bs {
        if !p.took("full") {
            p.post.prod.cached_prod = &p.post.prod.cached_prod + c(1);
        }
    }
    b.show_branches(&r, &bs);
    on_all(b, &bs, |p| {
        // with wrapping arithmetic there is room iff cached_prod - cached_cons < size
        let exact = d(&r.prod.cached_prod, &p.post.prod.cached_cons).bvult(&r.size);
        let granted = Bool::from_bool(!p.took("full"));
        inv_and(&p.post, [granted.iff(&exact)])
    })
}

/// libxdp peek with availability taken as `cached_prod > cached_cons` and
/// refreshed as `producer > cached_cons`.
fn nonwrapping_nb_avail(b: &mut Builder) -> Vec<Bool> {
    let r = Ring::any(b, Pair::KernelToUser);
    let nb = b.var("nb");
    let avail = |q: &Ring| {
        let (cp, cc) = (&q.cons.cached_prod, &q.cons.cached_cons);
        cp.bvugt(cc).ite(&(cp - cc), &c(0))
    };
    let (mut refresh, cached) = Branch::start(&r).split(avail(&r).eq(c(0)), "refresh", "cached");
    refresh.post.cons.cached_prod = r.producer.clone();
    let mut bs = vec![cached, refresh];
    for p in &mut bs {
        let n = umin(&avail(&p.post), &nb);
        p.post.cons.cached_cons = &p.post.cons.cached_cons + &n;
        p.res = Some(n);
    }
    b.show_branches(&r, &bs);
    let published = d(&r.producer, &r.cons.cached_cons);
    on_all(b, &bs, |p| {
        let n = p.res();
        inv_and(
            &p.post,
            [
                le(&n, &published),
                n.eq(c(0))
                    .implies(Bool::or(&[nb.eq(c(0)), published.eq(c(0))])),
            ],
        )
    })
}

/// libxdp reserve that grants nb whenever anything at all is free, for a
/// request that fits the ring.
fn reserve_partial(b: &mut Builder) -> Vec<Bool> {
    let r = Ring::any(b, Pair::UserToKernel);
    let nb = b.var("nb");
    b.assume(le(&nb, &r.size));
    let bs: Vec<Branch> = user_prod::nb_free(&Branch::start(&r), &nb)
        .iter()
        .flat_map(|p| {
            let (mut ok, mut refused) = p.split(p.res().eq(c(0)).not(), "ok", "refused");
            ok.post.prod.cached_prod = &ok.post.prod.cached_prod + &nb;
            ok.res = Some(nb.clone());
            refused.res = Some(c(0));
            [ok, refused]
        })
        .collect();
    b.show_branches(&r, &bs);
    on_all(b, &bs, |p| {
        inv_and(
            &p.post,
            [le(&d(&p.post.prod.cached_prod, &r.consumer), &r.size)],
        )
    })
}

/// Kernel reserve(1) refreshing `cached_cons = consumer + nentries`.
fn cached_cons_offset(b: &mut Builder) -> Vec<Bool> {
    let r = Ring::any(b, Pair::KernelToUser);
    let free = |q: &Ring| q.size.bvsub(d(&q.prod.cached_prod, &q.prod.cached_cons));
    let (mut refresh, cached) = Branch::start(&r).split(free(&r).eq(c(0)), "refresh", "cached");
    refresh.post.prod.cached_cons = &r.consumer + &r.size;
    let bs: Vec<Branch> = [cached, refresh]
        .iter()
        .flat_map(|p| {
            let (mut ok, enospc) = p.split(free(&p.post).eq(c(0)).not(), "ok", "enospc");
            ok.post.prod.cached_prod = &ok.post.prod.cached_prod + c(1);
            [ok, enospc]
        })
        .collect();
    b.show_branches(&r, &bs);
    on_all(b, &bs, |p| {
        inv_and(
            &p.post,
            [le(&d(&p.post.prod.cached_prod, &r.consumer), &r.size)],
        )
    })
}

pub fn entries() -> Vec<Entry> {
    vec![
        refuted(
            "nonwrapping-nb-free",
            "kernel reserve with the room test cached_prod < cached_cons + nentries done without \
             wrapping at u32 overfills the ring once cached_prod has wrapped",
            Some("wrapping-add"),
            nonwrapping_nb_free,
        ),
        refuted(
            "nonwrapping-nb-avail",
            "libxdp peek taking availability from the unsigned test producer > cached_cons sees \
             an empty ring once producer has wrapped past 0",
            Some("wrapping-add"),
            nonwrapping_nb_avail,
        ),
        refuted(
            "reserve-partial",
            "libxdp reserve granting nb when only 0 < free < nb lets cached_prod pass \
             consumer + size",
            Some("reserve-partial"),
            reserve_partial,
        ),
        refuted(
            "cached-cons-offset",
            "kernel producer refreshing cached_cons = consumer + nentries (libxdp's offset) puts \
             its cached consumer ahead and overfills the ring",
            Some("cached-cons-offset"),
            cached_cons_offset,
        ),
    ]
}

/// Plain u32 re-evaluation of the counterexamples, independent of the z3 encoding.
#[cfg(test)]
mod tests {
    use super::super::{by_name, run, Outcome};
    use std::collections::HashMap;

    struct Cex(HashMap<String, u64>);

    impl Cex {
        fn of(name: &str) -> Cex {
            let r = run(&by_name(name).unwrap());
            match r.outcome {
                Outcome::Refuted { counterexample } => Cex(counterexample.into_iter().collect()),
                o => panic!("{name}: expected a counterexample, got {o:?}"),
            }
        }

        fn g(&self, n: &str) -> u32 {
            u32::try_from(self.0[n]).unwrap()
        }

        /// A reported post-state value must match the concrete one.
        fn post(&self, n: &str, v: u32) {
            if let Some(&got) = self.0.get(&format!("{n}'")) {
                assert_eq!(got, u64::from(v), "{n}'");
            }
        }
    }

    fn d(a: u32, b: u32) -> u32 {
        a.wrapping_sub(b)
    }

    /// The invariant; `pcc` is the producer's view of the consumer (offset removed).
    #[allow(clippy::too_many_arguments)]
    fn inv(s: u32, p: u32, c: u32, pcp: u32, pcc: u32, ccp: u32, ccc: u32) -> bool {
        s.is_power_of_two()
            && d(p, c) <= s
            && d(pcp, c) <= s
            && d(p, c) <= d(pcp, c)
            && d(c, pcc) <= d(pcp, pcc)
            && d(pcp, pcc) <= s
            && d(ccc, c) <= d(ccp, c)
            && d(ccp, c) <= d(p, c)
    }

    /// A ring state read from a counterexample.
    struct State {
        s: u32,
        p: u32,
        c: u32,
        pcp: u32,
        pcc: u32,
        ccp: u32,
        ccc: u32,
    }

    impl State {
        fn read(x: &Cex, pp: &str, cp: &str) -> State {
            State {
                s: x.g("size"),
                p: x.g("producer"),
                c: x.g("consumer"),
                pcp: x.g(&format!("{pp}.cached_prod")),
                pcc: x.g(&format!("{pp}.cached_cons")),
                ccp: x.g(&format!("{cp}.cached_prod")),
                ccc: x.g(&format!("{cp}.cached_cons")),
            }
        }

        fn inv(&self, user_prod: bool) -> bool {
            let pcc = if user_prod {
                self.pcc.wrapping_sub(self.s)
            } else {
                self.pcc
            };
            inv(self.s, self.p, self.c, self.pcp, pcc, self.ccp, self.ccc)
        }
    }

    #[test]
    fn nonwrapping_nb_free_overfills() {
        let x = Cex::of("nonwrapping-nb-free");
        let mut k = State::read(&x, "kp", "uc");
        assert!(k.inv(false), "pre-state must satisfy the invariant");
        let room = |cp: u32, cc: u32, s: u32| u64::from(cp) < u64::from(cc) + u64::from(s);
        let mut ok = room(k.pcp, k.pcc, k.s);
        if !ok {
            k.pcc = k.c;
            ok = room(k.pcp, k.pcc, k.s);
        }
        let exact = d(k.pcp, k.pcc) < k.s;
        if ok {
            k.pcp = k.pcp.wrapping_add(1);
        }
        x.post("kp.cached_prod", k.pcp);
        x.post("kp.cached_cons", k.pcc);
        assert!(!k.inv(false) || ok != exact);
    }

    #[test]
    fn nonwrapping_nb_avail_misses_entries() {
        let x = Cex::of("nonwrapping-nb-avail");
        let nb = x.g("nb");
        let mut k = State::read(&x, "kp", "uc");
        assert!(k.inv(false), "pre-state must satisfy the invariant");
        let published = d(k.p, k.ccc);
        // the mutant's `cp > cc ? cp - cc : 0`
        let avail = |cp: u32, cc: u32| cp.saturating_sub(cc);
        if avail(k.ccp, k.ccc) == 0 {
            k.ccp = k.p;
        }
        let n = avail(k.ccp, k.ccc).min(nb);
        k.ccc = k.ccc.wrapping_add(n);
        x.post("uc.cached_prod", k.ccp);
        x.post("uc.cached_cons", k.ccc);
        x.post("result", n);
        let lost = n == 0 && nb != 0 && published != 0;
        assert!(!k.inv(false) || n > published || lost);
    }

    #[test]
    fn reserve_partial_overfills() {
        let x = Cex::of("reserve-partial");
        let nb = x.g("nb");
        let mut k = State::read(&x, "up", "kc");
        assert!(k.inv(true), "pre-state must satisfy the invariant");
        assert!(nb <= k.s);
        if k.pcc.wrapping_sub(k.pcp) < nb {
            k.pcc = k.c.wrapping_add(k.s);
        }
        let free = k.pcc.wrapping_sub(k.pcp);
        assert!(0 < free && free < nb, "only part of the request is free");
        k.pcp = k.pcp.wrapping_add(nb);
        x.post("up.cached_prod", k.pcp);
        x.post("up.cached_cons", k.pcc);
        assert!(!k.inv(true));
        assert!(d(k.pcp, k.c) > k.s, "reserved beyond consumer + size");
    }

    #[test]
    fn cached_cons_offset_breaks_invariant() {
        let x = Cex::of("cached-cons-offset");
        let mut k = State::read(&x, "kp", "uc");
        assert!(k.inv(false), "pre-state must satisfy the invariant");
        let free = |k: &State| k.s.wrapping_sub(d(k.pcp, k.pcc));
        if free(&k) == 0 {
            k.pcc = k.c.wrapping_add(k.s);
        }
        if free(&k) != 0 {
            k.pcp = k.pcp.wrapping_add(1);
        }
        x.post("kp.cached_prod", k.pcp);
        x.post("kp.cached_cons", k.pcc);
        assert!(!k.inv(false));
    }
}
