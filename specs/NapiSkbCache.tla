----------------------------- MODULE NapiSkbCache -----------------------------
(***************************************************************************)
(* The per-CPU NAPI skb cache, the deferred-free lists, and tun's batched  *)
(* allocation on top of them.                                              *)
(*                                                                         *)
(* Each CPU keeps a stack of free skb heads (napi_alloc_cache.skb_cache,   *)
(* CacheSize entries). napi_skb_cache_get() refills an empty cache with   *)
(* Bulk heads from the slab in one call; napi_skb_cache_put() pushes a     *)
(* released head and, when the stack is full, gives its newer half back   *)
(* to the slab. Only the owning CPU touches its cache, and only with BH   *)
(* off (the nested-BH local lock): a task that touches it with BH on can  *)
(* be interrupted by a softirq doing the same.                            *)
(*                                                                         *)
(* An skb freed on another CPU than the one that allocated it is queued   *)
(* on the allocator's defer list (skb_attempt_defer_free); that CPU frees *)
(* it into its own cache when it next runs NET_RX (skb_defer_free_flush), *)
(* and is sent an IPI when its list reaches half of DeferMax. A full list *)
(* is bypassed: the freeing CPU frees the skb into its own cache.        *)
(*                                                                         *)
(* tun's sendmsg(TUN_MSG_PTR) from vhost-net carries Batch frames. With   *)
(* Path "slab" (6.12) each frame's skb comes from the slab (build_skb);   *)
(* with "bulk" the batch's heads come from napi_skb_cache_get_bulk() and  *)
(* the unused ones go back to the slab; with "flush" the CPU's defer list *)
(* is flushed into its cache first, so the bulk get finds it warm.        *)
(*                                                                         *)
(* skbs hold references: users counts the sockets and stacks that hold   *)
(* one (held), the frag lists an skb is on, and the defer list it is on.  *)
(* A frag list is flat (its members have none of their own) and may be   *)
(* shared by a copy (pskb_copy -> skb_clone_fraglist).                   *)
(*                                                                         *)
(* Mirrors net/core/skbuff.c (napi_skb_cache_get/put, __napi_kfree_skb,   *)
(* napi_consume_skb, kfree_skb_list_reason, skb_attempt_defer_free),     *)
(* net/core/dev.c (skb_defer_free_flush, net_rx_action) and               *)
(* drivers/net/tun.c (tun_sendmsg, tun_xdp_one) of linux 6.12.117, and    *)
(* the series kernel/patches/tun-napi-cache. The slab is bounded: an      *)
(* allocation that finds it short fails as it would under memory         *)
(* pressure, and takes the lowest free ids so that runs are reproducible.*)
(***************************************************************************)
EXTENDS Integers, Sequences, FiniteSets

CONSTANTS
    NCpu,      \* CPUs 1..NCpu
    NSkb,      \* skb heads the slab holds (ids 1..NSkb)
    CacheSize, \* NAPI_SKB_CACHE_SIZE (64); the half flush leaves CacheSize \div 2
    Bulk,      \* NAPI_SKB_CACHE_BULK (16): heads one refill takes from the slab
    DeferMax,  \* sysctl_skb_defer_max (64): a defer list's length
    Batch,     \* frames one tun_sendmsg(TUN_MSG_PTR) carries (vhost-net: up to 64)
    NFrames,   \* frames that arrive, from vhost-net (tun) or the wire (NAPI)
    Path,      \* tun's allocation: "slab", "bulk" or "flush" (flush, then bulk)
    Clone,     \* TRUE: skbs gain references (skb_get), frag lists and copies
    SlabFail,  \* TRUE: any slab allocation may fail (failslab)
    Mutant     \* "none" or a mutant id of specs/manifest.json

ASSUME {NCpu, NSkb, CacheSize, Bulk, DeferMax, Batch} \subseteq Nat \ {0}
ASSUME NFrames \in Nat /\ CacheSize >= 2 /\ Bulk <= CacheSize
ASSUME Path \in {"slab", "bulk", "flush"}
ASSUME Clone \in BOOLEAN /\ SlabFail \in BOOLEAN
ASSUME Mutant \in {"none", "napi-kfree-list", "napi-virtio-cache", "napi-tun-no-bh",
                   "napi-remote-put", "napi-return-overflow", "napi-put-unreleased",
                   "napi-consume-no-unref", "napi-bulk-lost-head",
                   "napi-defer-wrong-cpu", "napi-flush-count-kept",
                   "napi-xdp-drop-uncounted", "napi-defer-no-kick", "napi-gro-self"}

CPUs == 1..NCpu
Skbs == 1..NSkb
Half == CacheSize \div 2
\* Whether a slab call may fail in a step.
Fails == IF SlabFail THEN {FALSE, TRUE} ELSE {FALSE}

VARIABLES
    slab,     \* skb heads free in the slab (net_hotdata.skbuff_cache)
    cache,    \* cache[c]: CPU c's skb_cache, oldest first (the top is last)
    touch,    \* touch[c]: <<CPU, context>> of the last access to cache[c]
    defer,    \* defer[c]: softnet_data.defer_list of CPU c, newest first
    dcount,   \* dcount[c]: softnet_data.defer_count
    kick,     \* kick[c]: an IPI asked CPU c to run NET_RX (kick_defer_list_purge)
    ctx,      \* ctx[c]: "idle" (task context, BH on), "napi" (net_rx_action)
              \* or "tun" (tun_sendmsg between local_bh_disable and _enable)
    users,    \* users[s]: skb->users (0: not an skb in use)
    held,     \* held[s]: references held outside frag and defer lists
    frag,     \* frag[s]: first skb of s's frag_list (0: none)
    next,     \* next[s]: the skb after s on its frag list (0: the last)
    owner,    \* owner[s]: skb->alloc_cpu of an skb in use (0: none)
    heads,    \* heads[c]: heads of tun's batch on CPU c not yet built on
    pending,  \* pending[c]: frames of tun's batch on CPU c not yet handled
    left,     \* frames still to arrive
    rcvd,     \* frames delivered to the stack as skbs
    dropped   \* frames dropped (no head, or XDP_DROP)

heap == <<slab, cache, users, frag, next, owner>>
vars == <<slab, cache, touch, defer, dcount, kick, ctx, users, held, frag, next,
          owner, heads, pending, left, rcvd, dropped>>

Range(q) == {q[i] : i \in DOMAIN q}
Count(q, x) == Cardinality({i \in DOMAIN q : q[i] = x})
Min(S) == CHOOSE m \in S : \A x \in S : m <= x
RECURSIVE Lowest(_, _)
\* The k lowest ids of S, ascending: what a slab call of k objects returns.
Lowest(S, k) == IF k = 0 THEN <<>> ELSE <<Min(S)>> \o Lowest(S \ {Min(S)}, k - 1)
RECURSIVE SumOver(_, _)
SumOver(f, S) == IF S = {} THEN 0 ELSE LET x == Min(S) IN f[x] + SumOver(f, S \ {x})

RECURSIVE ChainFrom(_, _, _)
ChainFrom(nx, x, n) == IF x = 0 \/ n = 0 THEN {} ELSE {x} \cup ChainFrom(nx, nx[x], n - 1)
\* The skbs on s's frag list.
Chain(s) == ChainFrom(next, frag[s], NSkb)
Live == {s \in Skbs : users[s] > 0}
Members == UNION {Chain(p) : p \in Live}

(***************************************************************************)
(* The heap: one CPU's cache with the per-skb fields and the slab, as a   *)
(* record the free paths below fold over.                                 *)
(***************************************************************************)
H(c) == [q |-> cache[c], slab |-> slab, users |-> users, frag |-> frag,
         next |-> next, owner |-> owner]
HeapOnly == [q |-> <<>>, slab |-> slab, users |-> users, frag |-> frag,
             next |-> next, owner |-> owner]
SetFields(h) == /\ slab' = h.slab /\ users' = h.users /\ frag' = h.frag
                /\ next' = h.next /\ owner' = h.owner
Apply(c, h) == SetFields(h) /\ cache' = [cache EXCEPT ![c] = h.q]
ApplyNoCache(h) == SetFields(h) /\ UNCHANGED cache

RECURSIVE FreeList(_, _)
\* kfree_skb_list_reason(): drop one reference of every skb on the list
\* starting at x (each next read before); one that reaches zero is unlinked
\* (skb_poison_list) and freed to the slab in bulk.
FreeList(h, x) ==
    IF x = 0 THEN h
    ELSE LET nx == h.next[x]
             last == h.users[x] = 1
             unlink == last \/ Mutant = "napi-kfree-list"
         IN FreeList([h EXCEPT !.users[x] = @ - 1,
                               !.next[x] = IF unlink THEN 0 ELSE @,
                               !.owner[x] = IF last THEN 0 ELSE @,
                               !.slab = IF last THEN @ \cup {x} ELSE @], nx)

\* skb_release_all(): what the skb holds is dropped, its frag list first.
ReleaseAll(h, s) == [FreeList(h, h.frag[s]) EXCEPT !.frag[s] = 0, !.owner[s] = 0]

\* napi_skb_cache_put(): push a head; a full stack gives its newer half
\* back to the slab (kmem_cache_free_bulk).
CachePut(h, s) ==
    LET q == Append(h.q, s) IN
    IF Len(q) = CacheSize
    THEN [h EXCEPT !.q = SubSeq(q, 1, Half), !.slab = @ \cup Range(SubSeq(q, Half + 1, CacheSize))]
    ELSE [h EXCEPT !.q = q]

RECURSIVE CachePutAll(_, _)
CachePutAll(h, l) == IF l = <<>> THEN h ELSE CachePutAll(CachePut(h, Head(l)), Tail(l))

\* __napi_kfree_skb(): release the skb, then keep its head in this cache.
NapiKfree(h, s) ==
    CachePut(IF Mutant = "napi-put-unreleased" THEN [h EXCEPT !.owner[s] = 0]
             ELSE ReleaseAll(h, s), s)

\* napi_consume_skb() with a budget: drop a reference; the last one frees
\* the skb into the cache.
NapiConsume(h, s) ==
    LET h1 == [h EXCEPT !.users[s] = @ - 1] IN
    IF h.users[s] = 1 \/ Mutant = "napi-consume-no-unref" THEN NapiKfree(h1, s) ELSE h1

RECURSIVE ConsumeAll(_, _)
ConsumeAll(h, l) == IF l = <<>> THEN h ELSE ConsumeAll(NapiConsume(h, Head(l)), Tail(l))

\* __kfree_skb(): release the skb, then kmem_cache_free() its head.
SlabFree(h, s) == [ReleaseAll(h, s) EXCEPT !.slab = @ \cup {s}]

\* kmem_cache_alloc_bulk() of k heads into the cache: all or nothing.
Refill(h, k, fail) ==
    IF ~fail /\ k > 0 /\ Cardinality(h.slab) >= k
    THEN [h EXCEPT !.q = @ \o Lowest(h.slab, k), !.slab = @ \ Range(Lowest(h.slab, k))]
    ELSE h

\* napi_skb_cache_get(): a head from the cache, refilled with Bulk heads
\* when empty. [h |-> heap, s |-> head], s = 0 when the slab call failed.
CacheGet(h, fail) ==
    LET h1 == IF h.q = <<>> THEN Refill(h, Bulk, fail) ELSE h IN
    IF h1.q = <<>> THEN [h |-> h1, s |-> 0]
    ELSE [h |-> [h1 EXCEPT !.q = SubSeq(@, 1, Len(@) - 1)], s |-> h1.q[Len(h1.q)]]

\* round_up(x, Bulk).
RoundUp(x) == ((x + Bulk - 1) \div Bulk) * Bulk

RECURSIVE GetBulkLoop(_, _, _, _)
\* napi_skb_cache_get_bulk(), kernel/patches/tun-napi-cache 1/5: until n
\* heads are taken, a cache holding fewer than still wanted is topped up
\* with what is missing rounded up to Bulk (never past CacheSize), then
\* its top heads are taken in array order; an empty cache ends the loop.
GetBulkLoop(h, n, got, fail) ==
    IF Len(got) >= n THEN [h |-> h, got |-> got]
    ELSE LET need == n - Len(got)
             want == IF Len(h.q) < need
                     THEN Min({RoundUp(need - Len(h.q)), CacheSize - Len(h.q)}) ELSE 0
             h1 == Refill(h, want, fail)
             take == Min({need, Len(h1.q)})
         IN IF h1.q = <<>> THEN [h |-> h1, got |-> got]
            ELSE GetBulkLoop([h1 EXCEPT !.q = SubSeq(@, 1, Len(@) - take)], n,
                             got \o SubSeq(h1.q, Len(h1.q) - take + 1, Len(h1.q)), fail)

\* [h |-> heap, got |-> heads], fewer than n only when the slab failed.
CacheGetBulk(h, n, fail) == GetBulkLoop(h, n, <<>>, fail)

(***************************************************************************)
(* Actions                                                                 *)
(***************************************************************************)
Init ==
    /\ slab = Skbs
    /\ cache = [c \in CPUs |-> <<>>]
    /\ touch = [c \in CPUs |-> <<c, "bh">>]
    /\ defer = [c \in CPUs |-> <<>>]
    /\ dcount = [c \in CPUs |-> 0]
    /\ kick = [c \in CPUs |-> FALSE]
    /\ ctx = [c \in CPUs |-> "idle"]
    /\ users = [s \in Skbs |-> 0]
    /\ held = [s \in Skbs |-> 0]
    /\ frag = [s \in Skbs |-> 0]
    /\ next = [s \in Skbs |-> 0]
    /\ owner = [s \in Skbs |-> 0]
    /\ heads = [c \in CPUs |-> <<>>]
    /\ pending = [c \in CPUs |-> 0]
    /\ left = NFrames
    /\ rcvd = 0
    /\ dropped = 0

\* skb_defer_free_flush(): take CPU c's list and consume each skb into its
\* cache. Used inside the actions that run it, with BH off.
FlushHeap(c) == ConsumeAll(H(c), defer[c])
FlushLists(c) ==
    /\ defer' = [defer EXCEPT ![c] = <<>>]
    /\ dcount' = [dcount EXCEPT ![c] = IF Mutant = "napi-flush-count-kept" THEN @ ELSE 0]

\* net_rx_action() on CPU c: a NAPI poll (its driver has work, or an IPI
\* kicked it); the defer list is flushed on entry.
NetRxAction(c) ==
    /\ ctx[c] = "idle"
    /\ ctx' = [ctx EXCEPT ![c] = "napi"]
    /\ kick' = [kick EXCEPT ![c] = FALSE]
    /\ Apply(c, FlushHeap(c))
    /\ FlushLists(c)
    /\ touch' = [touch EXCEPT ![c] = <<c, "bh">>]
    /\ UNCHANGED <<held, heads, pending, left, rcvd, dropped>>

\* napi_complete_done() and the end of net_rx_action(), which flushes the
\* defer list again before BH is enabled.
NapiComplete(c) ==
    /\ ctx[c] = "napi"
    /\ ctx' = [ctx EXCEPT ![c] = "idle"]
    /\ Apply(c, FlushHeap(c))
    /\ FlushLists(c)
    /\ touch' = [touch EXCEPT ![c] = <<c, "bh">>]
    /\ UNCHANGED <<kick, held, heads, pending, left, rcvd, dropped>>

\* napi_build_skb() in a driver's poll: a frame from the wire on a head
\* from the cache (napi_skb_cache_get), or dropped when the slab fails.
NapiBuildSkb(c) ==
    /\ ctx[c] = "napi" /\ left > 0
    /\ left' = left - 1
    /\ \E fail \in Fails :
         LET r == CacheGet(H(c), fail) IN
         IF r.s = 0
         THEN /\ Apply(c, r.h)
              /\ dropped' = dropped + 1
              /\ UNCHANGED <<held, rcvd>>
         ELSE /\ Apply(c, [r.h EXCEPT !.users[r.s] = 1, !.owner[r.s] = c])
              /\ held' = [held EXCEPT ![r.s] = 1]
              /\ rcvd' = rcvd + 1
              /\ UNCHANGED dropped
    /\ touch' = [touch EXCEPT ![c] = <<c, "bh">>]
    /\ UNCHANGED <<defer, dcount, kick, ctx, heads, pending>>

\* napi_consume_skb(s, budget) on CPU c: a reference dropped in its poll
\* (budget != 0 says NAPI context).
NapiConsumeSkb(c, s) ==
    /\ ctx[c] = "napi" \/ (Mutant = "napi-virtio-cache" /\ ctx[c] = "idle")
    /\ held[s] > 0
    /\ held' = [held EXCEPT ![s] = @ - 1]
    /\ Apply(c, NapiConsume(H(c), s))
    /\ touch' = [touch EXCEPT ![c] = <<c, IF ctx[c] = "idle" THEN "task" ELSE "bh">>]
    /\ UNCHANGED <<defer, dcount, kick, ctx, heads, pending, left, rcvd, dropped>>

\* skb_attempt_defer_free(s) on CPU c in task context (a socket's recvmsg),
\* by the holder of the last reference: queued on the allocating CPU's
\* list, or, on that CPU or when that list is full, freed into this CPU's
\* cache with BH off (kfree_skb_napi_cache).
SkbAttemptDeferFree(c, s) ==
    /\ ctx[c] = "idle"
    /\ held[s] > 0 /\ users[s] = 1
    /\ held' = [held EXCEPT ![s] = 0]
    /\ LET o == owner[s] IN
       IF o = c \/ dcount[o] >= DeferMax
       THEN LET t == IF Mutant = "napi-remote-put" THEN o ELSE c IN
            /\ Apply(t, NapiKfree([H(t) EXCEPT !.users[s] = 0], s))
            /\ touch' = [touch EXCEPT ![t] = <<c, "bh">>]
            /\ UNCHANGED <<defer, dcount, kick>>
       ELSE LET d == IF Mutant = "napi-defer-wrong-cpu" THEN c ELSE o IN
            /\ defer' = [defer EXCEPT ![d] = <<s>> \o @]
            /\ dcount' = [dcount EXCEPT ![d] = @ + 1]
            /\ kick' = IF dcount[d] = DeferMax \div 2 /\ Mutant # "napi-defer-no-kick"
                       THEN [kick EXCEPT ![d] = TRUE] ELSE kick
            /\ UNCHANGED <<heap, touch>>
    /\ UNCHANGED <<ctx, heads, pending, left, rcvd, dropped>>

\* kfree_skb(s) from any context: the last reference frees to the slab.
KfreeSkb(s) ==
    /\ held[s] > 0
    /\ held' = [held EXCEPT ![s] = @ - 1]
    /\ LET h == [HeapOnly EXCEPT !.users[s] = @ - 1] IN
       ApplyNoCache(IF users[s] = 1 THEN SlabFree(h, s) ELSE h)
    /\ UNCHANGED <<touch, defer, dcount, kick, ctx, heads, pending, left, rcvd, dropped>>

\* tun_sendmsg(TUN_MSG_PTR) on CPU c: vhost-net hands a batch of frames;
\* BH goes off, and with the series the batch's heads are taken at once
\* (after flushing the defer list, with Path "flush"). A frame the bulk get
\* found no head for falls back to napi_build_skb() in TunXdpOne.
TunSendmsg(c) ==
    /\ ctx[c] = "idle" /\ left > 0
    /\ LET k == Min({Batch, left})
           h0 == IF Path = "flush" THEN FlushHeap(c) ELSE H(c)
       IN /\ left' = left - k
          /\ ctx' = [ctx EXCEPT ![c] = "tun"]
          /\ pending' = [pending EXCEPT ![c] = k]
          /\ IF Path = "flush" THEN FlushLists(c) ELSE UNCHANGED <<defer, dcount>>
          /\ IF Path = "slab"
             THEN /\ Apply(c, h0)
                  /\ UNCHANGED <<heads, touch>>
             ELSE \E fail \in Fails :
                  LET r == CacheGetBulk(h0, k, fail) IN
                  /\ Apply(c, r.h)
                  /\ heads' = [heads EXCEPT ![c] = r.got]
                  /\ touch' = [touch EXCEPT ![c] =
                                 <<c, IF Mutant = "napi-tun-no-bh" THEN "task" ELSE "bh">>]
    /\ UNCHANGED <<kick, held, rcvd, dropped>>

\* tun_xdp_one(): one frame of the batch. XDP_DROP takes no head; XDP_PASS
\* builds the skb around the batch's next head, or, with none left, on one
\* from this CPU's cache (napi_build_skb), or with Path "slab" on one from
\* the slab (build_skb), and hands it to the stack; a failed allocation
\* drops the frame.
Built(s, c) ==
    /\ held' = [held EXCEPT ![s] = 1]
    /\ rcvd' = rcvd + 1
    /\ UNCHANGED dropped
Fresh(h, s, c) == [h EXCEPT !.users[s] = 1, !.owner[s] = c]
TunXdpOne(c) ==
    /\ ctx[c] = "tun" /\ pending[c] > 0
    /\ pending' = [pending EXCEPT ![c] = @ - 1]
    /\ \/ /\ dropped' = dropped + (IF Mutant = "napi-xdp-drop-uncounted" THEN 0 ELSE 1)
          /\ UNCHANGED <<heap, held, heads, rcvd, touch>>
       \/ /\ heads[c] # <<>>
          /\ LET s == Head(heads[c]) IN
             /\ heads' = [heads EXCEPT ![c] = Tail(@)]
             /\ users' = [users EXCEPT ![s] = 1]
             /\ owner' = [owner EXCEPT ![s] = c]
             /\ Built(s, c)
             /\ UNCHANGED <<slab, cache, frag, next, touch>>
       \/ /\ heads[c] = <<>> /\ Path # "slab"
          /\ \E fail \in Fails :
               LET r == CacheGet(H(c), fail) IN
               IF r.s = 0
               THEN /\ Apply(c, r.h)
                    /\ dropped' = dropped + 1
                    /\ UNCHANGED <<held, rcvd>>
               ELSE /\ Apply(c, Fresh(r.h, r.s, c))
                    /\ Built(r.s, c)
          /\ touch' = [touch EXCEPT ![c] = <<c, "bh">>]
          /\ UNCHANGED heads
       \/ /\ Path = "slab"
          /\ \E fail \in Fails :
               IF fail \/ slab = {}
               THEN /\ dropped' = dropped + 1
                    /\ UNCHANGED <<heap, held, rcvd>>
               ELSE LET s == Min(slab) IN
                    /\ slab' = slab \ {s}
                    /\ users' = [users EXCEPT ![s] = 1]
                    /\ owner' = [owner EXCEPT ![s] = c]
                    /\ Built(s, c)
                    /\ UNCHANGED <<cache, frag, next>>
          /\ UNCHANGED <<heads, touch>>
    /\ UNCHANGED <<defer, dcount, kick, ctx, left>>

\* The end of tun_sendmsg(): heads the batch did not use go back to the
\* slab in one kmem_cache_free_bulk() (tun_put_heads), then BH goes on.
TunSendmsgEnd(c) ==
    /\ ctx[c] = "tun" /\ pending[c] = 0
    /\ ctx' = [ctx EXCEPT ![c] = "idle"]
    /\ heads' = [heads EXCEPT ![c] = <<>>]
    /\ CASE Mutant = "napi-bulk-lost-head" -> UNCHANGED <<heap, touch>>
         [] Mutant = "napi-return-overflow" ->
              \* pushed back onto the cache in one copy, no half flush
              /\ cache' = [cache EXCEPT ![c] = @ \o heads[c]]
              /\ touch' = IF heads[c] = <<>> THEN touch ELSE [touch EXCEPT ![c] = <<c, "bh">>]
              /\ UNCHANGED <<slab, users, frag, next, owner>>
         [] OTHER ->
              /\ slab' = slab \cup Range(heads[c])
              /\ UNCHANGED <<cache, users, frag, next, owner, touch>>
    /\ UNCHANGED <<defer, dcount, kick, held, pending, left, rcvd, dropped>>

\* skb_get(): a second holder of an skb (Clone).
SkbGet(s) ==
    /\ Clone /\ held[s] = 1 /\ users[s] = 1
    /\ users' = [users EXCEPT ![s] = 2]
    /\ held' = [held EXCEPT ![s] = 2]
    /\ UNCHANGED <<slab, cache, touch, defer, dcount, kick, ctx, frag, next, owner,
                   heads, pending, left, rcvd, dropped>>

\* skb_gro_receive_list() in CPU c's poll: t, held once, joins the end of
\* p's frag list and its reference moves there.
SkbGroReceiveList(c, p, t) ==
    /\ Clone /\ ctx[c] = "napi" /\ (p # t \/ Mutant = "napi-gro-self")
    /\ held[p] > 0 /\ held[t] = 1 /\ users[t] = 1 /\ frag[t] = 0
    /\ t \notin Members /\ p \notin Members
    /\ \A q \in Live \ {p} : frag[p] = 0 \/ frag[q] # frag[p]
    /\ held' = [held EXCEPT ![t] = 0]
    /\ LET ch == Chain(p)
           tail == CHOOSE x \in ch : next[x] = 0
       IN IF ch = {} THEN /\ frag' = [frag EXCEPT ![p] = t] /\ UNCHANGED next
          ELSE /\ next' = [next EXCEPT ![tail] = t] /\ UNCHANGED frag
    /\ UNCHANGED <<slab, cache, touch, defer, dcount, kick, ctx, users, owner,
                   heads, pending, left, rcvd, dropped>>

\* pskb_copy() on CPU c: a new skb from the slab sharing p's frag list,
\* whose members each gain a reference (skb_clone_fraglist).
PskbCopy(c, p) ==
    /\ Clone /\ frag[p] # 0 /\ held[p] > 0 /\ slab # {}
    /\ LET n == Min(slab) IN
       /\ slab' = slab \ {n}
       /\ users' = [x \in Skbs |-> IF x = n THEN 1
                                   ELSE IF x \in Chain(p) THEN users[x] + 1 ELSE users[x]]
       /\ held' = [held EXCEPT ![n] = 1]
       /\ owner' = [owner EXCEPT ![n] = c]
       /\ frag' = [frag EXCEPT ![n] = frag[p]]
    /\ UNCHANGED <<cache, touch, defer, dcount, kick, ctx, next, heads, pending,
                   left, rcvd, dropped>>

Next ==
    \/ \E c \in CPUs :
         \/ NetRxAction(c) \/ NapiComplete(c) \/ NapiBuildSkb(c)
         \/ TunSendmsg(c) \/ TunXdpOne(c) \/ TunSendmsgEnd(c)
         \/ \E s \in Skbs : NapiConsumeSkb(c, s) \/ SkbAttemptDeferFree(c, s)
         \/ \E p \in Skbs : PskbCopy(c, p) \/ \E t \in Skbs : SkbGroReceiveList(c, p, t)
    \/ \E s \in Skbs : KfreeSkb(s) \/ SkbGet(s)

\* An IPI'd CPU runs NET_RX; polls end; tun finishes its batch.
Fairness ==
    \A c \in CPUs :
        /\ SF_vars(kick[c] /\ NetRxAction(c))
        /\ WF_vars(NapiComplete(c))
        /\ WF_vars(TunXdpOne(c))
        /\ WF_vars(TunSendmsgEnd(c))

Spec == Init /\ [][Next]_vars /\ Fairness

(***************************************************************************)
(* Invariants                                                              *)
(***************************************************************************)
TypeOK ==
    /\ slab \subseteq Skbs
    /\ \A c \in CPUs : Range(cache[c]) \subseteq Skbs /\ Range(defer[c]) \subseteq Skbs
                       /\ Range(heads[c]) \subseteq Skbs
                       /\ ctx[c] \in {"idle", "napi", "tun"} /\ kick[c] \in BOOLEAN
    /\ \A s \in Skbs : users[s] \in Nat /\ held[s] \in Nat /\ owner[s] \in 0..NCpu
                       /\ frag[s] \in 0..NSkb /\ next[s] \in 0..NSkb
    /\ left \in 0..NFrames

\* A cache is touched only by its own CPU, with BH off.
CacheLocal == \A c \in CPUs : touch[c] = <<c, "bh">>

\* No cache holds more than CacheSize heads.
CacheBounded == \A c \in CPUs : Len(cache[c]) <= CacheSize

\* A head in a cache, a batch or the slab has been released: it carries no
\* frag list and is on none (the next user gets a reset skb).
CachedReleased ==
    \A s \in slab \cup UNION {Range(cache[c]) \cup Range(heads[c]) : c \in CPUs} :
        frag[s] = 0 /\ next[s] = 0

\* Every head is in exactly one place: the slab, one cache slot, one batch
\* slot, or in use. So a head reaches a cache only at its last reference.
Place(s) == (IF s \in slab THEN 1 ELSE 0) + (IF users[s] > 0 THEN 1 ELSE 0)
            + SumOver([c \in CPUs |-> Count(cache[c], s) + Count(heads[c], s)], CPUs)
OnePlace == \A s \in Skbs : Place(s) = 1

\* A defer list holds only skbs its CPU allocated, and its count is its
\* length.
DeferOwner == \A c \in CPUs : \A s \in Range(defer[c]) : owner[s] = c
DeferCountMatches == \A c \in CPUs : dcount[c] = Len(defer[c])

\* Every reference is accounted for: skb->users is the holders, the frag
\* lists of skbs in use that reach it, and the defer lists it is on.
Refs(s) == held[s] + Cardinality({p \in Live : s \in Chain(p)})
           + SumOver([c \in CPUs |-> Count(defer[c], s)], CPUs)
RefsAccounted == \A s \in Skbs : users[s] = Refs(s)

\* Every frame that arrived is delivered, dropped and counted, or still in
\* tun's batch.
FramesConserved == NFrames - left = rcvd + dropped + SumOver(pending, CPUs)

\* Nothing in use is lost: every skb in use is reached from a holder or a
\* defer list, directly or through frag lists (flat: one step reaches
\* every member).
RECURSIVE Reach(_, _)
Reach(S, n) == IF n = 0 THEN S ELSE Reach(S \cup UNION {Chain(p) : p \in S}, n - 1)
Rooted == {s \in Skbs : held[s] > 0} \cup UNION {Range(defer[c]) : c \in CPUs}
NoLeak == Live \subseteq Reach(Rooted, 1)

(***************************************************************************)
(* Liveness                                                                *)
(***************************************************************************)
\* A defer list past half of DeferMax is drained (its IPI is answered).
DeferDrains == \A c \in CPUs : (dcount[c] > DeferMax \div 2) ~> (dcount[c] = 0)
=============================================================================
