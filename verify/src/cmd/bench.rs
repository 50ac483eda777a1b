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
}

pub fn run(a: &BenchCmd) -> Result<bool, String> {
    match &a.sub {
        Some(BenchSub::Iouring(i)) => ringlab_bench::iouring::run(i),
        Some(BenchSub::Diff(d)) => ringlab_bench::diff_rate::run(d),
        Some(BenchSub::NapiCache(n)) => ringlab_bench::napi_cache::run(n),
        None => ringlab_bench::run(&a.all),
    }
}
