//! Devmem TCP RX token counters (specs/DevmemTokens.tla): a net_iov's `uref`
//! (atomic_t, array mode: tokens handed to the application and not yet
//! returned) and `pp_ref_count` (atomic_long_t), and the work one
//! SO_DEVMEM_DONTNEED does (`sock_devmem_dontneed`, net/core/sock.c of
//! linux 6.12.117).
//!
//! TLC runs these counters up to 2 or 3; here they take every 32-bit value
//! (64-bit for `pp_ref_count`). Signed C arithmetic wraps, as the kernel is
//! built with -fno-strict-overflow, so `c - 1` at INT_MIN is INT_MAX; the
//! proofs compute it that way. An `int` widened to `long` is sign-extended.

use super::ring::{c, le, Builder, W};
use super::{proved, refuted, Entry};
use z3::ast::{Bool, BV};

/// Width of `atomic_long_t` on a 64-bit kernel.
const LONG: u32 = 64;
/// A net_iov is one PAGE_SIZE chunk of the dmabuf (`net_devmem_alloc_dmabuf`).
const NIOV_BYTES: u64 = 4096;
/// Tokens one SO_DEVMEM_DONTNEED examines at most (net/core/sock.c).
const MAX_DONTNEED_FRAGS: i64 = 1024;
/// dmabuf_tokens one SO_DEVMEM_DONTNEED accepts (its optlen check).
const MAX_DONTNEED_TOKENS: u64 = 128;

fn int(v: i64) -> BV {
    BV::from_i64(v, W)
}

fn long(v: i64) -> BV {
    BV::from_i64(v, LONG)
}

/// A fresh named 64-bit variable.
fn var_long(b: &mut Builder, name: &str) -> BV {
    let v = BV::new_const(name, LONG);
    b.report(name, &v);
    v
}

/// An `int` converted to `long`.
fn to_long(x: &BV) -> BV {
    x.sign_ext(LONG - W)
}

fn nonneg(x: &BV) -> Bool {
    x.bvsge(BV::from_i64(0, x.get_size()))
}

/// Records the path taken under `cond` and its goals.
fn on_path(b: &mut Builder, tags: &str, cond: Bool, goals: Vec<Bool>) -> Vec<Bool> {
    b.path(tags, &cond);
    goals.into_iter().map(|g| cond.implies(&g)).collect()
}

/// `atomic_dec_if_positive` on an atomic_t as x86-64 runs it (the generic
/// fallback): `dec = c - 1`, stored unless negative, `dec` returned. Its
/// try_cmpxchg loop stores `dec` computed from the value it replaces, so it
/// is one atomic step on the value `old` current when it succeeds.
struct DecIfPositive {
    new: BV,
    ret: BV,
    stored: Bool,
}

fn dec_if_positive(old: &BV) -> DecIfPositive {
    let dec = old.bvsub(int(1));
    let stored = nonneg(&dec);
    DecIfPositive {
        new: stored.ite(&dec, old),
        ret: dec,
        stored,
    }
}

/// Every bit pattern of `uref`: a negative value is never stored, from a
/// non-negative value it decrements exactly when the value is positive, and
/// the result is >= 0 exactly when it stored (the release drops the token's
/// reference on that test). The last goal pins the whole truth table: it
/// also stores at INT_MIN, where `c - 1` wraps to INT_MAX, which only a
/// uref already broken could reach.
fn uref_dec_if_positive(b: &mut Builder) -> Vec<Bool> {
    let old = b.var("uref");
    let d = dec_if_positive(&old);
    b.show("uref", &d.new);
    b.show("result", &d.ret);
    let positive = old.bvsgt(int(0));
    let goals = vec![
        d.new
            .bvslt(int(0))
            .implies(Bool::and(&[d.new.eq(&old), old.bvslt(int(0))])),
        nonneg(&old).implies(d.stored.iff(&positive)),
        nonneg(&old).implies(d.new.eq(positive.ite(&old.bvsub(int(1)), &old))),
        nonneg(&d.ret).iff(&d.stored),
        d.stored
            .iff(Bool::or(&[positive, old.eq(int(i64::from(i32::MIN)))])),
    ];
    b.path("stored", &d.stored);
    b.path("kept", &d.stored.not());
    goals
}

