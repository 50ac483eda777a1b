------------------------------- MODULE XskRing -------------------------------
(***************************************************************************)
(* One AF_XDP ring (fill, rx, tx or completion) between a producer and a   *)
(* consumer running on different CPUs.                                     *)
(*                                                                         *)
(* Mirrors linux 6.12.117 net/xdp/xsk_queue.h (the kernel side) and        *)
(* libxdp's headers/xdp/xsk.h (the user side). Each action is named as in  *)
(* model/ and sim/ and names the function it mirrors.                      *)
(*                                                                         *)
(* The barriers of xsk_queue.h, and what each one orders:                  *)
(*   producer: LOAD ->consumer; (A) STORE entry; (B) STORE.rel ->producer  *)
(*   consumer: LOAD.acq ->producer (C); LOAD entry; (D) STORE.rel ->consumer*)
(* B/C is message passing: an entry is stored before it is published.     *)
(* A/D is load buffering: an entry is loaded before its slot is handed     *)
(* back, and stored only after the slot was seen handed back. loom does    *)
(* not explore load buffering, so this spec is where A/D is checked: with  *)
(* a barrier left out of Barriers, the operations it orders may reorder    *)
(* (actions ProdWriteAhead, ConsReadAhead, and the relaxed guards of       *)
(* ProdSubmit and ConsRelease) and TLC must find the corruption.           *)
(*                                                                         *)
(* Entries carry the position they were stored for, so a stale or         *)
(* overwritten entry is visible as a value, and `own` records per slot     *)
(* whose it is, so a data race is a state rather than an assumption.       *)
(***************************************************************************)
EXTENDS Naturals

CONSTANTS
    Size,          \* q->nentries: a power of two
    IdxBits,       \* counters are free running modulo 2^IdxBits (u32: 32)
    ProdSide,      \* "kernel" (xsk_queue.h) or "user" (libxdp xsk.h)
    ConsSide,      \* "kernel" or "user"
    MaxBatch,      \* the largest n one reserve, submit or peek asks for
    Barriers,      \* the barriers present, a subset of {"A","B","C","D"}
    InvalidDescs,  \* TRUE: the producer may store invalid descriptors (tx)
    CopyTx,        \* TRUE: the kernel consumer is a copy-mode socket's
                   \* transmit loop (__xsk_generic_xmit), see KernelConsPeek
    Mutant         \* "none", or the id of a real or synthetic bug (manifest)

ASSUME Size \in {2^k : k \in 0..IdxBits - 1}
ASSUME ProdSide \in {"kernel", "user"} /\ ConsSide \in {"kernel", "user"}
ASSUME MaxBatch \in 1..Size /\ Barriers \subseteq {"A", "B", "C", "D"}
ASSUME CopyTx \in BOOLEAN /\ (CopyTx => ConsSide = "kernel")
ASSUME Mutant \in {"none", "wrapping-add", "cached-cons-offset", "reserve-partial",
                   "batch-release-count", "cons-no-publish", "xsk-rmb"}
\* xsk-rmb is the missing barrier C on the kernel consumer's refresh.
ASSUME Mutant = "xsk-rmb" => "C" \notin Barriers

M == 2^IdxBits
Mask(i) == i % Size                 \* idx & q->ring_mask
Slots == 0..Size - 1
Never == M                          \* the entry of a slot never stored into

\* u32 arithmetic. The wrapping-add mutant is an index sum that is not
\* reduced (Rust's checked `+` on a u32 index): it leaves the counter type.
Add(a, b) == IF Mutant = "wrapping-add" THEN a + b ELSE (a + b) % M
Sub(a, b) == (a - b + M) % M        \* wrapping distance a - b
Min(a, b) == IF a < b THEN a ELSE b

VARIABLES
    prod, cons,     \* ring->producer, ring->consumer: the shared counters
    slot,           \* slot[s]: the entry last stored in slot s
    own,            \* per slot: "free", "written", "published", "read",
                    \*   "clobbered" (an unread entry was overwritten)
    pProd,          \* producer's cached_prod: next position to reserve
    pCons,          \* producer's cached_cons (user side: plus Size)
    pWr,            \* producer: next reserved position not yet stored
    pAhead,         \* without A: an entry stored before its reservation
    cProd,          \* consumer's cached_prod
    cCons,          \* consumer's cached_cons (user side: end of its peeks)
    cRd,            \* consumer: next peeked position not yet loaded
    cEnd,           \* consumer: end of the peeked positions
    cValid,         \* consumer: valid entries loaded since the last release
    cSpec,          \* without C: an entry loaded before ->producer
    cExp,           \* ghost: the position FIFO order expects loaded next
    last            \* history: the consumer's last load

vars == <<prod, cons, slot, own, pProd, pCons, pWr, pAhead,
          cProd, cCons, cRd, cEnd, cValid, cSpec, cExp, last>>

Entry == [idx : 0..M, ok : BOOLEAN]
Load == [pos : 0..M - 1, val : 0..M, ok : BOOLEAN, pub : BOOLEAN,
         exp : 0..M - 1, some : BOOLEAN]
NoLoad == [pos |-> 0, val |-> 0, ok |-> TRUE, pub |-> TRUE, exp |-> 0,
           some |-> FALSE]

\* Position i is published: it lies in [ring->consumer, ring->producer).
Published(i) == Sub(i, cons) < Sub(prod, cons)
\* The producer's view of the real consumer (libxdp keeps it offset).
PConsReal == IF ProdSide = "user" THEN Sub(pCons, Size) ELSE pCons

TypeOK ==
    /\ slot \in [Slots -> Entry]
    /\ own \in [Slots -> {"free", "written", "published", "read", "clobbered"}]
    /\ pAhead \in BOOLEAN
    /\ cSpec \in Load /\ last \in Load
    /\ cValid \in 0..M

Init ==
    \E start \in 0..M - 1 :
        /\ prod = start /\ cons = start
        /\ slot = [s \in Slots |-> [idx |-> Never, ok |-> TRUE]]
        /\ own = [s \in Slots |-> "free"]
        /\ pProd = start /\ pWr = start /\ pAhead = FALSE
        /\ pCons = IF ProdSide = "user" THEN (start + Size) % M ELSE start
        /\ cProd = start /\ cCons = start /\ cRd = start /\ cEnd = start
        /\ cValid = 0 /\ cSpec = NoLoad /\ cExp = start /\ last = NoLoad

-----------------------------------------------------------------------------
(* Producer *)

\* Store the entry for position i (the store A orders after the load of
\* ->consumer). Overwriting an entry nobody loaded is a clobber.
Store(i, ok) ==
    /\ slot' = [slot EXCEPT ![Mask(i)] = [idx |-> i, ok |-> ok]]
    /\ own' = [own EXCEPT ![Mask(i)] =
                 IF @ \in {"written", "published", "clobbered"} THEN "clobbered"
                 ELSE IF Published(i) THEN "published" ELSE "written"]

Validity == IF InvalidDescs THEN BOOLEAN ELSE {TRUE}

\* Kernel: xskq_prod_nb_free() then cached_prod += k (xskq_prod_reserve,
\* xskq_prod_reserve_addr, and the batch xskq_prod_write_addr_batch take
\* min(free, n)). The consumer is re-read only when the cache is short.
\* User: xsk_ring_prod__reserve(), all or nothing via xsk_prod_nb_free().
\* Every reserved entry is stored first; a store ahead (pAhead) is at pProd
\* with pWr = pProd too, so one guard covers both (a disjunction would make
\* TLC generate the step twice when both hold).
ProdReserve ==
    /\ pWr = pProd
    /\ \E n \in 1..MaxBatch :
        IF ProdSide = "kernel" THEN
            \* free = nentries - (cached_prod - cached_cons), in u32
            LET short == Sub(Size, Sub(pProd, pCons)) < n
                cc    == IF ~short THEN pCons
                         ELSE IF Mutant = "cached-cons-offset"
                              THEN Add(cons, Size) ELSE cons
                k     == Min(n, Sub(Size, Sub(pProd, cc)))
            IN  /\ (pAhead => k > 0)
                /\ pCons' = cc
                /\ pProd' = Add(pProd, k)
                /\ pWr' = IF pAhead THEN Add(pWr, 1) ELSE pWr
        ELSE
            LET short == Sub(pCons, pProd) < n
                cc    == IF short THEN Add(cons, Size) ELSE pCons
                free  == Sub(cc, pProd)
                ok    == IF Mutant = "reserve-partial" THEN free > 0
                         ELSE free >= n
            IN  /\ (pAhead => ok)
                /\ pCons' = cc
                /\ pProd' = IF ok THEN Add(pProd, n) ELSE pProd
                /\ pWr' = IF pAhead THEN Add(pWr, 1) ELSE pWr
    /\ pAhead' = FALSE
    /\ UNCHANGED <<prod, cons, slot, own, cProd, cCons, cRd, cEnd, cValid,
                   cSpec, cExp, last>>

\* The entry stores of xskq_prod_reserve_addr / xskq_prod_reserve_desc
\* (kernel) or of the application through xsk_ring_prod__fill_addr (user).
ProdWrite ==
    /\ pWr # pProd /\ ~pAhead
    /\ \E ok \in Validity : Store(pWr, ok)
    /\ pWr' = Add(pWr, 1)
    /\ UNCHANGED <<prod, cons, pProd, pCons, pAhead, cProd, cCons, cRd, cEnd,
                   cValid, cSpec, cExp, last>>

\* Without A the store of the next entry may be performed before the load
\* of ->consumer that justifies it; ProdReserve must then justify it. Only
\* where that load is needed (the cache says the ring is full) and could
\* justify it (the slot's previous entry was published, so the consumer
\* may have handed it back).
ProdWriteAhead ==
    /\ "A" \notin Barriers
    /\ pWr = pProd /\ ~pAhead
    /\ Sub(pProd, PConsReal) >= Size
    /\ Sub(pProd, prod) < Size
    /\ \E ok \in Validity : Store(pProd, ok)
    /\ pAhead' = TRUE
    /\ UNCHANGED <<prod, cons, pProd, pCons, pWr, cProd, cCons, cRd, cEnd,
                   cValid, cSpec, cExp, last>>

\* Kernel: xskq_prod_submit_n() / xskq_prod_submit(); user:
\* xsk_ring_prod__submit(). STORE.rel ->producer (B, pairs with C). Without
\* B the publication may overtake stores not yet performed.
ProdSubmit ==
    /\ ~pAhead
    /\ \E n \in 1..MaxBatch :
        /\ n <= IF "B" \in Barriers THEN Sub(pWr, prod) ELSE Sub(pProd, prod)
        /\ prod' = Add(prod, n)
        /\ own' = [s \in Slots |->
                     IF own[s] = "written" /\ Sub(slot[s].idx, prod) < n
                     THEN "published" ELSE own[s]]
    /\ UNCHANGED <<cons, slot, pProd, pCons, pWr, pAhead, cProd, cCons, cRd,
                   cEnd, cValid, cSpec, cExp, last>>

