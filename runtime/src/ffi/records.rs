//! The argument and result records of the C ABI (`ArtifactMatch`,
//! `CapabilityResult`, `AdmissionResult`, `CTensorArg`, `CScalarValue`,
//! `CScalarArg`, `CCallError`, `CContextOptions`, `CPairing`) and
//! `RECORD_SIZES`: printed by the generator from the field lists of the
//! header's structs (`record::CALL_RECORDS` of kfam-codegen), with const
//! assertions of the size and offsets the header asserts too, so record
//! layout has one authority.

/// An opaque C record (`kfam_family`, `kfam_profile`, ...): Rust only passes
/// pointers to it along.
#[repr(C)]
pub struct Opaque {
    _private: [u8; 0],
}

include!(concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/generated/rust/ffi_records.rs"
));
