//! Compiles bpf/xsk_redirect.bpf.c with clang for the BPF target, against
//! the headers of the libbpf that loads it (libbpf-sys's vendored copy).

use std::path::PathBuf;
use std::process::Command;

fn main() {
    let src = "bpf/xsk_redirect.bpf.c";
    println!("cargo:rerun-if-changed={src}");
    let out = PathBuf::from(std::env::var("OUT_DIR").unwrap()).join("xsk_redirect.bpf.o");
    let clang = std::env::var("CLANG").unwrap_or_else(|_| "clang".into());
    // <bpf/bpf_helpers.h>, installed by libbpf-sys's build.
    let libbpf = std::env::var("DEP_BPF_INCLUDE").expect("libbpf-sys sets DEP_BPF_INCLUDE");
    // <asm/types.h> lives under the multiarch include folder on Debian.
    let multiarch = format!("/usr/include/{}-linux-gnu", std::env::consts::ARCH);
    let status = Command::new(&clang)
        .args(["-O2", "-g", "-target", "bpf", "-Wall", "-Werror"])
        .arg(format!("-I{libbpf}"))
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
