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
(* Multi-buffer packets (XDP_PKT_CONTD): the kernel builds one skb from    *)
(* every descriptor of a packet (xs->skb, here part[s]), drops the whole   *)
(* packet when one of them is invalid or there are too many, and after a  *)
(* drop completes the rest of the packet one descriptor at a time          *)
(* (xs->drain_cont, here drain[s]). Two choices of 6.12.117 are constants  *)
(* so that each can be checked against its alternative: DropFrags and      *)
(* PublishFrags below. Seed 000's batch runs while no packet is being    *)
(* built or drained, and the per-descriptor loop takes the rest.           *)
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
    MultiBuf,     \* TRUE: the application may set XDP_PKT_CONTD
    MaxFrags,     \* descriptors in one packet at most (MAX_SKB_FRAGS + 1)
    DropFrags,    \* a dropped packet's built fragments: "cancel" their
                  \* completion slots (6.12.117, xsk_drop_skb) or
                  \* "complete" them (what af_xdp.rst promises)
    PublishFrags, \* the tx consumer a refresh publishes: "all" consumed
                  \* descriptors (6.12.117) or only up to the "packet" being
                  \* built, so a rollback never goes behind it
    Mutant        \* "none" or a mutant id of specs/manifest.json

ASSUME Design \in {"a", "b"} /\ BatchSize \in Nat /\ Budget \in Nat \ {0}
ASSUME Outcomes \subseteq {"sent", "busy", "drop"} /\ "sent" \in Outcomes
ASSUME BatchSize > 0 => Design = "b"
ASSUME MultiBuf \in BOOLEAN /\ MaxFrags \in Nat \ {0}
ASSUME DropFrags \in {"cancel", "complete"} /\ PublishFrags \in {"all", "packet"}
ASSUME Mutant \in {"none", "xsk-txbusy-rollback", "xsk-cq-resv-fail",
                   "xsk-shared-cq-race", "xsk-cq-leak-2019", "budget-overrun",
                   "invalid-no-completion", "mb-send-partial",
                   "txbusy-skb-kept"}

VARIABLES
    free,     \* frames the application owns
    tx,       \* tx[s]: descriptors submitted and not yet consumed, oldest first
    cq,       \* addresses published in the completion ring, oldest first
    resv,     \* reserved, unpublished completion slots in ring order: design
              \* a: the address stored in each; design b: Placeholder
    flight,   \* skbs built and not yet destroyed: [sock, addrs, contd]
    call,     \* call[s]: the sendto in progress, or stage "idle"
    part,     \* part[s]: xs->skb, the addresses of a packet's fragments
              \* built so far (consumed, slots reserved, not yet sent)
    drain,    \* drain[s]: xs->drain_cont, completing the rest of a
              \* dropped packet
    pubd,     \* pubd[s]: a refresh published the tx consumer past part[s]
    rewound   \* rewound[s] (history): the kernel's tx consumer went back
              \* over slots it had already published to the application

\* tx_invalid_descs is a counter the model-checked state leaves out (it
\* would make the state space infinite); InvalidDesc says where it counts.
vars == <<free, tx, cq, resv, flight, call, part, drain, pubd, rewound>>
mbvars == <<part, drain, pubd, rewound>>

Desc == [addr : Frames, ok : BOOLEAN, contd : BOOLEAN]
Contd == IF MultiBuf THEN BOOLEAN ELSE {FALSE}
Idle == [stage |-> "idle", done |-> 0, pend |-> 0, batch |-> <<>>, snap |-> 0]

Min(a, b) == IF a < b THEN a ELSE b
Range(q) == {q[i] : i \in DOMAIN q}
DropLast(q, k) == SubSeq(q, 1, Len(q) - k)
CqFree == CqSize - Len(cq) - Len(resv)

Init ==
    /\ free = Frames
    /\ tx = [s \in Sockets |-> <<>>]
    /\ cq = <<>> /\ resv = <<>> /\ flight = {}
    /\ call = [s \in Sockets |-> Idle]
    /\ part = [s \in Sockets |-> <<>>] /\ drain = [s \in Sockets |-> FALSE]
    /\ pubd = [s \in Sockets |-> FALSE] /\ rewound = [s \in Sockets |-> FALSE]

-----------------------------------------------------------------------------
(* The application *)

\* Ring slots the application cannot reuse: the descriptors it submitted,
\* and with PublishFrags = "packet" the fragments of the packet the kernel
\* is building, whose slots the consumer has not been published past.
TxUsed(s) == Len(tx[s]) + IF PublishFrags = "packet" THEN Len(part[s]) ELSE 0

\* Fill a tx descriptor for frame f, which it owns, and submit it.
SubmitDesc(s, f, ok, c) ==
    /\ TxUsed(s) < TxSize
    /\ f \in free /\ ok \in BOOLEAN /\ c \in Contd
    /\ tx' = [tx EXCEPT ![s] = Append(@, [addr |-> f, ok |-> ok, contd |-> c])]
    /\ free' = free \ {f}
    /\ UNCHANGED <<cq, resv, flight, call>> /\ UNCHANGED mbvars

UserSubmit(s) == \E f \in free, ok \in BOOLEAN, c \in Contd : SubmitDesc(s, f, ok, c)

\* sendto(MSG_DONTWAIT): the kernel runs __xsk_generic_xmit() for s.
Sendto(s) ==
    /\ call[s].stage = "idle"
    /\ call' = [call EXCEPT ![s] = [Idle EXCEPT !.stage = "loop"]]
    /\ UNCHANGED <<free, tx, cq, resv, flight>> /\ UNCHANGED mbvars

\* Take a completion and own the frame again.
UserReap ==
    /\ cq # <<>>
    /\ free' = free \cup {Head(cq)}
    /\ cq' = Tail(cq)
    /\ UNCHANGED <<tx, resv, flight, call>> /\ UNCHANGED mbvars

-----------------------------------------------------------------------------
(* Completion queue operations, each under pool->cq_lock *)

\* xsk_cq_reserve_addr_locked() (a) / xsk_cq_reserve_locked() (b).
CqReserve(addrs) == resv' = resv \o IF Design = "a" THEN addrs
                                  ELSE [i \in DOMAIN addrs |-> Placeholder]

\* xsk_cq_cancel_locked(n): xskq_prod_cancel_n() gives back the LAST n
\* reserved slots, whoever reserved them.
CqCancel(n) == resv' = DropLast(resv, n)

\* The n completions a destructor publishes: design a the first n reserved
\* slots (xskq_prod_submit_n), design b the skb's own addresses.
Published(addrs) ==
    IF Design = "a" THEN SubSeq(resv, 1, Len(addrs)) ELSE addrs

\* The skb destructor (xsk_destruct_skb): publish n completions.
CqSubmit(addrs) ==
    /\ cq' = cq \o Published(addrs)
    /\ resv' = SubSeq(resv, Len(addrs) + 1, Len(resv))

-----------------------------------------------------------------------------
(* The kernel: __xsk_generic_xmit(), one descriptor per iteration *)

EndCall(s) == call' = [call EXCEPT ![s] = Idle]
Continue(s) == call' = [call EXCEPT ![s].stage = "loop", ![s].pend = 0,
                                    ![s].done = @ + 1]

