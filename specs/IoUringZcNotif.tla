---------------------------- MODULE IoUringZcNotif ----------------------------
(***************************************************************************)
(* io_uring zero-copy send (IORING_OP_SEND_ZC) and its notifications.     *)
(*                                                                         *)
(* Each request that io_send_zc_prep() gets past io_alloc_notif() owns a  *)
(* notification: a second io_kiocb whose ubuf_info the socket's skbs take *)
(* a reference on. The request's own CQE carries IORING_CQE_F_MORE; once  *)
(* the last reference drops, io_tx_ubuf_complete() queues task work that  *)
(* posts the notification CQE (IORING_CQE_F_NOTIF), after which the user *)
(* may write into the buffer again. An skb that already holds another     *)
(* notification of the ring gets this one linked behind it (io_link_skb): *)
(* the member then completes through the head, in one task work.          *)
(*                                                                         *)
(* Requests are submitted Batch per io_uring_enter(); a send may queue    *)
(* part of its bytes and retry (-EAGAIN, done_io), or fail after prep.    *)
(* CQEs that find the CQ full wait on the overflow list, and every CQE    *)
(* after them waits behind them.                                           *)
(*                                                                         *)
(* Mirrors io_uring/net.c (io_send_zc_prep, io_send_zc, io_sendrecv_fail, *)
(* io_send_zc_cleanup) and io_uring/notif.c of linux 6.12.117. The SQ and *)
(* CQ are FIFO sequences (XskRing.tla checks the free-running index       *)
(* scheme both rings use); bytes are counted in units of one skb's worth. *)
(***************************************************************************)
EXTENDS Integers, Sequences, FiniteSets

CONSTANTS
    NReqs,     \* SEND_ZC requests the application issues (user_data 1..NReqs)
    ReqLen,    \* units each request sends
    MaxSkbs,   \* skbs the socket may hold at once (its send buffer)
    SqSize,    \* SQ entries
    CqSize,    \* CQ entries
    Batch,     \* SQEs one io_uring_enter() submits at most (to_submit)
    Fixed,     \* TRUE: the requests send from a registered buffer
               \* (IORING_RECVSEND_FIXED_BUF); the user may unregister it
    Link,      \* TRUE: a send may append to an skb that holds another
               \* request's notification (TCP coalescing, io_link_skb)
    Fails,     \* what a send may meet, a subset of {"nomem" (io_alloc_notif
               \* fails), "inval" (-EINVAL after the notification is
               \* allocated), "fault" (io_send_zc_import() at issue:
               \* -EFAULT),
               \* "eagain" (the socket is full: poll and retry), "partial"
               \* (sendmsg returns less, no retry), "pipe" (the socket is
               \* closed: -EPIPE)}
    Reuse,     \* when the application writes into a buffer again: after
               \* its "notif" CQE (correct) or after its request "cqe"
    Mutant     \* "none" or a mutant id of specs/manifest.json

ASSUME {NReqs, ReqLen, MaxSkbs, SqSize, CqSize, Batch} \subseteq Nat \ {0}
ASSUME Fixed \in BOOLEAN /\ Link \in BOOLEAN
ASSUME Fails \subseteq {"nomem", "inval", "fault", "eagain", "partial", "pipe"}
ASSUME Reuse \in {"notif", "cqe"}
ASSUME Mutant \in {"none", "iou-skip-notif", "iou-notif-order", "iou-fixedbuf-life",
                   "iou-cq-overflow-drop", "iou-overflow-bypass", "iou-res-requested",
                   "iou-link-no-ref", "iou-double-flush", "iou-cq-overrun",
                   "iou-sq-overrun"}

Reqs == 1..NReqs
SkbIds == 1..MaxSkbs
NoSkb == [uarg |-> 0, bufs |-> {}]
Table == <<"table", 0>>   \* the buffer table's hold on the rsrc node
\* Errors as io_uring reports them (res < 0).
ENOMEM == -12
EINVAL == -22
EFAULT == -14
EPIPE == -32

VARIABLES
    sq,      \* SQEs written and not yet consumed, oldest first
    todo,    \* SQEs the io_uring_enter() in progress still submits (0: none)
    st,      \* st[r]: "user" (not submitted), "sq", "issue" (prepared,
             \* being issued), "retry" (waiting on poll), "done"
    sent,    \* sent[r]: units sendmsg queued for r (done_io and the last)
    nd,      \* nd[r]: r's notification: state "none" (not allocated),
             \* "live", "tw" (queued as task work), "posted"; its ubuf_info
             \* refcount; head: the notification it is linked behind (r if
             \* none); next: the one linked after it (0: none)
    skb,     \* skb[k]: the ubuf_info skb k holds a reference on (0: no
             \* skb) and the requests whose pages it carries
    compl,   \* request CQEs of the submission in progress, not yet flushed
             \* (io_submit_flush_completions)
    tw,      \* notifications whose last reference dropped, queued as task
             \* work, oldest first
    cq,      \* CQEs in the CQ ring, oldest first
    ovf,     \* CQEs on the overflow list, oldest first
    posted,  \* (history) every CQE posted, in order
    reaped,  \* (history) how many of them the application has reaped
    got,     \* got[r]: the CQEs of r the application has reaped
    reused,  \* reused[r]: the application wrote into r's buffer again
    node     \* the registered buffers' rsrc node: who holds it (Table,
             \* <<"notif", r>>, <<"req", r>>); empty: the pages are freed

vars == <<sq, todo, st, sent, nd, skb, compl, tw, cq, ovf, posted, reaped, got,
          reused, node>>

Cqe == [r : Reqs, notif : BOOLEAN, res : Int, more : BOOLEAN]

Init ==
    /\ sq = <<>> /\ todo = 0
    /\ st = [r \in Reqs |-> "user"]
    /\ sent = [r \in Reqs |-> 0]
    /\ nd = [r \in Reqs |-> [state |-> "none", ref |-> 0, head |-> r, next |-> 0]]
    /\ skb = [k \in SkbIds |-> NoSkb]
    /\ compl = <<>> /\ tw = <<>> /\ cq = <<>> /\ ovf = <<>>
    /\ posted = <<>> /\ reaped = 0
    /\ got = [r \in Reqs |-> {}]
    /\ reused = [r \in Reqs |-> FALSE]
    /\ node = IF Fixed THEN {Table} ELSE {}

Min(a, b) == IF a < b THEN a ELSE b
Range(s) == {s[i] : i \in DOMAIN s}
Members(d, h) == {n \in Reqs : n # h /\ d[n].head = h /\ d[n].state # "none"}
Issuing == \E r \in Reqs : st[r] = "issue"

-----------------------------------------------------------------------------
(* Posting CQEs: io_fill_cqe_req(), io_cqring_event_overflow() *)

\* CQEs es appended to the CQ, or to the overflow list if the CQ is full or
\* the list is not empty (a CQE never overtakes one that overflowed).
PostAll(es) ==
    LET go(q, o, i) == IF o = <<>> /\ Len(q) < CqSize
                       THEN <<Append(q, es[i]), o>>
                       ELSE IF Mutant = "iou-cq-overflow-drop" THEN <<q, o>>
                       ELSE IF Mutant = "iou-overflow-bypass" /\ Len(q) < CqSize
                       THEN <<Append(q, es[i]), o>>
                       ELSE <<q, Append(o, es[i])>>
        step[i \in 0..Len(es)] ==
            IF i = 0 THEN <<cq, ovf>> ELSE go(step[i - 1][1], step[i - 1][2], i)
    IN /\ cq' = step[Len(es)][1]
       /\ ovf' = step[Len(es)][2]
       /\ posted' = posted \o es

NotifCqe(r) == [r |-> r, notif |-> TRUE, res |-> 0, more |-> FALSE]

\* The notifications task work posts for head n: n and those linked
\* behind it, in the order io_notif_tw_complete() walks nd->next.
Chain(d, n) ==
    LET f[i \in 0..NReqs] ==
            IF i = 0 THEN <<n>>
            ELSE LET last == f[i - 1][Len(f[i - 1])]
                 IN IF d[last].next = 0 THEN f[i - 1] ELSE Append(f[i - 1], d[last].next)
    IN f[NReqs]

-----------------------------------------------------------------------------
(* Notification references: io_tx_ubuf_complete() *)

\* nd and tw after one reference of n is put. At zero a member puts its
\* head's; a head is queued as task work (or, iou-notif-order, its CQE is
\* posted at once, below).
Put(d, t, n) ==
    LET d1 == [d EXCEPT ![n].ref = @ - 1]
        h == d[n].head
    IN IF d1[n].ref > 0 THEN <<d1, t>>
       ELSE IF h # n THEN
           LET d2 == [d1 EXCEPT ![h].ref = @ - 1]
           IN IF d2[h].ref > 0 THEN <<d2, t>>
              ELSE <<[d2 EXCEPT ![h].state = "tw"], Append(t, h)>>
       ELSE <<[d1 EXCEPT ![n].state = "tw"], Append(t, n)>>

\* nd, tw and the CQEs once the puts that gave p = <<nd, tw>> are done.
\* iou-notif-order: the task work a put queues runs at once, before the
\* request CQEs of the submission are flushed.
Release(p) ==
    IF Mutant = "iou-notif-order" /\ Len(p[2]) > Len(tw) THEN
        LET c == Chain(p[1], p[2][Len(p[2])])
        IN /\ nd' = [n \in Reqs |-> IF n \in Range(c)
                                   THEN [p[1][n] EXCEPT !.state = "posted"]
                                   ELSE p[1][n]]
           /\ tw' = tw
           /\ PostAll([i \in 1..Len(c) |-> NotifCqe(c[i])])
           /\ node' = node \ {<<"notif", n>> : n \in Range(c)}
    ELSE /\ nd' = p[1] /\ tw' = p[2]
         /\ UNCHANGED <<cq, ovf, posted, node>>

\* iou-skip-notif: a request that failed drops its notification unposted.
Dropped(d, r) == [d EXCEPT ![r].ref = 0, ![r].state = "dropped"]

-----------------------------------------------------------------------------
(* The application *)

\* io_uring_get_sqe() + io_uring_prep_send_zc(): an SQE for r, if the SQ
\* has room (iou-sq-overrun: whether or not).
UserSubmit(r) ==
    /\ st[r] = "user" /\ (Len(sq) < SqSize \/ Mutant = "iou-sq-overrun")
    /\ sq' = Append(sq, r)
    /\ st' = [st EXCEPT ![r] = "sq"]
    /\ UNCHANGED <<todo, sent, nd, skb, compl, tw, cq, ovf, posted, reaped, got,
                   reused, node>>

\* io_uring_enter(to_submit): the kernel is to submit up to Batch SQEs.
IoUringEnter ==
    /\ todo = 0 /\ sq # <<>> /\ compl = <<>> /\ ~Issuing
    /\ todo' = Min(Batch, Len(sq))
    /\ UNCHANGED <<sq, st, sent, nd, skb, compl, tw, cq, ovf, posted, reaped, got,
                   reused, node>>

\* Reap the CQ's head (io_uring_cqe_seen).
UserReap ==
    /\ cq # <<>>
    /\ got' = [got EXCEPT ![Head(cq).r] = @ \cup {IF Head(cq).notif THEN "notif" ELSE "cqe"}]
    /\ cq' = Tail(cq)
    /\ reaped' = reaped + 1
    /\ UNCHANGED <<sq, todo, st, sent, nd, skb, compl, tw, ovf, posted, reused, node>>

\* Write into r's buffer again, once the CQE Reuse names is reaped (for a
\* request that failed in prep without a notification, once its CQE is).
UserReuse(r) ==
    /\ ~reused[r]
    /\ \/ Reuse \in got[r]
       \/ "cqe" \in got[r] /\ \A i \in DOMAIN posted : posted[i].r = r => ~posted[i].more
    /\ reused' = [reused EXCEPT ![r] = TRUE]
    /\ UNCHANGED <<sq, todo, st, sent, nd, skb, compl, tw, cq, ovf, posted, reaped,
                   got, node>>

