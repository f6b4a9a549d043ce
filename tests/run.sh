#!/usr/bin/env bash
# THE test command of hydromech:  bash tests/run.sh
#
# On a fresh machine (CI: clean clone, nothing cached) it
#   1. installs what is missing, idempotently: libclang (for the `fmi` crate's bindgen),
#      binutils/libc-bin (objdump, nm, readelf, ldd), python3-venv, and for the win64 and
#      ARM64 runtimes Debian's rustc-web/cargo-web/rust-web-src, mingw-w64 and aarch64 gcc,
#      wine and qemu-user; via apt-get, only when missing
#   2. creates .venv and installs the pinned Python requirements (tests/python/requirements.txt:
#      FMPy, ecospy + tbb, pytest, cargo-zigbuild + ziglang: model-compiler/build.rs links the
#      Linux runtimes with them against glibc 2.17), makes ecospy's `ecos` binary executable
#   3. builds every FMU:            cargo run --release --bin hydromech -- build
#      and as FMI 3.0:              hydromech build --fmi 3 -o fmus/fmi3
#      and as Model Exchange:       hydromech build --interface me|both -o fmus/me|both
#                                   hydromech build --fmi 3 --interface me -o fmus/fmi3-me
#      and the supplier package:    hydromech package -o target/package (+ verify --exact)
#      (= `cargo run --release -p model-compiler -- build`, the README's command, but with the
#      features of the whole workspace, so that stage 4 reuses every compiled dependency:
#      `-p` resolves a different feature set and compiles ~30 crates a second time)
#   4. runs every Rust test:        cargo test --workspace --release --no-fail-fast
#   5. checks the FMI ABI header:   bash tests/abi/check_header.sh   (if present; run on the
#      shared library of a generated FMU, with the venv's FMPy headers)
#   6. runs the importer tests:     .venv/bin/python -m pytest tests/python -v
#      (among them tests/python/test_golden.py: every FMU against tests/golden, bit for bit)
#   7. builds the Python wheels (maturin: manylinux2014 x86-64 and AArch64, win_amd64) and
#      runs tests/wheel (against the x86-64 one; the Windows command under wine) in a fresh venv
#      with no Rust toolchain on PATH
# Before building, stage "architecture" checks the source tree: no import cycle between
# files, none over 800 lines of non-test code (tests/tools/module_cycles.py).
# Every stage runs even if an earlier one failed; a summary with per-stage timings is printed
# at the end and the exit code is non-zero if any stage failed.
#
# One cargo profile (release) is used throughout, so dependencies are compiled once.
# Environment: HYDROMECH_SKIP_SETUP=1 skips stages 1-2 (for quick local reruns);
#              PYTEST_ARGS="..." adds arguments to pytest (e.g. "-k protocol").

set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

VENV="$ROOT/.venv"
VPY="$VENV/bin/python"
REQ="$ROOT/tests/python/requirements.txt"
PIP_LIBCLANG="libclang==18.1.1" # fallback only, when apt cannot provide libclang

export DEBIAN_FRONTEND=noninteractive
export PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_NO_INPUT=1
export PYTHONDONTWRITEBYTECODE=1
export CARGO_TERM_PROGRESS_WHEN=never
# The cross-platform tests fail (instead of skipping) when a platform cannot be run here.
export HYDROMECH_CROSS_REQUIRED=1
# wine: a prefix of our own, quiet, no GUI dialogs.
export WINEPREFIX="${WINEPREFIX:-$ROOT/target/wine-prefix}" WINEDEBUG=-all WINEDLLOVERRIDES="mscoree,mshtml="

STAGE_NAMES=()
STAGE_STATUS=()
STAGE_TIMES=()
T_START=$(date +%s.%N)

elapsed() { awk -v a="$1" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }'; }

# run_stage NAME FUNCTION: runs FUNCTION in a subshell with `set -euo pipefail` active (it is
# not called from an `if`/`||` context, where bash would silently disable errexit).
run_stage() {
    local name=$1 fn=$2 t0 rc dt
    echo
    echo "==================== [$name] start $(date +%H:%M:%S) ===================="
    t0=$(date +%s.%N)
    set +e
    (
        set -euo pipefail
        "$fn"
    )
    rc=$?
    set -e
    dt=$(elapsed "$t0")
    STAGE_NAMES+=("$name")
    STAGE_TIMES+=("$dt")
    if [ "$rc" -eq 0 ]; then
        STAGE_STATUS+=("ok")
        echo "==================== [$name] ok in ${dt}s ===================="
    else
        STAGE_STATUS+=("FAILED($rc)")
        echo "==================== [$name] FAILED (exit $rc) after ${dt}s ===================="
    fi
}

