//! Synthetic manifests for benchmarks and scale tests: `N` valid families
//! with the variety of real ones (2-12 parameters, dynamic extents, NZ
//! weights, packed fp4, scalars of every width, in-place and repeated return
//! aliases, 1-3 profiles on every platform, a receipt for every profile),
//! deterministic for a seed. The hidden `kfam synth` subcommand writes one
//! to disk; benchmarks use [`manifest`] in memory.
//!
//! Every manifest produced here checks cleanly (a unit test and the
//! benchmarks assert it), so a benchmark never measures the error path.

use std::fmt::Write as _;
use std::io;
use std::path::Path;

/// The `abi.toml` of synthetic manifests (the shipped one, with its pin).
pub const ABI_TOML: &str = r#"#:schema ../generated/schema/abi.schema.json
# Synthetic manifest written by `kfam synth` (benchmarks); not reviewed.
revision = "6b6b88f2353cca12cfafe809750b50b59931b0d1"
major = 1
minor = 0

[limits]
max_tensor_args = 256
max_scalar_args = 128
max_rank = 5
max_prepared = 64

[status]
ok = 0
internal = -1000
unsupported = -1001
prepared_incompatible = -1002
invalid_state = -1003
invalid_argument = -1004
not_found = -1005
recompile_required = -1006
not_approved = -1007
"#;

/// A document as [`crate::check_sources`] takes it: (display path, text).
pub type Source = (String, String);

/// A synthetic manifest in memory.
#[derive(Clone, Debug)]
pub struct Synthetic {
    /// Text of `abi.toml`.
    pub abi: String,
    /// `(family name, text of families/<name>.toml)`, sorted by name.
    pub families: Vec<(String, String)>,
}

impl Synthetic {
    /// The documents as [`crate::check_sources`] takes them, with display
    /// paths as `kfam check` would print them under `manifest_dir`.
    pub fn sources(&self, manifest_dir: &str) -> (Option<Source>, Vec<Source>) {
        let abi = Some((format!("{manifest_dir}/abi.toml"), self.abi.clone()));
        let families = self
            .families
            .iter()
            .map(|(name, text)| (format!("{manifest_dir}/families/{name}.toml"), text.clone()))
            .collect();
        (abi, families)
    }

    /// Write `abi.toml` and `families/*.toml` into `dir` (created if needed).
    /// Existing family files of other names are left alone.
    pub fn write_to(&self, dir: &Path) -> io::Result<()> {
        let families = dir.join("families");
        std::fs::create_dir_all(&families)?;
        std::fs::write(dir.join("abi.toml"), &self.abi)?;
        for (name, text) in &self.families {
            std::fs::write(families.join(format!("{name}.toml")), text)?;
        }
        Ok(())
    }
}

/// SplitMix64: small, fast and fully determined by the seed.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// Uniform in `0..n` (n > 0; the bias is irrelevant here).
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    /// True with probability `percent`/100.
    fn chance(&mut self, percent: u64) -> bool {
        self.next() % 100 < percent
    }

    fn pick<T: Copy>(&mut self, items: &[T]) -> T {
        items[self.below(items.len())]
    }
}

/// A manifest of `families` families, the same for the same `seed`.
pub fn manifest(families: usize, seed: u64) -> Synthetic {
    let mut out: Vec<(String, String)> = (0..families)
        .map(|i| {
            // One stream per family, so family i does not depend on N.
            let mut rng = Rng(seed ^ (i as u64).wrapping_mul(0xd6e8_feb8_6659_fd93));
            rng.next();
            family(i, seed, &mut rng)
        })
        .collect();
    out.sort_by(|a, b| a.0.cmp(&b.0));
    Synthetic {
        abi: ABI_TOML.to_owned(),
        families: out,
    }
}