\* Kernel only: xskq_prod_cancel_n() gives back reserved, unpublished
\* entries (the completion ring when a transmit fails).
ProdCancel ==
    /\ ProdSide = "kernel" /\ pWr = pProd /\ ~pAhead
    /\ \E n \in 1..Min(MaxBatch, Sub(pProd, prod)) :
        /\ pProd' = Sub(pProd, n) /\ pWr' = Sub(pProd, n)
        /\ own' = [s \in Slots |->
                     IF own[s] = "written" /\ Sub(slot[s].idx, Sub(pProd, n)) < n
                     THEN "free" ELSE own[s]]
    /\ UNCHANGED <<prod, cons, slot, pCons, pAhead, cProd, cCons, cRd, cEnd,
                   cValid, cSpec, cExp, last>>

-----------------------------------------------------------------------------
(* Consumer *)

\* Load the entry at position i: what the consumer sees, and whether it
\* was published when loaded.
LoadAt(i) == [pos |-> i, val |-> slot[Mask(i)].idx, ok |-> slot[Mask(i)].ok,
              pub |-> Published(i), exp |-> cExp, some |-> TRUE]

\* A speculative load survives a refresh of ->producer only if the
\* refreshed range covers it; otherwise the CPU discards it.
KeepSpec(end) == IF cSpec.some /\ Sub(cSpec.pos, cRd) < Sub(end, cRd)
                 THEN cSpec ELSE NoLoad

