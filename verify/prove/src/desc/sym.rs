//! The model's descriptor check run on Z3 bit-vectors: ringlab_model's
//! `Word` for a 64-bit BV, `Logic` for a Bool.

use ringlab_model::desc::{Logic, Word};
use z3::ast::{Bool, BV};

/// A 64-bit word.
#[derive(Clone, Debug)]
pub struct Sym(pub BV);

/// Its truth values.
#[derive(Clone, Debug)]
pub struct Formula(pub Bool);

pub const WORD: u32 = 64;

impl Logic for Formula {
    fn lit(b: bool) -> Self {
        Formula(Bool::from_bool(b))
    }
    fn and(&self, o: &Self) -> Self {
        Formula(Bool::and(&[&self.0, &o.0]))
    }
    fn or(&self, o: &Self) -> Self {
        Formula(Bool::or(&[&self.0, &o.0]))
    }
    fn not(&self) -> Self {
        Formula(self.0.not())
    }
}

impl Word for Sym {
    type Bool = Formula;
    fn lit(v: u64) -> Self {
        Sym(BV::from_u64(v, WORD))
    }
    fn add(&self, o: &Self) -> Self {
        Sym(self.0.bvadd(&o.0))
    }
    fn sub(&self, o: &Self) -> Self {
        Sym(self.0.bvsub(&o.0))
    }
    fn and(&self, o: &Self) -> Self {
        Sym(self.0.bvand(&o.0))
    }
    fn shr(&self, n: u32) -> Self {
        Sym(self.0.bvlshr(BV::from_u64(n as u64, WORD)))
    }
    fn is_eq(&self, o: &Self) -> Formula {
        Formula(self.0.eq(&o.0))
    }
    fn ult(&self, o: &Self) -> Formula {
        Formula(self.0.bvult(&o.0))
    }
}