\* IORING_UNREGISTER_BUFFERS: the table drops its reference on the node.
IoUringUnregisterBuffers ==
    /\ Table \in node
    /\ node' = node \ {Table}
    /\ UNCHANGED <<sq, todo, st, sent, nd, skb, compl, tw, cq, ovf, posted, reaped,
                   got, reused>>

-----------------------------------------------------------------------------
(* Submission: io_submit_sqes() -> io_send_zc_prep(), io_send_zc() *)

\* The request CQE of a send that failed in prep or issue
\* (io_sendrecv_fail): F_MORE iff a notification was allocated
\* (REQ_F_NEED_CLEANUP), and io_send_zc_cleanup() flushes it.
\* iou-skip-notif: a failed request drops its notification unposted, and
\* its CQE has no F_MORE.
FailCqe(r, res) ==
    [r |-> r, notif |-> FALSE, res |-> res,
     more |-> nd[r].state # "none" /\ Mutant # "iou-skip-notif"]

\* io_send_zc_prep() for the SQ's head, which io_submit_sqes() then issues
\* (the next SQE waits until this one is issued).
IoSendZcPrep ==
    /\ todo > 0 /\ ~Issuing
    /\ LET r == Head(sq) IN
       /\ sq' = Tail(sq)
       /\ todo' = todo - 1
       /\ \E o \in {"ok"} \cup (Fails \cap {"nomem", "inval"}) :
          CASE o = "nomem" ->
                 \* io_alloc_notif() fails: -ENOMEM, no notification.
                 /\ st' = [st EXCEPT ![r] = "done"]
                 /\ compl' = Append(compl, [r |-> r, notif |-> FALSE, res |-> ENOMEM,
                                              more |-> FALSE])
                 /\ UNCHANGED <<nd, tw, node, cq, ovf, posted>>
            [] o = "inval" \/ (Fixed /\ Table \notin node) ->
                 \* A bad flag (-EINVAL), or a fixed buffer index past the
                 \* table (-EFAULT; always so once it is unregistered):
                 \* the notification was allocated, cleanup flushes it.
                 LET res == IF o = "inval" THEN EINVAL ELSE EFAULT
                     d == [nd EXCEPT ![r] = [state |-> "live", ref |-> 1, head |-> r, next |-> 0]]
                 IN /\ st' = [st EXCEPT ![r] = "done"]
                    /\ IF Mutant = "iou-skip-notif"
                       THEN /\ nd' = Dropped(d, r) /\ tw' = tw
                            /\ UNCHANGED <<cq, ovf, posted, node>>
                       ELSE Release(Put(d, tw, r))
                    /\ compl' = Append(compl, [r |-> r, notif |-> FALSE, res |-> res,
                                                 more |-> Mutant # "iou-skip-notif"])
            [] OTHER ->
                 \* The notification, one reference: the submitter's. A
                 \* fixed buffer's rsrc node is held by the notification
                 \* (io_req_set_rsrc_node(notif)); iou-fixedbuf-life: by
                 \* the request.
                 /\ st' = [st EXCEPT ![r] = "issue"]
                 /\ nd' = [nd EXCEPT ![r] = [state |-> "live", ref |-> 1, head |-> r, next |-> 0]]
                 /\ node' = IF Fixed
                            THEN node \cup {IF Mutant = "iou-fixedbuf-life"
                                            THEN <<"req", r>> ELSE <<"notif", r>>}
                            ELSE node
                 /\ UNCHANGED <<compl, tw, cq, ovf, posted>>
    /\ UNCHANGED <<sent, skb, reaped, got, reused>>

