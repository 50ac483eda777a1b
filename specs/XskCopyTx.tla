------------------------------ MODULE XskCopyTx ------------------------------
(***************************************************************************)
(* AF_XDP transmit in copy (SKB) mode: sockets sharing one umem and one   *)
(* completion queue, the kernel's sendto loop, skbs freed by the driver   *)
(* in any order, and the completion their destructor produces.            *)
(*                                                                         *)
(* Mirrors __xsk_generic_xmit() and its helpers in net/xdp/xsk.c of linux *)
(* 6.12.117, and seed 000's batch design. The rings themselves are        *)
(* abstracted to FIFO sequences: XskRing.tla checks the ring protocol.    *)
(*                                                                         *)
(* Two completion designs:                                                 *)
(*  "a" (6.12.117): the address is stored in the completion slot when it  *)
(*      is reserved (xsk_cq_reserve_addr_locked), and the destructor      *)
(*      publishes the next n reserved slots by count (xskq_prod_submit_n),*)
(*      whichever skb they belong to;                                      *)
(*  "b" (the 2025 fix): the skb carries its addresses; the destructor     *)
(*      stores them at the producer and publishes them.                   *)
(*                                                                         *)
(* Single-buffer packets only; multi-buffer (XDP_PKT_CONTD) is not yet    *)
(* modelled.                                                               *)
(***************************************************************************)
EXTENDS Naturals, Sequences, FiniteSets, TLC

CONSTANTS
    Sockets,      \* sockets bound to one device queue with XDP_SHARED_UMEM
    Frames,       \* umem frame addresses (model values)
    Placeholder,  \* design b: what a reserved slot holds (a model value)
    TxSize,       \* entries of each socket's tx ring
    CqSize,       \* entries of the shared completion ring
    Budget,       \* descriptors one sendto may process (TX_BATCH_SIZE)
    Design,       \* "a" or "b", above
    BatchSize,    \* 0: the per-descriptor loop; n > 0: seed 000's batch of n
    Outcomes,     \* driver results: a subset of {"sent", "busy", "drop"}
    AllocFails,   \* TRUE: an skb allocation may fail
    Mutant        \* "none" or a mutant id of specs/manifest.json

ASSUME Design \in {"a", "b"} /\ BatchSize \in Nat /\ Budget \in Nat \ {0}
ASSUME Outcomes \subseteq {"sent", "busy", "drop"} /\ "sent" \in Outcomes
ASSUME BatchSize > 0 => Design = "b"
ASSUME Mutant \in {"none", "xsk-txbusy-rollback", "xsk-cq-resv-fail",
                   "xsk-shared-cq-race", "xsk-cq-leak-2019", "budget-overrun",
                   "invalid-no-completion"}

VARIABLES
    free,     \* frames the application owns
    tx,       \* tx[s]: descriptors submitted and not yet consumed, oldest first
    cq,       \* addresses published in the completion ring, oldest first
    resv,     \* reserved, unpublished completion slots in ring order: design
              \* a: the address stored in each; design b: Placeholder
    flight,   \* skbs built and not yet destroyed: [sock, addrs]
    call      \* call[s]: the sendto in progress, or stage "idle"

\* tx_invalid_descs is a counter the model-checked state leaves out (it
\* would make the state space infinite); InvalidDesc says where it counts.
vars == <<free, tx, cq, resv, flight, call>>

Desc == [addr : Frames, ok : BOOLEAN]
Idle == [stage |-> "idle", done |-> 0, pend |-> 0, batch |-> <<>>, snap |-> 0]

Min(a, b) == IF a < b THEN a ELSE b
Range(q) == {q[i] : i \in DOMAIN q}
Last(q, k) == SubSeq(q, Len(q) - k + 1, Len(q))
DropLast(q, k) == SubSeq(q, 1, Len(q) - k)
CqFree == CqSize - Len(cq) - Len(resv)

Init ==
    /\ free = Frames
    /\ tx = [s \in Sockets |-> <<>>]
    /\ cq = <<>> /\ resv = <<>> /\ flight = {}
    /\ call = [s \in Sockets |-> Idle]

-----------------------------------------------------------------------------
(* The application *)

\* Fill a tx descriptor for a frame it owns, and submit it.
UserSubmit(s) ==
    /\ Len(tx[s]) < TxSize
    /\ \E f \in free, ok \in BOOLEAN :
        /\ tx' = [tx EXCEPT ![s] = Append(@, [addr |-> f, ok |-> ok])]
        /\ free' = free \ {f}
    /\ UNCHANGED <<cq, resv, flight, call>>

\* sendto(MSG_DONTWAIT): the kernel runs __xsk_generic_xmit() for s.
Sendto(s) ==
    /\ call[s].stage = "idle"
    /\ call' = [call EXCEPT ![s] = [Idle EXCEPT !.stage = "loop"]]
    /\ UNCHANGED <<free, tx, cq, resv, flight>>

\* Take a completion and own the frame again.
UserReap ==
    /\ cq # <<>>
    /\ free' = free \cup {Head(cq)}
    /\ cq' = Tail(cq)
    /\ UNCHANGED <<tx, resv, flight, call>>

-----------------------------------------------------------------------------
(* Completion queue operations, each under pool->cq_lock *)

\* xsk_cq_reserve_addr_locked() (a) / xsk_cq_reserve_locked() (b).
CqReserve(addrs) == resv' = resv \o IF Design = "a" THEN addrs
                                  ELSE [i \in DOMAIN addrs |-> Placeholder]

\* xsk_cq_cancel_locked(n): xskq_prod_cancel_n() gives back the LAST n
\* reserved slots, whoever reserved them.
CqCancel(n) == resv' = DropLast(resv, n)

\* The skb destructor (xsk_destruct_skb): publish n completions.
CqSubmit(addrs) ==
    IF Design = "a"
    THEN /\ cq' = cq \o SubSeq(resv, 1, Len(addrs))
         /\ resv' = SubSeq(resv, Len(addrs) + 1, Len(resv))
    ELSE /\ cq' = cq \o addrs
         /\ resv' = SubSeq(resv, Len(addrs) + 1, Len(resv))

-----------------------------------------------------------------------------
(* The kernel: __xsk_generic_xmit(), one descriptor per iteration *)

EndCall(s) == call' = [call EXCEPT ![s] = Idle]

\* An invalid descriptor at the head of the tx ring ends the loop; 6.12.117
\* then completes its address alone (xsk_cq_submit_addr_single_locked) if
\* no earlier completion is reserved, and counts it in tx_invalid_descs;
\* otherwise the next sendto retries. invalid-no-completion consumes it
\* (tx_invalid_descs++) without a completion: the application loses it.
InvalidDesc(s, d) ==
    IF Mutant = "invalid-no-completion" THEN
        /\ tx' = [tx EXCEPT ![s] = Tail(@)]
        /\ UNCHANGED cq
    ELSE IF resv = <<>> /\ CqFree > 0 THEN
        /\ cq' = Append(cq, d.addr)
        /\ tx' = [tx EXCEPT ![s] = Tail(@)]
    ELSE UNCHANGED <<cq, tx>>

\* The loop's head: xskq_cons_peek_desc(), the budget (max_batch-- == 0:
\* EAGAIN), the invalid-descriptor exit, and the completion slot the
\* descriptor needs before an skb is built ("backpressure").
XmitReserve(s) ==
    /\ call[s].stage = "loop" /\ BatchSize = 0
    /\ IF tx[s] = <<>> THEN
           /\ EndCall(s) /\ UNCHANGED <<free, tx, cq, resv, flight>>
       ELSE IF call[s].done >= Budget /\ Mutant # "budget-overrun" THEN
           /\ EndCall(s) /\ UNCHANGED <<free, tx, cq, resv, flight>>
       ELSE IF call[s].done > Budget THEN
           /\ EndCall(s) /\ UNCHANGED <<free, tx, cq, resv, flight>>
       ELSE LET d == Head(tx[s]) IN
           IF ~d.ok THEN
               \* peek_desc failed on it; 6.12.117 then completes its address
               \* alone (xsk_cq_submit_addr_single_locked) if no earlier
               \* completion is reserved, else retries on the next call.
               /\ InvalidDesc(s, d)
               /\ EndCall(s)
               /\ UNCHANGED <<free, resv, flight>>
           ELSE IF CqFree = 0 THEN
               IF Mutant = "xsk-cq-resv-fail" THEN
                   \* The skb was built first; freeing it runs the destructor,
                   \* which submits a slot that was never reserved.
                   /\ cq' = Append(cq, d.addr)
                   /\ tx' = [tx EXCEPT ![s] = Tail(@)]
                   /\ EndCall(s)
                   /\ UNCHANGED <<free, resv, flight>>
               ELSE
                   /\ EndCall(s) /\ UNCHANGED <<free, tx, cq, resv, flight>>
           ELSE IF Mutant = "xsk-shared-cq-race" THEN
               \* A per-socket lock: the read of cached_prod and the store of
               \* the new value are two steps another socket can come between.
               /\ call' = [call EXCEPT ![s].stage = "reserving",
                                       ![s].snap = Len(resv)]
               /\ UNCHANGED <<free, tx, cq, resv, flight>>
           ELSE
               /\ CqReserve(<<d.addr>>)
               /\ call' = [call EXCEPT ![s].stage = "reserved", ![s].pend = 1]
               /\ UNCHANGED <<free, tx, cq, flight>>

