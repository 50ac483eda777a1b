//! The seed's figures (seed 003, the io_uring zero-copy TX series, v2
//! cover letter), K requests/s, by its names for the modes. Its first
//! table: UDP/IPv4 to a dummy netdev, 4096-byte payloads. Its second:
//! UDP/IPv6 between a pair of NICs, by payload (there "msg_zerocopy" is the
//! copying run and "msg_zerocopy -z" the zero-copy one).

/// Payloads the seed's second table has that this bench also sends.
const NIC_PAYLOADS: [usize; 3] = [4096, 1024, 128];

/// First table.
const DUMMY_4096: [(&str, f64); 8] = [
    ("msg_zerocopy (non-zc)", 1120.0),
    ("msg_zerocopy (zc)", 997.0),
    ("io_uring -n1 -z0", 1469.0),
    ("io_uring -n8 -z0", 1780.0),
    ("io_uring -n1 -f", 1688.0),
    ("io_uring -n1", 1774.0),
    ("io_uring -n8 -f", 2075.0),
    ("io_uring -n8", 2265.0),
];

/// Second table, columns in NIC_PAYLOADS' order, rows renamed as the first
/// table names them (its "io_uring -n8 (dummy)" rows are left out).
const NIC: [(&str, [f64; 3]); 8] = [
    ("msg_zerocopy (non-zc)", [278.0, 301.0, 317.0]),
    ("msg_zerocopy (zc)", [187.0, 186.0, 188.0]),
    ("io_uring -n1 -z0", [303.0, 329.0, 341.0]),
    ("io_uring -n8 -z0", [366.0, 407.0, 428.0]),
    ("io_uring -n1 -f", [317.0, 317.0, 318.0]),
    ("io_uring -n1", [325.0, 327.0, 331.0]),
    ("io_uring -n8 -f", [387.0, 390.0, 391.0]),
    ("io_uring -n8", [405.0, 403.0, 408.0]),
];

/// The dummy-netdev figure of mode `name` (4096 bytes).
pub fn dummy_4096(name: &str) -> Option<f64> {
    DUMMY_4096.iter().find(|(n, _)| *n == name).map(|(_, k)| *k)
}

/// The NIC-pair figure of mode `name` at `payload` bytes.
pub fn nic(name: &str, payload: usize) -> Option<f64> {
    let col = NIC_PAYLOADS.iter().position(|p| *p == payload)?;
    NIC.iter().find(|(n, _)| *n == name).map(|(_, k)| k[col])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::iouring_modes::MODES;

    #[test]
    fn every_mode_has_the_seeds_figures() {
        for m in MODES {
            assert!(dummy_4096(&m.name()).is_some(), "{} not in the dummy table", m.name());
            for p in NIC_PAYLOADS {
                assert!(nic(&m.name(), p).is_some(), "{} at {p} not in the NIC table", m.name());
            }
        }
        assert_eq!(dummy_4096("io_uring -n8"), Some(2265.0));
        assert_eq!(nic("msg_zerocopy (zc)", 128), Some(188.0));
        assert_eq!(nic("io_uring -n8", 512), None);
    }
}
