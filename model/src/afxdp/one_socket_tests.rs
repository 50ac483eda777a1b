//! The second socket's operations on a model set up with one: what the
//! harness reports when a scenario names a socket that is not there (no
//! submission, a sendto result of 0), never a panic.

use super::chain_tests::setup;
use super::*;

#[test]
fn a_second_socket_that_is_not_there_takes_nothing_and_returns_zero() {
    let d = TxDesc { addr: 0, len: 60, options: 0, class: "valid".into() };
    let mut m = Model::new(&setup(false, false), &Profile::for_release("6.18"));
    assert_eq!(m.apply(&Op::Tx2(vec![d.clone()])), Obs::Reserved(false));
    assert_eq!(m.apply(&Op::Kick2), Obs::Kicks(vec![0]));
    assert_eq!(m.apply(&Op::Tx(vec![d])), Obs::Reserved(true));
    let Obs::Both { kicks, first, second } = m.apply(&Op::KickBoth) else { panic!("not Both") };
    assert_eq!(kicks, [0, 0], "socket 0 sent its descriptor; socket 1 is not there");
    assert_eq!(first, vec![0]);
    assert!(second.is_empty());
}