\* xsk-shared-cq-race only: the second half of a reservation.
XmitReserveStore(s) ==
    /\ call[s].stage = "reserving"
    /\ LET d == Head(tx[s])
           slot == IF Design = "a" THEN d.addr ELSE Placeholder
       IN resv' = Append(SubSeq(resv, 1, call[s].snap), slot)
    /\ call' = [call EXCEPT ![s].stage = "reserved", ![s].pend = 1]
    /\ UNCHANGED <<free, tx, cq, flight>>

\* xsk_build_skb(): sock_alloc_send_skb() failed; cancel the slot, EAGAIN.
\* xsk-cq-leak-2019 leaves the slot reserved.
XmitAllocFail(s) ==
    /\ call[s].stage = "reserved" /\ AllocFails
    /\ IF Mutant = "xsk-cq-leak-2019" THEN UNCHANGED resv ELSE CqCancel(1)
    /\ EndCall(s)
    /\ UNCHANGED <<free, tx, cq, flight>>

\* xsk_build_skb() then __dev_direct_xmit(), with every outcome.
XmitSend(s) ==
    /\ call[s].stage = "reserved"
    /\ LET d == Head(tx[s]) IN
       \/ \E o \in Outcomes :
          CASE o = "sent" ->
                 \* xskq_cons_release(); the driver owns the skb.
                 /\ tx' = [tx EXCEPT ![s] = Tail(@)]
                 /\ flight' = flight \cup {[sock |-> s, addrs |-> <<d.addr>>]}
                 /\ call' = [call EXCEPT ![s].stage = "loop", ![s].pend = 0,
                                         ![s].done = @ + 1]
                 /\ UNCHANGED <<free, cq, resv>>
            [] o = "busy" ->
                 \* NETDEV_TX_BUSY: xskq_cons_cancel_n() puts the descriptor
                 \* back, xsk_consume_skb() cancels the slot; EAGAIN. Before
                 \* the fix the skb was freed with its destructor, which
                 \* completed the descriptor the ring was about to retry.
                 /\ IF Mutant = "xsk-txbusy-rollback"
                    THEN CqSubmit(<<d.addr>>)
                    ELSE /\ CqCancel(1) /\ UNCHANGED cq
                 /\ EndCall(s)
                 /\ UNCHANGED <<free, tx, flight>>
            [] o = "drop" ->
                 \* NET_XMIT_DROP: the stack freed the skb, its destructor
                 \* completed it; EBUSY.
                 /\ tx' = [tx EXCEPT ![s] = Tail(@)]
                 /\ CqSubmit(<<d.addr>>)
                 /\ EndCall(s)
                 /\ UNCHANGED <<free, flight>>