\* Kernel: xskq_cons_peek_desc() / xskq_cons_peek_addr_unchecked(). With an
\* empty cache they call xskq_cons_get_entries(): __xskq_cons_release()
\* (STORE.rel ->consumer, D) then __xskq_cons_peek() (LOAD.acq ->producer, C).
\* That store is what the batch peek does not do. A copy-mode socket's tx
\* ring (CopyTx) has no other consumer step: __xsk_generic_xmit() peeks one
\* descriptor at a time, and ->consumer is stored only here.
KernelConsPeek ==
    /\ cRd = cEnd /\ cCons = cRd
    /\ LET empty == cProd = cCons
           cp    == IF empty THEN prod ELSE cProd
           end   == IF cp # cCons THEN Add(cCons, 1) ELSE cCons
       IN  /\ cons' = IF empty /\ Mutant # "cons-no-publish" THEN cCons
                      ELSE cons
           /\ cProd' = cp
           /\ cEnd' = end
           /\ cSpec' = KeepSpec(end)
    /\ UNCHANGED <<prod, slot, own, pProd, pCons, pWr, pAhead, cCons, cRd,
                   cValid, cExp, last>>

\* Kernel: xskq_cons_nb_entries(max) then xskq_cons_read_desc_batch(): the
\* producer is re-read (C) only when fewer than max entries are cached.
\* 6.12.117 ends a tx batch after the first invalid descriptor; that run
\* is this action with a smaller max.
KernelConsPeekBatch ==
    /\ cRd = cEnd /\ cCons = cRd
    /\ \E max \in 1..MaxBatch :
        LET cp  == IF Sub(cProd, cCons) >= max THEN cProd ELSE prod
            end == Add(cCons, Min(max, Sub(cp, cCons)))
        IN  /\ cProd' = cp
            /\ cEnd' = end
            /\ cSpec' = KeepSpec(end)
    /\ UNCHANGED <<prod, cons, slot, own, pProd, pCons, pWr, pAhead, cCons,
                   cRd, cValid, cExp, last>>

