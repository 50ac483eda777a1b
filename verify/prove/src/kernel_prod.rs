//! Kernel producer (struct xsk_queue, rx and completion rings), run against
//! a libxdp consumer: every step must keep the two-sided invariant.

use super::ring::{c, d, inv_and, le, on_all, umin, Branch, Builder, Pair, Ring};
use super::{proved, Entry};
use z3::ast::{Bool, BV};

/// `xskq_prod_nb_free`: refreshes `cached_cons` only when short
/// (paths `cached` and `refresh`).
pub fn nb_free(br: &Branch, max: &BV) -> Vec<Branch> {
    let r = &br.post;
    let free = |q: &Ring| q.size.bvsub(d(&q.prod.cached_prod, &q.prod.cached_cons));
    let (mut refresh, mut cached) = br.split(free(r).bvult(max), "refresh", "cached");
    cached.res = Some(max.clone());
    refresh.post.prod.cached_cons = r.consumer.clone();
    refresh.res = Some(umin(&free(&refresh.post), max));
    vec![cached, refresh]
}

/// `xskq_prod_reserve` (paths `ok` and `enospc`).
pub fn reserve(r: &Ring) -> Vec<Branch> {
    nb_free(&Branch::start(r), &c(1))
        .iter()
        .flat_map(|b| {
            let (mut ok, enospc) = b.split(b.res().eq(c(0)).not(), "ok", "enospc");
            ok.post.prod.cached_prod = &ok.post.prod.cached_prod + c(1);
            [ok, enospc]
        })
        .collect()
}

fn nb_free_exact(b: &mut Builder) -> Vec<Bool> {
    let r = Ring::any(b, Pair::KernelToUser);
    let max = b.var("max");
    let bs = nb_free(&Branch::start(&r), &max);
    b.show_branches(&r, &bs);
    let real = r.real_free();
    on_all(b, &bs, |p| {
        let res = p.res();
        let exact = if p.took("refresh") {
            umin(&real, &max)
        } else {
            max.clone()
        };
        inv_and(
            &p.post,
            [
                le(&res, &max),
                le(&res, &real),
                le(&real, &r.size),
                res.eq(&exact),
            ],
        )
    })
}

fn reserve_proof(b: &mut Builder) -> Vec<Bool> {
    let r = Ring::any(b, Pair::KernelToUser);
    let bs = reserve(&r);
    b.show_branches(&r, &bs);
    on_all(b, &bs, |p| {
        let full = d(&r.prod.cached_prod, &r.consumer).eq(&r.size);
        inv_and(
            &p.post,
            [
                le(&d(&p.post.prod.cached_prod, &r.consumer), &r.size),
                // -ENOSPC exactly when the ring really is full
                if p.took("enospc") { full } else { full.not() },
            ],
        )
    })
}

fn reserve_batch(b: &mut Builder) -> Vec<Bool> {
    let r = Ring::any(b, Pair::KernelToUser);
    let max = b.var("max");
    let mut bs = nb_free(&Branch::start(&r), &max);
    for p in &mut bs {
        p.post.prod.cached_prod = &p.post.prod.cached_prod + &p.res();
    }
    b.show_branches(&r, &bs);
    on_all(b, &bs, |p| inv_and(&p.post, [le(&p.res(), &max)]))
}

fn submit(b: &mut Builder) -> Vec<Bool> {
    let r = Ring::any(b, Pair::KernelToUser);
    let n = b.var("n");
    b.assume(le(&n, &d(&r.prod.cached_prod, &r.producer)));
    let mut some = r.clone();
    some.producer = &r.producer + &n;
    let mut whole = r.clone();
    whole.producer = r.prod.cached_prod.clone();
    b.show_post(&r, &some);
    [some.inv_parts(), whole.inv_parts()].concat()
}

fn cancel(b: &mut Builder) -> Vec<Bool> {
    let r = Ring::any(b, Pair::KernelToUser);
    let n = b.var("n");
    b.assume(le(&n, &d(&r.prod.cached_prod, &r.producer)));
    let mut post = r.clone();
    post.prod.cached_prod = &r.prod.cached_prod - &n;
    b.show_post(&r, &post);
    post.inv_parts()
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
             and fails exactly when the ring is full",
            reserve_proof,
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