-----------------------------------------------------------------------------
(* Seed 000's batch: read up to BatchSize descriptors, reserve n slots at  *)
(* once, allocate skbs in bulk (some may fail), cancel the unused slots,   *)
(* transmit with xmit_more on all but the last.                            *)

\* The valid descriptors at the head of s's tx ring, at most n.
ValidPrefix(s, n) ==
    LET q == tx[s]
        ok(i) == \A j \in 1..i : q[j].ok
        k == IF \E i \in 1..Min(n, Len(q)) : ok(i)
             THEN CHOOSE i \in 1..Min(n, Len(q)) :
                      ok(i) /\ \A j \in 1..Min(n, Len(q)) : ok(j) => j <= i
             ELSE 0
    IN SubSeq(q, 1, k)

XmitBatchReserve(s) ==
    /\ call[s].stage = "loop" /\ BatchSize > 0
    /\ LET left == Budget - call[s].done
           want == ValidPrefix(s, Min(BatchSize, left))
           k == Min(Len(want), CqFree)
       IN IF tx[s] = <<>> \/ left = 0 THEN
              /\ EndCall(s) /\ UNCHANGED <<free, tx, cq, resv, flight>>
          ELSE IF ~Head(tx[s]).ok THEN
              /\ InvalidDesc(s, Head(tx[s]))
              /\ EndCall(s)
              /\ UNCHANGED <<free, resv, flight>>
          ELSE IF k = 0 THEN
              /\ EndCall(s) /\ UNCHANGED <<free, tx, cq, resv, flight>>
          ELSE
              /\ CqReserve([i \in 1..k |-> want[i].addr])
              /\ call' = [call EXCEPT ![s].stage = "breserved", ![s].pend = k]
              /\ UNCHANGED <<free, tx, cq, flight>>

\* Bulk allocation: j >= 1 of the pend skbs (all of them unless allocations
\* can fail); the other slots are cancelled, and the j descriptors leave the
\* tx ring (released) into the batch.
XmitBatchAlloc(s) ==
    /\ call[s].stage = "breserved"
    /\ \E j \in (IF AllocFails THEN 1..call[s].pend ELSE {call[s].pend}) :
        /\ CqCancel(call[s].pend - j)
        /\ tx' = [tx EXCEPT ![s] = SubSeq(@, j + 1, Len(@))]
        /\ call' = [call EXCEPT ![s].stage = "bsend", ![s].pend = 0,
                                ![s].batch = SubSeq(tx[s], 1, j)]
    /\ UNCHANGED <<free, cq, flight>>