\* xsk_drop_skb(xs->skb) and the descriptors dropped with it (the last,
\* `extra`, consumed in the same step): tx_invalid_descs grows by their
\* number; their completion slots are cancelled (DropFrags = "cancel", so
\* their frames are lost to the application) or published. With nothing
\* dropped (n = 0) the two are the same step.
DropPacket(s, extra) ==
    LET addrs == part[s] \o extra
        n == Len(addrs)
    IN /\ IF DropFrags = "cancel"
          THEN /\ resv' = DropLast(resv, n) /\ UNCHANGED cq
          ELSE CqSubmit(addrs)
       /\ part' = [part EXCEPT ![s] = <<>>]
       /\ pubd' = [pubd EXCEPT ![s] = FALSE]

\* xsk_cq_submit_addr_single_locked(): publish a rejected descriptor's
\* address alone. Design a writes addresses at reservation and publishes
\* by position, so only if no reserved completion is in front of it
\* (6.12.117 xsk.c l.763: cq->cached_prod == producer). Design b's slots
\* are counts: it reserves one more slot and publishes it at once, so it
\* needs only a free slot (the series' patch 0002, xskq_prod_reserve()).
SingleOk(r, c) ==
    IF Design = "a" THEN r = <<>> /\ CqSize - Len(c) > 0
    ELSE CqSize - Len(c) - Len(r) > 0

\* An invalid descriptor at the head of the tx ring ends the loop. The
\* packet being built, if any, is dropped; then the descriptor's address
\* is completed alone and counted in tx_invalid_descs, if SingleOk allows;
\* otherwise the next sendto retries, and drain remembers that the rest of
\* the packet must go too.
\* invalid-no-completion consumes it without a completion: the application
\* loses the frame.
InvalidDesc(s, d) ==
    LET n == Len(part[s])
        r1 == IF DropFrags = "cancel" \/ n = 0 THEN DropLast(resv, n)
              ELSE SubSeq(resv, n + 1, Len(resv))
        c1 == IF DropFrags = "cancel" \/ n = 0 THEN cq
              ELSE cq \o (IF Design = "a" THEN SubSeq(resv, 1, n) ELSE part[s])
        more == n > 0 \/ drain[s] \/ d.contd
    IN /\ resv' = r1
       /\ part' = [part EXCEPT ![s] = <<>>]
       /\ pubd' = [pubd EXCEPT ![s] = FALSE]
       /\ IF Mutant = "invalid-no-completion" THEN
              /\ tx' = [tx EXCEPT ![s] = Tail(@)] /\ cq' = c1
              /\ drain' = [drain EXCEPT ![s] = d.contd]
          ELSE IF SingleOk(r1, c1) THEN
              /\ cq' = Append(c1, d.addr)
              /\ tx' = [tx EXCEPT ![s] = Tail(@)]
              /\ drain' = [drain EXCEPT ![s] = d.contd]
          ELSE
              /\ cq' = c1 /\ UNCHANGED tx
              /\ drain' = [drain EXCEPT ![s] = more]
       /\ UNCHANGED rewound

\* The loop's head, in 6.12.117's order (xsk.c l.1012-1035):
\* xskq_cons_peek_desc() validates the head descriptor, and an invalid one
\* ends the loop whatever the budget is (the xskq_has_descs() branch after
\* it, l.1075); then the budget (max_batch-- == 0: EAGAIN), the rest of a
\* dropped packet, and the completion slot the descriptor needs before an
\* skb is built ("backpressure").
LoopHead(s) ==
    /\ IF tx[s] = <<>> THEN
           \* The peek found the ring empty: xskq_cons_get_entries() has
           \* published the consumer past every descriptor consumed so far,
           \* part[s]'s fragments included (PublishFrags = "all").
           /\ EndCall(s)
           /\ pubd' = [pubd EXCEPT ![s] = PublishFrags = "all" /\ part[s] # <<>>]
           /\ IF Mutant = "mb-send-partial" /\ part[s] # <<>> THEN
                  \* The fragments built so far leave as a packet.
                  /\ flight' = flight \cup
                                {[sock |-> s, addrs |-> part[s], contd |-> TRUE]}
                  /\ part' = [part EXCEPT ![s] = <<>>]
              ELSE UNCHANGED <<flight, part>>
           /\ UNCHANGED <<free, tx, cq, resv, drain, rewound>>
       ELSE LET d == Head(tx[s]) IN
           IF ~d.ok THEN
               /\ InvalidDesc(s, d)
               /\ EndCall(s)
               /\ UNCHANGED <<free, flight>>
           ELSE IF \/ call[s].done >= Budget /\ Mutant # "budget-overrun"
                   \/ call[s].done > Budget THEN
               /\ EndCall(s) /\ UNCHANGED <<free, tx, cq, resv, flight>>
               /\ UNCHANGED mbvars
           ELSE IF drain[s] THEN
               \* xs->drain_cont: this descriptor belongs to a dropped packet
               \* and is completed alone, if SingleOk allows.
               IF SingleOk(resv, cq) THEN
                   /\ cq' = Append(cq, d.addr)
                   /\ tx' = [tx EXCEPT ![s] = Tail(@)]
                   /\ drain' = [drain EXCEPT ![s] = d.contd]
                   /\ Continue(s)
                   /\ UNCHANGED <<free, resv, flight, part, pubd, rewound>>
               ELSE
                   /\ EndCall(s) /\ UNCHANGED <<free, tx, cq, resv, flight>>
                   /\ UNCHANGED mbvars
           ELSE IF CqFree = 0 THEN
               IF Mutant = "xsk-cq-resv-fail" THEN
                   \* The skb was built first; freeing it runs the destructor,
                   \* which submits a slot that was never reserved.
                   /\ cq' = Append(cq, d.addr)
                   /\ tx' = [tx EXCEPT ![s] = Tail(@)]
                   /\ EndCall(s)
                   /\ UNCHANGED <<free, resv, flight>> /\ UNCHANGED mbvars
               ELSE
                   /\ EndCall(s) /\ UNCHANGED <<free, tx, cq, resv, flight>>
                   /\ UNCHANGED mbvars
           ELSE IF Mutant = "xsk-shared-cq-race" THEN
               \* A per-socket lock: the read of cached_prod and the store of
               \* the new value are two steps another socket can come between.
               /\ call' = [call EXCEPT ![s].stage = "reserving",
                                       ![s].snap = Len(resv)]
               /\ UNCHANGED <<free, tx, cq, resv, flight>> /\ UNCHANGED mbvars
           ELSE
               /\ CqReserve(<<d.addr>>)
               /\ call' = [call EXCEPT ![s].stage = "reserved", ![s].pend = 1]
               /\ UNCHANGED <<free, tx, cq, flight>> /\ UNCHANGED mbvars

