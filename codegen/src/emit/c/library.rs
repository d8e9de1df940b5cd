//! The catalog's library as C source: `src/PREFIX_catalog.c` (the C tables,
//! the catalog's description and every function the header declares, each
//! one call of the prebuilt runtime `libkfamrt`) and `src/kfamrt.h` (the
//! runtime's ABI it calls). A team compiles the unit with its own C
//! compiler; nothing of it needs Rust (docs/description.md).
//!
//! Both are real C files of this crate (`c/catalog.c`, `c/kfamrt.h`): the
//! unit is written with kfam's prefix and renamed like the header, with the
//! description's bytes, the header's status codes and record sizes filled
//! in from the IR and the record declarations.

use super::description::{c_rows, description, rows, text_len, FORMAT_MAJOR, FORMAT_MINOR};
use super::escape::c_string_literal;
use super::prefix::Prefix;
use crate::emit::output::GeneratedFile;
use crate::ir::Ir;
use crate::record::{CForm, CALL_RECORDS};
use crate::vocab::Status;

const UNIT: &str = include_str!("../../../c/catalog.c");
const RUNTIME_ABI: &str = include_str!("../../../c/kfamrt.h");

/// `src/kfamrt.h`: the runtime's ABI, with a prototype per function of the
/// C ABI.
fn runtime_abi(banner: &str) -> String {
    let text = RUNTIME_ABI.replace("@FUNCTIONS@", &super::functions::runtime_prototypes());
    format!("/* {banner} */\n{text}")
}

/// `src/PREFIX_catalog.c` and `src/kfamrt.h`, beside the C output's
/// `include/` (`c_dir`, the last segment of the C output directory).
pub(super) fn files(ir: &Ir, banner: &str, prefix: &Prefix, c_dir: &str) -> Vec<GeneratedFile> {
    let digest = crate::ir::catalog_digest(ir);
    let bytes = description(ir, &digest);
    let sizes: Vec<String> = CALL_RECORDS
        .iter()
        .filter_map(|r| match r.c {
            CForm::Struct { c, .. } => Some(format!("    (uint32_t)sizeof({c}),")),
            _ => None,
        })
        .collect();
    let status: Vec<String> = Status::ALL
        .iter()
        .map(|s| format!("KFAM_STATUS_{}", s.as_str().to_ascii_uppercase()))
        .collect();
    let header = format!("../{c_dir}/{}/{}", prefix.lower, prefix.file(""));
    let unit = UNIT
        .replace("@BANNER@", banner)
        .replace("@NAME@", &ir.catalog.name)
        .replace("@HEADER@", &header)
        .replace("@ROWS@", &rows(bytes.len()).to_string())
        .replace("@LENGTH@", &bytes.len().to_string())
        .replace("@RECORD_SIZES@", &sizes.join("\n"))
        .replace("@FORMAT_MAJOR@", &FORMAT_MAJOR.to_string())
        .replace("@FORMAT_MINOR@", &FORMAT_MINOR.to_string())
        .replace("@STATUS@", &status.join(", "))
        .replace(
            "@GENERATOR@",
            &c_string_literal(concat!("kfam ", env!("CARGO_PKG_VERSION"))),
        )
        .replace("@NAME_LITERAL@", &c_string_literal(&ir.catalog.name))
        .replace("@SHA256@", &crate::ir::sha256_hex(&bytes))
        .replace("@FUNCTIONS@", &super::functions::unit_definitions());
    // Renamed before the description goes in: it holds no C name, and at
    // scale it is most of the file.
    let unit = prefix.apply(&unit);
    let (head, tail) = unit
        .split_once("@DESCRIPTION@")
        .expect("the unit has a place for its description");
    // The rows' text, with each row's quotes, separator and indent.
    let rows_text = text_len(bytes.len()) + rows(bytes.len()) * 8;
    let mut text = String::with_capacity(unit.len() + rows_text);
    text.push_str(head);
    c_rows(&mut text, &bytes);
    text.push_str(tail);
    vec![
        GeneratedFile::new(format!("src/{}_catalog.c", prefix.lower), text),
        GeneratedFile::new("src/kfamrt.h", runtime_abi(banner)),
    ]
}