\* User: xsk_ring_cons__peek(nb) via xsk_cons_nb_avail(), which re-reads the
\* producer (C) only when no entry is cached; cached_cons moves at peek.
UserConsPeek ==
    /\ cRd = cEnd
    /\ \E nb \in 1..MaxBatch :
        LET cp  == IF cProd = cEnd THEN prod ELSE cProd
            end == Add(cEnd, Min(nb, Sub(cp, cEnd)))
        IN  /\ cProd' = cp
            /\ cEnd' = end /\ cCons' = end
            /\ cSpec' = KeepSpec(end)
    /\ UNCHANGED <<prod, cons, slot, own, pProd, pCons, pWr, pAhead, cRd,
                   cValid, cExp, last>>

ConsPeek == IF ConsSide = "kernel" THEN KernelConsPeek ELSE UserConsPeek
\* The batch peeks are zero-copy drivers' (xsk_tx_peek_release_desc_batch,
\* xp_alloc_batch); copy mode does not use them.
ConsPeekBatch == ConsSide = "kernel" /\ ~CopyTx /\ KernelConsPeekBatch

\* Load one peeked entry: the copy in xskq_cons_read_desc() /
\* xskq_cons_read_addr_unchecked() (kernel) or xsk_ring_cons__rx_desc() /
\* xsk_ring_cons__comp_addr() (user).
ConsRead ==
    /\ cRd # cEnd
    /\ LET l == IF cSpec.some /\ cSpec.pos = cRd
                THEN [cSpec EXCEPT !.exp = cExp] ELSE LoadAt(cRd)
       IN  /\ last' = l
           /\ cValid' = IF l.ok THEN cValid + 1 ELSE cValid
           /\ own' = [own EXCEPT ![Mask(cRd)] =
                        IF @ = "published" THEN "read" ELSE @]
    /\ cRd' = Add(cRd, 1)
    /\ cExp' = Add(cExp, 1)
    /\ cSpec' = NoLoad
    /\ UNCHANGED <<prod, cons, slot, pProd, pCons, pWr, pAhead, cProd, cCons,
                   cEnd>>

