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
(*  - the queue's socket pointer has no abstract counterpart.              *)
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

Map == INSTANCE XskRx WITH Redirect <- "map", Mutant <- "none",
                           cpu <- AbsCpu, flush <- AbsFlush,
                           rxqXsk <- None, fastXs <- [c \in Cpus |-> None]

\* The fast path is the driver's: xsk_generic_rcv()'s lock and flush
\* (RxLock, XskFlush) are not in it.
FastNext ==
    \/ UserFill \/ Done
    \/ \E s \in Sockets : UserRecv(s) \/ XskRelease(s) \/ XskReleaseDone(s)
                         \/ XskBind(s)
    \/ \E k \in Keys, s \in Sockets : XskMapUpdate(k, s)
    \/ \E c \in Cpus :
        \/ NapiPoll(c) \/ XdpDoFlush(c) \/ XdpRun(c) \/ XskRcvCheckRoom(c)
        \/ XpAllocFree(c) \/ XpAllocPeek(c) \/ XpAllocTake(c) \/ XpAllocFail(c)
        \/ XskRcvReserve(c)

FastSpec == Init /\ [][FastNext]_vars

\* The fast path implements the XSKMAP path.
Refinement == Map!Spec
=============================================================================