/// Two families of the operation kinds neither the synthetic families nor
/// the shipped manifest declare (`softmax`, `reduce`), as `(path, text)`
/// under `dir`: tests that walk every kind add them.
pub fn other_kinds(dir: &str) -> Vec<(String, String)> {
    vec![
        (
            format!("{dir}/families/softmax_x.toml"),
            "name = \"softmax_x\"\nrevision = 1\nsummary = \"s\"\ncontract = \"kernel\"\n\
             [operation.softmax]\ninput = \"x\"\nout = \"y\"\naxis = 1\n\
             [[params]]\nname = \"x\"\ndtype = \"fp32\"\nshape = [4, 8]\n\
             [[params]]\nname = \"y\"\ndirection = \"out\"\ndtype = \"fp32\"\nshape = [4, 8]\n"
                .to_owned(),
        ),
        (
            format!("{dir}/families/reduce_x.toml"),
            "name = \"reduce_x\"\nrevision = 1\nsummary = \"s\"\ncontract = \"kernel\"\n\
             [operation.reduce]\nop = \"sum\"\ninput = \"x\"\nout = \"y\"\naxes = [2, 0]\n\
             [[params]]\nname = \"x\"\ndtype = \"fp32\"\nshape = [4, 8, 16]\n\
             [[params]]\nname = \"y\"\ndirection = \"out\"\ndtype = \"fp32\"\nshape = [8]\n"
                .to_owned(),
        ),
    ]
}

/// Write a synthetic manifest of `families` families into `dir`.
pub fn write_dir(dir: &Path, families: usize, seed: u64) -> io::Result<()> {
    manifest(families, seed).write_to(dir)
}

struct P {
    name: String,
    scalar: bool,
    direction: &'static str,
    dtype: &'static str,
    shape: Vec<i64>,
    layout: &'static str,
    doc: Option<String>,
}

impl P {
    fn tensor(name: &str, direction: &'static str, dtype: &'static str, shape: Vec<i64>) -> P {
        P {
            name: name.to_owned(),
            scalar: false,
            direction,
            dtype,
            shape,
            layout: "nd",
            doc: None,
        }
    }
}

struct Prof {
    name: &'static str,
    platform: &'static str,
    backend: &'static str,
    runtime: &'static str,
    mode: &'static str,
}

const PROFILES: &[Prof] = &[
    Prof {
        name: "a2a3_sim",
        platform: "a2a3",
        backend: "pto",
        runtime: "tensormap_and_ringbuffer",
        mode: "sim",
    },
    Prof {
        name: "a2a3_onboard",
        platform: "a2a3",
        backend: "pto",
        runtime: "tensormap_and_ringbuffer",
        mode: "onboard",
    },
    Prof {
        name: "a2a3_cce_graph",
        platform: "a2a3",
        backend: "cce",
        runtime: "host_build_graph",
        mode: "onboard",
    },
    Prof {
        name: "a5_onboard",
        platform: "a5",
        backend: "cce",
        runtime: "host_build_graph",
        mode: "onboard",
    },
    Prof {
        name: "a5_sim",
        platform: "a5",
        backend: "pto",
        runtime: "tensormap_and_ringbuffer",
        mode: "sim",
    },
    Prof {
        name: "xdna2_onboard",
        platform: "xdna2",
        backend: "aie",
        runtime: "xrt_direct",
        mode: "onboard",
    },
];

const EW_OPS: &[&str] = &["add", "sub", "mul", "div", "max", "min"];
const EW_DTYPES: &[&str] = &[
    "fp32",
    "fp16",
    "bf16",
    "bf16",
    "int32",
    "int16",
    "int8",
    "uint8",
    "fp8e4m3fn",
    "fp4",
];
const MM_DTYPES: &[&str] = &["bf16", "bf16", "fp16", "int8", "fp32"];
const EXTENTS: &[i64] = &[32, 64, 128, 256, 512, 1024];
const SCALAR_DTYPES: &[&str] = &[
    "fp32", "fp32", "int32", "int32", "int64", "bool", "fp16", "bf16", "uint8", "int8", "int16",
    "uint16", "uint32", "uint64",
];
const SCALAR_NAMES: &[&str] = &[
    "alpha",
    "beta",
    "eps",
    "tile_rows",
    "block",
    "flag",
    "scale",
];
const TENSOR_NAMES: &[&str] = &["bias", "mask", "residual", "gate", "table", "stats"];
const HARDWARE: &[&str] = &[
    "Ascend 910B (a2a3)",
    "a2a3 simulator",
    "Ascend A5",
    "Ryzen AI 9 HX 370 (XDNA2)",
];

