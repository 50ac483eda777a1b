//! libxdp producer (struct xsk_ring_prod, fill and tx rings; its cached_cons
//! is kept at consumer + size), run against the kernel consumer.

use super::ring::{all, c, d, le, Builder, Pair, Ring, Vc};
use super::{proved, Entry};
use z3::ast::{Bool, BV};

/// `xsk_prod_nb_free`: refreshes `cached_cons` only when short.
/// Returns the new state, the result and whether it refreshed.
pub fn nb_free(r: &Ring, nb: &BV) -> (Ring, BV, Bool) {
    let short = d(&r.prod.cached_cons, &r.prod.cached_prod).bvult(nb);
    let mut post = r.clone();
    post.prod.cached_cons = short.ite(&(&r.consumer + &r.size), &r.prod.cached_cons);
    let res = d(&post.prod.cached_cons, &r.prod.cached_prod);
    (post, res, short)
}

/// `xsk_ring_prod__reserve`: all or nothing. Returns the new state and the
/// number reserved.
pub fn reserve(r: &Ring, nb: &BV) -> (Ring, BV) {
    let (mut post, free, _) = nb_free(r, nb);
    let ok = free.bvult(nb).not();
    post.prod.cached_prod = ok.ite(&(&r.prod.cached_prod + nb), &r.prod.cached_prod);
    (post, ok.ite(nb, &c(0)))
}

fn nb_free_exact() -> Vc {
    let mut b = Builder::new();
    let r = Ring::any(&mut b, Pair::UserToKernel);
    let nb = b.var("nb");
    let (post, res, refreshed) = nb_free(&r, &nb);
    b.show_post(&r, &post);
    b.show("result", &res);
    let real = r.real_free();
    b.prove(all(&[
        post.inv(),
        le(&res, &real),
        le(&real, &r.size),
        refreshed.implies(res.eq(&real)),
        refreshed.not().implies(le(&nb, &res)),
    ]))
}

fn reserve_proof() -> Vc {
    let mut b = Builder::new();
    let r = Ring::any(&mut b, Pair::UserToKernel);
    let nb = b.var("nb");
    let (post, got) = reserve(&r, &nb);
    b.show_post(&r, &post);
    b.show("result", &got);
    let refused = all(&[got.eq(c(0)), nb.eq(c(0)).not()]);
    b.prove(all(&[
        post.inv(),
        le(&d(&post.prod.cached_prod, &r.consumer), &r.size),
        Bool::or(&[got.eq(&nb), got.eq(c(0))]),
        // refuses only when fewer than nb slots are really free
        refused.implies(r.real_free().bvult(&nb)),
    ]))
}

fn submit() -> Vc {
    let mut b = Builder::new();
    let r = Ring::any(&mut b, Pair::UserToKernel);
    let nb = b.var("nb");
    b.assume(le(&nb, &d(&r.prod.cached_prod, &r.producer)));
    let mut post = r.clone();
    post.producer = &r.producer + &nb;
    b.show_post(&r, &post);
    b.prove(post.inv())
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
            "xsk_ring_prod__reserve(nb) keeps the invariant, grants nb or 0, never lets \
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
