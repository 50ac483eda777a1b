//! The batch series' socket options through the harness (src/txopts.rs):
//! a TX budget the kernel must apply, and the batch profile, which runs
//! where the series is applied and fails, saying why, where it is not.
//! Prints SKIP when this process cannot use AF_XDP.

use ringlab_kernel::campaign::{self, in_sandbox, Opts};
use ringlab_kernel::compare::check;
use ringlab_kernel::env::release;
use ringlab_kernel::probe::probe;
use ringlab_model::afxdp::{predict, Obs, Op, Profile, Scenario, Setup};

mod common;

use common::{desc, setup, skip};

/// SKIP (true) without AF_XDP or without XDP_MAX_TX_SKB_BUDGET.
fn skip_without_budget() -> bool {
    if skip() {
        return true;
    }
    if !probe().unwrap().max_tx_budget_supported {
        println!("SKIP: no XDP_MAX_TX_SKB_BUDGET on {}", release());
        return true;
    }
    false
}

fn opts(scenarios: u64, seed: u64) -> Opts {
    Opts { scenarios, seed, progress: false, out: None, stop_after: Some(1), jobs: 0, observe: false }
}

/// XDP_MAX_TX_SKB_BUDGET 64 on a 128-entry ring: 100 frames take two
/// calls, 64 then 36. Without the option set the kernel would stop at 32.
#[test]
fn tx_budget_option_is_applied() {
    if skip_without_budget() {
        return;
    }
    let mut p = Profile::for_release(&release());
    p.tx_budget = 64;
    let descs = (0..100).map(|k| desc((k % 64) * 4096, 60, 0, "valid")).collect();
    let s = Scenario {
        setup: Setup { tx_size: 128, ..setup(false, false) },
        ops: vec![Op::Tx(descs), Op::Kick, Op::DrainCq(128), Op::Kick, Op::DrainCq(128), Op::Stats],
    };
    let want = predict(&s, &p);
    let Obs::Completions(first) = &want[2] else { panic!() };
    assert_eq!((want[1].clone(), first.len()), (Obs::Kicks(vec![11]), 64));
    let m = in_sandbox(move |env| check(env, &s, &p)).unwrap();
    assert!(m.is_none(), "kernel diverges from the model: {m:?}");
}

/// A campaign with a budget over 32 under the running kernel's profile:
/// the generator fits the TX rings to it.
#[test]
fn campaign_with_budget_100() {
    if skip_without_budget() {
        return;
    }
    let mut p = Profile::for_release(&release());
    p.tx_budget = 100;
    let sum = campaign::run_with(opts(100, 0xb0d6_e700), p, 1).unwrap();
    assert!(sum.divergences.is_empty(), "{:#?}", sum.divergences);
}

/// Where the series is applied, campaigns at batch 1, 16 and 64 agree
/// with the batch profile; where it is not, the campaign fails and says
/// why instead of running without the option.
#[test]
fn batch_profile_needs_the_series() {
    if skip() {
        return;
    }
    if !probe().unwrap().xmit_batch_supported {
        let e = campaign::run_with(opts(2, 1), Profile::batch(16, 32), 1).unwrap_err();
        println!("refused as expected: {e}");
        assert!(e.to_string().contains("no XDP_GENERIC_XMIT_BATCH (is the series applied?)"), "{e}");
        return;
    }
    for (batch, budget) in [(1, 32), (16, 32), (16, 40), (64, 64), (64, 128)] {
        let sum = campaign::run_with(opts(100, 0xba7c_0000 + batch), Profile::batch(batch as u32, budget), 1).unwrap();
        assert!(sum.divergences.is_empty(), "batch {batch}, budget {budget}: {:#?}", sum.divergences);
    }
}
