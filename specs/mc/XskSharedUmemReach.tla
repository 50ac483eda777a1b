------------------------- MODULE XskSharedUmemReach -------------------------
(***************************************************************************)
(* Where XskSharedUmem's bounds on work are reached and crossed            *)
(* (specs/thresholds.json). `ringlab check` runs a model with a state      *)
(* predicate's negation as its invariant (a step predicate's as its        *)
(* property) and must find one.                                            *)
(***************************************************************************)
EXTENDS XskSharedUmem

\* MAX_PER_SOCKET_BUDGET: a socket has spent its budget and still has a
\* descriptor, which the walk now skips (or resets every budget for).
Reach_BudgetSpent == \E s \in Sockets : spent[s] >= Budget /\ tx[s] # <<>>

\* The max of xsk_tx_peek_release_desc_batch(): one batch takes BatchMax
\* descriptors and leaves one on a tx ring.
Step_BatchFull ==
    /\ XmitBatch
    /\ Len(resv') - Len(resv) = BatchMax
    /\ \E s \in Sockets : tx'[s] # <<>>

\* The shared completion ring's size: every slot is published or reserved
\* while a socket has a descriptor, which must wait.
Reach_CqFull == CqFree = 0 /\ \E s \in Sockets : tx[s] # <<>>
=============================================================================
