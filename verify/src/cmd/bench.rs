//! `ringlab bench`: the benchmarks of ringlab-bench measured side by side
//! (`--only` picks some), or one experiment of its own as a subcommand.

use clap::{Args, Subcommand};

#[derive(Args)]
#[command(args_conflicts_with_subcommands = true)]
pub struct BenchCmd {
    #[command(subcommand)]
    pub sub: Option<BenchSub>,
    #[command(flatten)]
    pub all: ringlab_bench::BenchArgs,
}

#[derive(Subcommand)]
pub enum BenchSub {
    /// Seed 003's experiment: io_uring SEND_ZC against send(2), MSG_ZEROCOPY and IORING_OP_SEND, UDP over veth (root)
    Iouring(ringlab_bench::iouring::IouringArgs),
    /// The tun NAPI-cache series' costs as NapiSkbCache's model counts them: slab calls, cache hits, IPIs, defer flushes per Path
    NapiCache(ringlab_bench::napi_cache::NapiCacheArgs),
    /// The live diff's scenarios/s, CPU and bind waits: one veth pair against lanes (root)
    Diff(ringlab_bench::diff_rate::DiffRateArgs),
    /// A kernel series' copy-mode TX cost in qemu TCG: guest instructions a packet, released vs patched kernel (root)
    Series(ringlab_bench::series::SeriesArgs),
    /// The guest side of `series`: exactly N frames a case between instruction-count markers
    #[command(hide = true)]
    SeriesGuest(ringlab_bench::series_guest::SeriesGuestArgs),
}

pub fn run(a: &BenchCmd) -> Result<bool, String> {
    match &a.sub {
        Some(BenchSub::Iouring(i)) => ringlab_bench::iouring::run(i),
        Some(BenchSub::Diff(d)) => ringlab_bench::diff_rate::run(d),
        Some(BenchSub::NapiCache(n)) => ringlab_bench::napi_cache::run(n),
        Some(BenchSub::Series(s)) => ringlab_bench::series::run(s),
        Some(BenchSub::SeriesGuest(g)) => ringlab_bench::series_guest::run(g),
        None => ringlab_bench::run(&a.all),
    }
}
