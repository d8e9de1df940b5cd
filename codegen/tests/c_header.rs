//! The generated C header, compiled for real: as a C99 and a C++17
//! translation unit (declarations only, with the tables defined by
//! `KFAM_IMPLEMENTATION`, and as a private copy), with the consumer programs
//! of `tests/c/` (whose output must say exactly what the Rust IR says), and
//! in two translation units linked together, one defining the tables and one
//! only including the header; with gcc and g++ and with clang and clang++
//! (from the test environment, `kfam-testenv`). gcc and g++ are required: when either
//! is missing these tests fail, they never skip (README.md: gcc and g++ are
//! assumed).

use std::fmt::Write as _;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use kfam_codegen::emit::c;
use kfam_codegen::ir::{Arg, Family, Ir, ScalarRef};
use kfam_codegen::record::OperationKind;

use crate::support::process;
use crate::support::root;
use process::run;

const C_STD: &[&str] = &["-std=c99", "-Wall", "-Wextra", "-Werror", "-pedantic"];
const CXX_STD: &[&str] = &["-std=c++17", "-Wall", "-Wextra", "-Werror", "-pedantic"];
/// Extra warnings a strict consumer may turn on; the header alone must pass them.
const C_STRICT: &[&str] = &[
    "-Wconversion",
    "-Wsign-conversion",
    "-Wshadow",
    "-Wstrict-prototypes",
    "-Wmissing-prototypes",
    "-Wundef",
    "-Wcast-qual",
    "-Wwrite-strings",
    "-Wredundant-decls",
];
const CXX_STRICT: &[&str] = &[
    "-Wconversion",
    "-Wsign-conversion",
    "-Wshadow",
    "-Wundef",
    "-Wcast-qual",
    "-Wold-style-cast",
    "-Wzero-as-null-pointer-constant",
    "-Wuseless-cast",
    "-Wredundant-decls",
];
/// gcc-only warnings, left out for clang.
const GCC_ONLY: &[&str] = &["-Wuseless-cast"];

fn c_src(name: &str) -> PathBuf {
    root().join("tests/c").join(name)
}

/// `gcc` or `g++` (after checking that it runs), or `clang` / `clang++`
/// from the test environment. A missing compiler is a failure: the header's
/// promise is that it compiles, and only a compiler can show that.
fn compiler(name: &str) -> Command {
    if let Some(cxx) = match name {
        "clang" => Some(false),
        "clang++" => Some(true),
        _ => None,
    } {
        return kfam_testenv::clang(cxx);
    }
    match Command::new(name).arg("--version").output() {
        Ok(out) if out.status.success() => Command::new(name),
        Ok(out) => panic!(
            "`{name} --version` failed ({}); the C header tests need gcc and g++",
            out.status
        ),
        Err(e) => panic!(
            "`{name}` is not available ({e}); the C header tests need gcc and g++ (README.md)"
        ),
    }
}

/// A generated header in a temporary directory, with the IR it came from.
struct Header {
    dir: tempfile::TempDir,
    ir: Ir,
}

impl Header {
    fn from_ir(ir: Ir) -> Header {
        let dir = tempfile::tempdir().expect("tempdir");
        let files = c::emit(&kfam_codegen::plan::Plan::new(&ir));
        // The three headers, and beside them the package files (CMake,
        // pkg-config) named after the catalog and the library's C unit with
        // the runtime ABI it calls.
        let mut paths: Vec<&str> = files.iter().map(|f| f.path.as_str()).collect();
        paths.sort_unstable();
        let name = &ir.catalog.name;
        assert_eq!(
            paths,
            [
                c::HEADER_PATH,
                c::CONSTANTS_PATH,
                c::DATA_PATH,
                &format!("lib/cmake/{name}/{name}-config-version.cmake"),
                &format!("lib/cmake/{name}/{name}-config.cmake"),
                &format!("lib/pkgconfig/{name}.pc"),
                "src/kfam_catalog.c",
                "src/kfamrt.h",
            ]
        );
        for f in &files {
            let path = dir.path().join(&f.path);
            fs::create_dir_all(path.parent().unwrap()).unwrap();
            fs::write(&path, &f.contents).unwrap();
        }
        Header { dir, ir }
    }

    fn shipped() -> Header {
        let (ir, report) = kfam_codegen::check_dir(&root().join("manifest"));
        let ir = ir.unwrap_or_else(|| panic!("shipped manifest has errors: {report:?}"));
        Header::from_ir(ir)
    }

