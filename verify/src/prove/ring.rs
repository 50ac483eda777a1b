//! Shared encoding: 32-bit counters, wrapping distance, the two-sided ring
//! invariant and a small builder for verification conditions.

use z3::ast::{Bool, BV};

/// Counter width: the ring's producer/consumer words are u32.
pub const W: u32 = 32;

/// A verification condition: `hyp => goal`, checked by refuting `hyp /\ !goal`.
pub struct Vc {
    /// Free variables, reported in a counterexample.
    pub free: Vec<(String, BV)>,
    /// Post-state values, reported with a `'` suffix.
    pub derived: Vec<(String, BV)>,
    pub hyp: Vec<Bool>,
    pub goal: Bool,
}

#[derive(Default)]
pub struct Builder {
    free: Vec<(String, BV)>,
    derived: Vec<(String, BV)>,
    hyp: Vec<Bool>,
}

impl Builder {
    pub fn new() -> Self {
        Self::default()
    }

    /// A fresh named u32 variable.
    pub fn var(&mut self, name: &str) -> BV {
        let v = BV::new_const(name, W);
        self.free.push((name.to_string(), v.clone()));
        v
    }

    /// A u32 variable written as `anchor + offset` with a fresh offset. Since
    /// `offset -> anchor + offset` is a bijection on u32 this still ranges over
    /// every value; it only lets the word-level simplifier cancel `anchor`.
    pub fn var_from(&mut self, name: &str, anchor: &BV) -> BV {
        let v = anchor.bvadd(BV::new_const(format!("{name}-off"), W));
        self.free.push((name.to_string(), v.clone()));
        v
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
        for ((name, a), (_, b)) in pre.fields().into_iter().zip(post.fields()) {
            if !a.ast_eq(&b) {
                self.show(&name, &b);
            }
        }
    }

    pub fn prove(self, goal: Bool) -> Vc {
        Vc { free: self.free, derived: self.derived, hyp: self.hyp, goal }
    }
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
    Bool::and(xs)
}

/// `size` is a power of two, i.e. one of 1, 2, 4, .., 2^31.
pub fn pow2(size: &BV) -> Bool {
    let one = c(1);
    all(&[size.eq(c(0)).not(), size.bvand(size.bvsub(&one)).eq(c(0))])
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

    /// Fresh variables for every word, without any assumption.
    pub fn fresh(b: &mut Builder, pair: Pair) -> Ring {
        let (p, q) = Self::prefixes(pair);
        let size = b.var("size");
        let consumer = b.var("consumer");
        let producer = b.var_from("producer", &consumer);
        Ring {
            pair,
            prod: Side {
                cached_prod: b.var_from(&format!("{p}.cached_prod"), &consumer),
                cached_cons: b.var_from(&format!("{p}.cached_cons"), &consumer),
            },
            cons: Side {
                cached_prod: b.var_from(&format!("{q}.cached_prod"), &consumer),
                cached_cons: b.var_from(&format!("{q}.cached_cons"), &consumer),
            },
            size,
            producer,
            consumer,
        }
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
        let s = &self.size;
        let p = &self.producer;
        let c = &self.consumer;
        let pcp = &self.prod.cached_prod;
        let pcc = &self.prod_seen_cons();
        let ccp = &self.cons.cached_prod;
        let ccc = &self.cons.cached_cons;
        all(&[
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
        ])
    }
}
