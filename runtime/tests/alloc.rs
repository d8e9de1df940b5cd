//! Call validation, lookups and admission allocate as the
//! docs say: a counting global allocator observes every allocation this
//! test binary makes. Calls and lookups make none; admission a fixed number
//! per document (its lists and optional strings).
//!
//! Counting is per thread (the libtest harness allocates on its own
//! threads), and each measured section runs several times after a warm-up,
//! so lazily initialised runtime state cannot hide in the first call.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

use kfam_catalog::c_abi::{find_family as kfam_find_family, validate_call as kfam_validate_call};
use kfam_catalog::CATALOG;
use kfam_runtime::ffi::CCallError;
use kfam_runtime::{validate_call, DType, Status};

/// The calls the `call` benchmark measures.
#[path = "../benches/common/calls.rs"]
mod calls;

struct Counting;

thread_local! {
    static ALLOCATIONS: Cell<u64> = const { Cell::new(0) };
    /// Bytes allocated and not yet freed by this thread (frees of another
    /// thread's memory count where they happen).
    static LIVE: Cell<i64> = const { Cell::new(0) };
}

fn live(delta: i64) {
    // `try_with`: the thread-local may be gone while a thread exits.
    let _ = LIVE.try_with(|n| n.set(n.get() + delta));
}

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let _ = ALLOCATIONS.try_with(|n| n.set(n.get() + 1));
        live(layout.size() as i64);
        System.alloc(layout)
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        let _ = ALLOCATIONS.try_with(|n| n.set(n.get() + 1));
        live(layout.size() as i64);
        System.alloc_zeroed(layout)
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let _ = ALLOCATIONS.try_with(|n| n.set(n.get() + 1));
        live(new_size as i64 - layout.size() as i64);
        System.realloc(ptr, layout, new_size)
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        live(-(layout.size() as i64));
        System.dealloc(ptr, layout)
    }
}

/// Bytes `f` leaves allocated on this thread.
fn kept(f: impl FnOnce()) -> i64 {
    let before = LIVE.with(Cell::get);
    f();
    LIVE.with(Cell::get) - before
}

