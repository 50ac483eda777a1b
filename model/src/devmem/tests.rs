//! Unit tests of the actions whose semantics are easy to get wrong, and of
//! the TLA+ printer.

use super::tla::{action, constants, state_conjunction, state_record, variables};
use super::*;

const S0: Sock = Sock { b: 0, i: 0 };
const S1: Sock = Sock { b: 0, i: 1 };
const N0: Niov = Niov { b: 0, i: 0 };
const N1: Niov = Niov { b: 0, i: 1 };

/// Run `actions` from Init, each of which must be enabled.
fn run(cfg: &Config, actions: &[Action]) -> State {
    let mut s = State::init(cfg);
    for a in actions {
        assert!(s.enabled(cfg).contains(a), "{a} is not enabled");
        s = s.step(cfg, a).unwrap_or_else(|| panic!("{a} did not step"));
    }
    s
}

fn recv(s: Sock) -> Action {
    Action::RecvMsg { s, told: true }
}

#[test]
fn xarray_ids_are_allocated_lowest_free_first() {
    let cfg = Config::xarray();
    let mut s = run(
        &cfg,
        &[
            Action::BindRx {
                b: 0,
                m: Mode::Xarray,
            },
            Action::RxFrag { s: S0, n: N0 },
            Action::RxFrag { s: S0, n: N1 },
            recv(S0),
            recv(S0),
            recv(S0),
        ],
    );
    assert_eq!(s.xa[0], [Some(N0), Some(N0), Some(N1), None]);
    // Returning id 0 frees it; the next piece takes id 0 again, not 3.
    s = s
        .step(&cfg, &Action::Dontneed { s: S0, t: 0, c: 1 })
        .unwrap();
    assert_eq!(s.xa[0], [None, Some(N0), Some(N1), None]);
    assert_eq!(s.user[0], [0, 1, 1, 0]);
    s = s.step(&cfg, &recv(S0)).unwrap();
    assert_eq!(s.xa[0], [Some(N1), Some(N0), Some(N1), None]);
    assert!(s.rxq[0].is_empty());
    assert_eq!(s.violations(&cfg), Vec::<&str>::new());
    // The other socket's xarray is its own: ids there are not found.
    let t = s
        .step(&cfg, &Action::Dontneed { s: S1, t: 0, c: 3 })
        .unwrap();
    assert_eq!((t.xa, t.user, t.work), (s.xa.clone(), s.user.clone(), 2));
}

#[test]
fn array_tokens_are_indices_and_holder_prefers_the_own_socket() {
    let cfg = Config::array();
    let bound = [
        Action::BindRx {
            b: 0,
            m: Mode::Array,
        },
        Action::RxFrag { s: S0, n: N1 },
        recv(S0),
        recv(S0),
    ];
    let s = run(&cfg, &bound);
    assert_eq!(
        (s.uref.clone(), s.user[0].clone()),
        (vec![0, 2], vec![0, 2, 0, 0])
    );
    // S1 returns token 1, which S0 received: recorded as stolen.
    let t = s
        .step(&cfg, &Action::Dontneed { s: S1, t: 1, c: 1 })
        .unwrap();
    assert_eq!(t.uref, [0, 1]);
    assert_eq!(t.user[0], [0, 1, 0, 0]);
    assert_eq!(
        t.stolen.iter().copied().collect::<Vec<_>>(),
        [Stolen {
            tok: 1,
            by: S1,
            from: S0
        }]
    );
    assert!(!t.own_tokens_only(&cfg));
    assert_eq!(
        t.violated(&cfg, &["RefsAccounted", "OwnTokensOnly"]),
        Some("OwnTokensOnly")
    );
    // Through S0 itself: not stolen.
    let t = s
        .step(&cfg, &Action::Dontneed { s: S0, t: 0, c: 2 })
        .unwrap();
    assert!(t.stolen.is_empty());
    assert_eq!((t.uref, t.user[0].clone()), (vec![0, 1], vec![0, 1, 0, 0]));
    // Holder: the own socket when it holds one, else the first that does.
    let mut both = s.clone();
    both.user[1][1] = 1;
    assert_eq!(both.holder(&cfg, S1, 1), S1);
    assert_eq!(both.holder(&cfg, S0, 1), S0);
    assert_eq!(s.holder(&cfg, S1, 1), S0);
    assert_eq!(s.holder(&cfg, S1, 0), S1);
    // Once unbound, an array-mode binding hands out no tokens; in xarray
    // mode it still does.
    let mut q = run(&cfg, &bound[..2]);
    q = q.step(&cfg, &Action::Unbind { b: 0 }).unwrap();
    assert!(q.step(&cfg, &recv(S0)).is_none());
    let x = Config::xarray();
    let mut q = run(
        &x,
        &[
            Action::BindRx {
                b: 0,
                m: Mode::Xarray,
            },
            Action::RxFrag { s: S0, n: N1 },
        ],
    );
    q = q.step(&x, &Action::Unbind { b: 0 }).unwrap();
    assert!(q.step(&x, &recv(S0)).is_some());
}

