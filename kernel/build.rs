//! Compiles bpf/xsk_redirect.bpf.c with clang for the BPF target and links
//! the system libbpf, which loads it.

use std::path::PathBuf;
use std::process::Command;

fn main() {
    let src = "bpf/xsk_redirect.bpf.c";
    println!("cargo:rerun-if-changed={src}");
    println!("cargo:rustc-link-lib=bpf");
    let out = PathBuf::from(std::env::var("OUT_DIR").unwrap()).join("xsk_redirect.bpf.o");
    let clang = std::env::var("CLANG").unwrap_or_else(|_| "clang".into());
    // <asm/types.h> lives under the multiarch include folder on Debian.
    let multiarch = format!("/usr/include/{}-linux-gnu", std::env::consts::ARCH);
    let status = Command::new(&clang)
        .args(["-O2", "-g", "-target", "bpf", "-Wall", "-Werror"])
        .arg(format!("-I{multiarch}"))
        .args(["-c", src, "-o"])
        .arg(&out)
        .status();
    match status {
        Ok(s) if s.success() => {}
        Ok(s) => panic!("ringlab-kernel: `{clang}` failed to compile {src} ({s})"),
        Err(e) => panic!(
            "ringlab-kernel: cannot run `{clang}` ({e}): the XDP program needs clang \
             (Debian: apt install clang llvm, or run scripts/deps.sh)"
        ),
    }
    println!("cargo:rustc-env=RINGLAB_XDP_OBJ={}", out.display());
}
