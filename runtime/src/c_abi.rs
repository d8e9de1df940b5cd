//! [`c_abi!`](crate::c_abi): a catalog's C ABI, exported under its C prefix
//! from the crate that holds its tables.
//!
//! The functions a catalog's header declares (`npu_capability`,
//! `npu_admit`, ...) are each one call of the [`ffi`](crate::ffi) function
//! of the same name with the catalog they serve, so every catalog's library
//! runs the same code, and two catalogs' libraries (or one crate exporting
//! two catalogs) never share a symbol. `kfam_codegen::build::Builder::c_abi`
//! writes the invocation and compiles the C tables it reaches
//! (`PREFIX_shim_*`); see docs/c.md, "A catalog's own library".

/// Export the C ABI of `$catalog` (a `kfam_runtime::Catalog`) with the C
/// prefix `$prefix`, from a module `c_abi` beside it: `c_abi::capability`
/// is exported as `PREFIX_capability`, and Rust may call it by that path.
/// The catalog's C tables (`PREFIX_shim_*`, compiled from its header by
/// `kfam_codegen::build`) must be linked into the same crate.
#[macro_export]
macro_rules! c_abi {
    ($prefix:literal, $catalog:expr) => {
        /// The catalog's C ABI: each function is exported with the catalog's
        /// C prefix (`capability` as `PREFIX_capability`), as its header
        /// declares it.
        #[allow(clippy::missing_safety_doc)]
        pub mod c_abi {
            #[allow(unused_imports)]
            use super::*;
            use ::core::ffi::{c_char, c_void};
            use $crate::ffi::{
                self, AdmissionResult, ArtifactMatch, CCallError, CCatalog, CContextOptions,
                CPairing, CScalarArg, CTensorArg, CapabilityResult, KfamContext, LaunchFn, Opaque,
                Shim,
            };

            unsafe extern "C" {
                #[link_name = concat!($prefix, "_shim_table")]
                fn shim_table() -> *const Opaque;
                #[link_name = concat!($prefix, "_shim_family")]
                fn shim_family(i: usize) -> *const Opaque;
                #[link_name = concat!($prefix, "_shim_profile")]
                fn shim_profile(family: usize, i: usize) -> *const Opaque;
                #[link_name = concat!($prefix, "_shim_receipt")]
                fn shim_receipt(family: usize, i: usize) -> *const Opaque;
                #[link_name = concat!($prefix, "_shim_torch_schema")]
                fn shim_torch_schema(family: usize) -> *const c_char;
                #[link_name = concat!($prefix, "_shim_record_name")]
                fn shim_record_name(f: *const Opaque) -> *const c_char;
                #[link_name = concat!($prefix, "_shim_record_identity")]
                fn shim_record_identity(f: *const Opaque) -> *const c_char;
            }

            static C: CCatalog = CCatalog::new(
                &$catalog,
                Shim {
                    table: shim_table,
                    family: shim_family,
                    profile: shim_profile,
                    receipt: shim_receipt,
                    torch_schema: shim_torch_schema,
                    record_name: shim_record_name,
                    record_identity: shim_record_identity,
                },
            );

            $crate::__c_abi_exports! { $prefix, C;
                library_table(out: *mut *const Opaque);
                check_catalog(name: *const c_char, digest: *const c_char, buf: *mut c_char,
                    cap: usize, needed: *mut usize);
                check_pairing(header: *const CPairing, buf: *mut c_char, cap: usize,
                    needed: *mut usize);
                find_family(name: *const c_char, out: *mut *const Opaque);
                find_artifact(sha256_hex: *const c_char, out: *mut ArtifactMatch);
                capability(family: *const c_char, platform: i32, mode: i32, contract: i32,
                    out: *mut CapabilityResult);
                capability_message(family: *const c_char, platform: i32, mode: i32,
                    contract: i32, buf: *mut c_char, cap: usize, needed: *mut usize);
                admit(json: *const c_char, len: usize, sha256_hex: *const c_char,
                    out: *mut AdmissionResult);
                admit_message(json: *const c_char, len: usize, sha256_hex: *const c_char,
                    buf: *mut c_char, cap: usize, needed: *mut usize);
                torch_schema(family: *const c_char, out: *mut *const c_char);
                validate_call(family: *const Opaque, tensors: *const CTensorArg, n_tensors: usize,
                    scalars: *const CScalarArg, n_scalars: usize, err: *mut CCallError);
                validate_call_message(family: *const Opaque, tensors: *const CTensorArg,
                    n_tensors: usize, scalars: *const CScalarArg, n_scalars: usize,
                    buf: *mut c_char, cap: usize, needed: *mut usize);
                context_new(out: *mut *mut KfamContext);
                context_new_with(options: *const CContextOptions, out: *mut *mut KfamContext);
                context_init(ctx: *mut KfamContext, platform: i32, execution_mode: i32,
                    contract: i32, generation: u64, launch: Option<LaunchFn>, user: *mut c_void);
                context_init_generation(ctx: *mut KfamContext, platform: i32, execution_mode: i32,
                    contract: i32, generation: u64, launch: Option<LaunchFn>, user: *mut c_void);
                context_generation(ctx: *mut KfamContext, out: *mut u64);
                context_supported(ctx: *mut KfamContext, family: *const c_char);
                context_prepare(ctx: *mut KfamContext, compiled_meta: *const c_char, len: usize,
                    sha256: *const c_char, callable: *mut u64);
                context_launch(ctx: *mut KfamContext, callable: u64, tensors: *const CTensorArg,
                    n_tensors: usize, scalars: *const CScalarArg, n_scalars: usize, stream: u64);
                context_close(ctx: *mut KfamContext);
                context_free(ctx: *mut KfamContext);
            }
        }
    };
}

/// One exported function per line of [`c_abi!`]: `PREFIX_name`, calling
/// `ffi::name` with the catalog.
#[doc(hidden)]
#[macro_export]
macro_rules! __c_abi_exports {
    ($prefix:literal, $c:ident; $($name:ident($($arg:ident: $ty:ty),* $(,)?);)*) => {
        $(
            /// # Safety
            /// As the declaration in the catalog's header.
            #[unsafe(export_name = concat!($prefix, "_", stringify!($name)))]
            pub unsafe extern "C" fn $name($($arg: $ty),*) -> i32 {
                unsafe { $crate::ffi::$name(&$c, $($arg),*) }
            }
        )*
    };
}
