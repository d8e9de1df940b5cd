//! The `kfam` command line. Exit codes: 0 clean, 1 manifest errors (or stale
//! output with `--check`), 2 usage or I/O errors.

// Generation at scale builds and frees hundreds of megabytes of text; with
// mimalloc it is ~15-30% faster at 10,000 families (the system allocator
// hands each large buffer back to the kernel and faults it in again). See
// docs/performance.md.
#[cfg(feature = "mimalloc")]
#[path = "alloc.rs"]
mod alloc;

use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use annotate_snippets::Renderer;
use clap::{Parser, Subcommand, ValueEnum};
use kfam_codegen::diag::{ci, Code, Report};
use kfam_codegen::diff::Class;
use kfam_codegen::emit::schema;
use kfam_codegen::init;
use kfam_codegen::record::OperationKind;
use kfam_codegen::shell_word;
use kfam_codegen::write::Problem;
use kfam_codegen::{GenerateError, GenerateOutcome};

#[cfg(feature = "lsp")]
mod lsp;

/// `println!` that treats a closed stdout (`kfam check | head`) as the I/O
/// error it is: exit 2 quietly instead of panicking.
macro_rules! outln {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        if writeln!(std::io::stdout(), $($arg)*).is_err() {
            std::process::exit(2);
        }
    }};
}

#[derive(Parser)]
#[command(
    name = "kfam",
    version,
    about = "Check and generate approved kernel-family tables"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

/// How `check` and `diff` report.
#[derive(Clone, Copy, ValueEnum, PartialEq, Eq)]
enum MessageFormat {
    /// rustc-style diagnostics on stderr.
    Human,
    /// One JSON object per diagnostic or change.
    Json,
    /// GitHub Actions workflow commands on stdout (pull-request annotations).
    Github,
    /// One SARIF 2.1.0 log on stdout (code scanning).
    Sarif,
}

/// How `generate` reports manifest errors.
#[derive(Clone, Copy, ValueEnum, PartialEq, Eq)]
enum GenerateFormat {
    Human,
    Json,
}

impl From<GenerateFormat> for MessageFormat {
    fn from(f: GenerateFormat) -> Self {
        match f {
            GenerateFormat::Human => MessageFormat::Human,
            GenerateFormat::Json => MessageFormat::Json,
        }
    }
}