#[test]
fn put_returns_a_niov_to_the_pool_at_exactly_zero() {
    let cfg = Config::xarray();
    let s = run(
        &cfg,
        &[
            Action::BindRx {
                b: 0,
                m: Mode::Xarray,
            },
            Action::RxFrag { s: S0, n: N0 },
            recv(S0),
        ],
    );
    // One piece read: the skb's reference and the token's.
    assert_eq!((s.pool[0], s.ppref[0]), (0, 2));
    let s = s.step(&cfg, &recv(S0)).unwrap();
    // The skb is freed: two tokens remain.
    assert_eq!((s.pool[0], s.ppref[0], s.rxq[0].len()), (0, 2, 0));
    let s = s
        .step(&cfg, &Action::Dontneed { s: S0, t: 1, c: 1 })
        .unwrap();
    assert_eq!((s.pool[0], s.ppref[0]), (0, 1));
    let s = s
        .step(&cfg, &Action::Dontneed { s: S0, t: 0, c: 1 })
        .unwrap();
    assert_eq!((s.pool[0], s.ppref[0]), (1, 0));
    assert!(s.pool_only_unreferenced(&cfg));
    // The direct check of Put: only a decrement that lands on zero.
    let mut p = s.clone();
    p.ppref = vec![2, -1];
    p.pool = vec![0, 0];
    p.put(&[1, -1]);
    assert_eq!((p.ppref.clone(), p.pool.clone()), (vec![1, 0], vec![0, 0]));
    p.put(&[1, 0]);
    assert_eq!((p.ppref, p.pool), (vec![0, 0], vec![1, 0]));
}

#[test]
fn dontneed_examines_at_most_the_limit() {
    let cfg = Config::xarray();
    let s = run(
        &cfg,
        &[
            Action::BindRx {
                b: 0,
                m: Mode::Xarray,
            },
            Action::RxFrag { s: S0, n: N0 },
            Action::RxFrag { s: S0, n: N1 },
            recv(S0),
            recv(S0),
            recv(S0),
        ],
    );
    // token_count 3 from 0, limit 2: ids 0 and 1 only.
    let t = s
        .step(&cfg, &Action::Dontneed { s: S0, t: 0, c: 3 })
        .unwrap();
    assert_eq!(
        (t.work, t.xa[0].clone()),
        (2, vec![None, None, Some(N1), None])
    );
    assert!(t.budget_per_call(&cfg));
    // Past the end of Toks: examined, not found.
    let t = s
        .step(&cfg, &Action::Dontneed { s: S0, t: 3, c: 3 })
        .unwrap();
    assert_eq!((t.work, &t.xa), (2, &s.xa));
    // dm-dontneed-loop walks all of them, over budget.
    let lp = cfg.clone().with_mutant(Mutant::DontneedLoop);
    let t = s
        .step(&lp, &Action::Dontneed { s: S0, t: 0, c: 3 })
        .unwrap();
    assert_eq!((t.work, t.xa[0].clone()), (3, vec![None, None, None, None]));
    assert_eq!(t.violated(&lp, &["BudgetPerCall"]), Some("BudgetPerCall"));
    // Outside 1 .. MaxCount or Toks: no such action.
    assert!(s
        .step(&cfg, &Action::Dontneed { s: S0, t: 0, c: 4 })
        .is_none());
    assert!(s
        .step(&cfg, &Action::Dontneed { s: S0, t: 4, c: 1 })
        .is_none());
}

