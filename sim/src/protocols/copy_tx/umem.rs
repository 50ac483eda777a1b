//! The umem as the copy path sees it: frame i at address i * frame_size,
//! and the descriptor check of xp_aligned_validate_desc().

use ringlab_ring::XdpDesc;

/// Options bits the kernel knows for tx (XDP_TX_METADATA is 1 << 1 in
/// 6.12; XDP_PKT_CONTD is 1 << 0). Any other bit makes a descriptor invalid.
const KNOWN_OPTIONS: u32 = 0b11;

/// XDP_PKT_CONTD (uapi if_xdp.h): more descriptors of this packet follow.
pub const XDP_PKT_CONTD: u32 = 1 << 0;

/// xp_mb_desc(): the descriptor has XDP_PKT_CONTD.
pub fn is_contd(d: &XdpDesc) -> bool {
    d.options & XDP_PKT_CONTD != 0
}

/// The length of every valid packet the simulated application sends.
pub const PKT_LEN: u32 = 64;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Umem {
    pub frames: u32,
    /// pool->chunk_size.
    pub frame_size: u64,
}

impl Umem {
    pub fn addr(&self, frame: u32) -> u64 {
        frame as u64 * self.frame_size
    }

    /// The frame an address lies in, if it lies in the umem.
    pub fn frame(&self, addr: u64) -> Option<u32> {
        let f = addr / self.frame_size;
        (f < self.frames as u64).then_some(f as u32)
    }

    /// xp_aligned_validate_desc() (no tx metadata): a non-empty packet
    /// within one chunk of the umem, with no unknown option bit.
    pub fn validate(&self, d: &XdpDesc) -> bool {
        let offset = d.addr & (self.frame_size - 1);
        d.len != 0
            && offset + d.len as u64 <= self.frame_size
            && d.addr < self.frames as u64 * self.frame_size
            && d.options & !KNOWN_OPTIONS == 0
    }

    /// The descriptor the application writes for `frame`: a packet, or
    /// (`ok` false) one the kernel must reject, yet still naming the frame
    /// so its completion can return it. `kind` picks how it is broken;
    /// `contd` sets XDP_PKT_CONTD.
    pub fn desc(&self, frame: u32, ok: bool, contd: bool, kind: u32) -> XdpDesc {
        let addr = self.addr(frame);
        let (len, options) = match (ok, kind % 3) {
            (true, _) => (PKT_LEN, 0),
            (false, 0) => (0, 0),
            // Crosses into the next chunk.
            (false, 1) => (self.frame_size as u32 - 8, 0),
            (false, _) => (PKT_LEN, 1 << 7),
        };
        let addr = if !ok && kind % 3 == 1 {
            addr + 16
        } else {
            addr
        };
        let options = if contd {
            options | XDP_PKT_CONTD
        } else {
            options
        };
        XdpDesc { addr, len, options }
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;

    #[test]
    fn broken_descriptors_are_rejected_and_still_name_their_frame() {
        let u = Umem {
            frames: 4,
            frame_size: 2048,
        };
        for f in 0..4 {
            for contd in [false, true] {
                let d = u.desc(f, true, contd, 0);
                assert!(u.validate(&d));
                assert_eq!(is_contd(&d), contd);
                for kind in 0..3 {
                    let d = u.desc(f, false, contd, kind);
                    assert!(!u.validate(&d), "{d:?}");
                    assert_eq!(u.frame(d.addr), Some(f));
                    assert_eq!(is_contd(&d), contd);
                }
            }
        }
        let past = XdpDesc {
            addr: u.addr(4),
            len: 64,
            options: 0,
        };
        assert!(!u.validate(&past));
        assert_eq!(u.frame(past.addr), None);
    }
}
