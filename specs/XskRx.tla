-------------------------------- MODULE XskRx --------------------------------
(***************************************************************************)
(* AF_XDP receive in copy mode through the XSKMAP, as in linux 6.12.117.  *)
(*                                                                         *)
(* Several sockets on one device queue share one xsk_buff_pool with       *)
(* XDP_SHARED_UMEM: one fill ring, one free list, each socket its own rx   *)
(* ring. A packet's XDP program returns XDP_DROP, XDP_PASS or              *)
(* XDP_REDIRECT to the socket its XSKMAP entry names                       *)
(* (bpf_redirect_map() keeps it in the per-CPU bpf_redirect_info). Then    *)
(* xsk_rcv_check() refuses a socket that is not bound, a socket bound      *)
(* with a Tx ring only (TxOnly: -ENOBUFS, the fix; 6.12.117 has no check   *)
(* and writes through the NULL xs->rx), or a packet larger than a chunk    *)
(* on a socket without XDP_USE_SG, and __xsk_rcv() takes one               *)
(* buffer per chunk (the pool's free list first, then the fill ring),      *)
(* copies, and reserves one rx descriptor each, XDP_PKT_CONTD on all but   *)
(* the last.                                                               *)
(*                                                                         *)
(* Two paths reach __xsk_rcv():                                            *)
(*  "driver": native XDP. The queue's NAPI poll (one CPU at a time) runs   *)
(*     the program on up to PollBudget packets; xsk_rcv() adds each socket *)
(*     it reserved into to the CPU's flush list, and xdp_do_flush() at the *)
(*     end of the poll publishes each listed socket's rx producer and the  *)
(*     fill ring's consumer (xsk_flush()).                                 *)
(*  "generic": xsk_generic_rcv() from netif_receive_skb() on any CPU:      *)
(*     __xsk_rcv() and xsk_flush() under pool->rx_lock, because the        *)
(*     sockets of one pool share its fill ring.                            *)
(*                                                                         *)
(* An XSKMAP entry names a socket or nothing; bpf_map_update_elem() may    *)
(* put any socket in any entry, replacing the one there (which stays       *)
(* bound), and one socket may be in several entries. The program's         *)
(* redirect keeps the socket its entry named (bpf_redirect_info, under     *)
(* RCU): a packet in flight goes on to that socket after the entry is      *)
(* replaced. xsk_release() takes the socket out of every entry naming it   *)
(* (xsk_delete_from_maps()) and unbinds it (xs->state = XSK_UNBOUND),      *)
(* then synchronize_net() waits for every NAPI poll and receive that       *)
(* could still hold it before the socket is freed.                         *)
(*                                                                         *)
(* Redirect = "xsk" adds the fast path of XskRedirectXsk.tla (seed 002):   *)
(* the queue keeps its socket in netdev_rx_queue (rxqXsk) while exactly    *)
(* one socket is bound to it; bpf_redirect_xsk() returns XDP_REDIRECT_XSK  *)
(* when the program's entry names that socket, and the driver receives     *)
(* into it without bpf_redirect_info or the XSKMAP flush list, and         *)
(* flushes it itself at the end of the poll (fastXs). Redirect = "map" is  *)
(* 6.12.117. With Batch > 1 the driver keeps the packets whose programs    *)
(* returned XDP_REDIRECT_XSK (pend) and receives them later, in order,     *)
(* with xsk_rcv_batch(): when the batch is full, before it handles a       *)
(* packet of any other action or for another socket, and before the       *)
(* poll's flush. Each keeps the socket its program was told about, and     *)
(* xsk_rcv()'s checks run for it when it is received.                      *)
(*                                                                         *)
(* Rings are FIFO sequences (XskRing.tla checks the ring protocol); a      *)
(* buffer taken from the fill ring is XpAllocPeek (the entry at            *)
(* cached_cons is read) then XpAllocTake (cached_cons moves on), so two    *)
(* consumers not serialised can take one entry twice.                      *)
(***************************************************************************)
EXTENDS Naturals, Sequences, FiniteSets, TLC

CONSTANTS
    Cpus,         \* CPUs that run NAPI polls or generic receive (model values)
    NSockets,     \* sockets on the queue's pool, 1..NSockets
    NBufs,        \* umem chunks the applications receive into
    MaxPkts,      \* packets that arrive on the queue
    MaxLen,       \* chunks a packet may need (2: larger than a chunk)
    SG,           \* the sockets were bound with XDP_USE_SG
    FqSize,       \* entries of the shared fill ring
    RxSize,       \* entries of each rx ring
    PollBudget,   \* packets one NAPI poll handles (the NAPI weight, 64)
    Path,         \* "driver" or "generic", above
    Verdicts,     \* what the XDP program may return: a subset of
                  \* {"redirect", "drop", "pass"}
    Closes,       \* TRUE: an application may close its socket
    LateBind,     \* sockets that start unbound and out of the XSKMAP: the
                  \* application binds them and inserts them, in either order
    Remap,        \* TRUE: the application may put any socket in any XSKMAP
                  \* entry at any time, replacing the one there; FALSE: it
                  \* puts each LateBind socket in its own entry, once
    TxOnly,       \* sockets bound with a Tx ring only (no Rx ring): bind()
                  \* and xsk_map_update_elem() take them
    Redirect,     \* "map": XDP_REDIRECT through the XSKMAP only; "xsk": also
                  \* the XDP_REDIRECT_XSK fast path (driver path only)
    Batch,        \* XDP_REDIRECT_XSK packets the driver receives together
                  \* (xsk_rcv_batch()); 1: each as its program returns
    Mutant        \* "none" or a mutant id of specs/manifest.json

ASSUME NSockets \in Nat \ {0} /\ NBufs \in Nat \ {0} /\ MaxPkts \in Nat
ASSUME MaxLen \in Nat \ {0} /\ SG \in BOOLEAN /\ Closes \in BOOLEAN
ASSUME Remap \in BOOLEAN
ASSUME {FqSize, RxSize, PollBudget} \subseteq Nat \ {0}
ASSUME Path \in {"driver", "generic"} /\ "redirect" \in Verdicts
ASSUME Verdicts \subseteq {"redirect", "drop", "pass"}
ASSUME LateBind \subseteq 1..NSockets /\ TxOnly \subseteq 1..NSockets
ASSUME Redirect \in {"map", "xsk"} /\ (Redirect = "xsk" => Path = "driver")
ASSUME Batch \in Nat \ {0} /\ (Batch > 1 => Redirect = "xsk")
ASSUME Mutant \in {"none", "xdp-missing-flush", "xsk-gen-rx-race",
                   "rx-release-no-sync", "rx-mb-no-space-check",
                   "rx-full-leak", "rx-alloc-fail-uncounted",
                   "rx-redirect-err-lost", "napi-budget-overrun",
                   "redirect-xsk-ignore-key", "rxq-xsk-two-sockets",
                   "rxq-xsk-stale", "redirect-xsk-missing-flush",
                   "redirect-xsk-flush-rereads", "rx-fill-overrun",
                   "rx-flush-no-fq-release", "rx-room-from-published",
                   "xskmap-release-own-entry", "rx-ring-missing-unchecked",
                   "rxq-xsk-tx-only", "redirect-rereads-entry",
                   "redirect-xsk-batch-tail-lost", "redirect-xsk-batch-reorder",
                   "redirect-xsk-batch-stale-sock", "redirect-xsk-batch-overflow",
                   "redirect-xsk-batch-mixed-sock", "redirect-xsk-batch-sg-unchecked"}

Sockets == 1..NSockets
Keys == Sockets   \* the XSKMAP's indexes
Bufs == 1..NBufs
Pkts == 1..MaxPkts
None == 0
Range(q) == {q[i] : i \in DOMAIN q}

\* What happened to a packet: still being received, or its end.
Fates == {"none", "busy", "rx", "xdp_drop", "xdp_pass", "redirect_err",
          "rx_dropped", "rx_queue_full"}

VARIABLES
    ufree,    \* buffers the applications hold
    fq,       \* fill ring entries the kernel has not taken, oldest first
    fqHeld,   \* entries taken since the consumer was last published
              \* (cached_cons - consumer); the application cannot refill them
    kfree,    \* pool->free_list: buffers taken and given back unused
    rx,       \* rx[s]: descriptors [buf, pkt, contd] on s's rx ring
    rxPub,    \* rxPub[s]: how many of them the producer has published
    st,       \* st[s]: "unbound" (LateBind, not yet bound), "bound",
              \* "unbinding" (released, synchronize_net not returned) or
              \* "freed"
    map,      \* map[k]: the socket XSKMAP entry k names, or None
    arrived,  \* packets that have arrived
    fate,     \* fate[p]
    cpu,      \* cpu[c]: the receive c is in: [stage, pkt, sock, tgt, key,
              \* len, bufs, peek, fast]: it receives into sock; tgt is the
              \* socket its program's XSKMAP entry named when it ran (sock
              \* on the XSKMAP path); key is that entry's index, kept only
              \* by the redirect-rereads-entry mutant (None otherwise);
              \* fast: it took XDP_REDIRECT_XSK
    poller,   \* driver path: the CPU in the queue's NAPI poll, or None
    pollStart,\* packets that had arrived when the current poll began
    flush,    \* flush[c]: the sockets on c's XSKMAP flush list
    lock,     \* holder of pool->rx_lock (per socket: lock[s] with the mutant)
    cnt,      \* the sockets' drop counters: [rx_dropped, rx_queue_full]
    rxqXsk,   \* the socket netdev_rx_queue keeps for the fast path, or None
    fastXs,   \* fastXs[c]: the socket c's poll received into on the fast
              \* path, which the driver flushes at the poll's end, or None
    pend      \* pend[c]: c's batch, the packets whose programs returned
              \* XDP_REDIRECT_XSK and that wait for xsk_rcv_batch(), oldest
              \* first: [pkt, sock, tgt, len] (sock: the socket chosen for
              \* it, tgt: the one its XSKMAP entry named)

vars == <<ufree, fq, fqHeld, kfree, rx, rxPub, st, map, arrived, fate, cpu,
          poller, pollStart, flush, lock, cnt, rxqXsk, fastXs, pend>>

Idle == [stage |-> "idle", pkt |-> 0, sock |-> 0, tgt |-> 0, key |-> None,
         len |-> 0, bufs |-> <<>>, peek |-> None, fast |-> FALSE]

\* A socket the queue may keep for the fast path: one with an Rx ring
\* (the mutant: any).
RxqEligible(s) == s \notin TxOnly \/ Mutant = "rxq-xsk-tx-only"

\* The lock a receive for socket s takes: the pool's (6.12.117), or the
\* socket's own before the 2025 fix (CVE-2025-37920).
LockOf(s) == IF Mutant = "xsk-gen-rx-race" THEN s ELSE 1

Init ==
    /\ ufree = Bufs
    /\ fq = <<>>
    /\ fqHeld = 0
    /\ kfree = <<>>
    /\ rx = [s \in Sockets |-> <<>>]
    /\ rxPub = [s \in Sockets |-> 0]
    /\ st = [s \in Sockets |-> IF s \in LateBind THEN "unbound" ELSE "bound"]
    /\ map = [k \in Keys |-> IF k \in LateBind THEN None ELSE k]
    /\ arrived = 0
    /\ fate = [p \in Pkts |-> "none"]
    /\ cpu = [c \in Cpus |-> Idle]
    /\ poller = None
    /\ pollStart = 0
    /\ flush = [c \in Cpus |-> {}]
    /\ lock = [k \in Sockets |-> None]
    /\ cnt = [s \in Sockets |-> [rx_dropped |-> 0, rx_queue_full |-> 0]]
    /\ rxqXsk = IF Redirect = "xsk" /\ Cardinality(Sockets \ LateBind) = 1
                   /\ RxqEligible(CHOOSE s \in Sockets \ LateBind : TRUE)
                THEN CHOOSE s \in Sockets \ LateBind : TRUE ELSE None
    /\ fastXs = [c \in Cpus |-> None]
    /\ pend = [c \in Cpus |-> <<>>]

Bump(s, field) == cnt' = [cnt EXCEPT ![s][field] = @ + 1]

\* c ends its receive of the current packet with fate f.
Finish(c, f) ==
    /\ fate' = [fate EXCEPT ![cpu[c].pkt] = f]
    /\ cpu' = [cpu EXCEPT ![c] = IF Path = "generic"
                                 THEN [@ EXCEPT !.stage = "flush", !.bufs = <<>>]
                                 ELSE Idle]

-----------------------------------------------------------------------------
(* The application *)

\* xsk_ring_prod__reserve/submit on the fill ring: room is what the kernel
\* has published as consumed.
UserFill ==
    /\ Len(fq) + fqHeld < FqSize \/ Mutant = "rx-fill-overrun"
    /\ \E b \in ufree :
        /\ fq' = Append(fq, b)
        /\ ufree' = ufree \ {b}
    /\ UNCHANGED <<fqHeld, kfree, rx, rxPub, st, map, arrived, fate, cpu,
                   poller, pollStart, flush, lock, cnt, rxqXsk, fastXs, pend>>

\* xsk_ring_cons__peek/release on s's rx ring: published descriptors only.
UserRecv(s) ==
    /\ rxPub[s] > 0
    /\ ufree' = ufree \cup {Head(rx[s]).buf}
    /\ rx' = [rx EXCEPT ![s] = Tail(@)]
    /\ rxPub' = [rxPub EXCEPT ![s] = @ - 1]
    /\ UNCHANGED <<fq, fqHeld, kfree, st, map, arrived, fate, cpu, poller,
                   pollStart, flush, lock, cnt, rxqXsk, fastXs, pend>>

\* bind(): xsk_bind() of a LateBind socket to the queue. The fast path
\* keeps the socket in netdev_rx_queue if no other socket is bound to the
\* queue and it has an Rx ring, and none once a second one is (it is not set again when the
\* queue goes back to one socket: the XSKMAP path serves until a rebind).
XskBind(s) ==
    /\ st[s] = "unbound"
    /\ st' = [st EXCEPT ![s] = "bound"]
    /\ rxqXsk' = CASE Redirect = "map" -> rxqXsk
                  [] \A o \in Sockets \ {s} : st[o] # "bound" ->
                        IF RxqEligible(s) THEN s ELSE None
                  [] Mutant = "rxq-xsk-two-sockets" -> rxqXsk
                  [] OTHER -> None
    /\ UNCHANGED <<ufree, fq, fqHeld, kfree, rx, rxPub, map, arrived, fate,
                   cpu, poller, pollStart, flush, lock, cnt, fastXs, pend>>

\* bpf_map_update_elem() of socket s into XSKMAP entry k (BPF_ANY):
\* xsk_map_update_elem() takes an AF_XDP socket bound or not, and drops
\* the map node of the socket the entry named, which stays bound. A
\* packet whose program read the entry before keeps the old socket.
XskMapUpdate(k, s) ==
    /\ st[s] \in {"unbound", "bound"} /\ map[k] # s
    /\ Remap \/ (k = s /\ map[k] = None)
    /\ map' = [map EXCEPT ![k] = s]
    /\ UNCHANGED <<ufree, fq, fqHeld, kfree, rx, rxPub, st, arrived, fate, cpu,
                   poller, pollStart, flush, lock, cnt, rxqXsk, fastXs, pend>>

\* close(): xsk_release() deletes s from every XSKMAP entry naming it
\* (xsk_delete_from_maps(), the socket's map list; the mutant: from entry
\* s only) and xsk_unbind_dev() sets XSK_UNBOUND (and takes s out of
\* netdev_rx_queue); synchronize_net() follows.
XskRelease(s) ==
    /\ Closes /\ st[s] = "bound"
    /\ st' = [st EXCEPT ![s] = "unbinding"]
    /\ map' = [k \in Keys |->
                 IF map[k] = s /\ (k = s \/ Mutant # "xskmap-release-own-entry")
                 THEN None ELSE map[k]]
    /\ rxqXsk' = IF rxqXsk = s /\ Mutant # "rxq-xsk-stale" THEN None ELSE rxqXsk
    /\ UNCHANGED <<ufree, fq, fqHeld, kfree, rx, rxPub, arrived, fate, cpu,
                   poller, pollStart, flush, lock, cnt, fastXs, pend>>

\* synchronize_net() returned: no poll or receive still holds s (none began
\* before the unbind and is unfinished). The socket and its rings are
\* freed; the application keeps the umem, so the buffers on the rx ring
\* are its own again.
XskReleaseDone(s) ==
    /\ st[s] = "unbinding"
    /\ Mutant = "rx-release-no-sync"
       \/ \A c \in Cpus : /\ cpu[c].sock # s /\ s \notin flush[c] /\ fastXs[c] # s
                         /\ \A i \in DOMAIN pend[c] : pend[c][i].sock # s
    /\ st' = [st EXCEPT ![s] = "freed"]
    /\ ufree' = ufree \cup {rx[s][i].buf : i \in DOMAIN rx[s]}
    /\ rx' = [rx EXCEPT ![s] = <<>>]
    /\ rxPub' = [rxPub EXCEPT ![s] = 0]
    /\ UNCHANGED <<fq, fqHeld, kfree, map, arrived, fate, cpu, poller,
                   pollStart, flush, lock, cnt, rxqXsk, fastXs, pend>>

-----------------------------------------------------------------------------
(* The driver's NAPI poll (Path = "driver") *)

\* napi_poll() on c: the queue's poll runs on one CPU at a time.
NapiPoll(c) ==
    /\ Path = "driver" /\ poller = None
    /\ arrived < MaxPkts
    /\ poller' = c
    /\ pollStart' = arrived
    /\ UNCHANGED <<ufree, fq, fqHeld, kfree, rx, rxPub, st, map, arrived,
                   fate, cpu, flush, lock, cnt, rxqXsk, fastXs, pend>>

\* The sockets the driver flushes itself at the poll's end: the one its
\* fast path received into (the mutants: none, or the queue's socket as
\* netdev_rx_queue says at the end, which seed 002's xsk_flush reads).
FastSet(c) == IF fastXs[c] = None THEN {} ELSE {fastXs[c]}
DriverFlushes(c) ==
    CASE Mutant = "redirect-xsk-missing-flush" -> {}
      [] Mutant = "redirect-xsk-flush-rereads" ->
            IF fastXs[c] # None /\ rxqXsk # None THEN {rxqXsk} ELSE {}
      [] OTHER -> FastSet(c)

\* The end of the poll: xdp_do_flush() runs __xsk_map_flush(), xsk_flush()
\* of each socket on c's list, before napi_complete_done(); with the fast
\* path the driver first runs xsk_flush() of its own socket.
XdpDoFlush(c) ==
    /\ Path = "driver" /\ poller = c /\ cpu[c].stage = "idle"
    /\ arrived > pollStart
    \* the batch is received first (the mutant leaves it for a later poll)
    /\ pend[c] = <<>> \/ Mutant = "redirect-xsk-batch-tail-lost"
    /\ IF Mutant = "xdp-missing-flush"
       THEN UNCHANGED <<rxPub, fqHeld, flush, fastXs>>
       ELSE LET todo == flush[c] \cup DriverFlushes(c) IN
            /\ rxPub' = [s \in Sockets |-> IF s \in todo THEN Len(rx[s])
                                            ELSE rxPub[s]]
            /\ fqHeld' = IF todo = {} \/ Mutant = "rx-flush-no-fq-release"
                         THEN fqHeld ELSE 0
            /\ flush' = [flush EXCEPT ![c] = {}]
            /\ fastXs' = [fastXs EXCEPT ![c] = None]
    /\ poller' = None
    /\ UNCHANGED <<ufree, fq, kfree, rx, st, map, arrived, fate, cpu,
                   pollStart, lock, cnt, rxqXsk, pend>>

-----------------------------------------------------------------------------
(* One packet, from the XDP program to the rx ring *)

\* bpf_redirect_xsk() with XSKMAP index k: XDP_REDIRECT_XSK when the queue
\* keeps a socket and map entry k names that socket (seed 002's helper
\* does not look at k: the mutant).
FastPath(k) ==
    /\ Redirect = "xsk" /\ rxqXsk # None
    /\ Mutant = "redirect-xsk-ignore-key" \/ map[k] = rxqXsk

\* A packet of len chunks arrives on c (in the driver's poll, or through
\* netif_receive_skb() on any CPU) and its XDP program runs. XDP_REDIRECT
\* to XSKMAP index k: the lookup, then xsk_rcv_check() on the socket s
\* there, which the receive keeps whatever the entry names later.
\* XDP_REDIRECT_XSK: s is the queue's socket; no lookup is kept in
\* bpf_redirect_info, and xsk_rcv_check() still runs. With Batch > 1 the
\* driver keeps that packet in its batch (full: received first; the
\* overflow mutant tests for full after adding, the mixed-sock one adds a
\* packet for another socket), and
\* receives the batch before a packet of any other action (whose
\* XDP_REDIRECT must be done while bpf_redirect_info is fresh; the mutant
\* does it first) or for another socket.
XdpRun(c) ==
    /\ cpu[c].stage = "idle" /\ arrived < MaxPkts
    /\ IF Path = "driver"
       THEN poller = c /\ (arrived - pollStart < PollBudget \/ Mutant = "napi-budget-overrun")
       ELSE TRUE
    /\ arrived' = arrived + 1
    /\ \E v \in Verdicts, k \in Keys, len \in 1..MaxLen :
        LET p == arrived + 1
            fast == v = "redirect" /\ FastPath(k)
            s == IF fast THEN rxqXsk ELSE map[k]
            batched == fast /\ Batch > 1
            go == [Idle EXCEPT !.pkt = p, !.sock = s, !.tgt = map[k],
                               !.key = IF Mutant = "redirect-rereads-entry"
                                       THEN k ELSE None,
                               !.len = len, !.fast = fast,
                               !.stage = IF Path = "generic" THEN "lock"
                                         ELSE "alloc"]
        IN /\ IF batched
              THEN /\ \/ Len(pend[c]) < Batch
                      \/ Mutant = "redirect-xsk-batch-overflow" /\ Len(pend[c]) = Batch
                   /\ IF pend[c] = <<>> \/ Mutant = "redirect-xsk-batch-mixed-sock"
                      THEN TRUE ELSE pend[c][Len(pend[c])].sock = s
              ELSE pend[c] = <<>> \/ Mutant = "redirect-xsk-batch-reorder"
           /\ pend' = IF batched
                      THEN [pend EXCEPT ![c] = Append(@, [pkt |-> p, sock |-> s,
                                                         tgt |-> map[k], len |-> len])]
                      ELSE pend
           /\ CASE batched ->
                  /\ fate' = [fate EXCEPT ![p] = "busy"]
                  /\ UNCHANGED <<cpu, cnt>>
             [] v = "drop" ->
                  /\ fate' = [fate EXCEPT ![p] = "xdp_drop"]
                  /\ UNCHANGED <<cpu, cnt>>
             [] v = "pass" ->
                  /\ fate' = [fate EXCEPT ![p] = "xdp_pass"]
                  /\ UNCHANGED <<cpu, cnt>>
             [] s = None \/ st[s] # "bound"
                \/ (s \in TxOnly /\ Mutant # "rx-ring-missing-unchecked") ->
                  \* the packet reaches no socket and the driver frees the
                  \* frame: an empty entry fails the helper's lookup, and
                  \* the program returns the action in its flags' low bits
                  \* (0: XDP_ABORTED); an unbound socket fails
                  \* xsk_rcv_check() with -ENXIO, a socket without an Rx
                  \* ring with -ENOBUFS (the mutant, 6.12.117: no check)
                  /\ fate' = IF Mutant = "rx-redirect-err-lost" THEN fate
                             ELSE [fate EXCEPT ![p] = "redirect_err"]
                  /\ UNCHANGED <<cpu, cnt>>
             [] len > 1 /\ ~SG ->
                  \* larger than a chunk without XDP_USE_SG: -ENOSPC
                  /\ fate' = [fate EXCEPT ![p] = "rx_dropped"]
                  /\ Bump(s, "rx_dropped")
                  /\ UNCHANGED cpu
             [] OTHER ->
                  /\ fate' = [fate EXCEPT ![p] = "busy"]
                  /\ cpu' = [cpu EXCEPT ![c] = go]
                  /\ UNCHANGED cnt
    /\ UNCHANGED <<ufree, fq, fqHeld, kfree, rx, rxPub, st, map, poller,
                   pollStart, flush, lock, rxqXsk, fastXs>>

\* xsk_rcv_batch(): the driver receives the oldest packet of its batch
\* into the socket kept for it (the mutant: the one the queue names now),
\* with xsk_rcv()'s checks, as XdpRun receives one that is not batched
\* (redirect-xsk-batch-sg-unchecked leaves out the one for a packet larger
\* than a frame on a socket without XDP_USE_SG).
XskRcvBatch(c) ==
    /\ poller = c /\ cpu[c].stage = "idle" /\ pend[c] # <<>>
    /\ pend' = [pend EXCEPT ![c] = Tail(@)]
    /\ LET e == Head(pend[c])
           s == IF Mutant = "redirect-xsk-batch-stale-sock" THEN rxqXsk
                ELSE e.sock
       IN CASE s = None \/ st[s] # "bound"
               \/ (s \in TxOnly /\ Mutant # "rx-ring-missing-unchecked") ->
                  /\ fate' = [fate EXCEPT ![e.pkt] = "redirect_err"]
                  /\ UNCHANGED <<cpu, cnt>>
             [] e.len > 1 /\ ~SG /\ Mutant # "redirect-xsk-batch-sg-unchecked" ->
                  /\ fate' = [fate EXCEPT ![e.pkt] = "rx_dropped"]
                  /\ Bump(s, "rx_dropped")
                  /\ UNCHANGED cpu
             [] OTHER ->
                  /\ cpu' = [cpu EXCEPT ![c] = [Idle EXCEPT
                                !.pkt = e.pkt, !.sock = s, !.tgt = e.tgt,
                                !.len = e.len, !.fast = TRUE, !.stage = "alloc"]]
                  /\ UNCHANGED <<fate, cnt>>
    /\ UNCHANGED <<ufree, fq, fqHeld, kfree, rx, rxPub, st, map, arrived,
                   poller, pollStart, flush, lock, rxqXsk, fastXs>>

\* xsk_generic_rcv(): spin_lock_bh(&xs->pool->rx_lock). The mutant looks
\* the XSKMAP entry up again here and receives into what it names now.
RxLock(c) ==
    /\ cpu[c].stage = "lock"
    /\ lock[LockOf(cpu[c].sock)] = None
    /\ lock' = [lock EXCEPT ![LockOf(cpu[c].sock)] = c]
    /\ cpu' = [cpu EXCEPT ![c].stage = "alloc",
                          ![c].sock = IF Mutant = "redirect-rereads-entry"
                                      THEN map[cpu[c].key] ELSE @]
    /\ UNCHANGED <<ufree, fq, fqHeld, kfree, rx, rxPub, st, map, arrived,
                   fate, poller, pollStart, flush, cnt, rxqXsk, fastXs, pend>>

\* Before taking any buffer, __xsk_rcv() checks a packet of several chunks
\* whole: xsk_buff_can_alloc() for every chunk, xskq_prod_nb_free() for
\* every descriptor. A single chunk is checked as it goes.
XskRcvCheckRoom(c) ==
    /\ cpu[c].stage = "alloc" /\ cpu[c].bufs = <<>> /\ cpu[c].peek = None
    /\ cpu[c].len > 1
    /\ LET s == cpu[c].sock IN
       CASE Len(kfree) + Len(fq) < cpu[c].len ->
              /\ Bump(s, "rx_dropped")
              /\ Finish(c, "rx_dropped")
         [] RxSize - Len(rx[s]) < cpu[c].len /\ Mutant # "rx-mb-no-space-check" ->
              /\ Bump(s, "rx_queue_full")
              /\ Finish(c, "rx_queue_full")
         [] OTHER ->
              /\ cpu' = [cpu EXCEPT ![c].stage = "take"]
              /\ UNCHANGED <<fate, cnt>>
    /\ UNCHANGED <<ufree, fq, fqHeld, kfree, rx, rxPub, st, map, arrived,
                   poller, pollStart, flush, lock, rxqXsk, fastXs, pend>>

\* xsk_buff_alloc() of one chunk: from pool->free_list if it has one.
XpAllocFree(c) ==
    /\ cpu[c].stage \in {"alloc", "take"} /\ cpu[c].peek = None
    /\ cpu[c].stage = "alloc" => cpu[c].len = 1
    /\ Len(cpu[c].bufs) < cpu[c].len
    /\ kfree # <<>>
    /\ cpu' = [cpu EXCEPT ![c].bufs = Append(@, Head(kfree))]
    /\ kfree' = Tail(kfree)
    /\ UNCHANGED <<ufree, fq, fqHeld, rx, rxPub, st, map, arrived, fate,
                   poller, pollStart, flush, lock, cnt, rxqXsk, fastXs, pend>>

\* Otherwise from the fill ring: the entry at cached_cons is read...
XpAllocPeek(c) ==
    /\ cpu[c].stage \in {"alloc", "take"} /\ cpu[c].peek = None
    /\ cpu[c].stage = "alloc" => cpu[c].len = 1
    /\ Len(cpu[c].bufs) < cpu[c].len
    /\ kfree = <<>> /\ fq # <<>>
    /\ cpu' = [cpu EXCEPT ![c].peek = Head(fq)]
    /\ UNCHANGED <<ufree, fq, fqHeld, kfree, rx, rxPub, st, map, arrived,
                   fate, poller, pollStart, flush, lock, cnt, rxqXsk, fastXs, pend>>

\* ... and cached_cons moves past it (xskq_cons_release()). The fill
\* ring's consumer is published later, by xsk_flush().
XpAllocTake(c) ==
    /\ cpu[c].peek # None
    /\ fq # <<>>
    /\ cpu' = [cpu EXCEPT ![c].bufs = Append(@, cpu[c].peek), ![c].peek = None]
    /\ fq' = Tail(fq)
    /\ fqHeld' = fqHeld + 1
    /\ UNCHANGED <<ufree, kfree, rx, rxPub, st, map, arrived, fate, poller,
                   pollStart, flush, lock, cnt, rxqXsk, fastXs, pend>>

\* A single chunk finds no buffer: rx_dropped (-ENOMEM).
XpAllocFail(c) ==
    /\ cpu[c].stage = "alloc" /\ cpu[c].len = 1 /\ cpu[c].peek = None
    /\ cpu[c].bufs = <<>> /\ kfree = <<>> /\ fq = <<>>
    /\ IF Mutant = "rx-alloc-fail-uncounted" THEN UNCHANGED cnt
       ELSE Bump(cpu[c].sock, "rx_dropped")
    /\ Finish(c, "rx_dropped")
    /\ UNCHANGED <<ufree, fq, fqHeld, kfree, rx, rxPub, st, map, arrived,
                   poller, pollStart, flush, lock, rxqXsk, fastXs, pend>>

\* Once c has reserved into s, s is flushed at the poll's end: xsk_rcv()
\* puts it on the CPU's XSKMAP flush list; the fast path keeps it in the
\* driver's slot instead, or on the list if the slot holds another socket.
Listed(c, s) ==
    IF Path = "generic" THEN UNCHANGED <<flush, fastXs>>
    ELSE IF cpu[c].fast /\ fastXs[c] \in {None, s}
    THEN /\ fastXs' = [fastXs EXCEPT ![c] = s]
         /\ UNCHANGED flush
    ELSE /\ flush' = [flush EXCEPT ![c] = @ \cup {s}]
         /\ UNCHANGED fastXs

\* Every chunk copied: xskq_prod_reserve_desc() for each, XDP_PKT_CONTD on
\* all but the last (a single chunk may find the ring full: rx_queue_full,
\* and xsk_buff_free() gives its buffer back to the free list). On the
\* driver path xsk_rcv() then puts s on c's flush list.
XskRcvReserve(c) ==
    /\ cpu[c].stage \in {"alloc", "take"} /\ cpu[c].peek = None
    /\ cpu[c].len > 0 /\ Len(cpu[c].bufs) = cpu[c].len
    /\ LET s == cpu[c].sock
           b == cpu[c].bufs
           \* the free entries: cached_prod's distance from the consumer
           \* (the mutant counts from the published producer)
           room == RxSize - (IF Mutant = "rx-room-from-published" THEN rxPub[s]
                             ELSE Len(rx[s]))
           n == IF room < Len(b) THEN room ELSE Len(b)
           descs == [i \in 1..n |-> [buf |-> b[i], pkt |-> cpu[c].pkt,
                                     contd |-> i < Len(b)]]
       IN IF n = Len(b)
          THEN /\ rx' = [rx EXCEPT ![s] = @ \o descs]
               /\ kfree' = kfree
               /\ Listed(c, s)
               /\ UNCHANGED cnt
               /\ Finish(c, "rx")
          ELSE IF n = 0
          THEN \* a full ring: the buffer goes back (a single chunk; the
               \* chunks of a packet past a missing whole-packet check too)
               /\ kfree' = IF Mutant = "rx-full-leak" THEN kfree
                           ELSE b \o kfree
               /\ Bump(s, "rx_queue_full")
               /\ Finish(c, "rx_queue_full")
               /\ UNCHANGED <<rx, flush, fastXs>>
          ELSE \* several chunks past a missing whole-packet check, each
               \* reserved with the checked xskq_prod_reserve_desc(): what
               \* fits goes on the ring, the rest back to the free list
               /\ rx' = [rx EXCEPT ![s] = @ \o descs]
               /\ kfree' = [i \in 1..(Len(b) - n) |-> b[n + i]] \o kfree
               /\ Listed(c, s)
               /\ UNCHANGED cnt
               /\ Finish(c, "rx")
    /\ UNCHANGED <<ufree, fq, fqHeld, rxPub, st, map, arrived, poller,
                   pollStart, lock, rxqXsk, pend>>

\* xsk_generic_rcv(): xsk_flush() publishes s's rx producer and the fill
\* ring's consumer, then the lock is released.
XskFlush(c) ==
    /\ Path = "generic" /\ cpu[c].stage = "flush"
    /\ LET s == cpu[c].sock IN
       /\ rxPub' = [rxPub EXCEPT ![s] = Len(rx[s])]
       /\ lock' = [lock EXCEPT ![LockOf(s)] = None]
    /\ fqHeld' = IF Mutant = "rx-flush-no-fq-release" THEN fqHeld ELSE 0
    /\ cpu' = [cpu EXCEPT ![c] = Idle]
    /\ UNCHANGED <<ufree, fq, kfree, rx, st, map, arrived, fate, poller,
                   pollStart, flush, cnt, rxqXsk, fastXs, pend>>

\* Every packet received and every CPU idle: the behaviour may end here.
Done ==
    /\ arrived = MaxPkts
    /\ \A c \in Cpus : cpu[c].stage = "idle" /\ pend[c] = <<>>
    /\ poller = None
    /\ UNCHANGED vars

Next ==
    \/ UserFill \/ Done
    \/ \E s \in Sockets : UserRecv(s) \/ XskRelease(s) \/ XskReleaseDone(s)
                         \/ XskBind(s)
    \/ \E k \in Keys, s \in Sockets : XskMapUpdate(k, s)
    \/ \E c \in Cpus :
        \/ NapiPoll(c) \/ XdpDoFlush(c) \/ XdpRun(c) \/ XskRcvBatch(c)
        \/ RxLock(c) \/ XskRcvCheckRoom(c) \/ XpAllocFree(c) \/ XpAllocPeek(c)
        \/ XpAllocTake(c) \/ XpAllocFail(c) \/ XskRcvReserve(c) \/ XskFlush(c)

Spec == Init /\ [][Next]_vars

-----------------------------------------------------------------------------
(* Invariants *)

\* Where a buffer is: with the application, on the fill ring, on the
\* pool's free list, held by a receive, or on an rx ring.
Places(b) ==
    (IF b \in ufree THEN 1 ELSE 0)
    + Cardinality({i \in DOMAIN fq : fq[i] = b})
    + Cardinality({i \in DOMAIN kfree : kfree[i] = b})
    + Cardinality({<<c, i>> \in Cpus \X (1..MaxLen) :
                      i \in DOMAIN cpu[c].bufs /\ cpu[c].bufs[i] = b})
    + Cardinality({<<s, i>> \in Sockets \X (1..RxSize) :
                      i \in DOMAIN rx[s] /\ rx[s][i].buf = b})

\* Every buffer is in exactly one place: none lost, none handed out twice.
BufConservation == \A b \in Bufs : Places(b) = 1

\* No ring holds more than its size: the fill ring's entries not yet
\* consumed and those consumed but not released (the producer may not
\* pass the published consumer by more than the ring), each rx ring's
\* descriptors.
RingsBounded ==
    /\ Len(fq) + fqHeld <= FqSize
    /\ \A s \in Sockets : Len(rx[s]) <= RxSize

\* The fill-ring entries the kernel consumed and has not released name
\* buffers the kernel still has (on the free list, in a receive, on an rx
\* ring): a flush that does not release the consumer leaves the
\* application's room short of buffers it got back.
FillHeldReal == fqHeld <= NBufs - Cardinality(ufree) - Len(fq)

\* Every packet that arrived is being received or has exactly one end,
\* and one that ended on an rx ring has its descriptors there (or the
\* application has read them); one that did not has none on any ring.
PktAccounted ==
    /\ \A p \in Pkts : (p <= arrived) = (fate[p] # "none")
    /\ \A p \in Pkts : fate[p] = "busy" <=>
                         \E c \in Cpus : \/ cpu[c].stage \notin {"idle", "flush"}
                                           /\ cpu[c].pkt = p
                                        \/ \E i \in DOMAIN pend[c] : pend[c][i].pkt = p
    /\ \A s \in Sockets : \A i \in DOMAIN rx[s] : fate[rx[s][i].pkt] = "rx"

\* The drop counters count every drop: each packet that ended in a
\* counter is counted once, in the counter of the socket it was sent to.
DropsCounted ==
    LET n(f) == Cardinality({p \in Pkts : fate[p] = f})
        sum(f) == LET S[k \in 0..NSockets] ==
                        IF k = 0 THEN 0 ELSE S[k - 1] + cnt[k][f]
                  IN S[NSockets]
    IN n("rx_dropped") = sum("rx_dropped")
       /\ n("rx_queue_full") = sum("rx_queue_full")

\* A packet of several chunks is published whole: the published part of
\* an rx ring never ends inside a packet.
MultiBufAllOrNone ==
    \A s \in Sockets : rxPub[s] > 0 => ~rx[s][rxPub[s]].contd

\* Without XDP_USE_SG a packet is one chunk or none: no descriptor on an
\* rx ring continues a packet (xsk_rcv_check(): -ENOSPC past a frame).
ChunkedOnlyWithSG ==
    ~SG => \A s \in Sockets : \A i \in DOMAIN rx[s] : ~rx[s][i].contd

\* Nothing outside a NAPI poll is left for a flush: every flush list is
\* empty and every descriptor reserved is published (xdp_do_flush()).
FlushedAtPollEnd ==
    Path = "driver" /\ poller = None =>
        /\ \A c \in Cpus : flush[c] = {} /\ fastXs[c] = None /\ pend[c] = <<>>
        /\ \A s \in Sockets : rxPub[s] = Len(rx[s])

\* A NAPI poll handles at most its budget of packets.
NapiBudget == poller # None => arrived - pollStart <= PollBudget

\* No receive, batch, flush list, driver slot, queue pointer, XSKMAP
\* entry or ring write touches a socket that was freed.
NoUseAfterFree ==
    \A s \in Sockets : st[s] = "freed" =>
        /\ \A c \in Cpus : cpu[c].sock # s
        /\ \A c \in Cpus : \A i \in DOMAIN pend[c] : pend[c][i].sock # s
        /\ \A k \in Keys : map[k] # s
        /\ \A c \in Cpus : s \notin flush[c] /\ fastXs[c] # s
        /\ rxqXsk # s
        /\ rx[s] = <<>>

\* A receive goes to the socket its program's XSKMAP entry named when the
\* program ran, whatever the entry names since.
DeliveredToKey ==
    \A c \in Cpus : /\ cpu[c].sock = cpu[c].tgt
                   /\ \A i \in DOMAIN pend[c] : pend[c][i].sock = pend[c][i].tgt

\* No receive, flush list, driver slot or rx descriptor is for a socket
\* bound without an Rx ring (xs->rx is NULL: __xsk_rcv() and xsk_flush()
\* would write through it).
RxRingPresent ==
    \A s \in TxOnly :
        /\ \A c \in Cpus : cpu[c].stage = "idle" \/ cpu[c].sock # s
        /\ \A c \in Cpus : \A i \in DOMAIN pend[c] : pend[c][i].sock # s
        /\ \A c \in Cpus : s \notin flush[c] /\ fastXs[c] # s
        /\ rx[s] = <<>>

\* The queue's socket pointer is in step with bind and unbind: it names a
\* bound socket with an Rx ring, and the only one bound to the queue.
RxqXskInStep ==
    rxqXsk # None =>
        /\ st[rxqXsk] = "bound" /\ rxqXsk \notin TxOnly
        /\ \A o \in Sockets \ {rxqXsk} : st[o] # "bound"

\* A driver's batch fits its array (XSK_RCV_BATCH entries) and is for one
\* socket (struct xsk_rcv_batch keeps one): a packet for another socket
\* waits until the batch is received.
BatchBounded ==
    \A c \in Cpus :
        /\ Len(pend[c]) <= Batch
        /\ \A i \in DOMAIN pend[c] : pend[c][i].sock = pend[c][1].sock

\* The driver path receives a queue's packets in the order they arrived:
\* on every rx ring they are in arrival order (one NAPI poll at a time,
\* and a batch before anything after it). Generic receive on several
\* CPUs may reserve in any order.
RxInOrder ==
    Path = "driver" =>
        \A s \in Sockets : \A i \in DOMAIN rx[s] :
            i > 1 => rx[s][i - 1].pkt <= rx[s][i].pkt

\* Symmetry of CPUs is sound: no action or property tells them apart.
Perms == Permutations(Cpus)
=============================================================================
