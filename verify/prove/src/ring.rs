//! Shared encoding: 32-bit counters, wrapping distance, the two-sided ring
//! invariant and a small builder for verification conditions.

use z3::ast::{Bool, BV};

/// Counter width: the ring's producer/consumer words are u32.
pub const W: u32 = 32;

/// A verification condition `hyp => goal`, checked by refuting `hyp /\ !goal`.
/// The goal is a list of obligations, each checked on its own: small
/// queries bit-blast to much easier SAT problems than one big conjunction.
pub struct Vc {
    /// The variables, reported in a counterexample.
    pub free: Vec<(String, BV)>,
    /// Post-state values, reported with a `'` suffix.
    pub derived: Vec<(String, BV)>,
    pub hyp: Vec<Bool>,
    pub goals: Vec<Bool>,
    /// The paths the goals were split over, by their labels.
    #[cfg_attr(not(test), allow(dead_code))] // read by the reachability test
    pub paths: Vec<(String, Bool)>,
    /// Conditions a counterexample is first sought under, for readability.
    pub prefer: Vec<Bool>,
}

/// How the ring's words are written in solver variables. Each choice is a
/// bijective change of variables on u32^7 (`x = base + offset` or
/// `x = base - offset` with a fresh offset), so every choice still ranges over
/// every state. They differ in which distances the word-level simplifier sees
/// as a single variable, which decides how hard the bit-blasted query is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Param {
    /// Every word is `consumer + offset`.
    Consumer,
    /// As `Consumer`, but each side's cache hangs off its own cursor:
    /// the producer's view of the consumer is `cached_prod - k`, the
    /// consumer's `cached_prod` is `cached_cons + k`.
    Cursors,
    /// Every word is the producer's view of the consumer plus an offset.
    ProdCache,
}

pub const PARAMS: [Param; 3] = [Param::Consumer, Param::Cursors, Param::ProdCache];

/// Builds the obligations of one proof.
pub type Build = fn(&mut Builder) -> Vec<Bool>;

pub struct Builder {
    param: Param,
    /// Whether the parametrization was consulted.
    pub param_used: bool,
    free: Vec<(String, BV)>,
    derived: Vec<(String, BV)>,
    hyp: Vec<Bool>,
    paths: Vec<(String, Bool)>,
    prefer: Vec<Bool>,
}

impl Builder {
    pub fn new(param: Param) -> Self {
        Builder {
            param,
            param_used: false,
            free: vec![],
            derived: vec![],
            hyp: vec![],
            paths: vec![],
            prefer: vec![],
        }
    }

    /// A fresh named u32 variable.
    pub fn var(&mut self, name: &str) -> BV {
        let v = BV::new_const(name, W);
        self.report(name, &v);
        v
    }

    /// Reports `value` under `name` in a counterexample.
    pub fn report(&mut self, name: &str, value: &BV) {
        self.free.push((name.to_string(), value.clone()));
    }

    pub fn assume(&mut self, b: Bool) {
        self.hyp.push(b);
    }

    /// Reports `value` as `name'` in a counterexample.
    pub fn show(&mut self, name: &str, value: &BV) {
        self.derived.push((format!("{name}'"), value.clone()));
    }

    /// Reports every field of `post` that differs syntactically from `pre`.
    pub fn show_post(&mut self, pre: &Ring, post: &Ring) {
        self.show_branches(pre, &[Branch::start(post)]);
    }

    /// Reports the post-state fields that some branch changes, and the
    /// result when a branch sets one, merged over the branches.
    pub fn show_branches(&mut self, pre: &Ring, bs: &[Branch]) {
        let before = pre.fields();
        let after: Vec<_> = bs.iter().map(|b| b.post.fields()).collect();
        for (k, (name, old)) in before.iter().enumerate() {
            if after.iter().any(|f| !f[k].1.ast_eq(old)) {
                let v = merge(bs, |i| after[i][k].1.clone());
                self.show(name, &v);
            }
        }
        if bs.iter().any(|b| b.res.is_some()) {
            let v = merge(bs, |i| bs[i].res.clone().unwrap_or_else(|| c(0)));
            self.show("result", &v);
        }
    }

    /// Records a path the goals were split over, labelled `tags`.
    pub fn path(&mut self, tags: &str, cond: &Bool) {
        self.paths.push((tags.to_string(), cond.clone()));
    }

    /// Seeks a counterexample under `cond` first, if there is one.
    pub fn prefer(&mut self, cond: Bool) {
        self.prefer.push(cond);
    }

    pub fn finish(self, goals: Vec<Bool>) -> Vc {
        Vc {
            free: self.free,
            derived: self.derived,
            hyp: self.hyp,
            goals,
            paths: self.paths,
            prefer: self.prefer,
        }
    }
}