\* The per-descriptor loop's head (BatchSize = 0).
XmitReserve(s) ==
    /\ call[s].stage = "loop" /\ BatchSize = 0
    /\ LoopHead(s)

\* xsk-shared-cq-race only: the second half of a reservation.
XmitReserveStore(s) ==
    /\ call[s].stage = "reserving"
    /\ LET d == Head(tx[s])
           slot == IF Design = "a" THEN d.addr ELSE Placeholder
       IN resv' = Append(SubSeq(resv, 1, call[s].snap), slot)
    /\ call' = [call EXCEPT ![s].stage = "reserved", ![s].pend = 1]
    /\ UNCHANGED <<free, tx, cq, flight>> /\ UNCHANGED mbvars

\* xsk_build_skb(): sock_alloc_send_skb() (or, for a fragment, alloc_page())
\* failed; cancel the slot, EAGAIN. The packet built so far stays in
\* xs->skb. xsk-cq-leak-2019 leaves the slot reserved.
XmitAllocFail(s) ==
    /\ call[s].stage = "reserved" /\ AllocFails
    /\ IF Mutant = "xsk-cq-leak-2019" THEN UNCHANGED resv ELSE CqCancel(1)
    /\ EndCall(s)
    /\ UNCHANGED <<free, tx, cq, flight>> /\ UNCHANGED mbvars

