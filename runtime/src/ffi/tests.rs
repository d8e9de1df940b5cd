//! The C ABI's own tests: the catalog's status codes, panics, and that
//! every exported body is guarded.

use super::boundary::guard;
use super::catalog::{CCatalog, Shim};
use super::decisions::find_family;
use super::records::Opaque;

use crate::catalog::Catalog;
use crate::targets::Targets;
use crate::types::Abi;

/// A catalog of no family whose status codes are not kfam's.
static CATALOG: Catalog = Catalog {
    name: "tiny",
    digest: "0000000000000000000000000000000000000000000000000000000000000000",
    abi: &Abi {
        revision: "0123456789abcdef0123456789abcdef01234567",
        major: 1,
        minor: 0,
        max_tensor_args: 4,
        max_scalar_args: 4,
        max_rank: 4,
        max_prepared: 4,
        status: [0, -1, -2, -3, -4, -5, -6, -7, -8],
    },
    targets: &Targets {
        platforms: &[],
        backends: &[],
        runtimes: &[],
        execution_modes: &[],
    },
    families: &[],
    retired: &[],
    artifacts: &[],
    family_index: &[],
    artifact_index: &[],
};
static C: CCatalog = CCatalog::new(&CATALOG, Shim::NONE);

/// `internal` is what a panic inside an exported function returns, in
/// the catalog's own code. No input produces one (the fuzz targets look
/// for them), so the mapping is tested here, and
/// `every_export_is_guarded` shows it covers every entry.
#[test]
fn a_panic_becomes_internal() {
    let quiet = std::panic::take_hook();
    std::panic::set_hook(Box::new(|_| {}));
    let got = guard(&C, || panic!("a defect"));
    std::panic::set_hook(quiet);
    assert_eq!(got, -1);
    assert_eq!(guard(&C, || C.ok()), 0);
}

/// Every status the C ABI returns is the catalog's code: an unknown
/// family is this catalog's `not_found` (-6), not kfam's (-1005).
#[test]
fn statuses_are_the_catalogs() {
    let mut out: *const Opaque = std::ptr::null();
    let got = unsafe { find_family(&C, c"add".as_ptr(), &mut out) };
    assert_eq!(got, -6);
    let got = unsafe { find_family(&C, std::ptr::null(), &mut out) };
    assert_eq!(got, -5);
}

/// The number of functions of the C ABI (public, `unsafe`, taking the
/// `&CCatalog` they serve first) in the Rust source `src`, asserting
/// that each body is one `guard(...)` call, so no panic unwinds into C
/// (which would be undefined behaviour).
fn guarded_exports(src: &str) -> usize {
    let file: syn::File = syn::parse_str(src).expect("the source parses");
    let mut exports = 0;
    for item in &file.items {
        let syn::Item::Fn(f) = item else { continue };
        let serves = f
            .sig
            .inputs
            .first()
            .is_some_and(|a| matches!(a, syn::FnArg::Typed(t) if serves_catalog(&t.ty)));
        if !(matches!(f.vis, syn::Visibility::Public(_)) && f.sig.unsafety.is_some() && serves) {
            continue;
        }
        exports += 1;
        let guarded = match f.block.stmts.as_slice() {
            [syn::Stmt::Expr(syn::Expr::Call(call), None)] => {
                matches!(&*call.func, syn::Expr::Path(p) if p.path.is_ident("guard"))
            }
            _ => false,
        };
        assert!(guarded, "`{}` is not one `guard(...)` call", f.sig.ident);
    }
    exports
}

/// `&CCatalog`.
fn serves_catalog(ty: &syn::Type) -> bool {
    let syn::Type::Reference(r) = ty else {
        return false;
    };
    matches!(&*r.elem, syn::Type::Path(p) if p.path.is_ident("CCatalog"))
}

#[test]
fn every_export_is_guarded() {
    let exports = guarded_exports(include_str!("decisions.rs"));
    assert_eq!(exports, 7, "decisions.rs has seven functions of the C ABI");
}

/// Every message function's body is one `guard(...)` call.
#[test]
fn every_message_export_is_guarded() {
    let exports = guarded_exports(include_str!("message.rs"));
    assert_eq!(exports, 5, "message.rs has five functions of the C ABI");
}
