//! Naming: which declared names are legal, and how each language spells them.
//! Every case conversion and keyword decision lives here, so emitters stay dumb.

use heck::{ToShoutySnakeCase, ToSnakeCase, ToUpperCamelCase};

/// Longest family, parameter or profile name.
pub const MAX_NAME_LEN: usize = 64;

/// Keywords and reserved identifiers of Rust, C (C23), C++ (C++23) and Python
/// (3.12, soft keywords included), lowercase only because declared names are.
/// Sorted, for binary search.
const RESERVED: &[&str] = &[
    "abstract",
    "alignas",
    "alignof",
    "and",
    "and_eq",
    "as",
    "asm",
    "assert",
    "async",
    "atomic_cancel",
    "atomic_commit",
    "atomic_noexcept",
    "auto",
    "await",
    "become",
    "bitand",
    "bitor",
    "bool",
    "box",
    "break",
    "case",
    "catch",
    "char",
    "char16_t",
    "char32_t",
    "char8_t",
    "class",
    "co_await",
    "co_return",
    "co_yield",
    "compl",
    "concept",
    "const",
    "const_cast",
    "consteval",
    "constexpr",
    "constinit",
    "continue",
    "crate",
    "decltype",
    "def",
    "default",
    "del",
    "delete",
    "do",
    "double",
    "dyn",
    "dynamic_cast",
    "elif",
    "else",
    "enum",
    "except",
    "explicit",
    "export",
    "extern",
    "false",
    "final",
    "finally",
    "float",
    "fn",
    "for",
    "friend",
    "from",
    "gen",
    "global",
    "goto",
    "if",
    "impl",
    "import",
    "in",
    "inline",
    "int",
    "is",
    "lambda",
    "let",
    "long",
    "loop",
    "macro",
    "match",
    "mod",
    "move",
    "mut",
    "mutable",
    "namespace",
    "new",
    "noexcept",
    "nonlocal",
    "not",
    "not_eq",
    "nullptr",
    "operator",
    "or",
    "or_eq",
    "override",
    "pass",
    "priv",
    "private",
    "protected",
    "pub",
    "raise",
    "ref",
    "reflexpr",
    "register",
    "reinterpret_cast",
    "requires",
    "restrict",
    "return",
    "self",
    "short",
    "signed",
    "sizeof",
    "static",
    "static_assert",
    "static_cast",
    "struct",
    "super",
    "switch",
    "synchronized",
    "template",
    "this",
    "thread_local",
    "throw",
    "trait",
    "true",
    "try",
    "type",
    "typedef",
    "typeid",
    "typename",
    "typeof",
    "typeof_unqual",
    "union",
    "unsafe",
    "unsigned",
    "unsized",
    "use",
    "using",
    "virtual",
    "void",
    "volatile",
    "wchar_t",
    "where",
    "while",
    "with",
    "xor",
    "xor_eq",
    "yield",
];