\* The descriptors of s's packet, fragments built so far and d, as they
\* were in the tx ring.
PacketDescs(s, d) ==
    [i \in DOMAIN part[s] |-> [addr |-> part[s][i], ok |-> TRUE, contd |-> TRUE]]
    \o <<d>>

\* xsk_build_skb() then, for a packet's last descriptor, __dev_direct_xmit()
\* with every outcome.
XmitSend(s) ==
    /\ call[s].stage = "reserved"
    /\ LET d == Head(tx[s])
           pkt == part[s] \o <<d.addr>>
       IN
       IF d.contd /\ Len(part[s]) = MaxFrags - 1 THEN
           \* -EOVERFLOW: one fragment too many. The packet and d are
           \* dropped, d consumed, and drain completes the rest.
           /\ DropPacket(s, <<d.addr>>)
           /\ tx' = [tx EXCEPT ![s] = Tail(@)]
           /\ drain' = [drain EXCEPT ![s] = TRUE]
           /\ Continue(s)
           /\ UNCHANGED <<free, flight, rewound>>
       ELSE IF d.contd THEN
           \* A fragment: xskq_cons_release(), xs->skb keeps the packet.
           /\ part' = [part EXCEPT ![s] = Append(@, d.addr)]
           /\ tx' = [tx EXCEPT ![s] = Tail(@)]
           /\ Continue(s)
           /\ UNCHANGED <<free, cq, resv, flight, drain, pubd, rewound>>
       ELSE
       \E o \in Outcomes :
          CASE o = "sent" ->
                 \* xskq_cons_release(); the driver owns the skb.
                 /\ tx' = [tx EXCEPT ![s] = Tail(@)]
                 /\ flight' = flight \cup {[sock |-> s, addrs |-> pkt,
                                            contd |-> FALSE]}
                 /\ Continue(s)
                 /\ part' = [part EXCEPT ![s] = <<>>]
                 /\ pubd' = [pubd EXCEPT ![s] = FALSE]
                 /\ UNCHANGED <<free, cq, resv, drain, rewound>>
            [] o = "busy" ->
                 \* NETDEV_TX_BUSY: xskq_cons_cancel_n() puts the packet's
                 \* descriptors back, xsk_consume_skb() cancels their slots;
                 \* EAGAIN. If a refresh had published the consumer past its
                 \* fragments, the consumer now goes back over slots the
                 \* application may have refilled. Before the fix the skb was
                 \* freed with its destructor, which completed the
                 \* descriptors the ring was about to retry.
                 \* txbusy-skb-kept: a driver that returns NETDEV_TX_BUSY
                 \* after queuing the skb keeps it (and its slots) while
                 \* the ring retries its descriptors.
                 /\ CASE Mutant = "xsk-txbusy-rollback" -> CqSubmit(pkt)
                      [] Mutant = "txbusy-skb-kept" -> UNCHANGED <<cq, resv>>
                      [] OTHER -> CqCancel(Len(pkt)) /\ UNCHANGED cq
                 /\ flight' = IF Mutant = "txbusy-skb-kept"
                              THEN flight \cup {[sock |-> s, addrs |-> pkt,
                                                 contd |-> FALSE]}
                              ELSE flight
                 /\ tx' = [tx EXCEPT ![s] = PacketDescs(s, d) \o Tail(@)]
                 /\ rewound' = [rewound EXCEPT ![s] = @ \/ pubd[s]]
                 /\ part' = [part EXCEPT ![s] = <<>>]
                 /\ pubd' = [pubd EXCEPT ![s] = FALSE]
                 /\ EndCall(s)
                 /\ UNCHANGED <<free, drain>>
            [] o = "drop" ->
                 \* NET_XMIT_DROP: the stack freed the skb, its destructor
                 \* completed it; EBUSY.
                 /\ tx' = [tx EXCEPT ![s] = Tail(@)]
                 /\ CqSubmit(pkt)
                 /\ part' = [part EXCEPT ![s] = <<>>]
                 /\ pubd' = [pubd EXCEPT ![s] = FALSE]
                 /\ EndCall(s)
                 /\ UNCHANGED <<free, flight, drain, rewound>>

