---------------------------- MODULE XskRedirectXsk ----------------------------
(***************************************************************************)
(* XDP_REDIRECT_XSK (seed 002) must change nothing a socket or its         *)
(* application can see. This module checks it as refinement: every        *)
(* behaviour of XskRx with the fast path (Redirect = "xsk") is a behaviour *)
(* of XskRx's XSKMAP path (Redirect = "map", no mutant) under the mapping  *)
(* below, which only hides what the fast path keeps differently:           *)
(*  - a receive is for the socket its program's XSKMAP entry named when   *)
(*    the program ran (the XSKMAP path has nothing else to go by), so the  *)
(*    abstract receive's socket is `tgt`: a fast path that receives into   *)
(*    another socket reserves where the XSKMAP path would not;             *)
(*  - the socket the driver keeps to flush at the poll's end is on the     *)
(*    abstract CPU's flush list, where xsk_rcv() would have put it;        *)
(*  - the queue's socket pointer has no abstract counterpart;             *)
(*  - with Batch > 1, a packet in the driver's batch has not arrived yet:  *)
(*    for the XSKMAP path its program runs when xsk_rcv_batch() receives  *)
(*    it. That is a refinement while XSKMAP entries are only filled        *)
(*    (Remap = FALSE). An entry replaced between a batched packet's        *)
(*    program and its receive has no XSKMAP step to map to (the XSKMAP     *)
(*    path holds one packet in flight across such an update, a batch up   *)
(*    to Batch): MCXskRedirectXsk_BatchRemapRefinement.cfg must fail,      *)
(*    while XskRx's invariants hold (MCXskRedirectXsk_BatchRemap.cfg).     *)
(*    Nothing is published before the poll's end, so no application can  *)
(*    tell the two orders apart; no mapping of states shows it.            *)
(* Rings, buffers, fates, counters and socket states map to themselves,   *)
(* so the fast path publishes the same descriptors at the same steps,     *)
(* takes the same buffers and counts the same drops.                      *)
(*                                                                         *)
(* The MC configs check FastSpec with Redirect = "xsk", Path = "driver",  *)
(* XskRx's invariants, two of its own (DeliveredToKey, RxqXskInStep) and  *)
(* Refinement.                                                             *)
(***************************************************************************)
EXTENDS XskRx

AbsCpu == [c \in Cpus |-> [cpu[c] EXCEPT !.sock = cpu[c].tgt, !.fast = FALSE]]

AbsFlush == [c \in Cpus |-> flush[c] \cup FastSet(c)]

Batched(p) == \E c \in Cpus : \E i \in DOMAIN pend[c] : pend[c][i].pkt = p

AbsArrived == arrived - Cardinality({p \in Pkts : Batched(p)})

AbsFate == [p \in Pkts |-> IF Batched(p) THEN "none" ELSE fate[p]]

Map == INSTANCE XskRx WITH Redirect <- "map", Mutant <- "none", Batch <- 1,
                           cpu <- AbsCpu, flush <- AbsFlush,
                           arrived <- AbsArrived, fate <- AbsFate,
                           rxqXsk <- None, fastXs <- [c \in Cpus |-> None],
                           pend <- [c \in Cpus |-> <<>>]

\* The fast path is the driver's: xsk_generic_rcv()'s lock and flush
\* (RxLock, XskFlush) are not in it.
FastNext ==
    \/ UserFill \/ Done
    \/ \E s \in Sockets : UserRecv(s) \/ XskRelease(s) \/ XskReleaseDone(s)
                         \/ XskBind(s)
    \/ \E k \in Keys, s \in Sockets : XskMapUpdate(k, s)
    \/ \E c \in Cpus :
        \/ NapiPoll(c) \/ XdpDoFlush(c) \/ XdpRun(c) \/ XskRcvBatch(c)
        \/ XskRcvCheckRoom(c)
        \/ XpAllocFree(c) \/ XpAllocPeek(c) \/ XpAllocTake(c) \/ XpAllocFail(c)
        \/ XskRcvReserve(c)

FastSpec == Init /\ [][FastNext]_vars

\* The fast path implements the XSKMAP path.
Refinement == Map!Spec
=============================================================================
