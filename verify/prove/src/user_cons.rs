//! libxdp consumer (struct xsk_ring_cons, rx and completion rings), run
//! against the kernel producer.

use super::ring::{c, d, inv_and, le, on_all, umin, Branch, Builder, Pair, Ring};
use super::{proved, Entry};
use z3::ast::{Bool, BV};

/// `xsk_cons_nb_avail`: refreshes `cached_prod` only when empty
/// (paths `cached` and `refresh`).
pub fn nb_avail(br: &Branch, nb: &BV) -> Vec<Branch> {
    let r = &br.post;
    let entries = |q: &Ring| d(&q.cons.cached_prod, &q.cons.cached_cons);
    let (mut refresh, mut cached) = br.split(entries(r).eq(c(0)), "refresh", "cached");
    cached.res = Some(umin(&entries(r), nb));
    refresh.post.cons.cached_prod = r.producer.clone();
    refresh.res = Some(umin(&entries(&refresh.post), nb));
    vec![cached, refresh]
}

/// `xsk_ring_cons__peek`: result is the number peeked.
pub fn peek(r: &Ring, nb: &BV) -> Vec<Branch> {
    let mut bs = nb_avail(&Branch::start(r), nb);
    for p in &mut bs {
        p.post.cons.cached_cons = &p.post.cons.cached_cons + &p.res();
    }
    bs
}

fn nb_avail_exact(b: &mut Builder) -> Vec<Bool> {
    let r = Ring::any(b, Pair::KernelToUser);
    let nb = b.var("nb");
    let bs = nb_avail(&Branch::start(&r), &nb);
    b.show_branches(&r, &bs);
    let published = d(&r.producer, &r.cons.cached_cons);
    on_all(b, &bs, |p| {
        let res = p.res();
        let exact = if p.took("refresh") {
            res.eq(umin(&published, &nb))
        } else {
            Bool::from_bool(true)
        };
        inv_and(
            &p.post,
            [
                le(&res, &nb),
                le(&res, &published),
                // reports nothing only when nothing is published (or nb is 0)
                res.eq(c(0))
                    .implies(Bool::or(&[nb.eq(c(0)), published.eq(c(0))])),
                exact,
            ],
        )
    })
}

fn peek_proof(b: &mut Builder) -> Vec<Bool> {
    let r = Ring::any(b, Pair::KernelToUser);
    let nb = b.var("nb");
    let bs = peek(&r, &nb);
    b.show_branches(&r, &bs);
    on_all(b, &bs, |p| {
        inv_and(
            &p.post,
            [
                le(&p.res(), &nb),
                // every peeked index lies in [consumer, producer)
                le(
                    &d(&p.post.cons.cached_cons, &r.consumer),
                    &d(&r.producer, &r.consumer),
                ),
            ],
        )
    })
}

fn release(b: &mut Builder) -> Vec<Bool> {
    let r = Ring::any(b, Pair::KernelToUser);
    let nb = b.var("nb");
    b.assume(le(&nb, &d(&r.cons.cached_cons, &r.consumer)));
    let mut post = r.clone();
    post.consumer = &r.consumer + &nb;
    b.show_post(&r, &post);
    post.inv_parts()
}

fn cancel(b: &mut Builder) -> Vec<Bool> {
    let r = Ring::any(b, Pair::KernelToUser);
    let nb = b.var("nb");
    b.assume(le(&nb, &d(&r.cons.cached_cons, &r.consumer)));
    let mut post = r.clone();
    post.cons.cached_cons = &r.cons.cached_cons - &nb;
    b.show_post(&r, &post);
    post.inv_parts()
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
