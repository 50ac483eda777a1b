//! Completion queue n-slot reservation as the copy-mode transmit batch does
//! it: the kernel producer (struct xsk_queue) reserves up to n slots at once,
//! cancels the unused ones, and the skbs' destructors publish the rest, in any
//! interleaving with the libxdp consumer. The latest batch carries ghost
//! counters of the slots it reserved, cancelled and published.

use super::kernel_prod::nb_free;
use super::ring::{c, d, inv_and, le, on_all, umin, Branch, Builder, Pair, Ring, W};
use super::user_cons::nb_avail;
use super::{proved, refuted, Entry};
use z3::ast::{Bool, BV};

/// Ghost counters of the latest batch.
#[derive(Clone)]
struct Batch {
    reserved: BV,
    cancelled: BV,
    published: BV,
    /// Reserved slots neither cancelled nor published yet.
    unused: BV,
}

impl Batch {
    /// Arbitrary counters satisfying the batch invariant on `r`.
    fn any(b: &mut Builder, r: &Ring) -> Batch {
        // written as `unused + cancelled + published`, a bijective change of
        // variables that keeps the unused count a single variable
        let unused = BV::new_const("batch.unused", W);
        let cancelled = b.var("batch.cancelled");
        let published = b.var("batch.published");
        let reserved = &unused + &cancelled + &published;
        b.report("batch.reserved", &reserved);
        let batch = Batch {
            reserved,
            cancelled,
            published,
            unused,
        };
        for h in batch.inv_parts(r) {
            b.assume(h);
        }
        batch
    }

    /// A batch that has just reserved `k` slots.
    fn new(k: &BV) -> Batch {
        Batch {
            reserved: k.clone(),
            cancelled: c(0),
            published: c(0),
            unused: k.clone(),
        }
    }

