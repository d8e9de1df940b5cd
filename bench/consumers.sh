#!/usr/bin/env bash
# What users and consumers pay at scale, as whole processes, beside protoc
# in the same run (docs/performance.md, "Whole processes").
#
#   bench/consumers.sh [N ...]          default: 1000 10000
#   KFAM_BENCH_RUNTIME=1 bench/consumers.sh 1000   also time
#       `cargo build --release -p kfam-runtime` over the synthetic tables
#
# Needs: gcc, python3, /usr/bin/time, protoc (Debian's protobuf-compiler) and
# the protobuf peer script (`../shared/peers/synth_proto.py`, or
# KFAM_PEER_PROTO=path). Prints one Markdown table per N; nothing here is a
# test and nothing asserts a time.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
peer=${KFAM_PEER_PROTO:-$top/../shared/peers/synth_proto.py}
for tool in gcc python3 protoc /usr/bin/time; do
    command -v "$tool" >/dev/null || { echo "error: \`$tool\` is required" >&2; exit 2; }
done
[ -f "$peer" ] || { echo "error: the protobuf peer script is not at $peer (set KFAM_PEER_PROTO)" >&2; exit 2; }

cargo build -q --release --bin kfam
kfam=$top/target/release/kfam
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# `measure LABEL CMD...`: wall seconds and peak RSS (MiB) of one process;
# the seconds are also left in $secs for ratios.
secs=0
measure() {
    local label=$1; shift
    local kib
    /usr/bin/time -f "%e %M" -o "$work/time" "$@" >/dev/null 2>"$work/err" || {
        echo "error: $label failed:" >&2; cat "$work/err" >&2; exit 1; }
    read -r secs kib <"$work/time"
    printf '| %s | %s s | %d MiB |\n' "$label" "$secs" $((kib / 1024))
}
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.1fx", a / b; else print "-" }'; }

bytes() { du -sb "$1" | cut -f1; }
mib() { awk -v b="$1" 'BEGIN { printf "%.1f MB", b / 1e6 }'; }

sizes=("$@")
[ ${#sizes[@]} -gt 0 ] || sizes=(1000 10000)
for n in "${sizes[@]}"; do
    m=$work/m$n
    "$kfam" synth --families "$n" "$m/manifest" >/dev/null
    # The declaration: the family files and abi.toml (the lock is written by
    # the first generate, and is a review record, not an output).
    decl=$(( $(bytes "$m/manifest/families") + $(stat -c %s "$m/manifest/abi.toml") ))
    echo
    echo "### $n families ($(mib "$decl") of TOML)"
    echo
    echo "| what | wall | peak RSS |"
    echo "|---|---|---|"
    measure "kfam check" "$kfam" check "$m/manifest"
    measure "kfam generate, empty output directory" "$kfam" generate "$m/manifest" --out "$m/generated"
    gen_full=$secs
    measure "kfam generate, nothing to write" "$kfam" generate "$m/manifest" --out "$m/generated"
    rm -rf "$m/generated/.kfam-cache"
    measure "kfam generate, nothing to write, no freshness stamp (full check)" "$kfam" generate "$m/manifest" --out "$m/generated"
    rm -rf "$m/generated/.kfam-cache"
    files=$(find "$m/generated" -type f | wc -l)
    out=$(bytes "$m/generated")
    echo "| output | $(mib "$out") in $files files ($(ratio "$out" "$decl") the declaration) | |"
    # The manifest directory as a checkout holds it: the declaration and the
    # lock the first generate wrote.
    mdir=$(bytes "$m/manifest")
    echo "| output / manifest directory with its lock ($(mib "$mdir")) | $(ratio "$out" "$mdir") | |"
    for f in include/kfam rust python/kfam docs schema; do
        echo "| - \`$f/\` | $(mib "$(bytes "$m/generated/$f")") | |"
    done

    printf '#include <kfam/kfam.h>\nint main(void) { return (int)KFAM_FAMILY_COUNT == 0; }\n' >"$work/unit.c"
    measure "one C unit including kfam.h (gcc -O0 -c)" gcc -std=c99 -c -I "$m/generated/include" "$work/unit.c" -o "$work/unit.o"
    echo "| its object file | $(( $(stat -c %s "$work/unit.o") / 1024 )) KiB | |"
    if grep -q KFAM_IMPLEMENTATION "$m/generated/include/kfam/kfam.h"; then
        printf '#define KFAM_IMPLEMENTATION\n#include <kfam/kfam.h>\n' >"$work/impl.c"
        measure "the one C unit defining the tables (gcc -O0 -c)" gcc -std=c99 -c -I "$m/generated/include" "$work/impl.c" -o "$work/impl.o"
        echo "| its object file | $(( $(stat -c %s "$work/impl.o") / 1024 )) KiB | |"
    fi

    py=$m/generated/python
    find "$py" -name __pycache__ -prune -exec rm -rf {} +
    measure "import kfam, no .pyc (compiles and writes them)" env -u PYTHONDONTWRITEBYTECODE PYTHONPATH="$py" python3 -c "import kfam"
    measure "import kfam, from .pyc" env -u PYTHONDONTWRITEBYTECODE PYTHONPATH="$py" python3 -c "import kfam"
    measure "bare python3 (baseline for the import)" python3 -c "pass"

    if [ "${KFAM_BENCH_RUNTIME:-0}" = 1 ]; then
        rt=$work/rt$n
        mkdir -p "$rt"
        git -C "$top" ls-files -z | (cd "$top" && xargs -0 cp --parents -t "$rt")
        rm -rf "$rt/generated" "$rt/manifest"
        cp -r "$m/generated" "$rt/generated"
        measure "cargo build --release -p kfam-runtime (these tables)" \
            env CI=1 CARGO_TARGET_DIR="$rt/target" cargo build -q --release -p kfam-runtime --manifest-path "$rt/Cargo.toml"
        rm -rf "$rt"
    fi

    python3 "$peer" "$n" >"$work/peer.proto"
    mkdir -p "$work/pb_py$n" "$work/pb_all$n"
    echo "| protoc input | $(mib "$(stat -c %s "$work/peer.proto")") of .proto | |"
    measure "protoc: Python + .pyi" protoc -I "$work" --python_out="$work/pb_py$n" --pyi_out="$work/pb_py$n" "$work/peer.proto"
    echo "| protoc Python + .pyi / kfam generate (every output, empty directory) | $(ratio "$secs" "$gen_full") | |"
    measure "protoc: C++ + Python + .pyi" protoc -I "$work" --cpp_out="$work/pb_all$n" --python_out="$work/pb_all$n" --pyi_out="$work/pb_all$n" "$work/peer.proto"
    echo "| protoc C++ + Python + .pyi / kfam generate | $(ratio "$secs" "$gen_full") | |"
    rm -rf "$m" "$work/pb_py$n" "$work/pb_all$n"
done
