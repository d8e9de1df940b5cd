#!/usr/bin/env bash
# What users and consumers pay at scale, as whole processes, beside protoc
# in the same run (docs/performance.md, "Whole processes").
#
#   bench/consumers.sh [N ...]          default: 1000 10000
#   KFAM_BENCH_RUNTIME=1 bench/consumers.sh 1000   also time
#       `cargo build --release -p kfam-catalog` over the synthetic manifest
#
# Needs: gcc, g++, python3, /usr/bin/time, protoc and its headers (Debian's
# protobuf-compiler and libprotobuf-dev) and
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
cargo build -q --release -p kfam-native
# The interpreter itself, not a launcher in front of it (a pyenv shim adds
# 0.1-0.2 s to every start), so the import rows measure Python and kfam.
python=$(python3 -c 'import sys; print(sys.executable)')
kfam=$top/target/release/kfam
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# The prebuilt runtime under its SONAME, as the wheel installs it.
mkdir -p "$work/lib"
cp "$top/target/release/libkfamrt.so" "$work/lib/libkfamrt.so.1"
cat >"$work/first.c" <<'C'
#include <kfam/kfam.h>
int main(void) { char why[256]; return kfam_check_catalog(KFAM_CATALOG_NAME, KFAM_CATALOG_DIGEST, why, sizeof why, 0) != 0; }
C