/// `base + k` for a fresh `k`.
fn plus(base: &BV, name: &str) -> BV {
    base + BV::new_const(format!("{name}~off"), W)
}

/// `base - k` for a fresh `k`.
fn minus(base: &BV, name: &str) -> BV {
    base - BV::new_const(format!("{name}~off"), W)
}

pub fn c(v: u64) -> BV {
    BV::from_u64(v, W)
}

/// Wrapping distance `a - b mod 2^32`.
pub fn d(a: &BV, b: &BV) -> BV {
    a.bvsub(b)
}

/// Unsigned `a <= b`.
pub fn le(a: &BV, b: &BV) -> Bool {
    a.bvule(b)
}

pub fn umin(a: &BV, b: &BV) -> BV {
    a.bvule(b).ite(a, b)
}

pub fn all(xs: &[Bool]) -> Bool {
    match xs {
        [] => Bool::from_bool(true),
        [x] => x.clone(),
        _ => Bool::and(xs),
    }
}

/// `size` is a power of two, i.e. one of 1, 2, 4, .., 2^31.
pub fn pow2(size: &BV) -> Bool {
    let one = c(1);
    all(&[size.eq(c(0)).not(), size.bvand(size.bvsub(&one)).eq(c(0))])
}

/// One path through an operation: the conditions taken, a label per
/// decision, the state reached and the operation's result, if any.
/// Splitting paths instead of selecting states with `ite` keeps every state
/// a plain sum of variables, which the simplifier handles well.
#[derive(Clone)]
pub struct Branch {
    pub guard: Vec<Bool>,
    pub tags: Vec<&'static str>,
    pub post: Ring,
    pub res: Option<BV>,
}

impl Branch {
    pub fn start(r: &Ring) -> Branch {
        Branch {
            guard: vec![],
            tags: vec![],
            post: r.clone(),
            res: None,
        }
    }

    /// The path taking `cond` (labelled `yes`) and the one that does not (`no`).
    pub fn split(&self, cond: Bool, yes: &'static str, no: &'static str) -> (Branch, Branch) {
        let mut a = self.clone();
        a.guard.push(cond.clone());
        a.tags.push(yes);
        let mut b = self.clone();
        b.guard.push(cond.not());
        b.tags.push(no);
        (a, b)
    }

    pub fn took(&self, tag: &str) -> bool {
        self.tags.contains(&tag)
    }

    pub fn res(&self) -> BV {
        self.res.clone().expect("operation result")
    }

    pub fn cond(&self) -> Bool {
        all(&self.guard)
    }
}

/// Every obligation of `goal` holds on every path.
pub fn on_all(b: &mut Builder, bs: &[Branch], goal: impl Fn(&Branch) -> Vec<Bool>) -> Vec<Bool> {
    for p in bs {
        b.paths.push((p.tags.join("/"), p.cond()));
    }
    bs.iter()
        .flat_map(|p| goal(p).into_iter().map(|g| p.cond().implies(&g)))
        .collect()
}

/// The invariant's clauses on `post`, then `more`.
pub fn inv_and(post: &Ring, more: impl IntoIterator<Item = Bool>) -> Vec<Bool> {
    post.inv_parts().into_iter().chain(more).collect()
}

/// The value of `f` on whichever path was taken (paths are exhaustive).
fn merge(bs: &[Branch], f: impl Fn(usize) -> BV) -> BV {
    let last = bs.len() - 1;
    (0..last)
        .rev()
        .fold(f(last), |acc, i| bs[i].cond().ite(&f(i), &acc))
}

/// One side's private cursors.
#[derive(Clone)]
pub struct Side {
    pub cached_prod: BV,
    pub cached_cons: BV,
}

/// Which end of the ring user space owns.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Pair {
    /// Kernel produces, user consumes (rx, completion).
    KernelToUser,
    /// User produces, kernel consumes (fill, tx).
    UserToKernel,
}

/// Both sides of one ring plus the shared words.
#[derive(Clone)]
pub struct Ring {
    pub pair: Pair,
    pub size: BV,
    pub producer: BV,
    pub consumer: BV,
    pub prod: Side,
    pub cons: Side,
}

impl Ring {
    /// Prefixes of the producer and consumer side variables.
    pub fn prefixes(pair: Pair) -> (&'static str, &'static str) {
        match pair {
            Pair::KernelToUser => ("kp", "uc"),
            Pair::UserToKernel => ("up", "kc"),
        }
    }

