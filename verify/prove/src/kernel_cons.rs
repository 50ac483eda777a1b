//! Kernel consumer (struct xsk_queue, fill and tx rings), run against a
//! libxdp producer: every step must keep the two-sided invariant.

use super::ring::{d, inv_and, le, on_all, umin, Branch, Builder, Pair, Ring};
use super::{proved, Entry};
use z3::ast::{Bool, BV};

/// `xskq_cons_nb_entries`: refreshes `cached_prod` only when short
/// (paths `cached` and `refresh`).
pub fn nb_entries(br: &Branch, max: &BV) -> Vec<Branch> {
    let r = &br.post;
    let entries = |q: &Ring| d(&q.cons.cached_prod, &q.cons.cached_cons);
    let (mut refresh, mut cached) = br.split(entries(r).bvult(max), "refresh", "cached");
    cached.res = Some(max.clone());
    refresh.post.cons.cached_prod = r.producer.clone();
    refresh.res = Some(umin(&entries(&refresh.post), max));
    vec![cached, refresh]
}

fn nb_entries_exact(b: &mut Builder) -> Vec<Bool> {
    let r = Ring::any(b, Pair::UserToKernel);
    let max = b.var("max");
    let bs = nb_entries(&Branch::start(&r), &max);
    b.show_branches(&r, &bs);
    let published = d(&r.producer, &r.cons.cached_cons);
    on_all(b, &bs, |p| {
        let res = p.res();
        let exact = if p.took("refresh") {
            umin(&published, &max)
        } else {
            max.clone()
        };
        inv_and(
            &p.post,
            [
                le(&res, &max),
                // never hands out an unpublished entry
                le(&res, &published),
                le(
                    &d(&(&r.cons.cached_cons + &res), &r.consumer),
                    &d(&r.producer, &r.consumer),
                ),
                res.eq(&exact),
            ],
        )
    })
}

fn release_n(b: &mut Builder) -> Vec<Bool> {
    let r = Ring::any(b, Pair::UserToKernel);
    let n = b.var("n");
    b.assume(le(&n, &d(&r.cons.cached_prod, &r.cons.cached_cons)));
    let mut post = r.clone();
    post.cons.cached_cons = &r.cons.cached_cons + &n;
    b.show_post(&r, &post);
    post.inv_parts()
}

fn release(b: &mut Builder) -> Vec<Bool> {
    let r = Ring::any(b, Pair::UserToKernel);
    let mut publish = r.clone();
    publish.consumer = r.cons.cached_cons.clone();
    let mut get_entries = publish.clone();
    get_entries.cons.cached_prod = r.producer.clone();
    b.show_post(&r, &get_entries);
    [publish.inv_parts(), get_entries.inv_parts()].concat()
}

fn cancel(b: &mut Builder) -> Vec<Bool> {
    let r = Ring::any(b, Pair::UserToKernel);
    let n = b.var("n");
    b.assume(le(&n, &d(&r.cons.cached_cons, &r.consumer)));
    let mut post = r.clone();
    post.cons.cached_cons = &r.cons.cached_cons - &n;
    b.show_post(&r, &post);
    post.inv_parts()
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
