//! The C ABI's functions, each declared once: its name, the documentation
//! the header carries, and its arguments in their one order, each with its
//! name and C type. Every function returns a status code of the catalog
//! (`kfam_status`, as `int32_t`).
//!
//! From this table the C emitter prints the header's prototypes with their
//! docs (`kfam.h`), the prebuilt runtime's ABI (`kfamrt.h`: the same
//! functions taking the catalog's descriptor first, its types erased) and
//! the generated unit's definitions (`PREFIX_catalog.c`, each one call of
//! `kfamrt_NAME`). The Rust functions that implement them
//! (`kfam_runtime::ffi::NAME`, taking the catalog first), the lists that
//! export them (`c_abi!`, `kfam-native`'s `kfamrt_*`) and docs/c.md's table
//! are held to it by `codegen/tests/c_functions.rs`, which compares every
//! name, argument and result (docs/architecture.md, "The C ABI's
//! functions").
//!
//! Names are kfam's spelling (`kfam_capability`); a catalog of another
//! prefix gets them renamed with the rest of its header.

use super::{
    CForm, Record, ADMISSION, ARTIFACT_MATCH, CALL_ERROR, CAPABILITY_RESULT, CONTEXT_OPTIONS,
    FAMILY, PAIRING, SCALAR_ARG, TABLE, TENSOR_ARG,
};
use crate::vocab::{Contract, Vocabulary, EXECUTION_MODE, PLATFORM};

/// One function of the C ABI.
#[derive(Debug)]
pub struct Function {
    /// Without a prefix: `capability` is `kfam_capability` in the header,
    /// `kfamrt_capability` in the prebuilt runtime and
    /// `kfam_runtime::ffi::capability` in Rust.
    pub name: &'static str,
    /// Where the header declares it.
    pub section: Section,
    /// The header's documentation: what it does, what it returns.
    pub doc: &'static str,
    pub args: &'static [Arg],
}

/// The header's two groups of functions.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Section {
    /// The decisions over the library's catalog (find, capability,
    /// admission, call validation, their messages, the catalog checks).
    Library,
    /// The kernel context (`kfam_context_*`, docs/runtime.md).
    Context,
}

/// One argument.
#[derive(Clone, Copy, Debug)]
pub struct Arg {
    pub name: &'static str,
    pub pass: Pass,
    pub base: Base,
}

/// How an argument is passed: by value or through a pointer, and which
/// levels of it are `const`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Pass {
    /// `T`.
    Value,
    /// `const T *`: read by the library.
    Const,
    /// `T *`: written by the library (a result, a buffer), or a handle.
    Mut,
    /// `const T **`: the library writes a pointer to something it owns.
    ConstOut,
    /// `T **`: the library writes a pointer to something it allocated.
    MutOut,
}