    /// The manifest's `abi.toml` with the given family files (checked in memory).
    fn with_families(families: &[(&str, &str)]) -> Header {
        let abi = fs::read_to_string(root().join("manifest/abi.toml")).unwrap();
        let families = families
            .iter()
            .map(|(name, text)| (format!("families/{name}.toml"), (*text).to_owned()))
            .collect();
        let (ir, report) = kfam_codegen::check_sources(Some(("abi.toml".into(), abi)), families);
        let ir = ir.unwrap_or_else(|| panic!("test manifest has errors: {report:?}"));
        Header::from_ir(ir)
    }

    /// The `-I` directory: the header is `<kfam/kfam.h>` below it.
    fn include(&self) -> PathBuf {
        let header = self.header_path();
        header.parent().unwrap().parent().unwrap().to_path_buf()
    }

    fn header_path(&self) -> PathBuf {
        self.dir.path().join(c::HEADER_PATH)
    }

    fn out(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    fn data_path(&self) -> PathBuf {
        self.dir.path().join(c::DATA_PATH)
    }

    /// Compile the header alone as a C99 and as a C++17 translation unit,
    /// with gcc/g++ and with clang/clang++; then units that define the
    /// tables (`KFAM_IMPLEMENTATION`, `KFAM_PRIVATE_TABLES`) and include
    /// the per-family constants.
    fn compile_alone(&self, strict: bool) {
        self.compile_header(strict);
        let units = [
            (
                "impl",
                "#define KFAM_IMPLEMENTATION\n#include <kfam/kfam.h>\n",
            ),
            (
                "private",
                "#define KFAM_PRIVATE_TABLES\n#include <kfam/kfam.h>\n",
            ),
            ("constants", "#include <kfam/kfam_constants.h>\n"),
        ];
        for (name, text) in units {
            self.compile_unit(name, text, strict);
        }
        self.compile_library_unit(strict);
    }

    /// The catalog's library unit (`src/kfam_catalog.c`, the tables, the
    /// description and the functions as calls of libkfamrt), as C99 with
    /// gcc and clang: what a team's C compiler builds.
    fn compile_library_unit(&self, strict: bool) {
        for tool in ["gcc", "clang"] {
            let mut cmd = compiler(tool);
            cmd.args(C_STD);
            if strict {
                cmd.args(C_STRICT);
            }
            cmd.arg("-c")
                .arg(self.dir.path().join("src/kfam_catalog.c"))
                .arg("-o")
                .arg(self.out(&format!("library-{tool}.o")));
            run(cmd);
        }
    }

    /// Compile `text` as a C99 and as a C++17 translation unit, with
    /// gcc/g++ and clang/clang++.
    fn compile_unit(&self, name: &str, text: &str, strict: bool) {
        for (tool, lang, flags, extra) in [
            ("gcc", "c", C_STD, C_STRICT),
            ("g++", "c++", CXX_STD, CXX_STRICT),
            ("clang", "c", C_STD, C_STRICT),
            ("clang++", "c++", CXX_STD, CXX_STRICT),
        ] {
            let mut cmd = compiler(tool);
            cmd.args(flags);
            if strict {
                let clang = tool.starts_with("clang");
                cmd.args(extra.iter().filter(|f| !(clang && GCC_ONLY.contains(f))));
            }
            let unit = self.out(&format!("{name}-{tool}.{lang}"));
            fs::write(&unit, text).unwrap();
            cmd.arg("-I")
                .arg(self.include())
                .args(["-x", lang, "-c"])
                .arg(unit)
                .arg("-o")
                .arg(self.out(&format!("{name}-{tool}.o")));
            run(cmd);
        }
    }

    /// The header itself, as a C99 and a C++17 translation unit.
    fn compile_header(&self, strict: bool) {
        for (tool, lang, flags, extra) in [
            ("gcc", "c", C_STD, C_STRICT),
            ("g++", "c++", CXX_STD, CXX_STRICT),
            ("clang", "c", C_STD, C_STRICT),
            ("clang++", "c++", CXX_STD, CXX_STRICT),
        ] {
            let mut cmd = compiler(tool);
            cmd.args(flags);
            if strict {
                let clang = tool.starts_with("clang");
                cmd.args(extra.iter().filter(|f| !(clang && GCC_ONLY.contains(f))));
            }
            // clang warns of unused static functions in a main file, not
            // in a header: it compiles a unit that includes the header, as
            // consumers do; gcc compiles the header itself.
            let unit = if tool.starts_with("clang") {
                let unit = self.out(&format!("include-{tool}.{lang}"));
                fs::write(&unit, "#include <kfam/kfam.h>\n").unwrap();
                cmd.arg("-I").arg(self.include());
                unit
            } else {
                self.header_path()
            };
            cmd.args(["-x", lang, "-c"])
                .arg(unit)
                .arg("-o")
                .arg(self.out(&format!("header-{tool}.o")));
            run(cmd);
        }
    }

    /// Build a consumer program (`.c` with gcc, `.cpp` with g++) from `sources`.
    fn build(&self, tool: &str, sources: &[PathBuf], exe: &str) -> PathBuf {
        let mut cmd = compiler(tool);
        let is_c = tool == "gcc" || tool == "clang";
        cmd.args(if is_c { C_STD } else { CXX_STD })
            .arg("-I")
            .arg(self.include());
        for s in sources {
            cmd.arg(s);
        }
        let exe = self.out(exe);
        cmd.arg("-o").arg(&exe);
        run(cmd);
        exe
    }

    fn consumers(&self) -> [PathBuf; 2] {
        [
            self.build("gcc", &[c_src("consumer.c")], "consumer_c"),
            self.build("g++", &[c_src("consumer.cpp")], "consumer_cpp"),
        ]
    }
}

fn stdout_of(exe: &Path, args: &[&str]) -> String {
    let mut cmd = Command::new(exe);
    cmd.args(args);
    String::from_utf8(run(cmd).stdout).expect("consumer output is UTF-8")
}

fn shape(dims: &[i64]) -> String {
    let dims: Vec<String> = dims.iter().map(i64::to_string).collect();
    format!("[{}]", dims.join(", "))
}

/// A scalar operand as the consumers print it: the constant's bits in hex
/// (0.0 for a parameter) and the parameter index (-1 for a constant).
fn scalar_fields(s: ScalarRef) -> (String, i64) {
    match s {
        ScalarRef::Constant(v) => (format!("{:016x}", v.to_bits()), -1),
        ScalarRef::Param(i) => (format!("{:016x}", 0f64.to_bits()), i as i64),
    }
}

/// What `tests/c/consumer.{c,cpp}` print for `f`, derived from the IR alone.
fn expected_output(ir: &Ir, f: &Family) -> String {
    let index = ir.families.iter().position(|x| x.name == f.name).unwrap();
    let pname = |i: usize| f.params[i].name.as_str();
    let mut s = String::new();
    let _ = writeln!(s, "family {}", f.name);
    let _ = writeln!(s, "index {index}");
    let _ = writeln!(s, "revision {}", f.revision);
    let _ = writeln!(s, "identity {}", f.identity);
    let _ = writeln!(s, "contract {}", f.contract.as_str());
    let _ = writeln!(s, "torch {}", u8::from(f.torch));
    let _ = writeln!(
        s,
        "torch_schema {}",
        f.torch_schema.as_deref().unwrap_or("-")
    );
    let op = &f.operation;
    let arg = |name: &str| op.get(name).unwrap_or_else(|| panic!("no `{name}`"));
    let operand = |name: &str| op.param(name).map_or("-", pname);
    let member = |name: &str| match arg(name) {
        Arg::Vocab(m) => m.spelling,
        a => panic!("`{name}` is {a:?}"),
    };
    let flag = |name: &str| match arg(name) {
        Arg::Bool(b) => u8::from(*b),
        a => panic!("`{name}` is {a:?}"),
    };
    let int = |name: &str| match arg(name) {
        Arg::U32(n) => i64::from(*n),
        Arg::Extent(e) => e.as_i64(),
        a => panic!("`{name}` is {a:?}"),
    };
    let scalar = |name: &str| match arg(name) {
        Arg::Scalar(r) => scalar_fields(*r),
        a => panic!("`{name}` is {a:?}"),
    };
    let kind = op.kind().as_str();
    match op.kind() {
        OperationKind::ElementwiseBinary => {
            let _ = writeln!(
                s,
                "operation {kind} op {} {} {} {}",
                member("op"),
                operand("lhs"),
                operand("rhs"),
                operand("out")
            );
        }
        OperationKind::Matmul => {
            let _ = writeln!(
                s,
                "operation {kind} m {} k {} n {} accumulate {} {} {} {}",
                int("m"),
                int("k"),
                int("n"),
                flag("accumulate"),
                operand("a"),
                operand("b"),
                operand("c")
            );
        }
        OperationKind::ElementwiseUnary => {
            let _ = writeln!(
                s,
                "operation {kind} op {} {} {}",
                member("op"),
                operand("input"),
                operand("out")
            );
        }
        OperationKind::Reduce => {
            let Arg::Indices(axes) = arg("axes") else {
                panic!("axes")
            };
            let axes: String = axes.iter().map(|a| format!(" {a}")).collect();
            let _ = writeln!(
                s,
                "operation {kind} op {} keepdim {} axes{axes} {} {}",
                member("op"),
                flag("keepdim"),
                operand("input"),
                operand("out")
            );
        }
        OperationKind::Softmax => {
            let _ = writeln!(
                s,
                "operation {kind} axis {} {} {}",
                int("axis"),
                operand("input"),
                operand("out")
            );
        }
        OperationKind::Norm => {
            let (eps, eps_param) = scalar("eps");
            let _ = writeln!(
                s,
                "operation {kind} op {} axis {} eps {eps} eps_param {eps_param} {} {} {} {}",
                member("op"),
                int("axis"),
                operand("input"),
                operand("weight"),
                operand("bias"),
                operand("out")
            );
        }
        OperationKind::PagedAttentionDecode => {
            let (scale, scale_param) = scalar("scale");
            let _ = writeln!(
                s,
                "operation {kind} layout {} scale {scale} scale_param {scale_param} {} {} {} {} {} {}",
                member("layout"),
                operand("query"),
                operand("key_cache"),
                operand("value_cache"),
                operand("block_table"),
                operand("context_lens"),
                operand("out")
            );
        }
        OperationKind::Custom => {
            let Arg::Text(semantics) = arg("semantics") else {
                panic!("semantics")
            };
            let _ = writeln!(s, "operation custom unchecked\nsemantics {semantics}");
        }
        OperationKind::PackedAttentionPrefill => {
            let (scale, scale_param) = scalar("scale");
            let _ = writeln!(
                s,
                "operation {kind} causal {} scale {scale} scale_param {scale_param} {} {} {} {} {} {} {} {}",
                flag("causal"),
                operand("query"),
                operand("key"),
                operand("value"),
                operand("cu_seqlens_q"),
                operand("cu_seqlens_k"),
                operand("out"),
                operand("max_seqlen_q"),
                operand("max_seqlen_k")
            );
        }
        OperationKind::Rope => {
            let _ = writeln!(
                s,
                "operation {kind} rotary_dim {} interleaved {} {} {} {} {} {} {}",
                int("rotary_dim"),
                flag("interleaved"),
                operand("query"),
                operand("key"),
                operand("cos"),
                operand("sin"),
                operand("query_out"),
                operand("key_out")
            );
        }
        OperationKind::Linear => {
            let _ = writeln!(
                s,
                "operation {kind} weight_layout {} {} {} {} {}",
                member("weight_layout"),
                operand("input"),
                operand("weight"),
                operand("bias"),
                operand("out")
            );
        }
        OperationKind::DenseAttention => {
            let (scale, scale_param) = scalar("scale");
            let _ = writeln!(
                s,
                "operation {kind} causal {} scale {scale} scale_param {scale_param} {} {} {} {}",
                flag("causal"),
                operand("query"),
                operand("key"),
                operand("value"),
                operand("out")
            );
        }
    }
    let _ = writeln!(
        s,
        "counts params {} tensors {} scalars {}",
        f.params.len(),
        f.tensor_count,
        f.scalar_count
    );
    for p in &f.params {
        let _ = writeln!(
            s,
            "param {} {} {} {} {} {} shape {} lowered {} pool {}",
            p.index,
            p.name,
            p.kind.as_str(),
            p.direction.as_str(),
            p.dtype.as_str(),
            p.layout.as_str(),
            shape(&p.shape),
            shape(&p.lowered_shape),
            p.pool_index
        );
        if let Some(doc) = &p.doc {
            let _ = writeln!(s, "doc {}: {doc}", p.name);
        }
    }
    for &r in &f.returns {
        let _ = writeln!(s, "return {r} {}", pname(r));
    }
    for pr in &f.profiles {
        let _ = writeln!(
            s,
            "profile {} {} {} {} {}",
            pr.name, pr.platform.name, pr.backend.name, pr.runtime.name, pr.execution_mode.name
        );
        for b in &pr.bindings {
            let _ = writeln!(
                s,
                "slot {} {} {} {}",
                pr.name,
                pname(b.param),
                b.slot,
                b.kind.as_str()
            );
        }
    }
    for r in &f.receipts {
        let _ = writeln!(
            s,
            "receipt {} {} {} {}",
            f.profiles[r.profile].name, r.codec, r.artifact, r.sha256
        );
        let _ = writeln!(
            s,
            "evidence {} | {} | {}",
            r.evidence.date,
            r.evidence.hardware,
            r.evidence.note.as_deref().unwrap_or("-")
        );
        let ev = &r.evidence;
        if let Some(tool) = &ev.tool {
            let _ = writeln!(
                s,
                "qualification {tool} cases {} seed {}",
                ev.cases, ev.seed
            );
            for v in &ev.versions {
                let _ = writeln!(s, "version {v}");
            }
            for c in &ev.shapes {
                let _ = writeln!(s, "covered {c}");
            }
            for e in &ev.errors {
                let _ = writeln!(
                    s,
                    "error {} abs {:016x} rel {:016x}",
                    pname(e.output),
                    e.max_abs.to_bits(),
                    e.max_rel.to_bits()
                );
            }
            let _ = writeln!(
                s,
                "runs {} deterministic {} spread {:016x}",
                ev.runs,
                i32::from(ev.deterministic),
                ev.run_max_abs.to_bits()
            );
        }
    }
    for sym in &f.symbols {
        let max = sym.max.map_or(i64::MAX, i64::from);
        let _ = write!(
            s,
            "symbol {} min {} max {max} multiple_of {}",
            sym.name, sym.min, sym.multiple_of
        );
        for u in &sym.uses {
            let _ = write!(s, " {}[{}]@{}", pname(u.param), u.axis, u.tensor);
        }
        s.push('\n');
    }
    for platform in &ir.targets.platforms {
        let platform = &platform.target.name;
        for mode in &ir.targets.execution_modes {
            let mode = &mode.name;
            let qualified = f.profiles.iter().enumerate().find(|(i, pr)| {
                pr.platform.name == *platform
                    && pr.execution_mode.name == *mode
                    && f.receipts.iter().any(|r| r.profile == *i)
            });
            let _ = writeln!(
                s,
                "capability {} {}: {}",
                platform,
                mode,
                qualified.map_or("unsupported", |(_, pr)| pr.name.as_str())
            );
        }
    }
    if f.name == "add_bf16_1024" {
        let param = |name: &str| f.params.iter().position(|p| p.name == name).unwrap();
        let slot = |profile: usize, name: &str| {
            let b = f.profiles[profile].bindings.iter();
            b.clone().find(|b| b.param == param(name)).unwrap().slot
        };
        assert!(
            f.profiles
                .iter()
                .enumerate()
                .all(|(i, _)| ["lhs", "rhs", "out"]
                    .iter()
                    .all(|n| slot(i, n) == slot(0, n))),
            "the consumer prints family-wide slots, which exist only when all profiles agree"
        );
        let _ = writeln!(s, "macro INDEX {index}");
        let _ = writeln!(s, "macro IDENTITY {}", f.identity);
        let _ = writeln!(s, "macro PARAM_OUT {}", param("out"));
        let _ = writeln!(
            s,
            "macro SLOT_LHS {} SLOT_RHS {} SLOT_OUT {}",
            slot(0, "lhs"),
            slot(0, "rhs"),
            slot(0, "out")
        );
    }
    let _ = writeln!(s, "summary:\n{}", f.summary);
    s
}

/// Run both consumers for every family of the header's IR and compare;
/// a retired family's name exits 2 with its tombstone, an unknown one 1.
fn check_consumers(h: &Header) {
    let exes = h.consumers();
    for r in &h.ir.retired {
        let mut expected = format!(
            "retired {} revision {} identity {} receipts {}\n",
            r.name,
            r.revision,
            r.identity,
            r.receipts.len()
        );
        for d in &r.receipts {
            let _ = writeln!(expected, "retired receipt {d}");
        }
        let _ = writeln!(expected, "reason {}", r.reason);
        for exe in &exes {
            let out = Command::new(exe).arg(&r.name).output().unwrap();
            assert_eq!(out.status.code(), Some(2), "{}: {}", exe.display(), r.name);
            assert_eq!(
                String::from_utf8_lossy(&out.stdout),
                expected,
                "{}",
                exe.display()
            );
        }
    }
    for exe in &exes {
        let out = Command::new(exe).arg("no_such_family").output().unwrap();
        assert_eq!(out.status.code(), Some(1), "{}", exe.display());
    }
    for f in &h.ir.families {
        let expected = expected_output(&h.ir, f);
        for exe in &exes {
            let actual = stdout_of(exe, &[&f.name]);
            assert_eq!(
                actual,
                expected,
                "{} disagrees with the IR for `{}`",
                exe.display(),
                f.name
            );
        }
    }
}

#[test]
fn header_compiles_alone_as_c99_and_cxx17() {
    let h = Header::shipped();
    h.compile_alone(false);
    h.compile_alone(true);
}

/// The header asserts every record's size and every field's offset with the
/// numbers the generator computed from the field lists it printed the
/// structs from; one number changed by hand fails the build in C99 (an
/// array of negative size), C11 and C++17, with gcc and clang.
#[test]
fn layout_asserts_cover_every_field_and_fail_a_wrong_layout() {
    let h = Header::shipped();
    let text = fs::read_to_string(h.header_path()).unwrap();
    let mut records = 0;
    let mut lines = text.lines();
    while let Some(line) = lines.next() {
        let Some(name) = line
            .strip_prefix("typedef struct ")
            .or_else(|| line.strip_prefix("typedef union "))
            .and_then(|rest| rest.strip_suffix(" {"))
        else {
            continue;
        };
        records += 1;
        let fields = lines
            .by_ref()
            .take_while(|l| !l.starts_with('}'))
            .filter(|l| l.trim_end().ends_with(';'))
            .count();
        let asserted = |what: &str| {
            text.lines()
                .filter(|l| l.starts_with(&format!("KFAM_GEN_{what}({name}, ")))
                .count()
        };
        assert_eq!(asserted("SIZE"), 1, "{name}: size asserted once");
        assert_eq!(asserted("OFFSET"), fields, "{name}: every field's offset");
    }
    assert_eq!(records, 28, "every struct and union of the header");

    let right = "KFAM_GEN_OFFSET(kfam_call_error, param_index, 8u);";
    assert!(text.contains(right), "kfam_call_error.param_index is at 8");
    fs::write(
        h.header_path(),
        text.replace(right, "KFAM_GEN_OFFSET(kfam_call_error, param_index, 12u);"),
    )
    .unwrap();
    for (tool, lang, std) in [
        ("gcc", "c", "-std=c99"),
        ("gcc", "c", "-std=c11"),
        ("g++", "c++", "-std=c++17"),
        ("clang", "c", "-std=c99"),
        ("clang", "c", "-std=c11"),
        ("clang++", "c++", "-std=c++17"),
    ] {
        let unit = h.out(&format!("wrong-{tool}{std}.{lang}"));
        fs::write(&unit, "#include <kfam/kfam.h>\n").unwrap();
        let mut cmd = compiler(tool);
        cmd.arg(std)
            .arg("-I")
            .arg(h.include())
            .args(["-x", lang, "-c"])
            .arg(&unit)
            .arg("-o")
            .arg(h.out("wrong.o"));
        let out = cmd.output().expect("the compiler runs");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            !out.status.success() && stderr.contains("kfam_call_error__param_index"),
            "{tool} {std} accepted a wrong offset:\n{stderr}"
        );
    }
}

