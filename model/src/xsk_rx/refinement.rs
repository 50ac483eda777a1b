//! XskRedirectXsk.tla's PROPERTY Refinement (Map!Spec): every step of the
//! fast path, seen through the mapping Map, is a step of XskRx's XSKMAP
//! path (Redirect = "map", no mutant, the full Next) or leaves the mapped
//! variables unchanged.

use super::action::Action;
use super::config::Config;
use super::state::State;

/// Map!Init: the image of initial state `s` is the XSKMAP path's initial
/// state under `abs` (the Map instance's constants, Config::refined).
pub fn refines_init(abs: &Config, s: &State) -> bool {
    s.refinement_image() == State::init(abs)
}

/// [Map!Next]_Map!vars: the image of `t` equals the image of `s` (a
/// stutter) or is a successor of it under `abs`'s Next. The action the
/// concrete step took is tried first (with the same parameters it names
/// the abstract step in most cases); every action is tried otherwise.
pub fn refines_step(abs: &Config, s: &State, a: &Action, t: &State) -> bool {
    let (from, to) = (s.refinement_image(), t.refinement_image());
    if from == to || from.step(abs, a).as_ref() == Some(&to) {
        return true;
    }
    from.successors(abs).into_iter().any(|(_, u)| u == to)
}