\* Queue u units of r: each goes into a new skb or (Link) onto one that
\* holds another request's notification (io_link_skb: r is linked behind
\* that notification's head, which takes a reference for it, and r goes
\* right after the skb's notification in the head's list; r may be
\* linked once, and a head cannot be linked behind another). The new skb
\* holds a reference on r's notification (net_zcopy_get).
\* Returns <<skb, nd>>.
Linkable(r, k, d) ==
    /\ Link /\ skb[k].uarg # 0 /\ skb[k].uarg # r
    /\ d[r].head = r /\ ~\E n \in Reqs : n # r /\ d[n].head = r /\ d[n].state # "none"
Queue(r, ks, d) ==
    \* ks: for each unit, the skb it goes into
    LET step[i \in 0..Len(ks)] ==
            IF i = 0 THEN <<skb, d>>
            ELSE LET s == step[i - 1][1]
                     dd == step[i - 1][2]
                     k == ks[i]
                 IN IF s[k].uarg = 0 THEN
                        <<[s EXCEPT ![k] = [uarg |-> r, bufs |-> {r}]],
                          [dd EXCEPT ![r].ref = @ + 1]>>
                    ELSE IF s[k].uarg = r THEN
                        <<[s EXCEPT ![k].bufs = @ \cup {r}], dd>>
                    ELSE LET n == s[k].uarg
                             h == dd[n].head
                         IN <<[s EXCEPT ![k].bufs = @ \cup {r}],
                              [dd EXCEPT ![r].head = h, ![r].next = dd[n].next,
                                         ![n].next = r,
                                         ![h].ref = IF Mutant = "iou-link-no-ref"
                                                    THEN @ ELSE @ + 1]>>
    IN step[Len(ks)]

