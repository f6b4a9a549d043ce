#!/usr/bin/env bash
# ABI check of the FMI 2.0 functions exported by fmu-runtime.
#
#  1. cbindgen generates target/include/hydromech_fmi2.h (our 44 function declarations, in
#     terms of the standard FMI types) and target/include/hydromech_fmi2_types.h (our Rust
#     types, prefixed hm_).
#  2. gcc -Werror compiles tests/abi/signature_check.c against FMPy's copy of the standard
#     headers: every function is assigned to a pointer of its standard fmi2XxxTYPE, declared
#     a second time through fmi2Functions.h, and the type layouts are compared.
#  3. nm -D checks that the shared library exports all 44 functions.
#  4. The check program, linked against the library, makes a few real calls (variadic C
#     logger included).
#
# Usage: tests/abi/check_header.sh
# Environment (all optional):
#   PROFILE=debug|release   cargo profile to build and check (default debug)
#   FMU_LIBRARY=path.so     check this library instead of building fmu-runtime (e.g. the
#                           binary of a generated FMU); steps 3 and 4 then use it
#   FMI2_HEADERS=dir        directory with fmi2Functions.h (default: found in the fmpy package)
#   FMPY_PYTHON=python      interpreter that has fmpy installed
#   FMPY_VENV=dir           where to create a venv with fmpy if none is found
#                           (default /tmp/fmpyvenv)
#   CBINDGEN=path           cbindgen binary (default: PATH, ~/.cargo/bin, else cargo install)
# Exit status: 0 if every check passed, 1 otherwise.

set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
HERE="$ROOT/tests/abi"
PROFILE="${PROFILE:-debug}"
TARGET_DIR="${CARGO_TARGET_DIR:-$ROOT/target}"
OUT="$TARGET_DIR/include"
CBINDGEN_VERSION="0.29.4"
FMPY_VERSION="0.3.32"
EXPECTED=44

fail() { echo "check_header: FAIL: $*" >&2; exit 1; }
step() { echo; echo "== $*"; }

mkdir -p "$OUT"

# ---- tools ------------------------------------------------------------------------------
step "tools"
CBINDGEN="${CBINDGEN:-$(command -v cbindgen || true)}"
if [[ -z "$CBINDGEN" && -x "$HOME/.cargo/bin/cbindgen" ]]; then CBINDGEN="$HOME/.cargo/bin/cbindgen"; fi
if [[ -z "$CBINDGEN" ]]; then
    echo "cbindgen not found: cargo install cbindgen --version $CBINDGEN_VERSION --locked"
    cargo install cbindgen --version "$CBINDGEN_VERSION" --locked
    CBINDGEN="$HOME/.cargo/bin/cbindgen"
fi
echo "cbindgen: $CBINDGEN ($("$CBINDGEN" --version))"
command -v gcc >/dev/null || fail "gcc not found"
command -v nm >/dev/null || fail "nm not found (binutils)"

find_headers() {
    local py dir
    for py in "${FMPY_PYTHON:-}" "$ROOT/.venv/bin/python" "${FMPY_VENV:-/tmp/fmpyvenv}/bin/python" python3; do
        [[ -n "$py" ]] && command -v "$py" >/dev/null 2>&1 || continue
        dir="$("$py" -c 'import fmpy, os; print(os.path.dirname(fmpy.__file__))' 2>/dev/null)" || continue
        dir="$(dirname "$(find "$dir" -name fmi2Functions.h -print -quit)")"
        [[ -f "$dir/fmi2Functions.h" ]] && { echo "$dir"; return 0; }
    done
    return 1
}
if [[ -z "${FMI2_HEADERS:-}" ]]; then
    if ! FMI2_HEADERS="$(find_headers)"; then
        venv="${FMPY_VENV:-/tmp/fmpyvenv}"
        echo "fmpy not found: creating $venv with fmpy==$FMPY_VERSION"
        python3 -m venv "$venv"
        "$venv/bin/pip" install --quiet "fmpy==$FMPY_VERSION"
        FMI2_HEADERS="$(FMPY_PYTHON="$venv/bin/python" find_headers)" || fail "no fmi2Functions.h in fmpy"
    fi
fi
for h in fmi2Functions.h fmi2FunctionTypes.h fmi2TypesPlatform.h; do
    [[ -f "$FMI2_HEADERS/$h" ]] || fail "$FMI2_HEADERS/$h is missing"
done
echo "standard headers: $FMI2_HEADERS"