# `measure LABEL CMD...`: the median wall seconds over $runs processes
# (each run's figure in brackets) and the largest peak RSS (MiB); `$prepare`,
# when set, is evaluated before each run. The median is also left in $secs
# for ratios.
runs=${KFAM_BENCH_RUNS:-3}
prepare=
secs=0
measure() {
    local label=$1; shift
    local kib max=0 s all=()
    for ((i = 0; i < runs; i++)); do
        [ -z "$prepare" ] || eval "$prepare"
        /usr/bin/time -f "%e %M" -o "$work/time" "$@" >/dev/null 2>"$work/err" || {
            echo "error: $label failed:" >&2; cat "$work/err" >&2; exit 1; }
        read -r s kib <"$work/time"
        all+=("$s")
        ((kib > max)) && max=$kib
    done
    secs=$(printf '%s\n' "${all[@]}" | sort -g | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }')
    if ((runs > 1)); then
        printf '| %s | %s s (%s) | %d MiB |\n' "$label" "$secs" "$(IFS=' '; echo "${all[*]}")" $((max / 1024))
    else
        printf '| %s | %s s | %d MiB |\n' "$label" "$secs" $((max / 1024))
    fi
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
    runs=1 measure "kfam generate, first run (empty output directory, no lock yet)" "$kfam" generate "$m/manifest" --out "$m/generated"
    prepare='rm -rf "$m/generated"' measure "kfam generate, empty output directory" "$kfam" generate "$m/manifest" --out "$m/generated"
    gen_full=$secs
    measure "kfam generate, nothing to write" "$kfam" generate "$m/manifest" --out "$m/generated"
    prepare='rm -rf "$m/generated/.kfam-cache"' measure "kfam generate, nothing to write, no freshness stamp (full check)" "$kfam" generate "$m/manifest" --out "$m/generated"
    rm -rf "$m/generated/.kfam-cache"
    files=$(find "$m/generated" -type f | wc -l)
    out=$(bytes "$m/generated")
    echo "| output | $(mib "$out") in $files files ($(ratio "$out" "$decl") the declaration) | |"
    # What the files take on disk (du), against the family files' disk use:
    # a small file takes a whole block.
    echo "| output on disk / family files on disk ($(du -sh "$m/manifest/families" | cut -f1)) | $(ratio "$(du -s "$m/generated" | cut -f1)" "$(du -s "$m/manifest/families" | cut -f1)") | |"
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

    # The catalog's library as a C/C++ team builds it (docs/description.md),
    # and a process whose first call opens the description.
    measure "the catalog's library: src/kfam_catalog.c (gcc -O2 -fPIC -shared, linking libkfamrt)" gcc -std=c99 -O2 -fPIC -shared -o "$work/lib/libkfam_catalog.so" "$m/generated/src/kfam_catalog.c" -L"$work/lib" -l:libkfamrt.so.1 -Wl,-rpath,'$ORIGIN'
    echo "| its source / its description / the library | $(mib "$(stat -c %s "$m/generated/src/kfam_catalog.c")") / $(mib "$(grep -o '^    [0-9]*u,$' "$m/generated/src/kfam_catalog.c" | tr -dc 0-9)") / $(mib "$(stat -c %s "$work/lib/libkfam_catalog.so")") | |"
    gcc -std=c99 -O2 -o "$work/first" -I "$m/generated/include" "$work/first.c" -L"$work/lib" -lkfam_catalog -Wl,-rpath,"$work/lib"
    measure "a program's first call (the runtime opens the description)" "$work/first"

    # The generated package and the runtime it imports (a copy: the
    # measurement writes and removes .pyc files).
    py=$m/generated/python
    rt=$work/runtime
    rm -rf "$rt" && cp -rL "$top/python" "$rt"
    nopyc='find "$py" "$rt" -name __pycache__ -prune -exec rm -rf {} +'
    prepare=$nopyc measure "import kfam, no .pyc (compiles and writes them)" env -u PYTHONDONTWRITEBYTECODE PYTHONPATH="$py:$rt" "$python" -c "import kfam"
    measure "import kfam, from .pyc" env -u PYTHONDONTWRITEBYTECODE PYTHONPATH="$py:$rt" "$python" -c "import kfam"
    # The rows load with the first lookup, not with the import.
    family_files=("$m/manifest/families"/*.toml)
    first=$(basename "${family_files[0]}" .toml)
    lookup="import kfam; assert kfam.find_family('$first')"
    prepare=$nopyc measure "import kfam and one find_family, no .pyc" env -u PYTHONDONTWRITEBYTECODE PYTHONPATH="$py:$rt" "$python" -c "$lookup"
    measure "import kfam and one find_family, from .pyc" env -u PYTHONDONTWRITEBYTECODE PYTHONPATH="$py:$rt" "$python" -c "$lookup"
    measure "bare python3 (baseline for the import)" "$python" -c "pass"

    if [ "${KFAM_BENCH_RUNTIME:-0}" = 1 ]; then
        # A copy of the checkout (symlinks kept: catalog/manifest), whose
        # dependencies are built first over the shipped manifest, untimed:
        # the row is the catalog crate itself after a manifest edit (its
        # build script checks the manifest and generates its tables, header
        # and C tables; then the tables and the C library compile).
        rt=$work/rt$n
        mkdir -p "$rt"
        git -C "$top" ls-files -z | (cd "$top" && xargs -0 cp -P --parents -t "$rt")
        build=(env CI=1 CARGO_TARGET_DIR="$work/rt-target" cargo build -q --release -p kfam-catalog --manifest-path "$rt/Cargo.toml")
        "${build[@]}"
        rm -rf "$rt/manifest"
        cp -r "$m/manifest" "$rt/manifest"
        runs=1 measure "cargo build --release -p kfam-catalog (this manifest; dependencies built)" "${build[@]}"
        rm -rf "$rt"
    fi

    python3 "$peer" "$n" >"$work/peer.proto"
    mkdir -p "$work/pb_py$n" "$work/pb_all$n"
    echo "| protoc input | $(mib "$(stat -c %s "$work/peer.proto")") of .proto | |"
    measure "protoc: Python + .pyi" protoc -I "$work" --python_out="$work/pb_py$n" --pyi_out="$work/pb_py$n" "$work/peer.proto"
    echo "| protoc Python + .pyi / kfam generate (every output, empty directory) | $(ratio "$secs" "$gen_full") | |"
    runs=1 measure "protoc: C++ + Python + .pyi" protoc -I "$work" --cpp_out="$work/pb_all$n" --python_out="$work/pb_all$n" --pyi_out="$work/pb_all$n" "$work/peer.proto"
    echo "| protoc C++ + Python + .pyi / kfam generate | $(ratio "$secs" "$gen_full") | |"
    # protobuf's generated C++ embeds its descriptor as kfam's unit embeds
    # the description: the same step of a C++ build. At 1,000 messages it
    # takes 8 minutes and 4.8 GB, so only up to that size.
    if ((n <= 1000)); then
        runs=1 measure "protoc's C++ output compiled (g++ -O2 -fPIC -c peer.pb.cc)" g++ -std=c++17 -O2 -fPIC -c -I "$work/pb_all$n" "$work/pb_all$n/peer.pb.cc" -o "$work/peer.pb.o"
    fi
    rm -rf "$m" "$work/pb_py$n" "$work/pb_all$n"
done