skip_stage() {
    STAGE_NAMES+=("$1")
    STAGE_STATUS+=("skipped")
    STAGE_TIMES+=("0.0")
    echo
    echo "==================== [$1] skipped: $2 ===================="
}

# ---------------------------------------------------------------------------------------------
# The C API library that bindgen (clang-sys) dlopens: libclang.so, libclang.so.N, libclang-N.so.
# NOT libclang-cpp.so.N (the C++ library, which fresh images of this machine kind carry alone:
# matching it made earlier versions of this script report "present" and install nothing).
have_system_libclang() {
    local f base
    for f in /usr/lib/llvm-*/lib/libclang* /usr/lib/x86_64-linux-gnu/libclang* \
        /usr/lib/aarch64-linux-gnu/libclang* /usr/lib64/libclang* /usr/local/lib/libclang*; do
        [ -e "$f" ] || continue
        base=${f##*/}
        case "$base" in
        libclang-cpp*) ;;
        libclang.so | libclang.so.* | libclang-[0-9]*.so | libclang-[0-9]*.so.*) return 0 ;;
        esac
    done
    return 1
}

stage_system() {
    local pkgs=()
    if [ -n "${LIBCLANG_PATH:-}" ]; then
        echo "LIBCLANG_PATH=$LIBCLANG_PATH given: not installing libclang"
    elif have_system_libclang; then
        echo "libclang: present"
    else
        pkgs+=(libclang-dev)
    fi
    command -v cc >/dev/null || pkgs+=(gcc)
    for t in objdump nm readelf; do command -v "$t" >/dev/null || { pkgs+=(binutils); break; }; done
    command -v ldd >/dev/null || pkgs+=(libc-bin)
    python3 -c 'import venv, ensurepip' 2>/dev/null || pkgs+=(python3-venv)
    # Cross-platform FMU runtimes (model-compiler/build.rs) and their tests
    # (model-compiler/tests/cross_platform.rs): a Rust toolchain with the std source for
    # -Zbuild-std (rustup's cannot be given std for other targets here), the C cross
    # compilers, and wine / qemu-user to run the win64 and ARM64 binaries.
    [ -x /usr/bin/cargo ] || pkgs+=(cargo-web)
    [ -x /usr/bin/rustc ] || pkgs+=(rustc-web)
    [ -d /usr/lib/rustlib/src/rust/library/std ] || pkgs+=(rust-web-src)
    command -v x86_64-w64-mingw32-gcc >/dev/null || pkgs+=(gcc-mingw-w64-x86-64)
    command -v aarch64-linux-gnu-gcc >/dev/null || pkgs+=(gcc-aarch64-linux-gnu)
    # The C start files the linker needs, not libc.so.6: that one comes with the runtime
    # package libc6-arm64-cross, which stays when the -dev package is gone.
    [ -e /usr/aarch64-linux-gnu/lib/crti.o ] || pkgs+=(libc6-dev-arm64-cross)
    command -v wine >/dev/null || pkgs+=(wine wine64)
    command -v qemu-aarch64 >/dev/null || pkgs+=(qemu-user)
    if [ ${#pkgs[@]} -eq 0 ]; then
        echo "system packages: nothing to install"
        return 0
    fi
    echo "system packages missing: ${pkgs[*]}"
    local SUDO=""
    [ "$(id -u)" -eq 0 ] || SUDO="sudo -n"
    if command -v apt-get >/dev/null && { [ -z "$SUDO" ] || sudo -n true 2>/dev/null; }; then
        $SUDO apt-get update -qq
        $SUDO apt-get install -y -qq --no-install-recommends "${pkgs[@]}"
    else
        echo "cannot apt-get install ${pkgs[*]} (not root / no apt)"
        # libclang alone has a fallback (pip wheel, see stage_python); the rest is fatal
        local rest=() p
        for p in "${pkgs[@]}"; do [ "$p" = libclang-dev ] || rest+=("$p"); done
        [ ${#rest[@]} -eq 0 ]
    fi
}

stage_python() {
    if [ ! -x "$VPY" ] || ! "$VPY" -c 'import sys' 2>/dev/null; then
        echo "creating $VENV"
        python3 -m venv --clear "$VENV"
    fi
    local stamp="$VENV/.hydromech-requirements.sha256" want
    want=$(sha256sum "$REQ" | cut -d' ' -f1)
    if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ] &&
        "$VPY" -c 'import fmpy, pytest, pytest_timeout, numpy' 2>/dev/null; then
        echo "python requirements: up to date"
    else
        "$VPY" -m pip install -q -r "$REQ"
        echo "$want" >"$stamp"
    fi
    if [ -z "${LIBCLANG_PATH:-}" ] && ! have_system_libclang; then
        echo "no system libclang: installing the $PIP_LIBCLANG wheel for bindgen"
        "$VPY" -m pip install -q "$PIP_LIBCLANG"
    fi
    # ecospy's wheel stores its native binaries with mode 0644
    local eco
    eco=$("$VPY" -c 'import importlib.util as u; print(list(u.find_spec("ecospy").submodule_search_locations)[0])')
    chmod +x "$eco/binaries/ecos" "$eco/binaries/proxyfmu"
    LD_LIBRARY_PATH="$VENV/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" "$eco/binaries/ecos" --version
    "$VPY" -m pip freeze | grep -i -E '^(fmpy|ecospy|tbb|pytest|pytest-timeout|numpy|libclang)==' | tr '\n' ' ' || true
    echo
}

# bindgen (fmi-sys) needs libclang: point it at the pip wheel when there is no system one.
configure_libclang() {
    if [ -z "${LIBCLANG_PATH:-}" ] && ! have_system_libclang && [ -x "$VPY" ]; then
        local d
        d=$("$VPY" -c 'import clang, os; print(os.path.join(os.path.dirname(clang.__file__), "native"))' 2>/dev/null || true)
        if [ -n "$d" ] && [ -d "$d" ]; then
            export LIBCLANG_PATH="$d"
            export BINDGEN_EXTRA_CLANG_ARGS="${BINDGEN_EXTRA_CLANG_ARGS:-} -I$(cc -print-file-name=include)"
            echo "using libclang from the pip wheel: LIBCLANG_PATH=$LIBCLANG_PATH"
        fi
    fi
}

stage_build_fmus() {
    # --split base: also the carrier and carried FMUs of every description with [carries]
    # (truck-crane), so that the protocol, validation and ecos suites import them too.
    cargo run --release --bin hydromech -- build --split base
    # --split actuators: seed 002's rod, the Chrono-style crane, the knuckle crane (two
    # motors) and the long-boom crane (a flexible boom) also as mechanics and hydraulics
    # FMUs (+ .ssp), so that every suite imports those too.
    target/release/hydromech build --split actuators models/naya-rod.toml \
        models/hydraulic-crane.toml models/knuckle-crane.toml models/long-boom-crane.toml
    # --estimator: the machines with [estimator] also as estimator FMUs (sensor inputs,
    # σ and innovation outputs), imported by every suite too.
    target/release/hydromech build --estimator models/jaiswal-fourbar.toml models/patu-pvg32.toml
    # The same models as FMI 3.0 Co-Simulation FMUs (tests/python/test_fmi3.py and the Rust
    # importer's import_fmi3.rs compare them with the FMI 2.0 ones bit for bit).
    rm -rf fmus/fmi3
    target/release/hydromech build --fmi 3 -o fmus/fmi3
    # FMI 2.0 Model Exchange (the importer integrates), alone and beside Co-Simulation
    # (tests/python/test_model_exchange.py).
    rm -rf fmus/me fmus/both
    target/release/hydromech build --interface me -o fmus/me
    target/release/hydromech build --interface both -o fmus/both
    rm -rf fmus/fmi3-me
    target/release/hydromech build --fmi 3 --interface me -o fmus/fmi3-me
    echo "FMUs:"
    ls -l fmus/*.fmu fmus/fmi3/*.fmu fmus/me/*.fmu fmus/both/*.fmu fmus/fmi3-me/*.fmu
    # The supplier package (FMI Cross-Check tree) that tests/python/test_crosscheck.py and
    # the Rust importer check, and its own re-run: bit for bit, every platform folder.
    target/release/hydromech package -o target/package
    target/release/hydromech verify --exact target/package
}

CARGO_TEST_LOG="$ROOT/target/cargo-test.log"
stage_cargo_test() {
    mkdir -p "$ROOT/target"
    cargo test --workspace --release --no-fail-fast 2>&1 | tee "$CARGO_TEST_LOG"
}

# The failed tests and their panic messages, for the summary: CI shows the log's tail, and a
# failure 2,000 lines up (stop 65's cargo-test) could not be read there.
failure_digest() {
    [ -f "$CARGO_TEST_LOG" ] || return 0
    echo "cargo-test failures (from $CARGO_TEST_LOG):"
    grep -E "^test .* FAILED$|panicked at|^error(\[|:)" "$CARGO_TEST_LOG" | head -40 | sed 's/^/  /'
    grep -E -A3 "panicked at" "$CARGO_TEST_LOG" | grep -v -E "panicked at|^--$|stack backtrace|^ *[0-9]+: " |
        head -30 | sed 's/^/    /'
}

stage_abi_header() {
    # Check the binary of a generated FMU when there is one (no extra build), else let the
    # script build fmu-runtime in the release profile (never a second, debug, build).
    local fmu lib=""
    fmu=$(ls fmus/*.fmu 2>/dev/null | head -n 1 || true)
    if [ -n "$fmu" ]; then
        local dir="$ROOT/target/abi-check"
        rm -rf "$dir" && mkdir -p "$dir"
        python3 - "$ROOT/$fmu" "$dir" <<'PY'
import sys, zipfile
with zipfile.ZipFile(sys.argv[1]) as z:
    z.extractall(sys.argv[2], [n for n in z.namelist()
                               if n.startswith(("binaries/linux64/", "resources/"))])
PY
        lib=$(ls "$dir"/binaries/linux64/*.so | head -n 1)
        echo "checking the binary of $fmu: $lib"
    fi
    if [ -n "$lib" ]; then
        FMU_LIBRARY="$lib" FMPY_PYTHON="$VPY" PROFILE=release bash tests/abi/check_header.sh
    else
        FMPY_PYTHON="$VPY" PROFILE=release bash tests/abi/check_header.sh
    fi
}

stage_architecture() {
    # No import cycle between source files, no file over 800 lines of non-test code
    # (docs/architecture.md: the layers and what each may import).
    python3 tests/tools/module_cycles.py --max-lines 800 fmu-runtime/src model-compiler/src
}

stage_pytest() {
    # shellcheck disable=SC2086
    "$VPY" -m pytest tests/python -v -p no:cacheprovider -rfEs ${PYTEST_ARGS:-}
}

stage_wheel() {
    # The Python wheel (python/hydromech, issue 55): maturin with zig against glibc 2.17
    # (manylinux2014), embedding the FMU runtimes stage build-fmus built (no second build
    # of them), then installed into a fresh venv whose PATH has no Rust toolchain, where
    # tests/wheel runs against it.
    local runtime="$ROOT/target/hydromech-runtime/x86_64-unknown-linux-gnu/release"
    local cross="$ROOT/target/hydromech-runtime-cross"
    rm -rf "$ROOT/target/wheels"
    export HYDROMECH_RUNTIME_LINUX64="$runtime/libfmu_runtime.so" \
        HYDROMECH_RUNTIME_WIN64="$cross/x86_64-pc-windows-gnu/release/fmu_runtime.dll" \
        HYDROMECH_RUNTIME_AARCH64_LINUX="$cross/aarch64-unknown-linux-gnu/release/libfmu_runtime.so"
    (
        cd python/hydromech
        PATH="$VENV/bin:$PATH" PYO3_PYTHON="$VPY" CARGO_TARGET_DIR="$ROOT/target/wheel-build" \
            "$VENV/bin/maturin" build --release --zig --compatibility manylinux2014 \
            --target x86_64-unknown-linux-gnu -o "$ROOT/target/wheels"
    )
    # AArch64: Debian's cross toolchain, as the FMU runtimes' (model-compiler/build.rs),
    # building its standard library from rust-web-src (no rustup target needed); maturin
    # runs the `cargo` first on PATH.
    local debian="$ROOT/target/debian-cargo"
    mkdir -p "$debian"
    ln -sf /usr/bin/cargo "$debian/cargo"
    ln -sf /usr/bin/rustc "$debian/rustc"
    (
        cd python/hydromech
        PATH="$debian:$VENV/bin:$PATH" RUSTC=/usr/bin/rustc RUSTC_BOOTSTRAP=1 PYO3_PYTHON="$VPY" \
            CARGO_TARGET_DIR="$ROOT/target/wheel-build-aarch64" \
            "$VENV/bin/maturin" build --release --zig --compatibility manylinux2014 \
            --target aarch64-unknown-linux-gnu -Zbuild-std=std,panic_unwind \
            -o "$ROOT/target/wheels"
    )
    # win_amd64: the same toolchain with MinGW's linker; PyO3 writes python3.dll's import
    # library itself (feature generate-import-lib). No Windows Python runs here, so the
    # Windows build of the `hydromech` command (the same library) runs under wine instead.
    local win="x86_64-pc-windows-gnu" winlink=CARGO_TARGET_X86_64_PC_WINDOWS_GNU_LINKER
    (
        cd python/hydromech
        env PATH="$debian:$VENV/bin:$PATH" RUSTC=/usr/bin/rustc RUSTC_BOOTSTRAP=1 \
            PYO3_PYTHON="$VPY" CARGO_TARGET_DIR="$ROOT/target/wheel-build-win64" \
            "$winlink=x86_64-w64-mingw32-gcc" \
            "$VENV/bin/maturin" build --release --target "$win" -Zbuild-std=std,panic_unwind \
            -o "$ROOT/target/wheels"
    )
    env PATH="$debian:$PATH" RUSTC=/usr/bin/rustc RUSTC_BOOTSTRAP=1 \
        CARGO_TARGET_DIR="$ROOT/target/win64-exe" "$winlink=x86_64-w64-mingw32-gcc" \
        /usr/bin/cargo build --release --quiet --target "$win" -Zbuild-std=std,panic_unwind \
        -p model-compiler --bin hydromech
    local wheel wheel_aarch64 wheel_win64 fresh
    wheel="$(ls "$ROOT"/target/wheels/hydromech-*x86_64.whl)"
    wheel_aarch64="$(ls "$ROOT"/target/wheels/hydromech-*aarch64.whl)"
    wheel_win64="$(ls "$ROOT"/target/wheels/hydromech-*win_amd64.whl)"
    fresh="$(mktemp -d)"
    "$VPY" -m venv "$fresh/venv"
    "$fresh/venv/bin/pip" install -q "$wheel" -r tests/wheel/requirements.txt
    env -i HOME="$HOME" LANG=C.UTF-8 PATH="$fresh/venv/bin" HYDROMECH_ROOT="$ROOT" \
        HYDROMECH_WHEEL="$wheel" HYDROMECH_WHEEL_AARCH64="$wheel_aarch64" \
        HYDROMECH_WHEEL_WIN64="$wheel_win64" \
        HYDROMECH_WIN64_EXE="$ROOT/target/win64-exe/$win/release/hydromech.exe" \
        WINEPREFIX="$WINEPREFIX" WINEDEBUG="$WINEDEBUG" WINEDLLOVERRIDES="$WINEDLLOVERRIDES" \
        "$fresh/venv/bin/python" -m pytest tests/wheel -v -p no:cacheprovider -rfEs
    rm -rf "$fresh"
}

# ---------------------------------------------------------------------------------------------
echo "hydromech tests/run.sh in $ROOT (CI=${CI:-})"
echo "$(cargo --version) | $(rustc --version) | $(python3 --version 2>&1) | $(nproc) cores"

if [ -n "${HYDROMECH_SKIP_SETUP:-}" ]; then
    skip_stage setup-system "HYDROMECH_SKIP_SETUP set"
    skip_stage setup-python "HYDROMECH_SKIP_SETUP set"
else
    run_stage setup-system stage_system
    run_stage setup-python stage_python
fi
configure_libclang
run_stage architecture stage_architecture
run_stage build-fmus stage_build_fmus
run_stage cargo-test stage_cargo_test
if [ -f tests/abi/check_header.sh ]; then
    run_stage abi-header stage_abi_header
else
    skip_stage abi-header "tests/abi/check_header.sh not present"
fi
run_stage pytest stage_pytest
run_stage wheel stage_wheel

# ---------------------------------------------------------------------------------------------
echo
echo "==================== hydromech test summary ===================="
failed=()
n_ok=0
n_skip=0
for i in "${!STAGE_NAMES[@]}"; do
    printf '  %-14s %-12s %8ss\n' "${STAGE_NAMES[$i]}" "${STAGE_STATUS[$i]}" "${STAGE_TIMES[$i]}"
    case "${STAGE_STATUS[$i]}" in
    ok) n_ok=$((n_ok + 1)) ;;
    skipped) n_skip=$((n_skip + 1)) ;;
    *) failed+=("${STAGE_NAMES[$i]}") ;;
    esac
done
total=$(elapsed "$T_START")
if [ ${#failed[@]} -eq 0 ]; then
    echo "tests/run.sh: PASS - all stages ok ($n_ok ok, $n_skip skipped) in ${total}s"
    exit 0
else
    case " ${failed[*]} " in *" cargo-test "*) failure_digest ;; esac
    echo "tests/run.sh: FAIL - failed stages: ${failed[*]} ($n_ok ok, $n_skip skipped) in ${total}s"
    exit 1
fi