# The authoritative list of names: the fmi2FullName macros of the standard header.
mapfile -t NAMES < <(sed -n 's/^#define \(fmi2[A-Za-z]*\)[[:space:]]*fmi2FullName(.*/\1/p' "$FMI2_HEADERS/fmi2Functions.h")
[[ ${#NAMES[@]} -eq $EXPECTED ]] || fail "expected $EXPECTED function names in fmi2Functions.h, found ${#NAMES[@]}"
echo "functions required by fmi2Functions.h: ${#NAMES[@]}"

# ---- 1. headers -------------------------------------------------------------------------
step "1. cbindgen"
HEADER="$OUT/hydromech_fmi2.h"
TYPES_HEADER="$OUT/hydromech_fmi2_types.h"
# cbindgen warns about every type it does not emit (on purpose, see cbindgen.toml): keep
# its output for failures only.
( cd "$ROOT" && "$CBINDGEN" --config fmu-runtime/cbindgen.toml --crate fmu-runtime -o "$HEADER" ) \
    >"$OUT/cbindgen.log" 2>&1 || { cat "$OUT/cbindgen.log"; fail "cbindgen (functions) failed"; }
"$CBINDGEN" --config "$HERE/cbindgen-types.toml" -o "$TYPES_HEADER" "$ROOT/fmu-runtime/src/fmi2/types.rs" \
    >>"$OUT/cbindgen.log" 2>&1 || { cat "$OUT/cbindgen.log"; fail "cbindgen (types) failed"; }
echo "wrote $HEADER"
echo "wrote $TYPES_HEADER"

declared=0
for n in "${NAMES[@]}"; do
    grep -Eq "^[A-Za-z0-9_ *]*[ *]$n\(" "$HEADER" || fail "$n is not declared in $HEADER (not exported by fmu-runtime?)"
    grep -q "^CHECK($n)$" "$HERE/signature_check.c" || fail "signature_check.c does not check $n"
    declared=$((declared + 1))
done
total="$(grep -Ec '^[A-Za-z0-9_ *]*[ *](fmi2|hydromech)[A-Za-z0-9_]*\(' "$HEADER" || true)"
echo "declared in the generated header: $declared of ${#NAMES[@]} ($total function declarations in total)"
[[ "$total" -eq $EXPECTED ]] || fail "the generated header declares $total functions, expected $EXPECTED"

# ---- 2. compile against the standard headers -------------------------------------------
step "2. gcc -Werror against the standard fmi2FunctionTypes.h / fmi2Functions.h"
CFLAGS=(-std=c11 -Wall -Wextra -pedantic -Werror -I"$OUT" -I"$FMI2_HEADERS")
gcc "${CFLAGS[@]}" -DHM_WITH_STANDARD_DECLARATIONS -fsyntax-only "$HERE/signature_check.c" \
    || fail "signature_check.c does not compile together with fmi2Functions.h (see above)"
echo "ok: all $EXPECTED declarations are compatible with fmi2Functions.h"
gcc "${CFLAGS[@]}" -c "$HERE/signature_check.c" -o "$OUT/signature_check.o" \
    || fail "a signature or type layout differs from the standard (see above)"
echo "ok: every function matches its fmi2XxxTYPE; type sizes, offsets and enum values match"

# ---- 3. exported symbols ----------------------------------------------------------------
step "3. nm -D: exported symbols"
if [[ -n "${FMU_LIBRARY:-}" ]]; then
    LIB="$(cd "$(dirname "$FMU_LIBRARY")" && pwd)/$(basename "$FMU_LIBRARY")"
else
    flags=(-p fmu-runtime)
    [[ "$PROFILE" == release ]] && flags+=(--release)
    ( cd "$ROOT" && cargo build --quiet "${flags[@]}" ) || fail "cargo build ${flags[*]} failed"
    LIB="$TARGET_DIR/$PROFILE/libfmu_runtime.so"
fi
[[ -f "$LIB" ]] || fail "$LIB does not exist"
echo "library: $LIB"
exported="$(nm -D --defined-only "$LIB" | awk '$2 == "T" { print $3 }')"
missing=()
for n in "${NAMES[@]}"; do
    grep -qx "$n" <<<"$exported" || missing+=("$n")
done
[[ ${#missing[@]} -eq 0 ]] || fail "not exported by $LIB: ${missing[*]}"
echo "ok: all ${#NAMES[@]} functions are exported (T)"
others="$(grep -vx -F -f <(printf '%s\n' "${NAMES[@]}") <<<"$exported" || true)"
echo "other exported text symbols: $(wc -w <<<"$others")${others:+ ($(tr '\n' ' ' <<<"$others"))}"

# ---- 4. link and call -------------------------------------------------------------------
step "4. calls through the C ABI"
gcc "$OUT/signature_check.o" "$LIB" -Wl,-rpath,"$(dirname "$LIB")" -o "$OUT/signature_check" \
    || fail "linking signature_check against $LIB failed"
"$OUT/signature_check" || fail "runtime calls through the C ABI failed"

echo
echo "check_header: OK ($EXPECTED functions: declarations, types, exports and calls checked)"
