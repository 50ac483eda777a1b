//! What the simulator stores in an entry: its own position, so a stale or
//! overwritten entry shows as a wrong value, and whether it is valid.

use ringlab_ring::XdpDesc;

/// An entry type the simulator can tag with a position.
pub trait Payload: Copy + Send + 'static {
    /// The content of a slot never stored into.
    const NEVER: Self;
    /// The entry stored for position `pos`.
    fn entry(pos: u32, valid: bool) -> Self;
    /// The position this entry was stored for; `None` if never stored.
    fn pos(self) -> Option<u32>;
    /// Whether the kernel's validation accepts it.
    fn valid(self) -> bool;
}

/// Bit 63 marks an address past any umem, which validation rejects.
const BAD_ADDR: u64 = 1 << 63;

/// A fill or completion ring entry (a umem address).
impl Payload for u64 {
    const NEVER: u64 = u64::MAX;
    fn entry(pos: u32, valid: bool) -> u64 {
        pos as u64 | if valid { 0 } else { BAD_ADDR }
    }
    fn pos(self) -> Option<u32> {
        (self != Self::NEVER).then_some(self as u32)
    }
    fn valid(self) -> bool {
        self & BAD_ADDR == 0
    }
}

/// An rx or tx descriptor; zero length is invalid.
impl Payload for XdpDesc {
    const NEVER: XdpDesc = XdpDesc {
        addr: u64::MAX,
        len: 1,
        options: 0,
    };
    fn entry(pos: u32, valid: bool) -> XdpDesc {
        XdpDesc {
            addr: pos as u64,
            len: valid as u32,
            options: 0,
        }
    }
    fn pos(self) -> Option<u32> {
        (self.addr != u64::MAX).then_some(self.addr as u32)
    }
    fn valid(self) -> bool {
        self.is_valid()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn round_trip<E: Payload>() {
        for (pos, valid) in [(0, true), (u32::MAX, false), (7, true)] {
            let e = E::entry(pos, valid);
            assert_eq!(e.pos(), Some(pos));
            assert_eq!(e.valid(), valid);
        }
        assert_eq!(E::NEVER.pos(), None);
    }

    #[test]
    fn entries_carry_position_and_validity() {
        round_trip::<u64>();
        round_trip::<XdpDesc>();
    }
}