#[derive(Subcommand)]
enum Command {
    /// Load and check the manifest; print one line per family when clean.
    Check {
        /// Manifest directory (holds `abi.toml` and `families/`).
        #[arg(default_value = "manifest")]
        manifest_dir: PathBuf,
        #[arg(long, value_enum, default_value = "human")]
        message_format: MessageFormat,
    },
    /// Write every generated output (only files whose content changed).
    Generate {
        /// Manifest directory (holds `abi.toml` and `families/`).
        #[arg(default_value = "manifest")]
        manifest_dir: PathBuf,
        /// Output directory; defaults to `generated` beside the manifest directory.
        #[arg(long)]
        out: Option<PathBuf>,
        /// Write nothing; exit 1 naming each stale, missing or unexpected file.
        #[arg(long)]
        check: bool,
        /// Never write `approved.lock` (the review gate): exit 1, writing
        /// nothing, when it does not record what the manifest approves. For
        /// builds (`kfam_add_catalog()`), which never write the source tree.
        #[arg(long, conflicts_with = "check")]
        locked: bool,
        /// The outputs are a build's, of the project in this directory:
        /// their first line names the manifest relative to it, not the
        /// output directory.
        #[arg(long, value_name = "DIR", requires = "locked")]
        source_dir: Option<PathBuf>,
        #[arg(long, value_enum, default_value = "human")]
        message_format: GenerateFormat,
    },
    /// Classify every change between two manifest trees (exit 1 if any is breaking).
    #[command(override_usage = "kfam diff [OPTIONS] OLD_DIR NEW_DIR\n       \
                                kfam diff [OPTIONS] --against REV [MANIFEST_DIR]")]
    Diff {
        /// The old manifest directory; with `--against`, the manifest
        /// directory [default: manifest].
        #[arg(value_name = "OLD_DIR", required_unless_present = "against")]
        old_dir: Option<PathBuf>,
        /// The new manifest directory (not with `--against`).
        #[arg(
            value_name = "NEW_DIR",
            required_unless_present = "against",
            conflicts_with = "against"
        )]
        new_dir: Option<PathBuf>,
        /// Compare the manifest directory with its state at this git
        /// revision (a commit, branch or tag of its repository).
        #[arg(long, value_name = "REV")]
        against: Option<String>,
        #[arg(long, value_enum, default_value = "human")]
        message_format: MessageFormat,
    },
    /// Run the language server on stdin and stdout (editors start it).
    #[cfg(feature = "lsp")]
    Lsp {
        /// Accepted for editors that pass it; stdio is the only transport.
        #[arg(long)]
        stdio: bool,
    },
    /// Print the resolved manifest (names resolved to indices, lowered shapes,
    /// identity digests) as JSON, one family per line.
    Resolve {
        /// Manifest directory (holds `abi.toml` and `families/`).
        #[arg(default_value = "manifest")]
        manifest_dir: PathBuf,
    },
    /// Print the `compiled_meta.json` document an approved artifact must carry.
    Example {
        /// The family (as in `manifest/families/<name>.toml`).
        family: String,
        /// Manifest directory (holds `abi.toml` and `families/`).
        #[arg(default_value = "manifest")]
        manifest_dir: PathBuf,
        /// The profile the artifact was qualified for; needed when the
        /// family's receipts name several.
        #[arg(long)]
        profile: Option<String>,
        /// Which of the profile's receipts (from 1, in declaration order);
        /// needed when it has several.
        #[arg(long)]
        receipt: Option<usize>,
    },
    /// Start a catalog of your own: write `DIR/manifest/abi.toml` and an
    /// example family, which check clean; never overwrites a file.
    Init {
        /// The directory to start the catalog in (created when missing).
        #[arg(default_value = ".")]
        dir: PathBuf,
        /// The catalog's name (`[catalog] name`, the default of its Python
        /// package, torch namespace and C prefix). Default: the directory's
        /// name made an identifier, else `my_catalog`.
        #[arg(long)]
        name: Option<String>,
        /// The SPDX license expression of the generated outputs.
        #[arg(long, default_value = kfam_codegen::init::DEFAULT_LICENSE)]
        license: String,
    },
    /// Write `MANIFEST_DIR/families/FAMILY.toml`: a skeleton family of an
    /// operation kind that checks clean; never overwrites a file.
    New {
        /// The new family's name (lowercase snake_case).
        family: String,
        /// The operation kind.
        #[arg(long, value_parser = clap::builder::PossibleValuesParser::new(
            OperationKind::ALL.iter().map(|k| k.as_str())
        ))]
        kind: String,
        /// Manifest directory (holds `abi.toml` and `families/`) [default: manifest]
        manifest_dir: Option<PathBuf>,
    },
    /// Print where the prebuilt runtime (libkfamrt) and kfam's CMake and
    /// pkg-config packages are installed: beside this binary, by the
    /// kfam-cli wheel.
    Runtime {
        /// Print only the installation prefix.
        #[arg(long, group = "only")]
        prefix: bool,
        /// Print only the directory of libkfamrt.
        #[arg(long, group = "only")]
        libdir: bool,
        /// Print only the directory of kfam's CMake package (`kfam_DIR`).
        #[arg(long, group = "only")]
        cmakedir: bool,
        /// Print only the directory of `kfamrt.pc` (`PKG_CONFIG_PATH`).
        #[arg(long, group = "only")]
        pkgconfigdir: bool,
    },
    /// Print the long explanation of a diagnostic code or a `kfam diff` rule.
    Explain {
        /// A code such as KF0301, or a rule such as KD073.
        code: String,
    },
    /// Write a synthetic manifest of N valid families (benchmarks, scale tests).
    #[command(hide = true)]
    Synth {
        /// Directory to write `abi.toml` and `families/` into.
        out: PathBuf,
        #[arg(long, default_value_t = 1000)]
        families: usize,
        #[arg(long, default_value_t = 1)]
        seed: u64,
    },
}

