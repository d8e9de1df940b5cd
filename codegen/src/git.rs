//! A manifest directory as it was at a git revision, for `kfam diff
//! --against REV`: read with the `git` binary (the only requirement) into a
//! [`Tree`] in memory. Nothing is written, no checkout or index changes.
//!
//! The repository is the one `git -C DIR` finds, the directory's place in
//! it `git rev-parse --show-prefix`. `REV` must name a commit
//! (`REV^{commit}`); the directory's tree at that commit is listed with
//! `git ls-tree -r -t -l -z` and the files the loader reads are fetched in
//! one `git cat-file --batch`. A file of the revision is named as git
//! spells it, `REV:path/from/the/top` (`git show` accepts that name).

use std::io::{self, BufRead, BufReader, Read, Write};
use std::path::Path;
use std::process::{Command, Stdio};

use crate::diag::{Code, Diagnostic};
use crate::load::{display, Entry, Tree, MAX_FILE_BYTES};

/// Why the manifest directory could not be read at a revision. Each is a
/// usage error: `kfam diff` reports it as `KF0001` and exits 2.
#[derive(Debug)]
pub enum Error {
    /// `git` could not be started (not installed, not on `PATH`).
    NoGit(io::Error),
    /// The directory is in no git work tree: git's message.
    NotARepository(String),
    /// `rev` names no commit of the repository at `top`.
    UnknownRevision { rev: String, top: String },
    /// The directory did not exist at the revision (`name` is `REV:path`).
    Missing { name: String, rev: String },
    /// The directory's path was something other than a directory at the
    /// revision (a file, a symbolic link, a submodule).
    NotADirectory { name: String, what: String },
    /// Any other failure of a git command: what was run, and git's message.
    Git { command: String, message: String },
}

impl Error {
    /// The error as a diagnostic at the manifest directory `dir` (as given
    /// on the command line), or at the revision's directory when that is
    /// what is wrong.
    pub fn diagnostic(&self, dir: &Path) -> Diagnostic {
        const OTHERWISE: &str =
            "or compare two directories: `kfam diff OLD_DIR NEW_DIR` (docs/reviewing.md)";
        let at = display(dir);
        match self {
            Error::NoGit(e) => Diagnostic::at_path(Code::Io, at, format!("cannot run `git`: {e}"))
                .help(format!(
                    "`--against` reads the revision with git: install git and put it on PATH, {OTHERWISE}"
                )),
            Error::NotARepository(message) => Diagnostic::at_path(
                Code::Io,
                at,
                "the manifest directory is not in a git work tree",
            )
            .note(format!("git: {message}"))
            .help(format!(
                "run kfam on a manifest inside a git checkout, {OTHERWISE}"
            )),
            Error::UnknownRevision { rev, top } => Diagnostic::at_path(
                Code::Io,
                at,
                format!("unknown revision `{rev}`: no commit of the repository has this name"),
            )
            .note(format!("repository: {top}"))
            .help(
                "pass a commit, branch or tag (`git rev-parse --verify 'REV^{commit}'` must \
                 succeed); a shallow CI checkout may need the base fetched first, e.g. \
                 `git fetch origin main` and `--against origin/main`",
            ),
            Error::Missing { name, rev } => Diagnostic::at_path(
                Code::Io,
                name.clone(),
                format!("the manifest directory did not exist at `{rev}`"),
            )
            .note("nothing to compare with: every family would be new")
            .help(format!(
                "`kfam check` checks a new catalog; if it moved, compare its old place: \
                 `git archive {rev} OLD_PATH | tar -x -C /tmp/base`, then \
                 `kfam diff /tmp/base/OLD_PATH {at}`"
            )),
            Error::NotADirectory { name, what } => Diagnostic::at_path(
                Code::Io,
                name.clone(),
                format!("expected the manifest directory, found {what}"),
            )
            .help(format!("pass a revision at which `{at}` is a manifest directory")),
            Error::Git { command, message } => {
                Diagnostic::at_path(Code::Io, at, format!("`git {command}` failed"))
                    .note(format!("git: {message}"))
                    .help(OTHERWISE)
            }
        }
    }
}