/// Top-level modules of Python's standard library whose names are
/// identifiers of the manifest's form (`sys.stdlib_module_names` of Python
/// 3.11, which also holds those removed in 3.12 and 3.13), and `torch`: a
/// catalog's Python package of one of these names would be shadowed by
/// that module, or shadow it. Sorted, for binary search.
#[rustfmt::skip]
const PYTHON_TAKEN: &[&str] = &[
    "abc", "aifc", "antigravity", "argparse", "array", "ast", "asynchat", "asyncio", "asyncore",
    "atexit", "audioop", "base64", "bdb", "binascii", "bisect", "builtins", "bz2", "calendar",
    "cgi", "cgitb", "chunk", "cmath", "cmd", "code", "codecs", "codeop", "collections", "colorsys",
    "compileall", "concurrent", "configparser", "contextlib", "contextvars", "copy", "copyreg",
    "crypt", "csv", "ctypes", "curses", "dataclasses", "datetime", "dbm", "decimal", "difflib",
    "dis", "distutils", "doctest", "email", "encodings", "ensurepip", "enum", "errno",
    "faulthandler", "fcntl", "filecmp", "fileinput", "fnmatch", "fractions", "ftplib", "functools",
    "gc", "genericpath", "getopt", "getpass", "gettext", "glob", "graphlib", "grp", "gzip",
    "hashlib", "heapq", "hmac", "html", "http", "idlelib", "imaplib", "imghdr", "imp", "importlib",
    "inspect", "io", "ipaddress", "itertools", "json", "keyword", "lib2to3", "linecache", "locale",
    "logging", "lzma", "mailbox", "mailcap", "marshal", "math", "mimetypes", "mmap",
    "modulefinder", "msilib", "msvcrt", "multiprocessing", "netrc", "nis", "nntplib", "nt",
    "ntpath", "nturl2path", "numbers", "opcode", "operator", "optparse", "os", "ossaudiodev",
    "pathlib", "pdb", "pickle", "pickletools", "pipes", "pkgutil", "platform", "plistlib",
    "poplib", "posix", "posixpath", "pprint", "profile", "pstats", "pty", "pwd", "py_compile",
    "pyclbr", "pydoc", "pydoc_data", "pyexpat", "queue", "quopri", "random", "re", "readline",
    "reprlib", "resource", "rlcompleter", "runpy", "sched", "secrets", "select", "selectors",
    "shelve", "shlex", "shutil", "signal", "site", "smtpd", "smtplib", "sndhdr", "socket",
    "socketserver", "spwd", "sqlite3", "sre_compile", "sre_constants", "sre_parse", "ssl", "stat",
    "statistics", "string", "stringprep", "struct", "subprocess", "sunau", "symtable", "sys",
    "sysconfig", "syslog", "tabnanny", "tarfile", "telnetlib", "tempfile", "termios", "textwrap",
    "this", "threading", "time", "timeit", "tkinter", "token", "tokenize", "tomllib", "torch",
    "trace", "traceback", "tracemalloc", "tty", "turtle", "turtledemo", "types", "typing",
    "unicodedata", "unittest", "urllib", "uu", "uuid", "venv", "warnings", "wave", "weakref",
    "webbrowser", "winreg", "winsound", "wsgiref", "xdrlib", "xml", "xmlrpc", "zipapp", "zipfile",
    "zipimport", "zlib", "zoneinfo",
];

/// Namespaces PyTorch defines its own operators in (`torch.ops.<ns>`, as
/// of PyTorch 2.9; `prim` is refused by `torch.library.Library` itself) and
/// `torch`: a catalog defining its families there would collide with
/// PyTorch's. Sorted, for binary search.
const TORCH_TAKEN: &[&str] = &[
    "aten",
    "c10d",
    "debugprims",
    "export",
    "higher_order",
    "inductor",
    "mkl",
    "mkldnn",
    "onednn",
    "prim",
    "prims",
    "profiler",
    "quantized",
    "quantized_decomposed",
    "rngprims",
    "torch",
];

/// The import package of kfam's Python runtime, which every catalog's
/// package imports.
pub const PYTHON_RUNTIME_PACKAGE: &str = "kfam_runtime";

/// Why `name` cannot be a catalog's Python import package (besides the
/// identifier rules and reserved words), if it cannot.
pub fn python_package_problem(name: &str) -> Option<&'static str> {
    if PYTHON_TAKEN.binary_search(&name).is_ok() {
        return Some("it is the name of a standard-library module or of PyTorch, which it would shadow or be shadowed by");
    }
    if name == PYTHON_RUNTIME_PACKAGE {
        return Some("it is the import package of kfam's Python runtime, which every catalog's package imports");
    }
    None
}