fn main() -> ExitCode {
    #[cfg(feature = "mimalloc")]
    alloc::tune();
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            let _ = e.print();
            // clap exits 0 for --help/--version and 2 for usage errors.
            return ExitCode::from(if e.use_stderr() { 2 } else { 0 });
        }
    };
    match cli.command {
        Command::Check {
            manifest_dir,
            message_format,
        } => {
            let (ir, report) = kfam_codegen::check_dir(&manifest_dir);
            print_report(&report, message_format);
            if report.has_io_errors() {
                return ExitCode::from(2);
            }
            match ir {
                // A SARIF log is the whole of stdout.
                Some(_) if message_format == MessageFormat::Sarif => ExitCode::SUCCESS,
                Some(ir) => {
                    for f in &ir.families {
                        // A custom operation is a signature only: say so on
                        // its line, so a reviewer sees what was not checked.
                        let unchecked = if f.operation.is_checked() {
                            ""
                        } else {
                            ", operation UNCHECKED (custom: signature only)"
                        };
                        outln!(
                            "{} r{} {}: {} params ({} tensors, {} scalars), {} profiles, {} receipts, identity {}{unchecked}",
                            f.name,
                            f.revision,
                            f.contract,
                            f.params.len(),
                            f.tensor_count,
                            f.scalar_count,
                            f.profiles.len(),
                            f.receipts.len(),
                            &f.identity[..16],
                        );
                    }
                    for r in &ir.retired {
                        outln!("{} r{} retired: {}", r.name, r.revision, r.reason);
                    }
                    outln!("checked {} families: ok", ir.families.len());
                    ExitCode::SUCCESS
                }
                None => ExitCode::from(1),
            }
        }
        Command::Generate {
            manifest_dir,
            out,
            check,
            locked,
            source_dir,
            message_format,
        } => {
            let message_format = MessageFormat::from(message_format);
            let out = out.unwrap_or_else(|| {
                let parent = manifest_dir.parent().unwrap_or(Path::new(""));
                parent.join("generated")
            });
            let options = kfam_codegen::GenerateOptions {
                check,
                stamp: true,
                locked,
            };
            let generated = match &source_dir {
                Some(source) => {
                    kfam_codegen::generate_build_dir(&manifest_dir, &out, source, options)
                }
                None => kfam_codegen::generate_dir_with(&manifest_dir, &out, options),
            };
            match generated {
                Err(GenerateError::Manifest(report)) => {
                    print_report(&report, message_format);
                    ExitCode::from(if report.has_io_errors() { 2 } else { 1 })
                }
                Err(GenerateError::LockStale { lock, report }) => {
                    print_report(&report, message_format);
                    eprintln!(
                        "error: {} does not record everything the manifest approves (its family \
                         revisions and its ABI); \
                         a locked generate (a build) never writes it, and wrote nothing",
                        lock.display()
                    );
                    eprintln!(
                        "help: review the manifest's change, then record it in the lock: `{}` \
                         (or, where the repository commits its outputs, its own `kfam generate \
                         --out DIR`), and commit the lock",
                        kfam_codegen::regenerate_command(&manifest_dir, &out)
                    );
                    ExitCode::from(1)
                }
                Err(GenerateError::Write(e)) => {
                    eprintln!("error: {e}");
                    ExitCode::from(2)
                }
                Ok(GenerateOutcome::Written { report, outcome }) => {
                    print_report(&report, message_format);
                    for p in &outcome.written {
                        outln!("wrote {}", out.join(p).display());
                    }
                    for p in &outcome.removed {
                        outln!("removed {}", out.join(p).display());
                    }
                    if outcome.lock_written {
                        let lock = manifest_dir.join(kfam_codegen::load::LOCK_FILE);
                        outln!("wrote {}", lock.display());
                    }
                    outln!(
                        "{} written, {} removed, {} unchanged",
                        outcome.written.len(),
                        outcome.removed.len(),
                        outcome.unchanged
                    );
                    ExitCode::SUCCESS
                }
                Ok(GenerateOutcome::Checked { report, problems }) => {
                    print_report(&report, message_format);
                    if problems.is_empty() {
                        outln!("{} is up to date", out.display());
                        return ExitCode::SUCCESS;
                    }
                    for p in &problems {
                        match p {
                            Problem::LockStale(_) => eprintln!("error: {p}"),
                            _ => eprintln!("error: {}: {p}", out.display()),
                        }
                    }
                    eprintln!(
                        "error: generated files are not up to date; run `{}`",
                        kfam_codegen::regenerate_command(&manifest_dir, &out)
                    );
                    ExitCode::from(1)
                }
            }
        }
        Command::Diff {
            old_dir,
            new_dir,
            against,
            message_format,
        } => diff(old_dir, new_dir, against, message_format),
        Command::Runtime {
            prefix,
            libdir,
            cmakedir,
            pkgconfigdir,
        } => runtime(prefix, libdir, cmakedir, pkgconfigdir),
        Command::Synth {
            out,
            families,
            seed,
        } => match kfam_codegen::synth::write_dir(&out, families, seed) {
            Ok(()) => {
                outln!("wrote {families} synthetic families to {}", out.display());
                ExitCode::SUCCESS
            }
            Err(e) => {
                eprintln!("error: {}: {e}", out.display());
                ExitCode::from(2)
            }
        },
        #[cfg(feature = "lsp")]
        Command::Lsp { stdio: _ } => match lsp::run() {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => {
                eprintln!("error: {e}");
                ExitCode::from(2)
            }
        },
        Command::Resolve { manifest_dir } => {
            let (ir, report) = kfam_codegen::check_dir(&manifest_dir);
            let Some(ir) = ir else {
                print_report(&report, MessageFormat::Human);
                return ExitCode::from(if report.has_io_errors() { 2 } else { 1 });
            };
            outln!("{}", schema::families_json(&ir).trim_end());
            ExitCode::SUCCESS
        }
        Command::Example {
            family,
            manifest_dir,
            profile,
            receipt,
        } => {
            let (ir, report) = kfam_codegen::check_dir(&manifest_dir);
            let Some(ir) = ir else {
                print_report(&report, MessageFormat::Human);
                return ExitCode::from(if report.has_io_errors() { 2 } else { 1 });
            };
            match schema::select_example(&ir, &family, profile.as_deref(), receipt) {
                Ok((f, r)) => {
                    outln!("{}", schema::printed_example(&ir, f, r).trim_end());
                    ExitCode::SUCCESS
                }
                Err(e) => {
                    eprintln!("error: {e}");
                    ExitCode::from(2)
                }
            }
        }
        Command::Init { dir, name, license } => init(&dir, name, &license),
        Command::New {
            family,
            kind,
            manifest_dir,
        } => {
            let kind = OperationKind::from_str_opt(&kind).expect("clap accepts only a kind");
            new_family(&family, kind, manifest_dir.as_deref())
        }
        Command::Explain { code } => {
            if let Some(c) = Code::parse(&code) {
                outln!("{}: {}\n\n{}", c.as_str(), c.title(), c.explanation());
                ExitCode::SUCCESS
            } else if let Some(r) = kfam_codegen::diff::Rule::parse(&code) {
                outln!(
                    "{} {} ({}): {}\n\n{}",
                    r.id(),
                    r.name(),
                    r.class(),
                    r.doc(),
                    r.explanation()
                );
                ExitCode::SUCCESS
            } else {
                eprintln!(
                    "error: `{code}` is not a kfam diagnostic code (KFnnnn) or `kfam diff` rule (KDnnn)"
                );
                ExitCode::from(2)
            }
        }
    }
}