\* The skb choices for u units: a new skb for each, or an existing one r
\* may use (its own, or Linkable).
Choices(r, u) ==
    {ks \in [1..u -> SkbIds] :
        /\ \A i \in 1..u : skb[ks[i]].uarg = 0 =>
               \A j \in 1..u : j # i => ks[j] # ks[i]
        /\ \A i \in 1..u : skb[ks[i]].uarg # 0 =>
               skb[ks[i]].uarg = r \/ Linkable(r, ks[i], nd)
        \* io_link_skb() links r once: one foreign skb, one unit onto it
        /\ Cardinality({i \in 1..u : skb[ks[i]].uarg \notin {0, r}}) <= 1}

\* io_send_zc(): sendmsg with the notification's ubuf_info, then
\* io_notif_flush() puts the submitter's reference, and the request CQE
\* (F_MORE) joins the submission's completions.
IoSendZc(r) ==
    /\ st[r] = "issue"
    /\ \E u \in 0..(ReqLen - sent[r]), o \in {"all", "eagain", "partial", "pipe", "fault"} :
       /\ o = "all" <=> u = ReqLen - sent[r]
       /\ o # "all" => o \in Fails
       /\ o \in {"pipe", "fault"} => u = 0
       \* io_send_zc_import() runs while nothing is sent yet (!zc->done_io)
       /\ o = "fault" => sent[r] = 0
       /\ \E ks \in Choices(r, u) :
          LET q == Queue(r, ks, nd)
              done == sent[r] + u
              res == CASE o = "pipe" -> IF done > 0 THEN done ELSE EPIPE
                       [] o = "fault" -> EFAULT
                       [] o = "partial" /\ Mutant = "iou-res-requested" -> ReqLen
                       [] OTHER -> done
          IN /\ skb' = q[1]
             /\ sent' = [sent EXCEPT ![r] = done]
             /\ IF o = "eagain" THEN
                    \* -EAGAIN (nothing queued, or a partial stream send):
                    \* the request waits on poll, done_io kept.
                    /\ st' = [st EXCEPT ![r] = "retry"]
                    /\ nd' = q[2]
                    /\ UNCHANGED <<compl, tw, cq, ovf, posted, node>>
                ELSE
                    /\ st' = [st EXCEPT ![r] = "done"]
                    /\ compl' = Append(compl,
                           IF res < 0 THEN FailCqe(r, res)
                           ELSE [r |-> r, notif |-> FALSE, res |-> res, more |-> TRUE])
                    /\ IF res < 0 /\ Mutant = "iou-skip-notif" THEN
                           /\ nd' = Dropped(q[2], r) /\ tw' = tw
                           /\ UNCHANGED <<cq, ovf, posted, node>>
                       ELSE LET p == Put(q[2], tw, r)
                            IN Release(IF Mutant = "iou-double-flush" /\ p[1][r].ref > 0
                                       THEN Put(p[1], p[2], r) ELSE p)
    /\ UNCHANGED <<sq, todo, reaped, got, reused>>