/// Whether `name` is one of kfam's own Python distributions: its runtime,
/// which every catalog's package depends on, or its command line. pip
/// compares names normalized (PEP 503): `KFAM_Runtime` is `kfam-runtime`.
pub fn kfams_distribution(name: &str) -> bool {
    let normalized = name
        .to_ascii_lowercase()
        .split(['-', '_', '.'])
        .filter(|w| !w.is_empty())
        .collect::<Vec<_>>()
        .join("-");
    matches!(normalized.as_str(), "kfam-runtime" | "kfam-cli")
}

/// Names a catalog's Python error class (`UpperCamel(name)` + `Error`)
/// cannot take: the other classes the generated package and its modules
/// define or export (a record, the runtime's refusals) and Python's built-in
/// exceptions, which it would shadow. Sorted, for binary search.
#[rustfmt::skip]
const PYTHON_ERRORS_TAKEN: &[&str] = &[
    "AdmissionError", "ArithmeticError", "AssertionError", "AttributeError", "BlockingIOError",
    "BrokenPipeError", "BufferError", "CallError", "CapabilityError", "ChildProcessError",
    "ConnectionAbortedError", "ConnectionError", "ConnectionRefusedError", "ConnectionResetError",
    "ContextError", "EOFError", "EnvironmentError", "FakeCallError", "FileExistsError",
    "FileNotFoundError", "FloatingPointError", "IOError", "ImportError", "IndentationError",
    "IndexError", "InterruptedError", "IsADirectoryError", "KeyError", "LookupError",
    "MemoryError", "ModuleNotFoundError", "NameError", "NotADirectoryError", "NotImplementedError",
    "OSError", "OutputError", "OverflowError", "PermissionError", "ProcessLookupError",
    "PythonFinalizationError", "QualificationError", "RecursionError", "ReferenceError",
    "RuntimeError", "SyntaxError", "SystemError", "TabError", "TimeoutError", "TypeError",
    "UnboundLocalError", "UnicodeDecodeError", "UnicodeEncodeError", "UnicodeError",
    "UnicodeTranslateError", "ValueError", "VersionError", "ZeroDivisionError",
];

/// The base class of a catalog's refusals in its Python package:
/// `UpperCamel(name)` + `Error` (`KfamError`, `NpuopsError`).
pub fn python_error_class(catalog: &str) -> String {
    format!("{}Error", camel(catalog))
}

/// Why `name` cannot be a catalog's name (besides the identifier rules and
/// reserved words), if it cannot.
pub fn catalog_name_problem(name: &str) -> Option<&'static str> {
    if PYTHON_ERRORS_TAKEN
        .binary_search(&python_error_class(name).as_str())
        .is_ok()
    {
        return Some("the base class of its refusals in Python (`UpperCamel(name)` + `Error`) would be a class the generated package or Python already defines (`CallError`, `ContextError`, `OutputError`, `ValueError`, ...)");
    }
    None
}

/// Why `name` cannot be a catalog's torch namespace (besides the
/// identifier rules and reserved words), if it cannot.
pub fn torch_namespace_problem(name: &str) -> Option<&'static str> {
    if TORCH_TAKEN.binary_search(&name).is_ok() {
        return Some("PyTorch defines its own operators in this namespace");
    }
    None
}

