------------------------- MODULE IoUringZcNotifReach -------------------------
(***************************************************************************)
(* Where IoUringZcNotif's bounds on work are reached and crossed           *)
(* (specs/thresholds.json). `ringlab check` runs a model with a state      *)
(* predicate's negation as its invariant (a step predicate's as its        *)
(* property) and must find one.                                            *)
(***************************************************************************)
EXTENDS IoUringZcNotif

\* The CQ's entries: the CQ is full and a CQE waits on the overflow list.
Reach_CqOverflow == Len(cq) = CqSize /\ ovf # <<>>

\* The socket's send buffer: every skb is in flight while a request still
\* has bytes to queue, which wait (-EAGAIN, or sendmsg blocks).
Reach_SndbufFull ==
    /\ \A k \in SkbIds : skb[k].uarg # 0
    /\ \E r \in Reqs : st[r] \in {"issue", "retry"} /\ sent[r] < ReqLen

\* The SQ's entries: the SQ is full while a request still waits to be
\* written.
Reach_SqFull == Len(sq) = SqSize /\ \E r \in Reqs : st[r] = "user"

\* io_submit_sqes(ctx, to_submit): one io_uring_enter() submits Batch SQEs
\* and leaves the rest in the SQ for the next call.
Step_SubmitBatch == IoUringEnter /\ todo' = Batch /\ Len(sq) > Batch
=============================================================================