#[test]
fn consumers_print_what_the_ir_says() {
    let h = Header::shipped();
    assert!(
        h.ir.families.iter().any(|f| f.name == "add_bf16_1024"),
        "the shipped manifest has add_bf16_1024"
    );
    assert!(
        !h.ir.retired.is_empty(),
        "the shipped manifest retires a family"
    );
    check_consumers(&h);
    // Without an argument the consumers look up add_bf16_1024.
    let add =
        h.ir.families
            .iter()
            .find(|f| f.name == "add_bf16_1024")
            .unwrap();
    let add_expected = expected_output(&h.ir, add);
    assert!(add_expected.contains("macro SLOT_LHS"));
    for exe in h.consumers() {
        assert_eq!(stdout_of(&exe, &[]), add_expected);
    }
}

/// One unit defines the tables (`KFAM_IMPLEMENTATION`), the other only
/// includes the header: the program links, and both see the same records.
#[test]
fn two_translation_units_share_one_definition_of_the_tables() {
    let h = Header::shipped();
    let want = format!("linked {} families\n", h.ir.families.len());
    for (cc, cxx) in [("gcc", "g++"), ("clang", "clang++")] {
        let other = h.out(&format!("link_other-{cc}.o"));
        let mut cmd = compiler(cc);
        cmd.args(C_STD)
            .arg("-I")
            .arg(h.include())
            .arg("-c")
            .arg(c_src("link_other.c"))
            .arg("-o")
            .arg(&other);
        run(cmd);
        let c_exe = h.build(
            cc,
            &[c_src("link_main.c"), other.clone()],
            &format!("link-{cc}"),
        );
        assert_eq!(stdout_of(&c_exe, &[]), want);
        let cxx_exe = h.build(
            cxx,
            &[c_src("link_main.cpp"), other],
            &format!("link-{cxx}"),
        );
        assert_eq!(stdout_of(&cxx_exe, &[]), want);
    }
}