/// Why `prefix` cannot prefix a catalog's C names (`prefix_family`,
/// `PREFIX_MACRO`; besides the identifier rules and reserved words), if it
/// cannot: the names it would begin are reserved, or potentially reserved,
/// for the C standard library (C23 7.33, "future library directions").
pub fn c_prefix_problem(prefix: &str) -> Option<&'static str> {
    let b = prefix.as_bytes();
    let lower_after = |head: &str| {
        prefix
            .strip_prefix(head)
            .and_then(|rest| rest.bytes().next())
            .is_some_and(|c| c.is_ascii_lowercase())
    };
    if ["is", "to", "str", "mem", "wcs"]
        .iter()
        .any(|h| lower_after(h))
    {
        return Some("C reserves function names that begin with `is`, `to`, `str`, `mem` or `wcs` and a lowercase letter (<ctype.h>, <string.h>, <wchar.h>)");
    }
    if b.len() >= 2 && b[0] == b'e' && (b[1].is_ascii_lowercase() || b[1].is_ascii_digit()) {
        return Some(
            "C reserves macro names that begin with `E` and a letter or digit (<errno.h>)",
        );
    }
    let words: &[&str] = &[
        "atomic",
        "cnd",
        "fe",
        "int",
        "lc",
        "memory_order",
        "mtx",
        "sig",
        "thrd",
        "time",
        "tss",
        "uint",
    ];
    if words
        .iter()
        .any(|w| prefix == *w || prefix.starts_with(&format!("{w}_")))
        || (prefix.starts_with("sig") && b.len() > 3 && b[3].is_ascii_lowercase())
    {
        return Some("C reserves names that begin with this word (`ATOMIC_`, `FE_`, `INT..._MAX`, `LC_`, `SIG`, `TIME_`, `atomic_`, `cnd_`, `mtx_`, `thrd_`, `tss_`, ...)");
    }
    if prefix.contains('_') {
        // `kfam` and `kfam_x` would both define `KFAM_X_INDEX_INDEX`
        // (family `x_index` of one, `index` of the other): without `_`, the
        // names of two catalogs differ before their first `_`.
        return Some("a C prefix is one word, without `_`, so that the C names of two catalogs never collide (prefix `kfam_x` and family `index` would define KFAM_X_INDEX_INDEX, as prefix `kfam` and family `x_index` do)");
    }
    None
}

/// Why a name is not acceptable, if it is not.
pub fn identifier_problem(name: &str) -> Option<&'static str> {
    let bytes = name.as_bytes();
    if bytes.is_empty() {
        return Some("a name cannot be empty");
    }
    if name.len() > MAX_NAME_LEN {
        return Some("a name is at most 64 characters");
    }
    if !bytes[0].is_ascii_lowercase() {
        return Some("a name starts with a lowercase ASCII letter");
    }
    if !bytes
        .iter()
        .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || *b == b'_')
    {
        return Some("a name uses only lowercase ASCII letters, digits and `_`");
    }
    if name.ends_with('_') || name.contains("__") {
        return Some("a name has no trailing or doubled `_`");
    }
    None
}

pub fn is_reserved(name: &str) -> bool {
    RESERVED.binary_search(&name).is_ok()
}

/// `add_bf16_1024` -> `AddBf161024` (Rust and Python type names).
pub fn camel(name: &str) -> String {
    if !is_plain_snake(name) {
        return name.to_upper_camel_case();
    }
    // The common case, without heck's general word splitting (emitters
    // convert every family, parameter and profile name, so this is hot).
    let mut out = String::with_capacity(name.len());
    for word in name.split('_') {
        let mut chars = word.chars();
        if let Some(first) = chars.next() {
            out.push(first.to_ascii_uppercase());
            out.push_str(chars.as_str());
        }
    }
    out
}

/// Lowercase ASCII snake_case (what every valid declared name is): for
/// those, heck's conversions reduce to per-character ones.
fn is_plain_snake(name: &str) -> bool {
    let b = name.as_bytes();
    !b.is_empty()
        && b[0].is_ascii_lowercase()
        && b[b.len() - 1] != b'_'
        && !name.contains("__")
        && b.iter()
            .all(|&c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == b'_')
}

/// `add_bf16_1024` -> `ADD_BF16_1024` (C macros and Rust constants).
pub fn shouty(name: &str) -> String {
    if is_plain_snake(name) {
        return name.to_ascii_uppercase();
    }
    name.to_shouty_snake_case()
}

/// A vocabulary's Rust name as a snake_case word: `ExecutionMode` ->
/// `execution_mode`, and `DType` -> `dtype` (one word, as in the manifest;
/// heck alone would split it into `d_type`). C type names and macro prefixes.
pub fn vocab_snake(vocab_name: &str) -> String {
    match vocab_name {
        "DType" => "dtype".to_owned(),
        other => other.to_snake_case(),
    }
}

