//! The one list of diagnostic codes. Each code has a category (the corpus and
//! UI-test folder it belongs to), a one-line title and a long explanation
//! (`kfam explain KFnnnn`). Codes are stable: never reuse a retired one.

macro_rules! codes {
    ( $( $variant:ident = $code:literal, $category:literal, $title:literal, $explain:literal; )+ ) => {
        /// A diagnostic code.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
        pub enum Code { $( $variant, )+ }

        impl Code {
            pub const ALL: &'static [Code] = &[$(Code::$variant),+];

            /// `KFnnnn`.
            pub const fn as_str(self) -> &'static str {
                match self { $( Code::$variant => $code, )+ }
            }

            /// The folder of the diagnostics corpus and of the UI tests.
            pub const fn category(self) -> &'static str {
                match self { $( Code::$variant => $category, )+ }
            }

            pub const fn title(self) -> &'static str {
                match self { $( Code::$variant => $title, )+ }
            }

            pub const fn explanation(self) -> &'static str {
                match self { $( Code::$variant => $explain, )+ }
            }

            pub fn parse(s: &str) -> Option<Code> {
                let s = s.trim();
                Code::ALL.iter().copied().find(|c| c.as_str().eq_ignore_ascii_case(s))
            }
        }

        impl std::fmt::Display for Code {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.as_str())
            }
        }
    };
}