/// `rel` below `dir`, as a user would write it (`manifest`, not `./manifest`).
fn below(dir: &Path, rel: &str) -> PathBuf {
    if dir == Path::new(".") {
        PathBuf::from(rel)
    } else {
        dir.join(rel)
    }
}

/// `kfam init [DIR]`: the manifest of a new catalog in `DIR/manifest`.
fn init(dir: &Path, name: Option<String>, license: &str) -> ExitCode {
    let name = match name {
        Some(name) => {
            if let Some(problem) = init::catalog_name_problem(&name) {
                eprintln!("error: `{name}` cannot be a catalog's name: {problem} (KF1201)");
                eprintln!("help: pass `--name` a lowercase snake_case name of the catalog's own (`myteam_kernels`)");
                return ExitCode::from(2);
            }
            name
        }
        None => match init::catalog_name_of(dir) {
            Ok(name) => name,
            Err((derived, problem)) => {
                if !derived.is_empty() {
                    eprintln!(
                        "note: the directory's name gives `{derived}`, which cannot be a catalog's name: {problem}"
                    );
                }
                eprintln!(
                    "note: naming the catalog `{}`; pass `--name` to choose another",
                    init::FALLBACK_NAME
                );
                init::FALLBACK_NAME.to_owned()
            }
        },
    };
    let manifest = below(dir, "manifest");
    let abi_path = manifest.join("abi.toml");
    let family_path = manifest
        .join("families")
        .join(format!("{}.toml", init::EXAMPLE_FAMILY));
    for path in [&abi_path, &family_path] {
        if std::fs::symlink_metadata(path).is_ok() {
            eprintln!(
                "error: {} already exists; `kfam init` never overwrites a manifest, so nothing was written",
                path.display()
            );
            return ExitCode::from(2);
        }
    }
    let abi = init::abi_toml(&name, license);
    let family = init::family_toml(
        init::EXAMPLE_KIND,
        init::EXAMPLE_FAMILY,
        &init::today(),
        &init::Skeleton::of(&abi),
    );
    // What would be written must check clean (a `--license` that is no
    // SPDX expression does not): judged before anything is written.
    let (_, report) = kfam_codegen::check_sources(
        Some((abi_path.display().to_string(), abi.clone())),
        vec![(family_path.display().to_string(), family.clone())],
    );
    if !report.diagnostics.is_empty() {
        print_report(&report, MessageFormat::Human);
        eprintln!("error: nothing was written");
        return ExitCode::from(2);
    }
    if let Err(e) = init::create_all(&[(abi_path.clone(), abi), (family_path.clone(), family)]) {
        eprintln!("error: {e}; nothing was written");
        return ExitCode::from(2);
    }
    outln!(
        "wrote {} (catalog `{name}`, license `{license}`)",
        abi_path.display()
    );
    outln!("wrote {}", family_path.display());
    let m = shell_word(&manifest.to_string_lossy());
    outln!(
        "next: pin the native runtime's revision in {}, then run",
        abi_path.display()
    );
    outln!("  kfam check {m}");
    outln!(
        "  kfam generate {m}   # writes {}/ and {}",
        below(dir, "generated").display(),
        manifest.join(kfam_codegen::load::LOCK_FILE).display()
    );
    outln!(
        "add a family with `kfam new FAMILY --kind KIND {m}`; replace or delete {} before you commit the lock",
        init::EXAMPLE_FAMILY
    );
    ExitCode::SUCCESS
}