/// C type names that differ from `kfam_<vocabulary>`, because that name is
/// taken by a function or struct of the C ABI (`kfam_capability()`,
/// `struct kfam_admission`). Their enumerators keep the vocabulary prefix
/// (`KFAM_CAPABILITY_SUPPORTED`).
const C_TYPE_RENAMES: &[(&str, &str)] = &[
    ("Capability", "kfam_capability_outcome"),
    ("Admission", "kfam_admission_outcome"),
];

/// `kfam_dtype`, `kfam_execution_mode`, `kfam_capability_outcome`.
pub fn c_vocab_type(vocab_name: &str) -> String {
    C_TYPE_RENAMES
        .iter()
        .find(|(v, _)| *v == vocab_name)
        .map_or_else(
            || format!("kfam_{}", vocab_snake(vocab_name)),
            |(_, c)| (*c).to_owned(),
        )
}

/// What other ecosystems call kfam's members (PyTorch's and NumPy's dtype
/// names, C's): too far from kfam's spelling to be a typo, yet what one
/// writes from habit (`bfloat16` is four edits from `bf16`). Offered only
/// when the member is among the candidates.
const ALIASES: &[(&str, &str)] = &[
    ("bfloat16", "bf16"),
    ("float", "fp32"),
    ("float16", "fp16"),
    ("float32", "fp32"),
    ("float4_e2m1fn_x2", "fp4"),
    ("float8_e4m3fn", "fp8e4m3fn"),
    ("float8_e8m0fnu", "fp8e8m0"),
    ("half", "fp16"),
    ("long", "int64"),
    ("short", "int16"),
];

