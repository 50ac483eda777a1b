//! `ringlab`: one program for all of it. Exit status: 0 all as expected,
//! 1 something fell short, 2 bad usage or input.

use std::process::ExitCode;

use clap::{Parser, Subcommand};

use ringlab::cmd::{bench, check, diff, faults, kernel_test, mutants, mutate, probe, prove, report, repro, sim, verify};

#[derive(Parser)]
#[command(
    name = "ringlab",
    version,
    about = "Model checking, proofs, simulation and differential testing of the kernel's packet-ring protocols",
    after_help = concat!("The two commands (from a checkout; Debian 12, as root; they install what they need):\n", include_str!("../../docs/src/two-commands.txt"))
)]
struct Cli {
    #[command(subcommand)]
    cmd: Cmd,
}

#[derive(Subcommand)]
enum Cmd {
    /// Run TLC on models of specs/manifest.json; each must meet its expected outcome
    Check(check::CheckArgs),
    /// Run the Z3 proofs of the ring index and counter arithmetic
    Prove(prove::ProveArgs),
    /// Re-introduce each known bug and report which checks kill it
    Mutants(mutants::MutantArgs),
    /// The automatic mutation campaign: every spec mutated (and the crates, with cargo-mutants); score and survivors
    Mutate(mutate::MutateArgs),
    /// All of the above and the live-kernel diff, with one summary (or one JSON document), then the report
    Verify(verify::VerifyArgs),
    /// The last verify run as a static HTML site; SVG figures of the counterexamples
    Report(report::ReportArgs),
    /// The simulator: `ring`, `copy-tx` (the default) or `devmem`, seeded or on threads; `replay` of a trace
    Sim(sim::SimArgs),
    /// Differential testing: the AF_XDP copy-mode model against the running kernel
    Diff(diff::DiffArgs),
    /// Fault injection into sendto on the running kernel: every frame completed once, no slot leaked
    Faults(faults::FaultArgs),
    /// What the running kernel offers ringlab, as JSON
    Probe,
    /// Reproducers of kernel bugs ringlab found, held against the fix (they may crash the kernel: VM only)
    Repro(repro::ReproArgs),
    /// Performance, as ratios to peers measured in the same run: ring, simulator, TLC, live datapath; `iouring`: zero-copy send
    Bench(bench::BenchCmd),
    /// A kernel patch series against 6.12.117: checkpatch, W=1, then built, booted in qemu and tested against the model
    KernelTest(ringlab_kernel::kernel_test::KernelTestArgs),
    /// vhost-net TX through a tap with XDP_PASS, frames conserved (kernel-test's tun workload, in its guest)
    #[command(hide = true)]
    TunVhost(ringlab_kernel::tun_vhost::TunVhostArgs),
    /// A devmem TCP receiver (udmabuf bound to a netdevsim RX queue) held step by step against the DevmemTokens model (kernel-test's devmem workload; needs the VM kernel's test device)
    Devmem(ringlab_kernel::devmem::run::DevmemArgs),
}

fn main() -> ExitCode {
    // `ringlab ... | head`: stop quietly when the reader goes away.
    // Safety: restoring the default action of a signal before any thread runs.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
    let cli = Cli::parse();
    let done = match cli.cmd {
        Cmd::Check(a) => check::run(&a),
        Cmd::Prove(a) => prove::run(&a),
        Cmd::Mutants(a) => mutants::run(&a),
        Cmd::Mutate(a) => mutate::run(&a),
        Cmd::Verify(a) => verify::run(&a),
        Cmd::Report(a) => report::run(&a),
        Cmd::Sim(a) => sim::run(&a),
        Cmd::Diff(a) => diff::run(&a),
        Cmd::Faults(a) => faults::run(&a),
        Cmd::Probe => probe::run(),
        Cmd::Repro(a) => repro::run(&a),
        Cmd::Bench(a) => bench::run(&a),
        Cmd::KernelTest(a) => kernel_test::run(&a),
        Cmd::TunVhost(a) => ringlab_kernel::tun_vhost::main(&a),
        Cmd::Devmem(a) => ringlab_kernel::devmem::run::main(&a),
    };
    match done {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::FAILURE,
        Err(e) => {
            eprintln!("ringlab: {e}");
            ExitCode::from(2)
        }
    }
}
