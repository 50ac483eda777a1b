use super::*;

const M: &str = r#"---- MODULE M ----
EXTENDS Naturals
CONSTANT Mutant
VARIABLES x, st
Init == x = 0 /\ st = "idle"
Go ==
    /\ st = "idle" /\ x < 3
    /\ st' = "busy"
    /\ x' = [x EXCEPT ![1] = 2]
    /\ UNCHANGED <<>>
Back ==
    /\ st = "busy"
    /\ IF Mutant = "m" THEN TRUE ELSE x >= 1
    /\ st' = "idle"
    /\ UNCHANGED x
Inv == st \in {"idle", "busy"} /\ x <= 3
====
"#;

fn by_op(ms: &[TlaMutant], op: Op) -> Vec<(String, String)> {
    ms.iter().filter(|m| m.op == op).map(|m| (m.id.clone(), m.what.clone())).collect()
}

#[test]
fn guards_are_dropped_one_piece_at_a_time() {
    let ms = mutants("M.tla", M);
    let got = by_op(&ms, Op::DropGuard);
    assert_eq!(
        got,
        [
            ("M.tla/Go/drop-guard/0".into(), "`st = \"idle\"` -> TRUE".into()),
            ("M.tla/Go/drop-guard/1".into(), "`x < 3` -> TRUE".into()),
            ("M.tla/Back/drop-guard/0".into(), "`st = \"busy\"` -> TRUE".into()),
        ]
    );
    let m = ms.iter().find(|m| m.id == "M.tla/Go/drop-guard/1").unwrap();
    assert!(m.apply(M).contains("/\\ st = \"idle\" /\\ TRUE\n"));
}

#[test]
fn comparisons_flip_but_not_assignments_excepts_or_the_switch() {
    let ms = mutants("M.tla", M);
    let got: Vec<String> = by_op(&ms, Op::FlipCompare).into_iter().map(|(_, w)| w).collect();
    assert_eq!(got.len(), 4, "{got:#?}");
    assert!(got.iter().all(|w| !w.contains("EXCEPT") && !w.contains("Mutant")));
    assert!(got.iter().any(|w| w.starts_with("`<=` -> `<` in `Inv")));
}

#[test]
fn constants_shift_both_ways() {
    let ms = mutants("M.tla", M);
    let got: Vec<String> = by_op(&ms, Op::ShiftConst).into_iter().map(|(_, w)| w).collect();
    // Init's 0 up; Go's 3, 1, 2 both ways; Inv's 3 both ways.
    assert_eq!(got.len(), 1 + 6 + 2, "{got:#?}");
}

#[test]
fn unchanged_is_skipped_and_labels_swap() {
    let ms = mutants("M.tla", M);
    assert_eq!(by_op(&ms, Op::SkipUnchanged).len(), 2);
    let sw = ms.iter().filter(|m| m.op == Op::SwapSteps).collect::<Vec<_>>();
    assert_eq!(sw.len(), 2);
    let go = sw.iter().find(|m| m.def == "Go").unwrap().apply(M);
    assert!(go.contains("/\\ st = \"busy\" /\\ x < 3\n    /\\ st' = \"idle\""));
    assert!(go.contains("Init == x = 0 /\\ st = \"idle\""));
}

#[test]
fn multi_line_conjuncts_are_dropped_whole() {
    let text = "---- MODULE N ----\nVARIABLE x\nA ==\n    /\\ x \\in {1,\n              2}\n    /\\ x' = x\n====\n";
    let ms = mutants("N.tla", text);
    let d = ms.iter().find(|m| m.op == Op::DropGuard).unwrap();
    assert_eq!(d.apply(text), "---- MODULE N ----\nVARIABLE x\nA ==\n    /\\ TRUE\n\n    /\\ x' = x\n====\n");
}