#[test]
fn uref_race_splits_the_release_in_array_mode() {
    let cfg = Config::array().with_mutant(Mutant::UrefRace);
    let s = run(
        &cfg,
        &[
            Action::BindRx {
                b: 0,
                m: Mode::Array,
            },
            Action::RxFrag { s: S0, n: N0 },
            recv(S0),
        ],
    );
    assert!(s
        .step(&cfg, &Action::Dontneed { s: S0, t: 0, c: 1 })
        .is_none());
    assert!(s
        .step(&cfg, &Action::DontneedRead { s: S0, t: 1 })
        .is_none());
    let s = s.step(&cfg, &Action::DontneedRead { s: S0, t: 0 }).unwrap();
    assert_eq!((s.pend[0], s.work), (Some(0), 1));
    assert!(s.step(&cfg, &Action::Close { s: S0 }).is_none());
    // Unbind's exchange to zero in between: the late decrement underflows.
    let s = s.step(&cfg, &Action::Unbind { b: 0 }).unwrap();
    let s = s.step(&cfg, &Action::DontneedPut { s: S0 }).unwrap();
    assert_eq!((s.uref[0], s.pend[0]), (-1, None));
    assert_eq!(
        s.violated(&cfg, &INVARIANTS.map(|(n, _)| n)),
        Some("NoUnderflow")
    );
    // The skb still queued holds n, which is back in the pool.
    assert_eq!((s.ppref[0], s.pool[0], s.rxq[0].len()), (0, 1, 1));
    assert!(s.refs_accounted(&cfg) && !s.pool_only_unreferenced(&cfg));
    // Without the mutant there is no DontneedRead.
    let plain = Config::array();
    assert!(State::init(&plain)
        .enabled(&plain)
        .iter()
        .all(|a| !matches!(a, Action::DontneedRead { .. })));
}

#[test]
fn cmsg_trunc_chooses_told() {
    let cfg = Config::xarray();
    let steps = [
        Action::BindRx {
            b: 0,
            m: Mode::Xarray,
        },
        Action::RxFrag { s: S1, n: N0 },
    ];
    let s = run(&cfg, &steps);
    assert!(s
        .step(&cfg, &Action::RecvMsg { s: S1, told: false })
        .is_none());
    let tr = cfg.clone().with_mutant(Mutant::CmsgTrunc);
    let s = run(&tr, &steps);
    let recvs: Vec<Action> = s
        .enabled(&tr)
        .into_iter()
        .filter(|a| a.name() == "RecvMsg")
        .collect();
    assert_eq!(recvs, [Action::RecvMsg { s: S1, told: false }, recv(S1)]);
    let t = s.step(&tr, &recvs[0]).unwrap();
    assert_eq!((t.xa[1][0], t.user[1][0]), (Some(N0), 0));
    assert_eq!(
        t.violated(&tr, &["TokensDelivered"]),
        Some("TokensDelivered")
    );
}

#[test]
fn modes_init_and_single_mode_rule() {
    let cfg = Config::modes();
    let s = State::init(&cfg);
    assert_eq!(s.mode, [Mode::Xarray, Mode::Xarray]);
    assert_eq!(Config::array().init_mode(), Mode::Array);
    let s = s
        .step(
            &cfg,
            &Action::BindRx {
                b: 0,
                m: Mode::Array,
            },
        )
        .unwrap();
    assert!(s
        .step(
            &cfg,
            &Action::BindRx {
                b: 1,
                m: Mode::Xarray
            }
        )
        .is_none());
    assert!(s
        .step(
            &cfg,
            &Action::BindRx {
                b: 1,
                m: Mode::Array
            }
        )
        .is_some());
    let mix = cfg.clone().with_mutant(Mutant::ModeMix);
    let t = s
        .step(
            &mix,
            &Action::BindRx {
                b: 1,
                m: Mode::Xarray,
            },
        )
        .unwrap();
    assert!(!t.single_mode(&mix));
    // An unbound binding no longer counts.
    let u = s.step(&cfg, &Action::Unbind { b: 0 }).unwrap();
    assert!(u
        .step(
            &cfg,
            &Action::BindRx {
                b: 1,
                m: Mode::Xarray
            }
        )
        .is_some());
}

