//! Model against kernel, observation by observation. Every field is
//! compared exactly, completion addresses included in ring order: a single
//! socket on veth completes in transmit order (xsk_destruct_skb runs inside
//! __dev_direct_xmit, one skb at a time), and so do shared-umem sockets
//! whose sendto calls follow one another. Only Op::KickBoth, two sendto
//! calls at once on sockets sharing the CQ, is compared per socket
//! (Obs::Both), the interleaving being the scheduler's.

use serde::{Deserialize, Serialize};

use ringlab_model::afxdp::{predict, Obs, Profile, Scenario};

use crate::env::Env;
use crate::runner;
use crate::txopts::TxOpts;

/// The first observation where kernel and model differ.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Mismatch {
    /// Index into the operations; `ops.len()` is the final ring indices.
    pub at: usize,
    pub model: Obs,
    pub kernel: Obs,
}

pub fn first_mismatch(model: &[Obs], kernel: &[Obs]) -> Option<Mismatch> {
    model
        .iter()
        .zip(kernel)
        .position(|(m, k)| m != k)
        .map(|at| Mismatch { at, model: model[at].clone(), kernel: kernel[at].clone() })
}

/// Both sides' observations of one scenario, and where they first differ.
#[derive(Debug, Clone)]
pub struct Compared {
    pub kernel: Vec<Obs>,
    pub model: Vec<Obs>,
    pub mismatch: Option<Mismatch>,
}

/// Runs `s` on both sides, the kernel's sockets set up as `p` says
/// (TxOpts).
pub fn compare(env: &Env, s: &Scenario, p: &Profile) -> std::io::Result<Compared> {
    let kernel = runner::run_with(env, s, &TxOpts::of(p))?;
    let model = predict(s, p);
    let mismatch = first_mismatch(&model, &kernel);
    Ok(Compared { kernel, model, mismatch })
}

/// Where `s` run on both sides first differs, if it does.
pub fn check(env: &Env, s: &Scenario, p: &Profile) -> std::io::Result<Option<Mismatch>> {
    compare(env, s, p).map(|c| c.mismatch)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_differing_observation_is_named_with_both_sides() {
        let model = vec![Obs::Reserved(true), Obs::Kicks(vec![0]), Obs::Completions(vec![0, 4096])];
        assert_eq!(first_mismatch(&model, &model), None);
        let mut kernel = model.clone();
        kernel[2] = Obs::Completions(vec![4096, 0]);
        assert_eq!(
            first_mismatch(&model, &kernel),
            Some(Mismatch { at: 2, model: model[2].clone(), kernel: kernel[2].clone() })
        );
        kernel[1] = Obs::Kicks(vec![11]);
        assert_eq!(first_mismatch(&model, &kernel).map(|m| m.at), Some(1));
    }
}