    fn fields(&self) -> [(&'static str, &BV); 3] {
        [
            ("batch.reserved", &self.reserved),
            ("batch.cancelled", &self.cancelled),
            ("batch.published", &self.published),
        ]
    }

    fn inv_parts(&self, r: &Ring) -> Vec<Bool> {
        vec![
            le(&self.cancelled, &self.reserved),
            // published never more than reserved minus cancelled
            le(&self.published, &d(&self.reserved, &self.cancelled)),
            // the unused slots are still reserved and unpublished at the producer
            le(&self.unused, &d(&r.prod.cached_prod, &r.producer)),
        ]
    }
}

/// One path of a step: the ring path and the batch it leaves.
struct Step {
    br: Branch,
    batch: Batch,
}

/// Reports the ring fields and ghost counters some step changes.
fn show_steps(b: &mut Builder, r: &Ring, pre: Option<&Batch>, steps: &[Step]) {
    let brs: Vec<Branch> = steps.iter().map(|s| s.br.clone()).collect();
    b.show_branches(r, &brs);
    for k in 0..3 {
        let (name, _) = steps[0].batch.fields()[k];
        let changed = steps
            .iter()
            .any(|s| pre.is_none_or(|q| !s.batch.fields()[k].1.ast_eq(q.fields()[k].1)));
        if changed {
            let last = steps.len() - 1;
            let v = (0..last)
                .rev()
                .fold(steps[last].batch.fields()[k].1.clone(), |acc, i| {
                    steps[i].br.cond().ite(steps[i].batch.fields()[k].1, &acc)
                });
            b.show(name, &v);
        }
    }
}

/// The batch reserve: `k = min(n, xskq_prod_nb_free(n))`, `cached_prod += k`;
/// starts a new batch (paths `cached` and `refresh`; result `k`).
fn reserve_n(br: &Branch, n: &BV) -> Vec<Step> {
    nb_free(br, n)
        .into_iter()
        .map(|mut p| {
            let k = umin(n, &p.res());
            p.post.prod.cached_prod = &p.post.prod.cached_prod + &k;
            p.res = Some(k.clone());
            Step {
                br: p,
                batch: Batch::new(&k),
            }
        })
        .collect()
}

/// `xskq_prod_cancel_n(m)` of `m` unused slots of the batch.
fn cancel_unused(br: &Branch, batch: &Batch, m: &BV) -> Step {
    let mut p = br.clone();
    p.guard.push(le(m, &batch.unused));
    p.post.prod.cached_prod = &p.post.prod.cached_prod - m;
    Step {
        br: p,
        batch: Batch {
            cancelled: &batch.cancelled + m,
            unused: &batch.unused - m,
            ..batch.clone()
        },
    }
}

/// The destructors' `xskq_prod_submit_n(j)` of `j` unused slots of the batch.
fn submit_reserved(br: &Branch, batch: &Batch, j: &BV) -> Step {
    let mut p = br.clone();
    p.guard.push(le(j, &batch.unused));
    p.post.producer = &p.post.producer + j;
    Step {
        br: p,
        batch: Batch {
            published: &batch.published + j,
            unused: &batch.unused - j,
            ..batch.clone()
        },
    }
}

/// `xskq_prod_submit_n(j)` of slots reserved before the batch, still in flight.
fn submit_other(br: &Branch, batch: &Batch, j: &BV) -> Step {
    let mut p = br.clone();
    let r = &br.post;
    let others = d(&d(&r.prod.cached_prod, &r.producer), &batch.unused);
    p.guard.push(le(j, &others));
    p.post.producer = &p.post.producer + j;
    Step {
        br: p,
        batch: batch.clone(),
    }
}

/// `xsk_ring_cons__peek(nb)` (paths `cached` and `refresh`).
fn peek(br: &Branch, batch: &Batch, nb: &BV) -> Vec<Step> {
    nb_avail(br, nb)
        .into_iter()
        .map(|mut p| {
            p.post.cons.cached_cons = &p.post.cons.cached_cons + &p.res();
            Step {
                br: p,
                batch: batch.clone(),
            }
        })
        .collect()
}

/// `xsk_ring_cons__release(nb)` of `nb` peeked entries.
fn release(br: &Branch, batch: &Batch, nb: &BV) -> Step {
    let mut p = br.clone();
    let r = &br.post;
    p.guard.push(le(nb, &d(&r.cons.cached_cons, &r.consumer)));
    p.post.consumer = &p.post.consumer + nb;
    Step {
        br: p,
        batch: batch.clone(),
    }
}

/// The ring and batch invariants after the step; the ring invariant's
/// `cached_prod - consumer <= size` is the no-overrun property.
fn keeps(s: &Step) -> Vec<Bool> {
    let q = &s.br.post;
    inv_and(q, s.batch.inv_parts(q))
}

fn reserve_proof(b: &mut Builder) -> Vec<Bool> {
    let r = Ring::any(b, Pair::KernelToUser);
    let n = b.var("n");
    let steps = reserve_n(&Branch::start(&r), &n);
    show_steps(b, &r, None, &steps);
    let brs: Vec<Branch> = steps.iter().map(|s| s.br.clone()).collect();
    let real = r.real_free();
    on_all(b, &brs, |p| {
        let k = p.res();
        let s = steps.iter().find(|s| s.br.tags == p.tags).expect("step");
        let exact = if p.took("refresh") {
            umin(&real, &n)
        } else {
            n.clone()
        };
        [
            keeps(s),
            vec![
                le(&k, &n),
                // never more than the consumer has left free
                le(&k, &real),
                k.eq(&exact),
            ],
        ]
        .concat()
    })
}

fn cancel_proof(b: &mut Builder) -> Vec<Bool> {
    let r = Ring::any(b, Pair::KernelToUser);
    let batch = Batch::any(b, &r);
    let m = b.var("m");
    let s = cancel_unused(&Branch::start(&r), &batch, &m);
    show_steps(b, &r, Some(&batch), std::slice::from_ref(&s));
    let brs = [s.br.clone()];
    on_all(b, &brs, |_| keeps(&s))
}

fn submit_proof(b: &mut Builder) -> Vec<Bool> {
    let r = Ring::any(b, Pair::KernelToUser);
    let batch = Batch::any(b, &r);
    let j = b.var("j");
    let s = submit_reserved(&Branch::start(&r), &batch, &j);
    show_steps(b, &r, Some(&batch), std::slice::from_ref(&s));
    let brs = [s.br.clone()];
    on_all(b, &brs, |_| keeps(&s))
}

/// The path of operation number `i`, chosen by `op`.
fn pick(r: &Ring, op: &BV, i: u64, tag: &'static str) -> Branch {
    let mut p = Branch::start(r);
    p.guard.push(op.eq(c(i)));
    p.tags.push(tag);
    p
}

/// Steps the batch does not take: the consumer's peek and release, and
/// submits of slots reserved before the batch.
fn interleave(b: &mut Builder) -> Vec<Bool> {
    let r = Ring::any(b, Pair::KernelToUser);
    let batch = Batch::any(b, &r);
    let op = b.var("op");
    let [j, nb] = ["j", "nb"].map(|v| b.var(v));
    let mut steps = vec![submit_other(&pick(&r, &op, 0, "submit-other"), &batch, &j)];
    steps.extend(peek(&pick(&r, &op, 1, "peek"), &batch, &nb));
    steps.push(release(&pick(&r, &op, 2, "release"), &batch, &nb));
    show_steps(b, &r, Some(&batch), &steps);
    let brs: Vec<Branch> = steps.iter().map(|s| s.br.clone()).collect();
    on_all(b, &brs, |p| {
        let s = steps.iter().find(|s| s.br.tags == p.tags).expect("step");
        keeps(s)
    })
}

/// Mutant: a destructor submits a slot that was never reserved (the
/// reservation failed), `->producer += 1` with `cached_prod == ->producer`.
fn submit_unreserved(b: &mut Builder) -> Vec<Bool> {
    let r = Ring::any(b, Pair::KernelToUser);
    b.assume(r.prod.cached_prod.eq(&r.producer));
    let mut post = r.clone();
    post.producer = &r.producer + c(1);
    b.show_post(&r, &post);
    inv_and(
        &post,
        [le(
            &d(&post.producer, &r.consumer),
            &d(&r.prod.cached_prod, &r.consumer),
        )],
    )
}

pub fn entries() -> Vec<Entry> {
    vec![
        proved(
            "cq-reserve-n",
            "completion queue batch reserve k = min(n, xskq_prod_nb_free(n)), cached_prod += k, \
             keeps the invariant, never lets cached_prod pass consumer + size, k <= n, k <= the \
             real free count, exactly min(free, n) after a refresh",
            reserve_proof,
        ),
        proved(
            "cq-cancel-unused",
            "xskq_prod_cancel_n(m) of m unused slots of the batch keeps the invariant; the batch \
             never publishes more than it reserved minus cancelled",
            cancel_proof,
        ),
        proved(
            "cq-submit-reserved",
            "xskq_prod_submit_n(j) of j reserved, uncancelled, unpublished slots of the batch \
             keeps the invariant; producer never passes cached_prod",
            submit_proof,
        ),
        proved(
            "cq-interleave",
            "the libxdp consumer's peek and release, and submits of slots reserved before the \
             batch, keep the invariant and the batch's counters, so every step of the batch \
             holds in any interleaving",
            interleave,
        ),
        refuted(
            "cq-submit-unreserved",
            "submitting a completion slot that was never reserved (producer += 1 with \
             cached_prod == producer) lets producer pass cached_prod and overfill the ring",
            Some("xsk-cq-resv-fail"),
            submit_unreserved,
        ),
    ]
}

/// Plain u32 re-evaluation of the counterexample, independent of the z3 encoding.
#[cfg(test)]
mod tests {
    use super::super::{by_name, run, Outcome};
    use std::collections::HashMap;