/// A unit that only includes the header carries no table data: its object
/// defines no table symbol, and the header never names the data file
/// outside the implementation branch.
#[test]
fn including_the_header_defines_no_tables() {
    let h = Header::shipped();
    let unit = h.out("plain.c");
    fs::write(
        &unit,
        "#include <kfam/kfam.h>\nconst kfam_table *plain_table(void);\nconst kfam_table *plain_table(void) { return &kfam_header_table; }\n",
    )
    .unwrap();
    let obj = h.out("plain.o");
    let mut cmd = compiler("gcc");
    cmd.args(C_STD)
        .arg("-I")
        .arg(h.include())
        .arg("-c")
        .arg(&unit)
        .arg("-o")
        .arg(&obj);
    run(cmd);
    let mut nm = Command::new("nm");
    nm.arg(&obj);
    let symbols = String::from_utf8(run(nm).stdout).unwrap();
    let defined: Vec<&str> = symbols
        .lines()
        .filter(|l| !l.trim_start().starts_with("U "))
        .collect();
    assert!(
        defined.iter().all(|l| l.ends_with(" plain_table")),
        "a plain unit defines only its own function:\n{symbols}"
    );
    assert!(symbols.contains("U kfam_header_table"), "{symbols}");
    // Without the macro the data file is never opened: a unit that includes
    // the header compiles with the data file gone.
    fs::remove_file(h.data_path()).unwrap();
    let mut cmd = compiler("gcc");
    cmd.args(C_STD)
        .arg("-I")
        .arg(h.include())
        .arg("-fsyntax-only")
        .arg(&unit);
    run(cmd);
}