\* The poll fires and task work issues r again.
IoPollRetry(r) ==
    /\ st[r] = "retry" /\ todo = 0 /\ ~Issuing /\ compl = <<>>
    /\ st' = [st EXCEPT ![r] = "issue"]
    /\ UNCHANGED <<sq, todo, sent, nd, skb, compl, tw, cq, ovf, posted, reaped, got,
                   reused, node>>

\* The submission's request CQEs are posted (io_submit_flush_completions)
\* once its SQEs are issued; iou-fixedbuf-life: each request drops the
\* rsrc node as it is freed.
IoSubmitFlushCompletions ==
    /\ compl # <<>> /\ todo = 0 /\ ~Issuing
    /\ PostAll(compl)
    /\ compl' = <<>>
    /\ node' = node \ {<<"req", compl[i].r>> : i \in DOMAIN compl}
    /\ UNCHANGED <<sq, todo, st, sent, nd, skb, tw, reaped, got, reused>>

\* Task work (io_notif_tw_complete) posts a notification and those linked
\* behind it, each dropping its rsrc node; it runs after the submission's
\* completions are flushed.
IoRunTaskWork ==
    /\ tw # <<>> /\ compl = <<>> /\ todo = 0 /\ ~Issuing
    /\ LET c == Chain(nd, Head(tw)) IN
       /\ PostAll([i \in 1..Len(c) |-> NotifCqe(c[i])])
       /\ nd' = [n \in Reqs |-> IF n \in Range(c) THEN [nd[n] EXCEPT !.state = "posted"]
                                ELSE nd[n]]
       /\ node' = node \ {<<"notif", n>> : n \in Range(c)}
    /\ tw' = Tail(tw)
    /\ UNCHANGED <<sq, todo, st, sent, skb, compl, reaped, got, reused>>