-----------------------------------------------------------------------------
(* Seed 000's batch: read up to BatchSize descriptors, reserve n slots at  *)
(* once, allocate skbs in bulk (some may fail), cancel the unused slots,   *)
(* transmit with xmit_more on all but the last. With multi-buffer sockets *)
(* batches carry single-buffer packets only, as in the series.            *)

\* The descriptors at the head of s's tx ring that a batch takes, at most
\* n: valid, and without XDP_PKT_CONTD (xskq_cons_peek_desc_batch() stops
\* at any option, patch 0006).
ValidPrefix(s, n) ==
    LET q == tx[s]
        ok(i) == \A j \in 1..i : q[j].ok /\ ~q[j].contd
        k == IF \E i \in 1..Min(n, Len(q)) : ok(i)
             THEN CHOOSE i \in 1..Min(n, Len(q)) :
                      ok(i) /\ \A j \in 1..Min(n, Len(q)) : ok(j) => j <= i
             ELSE 0
    IN SubSeq(q, 1, k)

\* What a batch would take now: nothing while a packet is being built or
\* drained (xsk_xmit_batch_ready(), patch 0008), else the valid prefix
\* within the batch size and the budget left.
BatchRun(s) ==
    IF part[s] = <<>> /\ ~drain[s]
    THEN ValidPrefix(s, Min(BatchSize, Budget - call[s].done))
    ELSE <<>>

\* The loop's head with batching (patch 0008): a batch when one is ready,
\* its completion slots reserved at once (none free: the call ends);
\* otherwise one iteration of the per-descriptor loop, after which the
\* batch is tried again.
XmitBatchReserve(s) ==
    /\ call[s].stage = "loop" /\ BatchSize > 0
    /\ LET want == BatchRun(s)
           k == Min(Len(want), CqFree)
       IN IF want = <<>> THEN
              LoopHead(s)
          ELSE IF k = 0 THEN
              /\ EndCall(s) /\ UNCHANGED <<free, tx, cq, resv, flight>>
              /\ UNCHANGED mbvars
          ELSE
              /\ CqReserve([i \in 1..k |-> want[i].addr])
              /\ call' = [call EXCEPT ![s].stage = "breserved", ![s].pend = k]
              /\ UNCHANGED <<free, tx, cq, flight>> /\ UNCHANGED mbvars

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
    /\ UNCHANGED <<free, cq, flight>> /\ UNCHANGED mbvars

\* Bulk allocation got nothing: cancel every slot, EAGAIN.
XmitBatchAllocFail(s) ==
    /\ call[s].stage = "breserved" /\ AllocFails
    /\ CqCancel(call[s].pend)
    /\ EndCall(s)
    /\ UNCHANGED <<free, tx, cq, flight>> /\ UNCHANGED mbvars

\* Transmit the batch's next skb (xmit_more unless it is the last).
XmitBatchSend(s) ==
    /\ call[s].stage = "bsend"
    /\ LET b == call[s].batch
           d == Head(b)
       IN /\ UNCHANGED mbvars
          /\ \E o \in Outcomes :
                CASE o = "sent" ->
                       /\ flight' = flight \cup {[sock |-> s, addrs |-> <<d.addr>>,
                                                  contd |-> FALSE]}
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
        /\ UNCHANGED <<free, tx, call>> /\ UNCHANGED mbvars

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
\* flight, in a batch being sent, or being built), the published
\* completions.
Count(q, f) == Cardinality({i \in DOMAIN q : q[i] = f})
Max2 == TxSize + CqSize     \* bounds every sequence index above
Held(f) ==
    (IF f \in free THEN 1 ELSE 0)
    + Cardinality({<<s, i>> \in Sockets \X (1..Max2) :
                      i \in DOMAIN tx[s] /\ tx[s][i].addr = f})
    + Cardinality({k \in flight : f \in Range(k.addrs)})
    + Cardinality({<<s, i>> \in Sockets \X (1..Max2) :
                      i \in DOMAIN call[s].batch /\ call[s].batch[i].addr = f})
    + Cardinality({s \in Sockets : f \in Range(part[s])})
    + Count(cq, f)