#[test]
fn runtime_declarations_compile_as_documented() {
    let h = Header::shipped();
    for (tool, lang, flags) in [("gcc", "c", C_STD), ("g++", "c++", CXX_STD)] {
        let mut cmd = compiler(tool);
        cmd.args(flags)
            .arg("-I")
            .arg(h.include())
            .args(["-x", lang, "-c"])
            .arg(c_src("runtime_example.c"))
            .arg("-o")
            .arg(h.out(&format!("runtime_example-{lang}.o")));
        run(cmd);
    }
}

const HOSTILE: &str = r#"
name = "hostile_text"
revision = 1
summary = "Ends */ early? \"Quoted\", back\\slash, trigraphs ??/ ??= ??' and /* nested.\nA line that ends in a backslash \\\nNon-ASCII: café, 漢字, 🙂 ?"
contract = "kernel"
returns = ["out"]

[operation.elementwise_binary]
op = "add"
lhs = "lhs"
rhs = "rhs"
out = "out"

[[params]]
name = "lhs"
dtype = "fp32"
shape = [-1, 8]
doc = "*/ #error \"not closed\" /* \\"

[[params]]
name = "rhs"
dtype = "fp32"
shape = [-1, 8]
doc = "??/\n*/"

[[params]]
name = "out"
direction = "out"
dtype = "fp32"
shape = [-1, 8]

