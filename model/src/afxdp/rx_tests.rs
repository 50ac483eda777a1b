//! Receive in the model: two RX sockets on one pool, frames the program
//! does not redirect, a second socket that is not there. The live
//! counterparts (kernel/tests/rx.rs) hold the kernel to the same figures.

use super::chain_tests::setup;
use super::*;

const T0: u32 = 1_000_000;

fn rx_setup(rx_shared: bool) -> Setup {
    Setup { rx_socket: true, rx_shared, fill_size: 4, rx_size: 4, ..setup(false, false) }
}

fn tags(o: Obs) -> Vec<u32> {
    let Obs::Rx(v) = o else { panic!("not rx: {o:?}") };
    v.iter().map(|d| d.3).collect()
}

#[test]
fn two_rx_sockets_take_from_one_fill_ring_and_report_its_misses() {
    let mut m = Model::new(&rx_setup(true), &Profile::for_release("6.18"));
    use XdpAct::{Redirect as R, Redirect2 as R2};
    assert_eq!(m.apply(&Op::Fill(3)), Obs::Reserved(true));
    m.apply(&Op::InjectAs(vec![(60, R), (60, R2), (60, R), (60, R2)]));
    assert_eq!(tags(m.apply(&Op::ConsumeRx(8))), vec![T0, T0 + 2]);
    assert_eq!(tags(m.apply(&Op::ConsumeRx2(8))), vec![T0 + 1]);
    let Obs::Stats { rx: Some(a), rx2: Some(b), .. } = m.apply(&Op::Stats) else { panic!("no rx stats") };
    assert_eq!((a.rx_dropped, a.rx_fill_ring_empty_descs), (0, 1));
    assert_eq!((b.rx_dropped, b.rx_fill_ring_empty_descs), (1, 1));
}

#[test]
fn frames_not_redirected_take_no_buffer_and_no_count() {
    for rx_shared in [false, true] {
        let mut m = Model::new(&rx_setup(rx_shared), &Profile::for_release("6.18"));
        m.apply(&Op::Fill(4));
        let acts = [XdpAct::Drop, XdpAct::Pass, XdpAct::Redirect2, XdpAct::Redirect];
        m.apply(&Op::InjectAs(acts.iter().map(|a| (60, *a)).collect()));
        assert_eq!(tags(m.apply(&Op::ConsumeRx(8))), vec![T0 + 3]);
        let Obs::Rings(r) = m.apply(&Op::Rings) else { panic!() };
        assert_eq!(r.fill.1, 1 + rx_shared as u32, "one buffer per frame redirected to a socket");
        assert_eq!(r.rx2, (rx_shared as u32, 0));
    }
}