/// The manifest directory `dir` (of the work tree) as it was at revision
/// `rev`: `abi.toml` and `families/` ([`Tree::holds`]), named
/// `REV:path/from/the/top`.
pub fn read_tree(dir: &Path, rev: &str) -> Result<Tree, Error> {
    let git = Git { dir };
    let top = match git.run(&["rev-parse", "--show-toplevel"])? {
        Ok(out) => line(&out),
        Err(message) => return Err(Error::NotARepository(message)),
    };
    let prefix = match git.run(&["rev-parse", "--show-prefix"])? {
        Ok(out) => line(&out),
        Err(message) => return Err(Error::NotARepository(message)),
    };
    let unknown = || Error::UnknownRevision {
        rev: rev.to_owned(),
        top: top.clone(),
    };
    // An argument that starts with `-` would be read as an option.
    if rev.is_empty() || rev.starts_with('-') {
        return Err(unknown());
    }
    let peeled = format!("{rev}^{{commit}}");
    let commit = match git.run(&["rev-parse", "--verify", "--quiet", &peeled])? {
        Ok(out) => line(&out),
        Err(_) => return Err(unknown()),
    };
    let path = prefix.trim_end_matches('/');
    let name = format!("{rev}:{path}");
    let object = format!("{commit}:{path}");
    let tree = match git.run(&["rev-parse", "--verify", "--quiet", &object])? {
        Ok(out) => line(&out),
        Err(_) => {
            return Err(Error::Missing {
                name,
                rev: rev.to_owned(),
            })
        }
    };
    let kind = line(&git.expect(&["cat-file", "-t", &tree])?);
    if kind != "tree" {
        let what = match kind.as_str() {
            "blob" => "a file or a symbolic link".to_owned(),
            "commit" => "a submodule".to_owned(),
            other => format!("a {other}"),
        };
        return Err(Error::NotADirectory { name, what });
    }
    // `--full-tree`: paths relative to the listed tree, whatever the
    // directory git runs in.
    let listing = git.expect(&["ls-tree", "-r", "-t", "-l", "-z", "--full-tree", &tree])?;
    let mut wanted = Vec::new();
    let mut out = Tree {
        root: name,
        ..Tree::default()
    };
    for record in listing.split(|&b| b == 0).filter(|r| !r.is_empty()) {
        let malformed = || Error::Git {
            command: "ls-tree".to_owned(),
            message: format!(
                "unexpected output `{}`",
                String::from_utf8_lossy(record).escape_debug()
            ),
        };
        let tab = record
            .iter()
            .position(|&b| b == b'\t')
            .ok_or_else(malformed)?;
        let Ok(rel) = std::str::from_utf8(&record[tab + 1..]) else {
            continue; // not a name the loader reads
        };
        if !Tree::holds(rel) {
            continue;
        }
        let meta = std::str::from_utf8(&record[..tab]).map_err(|_| malformed())?;
        let [mode, kind, oid, size] = meta.split_ascii_whitespace().collect::<Vec<_>>()[..] else {
            return Err(malformed());
        };
        let entry = match (kind, mode) {
            ("tree", _) => Entry::Dir,
            ("commit", _) => Entry::Other("a submodule"),
            ("blob", "120000") => Entry::Other("a symbolic link"),
            ("blob", _) => {
                let size: u64 = size.parse().map_err(|_| malformed())?;
                if size > MAX_FILE_BYTES {
                    Entry::TooLarge(size)
                } else {
                    wanted.push((rel.to_owned(), oid.to_owned()));
                    continue;
                }
            }
            _ => Entry::Other("an object git does not name"),
        };
        out.entries.insert(rel.to_owned(), entry);
    }
    for ((rel, _), bytes) in wanted.iter().zip(git.blobs(&wanted)?) {
        out.entries.insert(rel.clone(), Entry::File(bytes));
    }
    Ok(out)
}

/// `git -C DIR ...`.
struct Git<'a> {
    dir: &'a Path,
}