#[test]
fn close_releases_in_xarray_mode_only() {
    for (cfg, m) in [
        (Config::xarray(), Mode::Xarray),
        (Config::array(), Mode::Array),
    ] {
        let s = run(
            &cfg,
            &[
                Action::BindRx { b: 0, m },
                Action::RxFrag { s: S0, n: N0 },
                Action::RxFrag { s: S0, n: N1 },
                recv(S0),
            ],
        );
        let t = s.step(&cfg, &Action::Close { s: S0 }).unwrap();
        assert!(t.rxq[0].is_empty() && !t.open[0]);
        match m {
            Mode::Xarray => {
                assert_eq!((t.ppref.clone(), t.pool.clone()), (vec![0, 0], vec![1, 1]));
                assert_eq!(t.user[0], [0; 4]);
            }
            Mode::Array => {
                // The token's reference stays until DONTNEED or unbind.
                assert_eq!((t.ppref.clone(), t.pool.clone()), (vec![1, 0], vec![0, 1]));
                let u = t.step(&cfg, &Action::Unbind { b: 0 }).unwrap();
                assert_eq!(
                    (u.ppref, u.pool, u.uref),
                    (vec![0, 0], vec![1, 1], vec![0, 0])
                );
            }
        }
        assert_eq!(t.violations(&cfg), Vec::<&str>::new());
        let t = t.step(&cfg, &Action::Close { s: S1 }).unwrap();
        assert!(t.step(&cfg, &Action::Done).is_none());
        let t = t.step(&cfg, &Action::Unbind { b: 0 }).unwrap();
        assert_eq!(t.enabled(&cfg), [Action::Done]);
    }
}

#[test]
fn prints_states_as_tlc_does() {
    let cfg = Config::modes();
    // TLC's dump of MCDevmem_Modes.cfg, its initial state (vars order).
    let init = State::init(&cfg);
    assert_eq!(
        state_conjunction(&cfg, &init),
        "/\\ bst = (b1 :> \"idle\" @@ b2 :> \"idle\")\n\
         /\\ mode = (b1 :> \"xarray\" @@ b2 :> \"xarray\")\n\
         /\\ pool = (<<b1, 0>> :> 0 @@ <<b2, 0>> :> 0)\n\
         /\\ ppref = (<<b1, 0>> :> 0 @@ <<b2, 0>> :> 0)\n\
         /\\ uref = (<<b1, 0>> :> 0 @@ <<b2, 0>> :> 0)\n\
         /\\ rxq = (<<b1, 0>> :> <<>> @@ <<b2, 0>> :> <<>>)\n\
         /\\ xa = (<<b1, 0>> :> (0 :> <<\"none\", -1>>) @@ <<b2, 0>> :> (0 :> <<\"none\", -1>>))\n\
         /\\ open = (<<b1, 0>> :> TRUE @@ <<b2, 0>> :> TRUE)\n\
         /\\ user = (<<b1, 0>> :> (0 :> 0) @@ <<b2, 0>> :> (0 :> 0))\n\
         /\\ stolen = {}\n\
         /\\ work = 0\n\
         /\\ pend = (<<b1, 0>> :> -1 @@ <<b2, 0>> :> -1)\n\
         /\\ dev = (b1 :> \"up\" @@ b2 :> \"up\")\n\
         /\\ mp = (b1 :> \"off\" @@ b2 :> \"off\")\n\
         /\\ bref = (b1 :> 0 @@ b2 :> 0)\n\
         /\\ sref = (<<b1, 0>> :> FALSE @@ <<b2, 0>> :> FALSE)\n\
         /\\ freed = (b1 :> FALSE @@ b2 :> FALSE)\n\
         /\\ smode = \"none\"\n\
         /\\ tbind = (b1 :> FALSE @@ b2 :> FALSE)\n\
         /\\ tdev = (b1 :> FALSE @@ b2 :> FALSE)\n"
    );
    assert!(state_record(&cfg, &init)
        .starts_with("[bst |-> (b1 :> \"idle\" @@ b2 :> \"idle\"), mode |-> "));
    let cfg = Config::array();
    let s = run(
        &cfg,
        &[
            Action::BindRx {
                b: 0,
                m: Mode::Array,
            },
            Action::RxFrag { s: S0, n: N0 },
            recv(S0),
            Action::RxFrag { s: S1, n: N1 },
            recv(S1),
            Action::Dontneed { s: S1, t: 0, c: 2 },
        ],
    );
    let v: std::collections::BTreeMap<_, _> = variables(&cfg, &s).into_iter().collect();
    assert_eq!(v["rxq"], "(<<b1, 0>> :> <<[niov |-> <<b1, 0>>, left |-> 1]>> @@ <<b1, 1>> :> <<[niov |-> <<b1, 1>>, left |-> 1]>>)");
    assert_eq!(
        v["stolen"],
        "{[tok |-> 0, by |-> <<b1, 1>>, from |-> <<b1, 0>>]}"
    );
    assert_eq!(v["uref"], "(<<b1, 0>> :> 0 @@ <<b1, 1>> :> 0)");
    assert_eq!(v["user"], "(<<b1, 0>> :> (0 :> 0 @@ 1 :> 0 @@ 2 :> 0 @@ 3 :> 0) @@ <<b1, 1>> :> (0 :> 0 @@ 1 :> 0 @@ 2 :> 0 @@ 3 :> 0))");
    assert_eq!(
        action(&cfg, &Action::Dontneed { s: S1, t: 0, c: 2 }),
        "Dontneed(<<b1, 1>>, 0, 2)"
    );
    assert_eq!(
        action(
            &cfg,
            &Action::BindRx {
                b: 0,
                m: Mode::Array
            }
        ),
        "BindRx(b1, \"array\")"
    );
    assert_eq!(
        Action::RxFrag { s: S0, n: N1 }.to_string(),
        "RxFrag(<<0, 0>>, <<0, 1>>)"
    );
}