[[profiles]]
name = "sim"
platform = "a2a3"
backend = "pto"
runtime = "host_build_graph"
execution_mode = "sim"
bindings = [
  { param = "lhs", slot = 0, kind = "tensor_arg" },
  { param = "rhs", slot = 1, kind = "tensor_arg" },
  { param = "out", slot = 2, kind = "tensor_arg" },
]

[[receipts]]
profile = "sim"
codec = "test.v1"
artifact = "dir/\"quoted\"??/x.so"
sha256 = "1111111111111111111111111111111111111111111111111111111111111111"
evidence = { date = "2026-01-01", hardware = "rig \"A\" */ ??/ \\", note = "note */\nline two \\" }

[[receipts]]
profile = "sim"
codec = "test.v1"
artifact = "dir/qualified.so"
sha256 = "2222222222222222222222222222222222222222222222222222222222222222"

[receipts.evidence]
date = "2026-12-03"
hardware = "cpu \"B\" */"
tool = "kfam.qualify"
versions = ["kfam 0.1.0", "torch 2.9.1+cpu ??/ */", "é \\ */"]
cases = 48
seed = 7
shapes = []
errors = [{ output = "out", max_abs = 0.0078125, max_rel = 1e-300 }]
runs = 3
deterministic = false
run_max_abs = 0.00390625
"#;

