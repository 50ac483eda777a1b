---------------------------- MODULE DevmemTokens -----------------------------
(***************************************************************************)
(* Devmem TCP receive: who holds a reference on each net_iov of a dmabuf   *)
(* binding, and the tokens that let the application give them back.        *)
(*                                                                         *)
(* The NIC fills net_iovs from the binding's page pool; TCP queues them on *)
(* sockets as skb frags. tcp_recvmsg_dmabuf() takes a page-pool reference  *)
(* for the application and hands it a token in a cmsg; the application     *)
(* returns tokens with SO_DEVMEM_DONTNEED (sock_devmem_dontneed()). A      *)
(* net_iov goes back to the pool when its pp_ref_count reaches zero.       *)
(*                                                                         *)
(* Two token modes, chosen per binding at NETDEV_CMD_BIND_RX:              *)
(*  "xarray" (linux 6.12.117; autorelease on): a token is an id in the     *)
(*      socket's sk_user_frags xarray; closing the socket releases them;   *)
(*  "array" (seed 004; autorelease off): a token is the net_iov's index in *)
(*      the binding, and the kernel only counts how many it handed out     *)
(*      (niov->uref); closing a socket releases nothing, unbind releases   *)
(*      what is left.                                                      *)
(* One mode system-wide: a binding cannot be created while a binding of    *)
(* the other mode is bound.                                                *)
(*                                                                         *)
(* A frag may be read in Parts pieces (a short recvmsg); each piece is a   *)
(* token and a reference of its own.                                       *)
(***************************************************************************)
EXTENDS Naturals, Integers, Sequences, FiniteSets, TLC

CONSTANTS
    Bindings,     \* dmabuf bindings (model values)
    SocksPer,     \* TCP sockets steered to each binding's queues
    NiovsPer,     \* net_iovs in each binding
    Parts,        \* recvmsg calls a frag may be split over
    Modes,        \* the modes a bind may ask for: a subset of {"xarray", "array"}
    MaxCount,     \* token_count the application may pass in one dmabuf_token
    DontneedLimit,\* MAX_DONTNEED_FRAGS: tokens one SO_DEVMEM_DONTNEED examines
    Mutant        \* "none" or a mutant id of specs/manifest.json

ASSUME SocksPer \in Nat \ {0} /\ NiovsPer \in Nat \ {0} /\ Parts \in Nat \ {0}
ASSUME Modes \subseteq {"xarray", "array"} /\ Modes # {}
ASSUME MaxCount \in Nat \ {0} /\ DontneedLimit \in Nat \ {0}
ASSUME Mutant \in {"none", "dm-dontneed-loop", "dm-cmsg-trunc", "zcrx-uref-race",
                   "dm-recv-no-ref", "dm-close-no-release",
                   "dm-unbind-no-cleanup", "dm-mode-mix"}

\* A socket and a net_iov are named by their binding and an index, so a
\* socket receives only its binding's net_iovs (the queues are steered).
Socks == Bindings \X (0 .. SocksPer - 1)
Niovs == Bindings \X (0 .. NiovsPer - 1)
\* Token values: xarray ids of one socket (at most NiovsPer * Parts are live
\* at once, so xa_alloc never fails here) and net_iov indices.
Toks == 0 .. (NiovsPer * Parts - 1)
NoNiov == <<"none", -1>>
NoTok == -1

VARIABLES
    bst,      \* bst[b]: "idle", "bound" or "dead" (unbound)
    mode,     \* mode[b]: the token mode the bind asked for
    pool,     \* pool[n]: times n sits in the page pool's free list
    ppref,    \* ppref[n]: the net_iov's pp_ref_count
    uref,     \* uref[n]: array mode: tokens handed out and not returned
    rxq,      \* rxq[s]: skbs queued on s: [niov, left] (pieces unread)
    xa,       \* xa[s][id]: xarray mode: the net_iov token id names in s
    open,     \* open[s]: the socket is not closed
    user,     \* user[s][t]: tokens t the application holds from s (history)
    stolen,   \* releases through one socket of a token another received
    work,     \* tokens the last SO_DEVMEM_DONTNEED examined
    pend      \* pend[s]: zcrx-uref-race: a release that saw uref > 0 and
              \* has not yet decremented it

vars == <<bst, mode, pool, ppref, uref, rxq, xa, open, user, stolen, work, pend>>

Bind(n) == n[1]
SocksOf(b) == {s \in Socks : s[1] = b}
NiovAt(b, i) == <<b, i>>
Min(S) == CHOOSE x \in S : \A y \in S : x <= y

\* References an skb still queued on a socket holds on n.
SkbRefs(n) == Cardinality({<<s, k>> \in Socks \X (1 .. NiovsPer) :
                              k <= Len(rxq[s]) /\ rxq[s][k].niov = n})
\* Tokens the kernel accounts for on n.
KernelTokens(n) ==
    IF mode[Bind(n)] = "xarray"
    THEN Cardinality({<<s, id>> \in SocksOf(Bind(n)) \X Toks : xa[s][id] = n})
    ELSE uref[n]
\* Tokens the application holds on n.
UserTokens(n) ==
    IF mode[Bind(n)] = "xarray"
    THEN Cardinality({<<s, id>> \in SocksOf(Bind(n)) \X Toks :
                        xa[s][id] = n /\ user[s][id] > 0})
    ELSE LET S == SocksOf(Bind(n)) IN
         LET Sum[T \in SUBSET S] ==
                IF T = {} THEN 0
                ELSE LET s == CHOOSE x \in T : TRUE
                     IN user[s][n[2]] + Sum[T \ {s}]
         IN Sum[S]

TypeOK ==
    /\ bst \in [Bindings -> {"idle", "bound", "dead"}]
    /\ mode \in [Bindings -> {"xarray", "array"}]
    /\ pool \in [Niovs -> Nat]
    /\ ppref \in [Niovs -> Int]
    /\ uref \in [Niovs -> Int]
    /\ \A s \in Socks : rxq[s] \in Seq([niov : Niovs, left : 1 .. Parts])
    /\ xa \in [Socks -> [Toks -> Niovs \cup {NoNiov}]]
    /\ open \in [Socks -> BOOLEAN]
    /\ user \in [Socks -> [Toks -> Nat]]
    /\ work \in Nat
    /\ pend \in [Socks -> Toks \cup {NoTok}]

Init ==
    /\ bst = [b \in Bindings |-> "idle"]
    /\ mode = [b \in Bindings |-> CHOOSE m \in Modes : TRUE]
    /\ pool = [n \in Niovs |-> 0]
    /\ ppref = [n \in Niovs |-> 0]
    /\ uref = [n \in Niovs |-> 0]
    /\ rxq = [s \in Socks |-> <<>>]
    /\ xa = [s \in Socks |-> [id \in Toks |-> NoNiov]]
    /\ open = [s \in Socks |-> TRUE]
    /\ user = [s \in Socks |-> [t \in Toks |-> 0]]
    /\ stolen = {}
    /\ work = 0
    /\ pend = [s \in Socks |-> NoTok]

\* Drop dec[n] references from every net_iov; one that reaches zero goes
\* back to the pool (napi_pp_put_page -> page_pool_put_netmem).
Put(dec) ==
    /\ ppref' = [n \in Niovs |-> ppref[n] - dec[n]]
    /\ pool' = [n \in Niovs |->
                  IF dec[n] > 0 /\ ppref[n] - dec[n] = 0 THEN pool[n] + 1
                  ELSE pool[n]]

(***************************************************************************)
(* NETDEV_CMD_BIND_RX (net_devmem_bind_dmabuf): the binding's net_iovs     *)
(* enter its page pool. The single-mode rule: no binding of the other mode *)
(* may be bound.                                                           *)
(***************************************************************************)
BindRx(b, m) ==
    /\ bst[b] = "idle"
    /\ m \in Modes
    /\ \/ \A c \in Bindings : bst[c] = "bound" => mode[c] = m
       \/ Mutant = "dm-mode-mix"
    /\ bst' = [bst EXCEPT ![b] = "bound"]
    /\ mode' = [mode EXCEPT ![b] = m]
    /\ pool' = [n \in Niovs |-> IF Bind(n) = b THEN 1 ELSE pool[n]]
    /\ UNCHANGED <<ppref, uref, rxq, xa, open, user, stolen, work, pend>>

(***************************************************************************)
(* The NIC takes n from the page pool (pp_ref_count set to 1, the skb's    *)
(* reference) and TCP queues the frag on s (tcp_data_queue).               *)
(***************************************************************************)
RxFrag(s, n) ==
    /\ bst[Bind(n)] = "bound"
    /\ Bind(n) = s[1]
    /\ open[s]
    /\ pool[n] > 0
    /\ pool' = [pool EXCEPT ![n] = @ - 1]
    /\ ppref' = [ppref EXCEPT ![n] = 1]
    /\ rxq' = [rxq EXCEPT ![s] = Append(@, [niov |-> n, left |-> Parts])]
    /\ UNCHANGED <<bst, mode, uref, xa, open, user, stolen, work, pend>>

(***************************************************************************)
(* tcp_recvmsg_dmabuf: one piece of the head skb's frag. The kernel takes  *)
(* a reference for the application (atomic_long_inc(pp_ref_count)) and     *)
(* records a token; an skb whose last piece is read is freed, dropping its *)
(* own reference. In array mode a binding that is already unbound hands    *)
(* out no tokens: unbind's cleanup has run and nothing would release them. *)
(* Mutant dm-cmsg-trunc: put_cmsg truncates the token's cmsg silently and  *)
(* the reference is taken anyway. Mutant dm-recv-no-ref: no reference.     *)
(***************************************************************************)
RecvMsg(s) ==
    /\ open[s]
    /\ rxq[s] # <<>>
    /\ LET h == Head(rxq[s])
           n == h.niov
           b == Bind(n)
           ref == IF Mutant = "dm-recv-no-ref" THEN 0 ELSE 1
           last == h.left = 1
       IN
       /\ mode[b] = "array" => bst[b] = "bound"
       /\ \E told \in IF Mutant = "dm-cmsg-trunc" THEN {TRUE, FALSE} ELSE {TRUE} :
          LET tok == IF mode[b] = "xarray"
                     THEN Min({id \in Toks : xa[s][id] = NoNiov})
                     ELSE n[2]
          IN
          /\ xa' = IF mode[b] = "xarray" THEN [xa EXCEPT ![s][tok] = n] ELSE xa
          /\ uref' = IF mode[b] = "array" THEN [uref EXCEPT ![n] = @ + 1] ELSE uref
          /\ user' = IF told THEN [user EXCEPT ![s][tok] = @ + 1] ELSE user
       /\ ppref' = [ppref EXCEPT ![n] = @ + ref - (IF last THEN 1 ELSE 0)]
       /\ pool' = IF ppref[n] + ref - (IF last THEN 1 ELSE 0) = 0
                  THEN [pool EXCEPT ![n] = @ + 1] ELSE pool
       /\ rxq' = [rxq EXCEPT ![s] = IF last THEN Tail(@)
                                     ELSE <<[h EXCEPT !.left = @ - 1]>> \o Tail(@)]
    /\ UNCHANGED <<bst, mode, open, stolen, work, pend>>

(***************************************************************************)
(* SO_DEVMEM_DONTNEED with one dmabuf_token {token_start = t, token_count  *)
(* = c}: the kernel examines at most DontneedLimit tokens (mutant          *)
(* dm-dontneed-loop: all c). The application may pass any value.           *)
(*  xarray: each id found in the socket's own xarray is erased and its     *)
(*      reference dropped;                                                  *)
(*  array: each index whose uref is positive is decremented in one atomic  *)
(*      step (atomic_dec_if_positive) and its reference dropped. The token *)
(*      may have been handed to another socket of the same binding.        *)
(***************************************************************************)
Examined(t, c) ==
    LET k == IF Mutant = "dm-dontneed-loop" THEN c
             ELSE IF c < DontneedLimit THEN c ELSE DontneedLimit
    IN {t + j : j \in 0 .. (k - 1)}

\* The socket through which the application received the token it returns
\* as i (history only): its own when it has one, else another's.
Holder(s, i) ==
    IF user[s][i] > 0 THEN s
    ELSE IF \E o \in SocksOf(s[1]) : user[o][i] > 0
         THEN CHOOSE o \in SocksOf(s[1]) : user[o][i] > 0
         ELSE s

DontneedXarray(s, R) ==
    LET hit == {id \in R \cap Toks : xa[s][id] # NoNiov}
        dec == [n \in Niovs |-> Cardinality({id \in hit : xa[s][id] = n})]
    IN
    /\ xa' = [xa EXCEPT ![s] = [id \in Toks |-> IF id \in hit THEN NoNiov ELSE @[id]]]
    /\ user' = [user EXCEPT ![s] = [id \in Toks |-> IF id \in hit THEN 0 ELSE @[id]]]
    /\ Put(dec)
    /\ UNCHANGED <<uref, stolen>>

ReleaseUser(s, hit) ==
    /\ user' = [o \in Socks |-> [i \in Toks |->
                  IF i \in hit /\ Holder(s, i) = o /\ user[o][i] > 0
                  THEN user[o][i] - 1 ELSE user[o][i]]]
    /\ stolen' = stolen \cup {[by |-> s, from |-> Holder(s, i), tok |-> i] :
                                i \in {j \in hit : Holder(s, j) # s}}

DontneedArray(s, R) ==
    LET b == s[1]
        hit == {i \in R \cap (0 .. NiovsPer - 1) : uref[NiovAt(b, i)] > 0}
        dec == [n \in Niovs |-> IF Bind(n) = b /\ n[2] \in hit THEN 1 ELSE 0]
    IN
    /\ uref' = [n \in Niovs |-> uref[n] - dec[n]]
    /\ ReleaseUser(s, hit)
    /\ Put(dec)
    /\ UNCHANGED xa

Dontneed(s, t, c) ==
    /\ open[s]
    /\ ~(Mutant = "zcrx-uref-race" /\ mode[s[1]] = "array")
    /\ LET R == Examined(t, c) IN
       /\ work' = Cardinality(R)
       /\ IF mode[s[1]] = "xarray" THEN DontneedXarray(s, R) ELSE DontneedArray(s, R)
    /\ UNCHANGED <<bst, mode, rxq, open, pend>>

(***************************************************************************)
(* Mutant zcrx-uref-race (the pattern of io_uring/zcrx's scrub/refill      *)
(* race): the release reads uref > 0, then decrements it in a second step; *)
(* unbind's exchange to zero may run in between.                           *)
(***************************************************************************)
DontneedRead(s, t) ==
    /\ Mutant = "zcrx-uref-race"
    /\ mode[s[1]] = "array"
    /\ open[s]
    /\ pend[s] = NoTok
    /\ t < NiovsPer
    /\ uref[NiovAt(s[1], t)] > 0
    /\ pend' = [pend EXCEPT ![s] = t]
    /\ work' = 1
    /\ UNCHANGED <<bst, mode, pool, ppref, uref, rxq, xa, open, user, stolen>>

DontneedPut(s) ==
    /\ pend[s] # NoTok
    /\ LET n == NiovAt(s[1], pend[s])
           dec == [m \in Niovs |-> IF m = n THEN 1 ELSE 0]
       IN
       /\ uref' = [uref EXCEPT ![n] = @ - 1]
       /\ ReleaseUser(s, {pend[s]})
       /\ Put(dec)
    /\ pend' = [pend EXCEPT ![s] = NoTok]
    /\ UNCHANGED <<bst, mode, rxq, xa, open, work>>

(***************************************************************************)
(* close(): tcp_v4_destroy_sock. Queued skbs are purged. xarray mode:      *)
(* tcp_release_user_frags drops every token's reference (mutant            *)
(* dm-close-no-release: it does not). array mode: nothing; the tokens stay *)
(* with the application, which may return them through another socket.   *)
(***************************************************************************)
Close(s) ==
    /\ open[s]
    /\ pend[s] = NoTok
    /\ LET xarr == mode[s[1]] = "xarray" /\ Mutant # "dm-close-no-release"
           dec == [n \in Niovs |->
                     Cardinality({k \in 1 .. Len(rxq[s]) : rxq[s][k].niov = n})
                     + (IF xarr THEN Cardinality({id \in Toks : xa[s][id] = n})
                        ELSE 0)]
       IN
       /\ Put(dec)
       /\ xa' = IF xarr THEN [xa EXCEPT ![s] = [id \in Toks |-> NoNiov]] ELSE xa
       /\ user' = IF mode[s[1]] = "xarray"
                  THEN [user EXCEPT ![s] = [t \in Toks |-> 0]] ELSE user
    /\ open' = [open EXCEPT ![s] = FALSE]
    /\ rxq' = [rxq EXCEPT ![s] = <<>>]
    /\ UNCHANGED <<bst, mode, uref, stolen, work, pend>>

(***************************************************************************)
(* net_devmem_unbind_dmabuf (the netlink socket that bound it closes). In  *)
(* array mode the references of tokens never returned are dropped: each    *)
(* uref is exchanged with zero (mutant dm-unbind-no-cleanup: they are      *)
(* not), and the application's tokens are void.                            *)
(***************************************************************************)
Unbind(b) ==
    /\ bst[b] = "bound"
    /\ bst' = [bst EXCEPT ![b] = "dead"]
    /\ LET clean == mode[b] = "array" /\ Mutant # "dm-unbind-no-cleanup"
           dec == [n \in Niovs |-> IF clean /\ Bind(n) = b THEN uref[n] ELSE 0]
       IN
       /\ Put(dec)
       /\ uref' = [n \in Niovs |-> uref[n] - dec[n]]
       /\ user' = IF clean
                  THEN [s \in Socks |-> IF s[1] = b THEN [t \in Toks |-> 0]
                                        ELSE user[s]]
                  ELSE user
    /\ UNCHANGED <<mode, rxq, xa, open, stolen, work, pend>>

\* Every socket closed and every binding unbound: nothing is left to do.
Done ==
    /\ \A s \in Socks : ~open[s]
    /\ \A b \in Bindings : bst[b] # "bound"
    /\ UNCHANGED vars

Next ==
    \/ \E b \in Bindings, m \in Modes : BindRx(b, m)
    \/ \E s \in Socks, n \in Niovs : RxFrag(s, n)
    \/ \E s \in Socks : RecvMsg(s)
    \/ \E s \in Socks, t \in Toks, c \in 1 .. MaxCount : Dontneed(s, t, c)
    \/ \E s \in Socks, t \in Toks : DontneedRead(s, t)
    \/ \E s \in Socks : DontneedPut(s)
    \/ \E s \in Socks : Close(s)
    \/ \E b \in Bindings : Unbind(b)
    \/ Done

Spec == Init /\ [][Next]_vars

(***************************************************************************)
(* Invariants                                                              *)
(***************************************************************************)

\* Per net_iov: references held = tokens outstanding + skbs queued.
RefsAccounted ==
    \A n \in Niovs : ppref[n] = SkbRefs(n) + KernelTokens(n)

\* Neither counter goes below zero.
NoUnderflow ==
    \A n \in Niovs : ppref[n] >= 0 /\ uref[n] >= 0

\* A net_iov is in the pool only once, and only when nothing refers to it.
PoolOnlyUnreferenced ==
    \A n \in Niovs : pool[n] > 0 =>
        /\ pool[n] = 1
        /\ ppref[n] = 0
        /\ SkbRefs(n) = 0
        /\ KernelTokens(n) = 0
        /\ UserTokens(n) = 0

\* Autorelease: a closed socket holds nothing.
NoLeakAfterClose ==
    \A s \in Socks : ~open[s] /\ mode[s[1]] = "xarray" =>
        /\ rxq[s] = <<>>
        /\ \A id \in Toks : xa[s][id] = NoNiov

\* Array mode: once unbound, no token holds a reference.
NoLeakAfterUnbind ==
    \A n \in Niovs : bst[Bind(n)] = "dead" /\ mode[Bind(n)] = "array" =>
        uref[n] = 0

\* Bounded work per SO_DEVMEM_DONTNEED call.
BudgetPerCall == work <= DontneedLimit

\* A token reaches the application iff the kernel took a reference for it.
TokensDelivered ==
    \A n \in Niovs : KernelTokens(n) = UserTokens(n)

\* The single-mode rule.
SingleMode ==
    \A b, c \in Bindings : bst[b] = "bound" /\ bst[c] = "bound" => mode[b] = mode[c]

\* Ownership: a socket releases only tokens it received. Holds in xarray
\* mode; array mode gives it up (the kernel counts tokens per net_iov only).
OwnTokensOnly == stolen = {}

=============================================================================