    fn d(a: u32, b: u32) -> u32 {
        a.wrapping_sub(b)
    }

    #[test]
    fn submit_unreserved_overruns() {
        let r = run(&by_name("cq-submit-unreserved").unwrap());
        let Outcome::Refuted { counterexample } = r.outcome else {
            panic!("expected a counterexample, got {:?}", r.outcome);
        };
        let m: HashMap<_, _> = counterexample.into_iter().collect();
        let g = |n: &str| u32::try_from(m[n]).unwrap();
        let (s, p, c) = (g("size"), g("producer"), g("consumer"));
        let (pcp, pcc) = (g("kp.cached_prod"), g("kp.cached_cons"));
        let (ccp, ccc) = (g("uc.cached_prod"), g("uc.cached_cons"));
        // the pre-state satisfies the invariant
        assert!(s.is_power_of_two());
        assert!(d(p, c) <= s && d(pcp, c) <= s && d(p, c) <= d(pcp, c));
        assert!(d(c, pcc) <= d(pcp, pcc) && d(pcp, pcc) <= s);
        assert!(d(ccc, c) <= d(ccp, c) && d(ccp, c) <= d(p, c));
        assert_eq!(pcp, p, "nothing reserved and unpublished");
        let p2 = p.wrapping_add(1);
        assert_eq!(m["producer'"], u64::from(p2));
        assert!(d(p2, c) > d(pcp, c), "producer passes cached_prod");
        assert!(d(p2, c) > s, "in flight exceeds size");
    }
}
