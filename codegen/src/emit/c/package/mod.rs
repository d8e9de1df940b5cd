//! The catalog's CMake package config and pkg-config file, for C and C++
//! consumers of its headers and its library (docs/c.md, "CMake and
//! pkg-config"). Both locate the install from their own place in it
//! (`<prefix>/lib/cmake/NAME/`, `<prefix>/lib/pkgconfig/`), so an install
//! can move. Real files with `@KEY@` placeholders: the catalog's name, C
//! prefix, version and digest.

use super::super::output::GeneratedFile;
use crate::ir::Ir;

const CONFIG: &str = include_str!("config.cmake");
const CONFIG_VERSION: &str = include_str!("config-version.cmake");
const PKG_CONFIG: &str = include_str!("catalog.pc");

/// `lib/cmake/NAME/NAME-config.cmake` (with its version file) and
/// `lib/pkgconfig/NAME.pc`,
/// relative to the C output directory (beside `include/`).
pub(super) fn files(ir: &Ir, banner: &str) -> Vec<GeneratedFile> {
    let name = &ir.catalog.name;
    let fill = |template: &str| {
        template
            .replace("@BANNER@", banner)
            .replace("@NAME@", name)
            .replace("@PREFIX@", &ir.catalog.c_prefix)
            .replace("@UPPER@", &ir.catalog.c_prefix.to_ascii_uppercase())
            .replace("@VERSION@", &ir.catalog.version)
            .replace("@DIGEST@", &crate::ir::catalog_digest(ir))
    };
    vec![
        GeneratedFile::new(
            format!("lib/cmake/{name}/{name}-config.cmake"),
            fill(CONFIG),
        ),
        GeneratedFile::new(
            format!("lib/cmake/{name}/{name}-config-version.cmake"),
            fill(CONFIG_VERSION),
        ),
        GeneratedFile::new(format!("lib/pkgconfig/{name}.pc"), fill(PKG_CONFIG)),
    ]
}