/// `kfam new FAMILY --kind KIND [MANIFEST_DIR]`: a skeleton family file.
fn new_family(family: &str, kind: OperationKind, typed_dir: Option<&Path>) -> ExitCode {
    if let Some((code, problem)) = init::family_name_problem(family) {
        eprintln!("error: `{family}` is not a valid family name: {problem} ({code})");
        eprintln!("help: write lowercase snake_case ASCII of at most 64 characters (`gelu_bf16`)");
        return ExitCode::from(2);
    }
    let dir = typed_dir.unwrap_or(Path::new("manifest"));
    let abi = dir.join("abi.toml");
    if !abi.is_file() {
        eprintln!(
            "error: {} not found: {} is not a manifest directory (start one with `kfam init`)",
            abi.display(),
            dir.display()
        );
        return ExitCode::from(2);
    }
    if retired(dir, family) {
        eprintln!(
            "error: family name `{family}` is retired in {}; choose a new name (KF1104)",
            dir.join(kfam_codegen::load::RETIRED_FILE).display()
        );
        return ExitCode::from(2);
    }
    let path = dir.join("families").join(format!("{family}.toml"));
    if std::fs::symlink_metadata(&path).is_ok() {
        eprintln!(
            "error: {} already exists; `kfam new` never overwrites a family",
            path.display()
        );
        return ExitCode::from(2);
    }
    // The skeleton's profile names the catalog's first platform; an
    // unreadable abi.toml is the checker's to report.
    let skeleton = init::Skeleton::of(&std::fs::read_to_string(&abi).unwrap_or_default());
    let text = init::family_toml(kind, family, &init::today(), &skeleton);
    if let Err(e) = kfam_codegen::write::create_new(&path, &text) {
        eprintln!("error: {e}");
        return ExitCode::from(2);
    }
    outln!("wrote {} ({kind} skeleton)", path.display());
    let generate = match typed_dir {
        Some(d) => format!("kfam generate {}", shell_word(&d.to_string_lossy())),
        None => "kfam generate".to_owned(),
    };
    outln!("next: edit its operation, parameters and placeholder receipt, then run `{generate}`");
    ExitCode::SUCCESS
}

