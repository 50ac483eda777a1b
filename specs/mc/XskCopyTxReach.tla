--------------------------- MODULE XskCopyTxReach ---------------------------
(***************************************************************************)
(* Where XskCopyTx's bounds on work are reached and crossed                *)
(* (specs/thresholds.json). Each predicate holds only in such a state;     *)
(* `ringlab check` runs a model with its negation as the invariant and     *)
(* must find one.                                                          *)
(***************************************************************************)
EXTENDS XskCopyTx

\* TX_BATCH_SIZE: a sendto has processed Budget descriptors and a valid one
\* is next, so the loop's next head ends the call with EAGAIN.
Reach_BudgetSpent ==
    \E s \in Sockets :
        /\ call[s].stage = "loop" /\ call[s].done = Budget
        /\ tx[s] # <<>> /\ Head(tx[s]).ok /\ ~drain[s]

\* XDP_GENERIC_XMIT_BATCH: a batch of BatchSize is being sent and a
\* descriptor it had no room for waits behind it.
Reach_BatchFull ==
    \E s \in Sockets :
        /\ BatchSize > 0
        /\ call[s].stage = "bsend" /\ Len(call[s].batch) = BatchSize
        /\ tx[s] # <<>> /\ Head(tx[s]).ok /\ ~Head(tx[s]).contd

\* MAX_SKB_FRAGS + 1: MaxFrags - 1 fragments are built and the descriptor
\* about to be added says more follow, so xsk_build_skb returns -EOVERFLOW.
Reach_FragsFull ==
    \E s \in Sockets :
        /\ call[s].stage = "reserved"
        /\ Len(part[s]) = MaxFrags - 1 /\ Head(tx[s]).contd

\* The completion ring's size: every slot is published or reserved while a
\* valid descriptor within the budget is next, so the loop stops for
\* backpressure (xsk_cq_reserve_addr_locked fails).
Reach_CqFull ==
    \E s \in Sockets :
        /\ CqFree = 0
        /\ call[s].stage = "loop" /\ call[s].done < Budget
        /\ tx[s] # <<>> /\ Head(tx[s]).ok /\ ~drain[s]
=============================================================================