/// The increment in recvmsg cannot wrap, because of this bound: while a
/// net_iov is out of the page pool every token on it names a piece of at
/// least one byte of its PAGE_SIZE (4096) bytes, and no byte is handed out
/// twice (recvmsg moves copied_seq past what it returned); it goes back to
/// the pool only when pp_ref_count = 0, and pp_ref_count = skb refs + uref
/// with both >= 0 (RefsAccounted and NoUnderflow, checked by TLC; the
/// unbind keeps them in `unbind-xchg-sub`) makes uref = 0 then. So
///
///   0 <= uref <= pieces <= bytes <= 4096
///
/// where `pieces` and `bytes` count the tokens and the bytes handed out since
/// the net_iov left the pool. The chain is inductive over every step that
/// touches uref (recvmsg, a release, the unbind, a trip through the pool),
/// and on it `uref + 1` is at most 4097, far below 2^31.
///
/// MSG_PEEK is outside this bound: a peek hands out tokens (and references)
/// for bytes it does not consume, so peeking one frag again and again counts
/// uref up without limit.
fn uref_inc_no_wrap(b: &mut Builder) -> Vec<Bool> {
    let uref = b.var("uref");
    let pieces = b.var("pieces");
    let bytes = b.var("bytes");
    let skb = var_long(b, "skb_refs");
    let ppref = &skb + to_long(&uref);
    b.report("pp_ref_count", &ppref);
    let len = b.var("len");
    let page = c(NIOV_BYTES);
    let chain = |u: &BV, p: &BV, y: &BV| vec![nonneg(u), le(u, p), le(p, y), le(y, &page)];
    for h in chain(&uref, &pieces, &bytes) {
        b.assume(h);
    }
    // RefsAccounted and NoUnderflow (pp_ref_count >= 0 also rules out a
    // wrapped sum)
    b.assume(nonneg(&skb));
    b.assume(nonneg(&ppref));

    // recvmsg: a piece of `len` unread bytes, atomic_inc(&niov->uref)
    let unread = Bool::and(&[len.bvuge(c(1)), le(&len, &page.bvsub(&bytes))]);
    let inc = uref.bvadd(int(1));
    let mut recv = vec![
        uref.bvadd_no_overflow(&int(1), true),
        inc.bvsle(int(NIOV_BYTES as i64)),
    ];
    recv.extend(chain(&inc, &pieces.bvadd(c(1)), &bytes.bvadd(&len)));
    let mut goals = on_path(b, "recv", unread, recv);

    // SO_DEVMEM_DONTNEED: atomic_dec_if_positive
    let d = dec_if_positive(&uref);
    goals.extend(on_path(
        b,
        "release",
        Bool::from_bool(true),
        chain(&d.new, &pieces, &bytes),
    ));

    // unbind: atomic_xchg(&niov->uref, 0)
    goals.extend(on_path(
        b,
        "unbind",
        Bool::from_bool(true),
        chain(&int(0), &pieces, &bytes),
    ));

    // back to the pool and out again: nothing handed out yet
    goals.extend(on_path(
        b,
        "recycle",
        ppref.eq(long(0)),
        chain(&uref, &c(0), &c(0)),
    ));
    goals
}

/// One atomic step on a net_iov's counters.
#[derive(Clone, Copy, Debug)]
enum Step {
    /// unbind: `old = atomic_xchg(&niov->uref, 0)`
    Xchg,
    /// unbind: `atomic_long_sub(old, &niov->pp_ref_count)`
    Sub,
    /// release: `atomic_dec_if_positive(&niov->uref)`; it took a token iff
    /// the result is >= 0
    DecIfPositive,
    /// mutant release: a plain read; it takes a token iff `uref > 0`
    Read,
    /// mutant release: `atomic_dec(&niov->uref)` for the token it took
    Dec,
    /// release: drops the reference of the token it took
    Put,
}