/// Whether `retired.toml` of the manifest in `dir` retires the name
/// `family` (a file that does not parse is the checker's to report).
fn retired(dir: &Path, family: &str) -> bool {
    let Ok(text) = std::fs::read_to_string(dir.join(kfam_codegen::load::RETIRED_FILE)) else {
        return false;
    };
    let Ok(doc) = text.parse::<toml::Table>() else {
        return false;
    };
    doc.get("retired")
        .and_then(|r| r.as_array())
        .is_some_and(|r| {
            r.iter()
                .any(|t| t.get("name").and_then(|n| n.as_str()) == Some(family))
        })
}

/// `kfam diff OLD_DIR NEW_DIR`, or `kfam diff --against REV [MANIFEST_DIR]`
/// (clap holds one of the two forms).
fn diff(
    old_dir: Option<PathBuf>,
    new_dir: Option<PathBuf>,
    against: Option<String>,
    message_format: MessageFormat,
) -> ExitCode {
    // The old tree: a directory, or the manifest directory at a revision
    // (read in memory, its files named `REV:path`).
    let (old, new_dir) = match (against, old_dir, new_dir) {
        (Some(rev), dir, _) => {
            let dir = dir.unwrap_or_else(|| PathBuf::from("manifest"));
            (Old::at_revision(&dir, rev), dir)
        }
        (None, Some(old_dir), Some(new_dir)) => {
            let (ir, report) = kfam_codegen::check_dir_ungated(&old_dir);
            let old = Old {
                name: old_dir,
                ir,
                report,
                unreadable: None,
            };
            (old, new_dir)
        }
        (None, _, _) => unreachable!("clap requires both directories without --against"),
    };
    let Old {
        name: old_dir,
        ir: old,
        report: old_report,
        unreadable,
    } = old;
    let (new, new_report) = kfam_codegen::check_dir_ungated(&new_dir);
    let (Some(old), Some(new)) = (old, new) else {
        if message_format == MessageFormat::Sarif {
            let runs = vec![ci::sarif_report(&old_report), ci::sarif_report(&new_report)];
            outln!("{:#}", ci::sarif_log(runs));
        } else {
            // A revision that cannot be read is one usage error, not a
            // manifest's errors: no count line for it.
            print_diagnostics(&old_report, message_format, unreadable.is_none());
            print_report(&new_report, message_format);
        }
        if let Some(rev) = unreadable {
            eprintln!("error: the manifest at `{rev}` cannot be read, so nothing was compared");
        } else {
            eprintln!("error: both manifests must check cleanly before they can be compared");
        }
        return ExitCode::from(2);
    };
    let changes = kfam_codegen::diff::diff(&old, &new);
    match message_format {
        MessageFormat::Json => changes.iter().for_each(|c| outln!("{}", c.to_json())),
        MessageFormat::Human => changes.iter().for_each(|c| outln!("{c}")),
        MessageFormat::Github => {
            let text = ci::github_changes(&changes, &old_dir, &new_dir);
            if !text.is_empty() {
                outln!("{}", text.trim_end());
            }
        }
        MessageFormat::Sarif => {
            let run = ci::sarif_changes(&changes, &old_dir, &new_dir);
            outln!("{:#}", ci::sarif_log(vec![run]));
        }
    }
    let breaking = changes
        .iter()
        .filter(|c| c.rule.class() == Class::Breaking)
        .count();
    if message_format == MessageFormat::Human {
        outln!("{} changes, {breaking} breaking", changes.len());
    }
    ExitCode::from(u8::from(breaking > 0))
}