#[test]
fn constants_read_back_and_mutants_are_named() {
    for cfg in [
        Config::xarray(),
        Config::array().with_mutant(Mutant::UrefRace),
        Config::modes(),
    ] {
        assert_eq!(ModelCfg::parse(&constants(&cfg)).unwrap().config, cfg);
    }
    for m in Mutant::ALL {
        assert_eq!(m.id().parse::<Mutant>(), Ok(m));
    }
    let e = "dm-nope".parse::<Mutant>().unwrap_err();
    assert!(
        e.to_string().contains("unknown devmem mutant \"dm-nope\""),
        "{e}"
    );
    assert!(e.to_string().contains("zcrx-uref-race"), "{e}");
}

/// Lifetime: the netlink socket's close after the device went and the
/// page pool was released frees the binding; each lifetime mutant breaks
/// its invariant on the way.
#[test]
fn lifetime_close_after_unregister() {
    let run_with = |m: Mutant| {
        let cfg = Config::lifetime_xarray().with_mutant(m);
        run(
            &cfg,
            &[
                Action::BindRx {
                    b: 0,
                    m: Mode::Xarray,
                },
                Action::NetdevUnregister { b: 0 },
                Action::MpDmabufDevmemDestroy { b: 0 },
                Action::NlSockClose { b: 0 },
            ],
        )
        .violations(&cfg)
    };
    assert_eq!(run_with(Mutant::None), Vec::<&str>::new());
    assert_eq!(run_with(Mutant::NlCloseUaf), ["NoUseAfterFree"]);
    assert_eq!(run_with(Mutant::NlCloseDevGone), ["NoDevAfterGone"]);
    let cfg = Config::lifetime_xarray();
    let s = run(
        &cfg,
        &[Action::BindRx {
            b: 0,
            m: Mode::Xarray,
        }],
    );
    assert_eq!((s.life.bref[0], s.life.smode), (2, Some(Mode::Xarray)));
    assert!(s.step(&cfg, &Action::Unbind { b: 0 }).is_none());
}