impl Step {
    fn name(self) -> &'static str {
        match self {
            Step::Xchg => "xchg",
            Step::Sub => "sub",
            Step::DecIfPositive => "dec_if_positive",
            Step::Read => "read",
            Step::Dec => "dec",
            Step::Put => "put",
        }
    }
}

const RELEASE: [Step; 2] = [Step::DecIfPositive, Step::Put];
const READ_THEN_DEC: [Step; 3] = [Step::Read, Step::Dec, Step::Put];

/// The counters of one net_iov, unbind's exchanged value and whether the
/// release took a token.
#[derive(Clone)]
struct Counters {
    uref: BV,
    ppref: BV,
    old: BV,
    took: Bool,
}

impl Counters {
    fn step(&mut self, s: Step) {
        match s {
            Step::Xchg => {
                self.old = self.uref.clone();
                self.uref = int(0);
            }
            Step::Sub => self.ppref = self.ppref.bvsub(to_long(&self.old)),
            Step::DecIfPositive => {
                let d = dec_if_positive(&self.uref);
                self.uref = d.new;
                self.took = nonneg(&d.ret);
            }
            Step::Read => self.took = self.uref.bvsgt(int(0)),
            Step::Dec => self.uref = self.took.ite(&self.uref.bvsub(int(1)), &self.uref),
            Step::Put => self.ppref = self.took.ite(&self.ppref.bvsub(long(1)), &self.ppref),
        }
    }
}

/// The unbind's exchange and subtraction racing one token release on the
/// same net_iov, in every interleaving: `release_before_xchg` of the
/// release's steps run before the exchange, `release_before_sub` before the
/// subtraction. From RefsAccounted and NoUnderflow, neither counter may be
/// negative after any step, and in the end uref = 0 and pp_ref_count = skb
/// refs: the release and the unbind drop each token's reference once.
fn unbind_race(b: &mut Builder, release: &[Step]) -> Vec<Bool> {
    let uref = b.var("uref");
    let skb = var_long(b, "skb_refs");
    let ppref = &skb + to_long(&uref);
    b.report("pp_ref_count", &ppref);
    b.assume(nonneg(&uref));
    b.assume(nonneg(&skb));
    b.assume(nonneg(&ppref));
    let before_xchg = b.var("release_before_xchg");
    let before_sub = b.var("release_before_sub");
    let n = release.len();
    b.assume(le(&before_xchg, &before_sub));
    b.assume(le(&before_sub, &c(n as u64)));
    b.prefer(le(&uref, &c(3)));
    b.prefer(skb.bvule(long(3)));
    let start = Counters {
        uref: uref.clone(),
        ppref,
        old: int(0),
        took: Bool::from_bool(false),
    };
    let mut goals = vec![];
    let mut ends: Vec<(Bool, Counters)> = vec![];
    for x in 0..=n {
        for s in x..=n {
            let mut order = release[..x].to_vec();
            order.push(Step::Xchg);
            order.extend(&release[x..s]);
            order.push(Step::Sub);
            order.extend(&release[s..]);
            let mut k = start.clone();
            let mut never_negative = vec![];
            for st in &order {
                k.step(*st);
                never_negative.push(nonneg(&k.uref));
                never_negative.push(nonneg(&k.ppref));
            }
            let end = Bool::and(&[k.uref.eq(int(0)), k.ppref.eq(&skb)]);
            let cond = Bool::and(&[before_xchg.eq(c(x as u64)), before_sub.eq(c(s as u64))]);
            let tags: Vec<&str> = order.iter().map(|st| st.name()).collect();
            goals.extend(on_path(
                b,
                &tags.join(" "),
                cond.clone(),
                vec![Bool::and(&never_negative), end],
            ));
            ends.push((cond, k));
        }
    }
    let (_, last) = ends.last().expect("an interleaving");
    let pick = |f: fn(&Counters) -> BV| {
        ends.iter()
            .rev()
            .skip(1)
            .fold(f(last), |acc, (cond, k)| cond.ite(&f(k), &acc))
    };
    let (u, p) = (pick(|k| k.uref.clone()), pick(|k| k.ppref.clone()));
    b.show("uref", &u);
    b.show("pp_ref_count", &p);
    goals
}