\* Kernel-held frames: in an skb, in a batch being sent, or in a packet
\* being built.
InKernel(f) ==
    \/ \E k \in flight : f \in Range(k.addrs)
    \/ \E s \in Sockets : \E i \in DOMAIN call[s].batch : call[s].batch[i].addr = f
    \/ \E s \in Sockets : f \in Range(part[s])

\* An address is visible in the completion queue only after its skb is gone.
NoImmatureCompletion == \A i \in DOMAIN cq : ~InKernel(cq[i])

\* Published plus reserved completions never exceed the ring.
CqNoOverflow == Len(cq) + Len(resv) <= CqSize

\* A completed address is completed once and held nowhere else.
NoDoubleCompletion == \A i \in DOMAIN cq : Held(cq[i]) = 1

\* Every reserved slot belongs to a descriptor of an skb in flight, of a
\* batch skb not yet sent, of a packet being built, or whose skb is being
\* built.
SlotsOf(K) ==
    LET sum[S \in SUBSET K] ==
            IF S = {} THEN 0
            ELSE LET k == CHOOSE x \in S : TRUE IN Len(k.addrs) + sum[S \ {k}]
    IN sum[K]
Pending ==
    LET sum[S \in SUBSET Sockets] ==
            IF S = {} THEN 0
            ELSE LET s == CHOOSE x \in S : TRUE
                 IN call[s].pend + Len(call[s].batch) + Len(part[s])
                    + sum[S \ {s}]
    IN sum[Sockets]
ReservationsAccounted == Len(resv) = SlotsOf(flight) + Pending

\* Each frame is somewhere, and (completions aside, above) in one place.
\* With NoDoubleCompletion: each frame is in exactly one place.
FrameConservation ==
    \A f \in Frames : Held(f) >= 1 /\ (f \notin Range(cq) => Held(f) <= 1)

\* One sendto processes at most Budget descriptors.
BudgetPerCall == \A s \in Sockets : call[s].done <= Budget

\* All fragments or none: an skb reaches the driver only with its packet's
\* last descriptor.
MultiBufAtomic == \A k \in flight : ~k.contd

\* The tx consumer advances only over descriptors the kernel is done with:
\* it never goes back over slots it has published to the application.
TxConsumerMonotone == \A s \in Sockets : ~rewound[s]

\* Every valid descriptor submitted is eventually completed: its frame
\* comes back to the application through the completion queue. (Not so
\* for an invalid one under design a: 6.12.117 completes it only when no
\* completion is reserved, which another socket on the shared queue can
\* keep true forever; the checker finds that starvation if the property
\* is widened.)
InTxValid(f) ==
    \E s \in Sockets : \E i \in DOMAIN tx[s] : tx[s][i].addr = f /\ tx[s][i].ok
EveryValidDescCompleted == \A f \in Frames : InTxValid(f) ~> (f \in free)

\* Symmetry of frames and of sockets is sound: no action or property
\* distinguishes one frame, or one socket, from another.
Perms == Permutations(Frames) \cup Permutations(Sockets)
=============================================================================
