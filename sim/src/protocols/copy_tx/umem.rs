//! The umem as the copy path sees it: frame i at address i * frame_size,
//! and the model's descriptor check (ringlab_model::desc) on its pool.

use ringlab_model::desc::{xp_validate_desc, Desc, Pool};
use ringlab_ring::XdpDesc;

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

    /// The pool copy mode makes of this umem: aligned, no tx metadata.
    pub fn pool(&self) -> Pool<u64> {
        Pool::aligned(self.frame_size, self.frames as u64 * self.frame_size)
    }

    /// xp_validate_desc() on [`Umem::pool`].
    pub fn validate(&self, d: &XdpDesc) -> bool {
        xp_validate_desc(&self.pool(), &Desc::new(d.addr, d.len, d.options))
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
    use ringlab_model::afxdp::aligned_valid;
    use ringlab_model::desc::{boundary_grid, Mutant};

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

    /// The documented rule, in u128: a non-empty packet inside one chunk
    /// of the umem, no option bit but XDP_PKT_CONTD and XDP_TX_METADATA.
    fn legal(u: &Umem, d: &XdpDesc) -> bool {
        let (a, l, c) = (d.addr as u128, d.len as u128, u.frame_size as u128);
        l > 0 && a / c == (a + l - 1) / c && a / c < u.frames as u128 && d.options < 4
    }

    /// The simulator and the model judge every boundary descriptor alike
    /// (one check serves both), and as the rule says.
    #[test]
    fn boundary_grid_judged_as_the_model_does() {
        for (frames, frame_size) in [(4, 2048), (16, 2048), (64, 4096)] {
            let u = Umem { frames, frame_size };
            let grid = boundary_grid(frame_size, frames as u64 * frame_size);
            assert!(grid.len() > 50);
            for g in grid {
                let d = XdpDesc {
                    addr: g.addr,
                    len: g.len,
                    options: g.options,
                };
                let model = aligned_valid(
                    d.addr,
                    d.len,
                    d.options,
                    frame_size as u32,
                    frames as u64 * frame_size,
                );
                assert_eq!(u.validate(&d), model, "{}: {d:?}", g.what);
                if Mutant::built() == Mutant::None {
                    assert_eq!(model, legal(&u, &d), "{}: {d:?}", g.what);
                }
            }
        }
    }
}