/// A catalog description leaves nothing behind unless it opens, and then
/// once: `check` frees what it read, a refused description (damaged
/// anywhere, truncated) frees what it read, and opening the same bytes
/// again keeps nothing more (docs/description.md, "Memory").
#[test]
fn descriptions_are_freed_unless_opened_and_opened_once() {
    let manifest = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../manifest");
    let (ir, _) = kfam_codegen::check_dir(&manifest);
    let ir = ir.expect("the shipped manifest checks");
    let bytes = kfam_codegen::emit::c::description::description(
        &ir,
        &kfam_codegen::ir::catalog_digest(&ir),
    );
    use kfam_runtime::description;
    assert_eq!(kept(|| description::check(&bytes).unwrap()), 0);
    let mut refused = 0;
    for at in (8..bytes.len()).step_by(97) {
        let mut damaged = bytes.clone();
        damaged[at] = 0xff;
        let left = kept(|| {
            if description::check(&damaged).is_err() {
                refused += 1;
            }
        });
        assert_eq!(left, 0, "checking the bytes damaged at {at} kept memory");
    }
    assert!(refused > 100, "{refused} refused");
    for len in (0..bytes.len()).step_by(389) {
        let left = kept(|| {
            description::open(&bytes[..len]).unwrap_err();
        });
        assert_eq!(left, 0, "a refused open of {len} bytes kept memory");
    }
    let first = kept(|| {
        description::open(&bytes).unwrap();
    });
    assert!(first > bytes.len() as i64, "an opened catalog is kept");
    for _ in 0..3 {
        let again = kept(|| {
            description::open(&bytes).unwrap();
        });
        assert_eq!(again, 0);
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

/// Allocations `f` makes on this thread, over 100 calls after 3 warm-ups.
fn allocations(mut f: impl FnMut()) -> u64 {
    for _ in 0..3 {
        f();
    }
    let before = ALLOCATIONS.with(Cell::get);
    for _ in 0..100 {
        f();
    }
    ALLOCATIONS.with(Cell::get) - before
}

#[test]
fn counting_allocator_sees_allocations() {
    // The harness itself is sound: a Vec is counted.
    assert!(allocations(|| drop(std::hint::black_box(vec![1u8; 16]))) >= 100);
}

#[test]
fn validate_call_three_tensors_allocates_nothing() {
    let (add, tensors) = calls::add();
    let n = allocations(|| {
        std::hint::black_box(validate_call(add, &tensors, &[])).unwrap();
    });
    assert_eq!(n, 0, "3-tensor validate_call allocated");
    // Rejections allocate nothing either.
    let mut bad = tensors;
    bad[2].dtype = DType::Fp32;
    let n = allocations(|| {
        std::hint::black_box(validate_call(add, &bad, &[])).unwrap_err();
    });
    assert_eq!(n, 0, "rejected validate_call allocated");
}

#[test]
fn validate_call_with_a_symbol_allocates_nothing() {
    let (rows, tensors) = calls::add_rows();
    assert!(!rows.symbols.is_empty());
    let n = allocations(|| {
        std::hint::black_box(validate_call(rows, &tensors, &[])).unwrap();
    });
    assert_eq!(n, 0, "validate_call with a symbol allocated");
    // The symbol rules' rejections allocate nothing either.
    let mut mismatch = tensors;
    mismatch[1].shape = &[32, 256];
    mismatch[1].storage_bytes = 32 * 256 * 2;
    let mut range = tensors;
    for t in &mut range {
        t.shape = &[24, 256];
        t.storage_bytes = 24 * 256 * 2;
    }
    for (bad, rule) in [
        (mismatch, kfam_runtime::CallRule::DimMismatch),
        (range, kfam_runtime::CallRule::DimRange),
    ] {
        let n = allocations(|| {
            let e = std::hint::black_box(validate_call(rows, &bad, &[])).unwrap_err();
            assert_eq!(e.rule, rule);
        });
        assert_eq!(n, 0, "rejected validate_call ({rule}) allocated");
    }
}

#[test]
fn validate_call_twelve_params_allocates_nothing() {
    let (wide, tensors, scalars) = calls::wide();
    assert_eq!(wide.params.len(), 12);
    let n = allocations(|| {
        std::hint::black_box(validate_call(wide, &tensors, &scalars)).unwrap();
    });
    assert_eq!(n, 0, "12-param validate_call allocated");
}

#[test]
fn c_abi_validate_call_allocates_nothing() {
    let mut family = std::ptr::null();
    assert_eq!(
        unsafe { kfam_find_family(c"matmul_acc_nz_bf16".as_ptr(), &mut family) },
        0
    );
    let (tensors, scalars) = calls::c_matmul();
    let mut err = CCallError {
        struct_size: std::mem::size_of::<CCallError>() as u32,
        rule: 0,
        param_index: 0,
        symbol_index: 0,
        other_param_index: 0,
    };
    let n = allocations(|| {
        let status = unsafe {
            kfam_validate_call(family, tensors.as_ptr(), 3, scalars.as_ptr(), 2, &mut err)
        };
        assert_eq!(status, kfam_catalog::ABI.status_code(Status::Ok));
    });
    assert_eq!(n, 0, "kfam_validate_call allocated");
    let mut add = std::ptr::null();
    assert_eq!(
        unsafe { kfam_find_family(c"add_bf16_1024".as_ptr(), &mut add) },
        0
    );
    let tensors = calls::c_add();
    let n = allocations(|| {
        let status =
            unsafe { kfam_validate_call(add, tensors.as_ptr(), 3, std::ptr::null(), 0, &mut err) };
        assert_eq!(status, kfam_catalog::ABI.status_code(Status::Ok));
    });
    assert_eq!(n, 0, "3-tensor kfam_validate_call allocated");
}

#[test]
fn lookups_allocate_nothing() {
    let n = allocations(|| {
        std::hint::black_box(CATALOG.find(std::hint::black_box("matmul_acc_nz_bf16"))).unwrap();
        std::hint::black_box(CATALOG.find(std::hint::black_box("no_such_family")));
        std::hint::black_box(CATALOG.find_artifact(std::hint::black_box(
            "7d6c5b4a39281706f5e4d3c2b1a098877d6c5b4a39281706f5e4d3c2b1a09887",
        )))
        .unwrap();
    });
    assert_eq!(n, 0, "lookups allocated");
}

/// Admission of the benchmarked document (no escapes) allocates its lists
/// and optional strings as serde reads them, a fixed number per document
/// (19 for this one: the two parameter lists as they grow, each nonempty
/// shape, the return aliases, the capability list, `family` and
/// `abi_revision`), and nothing on the catalog side; required strings
/// borrow from the document.
#[test]
fn admission_allocates_a_fixed_number_per_document() {
    const DOC: &str = include_str!(
        "../../generated/schema/examples/matmul_acc_nz_bf16.a2a3_onboard.compiled_meta.json"
    );
    const SHA256: &str = "7d6c5b4a39281706f5e4d3c2b1a098877d6c5b4a39281706f5e4d3c2b1a09887";
    let n = allocations(|| {
        std::hint::black_box(
            kfam_catalog::CATALOG.admit(std::hint::black_box(DOC.as_bytes()), SHA256),
        )
        .unwrap();
    });
    assert_eq!(
        n,
        19 * 100,
        "admission allocated another number of times per document"
    );
}
