//! Compiles c/xsk_ring_peer.c, the ring bench's libxdp peer, when libxdp's
//! <xdp/xsk.h> is installed (Debian's libxdp-dev, which brings libbpf-dev's
//! <bpf/libbpf.h> that it includes), and then sets `cfg(libxdp_ring)`.
//! Without it the crate still builds and the bench says the peer was
//! skipped and which package would give it.

use std::path::Path;

const SOURCE: &str = "c/xsk_ring_peer.c";
const HEADER_DIRS: [&str; 2] = ["/usr/include", "/usr/local/include"];

fn main() {
    println!("cargo::rustc-check-cfg=cfg(libxdp_ring)");
    println!("cargo::rerun-if-changed=build.rs");
    println!("cargo::rerun-if-changed={SOURCE}");
    // Watched only where it is: a missing path would rebuild every time.
    let Some(header) = HEADER_DIRS.iter().map(|d| Path::new(d).join("xdp/xsk.h")).find(|h| h.is_file()) else {
        skip("no <xdp/xsk.h> when ringlab was built (install Debian's libxdp-dev, as scripts/deps.sh does, and rebuild)");
        return;
    };
    println!("cargo::rerun-if-changed={}", header.display());
    // The system's libbpf headers, not libbpf-sys's vendored ones: libxdp
    // was built against them, and libxdp-dev depends on libbpf-dev.
    match cc::Build::new().file(SOURCE).warnings(true).try_compile("xsk_ring_peer") {
        Ok(()) => println!("cargo::rustc-cfg=libxdp_ring"),
        Err(e) => {
            let why = format!("{SOURCE} did not compile against {}: {e}", header.display()).replace('\n', " ");
            println!("cargo::warning=the ring bench's libxdp peer is not built: {why}");
            skip(&why);
        }
    }
}

/// Hands the bench the reason it prints in its SKIP line.
fn skip(why: &str) {
    println!("cargo::rustc-env=RINGLAB_XSK_PEER_SKIP={why}");
}