fn unbind_xchg_sub(b: &mut Builder) -> Vec<Bool> {
    unbind_race(b, &RELEASE)
}

fn uref_read_then_dec(b: &mut Builder) -> Vec<Bool> {
    unbind_race(b, &READ_THEN_DEC)
}

/// The token loop of sock_devmem_dontneed:
///
/// ```c
/// for (i = 0; i < num_tokens; i++) {
///     for (j = 0; j < tokens[i].token_count; j++) {
///         if (++num_frags > MAX_DONTNEED_FRAGS)
///             goto frag_limit_reached;
///         ... __xa_erase(&sk->sk_user_frags, tokens[i].token_start + j) ...
/// ```
///
/// `i`, `j` and `token_count` are u32, `num_frags` an int; `examined` counts
/// the tokens that reach the erase. At the inner loop's test,
/// `0 <= num_frags <= 1024 = examined`, `j <= token_count` and
/// `i < num_tokens` hold and are kept by every step, so no call examines
/// more than 1024 tokens, `++num_frags` never passes 1025, and the check
/// fires only once 1024 have been examined. The bound holds for any
/// num_tokens; the 128 of the optlen check is not needed for it.
fn dontneed_work_bound(b: &mut Builder) -> Vec<Bool> {
    let num_tokens = b.var("num_tokens");
    let i = b.var("i");
    let count = b.var("token_count");
    let j = b.var("j");
    let num_frags = b.var("num_frags");
    let examined = b.var("examined");
    let next_count = b.var("next_token_count");
    let limit = int(MAX_DONTNEED_FRAGS);
    let inv = |i: &BV, j: &BV, count: &BV, nf: &BV, ex: &BV| {
        vec![
            i.bvult(&num_tokens),
            le(j, count),
            nonneg(nf),
            nf.bvsle(&limit),
            ex.eq(nf),
        ]
    };
    for h in inv(&i, &j, &count, &num_frags, &examined) {
        b.assume(h);
    }
    // the first test of the inner loop (num_tokens > 0 follows from i < num_tokens)
    let mut goals = on_path(
        b,
        "init",
        Bool::from_bool(true),
        inv(&c(0), &c(0), &count, &int(0), &int(0)),
    );

    let body = j.bvult(&count);
    let nf = num_frags.bvadd(int(1));
    let no_wrap = num_frags.bvadd_no_overflow(&int(1), true);
    let over = nf.bvsgt(&limit);
    goals.extend(on_path(
        b,
        "limit",
        Bool::and(&[body.clone(), over.clone()]),
        vec![no_wrap.clone(), examined.eq(&limit)],
    ));
    let ex = examined.bvadd(c(1));
    let mut erase = vec![no_wrap, le(&ex, &limit)];
    erase.extend(inv(&i, &j.bvadd(c(1)), &count, &nf, &ex));
    goals.extend(on_path(
        b,
        "erase",
        Bool::and(&[body.clone(), over.not()]),
        erase,
    ));

    let i1 = i.bvadd(c(1));
    let more = i1.bvult(&num_tokens);
    goals.extend(on_path(
        b,
        "next-token",
        Bool::and(&[body.not(), more.clone()]),
        inv(&i1, &c(0), &next_count, &num_frags, &examined),
    ));
    goals.extend(on_path(
        b,
        "done",
        Bool::and(&[body.not(), more.not()]),
        vec![le(&examined, &limit)],
    ));
    goals
}

