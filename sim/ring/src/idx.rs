//! Free-running u32 ring positions. Producer and consumer counters only
//! ever grow and wrap at 2^32; every comparison is a wrapping distance.

/// `a + b` on a position.
#[inline]
pub fn add(a: u32, b: u32) -> u32 {
    // mutant-wrapping-add: a plain `+` on a free-running index panics at
    // u32::MAX under overflow checks (xsk-rs issue #53).
    if ringlab_mutant::on("mutant-wrapping-add") {
        return a + b;
    }
    a.wrapping_add(b)
}

/// The wrapping distance `a - b`.
#[inline]
pub fn sub(a: u32, b: u32) -> u32 {
    a.wrapping_sub(b)
}

/// Position `i` lies in `[from, to)`, all three free running.
#[inline]
pub fn within(i: u32, from: u32, to: u32) -> bool {
    sub(i, from) < sub(to, from)
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;

    #[test]
    fn distances_wrap() {
        assert_eq!(sub(1, u32::MAX), 2);
        assert!(within(0, u32::MAX - 1, 2));
        assert!(!within(2, u32::MAX - 1, 2));
        assert!(!within(5, 5, 5));
    }

    #[test]
    fn add_wraps() {
        assert_eq!(add(u32::MAX, 2), 1);
    }

    #[test]
    fn add_overflows_with_the_mutant() {
        if ringlab_mutant::on("mutant-wrapping-add") {
            assert!(std::panic::catch_unwind(|| add(u32::MAX, 2)).is_err(), "overflow");
        }
    }
}
