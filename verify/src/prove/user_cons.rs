//! libxdp consumer (struct xsk_ring_cons, rx and completion rings), run
//! against the kernel producer.

use super::ring::{all, c, d, le, umin, Builder, Pair, Ring, Vc};
use super::{proved, Entry};
use z3::ast::{Bool, BV};

/// `xsk_cons_nb_avail`: refreshes `cached_prod` only when empty.
/// Returns the new state, the result and whether it refreshed.
pub fn nb_avail(r: &Ring, nb: &BV) -> (Ring, BV, Bool) {
    let empty = d(&r.cons.cached_prod, &r.cons.cached_cons).eq(c(0));
    let mut post = r.clone();
    post.cons.cached_prod = empty.ite(&r.producer, &r.cons.cached_prod);
    let entries = d(&post.cons.cached_prod, &r.cons.cached_cons);
    (post, umin(&entries, nb), empty)
}

/// `xsk_ring_cons__peek`. Returns the new state and the number peeked.
pub fn peek(r: &Ring, nb: &BV) -> (Ring, BV) {
    let (mut post, n, _) = nb_avail(r, nb);
    post.cons.cached_cons = &r.cons.cached_cons + &n;
    (post, n)
}

fn nb_avail_exact() -> Vc {
    let mut b = Builder::new();
    let r = Ring::any(&mut b, Pair::KernelToUser);
    let nb = b.var("nb");
    let (post, res, refreshed) = nb_avail(&r, &nb);
    b.show_post(&r, &post);
    b.show("result", &res);
    let published = d(&r.producer, &r.cons.cached_cons);
    b.prove(all(&[
        post.inv(),
        le(&res, &nb),
        le(&res, &published),
        // reports nothing only when nothing is published (or nb is 0)
        res.eq(c(0)).implies(Bool::or(&[nb.eq(c(0)), published.eq(c(0))])),
        refreshed.implies(res.eq(umin(&published, &nb))),
    ]))
}

fn peek_proof() -> Vc {
    let mut b = Builder::new();
    let r = Ring::any(&mut b, Pair::KernelToUser);
    let nb = b.var("nb");
    let (post, n) = peek(&r, &nb);
    b.show_post(&r, &post);
    b.show("result", &n);
    b.prove(all(&[
        post.inv(),
        le(&n, &nb),
        // every peeked index lies in [consumer, producer)
        le(&d(&post.cons.cached_cons, &r.consumer), &d(&r.producer, &r.consumer)),
    ]))
}

fn release() -> Vc {
    let mut b = Builder::new();
    let r = Ring::any(&mut b, Pair::KernelToUser);
    let nb = b.var("nb");
    b.assume(le(&nb, &d(&r.cons.cached_cons, &r.consumer)));
    let mut post = r.clone();
    post.consumer = &r.consumer + &nb;
    b.show_post(&r, &post);
    b.prove(post.inv())
}

fn cancel() -> Vc {
    let mut b = Builder::new();
    let r = Ring::any(&mut b, Pair::KernelToUser);
    let nb = b.var("nb");
    b.assume(le(&nb, &d(&r.cons.cached_cons, &r.consumer)));
    let mut post = r.clone();
    post.cons.cached_cons = &r.cons.cached_cons - &nb;
    b.show_post(&r, &post);
    b.prove(post.inv())
}

pub fn entries() -> Vec<Entry> {
    vec![
        proved(
            "user-cons-nb-avail-exact",
            "xsk_cons_nb_avail keeps the invariant; result <= nb, only published entries, 0 only \
             when nothing is published, exactly min(producer - cached_cons, nb) after a refresh",
            nb_avail_exact,
        ),
        proved(
            "user-cons-peek",
            "xsk_ring_cons__peek keeps the invariant and never returns unpublished entries",
            peek_proof,
        ),
        proved(
            "user-cons-release",
            "xsk_ring_cons__release(nb) for nb <= peeked-unreleased keeps the invariant",
            release,
        ),
        proved(
            "user-cons-cancel",
            "xsk_ring_cons__cancel(nb) for nb <= peeked-unreleased keeps the invariant",
            cancel,
        ),
    ]
}
