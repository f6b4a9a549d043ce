//! The page's "Platforms and loading" section: what the binaries need of the system
//! they load on, and how many instances may share a process.

use super::html::Doc;

/// The glibc the Linux runtimes were linked against (`model-compiler/build.rs`: "2.17"
/// when zig linked them, empty when the build machine's `cc` did).
const GLIBC: &str = env!("HYDROMECH_GLIBC_BASELINE");

pub(super) fn section(d: &mut Doc) {
    d.h2("Platforms and loading");
    let linux = if GLIBC.is_empty() {
        "The Linux binaries (<code>linux64</code>, <code>aarch64-linux</code>) were linked against the glibc of the machine that built hydromech: they need that glibc or a newer one.".to_string()
    } else {
        format!(
            "The Linux binaries (<code>linux64</code>, <code>aarch64-linux</code>) need glibc {GLIBC} or newer (the manylinux2014 baseline: RHEL/CentOS 7 and later, Ubuntu 14.04 and later, SLES 12 and later) and nothing but the system's libc, libdl and libpthread and its dynamic loader."
        )
    };
    d.out.push_str(&format!(
        "<p>{linux} The <code>win64</code> DLL imports only Windows system DLLs.</p>\n"
    ));
    d.out.push_str(
        "<p>Any number of instances of this FMU, and of other hydromech FMUs, may live in one process, each called from its own thread (one call at a time per instance, as FMI requires): an instance keeps everything it changes in its own data and the binary has no global mutable state, so an instance's results are bit for bit those of the same instance alone (tested with 64 instances of 8 FMUs on 2 threads). <code>canBeInstantiatedOnlyOncePerProcess</code> is false.</p>\n",
    );
}