/// What an argument is, or points to.
#[derive(Clone, Copy, Debug)]
pub enum Base {
    /// `int32_t` (`i32`).
    I32,
    /// `uint64_t` (`u64`).
    U64,
    /// `size_t` (`usize`).
    Size,
    /// `char` (`c_char`): text.
    Char,
    /// `void` (`c_void`): the caller's own pointer, passed along.
    Void,
    /// A vocabulary's enum (`kfam_platform`), which the header asserts is
    /// 32-bit. Rust takes an `i32`: an unknown code is a refusal, never an
    /// invalid Rust enum.
    Enum(&'static Vocabulary),
    /// An argument or result record of the C ABI
    /// ([`CALL_RECORDS`](super::CALL_RECORDS)), with its `#[repr(C)]`
    /// mirror in Rust.
    Call(&'static Record),
    /// A record of the tables (`kfam_family`, `kfam_table`): Rust only
    /// passes pointers to it along, as `Opaque`.
    Table(&'static Record),
    /// `kfam_context`: opaque to C, `KfamContext` in Rust.
    Context,
    /// The launcher, [`LAUNCH_FN`] (`kfam_launch_fn`): `Option<LaunchFn>` in
    /// Rust, where NULL is a refusal.
    Launch,
}

/// The opaque type of a kernel context.
pub const CONTEXT_TYPE: &str = "kfam_context";

impl Function {
    /// `kfam_capability`.
    pub fn c_name(&self) -> String {
        format!("kfam_{}", self.name)
    }

    /// The C declaration without `KFAM_API` and `;`:
    /// `int32_t kfam_find_family(const char *name, const kfam_family **out)`.
    pub fn c_signature(&self) -> String {
        format!("int32_t {}({})", self.c_name(), c_args(self.args))
    }
}

/// `const char *name, size_t len`.
pub fn c_args(args: &[Arg]) -> String {
    let args: Vec<String> = args.iter().map(|a| a.c()).collect();
    args.join(", ")
}

impl Arg {
    /// The C parameter: `const kfam_family **out`.
    pub fn c(&self) -> String {
        spell(self.pass, &self.base.c(), self.name)
    }

    /// The Rust type of the parameter in `kfam_runtime::ffi`:
    /// `*mut *const Opaque`.
    pub fn rust(&self) -> String {
        let base = self.base.rust();
        match self.pass {
            Pass::Value => base,
            Pass::Const => format!("*const {base}"),
            Pass::Mut => format!("*mut {base}"),
            Pass::ConstOut => format!("*mut *const {base}"),
            Pass::MutOut => format!("*mut *mut {base}"),
        }
    }
}

/// A C parameter of type `base` passed as `pass`, named `name`.
pub fn spell(pass: Pass, base: &str, name: &str) -> String {
    match pass {
        Pass::Value => format!("{base} {name}"),
        Pass::Const => format!("const {base} *{name}"),
        Pass::Mut => format!("{base} *{name}"),
        Pass::ConstOut => format!("const {base} **{name}"),
        Pass::MutOut => format!("{base} **{name}"),
    }
}

impl Base {
    /// Its C type in the header: `kfam_platform`, `kfam_tensor_arg`.
    pub fn c(&self) -> String {
        match self {
            Base::I32 => "int32_t".to_owned(),
            Base::U64 => "uint64_t".to_owned(),
            Base::Size => "size_t".to_owned(),
            Base::Char => "char".to_owned(),
            Base::Void => "void".to_owned(),
            Base::Enum(v) => crate::names::c_vocab_type(v.name),
            Base::Call(r) | Base::Table(r) => r
                .c_name()
                .expect("a record a function takes is a C struct")
                .to_owned(),
            Base::Context => CONTEXT_TYPE.to_owned(),
            Base::Launch => LAUNCH_FN.c_name(),
        }
    }

    /// Its Rust type in `kfam_runtime::ffi`: `i32`, `CTensorArg`.
    pub fn rust(&self) -> String {
        match self {
            Base::I32 | Base::Enum(_) => "i32".to_owned(),
            Base::U64 => "u64".to_owned(),
            Base::Size => "usize".to_owned(),
            Base::Char => "c_char".to_owned(),
            Base::Void => "c_void".to_owned(),
            Base::Call(r) => match r.c {
                CForm::Struct {
                    mirror: Some(m), ..
                } => m.to_owned(),
                _ => panic!("`{}` has no Rust mirror", r.name),
            },
            Base::Table(_) => "Opaque".to_owned(),
            Base::Context => "KfamContext".to_owned(),
            Base::Launch => "Option<LaunchFn>".to_owned(),
        }
    }
}

use Base::{Call, Char, Context, Enum, Launch, Size, Table, Void, I32, U64};
use Pass::{Const, ConstOut, Mut, MutOut, Value};

const fn arg(name: &'static str, pass: Pass, base: Base) -> Arg {
    Arg { name, pass, base }
}

/// Every function of the C ABI, in header order.
pub static C_FUNCTIONS: &[Function] = &[
    Function {
        name: "library_table",
        section: Section::Library,
        doc: "The library's own tables and ABI version: compare (*out)->abi_major with\n\
         KFAM_ABI_MAJOR before using anything else of the library.\n\
         Returns KFAM_STATUS_OK, or KFAM_STATUS_INVALID_ARGUMENT when out is NULL.",
        args: &[arg("out", ConstOut, Table(&TABLE))],
    },
    Function {
        name: "check_catalog",
        section: Section::Library,
        doc: "Whether the library serves the catalog of the header the caller was\n\
         compiled with: pass KFAM_CATALOG_NAME and KFAM_CATALOG_DIGEST. A program\n\
         calls it once, before anything else of the library. Writes a message\n\
         into buf (at most cap bytes, NUL-terminated; buf may be NULL when cap is\n\
         0) and its full length into *needed (when not NULL): when they differ it\n\
         names both catalogs, their versions' digests and what to rebuild.\n\
         Returns KFAM_STATUS_OK when the digests are equal, or\n\
         KFAM_STATUS_PREPARED_INCOMPATIBLE; KFAM_STATUS_INVALID_ARGUMENT for a\n\
         NULL or non-UTF-8 name or digest, or a NULL buf with a nonzero cap.",
        args: &[
            arg("name", Const, Char),
            arg("digest", Const, Char),
            arg("buf", Mut, Char),
            arg("cap", Value, Size),
            arg("needed", Mut, Size),
        ],
    },
    Function {
        name: "check_pairing",
        section: Section::Library,
        doc: "Whether the library pairs with the header the caller was compiled with,\n\
         from what the header compiled in (kfam_gen_pairing(); call it through\n\
         KFAM_CHECK_CATALOG(buf, cap, needed), once, before anything else of the\n\
         library). It pairs when the catalog, the ABI major, the status codes,\n\
         the limits and the record sizes are the library's, every target of the\n\
         header is the library's with its code, and the library's families of\n\
         the header's approval (KFAM_CATALOG_APPROVAL) and older are the\n\
         header's: a library whose catalog only added families and targets pairs\n\
         with a program built against an earlier header. Otherwise the message\n\
         names the first difference (see docs/compatibility.md). buf, cap and\n\
         needed as for kfam_check_catalog.\n\
         Returns KFAM_STATUS_OK, KFAM_STATUS_PREPARED_INCOMPATIBLE, or\n\
         KFAM_STATUS_INVALID_ARGUMENT for a NULL or too small pairing record or a\n\
         NULL buf with a nonzero cap.",
        args: &[
            arg("header", Const, Call(&PAIRING)),
            arg("buf", Mut, Char),
            arg("cap", Value, Size),
            arg("needed", Mut, Size),
        ],
    },
    Function {
        name: "find_family",
        section: Section::Library,
        doc: "Look up an approved family by name.\n\
         Returns KFAM_STATUS_OK and sets *out; KFAM_STATUS_NOT_FOUND (and sets *out\n\
         to NULL) when no approved family has this name; or\n\
         KFAM_STATUS_INVALID_ARGUMENT when name or out is NULL.",
        args: &[
            arg("name", Const, Char),
            arg("out", ConstOut, Table(&FAMILY)),
        ],
    },
    Function {
        name: "find_artifact",
        section: Section::Library,
        doc: "Look up the (family, profile, receipt) that records an artifact digest.\n\
         Digests are unique across the manifest, so there is at most one match.\n\
         Returns KFAM_STATUS_OK; KFAM_STATUS_NOT_FOUND when no receipt records the\n\
         digest; or KFAM_STATUS_INVALID_ARGUMENT when sha256_hex is not 64\n\
         lowercase hex digits or out is NULL or too small.",
        args: &[
            arg("sha256_hex", Const, Char),
            arg("out", Mut, Call(&ARTIFACT_MATCH)),
        ],
    },
    Function {
        name: "capability",
        section: Section::Library,
        doc: "Is `family` supported on `platform` in `mode` under `contract`? Supported\n\
         means: the family declares this contract, one of its profiles has this\n\
         platform and execution mode, and a receipt qualifies that profile (the\n\
         first such profile in declaration order is reported). out->outcome says\n\
         why not otherwise.\n\
         Returns KFAM_STATUS_OK (KFAM_CAPABILITY_SUPPORTED); KFAM_STATUS_NOT_FOUND\n\
         (KFAM_CAPABILITY_UNKNOWN_FAMILY); KFAM_STATUS_UNSUPPORTED\n\
         (KFAM_CAPABILITY_CONTRACT_MISMATCH, _NO_PROFILE); KFAM_STATUS_NOT_APPROVED\n\
         (KFAM_CAPABILITY_NO_RECEIPT: declared there, but no artifact qualified); or\n\
         KFAM_STATUS_INVALID_ARGUMENT (KFAM_CAPABILITY_INVALID_CALL) for NULL\n\
         pointers, a too small out or an unknown enum code. Whenever out is usable\n\
         every field of it is written; 0 is never a decision.",
        args: &[
            arg("family", Const, Char),
            arg("platform", Value, Enum(&PLATFORM)),
            arg("mode", Value, Enum(&EXECUTION_MODE)),
            arg("contract", Value, Enum(&Contract::VOCABULARY)),
            arg("out", Mut, Call(&CAPABILITY_RESULT)),
        ],
    },
    Function {
        name: "capability_message",
        section: Section::Library,
        doc: "Why kfam_capability decides as it does, in words: the same decision, with\n\
         a NUL-terminated English message written into `buf` (at most `cap` bytes,\n\
         truncated at a character boundary; `buf` may be NULL when `cap` is 0) and\n\
         its full length, without the NUL, into `*needed` (when not NULL), as\n\
         kfam_admit_message does. The message names the family, platform and mode\n\
         (\"no_profile: family `silu_bf16` has no profile for platform `a5` in `sim`\n\
         mode\"; \"supported: family ... with profile `a2a3_sim`\"). Returns the status\n\
         kfam_capability returns (KFAM_STATUS_INVALID_ARGUMENT for bad pointers or\n\
         codes). Call it after a refusal: kfam_capability builds no message.",
        args: &[
            arg("family", Const, Char),
            arg("platform", Value, Enum(&PLATFORM)),
            arg("mode", Value, Enum(&EXECUTION_MODE)),
            arg("contract", Value, Enum(&Contract::VOCABULARY)),
            arg("buf", Mut, Char),
            arg("cap", Value, Size),
            arg("needed", Mut, Size),
        ],
    },
    Function {
        name: "admit",
        section: Section::Library,
        doc: "Admit a compiled artifact before any cache entry is built: `json` (`len`\n\
         bytes, need not be NUL-terminated) is its compiled_meta.json, `sha256_hex`\n\
         the digest of the artifact file. Strict JSON: exact types (a bool is not\n\
         an integer), duplicate and unknown keys refused, size bounded. Schema 1\n\
         and 2 reload as program only and never establish a kernel contract.\n\
         Params, lowered params, aliases, platform/backend, capabilities and the\n\
         digest must exact-match an approved family, profile and receipt.\n\
         Returns KFAM_STATUS_OK (KFAM_ADMISSION_ADMITTED; family, profile, receipt\n\
         and contract set); KFAM_STATUS_RECOMPILE_REQUIRED\n\
         (KFAM_ADMISSION_RECOMPILE_REQUIRED: legacy or incomplete kernel metadata);\n\
         KFAM_STATUS_NOT_FOUND (KFAM_ADMISSION_UNKNOWN_FAMILY);\n\
         KFAM_STATUS_NOT_APPROVED (KFAM_ADMISSION_NOT_APPROVED, out->field naming\n\
         the first difference);\n\
         KFAM_STATUS_PREPARED_INCOMPATIBLE (KFAM_ADMISSION_PREPARED_INCOMPATIBLE:\n\
         built against another native runtime revision than KFAM_ABI_REVISION);\n\
         KFAM_STATUS_INVALID_ARGUMENT (KFAM_ADMISSION_MALFORMED, a malformed\n\
         document or digest; KFAM_ADMISSION_INVALID_CALL, NULL pointers or a too\n\
         small out). Whenever out is usable every field of it is written; 0 is\n\
         never a decision.",
        args: &[
            arg("json", Const, Char),
            arg("len", Value, Size),
            arg("sha256_hex", Const, Char),
            arg("out", Mut, Call(&ADMISSION)),
        ],
    },
    Function {
        name: "admit_message",
        section: Section::Library,
        doc: "Why kfam_admit decides as it does, in words: the same decision, with a\n\
         NUL-terminated English message written into `buf` (at most `cap` bytes,\n\
         truncated at a character boundary; `buf` may be NULL when `cap` is 0) and\n\
         its full length, without the NUL, into `*needed` (when not NULL). The\n\
         message names the key that made the document malformed (\"malformed:\n\
         `dtype` of `params` is not a known value\") or the first field that is not\n\
         approved (\"not_approved (`params` differs)\"). Returns the status\n\
         kfam_admit returns (KFAM_STATUS_INVALID_ARGUMENT for bad pointers).\n\
         Call it after a refusal: kfam_admit itself builds no message.",
        args: &[
            arg("json", Const, Char),
            arg("len", Value, Size),
            arg("sha256_hex", Const, Char),
            arg("buf", Mut, Char),
            arg("cap", Value, Size),
            arg("needed", Mut, Size),
        ],
    },
    Function {
        name: "validate_call",
        section: Section::Library,
        doc: "Validate one call of `family` before launch (the CallFrame rules).\n\
         `tensors` holds the family's tensor arguments in tensor-pool order\n\
         (kfam_param.pool_index), `scalars` its scalar arguments in scalar-pool\n\
         order; each array is read with the stride of its first element's\n\
         struct_size (NULL with a count of 0 is allowed). `family` may be a record\n\
         of this header or of the library: it is resolved by name and must carry\n\
         the identity the library approved.\n\
         Rules: dtype and rank; static extents equal, KFAM_DIM_DYNAMIC takes the\n\
         current extent; contiguous row-major views in ND and NCHW (extents of 1\n\
         may carry any stride); NZ storage only for NZ parameters, at offset 0;\n\
         storage offsets kept and storage bounds checked for nonempty views; one\n\
         device for every tensor; identical byte spans and disjoint views of one\n\
         storage allowed, partial overlap involving a written tensor rejected;\n\
         integer scalars must fit their dtype, floats are never truncated to\n\
         integers, finite float overflow is rejected. Does not allocate.\n\
         Returns KFAM_STATUS_OK (err->rule KFAM_CALL_RULE_OK);\n\
         KFAM_STATUS_INVALID_ARGUMENT for a rejected call (err->rule and\n\
         err->param_index say which) or a malformed descriptor (err->rule\n\
         KFAM_CALL_RULE_INVALID_CALL);\n\
         KFAM_STATUS_NOT_FOUND when the library approves no family of that name;\n\
         KFAM_STATUS_PREPARED_INCOMPATIBLE when it does, with another identity (the\n\
         record was compiled from another revision of the manifest); on these two\n\
         err->rule is KFAM_CALL_RULE_INVALID_CALL too. That rule is 0, so an err\n\
         the library could not write (struct_size too small) reads as refused when\n\
         zeroed, never as KFAM_CALL_RULE_OK. `err` may be NULL.",
        args: &[
            arg("family", Const, Table(&FAMILY)),
            arg("tensors", Const, Call(&TENSOR_ARG)),
            arg("n_tensors", Value, Size),
            arg("scalars", Const, Call(&SCALAR_ARG)),
            arg("n_scalars", Value, Size),
            arg("err", Mut, Call(&CALL_ERROR)),
        ],
    },
    Function {
        name: "validate_call_message",
        section: Section::Library,
        doc: "Why kfam_validate_call decides as it does, in words: the same arguments\n\
         and decision, with a NUL-terminated English message written into `buf` (at\n\
         most `cap` bytes, truncated at a character boundary; `buf` may be NULL\n\
         when `cap` is 0) and its full length, without the NUL, into `*needed`\n\
         (when not NULL), as kfam_admit_message does. A refused call's message says\n\
         what was expected and what was passed (\"argument 1 (`rhs`): dtype: dtype\n\
         fp16, expected bf16\"), in the words of the Rust runtime's\n\
         CallError::explain and the Python package's CallError; an accepted call's\n\
         is \"ok\". Returns the status kfam_validate_call returns. Call it after a\n\
         refusal: kfam_validate_call builds no message (and allocates nothing);\n\
         this function does.",
        args: &[
            arg("family", Const, Table(&FAMILY)),
            arg("tensors", Const, Call(&TENSOR_ARG)),
            arg("n_tensors", Value, Size),
            arg("scalars", Const, Call(&SCALAR_ARG)),
            arg("n_scalars", Value, Size),
            arg("buf", Mut, Char),
            arg("cap", Value, Size),
            arg("needed", Mut, Size),
        ],
    },
    Function {
        name: "torch_schema",
        section: Section::Library,
        doc: "The torch dispatcher schema string of a family (kfam_family.torch_schema:\n\
         the same string as the Python package's), library-owned, NUL-terminated.\n\
         Returns KFAM_STATUS_OK; KFAM_STATUS_NOT_FOUND for an unknown family;\n\
         KFAM_STATUS_UNSUPPORTED when the family offers no torch binding\n\
         (kfam_family.torch is 0 or torch_schema is NULL); or\n\
         KFAM_STATUS_INVALID_ARGUMENT for NULL pointers. *out is NULL unless\n\
         KFAM_STATUS_OK.",
        args: &[arg("family", Const, Char), arg("out", ConstOut, Char)],
    },
    Function {
        name: "context_new",
        section: Section::Context,
        doc: "A fresh context in *out, holding at most KFAM_MAX_PREPARED prepared\n\
         callables (the library's limit, kfam_table.max_prepared).\n\
         KFAM_STATUS_INVALID_ARGUMENT when out is NULL.",
        args: &[arg("out", MutOut, Context)],
    },
    Function {
        name: "context_new_with",
        section: Section::Context,
        doc: "kfam_context_new with options. KFAM_STATUS_INVALID_ARGUMENT (and nothing\n\
         allocated) when options or out is NULL or options->struct_size is below\n\
         the size of this first layout.",
        args: &[
            arg("options", Const, Call(&CONTEXT_OPTIONS)),
            arg("out", MutOut, Context),
        ],
    },
    Function {
        name: "context_init",
        section: Section::Context,
        doc: "Latch platform, execution mode and contract (kfam_platform,\n\
         kfam_execution_mode, kfam_contract codes) and the launcher. generation 0\n\
         takes the next number of a process-wide counter starting at 1 (see\n\
         kfam_context_init_generation for a generation of the caller's).\n\
         KFAM_STATUS_INVALID_STATE when already initialised or closed, or for a\n\
         program contract; KFAM_STATUS_UNSUPPORTED when no approved kernel profile\n\
         runs on that platform and mode; KFAM_STATUS_INVALID_ARGUMENT for NULL ctx\n\
         or launch or an unknown code.",
        args: &[
            arg("ctx", Mut, Context),
            arg("platform", Value, I32),
            arg("execution_mode", Value, I32),
            arg("contract", Value, I32),
            arg("generation", Value, U64),
            arg("launch", Value, Launch),
            arg("user", Mut, Void),
        ],
    },
    Function {
        name: "context_init_generation",
        section: Section::Context,
        doc: "kfam_context_init with the caller's own generation number instead of the\n\
         process-wide counter's: generation 0 is reserved and refused with\n\
         KFAM_STATUS_INVALID_ARGUMENT, before any state changes.",
        args: &[
            arg("ctx", Mut, Context),
            arg("platform", Value, I32),
            arg("execution_mode", Value, I32),
            arg("contract", Value, I32),
            arg("generation", Value, U64),
            arg("launch", Value, Launch),
            arg("user", Mut, Void),
        ],
    },
    Function {
        name: "context_generation",
        section: Section::Context,
        doc: "The generation latched by init in *out. KFAM_STATUS_INVALID_STATE before\n\
         init or after close; KFAM_STATUS_INVALID_ARGUMENT when ctx or out is NULL.\n\
         *out is written only on KFAM_STATUS_OK.",
        args: &[arg("ctx", Mut, Context), arg("out", Mut, U64)],
    },
    Function {
        name: "context_supported",
        section: Section::Context,
        doc: " The capability status of family for the latched identity.",
        args: &[arg("ctx", Mut, Context), arg("family", Const, Char)],
    },
    Function {
        name: "context_prepare",
        section: Section::Context,
        doc: "Admit compiled_meta (len bytes) for the artifact sha256 and check its\n\
         capability; *callable is its id (the same id for the same artifact).\n\
         KFAM_STATUS_INVALID_STATE past the context's limit of prepared callables.",
        args: &[
            arg("ctx", Mut, Context),
            arg("compiled_meta", Const, Char),
            arg("len", Value, Size),
            arg("sha256", Const, Char),
            arg("callable", Mut, U64),
        ],
    },
    Function {
        name: "context_launch",
        section: Section::Context,
        doc: " Validate a call of callable and hand it to the launcher with stream.",
        args: &[
            arg("ctx", Mut, Context),
            arg("callable", Value, U64),
            arg("tensors", Const, Call(&TENSOR_ARG)),
            arg("n_tensors", Value, Size),
            arg("scalars", Const, Call(&SCALAR_ARG)),
            arg("n_scalars", Value, Size),
            arg("stream", Value, U64),
        ],
    },
    Function {
        name: "context_close",
        section: Section::Context,
        doc: " Close the context (idempotent).",
        args: &[arg("ctx", Mut, Context)],
    },
    Function {
        name: "context_free",
        section: Section::Context,
        doc: " Free a context from kfam_context_new (closing it).",
        args: &[arg("ctx", Mut, Context)],
    },
];

/// `kfam_launch_fn`: the embedding runtime's launcher, which a context
/// calls with a validated call (`LaunchFn` in Rust).
pub static LAUNCH_FN: Function = Function {
    name: "launch_fn",
    section: Section::Context,
    doc: "The embedding runtime's launch entry, called from the thread that called\n\
     kfam_context_launch, with the validated arguments (valid for the call) and\n\
     the caller's stream handle. Its return value is returned unchanged.",
    args: &[
        arg("user", Mut, Void),
        arg("callable", Value, U64),
        arg("generation", Value, U64),
        arg("tensors", Const, Call(&TENSOR_ARG)),
        arg("n_tensors", Value, Size),
        arg("scalars", Const, Call(&SCALAR_ARG)),
        arg("n_scalars", Value, Size),
        arg("stream", Value, U64),
    ],
};

#[cfg(test)]
mod tests {
    use super::*;

    /// Every record a function names is a C struct, and every record of
    /// the C ABI's calls has a mirror: the spellings above never panic.
    #[test]
    fn every_type_spells() {
        let all = C_FUNCTIONS.iter().chain([&LAUNCH_FN]);
        let mut names = std::collections::BTreeSet::new();
        for f in all {
            assert!(names.insert(f.name), "`{}` is declared twice", f.name);
            for a in f.args {
                assert!(!a.c().is_empty() && !a.rust().is_empty());
            }
        }
        assert_eq!(
            C_FUNCTIONS[3].c_signature(),
            "int32_t kfam_find_family(const char *name, const kfam_family **out)"
        );
        assert_eq!(C_FUNCTIONS[3].args[1].rust(), "*mut *const Opaque");
    }
}