/// The same loop without the `num_frags` check (mutant dm-dontneed-loop):
/// every token of every dmabuf_token is examined. At the inner loop's test
/// `examined = earlier_counts + j`, where `earlier_counts`, the sum of the
/// token_counts of tokens[0..i), is any value up to i * (2^32 - 1): exactly
/// the states the loop reaches. The goal is the kernel's bound for the next
/// token examined.
fn dontneed_unbounded(b: &mut Builder) -> Vec<Bool> {
    let num_tokens = b.var("num_tokens");
    let i = b.var("i");
    let earlier = var_long(b, "earlier_counts");
    let count = b.var("token_count");
    let j = b.var("j");
    b.assume(le(&num_tokens, &c(MAX_DONTNEED_TOKENS)));
    b.assume(i.bvult(&num_tokens));
    b.assume(le(
        &earlier,
        &i.zero_ext(LONG - W).bvmul(long(i64::from(u32::MAX))),
    ));
    b.assume(j.bvult(&count));
    // two dmabuf_tokens that pass the limit together
    b.prefer(num_tokens.eq(c(2)));
    b.prefer(i.eq(c(1)));
    b.prefer(earlier.bvuge(long(0x100)));
    b.prefer(earlier.bvule(long(0x400)));
    b.prefer(le(&count, &c(0x800)));
    let examined = earlier.bvadd(j.zero_ext(LONG - W)).bvadd(long(1));
    b.show("examined", &examined);
    vec![examined.bvule(long(MAX_DONTNEED_FRAGS))]
}

pub fn entries() -> Vec<Entry> {
    vec![
        proved(
            "uref-dec-if-positive",
            "atomic_dec_if_positive on any 32-bit uref never stores a negative value, \
             decrements a non-negative one exactly when it is positive, and returns >= 0 \
             exactly when it stored",
            uref_dec_if_positive,
        ),
        proved(
            "uref-inc-no-wrap",
            "0 <= uref <= pieces <= bytes handed out since the net_iov left the pool <= 4096 \
             is kept by recvmsg, release, unbind and recycling, so uref + 1 never wraps",
            uref_inc_no_wrap,
        ),
        proved(
            "unbind-xchg-sub",
            "unbind's xchg(uref, 0) and pp_ref_count -= old, in every interleaving with an \
             atomic_dec_if_positive release, keep both counters >= 0 and end with \
             pp_ref_count = skb refs",
            unbind_xchg_sub,
        ),
        proved(
            "dontneed-work-bound",
            "SO_DEVMEM_DONTNEED's loop with ++num_frags > MAX_DONTNEED_FRAGS examines at most \
             1024 tokens for any num_tokens and u32 token_counts, and num_frags cannot wrap",
            dontneed_work_bound,
        ),
        refuted(
            "uref-read-then-dec",
            "a release that reads uref > 0 and decrements it in a later step, with unbind's \
             exchange in between, takes uref to -1 and drops one token's reference twice",
            Some("zcrx-uref-race"),
            uref_read_then_dec,
        ),
        refuted(
            "dontneed-unbounded",
            "without the num_frags check, 128 dmabuf_tokens with u32 token_counts make one \
             SO_DEVMEM_DONTNEED examine more than 1024 tokens",
            Some("dm-dontneed-loop"),
            dontneed_unbounded,
        ),
    ]
}

/// The counterexamples re-evaluated with plain integers, independent of the
/// z3 encoding.
#[cfg(test)]
mod tests {
    use super::super::{by_name, run, Outcome};
    use std::collections::HashMap;

    fn cex(name: &str) -> HashMap<String, u64> {
        match run(&by_name(name).unwrap()).outcome {
            Outcome::Refuted { counterexample } => counterexample.into_iter().collect(),
            o => panic!("{name}: expected a counterexample, got {o:?}"),
        }
    }