impl Git<'_> {
    fn command(&self, args: &[&str]) -> Command {
        let mut command = Command::new("git");
        command.arg("-C").arg(self.dir).args(args);
        command
    }

    /// Run `git ARGS`: its stdout, or its message when it failed (the outer
    /// error: git could not be started).
    fn run(&self, args: &[&str]) -> Result<Result<Vec<u8>, String>, Error> {
        let out = self
            .command(args)
            .stdin(Stdio::null())
            .output()
            .map_err(Error::NoGit)?;
        if out.status.success() {
            Ok(Ok(out.stdout))
        } else {
            Ok(Err(message(&out.stderr, out.status)))
        }
    }

    /// [`Git::run`] for a command that only fails when something is wrong
    /// with the repository.
    fn expect(&self, args: &[&str]) -> Result<Vec<u8>, Error> {
        self.run(args)?.map_err(|message| Error::Git {
            command: args[0].to_owned(),
            message,
        })
    }

    /// The contents of the blobs `wanted` (`(path, object id)`), in order,
    /// through one `git cat-file --batch`.
    fn blobs(&self, wanted: &[(String, String)]) -> Result<Vec<Vec<u8>>, Error> {
        if wanted.is_empty() {
            return Ok(Vec::new());
        }
        let failed = |message: String| Error::Git {
            command: "cat-file --batch".to_owned(),
            message,
        };
        let mut child = self
            .command(&["cat-file", "--batch"])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(Error::NoGit)?;
        let mut stdin = child.stdin.take().expect("stdin is piped");
        let stdout = child.stdout.take().expect("stdout is piped");
        let mut stderr = child.stderr.take().expect("stderr is piped");
        // The requests are written while the answers are read: either pipe
        // could fill up and stall git.
        let (read, wrote, err) = std::thread::scope(|s| {
            let writer = s.spawn(move || -> io::Result<()> {
                for (_, oid) in wanted {
                    writeln!(stdin, "{oid}")?;
                }
                Ok(()) // dropping stdin ends git's input
            });
            let errors = s.spawn(move || {
                let mut text = Vec::new();
                let _ = stderr.read_to_end(&mut text);
                text
            });
            let read = read_batch(BufReader::new(stdout), wanted);
            (read, writer.join(), errors.join())
        });
        let status = child.wait().map_err(|e| failed(e.to_string()))?;
        let err = err.unwrap_or_default();
        if !status.success() {
            return Err(failed(message(&err, status)));
        }
        match wrote {
            Ok(Ok(())) => {}
            Ok(Err(e)) => return Err(failed(format!("writing the requests: {e}"))),
            Err(_) => return Err(failed("the request writer panicked".to_owned())),
        }
        read.map_err(failed)
    }
}

/// Read `git cat-file --batch` answers (`<oid> blob <size>\n<bytes>\n`, or
/// `<oid> missing\n`) for `wanted`, in order.
fn read_batch(mut out: impl BufRead, wanted: &[(String, String)]) -> Result<Vec<Vec<u8>>, String> {
    let mut blobs = Vec::with_capacity(wanted.len());
    let mut header = String::new();
    for (rel, oid) in wanted {
        header.clear();
        out.read_line(&mut header)
            .map_err(|e| format!("reading `{rel}`: {e}"))?;
        let fields: Vec<&str> = header.split_ascii_whitespace().collect();
        // The listing bounded every requested blob's size.
        let size = match fields[..] {
            [id, "blob", size] if id == oid => size
                .parse::<usize>()
                .ok()
                .filter(|&n| n as u64 <= MAX_FILE_BYTES),
            _ => None,
        };
        let Some(size) = size else {
            return Err(format!(
                "no blob `{oid}` for `{rel}` (git answered `{}`)",
                header.trim_end()
            ));
        };
        let mut bytes = vec![0; size + 1];
        out.read_exact(&mut bytes)
            .map_err(|e| format!("reading `{rel}`: {e}"))?;
        if bytes.pop() != Some(b'\n') {
            return Err(format!("reading `{rel}`: the answer does not end its blob"));
        }
        blobs.push(bytes);
    }
    Ok(blobs)
}

/// The first line of a command's output, without its line break.
fn line(out: &[u8]) -> String {
    let text = String::from_utf8_lossy(out);
    text.lines().next().unwrap_or("").to_owned()
}

/// git's message (its stderr, trimmed), or the exit status when it said
/// nothing.
fn message(stderr: &[u8], status: std::process::ExitStatus) -> String {
    let text = String::from_utf8_lossy(stderr);
    let text = text.trim();
    if text.is_empty() {
        format!("exited with {status}")
    } else {
        text.lines().collect::<Vec<_>>().join("; ")
    }
}
