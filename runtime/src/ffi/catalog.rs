//! [`CCatalog`]: one catalog as its C ABI serves it (every function of the
//! C ABI takes it first), with the accessors of its C tables.

use std::ffi::c_char;
use std::mem::size_of;
use std::sync::OnceLock;

use super::records::Opaque;
use crate::catalog::Catalog;
use crate::types::Family;
use crate::vocab::Status;

/// The accessors of a catalog's C tables (`codegen/c/shim.c` compiled
/// against its header): its records by index, in the order of its Rust
/// tables, and the name and identity of a caller's family record.
#[derive(Clone, Copy, Debug)]
pub struct Shim {
    pub table: unsafe extern "C" fn() -> *const Opaque,
    pub family: unsafe extern "C" fn(usize) -> *const Opaque,
    pub profile: unsafe extern "C" fn(usize, usize) -> *const Opaque,
    pub receipt: unsafe extern "C" fn(usize, usize) -> *const Opaque,
    pub torch_schema: unsafe extern "C" fn(usize) -> *const c_char,
    pub record_name: unsafe extern "C" fn(*const Opaque) -> *const c_char,
    pub record_identity: unsafe extern "C" fn(*const Opaque) -> *const c_char,
}

impl Shim {
    /// No C tables: every accessor returns NULL. What serves a catalog that
    /// has none to hand out (a test's, or one the prebuilt runtime refused).
    pub const NONE: Shim = {
        unsafe extern "C" fn table() -> *const Opaque {
            std::ptr::null()
        }
        unsafe extern "C" fn record(_: usize) -> *const Opaque {
            std::ptr::null()
        }
        unsafe extern "C" fn child(_: usize, _: usize) -> *const Opaque {
            std::ptr::null()
        }
        unsafe extern "C" fn text(_: usize) -> *const c_char {
            std::ptr::null()
        }
        unsafe extern "C" fn field(_: *const Opaque) -> *const c_char {
            std::ptr::null()
        }
        Shim {
            table,
            family: record,
            profile: child,
            receipt: child,
            torch_schema: text,
            record_name: field,
            record_identity: field,
        }
    };
}

/// A catalog as its C ABI serves it: the Rust tables that decide, the C
/// records handed out, and the catalog's status codes.
#[derive(Debug)]
pub struct CCatalog {
    pub catalog: &'static Catalog,
    pub shim: Shim,
    /// (address of C family record 0, distance between records).
    family_table: OnceLock<(usize, usize)>,
}

impl CCatalog {
    pub const fn new(catalog: &'static Catalog, shim: Shim) -> Self {
        CCatalog {
            catalog,
            shim,
            family_table: OnceLock::new(),
        }
    }

    /// The catalog's code of `status`.
    pub fn code(&self, status: Status) -> i32 {
        self.catalog.abi.status_code(status)
    }

    pub(crate) fn ok(&self) -> i32 {
        self.code(Status::Ok)
    }

    pub(crate) fn invalid(&self) -> i32 {
        self.code(Status::InvalidArgument)
    }

    pub(crate) fn family_index(&self, f: &Family) -> usize {
        index_of(self.catalog.families, f)
    }

    pub(crate) unsafe fn family(&self, i: usize) -> *const Opaque {
        (self.shim.family)(i)
    }

    pub(crate) unsafe fn profile(&self, family: usize, i: usize) -> *const Opaque {
        (self.shim.profile)(family, i)
    }

    pub(crate) unsafe fn receipt(&self, family: usize, i: usize) -> *const Opaque {
        (self.shim.receipt)(family, i)
    }

    /// The Rust record of `record` when it points into the library's own C
    /// family table (`shim.family(i)`, the same order as the families).
    pub(crate) fn library_family(&self, record: *const Opaque) -> Option<&'static Family> {
        let &(base, stride) = self.family_table.get_or_init(|| unsafe {
            let first = self.family(0) as usize;
            let second = self.family(1) as usize;
            (first, second.saturating_sub(first))
        });
        let offset = (record as usize).checked_sub(base)?;
        let index = match stride {
            0 => (offset == 0).then_some(0)?,
            _ if offset % stride == 0 => offset / stride,
            _ => return None,
        };
        self.catalog.families.get(index)
    }
}

/// The position of `item` in `slice` (a record of the catalog's tables).
pub(crate) fn index_of<T>(slice: &[T], item: &T) -> usize {
    (item as *const T as usize - slice.as_ptr() as usize) / size_of::<T>().max(1)
}