\* Bulk allocation got nothing: cancel every slot, EAGAIN.
XmitBatchAllocFail(s) ==
    /\ call[s].stage = "breserved" /\ AllocFails
    /\ CqCancel(call[s].pend)
    /\ EndCall(s)
    /\ UNCHANGED <<free, tx, cq, flight>>

\* Transmit the batch's next skb (xmit_more unless it is the last).
XmitBatchSend(s) ==
    /\ call[s].stage = "bsend"
    /\ LET b == call[s].batch
           d == Head(b)
       IN \E o \in Outcomes :
          CASE o = "sent" ->
                 /\ flight' = flight \cup {[sock |-> s, addrs |-> <<d.addr>>]}
                 /\ call' = [call EXCEPT ![s].batch = Tail(b),
                                         ![s].done = @ + 1,
                                         ![s].stage = IF Len(b) = 1 THEN "loop"
                                                      ELSE "bsend"]
                 /\ UNCHANGED <<free, tx, cq, resv>>
            [] o = "busy" ->
                 \* The unsent descriptors go back (xskq_cons_cancel_n) and
                 \* their slots are cancelled; EAGAIN.
                 /\ tx' = [tx EXCEPT ![s] = b \o @]
                 /\ CqCancel(Len(b))
                 /\ EndCall(s)
                 /\ UNCHANGED <<free, cq, flight>>
            [] o = "drop" ->
                 \* This skb completes; the rest go back as for busy.
                 /\ cq' = cq \o <<d.addr>>
                 /\ resv' = SubSeq(DropLast(resv, Len(b) - 1), 2,
                                   Len(resv) - (Len(b) - 1))
                 /\ tx' = [tx EXCEPT ![s] = Tail(b) \o @]
                 /\ EndCall(s)
                 /\ UNCHANGED <<free, flight>>

-----------------------------------------------------------------------------
(* The driver frees skbs, in any order *)

\* Free the skb that holds frame f (named by a frame so that fairness can
\* be per skb: a fair driver frees every skb, not just some).
DriverFree(f) ==
    \E k \in flight :
        /\ f \in Range(k.addrs)
        /\ CqSubmit(k.addrs)
        /\ flight' = flight \ {k}
        /\ UNCHANGED <<free, tx, call>>