/// No scalars, no returns, no profiles, no receipts: every optional list of
/// the tables is empty, and ISO C has no zero-length arrays.
const BARE: &str = r#"
name = "bare_minimum"
revision = 3
summary = "Nothing optional."
contract = "program"

[operation.elementwise_binary]
op = "max"
lhs = "a"
rhs = "b"
out = "c"

[[params]]
name = "a"
dtype = "int8"
shape = [4]

[[params]]
name = "b"
dtype = "int8"
shape = [4]

[[params]]
name = "c"
direction = "out"
dtype = "int8"
shape = [4]
"#;

#[test]
fn hostile_text_round_trips_through_comments_and_strings() {
    let h = Header::with_families(&[("hostile_text", HOSTILE)]);
    let f = &h.ir.families[0];
    assert!(f.summary.contains("*/") && f.summary.contains("??/") && f.summary.contains('\\'));
    assert!(f.summary.contains('é') && f.summary.contains('\n'));
    for path in [c::HEADER_PATH, c::DATA_PATH, c::CONSTANTS_PATH] {
        let text = fs::read_to_string(h.dir.path().join(path)).unwrap();
        assert!(text.is_ascii(), "{path}: non-ASCII text is escaped");
        assert!(
            !text.contains("??"),
            "{path}: no trigraph sequence survives"
        );
    }
    // Both compile with the header in the main file (every comment and
    // string checked by -Wcomment, -Wtrigraphs, -pedantic) ...
    h.compile_alone(true);
    // ... and the consumers read back exactly the declared text.
    check_consumers(&h);
}

