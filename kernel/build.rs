//! Compiles bpf/xsk_redirect.bpf.c with clang for the BPF target, against
//! the headers of the libbpf that loads it (libbpf-sys's vendored copy):
//! once calling bpf_redirect_map(), once (-DRINGLAB_REDIRECT_XSK) calling
//! bpf_redirect_xsk().

use std::path::PathBuf;
use std::process::Command;

fn main() {
    let src = "bpf/xsk_redirect.bpf.c";
    println!("cargo:rerun-if-changed={src}");
    let out_dir = PathBuf::from(std::env::var("OUT_DIR").unwrap());
    for (obj, env, defs) in [
        ("xsk_redirect.bpf.o", "RINGLAB_XDP_OBJ", &[][..]),
        ("xsk_redirect_xsk.bpf.o", "RINGLAB_XDP_XSK_OBJ", &["-DRINGLAB_REDIRECT_XSK"][..]),
    ] {
        let out = out_dir.join(obj);
        compile(src, defs, &out);
        println!("cargo:rustc-env={env}={}", out.display());
    }
}

fn compile(src: &str, defs: &[&str], out: &PathBuf) {
    let clang = std::env::var("CLANG").unwrap_or_else(|_| "clang".into());
    // <bpf/bpf_helpers.h>, installed by libbpf-sys's build.
    let libbpf = std::env::var("DEP_BPF_INCLUDE").expect("libbpf-sys sets DEP_BPF_INCLUDE");
    // <asm/types.h> lives under the multiarch include folder on Debian.
    let multiarch = format!("/usr/include/{}-linux-gnu", std::env::consts::ARCH);
    let status = Command::new(&clang)
        .args(["-O2", "-g", "-target", "bpf", "-Wall", "-Werror"])
        .args(defs)
        .arg(format!("-I{libbpf}"))
        .arg(format!("-I{multiarch}"))
        .args(["-c", src, "-o"])
        .arg(out)
        .status();
    match status {
        Ok(s) if s.success() => {}
        Ok(s) => panic!("ringlab-kernel: `{clang}` failed to compile {src} {} ({s})", defs.join(" ")),
        Err(e) => panic!(
            "ringlab-kernel: cannot run `{clang}` ({e}): the XDP program needs clang \
             (Debian: apt install clang llvm, or run scripts/deps.sh)"
        ),
    }
}
