//! `ringlab bench napi-cache`: what the tun NAPI-cache series saves, as
//! the NapiSkbCache model counts it. Seeded walks of the model at the
//! kernel's sizes (napi_cache_walk.rs) on each Path count slab calls,
//! cache hits, IPIs and defer-list flushes per skb; the seed's measured
//! throughput is printed beside them. A count of calls, not a timing: it
//! says where the series' gain comes from, not how large it is here.

use clap::Args;
use ringlab_model::napi_cache::Path;
use ringlab_model::schema::Header;

use super::napi_cache_walk::{walk, WalkCost};

/// The seed's figures: vhost-net -> tun, Gbit/s, before and after.
const SEED_BEFORE: f64 = 6.08;
const SEED_AFTER: f64 = 6.36;

#[derive(Args, Debug)]
pub struct NapiCacheArgs {
    /// Frames each Path's walk sends
    #[arg(long, default_value_t = 200_000)]
    pub frames: u32,
    /// Frames per tun_sendmsg() (VHOST_NET_BATCH is 64)
    #[arg(long, default_value_t = 64)]
    pub batch: u32,
    /// The walks' seed (each Path's walk draws from it)
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Print one JSON document on stdout instead of the table
    #[arg(long)]
    pub json: bool,
}

#[derive(serde::Serialize)]
struct Doc<'a> {
    header: Header,
    seed: u64,
    walks: &'a [WalkCost],
    seed_gbits: [f64; 2],
}

fn per_skb(n: u64, c: &WalkCost) -> f64 {
    n as f64 / f64::from(c.rcvd.max(1))
}

pub fn run(a: &NapiCacheArgs) -> Result<bool, String> {
    if a.frames == 0 {
        return Err("--frames 0: a walk needs frames to send".into());
    }
    if a.batch == 0 || a.batch > 64 {
        return Err(format!("--batch {}: a batch is 1..64 frames (the walk's cache holds 64 heads)", a.batch));
    }
    let walks: Vec<WalkCost> = Path::ALL.iter().map(|&p| walk(p, a.frames, a.batch, a.seed)).collect();
    if a.json {
        let doc = Doc { header: Header::new("bench napi-cache"), seed: a.seed, walks: &walks, seed_gbits: [SEED_BEFORE, SEED_AFTER] };
        println!("{}", serde_json::to_string_pretty(&doc).map_err(|e| e.to_string())?);
        return Ok(true);
    }
    println!(
        "NapiSkbCache walk: CPU 1 sends vhost-net batches through tun, a socket on CPU 2 frees with skb_attempt_defer_free (seed {}, {} frames per Path; CacheSize 64, Bulk 16, DeferMax 64, Batch {})",
        a.seed, a.frames, a.batch
    );
    println!();
    println!(
        "{:<6} {:>8} {:>7} {:>11} {:>9} {:>9} {:>9} {:>9} {:>11} {:>9} {:>11}",
        "path", "skbs", "drops", "slab/skb", "alloc", "alloc_blk", "free", "free_blk", "hits/skb", "IPIs", "flushes"
    );
    for c in &walks {
        let k = &c.costs;
        println!(
            "{:<6} {:>8} {:>7} {:>11.4} {:>9} {:>9} {:>9} {:>9} {:>11.4} {:>9} {:>11}",
            c.path,
            c.rcvd,
            c.dropped,
            per_skb(k.slab_calls(), c),
            k.slab_alloc,
            k.slab_alloc_bulk,
            k.slab_free,
            k.slab_free_bulk,
            per_skb(k.cache_hits, c),
            k.kicks,
            k.defer_flushes
        );
    }
    let by = |p: &str| walks.iter().find(|c| c.path == p).unwrap();
    let (slab, bulk, flush) = (by("slab"), by("bulk"), by("flush"));
    let calls = |c: &WalkCost| per_skb(c.costs.slab_calls(), c);
    println!();
    println!(
        "seed (vhost-net -> tun, 6.12 vs the series): {SEED_BEFORE:.2} -> {SEED_AFTER:.2} Gbit/s ({:+.1}%)",
        (SEED_AFTER / SEED_BEFORE - 1.0) * 100.0
    );
    let ipis = |c: &WalkCost| per_skb(c.costs.kicks, c) * 1000.0;
    println!(
        "the counters: slab calls per skb {:.3} (slab) -> {:.3} (bulk) -> {:.3} (flush), {:.1}x fewer with the series; \
         cache hits per skb {:.3} (bulk) -> {:.3} (flush); IPIs per 1000 skbs {:.1} (bulk) -> {:.1} (flush).",
        calls(slab),
        calls(bulk),
        calls(flush),
        calls(slab) / calls(flush).max(f64::MIN_POSITIVE),
        per_skb(bulk.costs.cache_hits, bulk),
        per_skb(flush.costs.cache_hits, flush),
        ipis(bulk),
        ipis(flush)
    );
    println!(
        "They predict the gain: the batch's heads come from the NAPI cache in a bulk call per refill instead of a \
         kmem_cache_alloc() per frame, and flushing the defer list first refills the cache with the heads CPU 2 freed. \
         {}",
        if a.batch * 2 <= 64 {
            "With a batch below half of DeferMax the list is flushed before it reaches the IPI threshold, so flush-first sends no IPI where bulk does."
        } else {
            "With batches of 64 the frees of one batch still reach half of DeferMax between two flushes: flush-first saves few IPIs here (--batch 16 shows the case it removes them)."
        }
    );
    Ok(true)
}