codes! {
    Io = "KF0001", "syntax", "a manifest file or directory cannot be read",
        "kfam could not read a path it needs: the manifest directory, `abi.toml`, the\n`families/` directory or one family file. The path may be missing, unreadable,\nnot UTF-8, a directory where a file is expected, or larger than the size\nlimit (1 MiB per manifest file).\n\nCheck the path you passed (the default is `manifest/` in the current directory).\n\n`kfam diff --against REV` reads the old manifest from git, and reports here\nwhat keeps it from being read: `git` cannot be run, the manifest directory is\nin no git work tree, `REV` names no commit, or the directory did not exist at\n`REV` (a new catalog has nothing to compare with: `kfam check` it). Its files\nare named `REV:path/from/the/top`, as `git show` takes them.";
    Syntax = "KF0002", "syntax", "invalid TOML syntax",
        "The file is not valid TOML (v1.0). The location points at the first\ncharacter the parser could not accept. Fix the syntax; later checks of this\nfile run once it parses.";
    UnknownKey = "KF0003", "unknown_key", "unknown key",
        "The manifest is closed: every table accepts only the keys documented in\n`docs/manifest.md`. A misspelt key (`dtpye`) is an error rather than being\nignored, so a typo can never silently change a contract.\n\nThe help lists the keys this table accepts.";
    MissingKey = "KF0004", "type", "missing required key",
        "A required key is absent. See `docs/manifest.md` for the keys each table\nrequires. A key added to an existing table after the format was in use is\noptional, with a documented default (docs/manifest.md, \"Format evolution\"),\nso a file written for an earlier kfam does not meet this error for it.";
    WrongType = "KF0005", "type", "value has the wrong type",
        "A value has the wrong TOML type: for example a string where an integer is\nexpected, or an integer outside the range of its field (a negative revision,\na slot above 2^32-1).";
    UnknownVariant = "KF0006", "type", "value is not a member of its vocabulary",
        "Every vocabulary is closed: an unknown value is rejected, and the help\nlists the accepted spellings. kfam's own vocabularies (dtype, direction,\nlayout, contract, binding kind, operation kind, operator) change only with\nthe generator, whose checks know their meaning. The catalog declares its\nplatforms, backends, runtimes and execution modes in `abi.toml`\n(`[[platforms]]`, ...): a new one is a reviewed manifest change, because\nits numeric code becomes part of the C, Rust and Python ABI.";
    OutOfRange = "KF0007", "type", "value out of range",
        "A numeric value is outside the range its field allows: a family `revision`\nmust be at least 1; ABI limits must be positive and within the bounds the\ngenerated tables support (`max_rank` at most 8, `max_tensor_args`,\n`max_scalar_args` and `max_prepared` at most 65535).";

    InvalidIdentifier = "KF0101", "naming", "name is not a valid identifier",
        "Family, parameter and profile names become identifiers in Rust, C, C++ and\nPython. They must be lowercase snake_case ASCII: a letter first, then\nletters, digits or single underscores, at most 64 characters, no leading,\ntrailing or doubled underscore.";
    ReservedWord = "KF0102", "naming", "name is a reserved word",
        "A name that is a keyword or reserved identifier in Rust, C, C++ or Python\n(`type`, `in`, `class`, `int`, `None`...) cannot be used, because one of the\ngenerated bindings could not spell it. Pick another name, e.g. `kind` for\n`type`, `src` for `in`.";
    DuplicateFamily = "KF0103", "naming", "family name declared twice",
        "Two family files declare the same `name`. Family names are unique across\nthe manifest; they key every generated table and the review lock.";
    DuplicateParam = "KF0104", "naming", "parameter name declared twice",
        "Two parameters of one family have the same name. Parameter names are\nunique within a family: aliases, bindings and operation payloads refer to\nparameters by name.";
    DuplicateProfile = "KF0105", "naming", "profile name declared twice",
        "Two artifact profiles of one family have the same name. Receipts refer to\nprofiles by name, so names are unique within a family.";
    FileNameMismatch = "KF0106", "naming", "file name does not match the family name",
        "A family is declared in `manifest/families/<name>.toml`, so that a\nreviewer finds it by name and two files can never fight over one family.\nRename the file or the family.";
    CNameClash = "KF0107", "naming", "a generated C name is defined twice",
        "Every family's C constants are named after it: `KFAM_<FAMILY>_INDEX`,\n`KFAM_<FAMILY>_REVISION`, `KFAM_<FAMILY>_PARAM_<PARAM>`,\n`KFAM_<FAMILY>_PROFILE_<PROFILE>`, `KFAM_<FAMILY>_SLOT_<PARAM>` (with the\ncatalog's C prefix). Two families, or a family and the header's own names,\ncan spell the same macro: family `abi` defines `KFAM_ABI_REVISION`, the\nABI's own constant; family `x` with parameter `y_index` and family\n`x_param_y` both define `KFAM_X_PARAM_Y_INDEX`. A C compiler refuses a\nmacro defined twice with another value, so `kfam check` refuses the\nmanifest, at the family that defines the name second.\n\nRename that family, parameter or profile.";

    RankOutOfBounds = "KF0201", "shape", "tensor rank out of bounds",
        "A tensor's rank (the length of `shape`) must be between 1 and `max_rank`\nfrom `abi.toml`. A tensor without `shape` has rank 0 and is rejected:\ndeclare a scalar with `kind = \"scalar\"` instead.";
    DimOutOfBounds = "KF0202", "shape", "dimension out of bounds",
        "A static dimension is between 1 and 2^32-1; `-1` declares a dynamic\nextent that takes the caller's current size. Zero and other negative\nvalues are rejected.";
    ScalarShape = "KF0203", "shape", "scalar parameter has a shape or layout",
        "A scalar parameter (`kind = \"scalar\"`) carries one value; it has no\n`shape` and no `layout`. Remove the key, or make the parameter a tensor.";
    ScalarDirection = "KF0204", "shape", "scalar parameter is not `in`",
        "Scalars are passed by value and are always `in`. A result must be written\ninto an `out` or `inout` tensor.";
    ScalarDType = "KF0205", "shape", "dtype has no scalar representation",
        "Packed fp4 and the 8-bit float formats exist only as tensor storage; a\nscalar of these dtypes cannot be passed by value. Use fp32 or fp16.";
    ByteSizeOverflow = "KF0206", "shape", "tensor byte size overflows",
        "The product of a tensor's static dimensions times its element size does\nnot fit in 64 bits. Such a tensor could never be allocated, and its size\nwould wrap in the generated tables.";
    Fp4Packing = "KF0207", "shape", "packed fp4 needs a static even last dimension",
        "fp4 tensors are stored packed, two elements per byte along the last\ndimension, and the lowered (carrier) shape halves that dimension. It must\ntherefore be static and even.";
    UnknownSymbol = "KF0208", "shape", "a payload or `[dims]` names an unknown symbol",
        "A symbolic dimension is declared by using its name in a parameter's\n`shape` (`shape = [\"batch\", 128]`). An operation payload extent\n(`m = \"batch\"`) or a constraint table (`[dims.batch]`) may only name a\nsymbol that some shape uses: otherwise it would constrain nothing. Check\nthe spelling, or use the name in the shapes it ties.";
    SymbolUsedOnce = "KF0209", "shape", "a symbol is used only once",
        "A symbol says that every extent with its name is equal at each call. A\nsymbol that appears in one shape position and has no `[dims]` table ties\nnothing: it is just `-1`. This is a warning (the family is still valid).\nUse the same name wherever the extents must be equal, or write `-1`; a\nsymbol with a `[dims]` table names a range and is not reported.";
    SymbolStaticOnly = "KF0210", "shape", "a symbol in a position that must be static",
        "Some extents are fixed at build time: the last two dimensions of an NZ\ntensor (blocked into 16 x c0 fractals) and the last dimension of a packed\nfp4 tensor (halved by packing). A symbol there would be a dynamic extent\nthe lowered shape cannot express. Write the static extent; symbols may\nname the other dimensions.";
    DimConstraintValue = "KF0211", "shape", "a `[dims]` constraint value is out of bounds",
        "`[dims.<symbol>]` accepts `min` (0..=2^32-1), `max` (1..=2^32-1) and\n`multiple_of` (1..=2^32-1). `multiple_of = 0` is rejected: every extent\nis a multiple of 1, and 0 divides nothing.";
    DimConstraintEmpty = "KF0212", "shape", "a symbol's constraints admit no extent",
        "The constraints of `[dims.<symbol>]` leave no extent a call could pass:\n`min` is above `max`, or no multiple of `multiple_of` lies between them.\nEvery call of the family would be refused.";

    AliasOutOfRange = "KF0301", "alias", "return alias index out of range",
        "A return alias given as an index points into the complete signature,\nscalars included, counting from 0. The index is past the last parameter.";
    AliasUnknownParam = "KF0302", "alias", "return alias names an unknown parameter",
        "A return alias given as a name must name a declared parameter.";
    AliasScalar = "KF0303", "alias", "return alias names a scalar parameter",
        "Returns alias caller-supplied tensors; a scalar slot cannot be returned.";
    AliasInput = "KF0304", "alias", "return alias names an `in` tensor",
        "A returned tensor is written by the kernel, so it must be an `out` or\n`inout` tensor. Returning a read-only input would let the caller mutate\nwhat the kernel reads.";
    KernelWithoutOutput = "KF0305", "alias", "kernel family has no `out` or `inout` tensor",
        "A kernel-contract family writes only into caller-supplied buffers; without\nan `out` or `inout` tensor it could produce no result.";

    NzDType = "KF0401", "layout", "NZ layout on a dtype without a fractal format",
        "NZ is defined for fp16, bf16 and int8 only (32-byte fractal rows of\n`c0 = 32 / element size` elements).";
    NzDirection = "KF0402", "layout", "NZ layout on a tensor that is written",
        "NZ tensors are physically blocked; the runtime accepts them only as\nread-only inputs. Make the parameter `in`, or use `nd`.";
    NzRank = "KF0403", "layout", "NZ layout needs rank 2 or more",
        "NZ blocks the last two dimensions `[.., R, C]`; a rank-1 tensor cannot be\nblocked.";
    NzExtent = "KF0404", "layout", "NZ extents are not static multiples of the fractal block",
        "NZ lowers `[.., R, C]` to `[prod(leading), C/c0, R/16, 16, c0]`. `R` must\nbe a static multiple of 16 and `C` a static multiple of `c0` (16 for\nfp16/bf16, 32 for int8). Leading dimensions may be dynamic.";
    NzPlatform = "KF0405", "layout", "layout not accepted by the profile's platform",
        "Each platform declares the layouts its runtime accepts (`layouts` of its\n`[[platforms]]` entry in `abi.toml`; `nd` and `nchw` when it declares\nnone). A profile on a platform that does not accept one of the family's\nlayouts is refused: of kfam's default platforms only `a2a3` accepts `nz`.\nDrop the profile, use another layout, or declare the layout on the\nplatform.";
    NchwRank = "KF0406", "layout", "NCHW layout needs rank 4",
        "`nchw` names the four dimensions batch, channel, height and width.";
    AttrRule = "KF0407", "layout", "a parameter's declared value breaks its rule",
        "Some values of a parameter are declared as they are and hold to a rule\n(docs/manifest.md lists each): `alignment`, the byte alignment every call's\ndata must keep, is a power of two from 1 to 4096. Such a value belongs to\na tensor: a scalar is passed by value and has none.";

    OperandUnknown = "KF0501", "operation", "operation operand names an unknown parameter",
        "The operation payload names its operands by parameter name; each must be\ndeclared under `[[params]]`.";
    OperandKind = "KF0502", "operation", "operation operand has the wrong kind or direction",
        "Operation inputs must be tensors read by the kernel (`in`, or `inout` for\nan accumulating output); the result operand must be an `out` or `inout`\ntensor.";
    ElementwiseMismatch = "KF0503", "operation", "elementwise operands disagree",
        "An elementwise binary operation takes two inputs and one output of the\nsame dtype and the same shape. kfam does not declare broadcasting.\n\nThe operator must have one result in that dtype: integer arithmetic wraps\n(two's complement, or modulo 2^bits), but `div` of integers (truncated,\nfloored or true division?) and `add`, `sub`, `mul`, `div` of bool are\nrefused; `max` and `min` accept every dtype (docs/manifest.md, \"Operators\nand dtypes\").";
    MatmulMismatch = "KF0504", "operation", "matmul operands disagree",
        "A matmul is `[.., M, K] @ [K, N] -> [.., M, N]` (or with equal batch\ndimensions on `b`). The payload's `m`, `k` and `n` (each `-1` when dynamic)\nmust equal the corresponding extents of `a`, `b` and `c`, and `a` and `b`\nmust share a dtype.";
    UnaryMismatch = "KF0505", "operation", "elementwise unary operands disagree",
        "An elementwise unary operation `out = op(input)` keeps the shape: `input`\nand `out` have equal shapes (no broadcasting). Every operator but `cast`\nalso keeps the dtype. `exp`, `log`, `sqrt`, `rsqrt`, `gelu`, `silu`,\n`sigmoid` and `tanh` are defined on float dtypes only; `abs` and `relu`\naccept integers too, `neg` signed integers (the negation of an unsigned\nvalue is not representable), and `cast` every dtype. None but `cast`\naccepts bool.";
    AxisOutOfRange = "KF0506", "operation", "operation axis out of range or repeated",
        "`reduce` names the axes it reduces (`axes`), `softmax` and `norm` the axis\nthey normalize (`axis`). Axes count from 0 and must be below the input's\nrank; a reduced axis is listed once.";
    ReduceMismatch = "KF0507", "operation", "reduce output does not match the reduced input",
        "A reduction's output shape is derived from the input: each axis in `axes`\nis dropped (or kept with extent 1 when `keepdim = true`), every other axis\nkeeps its extent. Reducing every axis without `keepdim` gives `[1]`.\n`out` must have exactly that shape and the input's dtype.\n\n`mean` is defined on float dtypes only (the mean of integers needs a\nrounding rule), `sum` on floats and integers (wrapping in the dtype), `max`\nand `min` on every dtype.";
    SoftmaxMismatch = "KF0508", "operation", "softmax operands disagree",
        "`softmax` maps a float tensor to one of the same dtype and shape:\n`input` is a float tensor and `out` has its dtype and shape.";
    NormMismatch = "KF0509", "operation", "norm operands disagree",
        "`norm` (`rms_norm`, `layer_norm`) normalizes a float `input` along `axis`\ninto `out` of the same dtype and shape. `weight` (and `bias`, which\n`layer_norm` requires and `rms_norm` does not take) are float tensors of\nshape `[E]`, where `E` is the input's extent along `axis`.";
    ScalarOperand = "KF0510", "operation", "operation constant is not usable",
        "`eps` (norm) and `scale` (paged attention) are either a constant, which\nmust be finite and positive, or the name of a scalar parameter with a\nfloat dtype, passed at call time.";
    PagedAttentionMismatch = "KF0511", "operation", "paged attention operands disagree",
        "`paged_attention_decode` takes a query `[B, H, D]`, key and value caches\nin the declared `layout` (`nhd`: `[num_blocks, block_size, H_kv, D]`;\n`hnd`, `x_packed`, `combined_nhd`, `combined_hnd`), an int32 block table\n`[B, max_blocks]`, int32 context lengths `[B]`, and writes `out`\n`[B, H, D]`. Query, caches and output share one float dtype; the batch\n`B`, heads `H`, head size `D` and the caches' extents are the same\nwherever they appear, and `H` is a multiple of `H_kv` (grouped-query\nattention). `x_packed` packs `x` elements of 16 bytes; a combined layout\nis one tensor named as both caches.";
    PackedAttentionMismatch = "KF0512", "operation", "packed attention operands disagree",
        "`packed_attention_prefill` takes queries `[T_q, H, D]`, keys and values\n`[T_k, H_kv, D]` of the sequences packed one after another, int32 offsets\n`cu_seqlens_q` and `cu_seqlens_k` `[B + 1]` (sequence `b` is rows\n`cu[b]..cu[b + 1]`), and writes `out` `[T_q, H, D]`. Queries, keys, values\nand output share one float dtype; `H` is a multiple of `H_kv`; the two\noffset tensors have one length, and `max_seqlen_q`/`max_seqlen_k` name\ninteger scalar parameters.";
    RopeMismatch = "KF0513", "operation", "rope operands disagree",
        "`rope` rotates the first `rotary_dim` entries of each head of `query`\n`[T, H, D]` and `key` `[T, H_kv, D]` by per-token angles given as `cos` and\n`sin` `[T, rotary_dim / 2]`, into `query_out` and `key_out` shaped and typed\nlike `query` and `key`. Queries and keys share one float dtype, as do `cos`\nand `sin`; all four agree on `T`, the queries and keys on `D`; `rotary_dim`\nis even and at most `D`.";

    LinearMismatch = "KF0514", "operation", "linear operands disagree",
        "`linear` multiplies activations `input` `[.., K]` (any leading extents)\nby a weight stored `[N, K]` (`weight_layout = \"nk\"`, the default: as\n`nn.Linear` and checkpoints store it) or `[K, N]` (`\"kn\"`: GPT-2's\n`Conv1D`), adds an optional `bias` `[N]`, and writes `out` `[.., N]` with\nthe leading extents of `input`. All share one float dtype. Where `input`\nand `out` have a dynamic leading extent, name it with one symbol in both,\nso that each call checks they are equal.";
    DenseAttentionMismatch = "KF0515", "operation", "dense attention operands disagree",
        "`dense_attention` is scaled dot-product attention over dense tensors, as\n`F.scaled_dot_product_attention` computes it: `query` `[B, H, S, D]`,\n`key` and `value` `[B, H_kv, S_kv, D]`, `out` `[B, H, S, D]`, all of one\nfloat dtype. `H` is a multiple of `H_kv` (grouped-query attention). Each\nextent appears in several tensors, so a call must find it equal in each:\na dynamic extent is named by one symbol wherever it appears, never two\nanonymous `-1`s.";

    BindingUnknownParam = "KF0601", "profile", "binding names an unknown parameter",
        "A final-ABI binding places a declared parameter into a launch slot.";
    BindingDuplicateParam = "KF0602", "profile", "parameter bound twice",
        "Each parameter sits in exactly one launch slot of a profile.";
    BindingDuplicateSlot = "KF0603", "profile", "launch slot bound twice",
        "Two parameters of one profile are bound to the same slot.";
    BindingMissing = "KF0604", "profile", "parameter has no binding",
        "The final ABI of a profile covers the complete signature: every parameter\nneeds a binding, so that native code never guesses a slot.";
    BindingKindMismatch = "KF0605", "profile", "binding kind does not fit the parameter",
        "Scalars bind to `scalar_arg` slots; tensors bind to `tensor_arg` or\n`buffer_object` slots.";
    PlatformBackend = "KF0606", "profile", "backend or runtime not available on the platform",
        "Each platform declares its backends and runtimes (`backends` and\n`runtimes` of its `[[platforms]]` entry in `abi.toml`). Of kfam's default\nplatforms, `a2a3` and `a5` use `cce` or `pto` with\n`tensormap_and_ringbuffer` or `host_build_graph`; `xdna2` uses `aie` with\n`xrt_direct`.";
    ProfileWithoutReceipt = "KF0607", "profile", "profile has no receipt",
        "A family is supported on a profile only when a receipt records that an\nartifact passed qualification there. This is a warning: the profile is\ndeclared but no artifact can be admitted for it.";
    DtypePlatform = "KF0608", "profile", "dtype not available on the profile's platform",
        "A platform may declare the dtypes its kernels take (`dtypes` of its\n`[[platforms]]` entry in `abi.toml`; every dtype when it declares none).\nA profile on a platform that lacks one of the family's dtypes is refused:\ndrop the profile, change the parameter, or declare the dtype on the\nplatform.";

    ReceiptUnknownProfile = "KF0701", "receipt", "receipt names an unknown profile",
        "A receipt records qualification of one artifact on one of the family's\nprofiles, named by `profile`.";
    BadDigest = "KF0702", "receipt", "digest is not 64 lowercase hex digits",
        "Artifact digests are SHA-256, written as exactly 64 lowercase hexadecimal\ndigits, so that they compare byte for byte in every language.";
    BadArtifactPath = "KF0703", "receipt", "artifact path is absolute or leaves the artifact root",
        "Artifact paths are relative to the artifact root and use `/`. An absolute\npath, a drive prefix, a backslash, an empty segment, `.` or `..` is\nrejected, so that no declaration can point a loader outside its root.";
    BadCodec = "KF0704", "receipt", "codec is not a valid wire-format identifier",
        "A codec names the receipt's wire format: lowercase ASCII letters, digits,\n`_`, `.` or `-`, starting with a letter, at most 64 characters.";
    DuplicateDigest = "KF0705", "receipt", "artifact digest recorded twice",
        "An artifact digest identifies exactly one (family, profile, receipt):\nloaders look artifacts up by digest. The same digest appears in two\nreceipts.";
    BadDate = "KF0706", "receipt", "qualification date is not YYYY-MM-DD",
        "`evidence.date` is a calendar date, e.g. `2026-10-14`.";
    UndeclaredCodec = "KF0707", "receipt", "codec is not one of the catalog's codecs",
        "A catalog that declares `[[codecs]]` in `abi.toml` lists every wire format\nits receipts may name; a receipt naming another is refused. (A catalog\nthat declares none accepts any well-formed codec.)";
    UnknownTool = "KF0708", "receipt", "qualification tool is not one kfam reads",
        "Structured evidence (`evidence.tool` set) records a qualification run:\nits cases, tool versions, covered shapes and worst errors. kfam reads\nthe evidence of `kfam.qualify` (docs/qualify.md); evidence from another\ntool stays free text (`date`, `hardware`, `note`).";
    BadEvidence = "KF0709", "receipt", "structured evidence is incomplete or inconsistent",
        "Structured evidence names its `tool`, the `cases` the run passed (at\nleast one) and the `versions` of its tools, and records one\n`errors` entry per tensor the family writes (`output`, `max_abs`,\n`max_rel`: finite, non-negative). Fields of a run without `tool`, an\nentry naming an input or an unknown parameter, or a written tensor\nwith no entry are refused: the receipt would claim a run that did not\nmeasure what it says.";
    EvidenceShapes = "KF0710", "receipt", "evidence's covered extents do not name the family's symbols",
        "`evidence.shapes` lists the extents a qualification run covered, one entry\nper named symbol of the family: `SYMBOL = V1, V2, ...` (as `kfam.qualify`\nwrites it). An entry that is not of that form, names no symbol of the\nfamily or names one twice, and (for `kfam.qualify`, which covers every\nsymbol) a symbol with no entry, are refused.";
    EvidenceShapeOutsideDims = "KF0711", "receipt", "evidence covers an extent outside the symbol's `[dims]`",
        "A qualification run covers only extents a call may pass: each value of\n`evidence.shapes` lies within its symbol's `[dims]` (`min`, `max`) and is a\nmultiple of its `multiple_of`. A value outside says the run did not\nqualify this revision of the family: rerun it, or widen `[dims]` in a new\nrevision.";
    QualifyCannotRun = "KF0712", "receipt", "evidence of a qualification tool that cannot run on the family",
        "`kfam.qualify` refuses families with an NZ or an fp4 parameter (it cannot\ndraw or compute their tensors; docs/qualify.md), so evidence naming it on\nsuch a family cannot be real. Keep that artifact's evidence as free text\n(`date`, `hardware`, `note`), or qualify the ND form of the kernel.";

    TensorLimit = "KF0801", "limits", "too many tensor parameters",
        "The family declares more tensor parameters than `limits.max_tensor_args`\nin `abi.toml` allows.";
    ScalarLimit = "KF0802", "limits", "too many scalar parameters",
        "The family declares more scalar parameters than `limits.max_scalar_args`\nin `abi.toml` allows.";
    BadAbiRevision = "KF0803", "limits", "ABI revision is not a 40-digit lowercase hex commit",
        "`abi.toml`'s `revision` pins the native runtime commit the artifacts\ntarget: exactly 40 lowercase hexadecimal digits.";
    StatusCodes = "KF0804", "limits", "ABI status codes are inconsistent",
        "`ok` must be 0 and every other status code negative and distinct, so that\nC callers can test `status < 0` and switch on the value.";

    TorchUnrepresentable = "KF0901", "torch", "torch binding requested but not representable",
        "`torch = true` asks for a torch dispatcher schema. Torch has no unsigned\n64-bit scalar type, and a returned tensor must be mutable (`Tensor(a!)`),\nso uint64 scalars and returns of read-only tensors cannot be expressed.";
    TorchArgumentLimit = "KF0902", "torch", "torch family has more arguments than PyTorch accepts",
        "PyTorch's dispatcher takes at most 64 arguments per operator (it keeps one\nbit per argument in a 64-bit set), and `torch.library` refuses to define a\nschema with more. A family with `torch = true` therefore declares at most\n64 parameters, tensors and scalars together.\n\nGroup scalars into a tensor, split the family, or set `torch = false` (the\nC, Rust and Python tables do not have this limit).";
    TorchSchemaLength = "KF0903", "torch", "torch schema is too long for a C string literal",
        "The C tables carry each torch family's dispatcher schema as a string\nliteral (`kfam_family.torch_schema`), and C99 promises string literals of\nat most 4095 bytes (compilers with `-pedantic` refuse longer ones). The\nschema spells the namespace, the family name and every parameter's name\nand type, so a family with many long parameter names can pass it.\n\nShorten the parameter names, declare fewer parameters, or set `torch =\nfalse`.";

    ControlCharacter = "KF1001", "text", "free text contains control or bidirectional characters",
        "Summaries, docs and evidence are copied into comments and strings of\nevery generated language. Control characters (other than newline in\nsummaries and docs) and Unicode bidirectional overrides (U+202A..U+202E,\nU+2066..U+2069) and other invisible format characters are rejected, so\nthat text can never hide or reorder code in a review.";
    TextLength = "KF1002", "text", "free text is empty or too long",
        "A summary is required and at most 1000 characters; other free-text fields\nare at most 1000 characters.";

    ApprovedChanged = "KF1101", "review", "an approved revision's identity changed",
        "`manifest/approved.lock` records the identity digest of every approved\nfamily revision. Consumers (native capability checks, loaders, bindings)\nmay depend on that exact contract, so an approved revision is immutable.\nThe notes list what changed. To change a contract, bump `revision` and\nattach a new receipt for an artifact qualified against the new revision;\n`kfam generate` then adds the new revision to the lock.";
    LockedFamilyRemoved = "KF1102", "review", "an approved family was removed without retirement",
        "A family recorded in `approved.lock` no longer has a file in\n`manifest/families/`. Removal must be explicit: restore the file, or add a\ntombstone to `manifest/retired.toml` with the family's name, last revision\nand identity digest (the help shows the exact entry). The tombstone keeps\nthe name reserved, so it is never reused for a different contract.";
    RevisionRegressed = "KF1103", "review", "revision is lower than an approved revision",
        "Revisions only move forward. `approved.lock` already records a higher\nrevision of this family; a lower revision that is not in the lock would be\na second, unreviewed contract under an old number.";
    RetiredNameReused = "KF1104", "review", "a retired family name is reused",
        "The name is retired in `manifest/retired.toml`. A retired name is never\nreused, so that an old artifact or consumer can never be matched against\na different contract under the same name. Choose a new name.";
    BadTombstone = "KF1105", "review", "tombstone does not match the lock",
        "A tombstone in `manifest/retired.toml` names the family's last approved\nrevision and its identity digest exactly as `approved.lock` records them.\nA tombstone for a name the lock does not know, or for a family that still\nhas a file, is also rejected.";
    ReceiptReused = "KF1106", "review", "a new revision reuses a receipt of an approved revision",
        "A receipt records that one artifact qualified against one contract. A new\nrevision is a new contract, so its receipts must name artifacts qualified\nagainst it: a digest that `approved.lock` records for another revision\ncannot be carried over. Qualify the rebuilt artifact and record its digest.";
    LockTampered = "KF1107", "review", "an approved.lock entry does not match its own canonical form",
        "Each `approved.lock` entry records an identity digest and the canonical\nform it was computed over. When the digest is not the SHA-256 of that\nform, the lock was edited by hand (or damaged), and the review gate can no\nlonger vouch for what was approved. Restore the file from version control;\nthe lock is written only by `kfam generate`.";
    TargetRenumbered = "KF1108", "review", "an approved platform, backend, runtime or execution mode has another code",
        "`approved.lock` records the code of every platform, backend, runtime and\nexecution mode the catalog has approved. The code is the number C, Rust\nand Python programs compiled against the catalog compare (`NPU_PLATFORM_X`,\n`Platform::X`, `Platform.X`), so it never changes: restore the approved\ncode. A member with another meaning is a new member with a new name.";
    TargetCodeReused = "KF1109", "review", "a code approved for one member is declared for another",
        "`approved.lock` keeps the code of every platform, backend, runtime and\nexecution mode the catalog ever approved, removed ones included. A program\ncompiled when the code meant the old member would take the new one for\nit, so a code is never given to another name of the same vocabulary:\nchoose a code the lock does not hold (the help names the lowest free one).\nRenaming a member is removing it and declaring a new one, with a new code.";
    AbiBreakWithoutMajor = "KF1110", "review", "an ABI change that breaks compiled programs without raising `major`",
        "A C or C++ program compiles in what its catalog's header says: the status\ncodes, the limits (`max_rank` is also the extent of `PREFIX_param.shape`,\nso it lays out the records), the codes of the platforms, backends,\nruntimes and execution modes it names. `approved.lock` records that\nsurface as the catalog's `major` approved it (`[abi]`), and a change to\nit is refused unless `major` is raised in the same change: a renumbered\nstatus code (`kfam diff`: KD073), a limit lowered or raised (KD071,\nKD072: the library's pairing check refuses a program compiled with the\nold value), a declared target removed (KD094). A lower `major` than the\napproved one is refused too.\n\nRaising `major` is the acknowledgment: the catalog library's SONAME\nbecomes `lib<catalog>_catalog.so.<major>`, so a program built against\nthe old header keeps loading the old library rather than misreading the\nnew one, and its users know to rebuild. The help offers the raise as a\nfix; the other way out is to undo the change. Adding a family, a target\nor a status-preserving field needs no raise (KD001, KD093, KD075).";

    CatalogName = "KF1201", "catalog", "a catalog name cannot be a package, namespace or prefix",
        "`[catalog]` of `abi.toml` names the catalog (`name`), its Python import\npackage (`python_package`), its torch namespace (`torch_namespace`) and the\nprefix of its C names (`c_prefix`); each one not declared is `name`. Each\nis lowercase snake_case ASCII (a letter first, then letters, digits or\nsingle underscores, at most 64 characters) and not a keyword of Rust, C,\nC++ or Python. Besides:\n\n- the Python package is not a standard-library module, `torch` nor\n  `kfam_runtime`, kfam's Python runtime, which every catalog's package\n  imports (`import json` would find the other one);\n- the base class of the Python package's refusals, `UpperCamel(name)` +\n  `Error` (`NpuopsError`), is not a class the package or Python already\n  defines (`context` would give `ContextError`, `value` `ValueError`);\n- the torch namespace is not one PyTorch defines operators in (`aten`,\n  `prim`, `prims`, `quantized`, ...);\n- the C prefix is one word, without `_` (so that the C names of two\n  catalogs never collide in one translation unit: prefix `kfam_x` and family\n  `index` would give `KFAM_X_INDEX_INDEX`, as prefix `kfam` and family\n  `x_index` do), and begins no name the C standard library reserves (`is`,\n  `to`, `str`, `mem`, `wcs` and a lowercase letter; `E` and a letter or\n  digit; `LC_`, `SIG`, `ATOMIC_`, `TIME_`, ...).\n\nWhen the value comes from `name`, the error points at `name`: declare the\nkey with another value, or rename the catalog.";
    CatalogDistribution = "KF1202", "catalog", "Python distribution name is not a PEP 508 name",
        "`python_distribution` (default: the catalog's `name`) is what `pip install`\nand requirements name: ASCII letters, digits, `.`, `_` and `-`, beginning\nand ending with a letter or digit (PEP 508), at most 64 characters. It is\nnot one of kfam's own, `kfam-runtime` (the Python runtime every catalog's\npackage depends on) or `kfam-cli`, compared as pip compares names\n(`KFAM_Runtime` is `kfam-runtime`).";
    CatalogVersion = "KF1203", "catalog", "catalog version is not a normalized PEP 440 release",
        "`version` of `[catalog]` is the generated Python package's version. It is a\nPEP 440 version in its normalized form, without a local label (`+...`, which\nPyPI refuses on upload): `1.2.0`, `2.0.0rc1`, `1.2.0.post1`, `1.3.0.dev2`,\n`1!2.0`. What the catalog approves is named by `CATALOG_DIGEST`, not by the\nversion. Leave it out to use the generating kfam's version.";
    CatalogLicense = "KF1204", "catalog", "license is not an SPDX license expression",
        "`license` of `[catalog]` is the license of the generated outputs, written\ninto the Python package's metadata: an SPDX license expression such as\n`Apache-2.0`, `MIT OR Apache-2.0`, `GPL-2.0-only WITH Classpath-exception-2.0`\nor `LicenseRef-Proprietary`. kfam checks its syntax (identifiers of\nletters, digits, `.` and `-`, optionally ending in `+`; `AND`, `OR`, `WITH`\nin capitals; balanced parentheses); the Python build (setuptools >= 77)\nchecks the identifiers against the SPDX license list.";
    OutputLocation = "KF1205", "catalog", "output location is not a plain relative path, or overlaps another",
        "`[catalog.outputs]` places each output (`c`, `rust`, `python`, `schema`,\n`docs`) in a directory below the output directory (`kfam generate --out`):\na relative path of `/`-separated segments made of ASCII letters, digits,\n`.`, `_` and `-`, none of them empty, `.`, `..` or beginning with `.`, at\nmost 200 characters. Two outputs never share a directory, and none is\ninside another, so that every output owns its directory.";
    DuplicateTarget = "KF1206", "catalog", "a platform, backend, runtime, execution mode or codec is declared twice",
        "`[[platforms]]`, `[[backends]]`, `[[runtimes]]`, `[[execution_modes]]` and\n`[[codecs]]` of `abi.toml` declare each member once, each with its own\ncode (the ABI's number for it, never reused); a platform names at least\none backend and one runtime, each once.";
    PlatformsNotDeclared = "KF1207", "catalog", "a catalog of its own declares no platforms",
        "A catalog that names itself (`[catalog] name`, other than `kfam`) says\nwhere its artifacts run: `[[platforms]]` in `abi.toml`, each with the\nbackends and runtimes that serve it. Without them, its profiles can name\nonly the platforms kfam's catalog was first released with (`a2a3`, `a5`,\n`xdna2`, kept so that a manifest written before platforms were declared\nchecks as it did). This is a warning: the catalog is still valid. `kfam\nnew` writes the tables to fill in.";
}
