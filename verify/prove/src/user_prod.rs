//! libxdp producer (struct xsk_ring_prod, fill and tx rings; its cached_cons
//! is kept at consumer + size), run against the kernel consumer.

use super::ring::{c, d, inv_and, le, on_all, Branch, Builder, Pair, Ring};
use super::{proved, Entry};
use z3::ast::{Bool, BV};

/// `xsk_prod_nb_free`: refreshes `cached_cons` only when short
/// (paths `cached` and `refresh`).
pub fn nb_free(br: &Branch, nb: &BV) -> Vec<Branch> {
    let r = &br.post;
    let free = |q: &Ring| d(&q.prod.cached_cons, &q.prod.cached_prod);
    let (mut refresh, mut cached) = br.split(free(r).bvult(nb), "refresh", "cached");
    cached.res = Some(free(r));
    refresh.post.prod.cached_cons = &r.consumer + &r.size;
    refresh.res = Some(free(&refresh.post));
    vec![cached, refresh]
}

/// `xsk_ring_prod__reserve`: all or nothing (paths `ok` and `refused`).
pub fn reserve(r: &Ring, nb: &BV) -> Vec<Branch> {
    nb_free(&Branch::start(r), nb)
        .iter()
        .flat_map(|b| {
            let (mut refused, mut ok) = b.split(b.res().bvult(nb), "refused", "ok");
            refused.res = Some(c(0));
            ok.post.prod.cached_prod = &ok.post.prod.cached_prod + nb;
            ok.res = Some(nb.clone());
            [ok, refused]
        })
        .collect()
}

fn nb_free_exact(b: &mut Builder) -> Vec<Bool> {
    let r = Ring::any(b, Pair::UserToKernel);
    let nb = b.var("nb");
    let bs = nb_free(&Branch::start(&r), &nb);
    b.show_branches(&r, &bs);
    let real = r.real_free();
    on_all(b, &bs, |p| {
        let res = p.res();
        let exact = if p.took("refresh") {
            res.eq(&real)
        } else {
            le(&nb, &res)
        };
        inv_and(&p.post, [le(&res, &real), le(&real, &r.size), exact])
    })
}

fn reserve_proof(b: &mut Builder) -> Vec<Bool> {
    let r = Ring::any(b, Pair::UserToKernel);
    let nb = b.var("nb");
    let bs = reserve(&r, &nb);
    b.show_branches(&r, &bs);
    on_all(b, &bs, |p| {
        let enough = le(&nb, &r.real_free());
        inv_and(
            &p.post,
            [
                le(&d(&p.post.prod.cached_prod, &r.consumer), &r.size),
                // grants nb, or refuses only when fewer than nb are really free
                if p.took("refused") {
                    enough.not()
                } else {
                    Bool::from_bool(true)
                },
            ],
        )
    })
}

fn submit(b: &mut Builder) -> Vec<Bool> {
    let r = Ring::any(b, Pair::UserToKernel);
    let nb = b.var("nb");
    b.assume(le(&nb, &d(&r.prod.cached_prod, &r.producer)));
    let mut post = r.clone();
    post.producer = &r.producer + &nb;
    b.show_post(&r, &post);
    post.inv_parts()
}

pub fn entries() -> Vec<Entry> {
    vec![
        proved(
            "user-prod-nb-free-exact",
            "xsk_prod_nb_free keeps the invariant; never more than the real free count, at least nb \
             without a refresh, exactly size - (cached_prod - consumer) after one",
            nb_free_exact,
        ),
        proved(
            "user-prod-reserve",
            "xsk_ring_prod__reserve(nb) keeps the invariant, never lets \
             cached_prod pass consumer + size, and refuses only when fewer than nb are free",
            reserve_proof,
        ),
        proved(
            "user-prod-submit",
            "xsk_ring_prod__submit(nb) for nb <= reserved-unpublished keeps the invariant",
            submit,
        ),
    ]
}
