//! The transmit loop's bounds at the kernel's values, each reached and
//! crossed under both profiles (specs/thresholds.json): TX_BATCH_SIZE
//! descriptors per sendto, MAX_SKB_FRAGS + 1 descriptors per packet.

use super::profile::{V6_12, V6_18};
use super::*;

const EAGAIN: i32 = 11;

fn setup(sg: bool) -> Setup {
    Setup {
        frame_size: 4096,
        frames: 64,
        headroom: 0,
        fill_size: 4,
        comp_size: 64,
        rx_size: 4,
        tx_size: 64,
        need_wakeup: false,
        rx_socket: false,
        loopback: false,
        sg,
        shared: false,
        rx_shared: false,
    }
}

fn d(frame: u64, options: u32) -> TxDesc {
    TxDesc { addr: frame * 4096, len: 60, options, class: "valid".into() }
}

fn kicks(o: &Obs) -> Vec<i32> {
    let Obs::Kicks(k) = o else { panic!("not kicks: {o:?}") };
    k.clone()
}

fn addrs(frames: std::ops::Range<u64>) -> Vec<u64> {
    frames.map(|f| f * 4096).collect()
}

/// TX_BATCH_SIZE: of 40 descriptors one sendto transmits 32 and returns
/// -EAGAIN with the 33rd in place; the next sendto takes the other 8.
#[test]
fn sendto_stops_at_tx_batch_size() {
    for p in [V6_12, V6_18] {
        assert_eq!(p.tx_budget, 32);
        let s = Scenario {
            setup: setup(false),
            ops: vec![Op::Tx((0..40).map(|f| d(f, 0)).collect()), Op::Kick, Op::DrainCq(64), Op::Kick, Op::DrainCq(64)],
        };
        let o = predict(&s, &p);
        assert_eq!(kicks(&o[1]), vec![EAGAIN], "{}", p.name);
        assert_eq!(o[2], Obs::Completions(addrs(0..32)), "{}", p.name);
        assert_eq!(kicks(&o[3]), vec![0], "{}", p.name);
        assert_eq!(o[4], Obs::Completions(addrs(32..40)), "{}", p.name);
    }
}

/// MAX_SKB_FRAGS + 1: a packet of 18 descriptors is sent whole; in one of
/// 19 the last is one fragment too many (-EOVERFLOW) and the whole packet
/// is dropped, every descriptor counted in tx_invalid_descs.
#[test]
fn a_packet_has_at_most_max_skb_frags_plus_one_descriptors() {
    for p in [V6_12, V6_18] {
        assert_eq!(p.max_skb_frags, 17);
        for n in [18u64, 19] {
            let descs: Vec<TxDesc> = (0..n).map(|f| d(f, if f + 1 < n { XDP_PKT_CONTD } else { 0 })).collect();
            let s = Scenario { setup: setup(true), ops: vec![Op::Tx(descs), Op::KickIdle, Op::DrainCq(64), Op::Stats] };
            let o = predict(&s, &p);
            let Obs::Stats { tx, .. } = &o[3] else { panic!("not stats: {:?}", o[3]) };
            if n == 18 {
                assert_eq!((tx.tx_invalid_descs, &o[2]), (0, &Obs::Completions(addrs(0..18))), "{}", p.name);
            } else {
                assert_eq!(tx.tx_invalid_descs, 19, "{}", p.name);
            }
        }
    }
}
