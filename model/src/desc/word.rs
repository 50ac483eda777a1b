//! The arithmetic the descriptor checks are written in: a 64-bit word with
//! the kernel's u64 semantics (wrapping add and sub, and, logical shift
//! right, unsigned compares) and the truth values its compares give.
//! Implemented here for `u64` and `bool`; ringlab-prove implements it for
//! Z3 bit-vectors, so the same checks run concretely and symbolically.

/// Truth values: `bool`, or a solver's formula.
pub trait Logic: Clone {
    fn lit(b: bool) -> Self;
    fn and(&self, o: &Self) -> Self;
    fn or(&self, o: &Self) -> Self;
    fn not(&self) -> Self;
}

/// A u64 as C computes with it.
pub trait Word: Clone {
    type Bool: Logic;
    fn lit(v: u64) -> Self;
    /// `a + b`, wrapping at 2^64.
    fn add(&self, o: &Self) -> Self;
    /// `a - b`, wrapping at 2^64.
    fn sub(&self, o: &Self) -> Self;
    fn and(&self, o: &Self) -> Self;
    fn shr(&self, n: u32) -> Self;
    fn is_eq(&self, o: &Self) -> Self::Bool;
    fn ult(&self, o: &Self) -> Self::Bool;

    fn ugt(&self, o: &Self) -> Self::Bool {
        o.ult(self)
    }
    fn uge(&self, o: &Self) -> Self::Bool {
        self.ult(o).not()
    }
    /// check_sub_overflow() on u64: the wrapped difference, and whether it
    /// wrapped.
    fn check_sub_overflow(&self, o: &Self) -> (Self, Self::Bool) {
        (self.sub(o), self.ult(o))
    }
    /// check_add_overflow() on u64: the wrapped sum, and whether it wrapped.
    fn check_add_overflow(&self, o: &Self) -> (Self, Self::Bool) {
        let s = self.add(o);
        let wrapped = s.ult(self);
        (s, wrapped)
    }
}

impl Logic for bool {
    fn lit(b: bool) -> Self {
        b
    }
    fn and(&self, o: &Self) -> Self {
        *self && *o
    }
    fn or(&self, o: &Self) -> Self {
        *self || *o
    }
    fn not(&self) -> Self {
        !*self
    }
}

impl Word for u64 {
    type Bool = bool;
    fn lit(v: u64) -> Self {
        v
    }
    fn add(&self, o: &Self) -> Self {
        self.wrapping_add(*o)
    }
    fn sub(&self, o: &Self) -> Self {
        self.wrapping_sub(*o)
    }
    fn and(&self, o: &Self) -> Self {
        *self & *o
    }
    fn shr(&self, n: u32) -> Self {
        *self >> n
    }
    fn is_eq(&self, o: &Self) -> bool {
        *self == *o
    }
    fn ult(&self, o: &Self) -> bool {
        *self < *o
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn overflow_checks_match_std() {
        for (a, b) in [
            (0u64, 0u64),
            (0, 1),
            (1, 0),
            (u64::MAX, 1),
            (u64::MAX, u64::MAX),
            (5, 7),
        ] {
            assert_eq!(Word::check_sub_overflow(&a, &b), a.overflowing_sub(b));
            assert_eq!(Word::check_add_overflow(&a, &b), a.overflowing_add(b));
        }
    }
}