    fn dec_if_positive(v: &mut i32) -> i32 {
        let dec = v.wrapping_sub(1);
        if dec >= 0 {
            *v = dec;
        }
        dec
    }

    #[test]
    fn dec_if_positive_edges() {
        for (old, new) in [
            (i32::MIN, i32::MAX),
            (-1, -1),
            (0, 0),
            (1, 0),
            (i32::MAX, i32::MAX - 1),
        ] {
            let mut v = old;
            let r = dec_if_positive(&mut v);
            assert_eq!(v, new, "{old}");
            assert_eq!(r >= 0, v != old, "{old}");
        }
    }

    #[test]
    fn uref_read_then_dec_drops_twice() {
        let x = cex("uref-read-then-dec");
        let u = x["uref"] as u32 as i32;
        let skb = x["skb_refs"] as i64;
        let mut pp = x["pp_ref_count"] as i64;
        assert!(u >= 0 && skb >= 0 && pp == skb + i64::from(u));
        let (bx, bs) = (x["release_before_xchg"], x["release_before_sub"]);
        assert!(bx <= bs && bs <= 3);
        let mut uref = u;
        let (mut old, mut took) = (0, false);
        let mut negative = false;
        let mut release = 0;
        let mut rel = |uref: &mut i32, pp: &mut i64, took: &mut bool| {
            match release {
                0 => *took = *uref > 0,
                1 if *took => *uref = uref.wrapping_sub(1),
                2 if *took => *pp -= 1,
                _ => {}
            }
            release += 1;
        };
        for k in 0..5u64 {
            // release steps fill the slots not taken by xchg (at bx) and sub (at bs + 1)
            if k == bx {
                old = uref;
                uref = 0;
            } else if k == bs + 1 {
                pp -= i64::from(old);
            } else {
                rel(&mut uref, &mut pp, &mut took);
            }
            negative |= uref < 0 || pp < 0;
        }
        assert_eq!(x["uref'"], u64::from(uref as u32));
        assert_eq!(x["pp_ref_count'"], pp as u64);
        assert!(negative || uref != 0 || pp != skb);
        assert_eq!(uref, -1, "the release decremented after the exchange");
        assert_eq!(pp, skb - 1, "one token's reference dropped twice");
    }

    /// sock_devmem_dontneed's loop over the token counts; the tokens examined.
    fn kernel_loop(counts: &[u32]) -> u64 {
        let mut num_frags: i32 = 0;
        let mut examined = 0;
        'out: for &n in counts {
            let mut j: u32 = 0;
            while j < n {
                num_frags += 1;
                if num_frags > super::MAX_DONTNEED_FRAGS as i32 {
                    break 'out;
                }
                examined += 1;
                j += 1;
            }
        }
        examined
    }

    #[test]
    fn dontneed_unbounded_exceeds_the_kernel_bound() {
        let x = cex("dontneed-unbounded");
        let (num_tokens, i, j, count) = (x["num_tokens"], x["i"], x["j"], x["token_count"]);
        assert!(num_tokens <= 128 && i < num_tokens && j < count);
        // earlier token counts that add up to earlier_counts
        let mut left = x["earlier_counts"];
        let mut counts = vec![];
        for _ in 0..i {
            let n = left.min(u64::from(u32::MAX));
            counts.push(n as u32);
            left -= n;
        }
        assert_eq!(left, 0, "earlier_counts is a sum of i token counts");
        counts.push(count as u32);
        counts.resize(num_tokens as usize, 0);
        let mutant: u64 = counts[..i as usize]
            .iter()
            .map(|&n| u64::from(n))
            .sum::<u64>()
            + j
            + 1;
        assert_eq!(x["examined'"], mutant);
        assert!(mutant > 1024);
        assert_eq!(kernel_loop(&counts), 1024);
        assert_eq!(kernel_loop(&[u32::MAX; 128]), 1024);
        assert_eq!(kernel_loop(&[7, 0, 3]), 10);
    }
}
