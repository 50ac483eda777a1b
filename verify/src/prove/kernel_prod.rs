//! Kernel producer (struct xsk_queue, rx and completion rings), run against
//! a libxdp consumer: every step must keep the two-sided invariant.

use super::ring::{all, c, d, le, umin, Builder, Pair, Ring, Vc};
use super::{proved, Entry};
use z3::ast::{Bool, BV};

/// `xskq_prod_nb_free`: refreshes `cached_cons` only when short.
/// Returns the new state, the result and whether it refreshed.
pub fn nb_free(r: &Ring, max: &BV) -> (Ring, BV, Bool) {
    let free = |cc: &BV| r.size.bvsub(d(&r.prod.cached_prod, cc));
    let short = free(&r.prod.cached_cons).bvult(max);
    let mut post = r.clone();
    post.prod.cached_cons = short.ite(&r.consumer, &r.prod.cached_cons);
    let refreshed = free(&post.prod.cached_cons);
    let res = short.ite(&umin(&refreshed, max), max);
    (post, res, short)
}

fn nb_free_exact() -> Vc {
    let mut b = Builder::new();
    let r = Ring::any(&mut b, Pair::KernelToUser);
    let max = b.var("max");
    let (post, res, refreshed) = nb_free(&r, &max);
    b.show_post(&r, &post);
    b.show("result", &res);
    let real = r.real_free();
    b.prove(all(&[
        post.inv(),
        le(&res, &max),
        le(&res, &real),
        le(&real, &r.size),
        refreshed.implies(res.eq(umin(&real, &max))),
        refreshed.not().implies(res.eq(&max)),
    ]))
}

fn reserve() -> Vc {
    let mut b = Builder::new();
    let r = Ring::any(&mut b, Pair::KernelToUser);
    let (mut post, free, _) = nb_free(&r, &c(1));
    let ok = free.eq(c(0)).not();
    post.prod.cached_prod = ok.ite(&(&r.prod.cached_prod + c(1)), &r.prod.cached_prod);
    b.show_post(&r, &post);
    b.prove(all(&[
        post.inv(),
        le(&d(&post.prod.cached_prod, &r.consumer), &r.size),
        // -ENOSPC only when the ring really is full
        ok.not().implies(d(&r.prod.cached_prod, &r.consumer).eq(&r.size)),
    ]))
}

fn reserve_batch() -> Vc {
    let mut b = Builder::new();
    let r = Ring::any(&mut b, Pair::KernelToUser);
    let max = b.var("max");
    let (mut post, n, _) = nb_free(&r, &max);
    post.prod.cached_prod = &r.prod.cached_prod + &n;
    b.show_post(&r, &post);
    b.show("n", &n);
    b.prove(all(&[post.inv(), le(&n, &max)]))
}

fn submit() -> Vc {
    let mut b = Builder::new();
    let r = Ring::any(&mut b, Pair::KernelToUser);
    let n = b.var("n");
    b.assume(le(&n, &d(&r.prod.cached_prod, &r.producer)));
    let mut some = r.clone();
    some.producer = &r.producer + &n;
    let mut whole = r.clone();
    whole.producer = r.prod.cached_prod.clone();
    b.show_post(&r, &some);
    b.prove(all(&[some.inv(), whole.inv()]))
}

fn cancel() -> Vc {
    let mut b = Builder::new();
    let r = Ring::any(&mut b, Pair::KernelToUser);
    let n = b.var("n");
    b.assume(le(&n, &d(&r.prod.cached_prod, &r.producer)));
    let mut post = r.clone();
    post.prod.cached_prod = &r.prod.cached_prod - &n;
    b.show_post(&r, &post);
    b.prove(post.inv())
}

pub fn entries() -> Vec<Entry> {
    vec![
        proved(
            "kernel-prod-nb-free-exact",
            "xskq_prod_nb_free keeps the invariant; result <= max, never more than the real free \
             count, and exactly min(size - (cached_prod - consumer), max) after a refresh",
            nb_free_exact,
        ),
        proved(
            "kernel-prod-reserve",
            "xskq_prod_reserve keeps the invariant, never lets cached_prod pass consumer + size, \
             and fails only when the ring is really full",
            reserve,
        ),
        proved(
            "kernel-prod-reserve-batch",
            "cached_prod += xskq_prod_nb_free(max) (write_addr_batch) keeps the invariant",
            reserve_batch,
        ),
        proved(
            "kernel-prod-submit",
            "xskq_prod_submit_n(n) for n <= reserved-unpublished, and xskq_prod_submit, keep the \
             invariant",
            submit,
        ),
        proved(
            "kernel-prod-cancel",
            "xskq_prod_cancel_n(n) for n <= reserved-unpublished keeps the invariant",
            cancel,
        ),
    ]
}