/// The old side of `kfam diff`, checked.
struct Old {
    /// The directory, or the revision's directory as `REV:path`: where the
    /// CI formats place a change whose family only the old side has.
    name: PathBuf,
    ir: Option<kfam_codegen::ir::Ir>,
    report: Report,
    /// The revision, when its manifest could not be read (a usage error
    /// in `report`).
    unreadable: Option<String>,
}

impl Old {
    /// The manifest directory `dir` at git revision `rev`.
    fn at_revision(dir: &Path, rev: String) -> Old {
        let mut old = Old {
            name: PathBuf::from(format!("{rev}:")),
            ir: None,
            report: Report::default(),
            unreadable: None,
        };
        // A directory that is not there is the new side's error to report.
        if !dir.is_dir() {
            return old;
        }
        match kfam_codegen::git::read_tree(dir, &rev) {
            Ok(tree) => {
                (old.ir, old.report) = kfam_codegen::check_tree_ungated(&tree);
                old.name = PathBuf::from(tree.root);
            }
            Err(e) => {
                old.report.diagnostics.push(e.diagnostic(dir));
                old.unreadable = Some(rev);
            }
        }
        old
    }
}

fn print_report(report: &Report, format: MessageFormat) {
    print_diagnostics(report, format, true);
}

/// [`print_report`], with or without the human format's count line.
fn print_diagnostics(report: &Report, format: MessageFormat, count: bool) {
    match format {
        MessageFormat::Json => eprint!("{}", report.render_json()),
        MessageFormat::Github => {
            let text = ci::github_report(report);
            if !text.is_empty() {
                outln!("{}", text.trim_end());
            }
        }
        MessageFormat::Sarif => outln!("{:#}", ci::sarif_log(vec![ci::sarif_report(report)])),
        MessageFormat::Human => {
            let renderer = if std::io::stderr().is_terminal() {
                Renderer::styled()
            } else {
                Renderer::plain()
            };
            eprint!("{}", report.render_human(&renderer));
            if !count {
                return;
            }
            let errors = report.error_count();
            let warnings = report.diagnostics.len() - errors;
            if errors > 0 {
                eprintln!("error: the manifest has {errors} error(s) and {warnings} warning(s)");
            } else if warnings > 0 {
                eprintln!("warning: {warnings} warning(s)");
            }
        }
    }
}

/// `kfam runtime`: the install the kfam-cli wheel made beside this binary
/// (`<prefix>/bin/kfam`, `<prefix>/lib/libkfamrt.so.1`,
/// `<prefix>/lib/cmake/kfam/`, `<prefix>/lib/pkgconfig/kfamrt.pc`).
fn runtime(prefix: bool, libdir: bool, cmakedir: bool, pkgconfigdir: bool) -> ExitCode {
    let exe = std::env::current_exe().and_then(|e| e.canonicalize());
    let root = exe
        .as_ref()
        .ok()
        .and_then(|e| e.parent()?.parent())
        .map(Path::to_path_buf);
    let config = root
        .as_ref()
        .map(|r| r.join("lib/cmake/kfam/kfam-config.cmake"));
    let (Some(root), Some(config)) = (root, config) else {
        eprintln!("error: cannot tell where this kfam binary is");
        return ExitCode::from(2);
    };
    if !config.is_file() {
        eprintln!(
            "error: no prebuilt runtime beside this kfam (no {}): it comes with the kfam-cli \
             wheel (`pip install kfam-cli`, docs/install.md)",
            config.display()
        );
        return ExitCode::from(2);
    }
    let lib = root.join("lib");
    let paths = [
        ("prefix", root.clone(), prefix),
        ("libdir", lib.clone(), libdir),
        ("cmakedir", lib.join("cmake/kfam"), cmakedir),
        ("pkgconfigdir", lib.join("pkgconfig"), pkgconfigdir),
    ];
    match paths.iter().find(|(_, _, only)| *only) {
        Some((_, path, _)) => outln!("{}", path.display()),
        None => {
            outln!("kfam {} runtime", env!("CARGO_PKG_VERSION"));
            for (name, path, _) in &paths {
                outln!("{name:<13}{}", path.display());
            }
        }
    }
    ExitCode::SUCCESS
}