/// The closest of `candidates` to `word`, if it is close enough to be a typo
/// (or another ecosystem's name for it: [`ALIASES`]).
pub fn did_you_mean<'c>(
    word: &str,
    candidates: impl IntoIterator<Item = &'c str>,
) -> Option<&'c str> {
    let lower = word.to_ascii_lowercase();
    let candidates: Vec<&str> = candidates.into_iter().collect();
    let alias = lower.strip_prefix("torch.").unwrap_or(&lower);
    if let Some(c) = ALIASES
        .iter()
        .find(|(a, _)| *a == alias)
        .and_then(|(_, m)| candidates.iter().find(|c| **c == *m))
    {
        return Some(c);
    }
    // `output` for `out`: the longest member the word starts with, when
    // little is left over (`program_and_kernel` is not `program`).
    if let Some(c) = candidates
        .iter()
        .filter(|c| c.len() >= 2 && lower.starts_with(**c) && lower.len() - c.len() <= 3)
        .max_by_key(|c| c.len())
    {
        return Some(c);
    }
    candidates
        .into_iter()
        .map(|c| (strsim::damerau_levenshtein(&lower, c), c))
        .filter(|&(d, c)| d <= (c.len().max(3) / 3).max(1) || lower == c)
        .min_by_key(|&(d, _)| d)
        .map(|(_, c)| c)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn other_ecosystems_names_are_offered() {
        let dtypes = ["fp32", "fp16", "bf16", "int64", "fp8e4m3fn"];
        assert_eq!(did_you_mean("bfloat16", dtypes), Some("bf16"));
        assert_eq!(did_you_mean("torch.bfloat16", dtypes), Some("bf16"));
        assert_eq!(did_you_mean("Float16", dtypes), Some("fp16"));
        assert_eq!(did_you_mean("float8_e4m3fn", dtypes), Some("fp8e4m3fn"));
        // Only a member the vocabulary has.
        assert_eq!(did_you_mean("bfloat16", ["fp32", "fp16"]), None);
    }

    #[test]
    fn reserved_list_is_sorted_and_unique() {
        for list in [RESERVED, PYTHON_TAKEN, TORCH_TAKEN, PYTHON_ERRORS_TAKEN] {
            assert!(
                list.windows(2).all(|w| w[0] < w[1]),
                "the lists of taken names must stay sorted"
            );
        }
    }

    /// A record class of the generated package named like an error is
    /// taken (`OutputError`).
    #[test]
    fn record_error_classes_are_taken() {
        for r in crate::record::LOGICAL_RECORDS {
            if r.name.ends_with("Error") {
                assert!(PYTHON_ERRORS_TAKEN.contains(&r.name), "{}", r.name);
            }
        }
    }

    #[test]
    fn catalog_names() {
        assert!(python_package_problem("json").is_some());
        assert!(python_package_problem("torch").is_some());
        assert!(python_package_problem("kfam").is_none());
        assert!(python_package_problem("kfam_runtime").is_some());
        for bad in [
            "capability",
            "admission",
            "call",
            "context",
            "fake_call",
            "output",
            "value",
            "runtime",
        ] {
            assert!(catalog_name_problem(bad).is_some(), "{bad}");
        }
        for good in ["kfam", "npuops", "myrt", "calls", "xdnaops"] {
            assert!(catalog_name_problem(good).is_none(), "{good}");
        }
        assert_eq!(python_error_class("kfam"), "KfamError");
        assert!(torch_namespace_problem("aten").is_some());
        assert!(torch_namespace_problem("kfam").is_none());
        for bad in [
            "isa", "string", "memx", "errno_x", "e1", "lc", "sig", "sigma", "int_ops", "time",
            "sig_x2", "to_x", "e_x", "my_rt", "kfam_x",
        ] {
            assert!(c_prefix_problem(bad).is_some(), "{bad}");
        }
        for good in [
            "kfam", "is", "to", "str", "e", "myrt", "lcd", "interval", "myteam2",
        ] {
            assert!(c_prefix_problem(good).is_none(), "{good}");
        }
    }

    #[test]
    fn identifiers() {
        assert_eq!(identifier_problem("add_bf16_1024"), None);
        assert!(identifier_problem("Add").is_some());
        assert!(identifier_problem("1x").is_some());
        assert!(identifier_problem("a__b").is_some());
        assert!(identifier_problem("a_").is_some());
        assert!(identifier_problem("").is_some());
        assert!(identifier_problem("é").is_some());
        assert!(is_reserved("in") && is_reserved("class") && is_reserved("int"));
        assert!(!is_reserved("lhs"));
    }

    #[test]
    fn cases() {
        assert_eq!(shouty("add_bf16_1024"), "ADD_BF16_1024");
        assert_eq!(camel("matmul_bf16_128x64x128"), "MatmulBf16128x64x128");
        assert_eq!(vocab_snake("DType"), "dtype");
        assert_eq!(vocab_snake("ExecutionMode"), "execution_mode");
        assert_eq!(vocab_snake("BinaryOp"), "binary_op");
    }
}

#[cfg(test)]
mod case_fast_path {
    use heck::{ToShoutySnakeCase, ToUpperCamelCase};

    #[test]
    fn same_as_heck() {
        let mut names: Vec<String> = [
            "a",
            "a2a3_sim",
            "x_1",
            "matmul_bf16_128x64x128",
            "a1b2_c3d4_e5",
            "v_2_x",
            "add_bf16_1024",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        let syn = crate::synth::manifest(500, 9);
        for (name, text) in &syn.families {
            names.push(name.clone());
            for line in text.lines() {
                if let Some(v) = line.strip_prefix("name = \"") {
                    names.push(v.trim_end_matches('"').to_owned());
                }
            }
        }
        for n in &names {
            assert_eq!(super::shouty(n), n.to_shouty_snake_case(), "{n}");
            assert_eq!(super::camel(n), n.to_upper_camel_case(), "{n}");
        }
    }
}