\* Without C an entry may be loaded before the LOAD.acq of ->producer that
\* makes it visible: the load of the next position is hoisted above the
\* peek that must re-read ->producer (nothing cached beyond cEnd).
ConsReadAhead ==
    /\ "C" \notin Barriers
    /\ cRd = cEnd /\ ~cSpec.some
    /\ cProd = cEnd
    /\ cSpec' = LoadAt(cEnd)
    /\ UNCHANGED <<prod, cons, slot, own, pProd, pCons, pWr, pAhead, cProd,
                   cCons, cRd, cEnd, cValid, cExp, last>>

\* The loads a release may cover: with D, only entries already loaded;
\* without D the release may be performed before the loads.
Releasable == IF "D" \in Barriers THEN cRd ELSE cEnd

\* Kernel: xskq_cons_release() / xskq_cons_release_n() move cached_cons
\* only (published later by ConsPublish), after the whole peek is loaded
\* (with D; without D the release may overtake the loads). xskq_cons_read_desc_batch()
\* releases every entry it examined, valid or not; the batch-release-count
\* mutant releases only the valid ones.
\* User: xsk_ring_cons__release(nb): STORE.rel ->consumer (D, pairs with A).
ConsRelease ==
    /\ IF ConsSide = "kernel" THEN
           /\ "D" \in Barriers => cRd = cEnd
           /\ cEnd # cCons
           /\ LET new == IF Mutant = "batch-release-count"
                         THEN Add(cCons, cValid) ELSE cEnd
                  done == cRd = cEnd
              IN  /\ cCons' = new
                  \* the next peek reads at cached_cons again
                  /\ cRd' = IF done THEN new ELSE cRd
                  /\ cEnd' = IF done THEN new ELSE cEnd
           /\ UNCHANGED cons
       ELSE
           /\ \E nb \in 1..Sub(Releasable, cons) : cons' = Add(cons, nb)
           /\ UNCHANGED <<cCons, cRd, cEnd>>
    /\ cValid' = 0
    /\ UNCHANGED <<prod, slot, own, pProd, pCons, pWr, pAhead, cProd, cSpec,
                   cExp, last>>

\* Kernel only: __xskq_cons_release(), STORE.rel ->consumer (D), as done at
\* the end of a transmit or receive batch (xsk_tx_release(), xsk_flush()).
\* Not in copy mode's transmit loop (CopyTx).
ConsPublish ==
    /\ ConsSide = "kernel" /\ ~CopyTx /\ Mutant # "cons-no-publish"
    /\ cons # cCons
    /\ cons' = cCons
    /\ UNCHANGED <<prod, slot, own, pProd, pCons, pWr, pAhead, cProd, cCons,
                   cRd, cEnd, cValid, cSpec, cExp, last>>