\* io_cqring_overflow_flush(): the oldest overflowed CQE into the CQ
\* (iou-cq-overrun: whether or not the CQ has room).
IoCqringOverflowFlush ==
    /\ ovf # <<>> /\ (Len(cq) < CqSize \/ Mutant = "iou-cq-overrun")
    /\ cq' = Append(cq, Head(ovf))
    /\ ovf' = Tail(ovf)
    /\ UNCHANGED <<sq, todo, st, sent, nd, skb, compl, tw, posted, reaped, got,
                   reused, node>>

-----------------------------------------------------------------------------
(* The network stack frees an skb, in any order (skb_zcopy_clear) *)

SkbFree(k) ==
    /\ skb[k].uarg # 0
    /\ skb' = [skb EXCEPT ![k] = NoSkb]
    /\ Release(Put(nd, tw, skb[k].uarg))
    /\ UNCHANGED <<sq, todo, st, sent, compl, reaped, got, reused>>

-----------------------------------------------------------------------------
Quiescent ==
    /\ \A r \in Reqs : st[r] \in {"user", "done"}
    /\ sq = <<>> /\ todo = 0 /\ compl = <<>> /\ tw = <<>> /\ ovf = <<>> /\ cq = <<>>
    /\ \A k \in SkbIds : skb[k].uarg = 0

