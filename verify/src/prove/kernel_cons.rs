//! Kernel consumer (struct xsk_queue, fill and tx rings), run against a
//! libxdp producer: every step must keep the two-sided invariant.

use super::ring::{all, d, le, umin, Builder, Pair, Ring, Vc};
use super::{proved, Entry};
use z3::ast::{Bool, BV};

/// `xskq_cons_nb_entries`: refreshes `cached_prod` only when short.
/// Returns the new state, the result and whether it refreshed.
pub fn nb_entries(r: &Ring, max: &BV) -> (Ring, BV, Bool) {
    let short = d(&r.cons.cached_prod, &r.cons.cached_cons).bvult(max);
    let mut post = r.clone();
    post.cons.cached_prod = short.ite(&r.producer, &r.cons.cached_prod);
    let entries = d(&post.cons.cached_prod, &r.cons.cached_cons);
    let res = short.ite(&umin(&entries, max), max);
    (post, res, short)
}

fn nb_entries_exact() -> Vc {
    let mut b = Builder::new();
    let r = Ring::any(&mut b, Pair::UserToKernel);
    let max = b.var("max");
    let (post, res, refreshed) = nb_entries(&r, &max);
    b.show_post(&r, &post);
    b.show("result", &res);
    let published = d(&r.producer, &r.cons.cached_cons);
    b.prove(all(&[
        post.inv(),
        le(&res, &max),
        // never hands out an unpublished entry
        le(&res, &published),
        le(&d(&(&r.cons.cached_cons + &res), &r.consumer), &d(&r.producer, &r.consumer)),
        refreshed.implies(res.eq(umin(&published, &max))),
        refreshed.not().implies(res.eq(&max)),
    ]))
}

fn release_n() -> Vc {
    let mut b = Builder::new();
    let r = Ring::any(&mut b, Pair::UserToKernel);
    let n = b.var("n");
    b.assume(le(&n, &d(&r.cons.cached_prod, &r.cons.cached_cons)));
    let mut post = r.clone();
    post.cons.cached_cons = &r.cons.cached_cons + &n;
    b.show_post(&r, &post);
    b.prove(post.inv())
}

fn release() -> Vc {
    let mut b = Builder::new();
    let r = Ring::any(&mut b, Pair::UserToKernel);
    let mut publish = r.clone();
    publish.consumer = r.cons.cached_cons.clone();
    let mut get_entries = publish.clone();
    get_entries.cons.cached_prod = r.producer.clone();
    b.show_post(&r, &get_entries);
    b.prove(all(&[publish.inv(), get_entries.inv()]))
}

fn cancel() -> Vc {
    let mut b = Builder::new();
    let r = Ring::any(&mut b, Pair::UserToKernel);
    let n = b.var("n");
    b.assume(le(&n, &d(&r.cons.cached_cons, &r.consumer)));
    let mut post = r.clone();
    post.cons.cached_cons = &r.cons.cached_cons - &n;
    b.show_post(&r, &post);
    b.prove(post.inv())
}

pub fn entries() -> Vec<Entry> {
    vec![
        proved(
            "kernel-cons-nb-entries-exact",
            "xskq_cons_nb_entries keeps the invariant; result <= max, only published entries, and \
             exactly min(producer - cached_cons, max) after a refresh",
            nb_entries_exact,
        ),
        proved(
            "kernel-cons-release-n",
            "xskq_cons_release_n(n) for n <= locally available keeps the invariant",
            release_n,
        ),
        proved(
            "kernel-cons-release",
            "__xskq_cons_release and xskq_cons_get_entries keep the invariant",
            release,
        ),
        proved(
            "kernel-cons-cancel",
            "xskq_cons_cancel_n(n) for n <= released-unpublished keeps the invariant",
            cancel,
        ),
    ]
}