-----------------------------------------------------------------------------
ProdStep == ProdReserve \/ ProdWrite \/ ProdWriteAhead \/ ProdSubmit \/ ProdCancel
ConsStep == ConsPeek \/ ConsPeekBatch \/ ConsRead \/ ConsReadAhead
            \/ ConsRelease \/ ConsPublish

Next == ProdStep \/ ConsStep

Spec == Init /\ [][Next]_vars
FairSpec == Spec /\ WF_vars(ConsStep)

-----------------------------------------------------------------------------
(* The shift reduction (VIEW ShiftView in the *View models).               *)
(* Every step reads indices only through Add, Sub and Mask, and Size      *)
(* divides M, so two states that differ by one shift k of every position  *)
(* (and by k mod Size in the slots) have the same futures, shifted: TLC   *)
(* need expand one of them. The view is the state seen from ring->consumer:*)
(* positions less cons, slots rotated to start at cons's. It removes the  *)
(* factor M that the free start index puts on every state count. It is    *)
(* sound only where steps commute with the shift: not for wrapping-add,    *)
(* whose unreduced sum breaks it (the unreduced models and the Z3 proofs   *)
(* cover that bug), and not for liveness (TLC does not check a VIEW's      *)
(* temporal properties soundly), so the View models check invariants.     *)

Rel(i) == Sub(i, cons)
RelEntry(e) == IF e.idx = Never THEN e ELSE [e EXCEPT !.idx = Rel(@)]
RelLoad(l) ==
    IF ~l.some THEN l
    ELSE [l EXCEPT !.pos = Rel(@), !.exp = Rel(@),
                   !.val = IF @ = Never THEN Never ELSE Rel(@)]
ShiftView ==
    <<Rel(prod),
      [j \in Slots |-> RelEntry(slot[Mask(cons + j)])],
      [j \in Slots |-> own[Mask(cons + j)]],
      Rel(pProd), Rel(pCons), Rel(pWr), pAhead,
      Rel(cProd), Rel(cCons), Rel(cRd), Rel(cEnd), cValid,
      RelLoad(cSpec), Rel(cExp), RelLoad(last)>>

-----------------------------------------------------------------------------
(* Properties. Each one has a mutant in specs/manifest.json that breaks it. *)

\* Every counter is a u32 (here: below 2^IdxBits). Broken by wrapping-add.
IndicesAreU32 ==
    \A v \in {prod, cons, pProd, pCons, pWr, cProd, cCons, cRd, cEnd, cExp} :
        v \in 0..M - 1

\* Published and reserved entries never exceed the ring size.
\* Broken by reserve-partial.
InFlightBounded ==
    /\ Sub(prod, cons) <= Size
    /\ Sub(pProd, cons) <= Size

\* Each side's copy of the other side's counter lags the truth, never leads.
\* Broken by cached-cons-offset.
CachedNotAhead ==
    /\ Sub(cons, PConsReal) <= Size
    /\ Sub(prod, cProd) <= Size

\* The producer never overwrites an entry the consumer has not loaded.
\* Broken by a missing A.
NoOverwrite == \A s \in Slots : own[s] # "clobbered"

\* The consumer loads only published entries, and sees the entry stored for
\* that position. Broken by a missing B, C (xsk-rmb) or D.
ReadsPublished == last.some => (last.pub /\ last.val = last.pos)

\* The consumer loads positions in order, each exactly once.
\* Broken by batch-release-count.
FifoOrder == last.some => last.pos = last.exp

\* Every published entry is eventually consumed and handed back.
\* Broken by cons-no-publish.
EveryEntryConsumed ==
    \A i \in 0..M - 1 : Published(i) ~> ~Published(i)
=============================================================================
