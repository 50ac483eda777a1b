---------------------------- MODULE XskRingReach ----------------------------
(***************************************************************************)
(* Where XskRing's bounds on work are reached and crossed                  *)
(* (specs/thresholds.json). Each predicate holds only in such a state;     *)
(* `ringlab check` runs a model with its negation as the invariant and     *)
(* must find one.                                                          *)
(***************************************************************************)
EXTENDS XskRing

\* The max of xskq_cons_nb_entries(): a kernel batch peek took MaxBatch
\* entries and left cached ones it knew of for the next peek.
Reach_BatchCut ==
    /\ ConsSide = "kernel" /\ MaxBatch > 1
    /\ cRd = cCons /\ Sub(cEnd, cCons) = MaxBatch
    /\ Sub(cProd, cEnd) > 0

\* The ring's size: every slot is published and none handed back, and the
\* producer's cache says so, so its next reserve gets nothing
\* (xskq_prod_nb_free() returns 0 after its refresh of ->consumer).
Reach_RingFull ==
    /\ Sub(prod, cons) = Size
    /\ Sub(pProd, PConsReal) = Size
=============================================================================