-----------------------------------------------------------------------------
Next ==
    \/ UserReap \/ \E f \in Frames : DriverFree(f)
    \/ \E s \in Sockets :
        \/ UserSubmit(s) \/ Sendto(s)
        \/ XmitReserve(s) \/ XmitReserveStore(s) \/ XmitAllocFail(s) \/ XmitSend(s)
        \/ XmitBatchReserve(s) \/ XmitBatchAlloc(s) \/ XmitBatchAllocFail(s)
        \/ XmitBatchSend(s)

Spec == Init /\ [][Next]_vars

\* The application keeps calling sendto and reaping; the kernel's steps and
\* the driver are weakly fair; an allocation that keeps being tried
\* eventually succeeds (strong fairness of XmitSend, XmitBatchAlloc).
FairSpec ==
    /\ Spec
    /\ WF_vars(UserReap) /\ \A f \in Frames : WF_vars(DriverFree(f))
    /\ \A s \in Sockets :
        /\ WF_vars(Sendto(s)) /\ WF_vars(XmitReserve(s))
        /\ WF_vars(XmitReserveStore(s)) /\ WF_vars(XmitBatchReserve(s))
        /\ WF_vars(XmitBatchSend(s)) /\ WF_vars(XmitAllocFail(s))
        /\ WF_vars(XmitBatchAllocFail(s))
        /\ SF_vars(XmitSend(s)) /\ SF_vars(XmitBatchAlloc(s))

-----------------------------------------------------------------------------
(* Properties *)

\* How many places hold frame f: the application, a tx ring, an skb (in
\* flight or in a batch being sent), the published completions.
Count(q, f) == Cardinality({i \in DOMAIN q : q[i] = f})
Max2 == TxSize + CqSize     \* bounds every sequence index above
Held(f) ==
    (IF f \in free THEN 1 ELSE 0)
    + Cardinality({<<s, i>> \in Sockets \X (1..Max2) :
                      i \in DOMAIN tx[s] /\ tx[s][i].addr = f})
    + Cardinality({k \in flight : f \in Range(k.addrs)})
    + Cardinality({<<s, i>> \in Sockets \X (1..Max2) :
                      i \in DOMAIN call[s].batch /\ call[s].batch[i].addr = f})
    + Count(cq, f)

\* Kernel-held frames: in an skb, or in a batch being sent.
InKernel(f) ==
    \/ \E k \in flight : f \in Range(k.addrs)
    \/ \E s \in Sockets : \E i \in DOMAIN call[s].batch : call[s].batch[i].addr = f

\* An address is visible in the completion queue only after its skb is gone.
NoImmatureCompletion == \A i \in DOMAIN cq : ~InKernel(cq[i])

\* Published plus reserved completions never exceed the ring.
CqNoOverflow == Len(cq) + Len(resv) <= CqSize

\* A completed address is completed once and held nowhere else.
NoDoubleCompletion == \A i \in DOMAIN cq : Held(cq[i]) = 1

\* Every reserved slot belongs to an skb in flight, a batch skb not yet
\* sent, or a descriptor whose skb is being built.
ReservationsAccounted ==
    Len(resv) = Cardinality(flight)
                + LET pending[S \in SUBSET Sockets] ==
                        IF S = {} THEN 0
                        ELSE LET s == CHOOSE x \in S : TRUE
                             IN call[s].pend + Len(call[s].batch)
                                + pending[S \ {s}]
                  IN pending[Sockets]

\* Each frame is somewhere, and (completions aside, above) in one place.
\* With NoDoubleCompletion: each frame is in exactly one place.
FrameConservation ==
    \A f \in Frames : Held(f) >= 1 /\ (f \notin Range(cq) => Held(f) <= 1)

\* One sendto processes at most Budget descriptors.
BudgetPerCall == \A s \in Sockets : call[s].done <= Budget

\* Every valid descriptor submitted is eventually completed: its frame
\* comes back to the application through the completion queue. (Not so
\* for an invalid one: 6.12.117 completes it only when no completion is
\* reserved, which another socket on the shared queue can keep true
\* forever; the checker finds that starvation if the property is widened.)
InTxValid(f) ==
    \E s \in Sockets : \E i \in DOMAIN tx[s] : tx[s][i].addr = f /\ tx[s][i].ok
EveryValidDescCompleted == \A f \in Frames : InTxValid(f) ~> (f \in free)

\* Symmetry of frames and of sockets is sound: no action or property
\* distinguishes one frame, or one socket, from another.
Perms == Permutations(Frames) \cup Permutations(Sockets)
=============================================================================
