#!/usr/bin/env bash
# ABI check of the FMI 2.0 and FMI 3.0 functions exported by fmu-runtime.
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
#  5. The same for FMI 3.0: the 75 functions of fmi3Functions.h against fmi3XxxTYPE
#     (tests/abi/signature_check3.c, types from tests/abi/cbindgen-types3.toml), exported,
#     and called.
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
others="$(grep -v "^fmi3" <<<"$exported" | grep -vx -F -f <(printf '%s\n' "${NAMES[@]}") || true)"
echo "other exported text symbols: $(wc -w <<<"$others")${others:+ ($(tr '\n' ' ' <<<"$others"))}"

# ---- 4. link and call -------------------------------------------------------------------
step "4. calls through the C ABI"
gcc "$OUT/signature_check.o" "$LIB" -Wl,-rpath,"$(dirname "$LIB")" -o "$OUT/signature_check" \
    || fail "linking signature_check against $LIB failed"
"$OUT/signature_check" || fail "runtime calls through the C ABI failed"

# ---- 5. FMI 3.0 -------------------------------------------------------------------------
step "5. FMI 3.0: gcc -Werror against fmi3FunctionTypes.h / fmi3Functions.h, exports, calls"
EXPECTED3=75
for h in fmi3Functions.h fmi3FunctionTypes.h fmi3PlatformTypes.h; do
    [[ -f "$FMI2_HEADERS/$h" ]] || fail "$FMI2_HEADERS/$h is missing"
done
mapfile -t NAMES3 < <(sed -n 's/^FMI3_Export fmi3[A-Za-z0-9]*TYPE[[:space:]]*\(fmi3[A-Za-z0-9]*\);.*/\1/p' "$FMI2_HEADERS/fmi3Functions.h")
[[ ${#NAMES3[@]} -eq $EXPECTED3 ]] || fail "expected $EXPECTED3 function names in fmi3Functions.h, found ${#NAMES3[@]}"
for n in "${NAMES3[@]}"; do
    grep -Eq "^[A-Za-z0-9_ *]*[ *]$n\(" "$HEADER" || fail "$n is not declared in $HEADER (not exported by fmu-runtime?)"
    grep -q "^CHECK($n)$" "$HERE/signature_check3.c" || fail "signature_check3.c does not check $n"
done
total3="$(grep -Ec '^[A-Za-z0-9_ *]*[ *]fmi3[A-Za-z0-9_]*\(' "$HEADER" || true)"
[[ "$total3" -eq $EXPECTED3 ]] || fail "the generated header declares $total3 fmi3 functions, expected $EXPECTED3"
TYPES3_HEADER="$OUT/hydromech_fmi3_types.h"
"$CBINDGEN" --config "$HERE/cbindgen-types3.toml" -o "$TYPES3_HEADER" "$ROOT/fmu-runtime/src/fmi3/types.rs" \
    >>"$OUT/cbindgen.log" 2>&1 || { cat "$OUT/cbindgen.log"; fail "cbindgen (FMI 3.0 types) failed"; }
gcc "${CFLAGS[@]}" -DHM_WITH_STANDARD_DECLARATIONS -fsyntax-only "$HERE/signature_check3.c" \
    || fail "signature_check3.c does not compile together with fmi3Functions.h (see above)"
gcc "${CFLAGS[@]}" -c "$HERE/signature_check3.c" -o "$OUT/signature_check3.o" \
    || fail "an FMI 3.0 signature or type layout differs from the standard (see above)"
echo "ok: all $EXPECTED3 declarations match their fmi3XxxTYPE and fmi3Functions.h; type layouts match"
missing3=()
for n in "${NAMES3[@]}"; do
    grep -qx "$n" <<<"$exported" || missing3+=("$n")
done
[[ ${#missing3[@]} -eq 0 ]] || fail "not exported by $LIB: ${missing3[*]}"
echo "ok: all $EXPECTED3 fmi3 functions are exported (T)"
gcc "$OUT/signature_check3.o" "$LIB" -Wl,-rpath,"$(dirname "$LIB")" -o "$OUT/signature_check3" \
    || fail "linking signature_check3 against $LIB failed"
"$OUT/signature_check3" || fail "FMI 3.0 calls through the C ABI failed"

echo
echo "check_header: OK ($EXPECTED fmi2 and $EXPECTED3 fmi3 functions: declarations, types, exports and calls checked)"