fn family(i: usize, seed: u64, rng: &mut Rng) -> (String, String) {
    let matmul = rng.chance(40);
    let mut params: Vec<P> = Vec::new();
    let mut returns: Vec<String> = Vec::new();
    let operation;
    let mut nz = false;
    let name;
    if matmul {
        let dtype = rng.pick(MM_DTYPES);
        let (k, n) = (rng.pick(EXTENTS), rng.pick(EXTENTS));
        let m = if rng.chance(50) {
            -1
        } else {
            rng.pick(EXTENTS)
        };
        let batch = rng.chance(20).then(|| if rng.chance(50) { -1 } else { 4 });
        let accumulate = rng.chance(30);
        let out_dtype = if accumulate || dtype == "int8" {
            if dtype == "int8" {
                "int32"
            } else {
                "fp32"
            }
        } else {
            dtype
        };
        let with_batch =
            |dims: &[i64]| -> Vec<i64> { batch.into_iter().chain(dims.iter().copied()).collect() };
        let mut a = P::tensor("x", "in", dtype, with_batch(&[m, k]));
        a.doc = rng.chance(50).then(|| "Activations, row-major.".to_owned());
        let mut b = P::tensor("w", "in", dtype, vec![k, n]);
        if matches!(dtype, "bf16" | "fp16" | "int8") && rng.chance(40) {
            b.layout = "nz";
            b.doc = Some("Weight, pre-blocked into the NZ fractal layout.".to_owned());
            nz = true;
        }
        let c = P::tensor(
            if accumulate { "acc" } else { "y" },
            if accumulate { "inout" } else { "out" },
            out_dtype,
            with_batch(&[m, n]),
        );
        operation =
            format!(
            "[operation.matmul]\nm = {m}\nk = {k}\nn = {n}\na = \"x\"\nb = \"w\"\nc = \"{}\"\n{}",
            c.name,
            if accumulate { "accumulate = true\n" } else { "" }
        );
        returns.push(format!("\"{}\"", c.name));
        if accumulate && rng.chance(50) {
            returns.push("2".to_owned()); // the same tensor, by index
        }
        let mm = |d: i64| {
            if d < 0 {
                "dyn".to_owned()
            } else {
                d.to_string()
            }
        };
        name = format!(
            "{}_{dtype}_{}x{k}x{n}{}_s{i:05}",
            if accumulate { "matmul_acc" } else { "matmul" },
            mm(m),
            if nz { "_nz" } else { "" }
        );
        params.extend([a, b, c]);
    } else {
        let op = rng.pick(EW_OPS);
        let dtype = rng.pick(EW_DTYPES);
        // Integer division is refused (KF0503): the product instead, with
        // the same draws, so the rest of the manifest does not change.
        let op = if op == "div" && dtype.starts_with(['i', 'u']) {
            "mul"
        } else {
            op
        };
        let rank = 1 + rng.below(3);
        let mut shape: Vec<i64> = (0..rank).map(|_| rng.pick(EXTENTS)).collect();
        if rank > 1 && rng.chance(50) {
            shape[0] = -1;
        }
        if dtype == "fp4" && shape[rank - 1] < 0 {
            shape[rank - 1] = 64;
        }
        let in_place = rng.chance(25);
        if in_place {
            params.push(P::tensor("acc", "inout", dtype, shape.clone()));
            params.push(P::tensor("x", "in", dtype, shape.clone()));
            operation = format!(
                "[operation.elementwise_binary]\nop = \"{op}\"\nlhs = \"acc\"\nrhs = \"x\"\nout = \"acc\"\n"
            );
            returns.push("\"acc\"".to_owned());
        } else {
            params.push(P::tensor("lhs", "in", dtype, shape.clone()));
            params.push(P::tensor("rhs", "in", dtype, shape.clone()));
            params.push(P::tensor("out", "out", dtype, shape.clone()));
            operation = format!(
                "[operation.elementwise_binary]\nop = \"{op}\"\nlhs = \"lhs\"\nrhs = \"rhs\"\nout = \"out\"\n"
            );
            returns.push("\"out\"".to_owned());
        }
        let dims: Vec<String> = shape
            .iter()
            .map(|d| {
                if *d < 0 {
                    "dyn".to_owned()
                } else {
                    d.to_string()
                }
            })
            .collect();
        name = format!("{op}_{dtype}_{}_s{i:05}", dims.join("x"));
    }

    // Up to 12 parameters in all: extra tensors and scalars.
    let total = (params.len() + rng.below(13 - params.len())).clamp(params.len(), 12);
    let torch = rng.chance(60);
    let mut j = 0;
    while params.len() < total {
        j += 1;
        if rng.chance(65) {
            let mut dtype = rng.pick(SCALAR_DTYPES);
            if torch && dtype == "uint64" {
                dtype = "int64";
            }
            let base = rng.pick(SCALAR_NAMES);
            params.push(P {
                name: format!("{base}_{j}"),
                scalar: true,
                direction: "in",
                dtype,
                shape: Vec::new(),
                layout: "nd",
                doc: rng
                    .chance(30)
                    .then(|| format!("Scalar `{base}` chosen by the caller.")),
            });
        } else {
            let base = rng.pick(TENSOR_NAMES);
            let rank = 1 + rng.below(4);
            let mut shape: Vec<i64> = (0..rank).map(|_| rng.pick(EXTENTS)).collect();
            if rng.chance(30) {
                shape[0] = -1;
            }
            let dtype = rng.pick(&["fp32", "bf16", "int32", "uint8", "bool"]);
            let mut p = P::tensor(&format!("{base}_{j}"), "in", dtype, shape);
            if rank == 4 && rng.chance(50) {
                p.layout = "nchw";
            }
            if rng.chance(20) {
                p.direction = "out";
                returns.push(format!("\"{}\"", p.name));
            }
            params.push(p);
        }
    }

    let contract = if rng.chance(80) { "kernel" } else { "program" };
    // 1-3 profiles: NZ families run on a2a3 only.
    let candidates: Vec<&Prof> = PROFILES
        .iter()
        .filter(|p| !nz || p.platform == "a2a3")
        .collect();
    let count = 1 + rng.below(3.min(candidates.len()));
    let start = rng.below(candidates.len());
    let profiles: Vec<&Prof> = (0..count)
        .map(|k| candidates[(start + k) % candidates.len()])
        .collect();

    let mut t = String::with_capacity(2048);
    t.push_str("#:schema ../../generated/schema/family.schema.json\n");
    let _ = writeln!(t, "name = \"{name}\"");
    let _ = writeln!(t, "revision = {}", 1 + rng.below(3));
    let _ = writeln!(
        t,
        "summary = \"\"\"\nSynthetic family {i} (seed {seed}): a {} kernel with {} parameters.\nGenerated for benchmarks; the receipts' digests name no real artifact.\"\"\"",
        if matmul { "matmul" } else { "elementwise" },
        params.len()
    );
    let _ = writeln!(t, "contract = \"{contract}\"");
    if torch {
        t.push_str("torch = true\n");
    }
    let _ = writeln!(t, "returns = [{}]\n", returns.join(", "));
    t.push_str(&operation);
    for p in &params {
        let _ = write!(t, "\n[[params]]\nname = \"{}\"\n", p.name);
        if p.scalar {
            t.push_str("kind = \"scalar\"\n");
        } else if p.direction != "in" {
            let _ = writeln!(t, "direction = \"{}\"", p.direction);
        }
        let _ = writeln!(t, "dtype = \"{}\"", p.dtype);
        if !p.scalar {
            let dims: Vec<String> = p.shape.iter().map(i64::to_string).collect();
            let _ = writeln!(t, "shape = [{}]", dims.join(", "));
            if p.layout != "nd" {
                let _ = writeln!(t, "layout = \"{}\"", p.layout);
            }
        }
        if let Some(doc) = &p.doc {
            let _ = writeln!(t, "doc = \"{doc}\"");
        }
    }
    for pr in &profiles {
        let _ = write!(
            t,
            "\n[[profiles]]\nname = \"{}\"\nplatform = \"{}\"\nbackend = \"{}\"\nruntime = \"{}\"\nexecution_mode = \"{}\"\nbindings = [\n",
            pr.name, pr.platform, pr.backend, pr.runtime, pr.mode
        );
        // Tensors first, then scalars (one common launch convention).
        let order = params
            .iter()
            .filter(|p| !p.scalar)
            .chain(params.iter().filter(|p| p.scalar));
        for (slot, p) in order.enumerate() {
            let kind = match (p.scalar, pr.platform) {
                (true, _) => "scalar_arg",
                (false, "xdna2") => "buffer_object",
                (false, _) => "tensor_arg",
            };
            let _ = writeln!(
                t,
                "  {{ param = \"{}\", slot = {slot}, kind = \"{kind}\" }},",
                p.name
            );
        }
        t.push_str("]\n");
    }
    for pr in &profiles {
        let receipts = if rng.chance(10) { 2 } else { 1 };
        for r in 0..receipts {
            let sha = crate::ir::sha256_hex(
                format!("synthetic/{seed}/{name}/{}/{r}", pr.name).as_bytes(),
            );
            let _ = write!(
                t,
                "\n[[receipts]]\nprofile = \"{}\"\ncodec = \"synthetic.{}.v{}\"\nartifact = \"{}/{}/{name}.{}\"\nsha256 = \"{sha}\"\nevidence = {{ date = \"2026-{:02}-{:02}\", hardware = \"{}\", note = \"synthetic qualification run {r}\" }}\n",
                pr.name,
                if matmul { "matmul" } else { "elementwise" },
                1 + r,
                pr.platform,
                pr.mode,
                if pr.platform == "xdna2" { "elf" } else { "so" },
                1 + rng.below(12),
                1 + rng.below(28),
                rng.pick(HARDWARE),
            );
        }
    }
    (name, t)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn deterministic_and_clean() {
        let a = manifest(300, 7);
        let b = manifest(300, 7);
        assert_eq!(a.families, b.families);
        assert_ne!(a.families, manifest(300, 8).families);
        let (abi, families) = a.sources("synthetic");
        let (ir, report) = crate::check_sources(abi, families);
        let rendered = report.render_human(&annotate_snippets::Renderer::plain());
        assert!(report.diagnostics.is_empty(), "{rendered}");
        let ir = ir.expect("synthetic manifest checks");
        assert_eq!(ir.families.len(), 300);
        let params = |n: usize| ir.families.iter().any(|f| f.params.len() == n);
        assert!(params(2) && params(12), "2 to 12 parameters");
        assert!(ir.families.iter().any(|f| f
            .params
            .iter()
            .any(|p| p.layout == crate::vocab::Layout::Nz)));
        assert!(ir
            .families
            .iter()
            .any(|f| f.params.iter().any(|p| p.shape.contains(&-1))));
        assert!(ir.families.iter().any(|f| f.profiles.len() == 3));
    }

    #[test]
    fn family_does_not_depend_on_count() {
        let small = manifest(10, 3);
        let large = manifest(100, 3);
        for f in &small.families {
            assert!(large.families.contains(f));
        }
    }
}
