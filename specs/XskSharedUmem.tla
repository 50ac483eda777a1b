---------------------------- MODULE XskSharedUmem ----------------------------
(***************************************************************************)
(* Several AF_XDP sockets bound with XDP_SHARED_UMEM to one device queue:  *)
(* they share one xsk_buff_pool, so one fill ring and one completion ring. *)
(*                                                                         *)
(* TX is zero-copy. The driver takes descriptors from the sockets on       *)
(* pool->xsk_tx_list either one at a time, xsk_tx_peek_desc() (TxPath =    *)
(* "peek"; also what xsk_tx_peek_release_desc_batch() falls back to for a  *)
(* shared umem without XDP_UMEM_SG_FLAG), or in a batch,                   *)
(* xsk_tx_peek_release_shared_desc_batch() (TxPath = "batch"). Both charge *)
(* xs->tx_budget_spent, meant to keep one socket from starving the others. *)
(* The device sends in ring order and the driver's xsk_tx_completed()      *)
(* publishes the completions by count.                                     *)
(*                                                                         *)
(* RX is the copy path, xsk_generic_rcv(): a buffer from the shared fill   *)
(* ring (pool->rx_lock: one consumer) goes to the rx ring of the socket    *)
(* the XDP program redirected the packet to.                               *)
(*                                                                         *)
(* Mirrors net/xdp/xsk.c and xsk_buff_pool.c of linux 6.12.117. Rings are  *)
(* FIFO sequences (XskRing.tla checks the ring protocol); descriptors are  *)
(* valid and single-buffer.                                                *)
(***************************************************************************)
EXTENDS Naturals, Sequences, FiniteSets

CONSTANTS
    NSockets,     \* sockets on the pool; xsk_tx_list is 1..NSockets in
                  \* order (xp_add_xsk() adds at the head: 1 is the last bound)
    TxFrames,     \* frames each socket's application transmits from
    RxFrames,     \* frames the applications receive into (0: no RX)
    TxSize,       \* entries of each socket's tx ring
    CqSize,       \* entries of the shared completion ring
    FqSize,       \* entries of the shared fill ring
    RxSize,       \* entries of each socket's rx ring
    Budget,       \* MAX_PER_SOCKET_BUDGET; the kernel's is 32 (TX_BATCH_SIZE),
                  \* the batch path's max(32, xdp_zc_max_segs)
    TxPath,       \* "peek" or "batch", above
    ChargeOnFull, \* TRUE (6.12.117): xsk_tx_peek_desc() charges a socket
                  \* whose descriptor finds the completion ring full; FALSE:
                  \* only a socket whose descriptor is taken (the batch
                  \* path charges only those either way)
    BatchMax,     \* descriptors the driver asks the batch path for
    Mutant        \* "none" or a mutant id of specs/manifest.json

ASSUME NSockets \in Nat /\ NSockets >= 2
ASSUME {TxFrames, RxFrames} \subseteq Nat
ASSUME {TxSize, CqSize, FqSize, RxSize, Budget, BatchMax} \subseteq Nat \ {0}
ASSUME TxPath \in {"peek", "batch"} /\ ChargeOnFull \in BOOLEAN
ASSUME Mutant \in {"none", "shared-tx-budget-uncharged", "shared-cq-reap-wrong-socket",
                   "shared-tx-complete-unsent", "shared-rx-wrong-ring",
                   "shared-cq-overcommit", "shared-tx-budget-overrun"}

Sockets == 1..NSockets
\* A frame is <<s, i>>: frame i of socket s's transmit frames, or with
\* s = 0 frame i of the receive frames.
TxOf(s) == {<<s, i>> : i \in 1..TxFrames}
RxBufs == {<<0, i>> : i \in 1..RxFrames}
Frames == UNION {TxOf(s) : s \in Sockets} \cup RxBufs
Owner(f) == f[1]

Min(a, b) == IF a < b THEN a ELSE b
Range(q) == {q[i] : i \in DOMAIN q}

VARIABLES
    app,    \* app[s]: the transmit frames socket s's application holds
    tx,     \* tx[s]: descriptors on s's tx ring, oldest first
    spent,  \* spent[s]: xs->tx_budget_spent
    resv,   \* completion slots reserved, each holding its address
            \* (xskq_prod_reserve_addr), in ring order
    hw,     \* frames posted to the device and not yet sent, in order
    txd,    \* frames the device sent and the driver has not cleaned
    cq,     \* completions published, oldest first
    ufree,  \* receive frames the applications hold
    fq,     \* the fill ring
    kfree,  \* pool->free_list: buffers taken and not used, newest first
    rx      \* rx[s]: [addr, dst] on s's rx ring, dst the socket the XDP
            \* program redirected the packet to

vars == <<app, tx, spent, resv, hw, txd, cq, ufree, fq, kfree, rx>>
txvars == <<app, tx, spent, resv, hw, txd, cq>>
rxvars == <<ufree, fq, kfree, rx>>

\* shared-cq-overcommit counts one free completion slot more than there is.
CqFree == CqSize - Len(cq) - Len(resv) + IF Mutant = "shared-cq-overcommit" THEN 1 ELSE 0

Init ==
    /\ app = [s \in Sockets |-> TxOf(s)]
    /\ tx = [s \in Sockets |-> <<>>]
    /\ spent = [s \in Sockets |-> 0]
    /\ resv = <<>> /\ hw = <<>> /\ txd = 0 /\ cq = <<>>
    /\ ufree = RxBufs /\ fq = <<>> /\ kfree = <<>>
    /\ rx = [s \in Sockets |-> <<>>]

-----------------------------------------------------------------------------
(* The applications *)

\* Socket s's application submits a descriptor for one of its frames.
UserSubmit(s) ==
    /\ Len(tx[s]) < TxSize
    /\ \E f \in app[s] :
        /\ tx' = [tx EXCEPT ![s] = Append(@, f)]
        /\ app' = [app EXCEPT ![s] = @ \ {f}]
    /\ UNCHANGED <<spent, resv, hw, txd, cq>> /\ UNCHANGED rxvars

\* Socket s's thread takes a completion from the shared ring and hands the
\* frame to the socket it belongs to. shared-cq-reap-wrong-socket keeps it.
UserReap(s) ==
    /\ cq # <<>>
    /\ LET f == Head(cq)
           to == IF Mutant = "shared-cq-reap-wrong-socket" THEN s ELSE Owner(f)
       IN app' = [app EXCEPT ![to] = @ \cup {f}]
    /\ cq' = Tail(cq)
    /\ UNCHANGED <<tx, spent, resv, hw, txd>> /\ UNCHANGED rxvars

Reap == \E s \in Sockets : UserReap(s)

\* The application puts a free buffer on the fill ring.
UserFill ==
    /\ Len(fq) < FqSize
    /\ \E f \in ufree :
        /\ fq' = Append(fq, f)
        /\ ufree' = ufree \ {f}
    /\ UNCHANGED <<kfree, rx>> /\ UNCHANGED txvars

\* Socket s's application takes a packet from its rx ring; the buffer is
\* free again.
UserRecv(s) ==
    /\ rx[s] # <<>>
    /\ ufree' = ufree \cup {Head(rx[s]).addr}
    /\ rx' = [rx EXCEPT ![s] = Tail(@)]
    /\ UNCHANGED <<fq, kfree>> /\ UNCHANGED txvars

-----------------------------------------------------------------------------
(* Zero-copy TX: the driver's xmit, the device, the driver's clean *)

\* Under budgets sp, the first socket on the list with budget left and a
\* descriptor, or 0 if none.
First(sp) ==
    LET c == {s \in Sockets : sp[s] < Budget /\ tx[s] # <<>>}
    IN IF c = {} THEN 0 ELSE CHOOSE s \in c : \A t \in c : s <= t

Charge(k) == IF Mutant = "shared-tx-budget-uncharged" THEN 0 ELSE k

\* What a socket may still take under budgets sp (budget_left, l.628);
\* shared-tx-budget-overrun lets it take one more.
BudgetLeft(sp, i) == Budget - sp[i] + IF Mutant = "shared-tx-budget-overrun" THEN 1 ELSE 0

\* One xsk_tx_peek_desc() (xsk.c l.478). The walk skips a socket that
\* spent its budget; if no socket with budget left has a descriptor and
\* one was skipped, every budget is reset and the walk starts again from
\* the head (l.512-517). The socket found is charged (l.497) before the
\* completion slot is reserved, so also when the completion ring is full
\* and its descriptor stays (l.504: return false), unless ChargeOnFull is
\* FALSE. With a free slot the descriptor is consumed and its address
\* stored in the slot, and the driver posts it to the device.
XmitPeek ==
    /\ TxPath = "peek"
    /\ LET reset == First(spent) = 0 /\ \E t \in Sockets : spent[t] >= Budget
           sp == IF reset THEN [t \in Sockets |-> 0] ELSE spent
           s == First(sp)
       IN /\ s # 0 \/ reset
          /\ IF s = 0 THEN
                /\ spent' = sp
                /\ UNCHANGED <<app, tx, resv, hw, txd, cq>>
             ELSE
                /\ spent' = [sp EXCEPT ![s] =
                                @ + IF CqFree > 0 \/ ChargeOnFull THEN Charge(1) ELSE 0]
                /\ IF CqFree > 0 THEN
                      /\ resv' = Append(resv, Head(tx[s]))
                      /\ hw' = Append(hw, Head(tx[s]))
                      /\ tx' = [tx EXCEPT ![s] = Tail(@)]
                   ELSE UNCHANGED <<resv, hw, tx>>
                /\ UNCHANGED <<app, txd, cq>>
    /\ UNCHANGED rxvars

\* xsk_tx_peek_release_shared_desc_batch() (l.590), for max descriptors.
\* The walk w carries the budgets (sp), how many descriptors it took from
\* each socket (take), the addresses in the order taken (out), and whether
\* it skipped a socket that spent its budget and has descriptors (exh).
\* TLC evaluates an operator's argument at each use, and under ENABLED
\* (weak fairness) without caching: the walk binds each w it makes to its
\* value as a function's argument, [w \in {e} |-> ...][e], once per pass.
\*
\* One pass over the list (l.605-646): stop when max are taken; skip a
\* socket without budget; take from each what it has, up to its budget
\* left and the room left.
RECURSIVE Pass(_, _, _)
Pass(i, w0, max) ==
    LET P[w \in {w0}] ==
        IF i > NSockets \/ Len(w.out) >= max THEN w
        ELSE IF w.sp[i] >= Budget
        THEN Pass(i + 1, [w EXCEPT !.exh = @ \/ Len(tx[i]) > w.take[i]], max)
        ELSE LET k == Min(Len(tx[i]) - w.take[i],
                          Min(max - Len(w.out), BudgetLeft(w.sp, i)))
             IN Pass(i + 1,
                     [w EXCEPT !.sp[i] = @ + Charge(k), !.take[i] = @ + k,
                               !.out = @ \o SubSeq(tx[i], w.take[i] + 1,
                                                   w.take[i] + k)],
                     max)
    IN P[w0]

\* Passes again while one takes something and there is room (l.655); when
\* one takes nothing but skipped a socket with descriptors, every budget
\* is reset and the walk starts again (l.660).
RECURSIVE Walk(_, _)
Walk(w, max) ==
    LET After[w1 \in {Pass(1, [w EXCEPT !.exh = FALSE], max)}] ==
        IF Len(w1.out) >= max THEN w1
        ELSE IF Len(w1.out) # Len(w.out) THEN Walk(w1, max)
        ELSE IF ~w1.exh THEN w1
        ELSE Walk([w1 EXCEPT !.sp = [s \in Sockets |-> 0]], max)
    IN After[Pass(1, [w EXCEPT !.exh = FALSE], max)]

\* xsk_tx_peek_release_desc_batch() on a shared umem with
\* XDP_UMEM_SG_FLAG (l.665): at most as many descriptors as completion
\* slots are free (l.697), taken by the walk, released, and their addresses
\* written into the completion ring (xsk_tx_commit_batch); the driver posts
\* them.
XmitBatch ==
    /\ TxPath = "batch"
    /\ LET max == Min(BatchMax, CqFree) IN
       /\ max > 0
       /\ \E w \in {Walk([sp |-> spent, take |-> [s \in Sockets |-> 0],
                           out |-> <<>>, exh |-> FALSE], max)} :
            /\ w.out # <<>>
            /\ spent' = w.sp
            /\ tx' = [s \in Sockets |-> SubSeq(tx[s], w.take[s] + 1, Len(tx[s]))]
            /\ resv' = resv \o w.out
            /\ hw' = hw \o w.out
    /\ UNCHANGED <<app, txd, cq>> /\ UNCHANGED rxvars

\* The device sends the next frame posted to it.
DeviceTx ==
    /\ hw # <<>>
    /\ hw' = Tail(hw)
    /\ txd' = txd + 1
    /\ UNCHANGED <<app, tx, spent, resv, cq>> /\ UNCHANGED rxvars

\* The driver's clean: xsk_tx_completed(pool, n) (l.441) publishes the
\* next n reserved slots (xskq_prod_submit_n), n the frames the device
\* sent. shared-tx-complete-unsent counts one more.
DriverClean ==
    /\ txd > 0
    /\ LET n == IF Mutant = "shared-tx-complete-unsent" THEN Min(txd + 1, Len(resv))
                ELSE txd
       IN /\ cq' = cq \o SubSeq(resv, 1, n)
          /\ resv' = SubSeq(resv, n + 1, Len(resv))
    /\ txd' = 0
    /\ UNCHANGED <<app, tx, spent, hw>> /\ UNCHANGED rxvars

-----------------------------------------------------------------------------
(* Copy-mode RX *)

\* A packet the XDP program redirects to socket s: xsk_generic_rcv() ->
\* __xsk_rcv() (l.243) under pool->rx_lock. xp_alloc() takes a buffer from
\* pool->free_list, else from the fill ring; with neither the packet is
\* dropped (rx_dropped; the fill ring counts rx_fill_ring_empty_descs) and
\* nothing changes. The copy goes on s's rx ring; a full one drops it
\* (rx_queue_full) and xp_free() puts the buffer on the free list.
\* shared-rx-wrong-ring puts it on the rx ring of the list's first socket.
XdpRedirect(s) ==
    /\ kfree # <<>> \/ fq # <<>>
    /\ LET f == IF kfree # <<>> THEN Head(kfree) ELSE Head(fq)
           kf == IF kfree # <<>> THEN Tail(kfree) ELSE kfree
           t == IF Mutant = "shared-rx-wrong-ring" THEN 1 ELSE s
       IN /\ fq' = IF kfree # <<>> THEN fq ELSE Tail(fq)
          /\ IF Len(rx[t]) < RxSize THEN
                /\ rx' = [rx EXCEPT ![t] = Append(@, [addr |-> f, dst |-> s])]
                /\ kfree' = kf
             ELSE
                /\ kfree' = <<f>> \o kf
                /\ UNCHANGED rx
    /\ UNCHANGED ufree /\ UNCHANGED txvars

-----------------------------------------------------------------------------
Next ==
    \/ XmitPeek \/ XmitBatch \/ DeviceTx \/ DriverClean \/ Reap \/ UserFill
    \/ \E s \in Sockets : UserSubmit(s) \/ UserRecv(s) \/ XdpRedirect(s)

Spec == Init /\ [][Next]_vars

\* The driver, the device and the reaping of completions are weakly fair.
\* The applications submit when they like: a descriptor already on a tx
\* ring needs nothing more from them.
FairSpec ==
    /\ Spec
    /\ WF_vars(XmitPeek) /\ WF_vars(XmitBatch)
    /\ WF_vars(DeviceTx) /\ WF_vars(DriverClean) /\ WF_vars(Reap)

-----------------------------------------------------------------------------
(* Properties *)

Count(q, f) == Cardinality({i \in DOMAIN q : q[i] = f})
RingMax == TxSize + RxSize     \* bounds the index of any tx or rx ring
RxAddr(s, i) == rx[s][i].addr

\* How many places hold frame f: an application, a tx ring, a reserved
\* completion slot (the frame is in the device or sent), a published
\* completion, the fill ring, the free list, an rx ring.
Held(f) ==
    Cardinality({s \in Sockets : f \in app[s]})
    + Cardinality({<<s, i>> \in Sockets \X (1..RingMax) :
                      i \in DOMAIN tx[s] /\ tx[s][i] = f})
    + Count(resv, f) + Count(cq, f)
    + (IF f \in ufree THEN 1 ELSE 0) + Count(fq, f) + Count(kfree, f)
    + Cardinality({<<s, i>> \in Sockets \X (1..RingMax) :
                      i \in DOMAIN rx[s] /\ RxAddr(s, i) = f})

\* The umem holds the frames declared: NSockets * TxFrames to transmit
\* from, RxFrames to receive into.
FramesDeclared == Cardinality(Frames) = NSockets * TxFrames + RxFrames

\* Every frame is in exactly one place, and a transmit frame held by an
\* application or on a tx ring is its own socket's.
UmemConservation ==
    /\ FramesDeclared
    /\ \A f \in Frames : Held(f) = 1
    /\ \A s \in Sockets : \A f \in app[s] \cup Range(tx[s]) : Owner(f) = s

\* A completion is published only for a frame the device has sent.
NoCompletionUnsent == \A i \in DOMAIN cq : cq[i] \notin Range(hw)

\* A socket's rx ring holds only packets redirected to that socket.
RxOwnRing == \A s \in Sockets : \A i \in DOMAIN rx[s] : rx[s][i].dst = s

\* No ring holds more than its entries, and the completions published and
\* reserved never exceed the completion ring (the backpressure of
\* xskq_prod_reserve_addr and xskq_prod_nb_free).
RingsBounded ==
    /\ \A s \in Sockets : Len(tx[s]) <= TxSize /\ Len(rx[s]) <= RxSize
    /\ Len(fq) <= FqSize
    /\ Len(cq) + Len(resv) <= CqSize

\* No socket is charged past its budget: xsk_tx_peek_desc() skips a socket
\* at the budget, the batch walk takes at most budget_left from one.
BudgetBounded == \A s \in Sockets : spent[s] <= Budget

\* The batch walk resets the budgets only to go on taking, and charges what
\* it takes: once it has taken a descriptor some socket stays charged.
BatchCharged == TxPath = "batch" /\ resv # <<>> => spent # [s \in Sockets |-> 0]

\* Every descriptor on a tx ring is eventually taken by the driver: no
\* socket on the pool starves. With TxPath = "peek" and ChargeOnFull it
\* can fail once the completion ring can fill: a peek that finds it full
\* charges the socket without taking its descriptor, and with three
\* sockets and a ring of two TLC finds a schedule in which one socket is
\* charged so whenever its turn comes.
EverySocketServed ==
    \A s \in Sockets : \A f \in TxOf(s) : (f \in Range(tx[s])) ~> (f \notin Range(tx[s]))
=============================================================================
