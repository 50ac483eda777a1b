//! The fixed sample `ringlab verify` runs: per group, the mutants whose
//! names hash lowest. The same names every run, whatever else changes.

/// FNV-1a of `s`, then splitmix64's finaliser, so that names sharing a
/// prefix spread.
fn hash(s: &str) -> u64 {
    let h = s.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| (h ^ b as u64).wrapping_mul(0x0100_0000_01b3));
    let mut z = h.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// The `n` names of `ids` that hash lowest, in their original order.
pub fn pick<'a>(ids: &[&'a str], n: usize) -> Vec<&'a str> {
    let mut by: Vec<(u64, &str)> = ids.iter().map(|i| (hash(i), *i)).collect();
    by.sort_unstable();
    let keep: Vec<&str> = by.into_iter().take(n).map(|(_, i)| i).collect();
    ids.iter().copied().filter(|i| keep.contains(i)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_sample_is_stable_and_ordered() {
        let ids = ["a", "b", "c", "d", "e"];
        let s = pick(&ids, 2);
        assert_eq!(s.len(), 2);
        assert_eq!(s, pick(&ids, 2));
        // Adding a name changes the sample only if it hashes lower.
        let more = ["a", "b", "c", "d", "e", "f"];
        let t = pick(&more, 2);
        assert!(t.iter().filter(|i| s.contains(i)).count() >= 1);
    }
}