/// One name per fact: `SLOT_<P>` where every profile binds `P` to the same
/// slot, per-profile `<PROFILE>_SLOT_<P>` only where the profiles disagree.
#[test]
fn slot_constants_name_each_fact_once() {
    let add = fs::read_to_string(root().join("manifest/families/add_bf16_1024.toml")).unwrap();
    let a5 = r#"
[[profiles]]
name = "a5_sim"
platform = "a5"
backend = "pto"
runtime = "tensormap_and_ringbuffer"
execution_mode = "sim"
bindings = [
  { param = "lhs", slot = 1, kind = "tensor_arg" },
  { param = "rhs", slot = 0, kind = "tensor_arg" },
  { param = "out", slot = 2, kind = "tensor_arg" },
]
"#;
    let two = add.replacen("\n[[receipts]]", &format!("{a5}\n[[receipts]]"), 1);
    assert_ne!(two, add, "the second profile goes before the receipts");
    let h = Header::with_families(&[("add_bf16_1024", &two)]);
    let unit = "#include <kfam/kfam_constants.h>
#if KFAM_ADD_BF16_1024_SLOT_OUT != 2
#error family-wide slot
#endif
#if KFAM_ADD_BF16_1024_XDNA2_ONBOARD_SLOT_LHS != 0 || KFAM_ADD_BF16_1024_A5_SIM_SLOT_LHS != 1
#error per-profile slots of lhs
#endif
#if KFAM_ADD_BF16_1024_XDNA2_ONBOARD_SLOT_RHS != 1 || KFAM_ADD_BF16_1024_A5_SIM_SLOT_RHS != 0
#error per-profile slots of rhs
#endif
#if defined(KFAM_ADD_BF16_1024_SLOT_LHS) || defined(KFAM_ADD_BF16_1024_A5_SIM_SLOT_OUT)
#error a second name for one fact
#endif
";
    h.compile_unit("slots", unit, true);
}

#[test]
fn empty_lists_compile_without_zero_length_arrays() {
    let h = Header::with_families(&[("bare_minimum", BARE), ("hostile_text", HOSTILE)]);
    let bare =
        h.ir.families
            .iter()
            .find(|f| f.name == "bare_minimum")
            .unwrap();
    assert!(bare.returns.is_empty() && bare.profiles.is_empty() && bare.receipts.is_empty());
    assert_eq!(bare.scalar_count, 0);
    let text = fs::read_to_string(h.data_path()).unwrap();
    assert!(
        !text.contains("[0] KFAM_GEN_MAYBE_UNUSED"),
        "no zero-length array"
    );
    h.compile_alone(true);
    check_consumers(&h);
}

#[test]
fn generated_name_collisions_fail_closed() {
    // Family `abi` makes KFAM_ABI_REVISION, which is also the ABI constant:
    // `kfam check` refuses it (KF0107) ...
    let abi_family = BARE
        .replace("bare_minimum", "abi")
        .replace("revision = 3", "revision = 1");
    let abi = fs::read_to_string(root().join("manifest/abi.toml")).unwrap();
    let (refused, report) = kfam_codegen::check_sources(
        Some(("abi.toml".into(), abi)),
        vec![("families/abi.toml".into(), abi_family)],
    );
    assert!(refused.is_none());
    let codes: Vec<&str> = report.diagnostics.iter().map(|d| d.code.as_str()).collect();
    assert_eq!(codes, ["KF0107"], "{report:?}");
    // ... and the emitter, given such an IR anyway, fails closed.
    let mut ir = Header::shipped().ir;
    ir.families[0].name = "abi".into();
    let h = Header::from_ir(ir);
    assert_eq!(c::c_name_collisions(&h.ir), ["KFAM_ABI_REVISION"]);
    let text = fs::read_to_string(h.header_path()).unwrap();
    assert!(text.contains("#error \"kfam: the generated C name KFAM_ABI_REVISION is defined twice"));
    let mut cmd = compiler("gcc");
    cmd.args(C_STD)
        .args(["-x", "c", "-fsyntax-only"])
        .arg(h.header_path());
    let out = cmd.output().expect("run gcc");
    assert!(!out.status.success(), "a colliding header must not compile");
    assert!(String::from_utf8_lossy(&out.stderr).contains("KFAM_ABI_REVISION is defined twice"));
    // The shipped manifest has no collision.
    assert!(c::c_name_collisions(&Header::shipped().ir).is_empty());
}