    /// Fresh variables for every word, without any assumption, written as
    /// the builder's [`Param`] says.
    pub fn fresh(b: &mut Builder, pair: Pair) -> Ring {
        let (p, q) = Self::prefixes(pair);
        let size = b.var("size");
        let [pcp_n, pcc_n, ccp_n, ccc_n] = [
            format!("{p}.cached_prod"),
            format!("{p}.cached_cons"),
            format!("{q}.cached_prod"),
            format!("{q}.cached_cons"),
        ];
        b.param_used = true;
        // `seen` is the producer's view of the consumer (its cached_cons, less
        // size on the libxdp side)
        let (producer, consumer, pcp, seen, ccp, ccc) = match b.param {
            Param::Consumer => {
                let c = BV::new_const("consumer", W);
                (
                    plus(&c, "producer"),
                    c.clone(),
                    plus(&c, &pcp_n),
                    plus(&c, &pcc_n),
                    plus(&c, &ccp_n),
                    plus(&c, &ccc_n),
                )
            }
            Param::Cursors => {
                let c = BV::new_const("consumer", W);
                let pcp = plus(&c, &pcp_n);
                let ccc = plus(&c, &ccc_n);
                (
                    plus(&c, "producer"),
                    c.clone(),
                    pcp.clone(),
                    minus(&pcp, &pcc_n),
                    plus(&ccc, &ccp_n),
                    ccc,
                )
            }
            Param::ProdCache => {
                let a = BV::new_const(format!("{p}.seen_cons"), W);
                (
                    plus(&a, "producer"),
                    plus(&a, "consumer"),
                    plus(&a, &pcp_n),
                    a.clone(),
                    plus(&a, &ccp_n),
                    plus(&a, &ccc_n),
                )
            }
        };
        let pcc = match pair {
            Pair::KernelToUser => seen,
            Pair::UserToKernel => &seen + &size,
        };
        let r = Ring {
            pair,
            size,
            producer,
            consumer,
            prod: Side {
                cached_prod: pcp,
                cached_cons: pcc,
            },
            cons: Side {
                cached_prod: ccp,
                cached_cons: ccc,
            },
        };
        for (name, v) in r.fields().into_iter().skip(1) {
            b.report(&name, &v);
        }
        r
    }

    /// An arbitrary ring state satisfying the invariant.
    pub fn any(b: &mut Builder, pair: Pair) -> Ring {
        let r = Self::fresh(b, pair);
        b.assume(pow2(&r.size));
        b.assume(r.inv());
        r
    }

    pub fn fields(&self) -> Vec<(String, BV)> {
        let (p, q) = Self::prefixes(self.pair);
        vec![
            ("size".into(), self.size.clone()),
            ("producer".into(), self.producer.clone()),
            ("consumer".into(), self.consumer.clone()),
            (format!("{p}.cached_prod"), self.prod.cached_prod.clone()),
            (format!("{p}.cached_cons"), self.prod.cached_cons.clone()),
            (format!("{q}.cached_prod"), self.cons.cached_prod.clone()),
            (format!("{q}.cached_cons"), self.cons.cached_cons.clone()),
        ]
    }

    /// The producer's view of the consumer, undoing libxdp's `+size` offset.
    pub fn prod_seen_cons(&self) -> BV {
        match self.pair {
            Pair::KernelToUser => self.prod.cached_cons.clone(),
            Pair::UserToKernel => self.prod.cached_cons.bvsub(&self.size),
        }
    }

    /// Free slots as the producer would see them after a refresh.
    pub fn real_free(&self) -> BV {
        self.size.bvsub(d(&self.prod.cached_prod, &self.consumer))
    }

    /// The two-sided invariant. Along the ring it reads
    /// `prod.cached_cons <= consumer <= cons.cached_cons <= cons.cached_prod
    ///  <= producer <= prod.cached_prod`, spanning at most `size`.
    pub fn inv(&self) -> Bool {
        all(&self.inv_parts())
    }

    pub fn inv_parts(&self) -> Vec<Bool> {
        let s = &self.size;
        let p = &self.producer;
        let c = &self.consumer;
        let pcp = &self.prod.cached_prod;
        let pcc = &self.prod_seen_cons();
        let ccp = &self.cons.cached_prod;
        let ccc = &self.cons.cached_cons;
        vec![
            // in flight bounded
            le(&d(p, c), s),
            // producer cursor: reserved span bounded, producer published within it
            le(&d(pcp, c), s),
            le(&d(p, c), &d(pcp, c)),
            // producer cache: never ahead of the consumer, free count cannot underflow
            le(&d(c, pcc), &d(pcp, pcc)),
            le(&d(pcp, pcc), s),
            // consumer cursor and cache: consumer <= cached_cons <= cached_prod <= producer
            le(&d(ccc, c), &d(ccp, c)),
            le(&d(ccp, c), &d(p, c)),
        ]
    }
}