\* Every request issued, every CQE reaped: a finished run stutters.
Done == Quiescent /\ \A r \in Reqs : st[r] = "done" /\ UNCHANGED vars

Next ==
    \/ \E r \in Reqs : UserSubmit(r) \/ UserReuse(r) \/ IoSendZc(r) \/ IoPollRetry(r)
    \/ IoUringEnter \/ UserReap \/ IoUringUnregisterBuffers
    \/ IoSendZcPrep \/ IoSubmitFlushCompletions \/ IoRunTaskWork
    \/ IoCqringOverflowFlush
    \/ \E k \in SkbIds : SkbFree(k)
    \/ Done

Spec == Init /\ [][Next]_vars

-----------------------------------------------------------------------------
(* Properties *)

NotifsOf(r) == Cardinality({i \in DOMAIN posted : posted[i].r = r /\ posted[i].notif})

\* At most one notification per request, and once everything has settled
\* exactly one for every request that allocated one, failed or not.
NotifOnce == \A r \in Reqs : NotifsOf(r) <= 1
NotifForEveryPrep ==
    Quiescent => \A r \in Reqs : NotifsOf(r) = IF nd[r].state = "none" THEN 0 ELSE 1

\* A request CQE has F_MORE exactly when a notification follows it.
MoreMeansNotif ==
    \A i \in DOMAIN posted : ~posted[i].notif =>
        (posted[i].more <=> nd[posted[i].r].state # "none")

\* A notification CQE comes after its request's CQE.
ReqBeforeNotif ==
    \A i \in DOMAIN posted : posted[i].notif =>
        \E j \in 1..(i - 1) : posted[j].r = posted[i].r /\ ~posted[j].notif

\* The request CQE reports the bytes sendmsg queued (a failure with none).
ResIsSent ==
    \A i \in DOMAIN posted : ~posted[i].notif =>
        IF posted[i].res >= 0 THEN posted[i].res = sent[posted[i].r]
        ELSE sent[posted[i].r] = 0

\* The pages of r stay pinned while an skb carries them: r's notification
\* is not posted, a registered buffer's node is not freed, and the
\* application has not written into the buffer.
NotifAfterLastSkb ==
    \A k \in SkbIds : \A r \in skb[k].bufs : nd[r].state \in {"live", "tw"}
FixedBufPinned == Fixed => \A k \in SkbIds : skb[k].uarg # 0 => node # {}
BufferNotReused == \A k \in SkbIds : \A r \in skb[k].bufs : ~reused[r]

\* Every CQE posted is reaped, in the CQ or on the overflow list, in the
\* order it was posted; the CQ holds at most CqSize.
CqeNotLost == SubSeq(posted, reaped + 1, Len(posted)) = cq \o ovf
CqBounded == Len(cq) <= CqSize

\* The application never writes more SQEs than the SQ has entries.
SqBounded == Len(sq) <= SqSize

\* Each notification's reference count is what holds it: its skbs, the
\* submitter until the flush, and one for each request linked behind it
\* that has not completed.
Holders(n) ==
    Cardinality({k \in SkbIds : skb[k].uarg = n})
    + (IF st[n] \in {"issue", "retry"} THEN 1 ELSE 0)
    + Cardinality({m \in Members(nd, n) : nd[m].ref > 0})
RefsAccounted ==
    \A n \in Reqs : nd[n].state = "live" => nd[n].ref = Holders(n)
=============================================================================
