//! `<package>/_abi.py`: what is the catalog's own besides its rows: the
//! native ABI of its `abi.toml` (revision, limits), `Status` valued as that
//! file declares, its platforms, backends, runtimes and execution modes
//! (subclasses of the runtime's bases in `kfam_runtime.vocab`), and the
//! catalog's identity (name, digest, torch namespace, version). Data only.

use crate::emit::writer::Writer;
use crate::ir::{self, Ir};
use crate::record::VOCABULARIES;
use crate::vocab::{Member, Status};

use super::text::py_str_literal;
use super::vocab::{coded, vocab_class};

/// The last line of a self-checked data file: the SHA-256 of every byte
/// before it (`kfam_runtime.check_data`, docs/python.md, "Integrity").
pub(super) const CHECKSUM: &str = "# kfam-sha256: ";

/// `_abi.py` of `ir`, beside a `_tables.py` whose SHA-256 is `tables`: the
/// file records it, and ends with its own checksum line ([`CHECKSUM`]).
pub(super) fn abi_py(ir: &Ir, header: &str, tables: &str) -> String {
    let abi = &ir.abi;
    let mut w = Writer::new("    ");
    w.raw(header);
    w.raw(
        r#""""The native ABI the approved artifacts target, as ``manifest/abi.toml`` declares it.

Data of one catalog: the ABI pin and limits, the C ABI status codes (``Status``) valued as
``abi.toml`` declares them, the platforms, backends, runtimes and execution modes it declares,
and the package version, which names the catalog.
"""

from __future__ import annotations

from enum import unique
from typing import Final

from kfam_runtime import vocab as _vocab

"#,
    );
    w.line("#: Native runtime commit the artifacts are built against.");
    w.line(format_args!(
        "ABI_REVISION: Final[str] = {}",
        py_str_literal(&abi.revision)
    ));
    w.line(format_args!("ABI_MAJOR: Final[int] = {}", abi.major));
    w.line(format_args!("ABI_MINOR: Final[int] = {}", abi.minor));
    w.line(format_args!(
        "MAX_TENSOR_ARGS: Final[int] = {}",
        abi.max_tensor_args
    ));
    w.line(format_args!(
        "MAX_SCALAR_ARGS: Final[int] = {}",
        abi.max_scalar_args
    ));
    w.line(format_args!("MAX_RANK: Final[int] = {}", abi.max_rank));
    w.line("#: Most callables one kernel context holds prepared (``context.Context``).");
    w.line(format_args!(
        "MAX_PREPARED: Final[int] = {}",
        abi.max_prepared
    ));
    w.line("#: Version of the canonical form ``Family.identity`` is taken over.");
    w.line(format_args!(
        "IDENTITY_FORMAT: Final[int] = {}",
        ir::IDENTITY_FORMAT
    ));
    let catalog = &ir.catalog;
    w.line("#: The catalog's name (`[catalog]` of `abi.toml`).");
    w.line(format_args!(
        "CATALOG_NAME: Final[str] = {}",
        py_str_literal(&catalog.name)
    ));
    w.line(
        "#: SHA-256 of what the catalog approves: its identity, ABI and every family's revision.",
    );
    w.line(format_args!(
        "CATALOG_DIGEST: Final[str] = {}",
        py_str_literal(&ir::catalog_digest(ir))
    ));
    w.line("#: The torch namespace the families are defined in (`NAMESPACE::FAMILY`).");
    w.line(format_args!(
        "TORCH_NAMESPACE: Final[str] = {}",
        py_str_literal(&catalog.torch_namespace)
    ));
    w.line("#: The distribution's version: the catalog's declared release.");
    w.line(format_args!(
        "__version__: Final[str] = {}",
        py_str_literal(&catalog.version)
    ));
    w.line(
        "#: The SHA-256 of ``_tables.py`` as kfam generate wrote it: the runtime checks the file",
    );
    w.line("#: against it before the first lookup reads it.");
    w.line(format_args!(
        "TABLES_SHA256: Final[str] = {}",
        py_str_literal(tables)
    ));
    w.blank();
    let status: Vec<(Member, i64)> = Status::ALL
        .iter()
        .zip(Status::VOCABULARY.members)
        .map(|(s, m)| (*m, i64::from(abi.status(*s))))
        .collect();
    let base = |name: &str| format!("_vocab.{name}");
    vocab_class(&mut w, &Status::VOCABULARY, &base(Status::NAME), &status);
    // The platforms, backends, runtimes and execution modes the catalog
    // declares.
    for vocab in VOCABULARIES.iter().filter(|v| v.declared) {
        vocab_class(&mut w, vocab, &base(vocab.name), &coded(&ir.members(vocab)));
    }
    let mut s = w.finish();
    // The class block closes with an empty line; the file ends after its last member.
    if s.ends_with("\n\n") {
        s.pop();
    }
    // The file checks itself: what `__init__.py` reads first.
    s.push('\n');
    let sum = ir::sha256_hex(s.as_bytes());
    s.push_str(CHECKSUM);
    s.push_str(&sum);
    s.push('\n');
    s
}
