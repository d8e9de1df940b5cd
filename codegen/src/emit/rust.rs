//! Rust output: the vocabulary enums (built with `quote`, formatted with
//! `prettyplease`) and the static tables `kfam-runtime` compiles.
//!
//! [`tables_source`] is the one path from IR to the tables: `kfam generate`
//! writes it to `generated/rust/tables.rs` with `crate` paths, and the
//! proc-macro expands [`tables_tokens`] (the same text, lexed) with
//! `::kfam_runtime` paths. The tables grow with the manifest, so they are
//! printed directly, through the same line-breaking algorithm as prettyplease
//! (see `pretty.rs`), instead of through tokens, syn and prettyplease: the
//! output is byte for byte the same, at 10,000 families in a fraction of a
//! second instead of over 20 s.

use proc_macro2::{Ident, Literal, Span, TokenStream};
use quote::quote;

use super::pretty::{push_spaces, push_str_lit, str_lit_len, Printer, INDENT, MARGIN};
use super::{marker_line, GeneratedFile};
use crate::ir::{Family, Ir, Operation, ScalarRef};
use crate::lookup_hash::{key_hash, EMPTY};
use crate::names::shouty;
use crate::vocab::{
    Admission, CallRule, Capability, Catalog, DType, Member, ScalarDomain, Status, CATALOGS,
};

pub fn emit(ir: &Ir) -> Vec<GeneratedFile> {
    vec![
        GeneratedFile::new("rust/vocab.rs", render(vocab_tokens(ir))),
        // Copied verbatim: the runtime probes with the very function the
        // indices below were built with.
        GeneratedFile::new(
            "rust/lookup_hash.rs",
            format!(
                "// {}

{}",
                marker_line(),
                crate::lookup_hash::SOURCE
            ),
        ),
        GeneratedFile::new(
            "rust/tables.rs",
            tables_source(ir, "crate", &format!("// {}\n\n", marker_line())),
        ),
    ]
}

/// Format tokens as a file with the marker on its first line.
fn render(tokens: TokenStream) -> String {
    let file: syn::File = match syn::parse2(tokens) {
        Ok(f) => f,
        // The tokens are ours: failing to parse is a generator bug, reported
        // in the output itself so the compile error points at it.
        Err(e) => {
            return format!(
                "// {}\ncompile_error!({:?});\n",
                marker_line(),
                e.to_string()
            )
        }
    };
    format!("// {}\n\n{}", marker_line(), prettyplease::unparse(&file))
}

fn ident(s: &str) -> Ident {
    Ident::new(s, Span::call_site())
}

fn doc(text: &str) -> TokenStream {
    let text = text.trim();
    if text.is_empty() {
        return TokenStream::new();
    }
    // `#[doc]` takes any string: quote escapes it, so free text cannot end it.
    let lines = text.lines().map(|l| format!(" {}", l.trim_end()));
    quote!(#(#[doc = #lines])*)
}

fn enum_tokens(c: &Catalog) -> TokenStream {
    enum_with_members(c, c.members)
}

fn enum_with_members(c: &Catalog, members: &[Member]) -> TokenStream {
    let name = ident(c.name);
    let enum_doc = doc(c.doc);
    let variants = members.iter().map(|m| {
        let v = ident(m.variant);
        let code = Literal::i32_unsuffixed(m.code);
        let d = doc(m.doc);
        quote!(#d #v = #code)
    });
    let all = members.iter().map(|m| ident(m.variant));
    let spell = members.iter().map(|m| {
        let v = ident(m.variant);
        let s = m.spelling;
        quote!(#name::#v => #s)
    });
    let from_code = members.iter().map(|m| {
        let v = ident(m.variant);
        let code = Literal::i32_unsuffixed(m.code);
        quote!(#code => Some(#name::#v))
    });
    let from_spelling = members.iter().map(|m| {
        let v = ident(m.variant);
        let s = m.spelling;
        quote!(#s => Some(#name::#v))
    });
    quote! {
        #enum_doc
        #[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
        #[repr(i32)]
        pub enum #name { #(#variants,)* }

        impl #name {
            /// Every member, in declaration order.
            pub const ALL: &'static [#name] = &[#(#name::#all),*];

            /// The stable numeric code (the same in C and Python).
            pub const fn code(self) -> i32 {
                self as i32
            }

            /// The member with this code.
            pub const fn from_code(code: i32) -> Option<Self> {
                match code { #(#from_code,)* _ => None }
            }

            /// The manifest spelling.
            pub const fn as_str(self) -> &'static str {
                match self { #(#spell,)* }
            }

            /// The member spelled `s` in the manifest (a `match`: the
            /// compiler dispatches on length before comparing bytes).
            pub fn parse(s: &str) -> Option<Self> {
                match s { #(#from_spelling,)* _ => None }
            }
        }

        impl core::fmt::Display for #name {
            fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
                f.write_str(self.as_str())
            }
        }
    }
}

/// The vocabulary enums, and `Status` with the values declared in `abi.toml`.
pub fn vocab_tokens(ir: &Ir) -> TokenStream {
    let enums = CATALOGS.iter().map(enum_tokens);
    let members: Vec<Member> = Status::ALL
        .iter()
        .zip(Status::CATALOG.members)
        .map(|(s, m)| Member {
            code: ir.abi.status(*s),
            ..*m
        })
        .collect();
    let status = enum_with_members(&Status::CATALOG, &members);
    // Element widths and scalar domains come from the generator's DType,
    // the one place they are declared.
    let bits = DType::ALL.iter().map(|d| {
        let v = ident(d.variant_name());
        let b = Literal::u32_unsuffixed(d.bits());
        quote!(DType::#v => #b)
    });
    let domains = DType::ALL.iter().map(|d| {
        let v = ident(d.variant_name());
        let domain = match d.scalar_domain() {
            ScalarDomain::Bool => quote!(ScalarDomain::Bool),
            ScalarDomain::Int(lo, hi) => {
                let (lo, hi) = (Literal::i128_unsuffixed(lo), Literal::i128_unsuffixed(hi));
                quote!(ScalarDomain::Int(#lo, #hi))
            }
            ScalarDomain::Float(max) => {
                // `Debug` is the shortest spelling that reads back exactly
                // (`3.4028234663852886e38`), where `Display` spells 39 digits.
                let max: TokenStream = format!("{max:?}").parse().expect("a float literal");
                quote!(ScalarDomain::Float(#max))
            }
        };
        quote!(DType::#v => #domain)
    });
    // The status each decision outcome is reported with, from `vocab.rs`.
    fn status_impl<T: Copy>(
        name: &str,
        all: &[T],
        parts: impl Fn(T) -> (&'static str, Status),
    ) -> TokenStream {
        let ty = ident(name);
        let arms = all.iter().map(|&m| {
            let (v, st) = parts(m);
            let (v, st) = (ident(v), ident(st.variant_name()));
            quote!(#ty::#v => Status::#st)
        });
        quote! {
            impl #ty {
                /// The C ABI status this outcome is reported with.
                pub const fn status(self) -> Status {
                    match self { #(#arms,)* }
                }
            }
        }
    }
    let capability = status_impl(Capability::NAME, Capability::ALL, |c| {
        (c.variant_name(), c.status())
    });
    let admission = status_impl(Admission::NAME, Admission::ALL, |a| {
        (a.variant_name(), a.status())
    });
    let call = status_impl(CallRule::NAME, CallRule::ALL, |r| {
        (r.variant_name(), r.status())
    });
    quote! {
        #(#enums)*
        #status
        #capability
        #admission
        #call
        /// What a scalar parameter of some dtype accepts ([`DType::scalar_domain`]).
        #[derive(Clone, Copy, Debug, PartialEq)]
        pub enum ScalarDomain {
            /// Only a bool.
            Bool,
            /// An integer in `[lo, hi]`; no float (never truncated), no bool.
            Int(i128, i128),
            /// Any number (int or float, not bool) whose magnitude, when
            /// finite, is at most this largest finite value; inf and nan pass.
            Float(f64),
        }
        impl DType {
            /// Storage size of one element in bits (packed fp4: 4).
            pub const fn bits(self) -> u32 {
                match self { #(#bits,)* }
            }
            /// What a scalar argument of this dtype accepts.
            pub const fn scalar_domain(self) -> ScalarDomain {
                match self { #(#domains,)* }
            }
        }
    }
}

/// The tables as Rust tokens with record types at `krate` (`crate` or
/// `::kfam_runtime`): [`tables_source`], lexed. The proc-macro's entry.
pub fn tables_tokens(ir: &Ir, krate: &TokenStream) -> TokenStream {
    let k = krate.to_string().replace(' ', "");
    match tables_source(ir, &k, "").parse() {
        Ok(tokens) => tokens,
        // The text is ours: failing to lex it is a generator bug, reported
        // where the tables would be.
        Err(e) => {
            let msg = format!("kfam generated unparsable tables: {e}");
            quote!(::core::compile_error!(#msg);)
        }
    }
}

/// The ABI record, the family table, the artifact index and the per-family
/// modules as formatted Rust source, with record types at `krate` (`crate`
/// or `::kfam_runtime`), after `preamble` (written first into the same
/// buffer: at 10,000 families the source is over 100 MB, too much to copy).
pub fn tables_source(ir: &Ir, krate: &str, preamble: &str) -> String {
    // About 10 KiB of source per family with several params and profiles.
    let mut out = String::with_capacity(preamble.len() + 4096 + ir.families.len() * 12 * 1024);
    out.push_str(preamble);
    // Each item ends its line, so the items can be printed one run of the
    // printer after another; `FAMILIES`, most of the text, is written
    // directly (see `Records`).
    let mut out = Tables::print(out, krate, |w| w.abi(ir));
    Records {
        out: &mut out,
        k: krate,
    }
    .families(ir);
    Tables::print(out, krate, |w| {
        w.artifacts(ir);
        w.retired(ir);
        w.indices(ir);
        w.modules(ir);
    })
}

/// `krate::ScalarRef::Constant(1.5)` or `krate::ScalarRef::Param(3)`: a
/// float spelled as `proc_macro2::Literal::f64_unsuffixed` spells it.
fn scalar_ref(k: &str, s: ScalarRef) -> String {
    match s {
        ScalarRef::Constant(v) => format!("{k}::ScalarRef::Constant({})", float_lit(v)),
        ScalarRef::Param(i) => format!("{k}::ScalarRef::Param({i})"),
    }
}

/// `Display`, with `.0` appended when that has no `.` (as `f64_unsuffixed`).
fn float_lit(v: f64) -> String {
    let mut t = v.to_string();
    if !t.contains('.') {
        t.push_str(".0");
    }
    t
}

/// Writes the `FAMILIES` table directly, in the layout the printer (and
/// prettyplease) gives it, without the printer's per-token bookkeeping:
/// at 10,000 families the table is over 100 MB and the printer was most of
/// the Rust emitter's time. The layout has few decisions, because every
/// struct literal in it is wider than prettyplease's 34-column limit for
/// one-line struct literals and so is always broken, one field per line:
/// only integer arrays (`shape`, `returns`) and `Some("...")` values can
/// fit on their line, decided here by prettyplease's rule. The unit tests
/// compare the whole file with prettyplease's.
struct Records<'o> {
    out: &'o mut String,
    k: &'o str,
}

impl Records<'_> {
    fn families(&mut self, ir: &Ir) {
        self.out
            .push_str("/// Every approved family, sorted by name.\n");
        for part in [
            "pub static FAMILIES: &[",
            self.k,
            "::Family] = &FAMILY_ROWS;\n",
        ] {
            self.out.push_str(part);
        }
        self.out.push_str(FAMILY_ROWS_DOC_LINE);
        let n = ir.families.len().to_string();
        for part in ["static FAMILY_ROWS: [", self.k, "::Family; ", &n, "] = "] {
            self.out.push_str(part);
        }
        // The rows are an array, not a reference to one.
        let at = self.out.len();
        self.struct_array(0, &ir.families, Self::family);
        self.out.remove(at);
        self.out.push_str(";\n");
    }

    /// `&[` one struct per line `]` (`&[]` when empty); `indent` is the
    /// column of the line the array starts on.
    fn struct_array<T>(
        &mut self,
        indent: usize,
        items: &[T],
        mut each: impl FnMut(&mut Self, usize, &T),
    ) {
        if items.is_empty() {
            self.out.push_str("&[]");
            return;
        }
        self.out.push_str("&[\n");
        for item in items {
            push_spaces(self.out, indent + 4);
            each(self, indent + 4, item);
            self.out.push_str(",\n");
        }
        push_spaces(self.out, indent);
        self.out.push(']');
    }

    /// `krate::Tail {` and a line break: the struct's fields follow at `indent + 4`.
    fn open(&mut self, tail: &str) {
        for part in [self.k, tail, " {\n"] {
            self.out.push_str(part);
        }
    }

    fn close(&mut self, indent: usize) {
        push_spaces(self.out, indent);
        self.out.push('}');
    }

    /// The start of a field line of a struct at `indent`.
    fn field(&mut self, indent: usize, name: &str) {
        push_spaces(self.out, indent + 4);
        self.out.push_str(name);
    }

    fn end(&mut self) {
        self.out.push_str(",\n");
    }

    fn int(&mut self, indent: usize, name: &str, n: i64) {
        self.field(indent, name);
        self.out.push_str(itoa::Buffer::new().format(n));
        self.end();
    }

    fn str(&mut self, indent: usize, name: &str, s: &str) {
        self.field(indent, name);
        push_str_lit(self.out, s);
        self.end();
    }

    fn word(&mut self, indent: usize, name: &str, word: &str) {
        self.field(indent, name);
        self.out.push_str(word);
        self.end();
    }

    fn variant(&mut self, indent: usize, name: &str, ty: &str, variant: &str) {
        self.field(indent, name);
        for part in [self.k, ty, variant, ",\n"] {
            self.out.push_str(part);
        }
    }

    /// Whether `width` columns of a field's value, starting at `column`,
    /// fit before the margin. As in the printer, what must fit runs to the
    /// next possible line break, so it includes the field's `,` unless this
    /// is the struct's `last` field (its comma comes with the break). The
    /// deepest field line here is at 24 columns, so the space left on a
    /// line is the margin minus the column (the printer's 60-column minimum
    /// never applies).
    fn fits(column: usize, width: usize, last: bool) -> bool {
        column + width + usize::from(!last) <= MARGIN as usize
    }

    /// `Some("...")` on the field's line if it fits (with its `)`), else
    /// broken over three lines; or `None`.
    fn opt_str(&mut self, indent: usize, name: &str, s: Option<&str>, last: bool) {
        self.field(indent, name);
        match s {
            None => self.out.push_str("None"),
            Some(s) => {
                self.out.push_str("Some(");
                let column = indent + 4 + name.len() + "Some(".len();
                if Self::fits(column, str_lit_len(s) + ")".len(), last) {
                    push_str_lit(self.out, s);
                } else {
                    self.out.push('\n');
                    push_spaces(self.out, indent + 8);
                    push_str_lit(self.out, s);
                    self.out.push_str(",\n");
                    push_spaces(self.out, indent + 4);
                }
                self.out.push(')');
            }
        }
        self.end();
    }

    /// `&[1, -1, ...]` (`expr_array`): on the field's line if it fits;
    /// else one line break after `[`, the integers at `indent + 8` (filling
    /// lines, or one per line when one is negative), and `]` on a line of
    /// its own.
    fn ints(
        &mut self,
        indent: usize,
        name: &str,
        items: impl ExactSizeIterator<Item = i64> + Clone,
        last: bool,
    ) {
        self.field(indent, name);
        self.out.push('&');
        let n = items.len();
        if n == 0 {
            self.out.push_str("[]");
            return self.end();
        }
        let mut buf = itoa::Buffer::new();
        let mut lens = items.clone().map(|v| buf.format(v).len());
        let flat = 2 + lens.by_ref().sum::<usize>() + 2 * (n - 1);
        let column = indent + 4 + name.len() + 1;
        if Self::fits(column, flat, last) {
            self.out.push('[');
            for (i, v) in items.enumerate() {
                if i > 0 {
                    self.out.push_str(", ");
                }
                self.out.push_str(buf.format(v));
            }
            self.out.push(']');
            return self.end();
        }
        let inner = indent + 8;
        self.out.push_str("[\n");
        push_spaces(self.out, inner);
        let mut space = MARGIN as usize - inner;
        // prettyplease fills lines only with literals; `-1` is a negation,
        // and an array holding one is broken one element per line.
        let fill = items.clone().all(|v| v >= 0);
        for (i, v) in items.enumerate() {
            let text = buf.format(v);
            let last = i + 1 == n;
            if i > 0 && !fill {
                self.out.push('\n');
                push_spaces(self.out, inner);
            } else if i > 0 {
                // The break before an item holds if " item," fits (no
                // comma after the last: its comma comes with the break).
                if 1 + text.len() + usize::from(!last) <= space {
                    self.out.push(' ');
                    space -= 1;
                } else {
                    self.out.push('\n');
                    push_spaces(self.out, inner);
                    space = MARGIN as usize - inner;
                }
            }
            self.out.push_str(text);
            space = space.saturating_sub(text.len());
            if !last {
                self.out.push(',');
                space = space.saturating_sub(1);
            }
        }
        self.out.push_str(",\n");
        push_spaces(self.out, indent + 4);
        self.out.push(']');
        self.end();
    }

    fn family(&mut self, at: usize, f: &Family) {
        self.open("::Family");
        self.str(at, "name: ", &f.name);
        self.int(at, "revision: ", f.revision.into());
        self.str(at, "summary: ", &f.summary);
        self.variant(at, "contract: ", "::Contract::", f.contract.variant_name());
        self.word(at, "torch: ", if f.torch { "true" } else { "false" });
        self.field(at, "operation: ");
        let op = at + 4;
        match &f.operation {
            Operation::ElementwiseBinary {
                op: bin,
                lhs,
                rhs,
                out,
            } => {
                self.open("::Operation::ElementwiseBinary");
                self.variant(op, "op: ", "::BinaryOp::", bin.variant_name());
                self.int(op, "lhs: ", u32_of(*lhs));
                self.int(op, "rhs: ", u32_of(*rhs));
                self.int(op, "out: ", u32_of(*out));
            }
            Operation::Matmul {
                m,
                k,
                n,
                a,
                b,
                c,
                accumulate,
            } => {
                self.open("::Operation::Matmul");
                self.int(op, "m: ", m.as_i64());
                self.int(op, "k: ", k.as_i64());
                self.int(op, "n: ", n.as_i64());
                self.int(op, "a: ", u32_of(*a));
                self.int(op, "b: ", u32_of(*b));
                self.int(op, "c: ", u32_of(*c));
                self.word(
                    op,
                    "accumulate: ",
                    if *accumulate { "true" } else { "false" },
                );
            }
            Operation::ElementwiseUnary { op: un, input, out } => {
                self.open("::Operation::ElementwiseUnary");
                self.variant(op, "op: ", "::UnaryOp::", un.variant_name());
                self.int(op, "input: ", u32_of(*input));
                self.int(op, "out: ", u32_of(*out));
            }
            Operation::Reduce {
                op: red,
                input,
                out,
                axes,
                keepdim,
            } => {
                self.open("::Operation::Reduce");
                self.variant(op, "op: ", "::ReduceOp::", red.variant_name());
                self.int(op, "input: ", u32_of(*input));
                self.int(op, "out: ", u32_of(*out));
                self.ints(op, "axes: ", axes.iter().map(|&a| i64::from(a)), false);
                self.word(op, "keepdim: ", if *keepdim { "true" } else { "false" });
            }
            Operation::Softmax { input, out, axis } => {
                self.open("::Operation::Softmax");
                self.int(op, "input: ", u32_of(*input));
                self.int(op, "out: ", u32_of(*out));
                self.int(op, "axis: ", i64::from(*axis));
            }
            Operation::Norm {
                op: norm,
                input,
                weight,
                bias,
                out,
                axis,
                eps,
            } => {
                self.open("::Operation::Norm");
                self.variant(op, "op: ", "::NormKind::", norm.variant_name());
                self.int(op, "input: ", u32_of(*input));
                self.int(op, "weight: ", u32_of(*weight));
                let bias = bias.map_or("None".to_owned(), |b| format!("Some({b})"));
                self.word(op, "bias: ", &bias);
                self.int(op, "out: ", u32_of(*out));
                self.int(op, "axis: ", i64::from(*axis));
                let eps = scalar_ref(self.k, *eps);
                self.word(op, "eps: ", &eps);
            }
            Operation::PagedAttentionDecode {
                query,
                key_cache,
                value_cache,
                block_table,
                context_lens,
                out,
                scale,
            } => {
                self.open("::Operation::PagedAttentionDecode");
                self.int(op, "query: ", u32_of(*query));
                self.int(op, "key_cache: ", u32_of(*key_cache));
                self.int(op, "value_cache: ", u32_of(*value_cache));
                self.int(op, "block_table: ", u32_of(*block_table));
                self.int(op, "context_lens: ", u32_of(*context_lens));
                self.int(op, "out: ", u32_of(*out));
                let scale = scalar_ref(self.k, *scale);
                self.word(op, "scale: ", &scale);
            }
            Operation::Custom { semantics } => {
                self.open("::Operation::Custom");
                self.str(op, "semantics: ", semantics);
            }
        }
        self.close(op);
        self.end();
        self.field(at, "params: ");
        self.struct_array(at + 4, &f.params, |w, at, p| {
            w.open("::Param");
            w.str(at, "name: ", &p.name);
            w.int(at, "index: ", u32_of(p.index));
            w.variant(at, "kind: ", "::ParamKind::", p.kind.variant_name());
            w.variant(
                at,
                "direction: ",
                "::Direction::",
                p.direction.variant_name(),
            );
            w.variant(at, "dtype: ", "::DType::", p.dtype.variant_name());
            w.ints(at, "shape: ", p.shape.iter().copied(), false);
            w.variant(at, "layout: ", "::Layout::", p.layout.variant_name());
            w.ints(
                at,
                "lowered_shape: ",
                p.lowered_shape.iter().copied(),
                false,
            );
            w.int(at, "pool_index: ", u32_of(p.pool_index));
            w.opt_str(at, "doc: ", p.doc.as_deref(), true);
            w.close(at);
        });
        self.end();
        self.ints(at, "returns: ", f.returns.iter().map(|&r| u32_of(r)), false);
        self.field(at, "profiles: ");
        self.struct_array(at + 4, &f.profiles, |w, at, p| {
            w.open("::Profile");
            w.str(at, "name: ", &p.name);
            w.variant(at, "platform: ", "::Platform::", p.platform.variant_name());
            w.variant(at, "backend: ", "::Backend::", p.backend.variant_name());
            w.variant(at, "runtime: ", "::Runtime::", p.runtime.variant_name());
            w.variant(
                at,
                "execution_mode: ",
                "::ExecutionMode::",
                p.execution_mode.variant_name(),
            );
            w.field(at, "bindings: ");
            w.struct_array(at + 4, &p.bindings, |w, at, b| {
                w.open("::Binding");
                w.int(at, "param: ", u32_of(b.param));
                w.int(at, "slot: ", b.slot.into());
                w.variant(at, "kind: ", "::BindingKind::", b.kind.variant_name());
                w.close(at);
            });
            w.end();
            w.close(at);
        });
        self.end();
        self.field(at, "receipts: ");
        self.struct_array(at + 4, &f.receipts, |w, at, r| {
            w.open("::Receipt");
            w.int(at, "profile: ", u32_of(r.profile));
            w.str(at, "codec: ", &r.codec);
            w.str(at, "artifact: ", &r.artifact);
            w.str(at, "sha256: ", &r.sha256);
            w.field(at, "evidence: ");
            w.open("::Evidence");
            w.str(at + 4, "date: ", &r.evidence.date);
            w.str(at + 4, "hardware: ", &r.evidence.hardware);
            w.opt_str(at + 4, "note: ", r.evidence.note.as_deref(), true);
            w.close(at + 4);
            w.end();
            w.close(at);
        });
        self.end();
        self.int(at, "tensor_count: ", u32_of(f.tensor_count));
        self.int(at, "scalar_count: ", u32_of(f.scalar_count));
        self.str(at, "identity: ", &f.identity);
        self.opt_str(at, "torch_schema: ", f.torch_schema.as_deref(), false);
        self.field(at, "symbols: ");
        self.struct_array(at + 4, &f.symbols, |w, at, s| {
            w.open("::Symbol");
            w.str(at, "name: ", &s.name);
            let (min, max, multiple_of) = symbol_bounds(s);
            w.int(at, "min: ", min);
            w.int(at, "max: ", max);
            w.int(at, "multiple_of: ", multiple_of);
            w.field(at, "uses: ");
            w.struct_array(at + 4, &s.uses, |w, at, u| {
                w.open("::DimUse");
                w.int(at, "param: ", u32_of(u.param));
                w.int(at, "tensor: ", u32_of(u.tensor));
                w.int(at, "axis: ", u32_of(u.axis));
                w.close(at);
            });
            w.end();
            w.close(at);
        });
        self.end();
        self.close(at);
    }
}

/// A symbol's constraints as the runtime tables carry them: `min`, `max`
/// (`i64::MAX` when unbounded) and `multiple_of`.
pub fn symbol_bounds(s: &crate::ir::Symbol) -> (i64, i64, i64) {
    (
        i64::from(s.min),
        s.max.map_or(i64::MAX, i64::from),
        i64::from(s.multiple_of),
    )
}

/// The open-addressing index of `keys` (table order) that
/// `kfam_runtime::lookup` probes: a power of two of at least twice as many
/// slots as keys (so every probe sequence meets an empty slot), each the
/// table index placed there by linear probing, or [`EMPTY`].
/// Deterministic: the same keys give the same index.
pub fn index_slots<'k>(keys: impl ExactSizeIterator<Item = &'k str>) -> Vec<u32> {
    let n = keys.len();
    if n == 0 {
        return Vec::new();
    }
    let len = (2 * n).next_power_of_two().max(8);
    let mask = len - 1;
    let mut slots = vec![EMPTY; len];
    for (i, key) in keys.enumerate() {
        let mut slot = key_hash(key.as_bytes()) as usize & mask;
        while slots[slot] != EMPTY {
            slot = (slot + 1) & mask;
        }
        slots[slot] = u32::try_from(i).unwrap_or(EMPTY - 1);
    }
    slots
}

/// `(artifact sha256, family index, receipt index)` of every receipt,
/// sorted by digest: the `ARTIFACTS` table.
pub fn artifact_rows(ir: &Ir) -> Vec<(&str, usize, usize)> {
    let mut rows: Vec<(&str, usize, usize)> = ir
        .families
        .iter()
        .enumerate()
        .flat_map(|(fi, f)| {
            f.receipts
                .iter()
                .enumerate()
                .map(move |(ri, r)| (r.sha256.as_str(), fi, ri))
        })
        .collect();
    rows.sort_unstable();
    rows
}

const RETIRED_DOC: &str =
    "Every retired family (`retired.toml`), sorted by name, with every artifact digest the lock recorded for it.";
/// Why the family rows are a named static: every reference to a family
/// (through `FAMILIES`, a `Catalog` or a lookup) then has one address, where
/// an anonymous array read by two statics may be emitted twice.
#[cfg(test)]
const FAMILY_ROWS_DOC: &str =
    "The rows of `FAMILIES`, one address for every reference to a family.";
const FAMILY_ROWS_DOC_LINE: &str =
    "/// The rows of `FAMILIES`, one address for every reference to a family.\n";

const FAMILY_INDEX_DOC: &str =
    "Hash index of `FAMILIES` by name, for `kfam_runtime::lookup::family`.";
const ARTIFACT_INDEX_DOC: &str =
    "Hash index of `ARTIFACTS` by digest, for `kfam_runtime::lookup::artifact`.";

/// Feeds the printer the tokens prettyplease emits for the tables' syntax:
/// each method names the prettyplease function it mirrors.
struct Tables<'a> {
    p: Printer<'a>,
    k: &'a str,
}

fn u32_of(n: usize) -> i64 {
    i64::from(u32::try_from(n).unwrap_or(u32::MAX))
}

impl<'a> Tables<'a> {
    /// `out`, then the items `print` feeds the printer, in one box.
    fn print(out: String, k: &'a str, print: impl FnOnce(&mut Self)) -> String {
        let mut w = Tables {
            p: Printer::new(out),
            k,
        };
        w.p.cbox(0);
        print(&mut w);
        w.p.end();
        w.p.eof()
    }

    /// `#[doc]` attributes as `///` lines (`attr`, as the old `doc` helper made them).
    fn doc(&mut self, text: &'a str) {
        for line in text.trim().lines() {
            self.p.word("///");
            let line = line.trim_end();
            if !line.is_empty() {
                self.p.word(" ");
                self.p.word(line);
            }
            self.p.hardbreak();
        }
    }

    /// A path `krate::Tail...` (`path`: words only).
    fn path(&mut self, tail: &'static str) {
        self.p.word(self.k);
        self.p.word(tail);
    }

    /// `item_static` / `item_const` up to the expression.
    fn item_begin(&mut self, doc: &'a str, head: &'static str) {
        self.doc(doc);
        self.p.cbox(0);
        self.p.word(head);
    }

    /// ` = ` and the neverbreak before the expression.
    fn item_eq(&mut self) {
        self.p.word(" = ");
        self.p.neverbreak();
    }

    fn item_end(&mut self) {
        self.p.word(";");
        self.p.end();
        self.p.hardbreak();
    }

    /// `expr_struct` up to the first field.
    fn struct_begin(&mut self, tail: &'static str) {
        self.p.cbox(INDENT);
        self.p.ibox(-INDENT);
        self.path(tail);
        self.p.end();
        self.p.word(" {");
        self.p.space_if_nonempty();
    }

    /// `field_value` up to its expression.
    fn field(&mut self, name: &'static str) {
        self.p.word(name);
        self.p.ibox(0);
    }

    fn field_end(&mut self, last: bool) {
        self.p.end();
        self.p.trailing_comma_or_space(last);
    }

    fn struct_end(&mut self) {
        self.p.offset(-INDENT);
        self.p.end_with_max_width(34);
        self.p.word("}");
    }

    fn field_int(&mut self, name: &'static str, n: i64) {
        self.field(name);
        self.p.int(n);
        self.field_end(false);
    }

    fn field_str(&mut self, name: &'static str, s: &'a str, last: bool) {
        self.field(name);
        self.p.str_lit(s);
        self.field_end(last);
    }

    /// `&[1, 2, ...]`: `expr_reference` of a `simple_array`. Unsigned only:
    /// prettyplease lays out an array holding a negation (`-1`) otherwise
    /// (see `Records::ints`), so the type keeps such arrays out of here.
    fn int_array(&mut self, items: impl ExactSizeIterator<Item = u32>) {
        self.p.word("&");
        let n = items.len();
        if n == 0 {
            self.p.word("[]");
            return;
        }
        self.p.cbox(INDENT);
        self.p.word("[");
        self.p.zerobreak();
        self.p.ibox(0);
        for (i, v) in items.enumerate() {
            self.p.int(v.into());
            if i + 1 < n {
                self.p.word(",");
                self.p.space();
            }
        }
        self.p.end();
        self.p.trailing_comma(true);
        self.p.offset(-INDENT);
        self.p.word("]");
        self.p.end();
    }

    /// `&[a, b, ...]` of structs or tuples (`expr_array`, not simple).
    fn array<I: ExactSizeIterator>(&mut self, items: I, mut each: impl FnMut(&mut Self, I::Item)) {
        self.p.word("&");
        let n = items.len();
        if n == 0 {
            self.p.word("[]");
            return;
        }
        self.p.word("[");
        self.p.cbox(INDENT);
        self.p.zerobreak();
        for (i, item) in items.enumerate() {
            each(self, item);
            self.p.trailing_comma(i + 1 == n);
        }
        self.p.offset(-INDENT);
        self.p.end();
        self.p.word("]");
    }

    fn abi(&mut self, ir: &'a Ir) {
        let a = &ir.abi;
        self.item_begin("The native ABI the artifacts target.", "pub static ABI: ");
        self.path("::Abi");
        self.item_eq();
        self.struct_begin("::Abi");
        self.field_str("revision: ", &a.revision, false);
        self.field_int("major: ", a.major.into());
        self.field_int("minor: ", a.minor.into());
        self.field_int("max_tensor_args: ", a.max_tensor_args.into());
        self.field_int("max_scalar_args: ", a.max_scalar_args.into());
        self.field("max_rank: ");
        self.p.int(a.max_rank.into());
        self.field_end(true);
        self.struct_end();
        self.item_end();
    }

    fn artifacts(&mut self, ir: &'a Ir) {
        let artifacts = artifact_rows(ir);
        self.item_begin(
            "`(artifact sha256, family index, receipt index)`, sorted by digest.",
            "pub static ARTIFACTS: &[(",
        );
        // `type_tuple`
        self.p.cbox(INDENT);
        self.p.zerobreak();
        self.p.word("&str");
        self.p.trailing_comma(false);
        self.p.word("u32");
        self.p.trailing_comma(false);
        self.p.word("u32");
        self.p.trailing_comma(true);
        self.p.offset(-INDENT);
        self.p.end();
        self.p.word(")]");
        self.item_eq();
        self.array(artifacts.into_iter(), |w, (d, f, r)| {
            // `expr_tuple`
            w.p.word("(");
            w.p.cbox(INDENT);
            w.p.zerobreak();
            w.p.str_lit(d);
            w.p.trailing_comma(false);
            w.p.int(u32_of(f));
            w.p.trailing_comma(false);
            w.p.int(u32_of(r));
            w.p.trailing_comma(true);
            w.p.offset(-INDENT);
            w.p.end();
            w.p.word(")");
        });
        self.item_end();
    }

    fn retired(&mut self, ir: &'a Ir) {
        self.item_begin(RETIRED_DOC, "pub static RETIRED: &[");
        self.path("::Retired");
        self.p.word("]");
        self.item_eq();
        self.array(ir.retired.iter(), |w, r| {
            w.struct_begin("::Retired");
            w.field_str("name: ", &r.name, false);
            w.field_int("revision: ", r.revision.into());
            w.field_str("identity: ", &r.identity, false);
            w.field_str("reason: ", &r.reason, false);
            w.field("receipts: ");
            w.array(r.receipts.iter(), |w, d| w.p.str_lit(d));
            w.field_end(true);
            w.struct_end();
        });
        self.item_end();
    }

    fn indices(&mut self, ir: &'a Ir) {
        let families = index_slots(ir.families.iter().map(|f| f.name.as_str()));
        self.item_begin(FAMILY_INDEX_DOC, "pub static FAMILY_INDEX: &[u32]");
        self.item_eq();
        self.int_array(families.into_iter());
        self.item_end();
        let artifacts = index_slots(artifact_rows(ir).into_iter().map(|(d, _, _)| d));
        self.item_begin(ARTIFACT_INDEX_DOC, "pub static ARTIFACT_INDEX: &[u32]");
        self.item_eq();
        self.int_array(artifacts.into_iter());
        self.item_end();
    }

    /// `pub mod families { pub mod <family> { ... } ... }` (`item_mod`).
    fn modules(&mut self, ir: &'a Ir) {
        self.doc("Named constants per family.");
        self.p.cbox(INDENT);
        self.p.word("pub mod families {");
        self.p.hardbreak_if_nonempty();
        for (i, f) in ir.families.iter().enumerate() {
            self.module(i, f);
        }
        self.p.offset(-INDENT);
        self.p.end();
        self.p.word("}");
        self.p.hardbreak();
    }

    fn module(&mut self, i: usize, f: &'a Family) {
        self.doc(&f.summary);
        self.p.cbox(INDENT);
        self.p.word("pub mod ");
        self.p.word(f.name.as_str());
        self.p.word(" {");
        self.p.hardbreak_if_nonempty();
        self.item_begin("The family record.", "pub static FAMILY: &");
        self.path("::Family");
        self.item_eq();
        self.p.word("&super::super::FAMILIES[");
        self.p.int(i as i64);
        self.p.word("]");
        self.item_end();
        self.item_begin(
            "Identity digest of this revision.",
            "pub const IDENTITY: &str",
        );
        self.item_eq();
        self.p.str_lit(&f.identity);
        self.item_end();
        for p in &f.params {
            self.constant(format!("PARAM_{}", shouty(&p.name)), u32_of(p.index), "");
        }
        for p in &f.params {
            for pr in &f.profiles {
                if let Some(slot) = pr.slot_of(p.index) {
                    let name = format!("{}_SLOT_{}", shouty(&pr.name), shouty(&p.name));
                    self.constant(name, slot.into(), "u32");
                }
            }
            if let Some(slot) = f.common_slot(p.index) {
                self.constant(format!("SLOT_{}", shouty(&p.name)), slot.into(), "u32");
            }
        }
        self.p.offset(-INDENT);
        self.p.end();
        self.p.word("}");
        self.p.hardbreak();
    }

    /// `pub const NAME: u32 = value;` (slots were quoted as `u32` values,
    /// which print with a suffix).
    fn constant(&mut self, name: String, value: i64, suffix: &'static str) {
        self.p.cbox(0);
        self.p.word("pub const ");
        self.p.word(name);
        self.p.word(": u32");
        self.item_eq();
        self.p.int(value);
        self.p.word(suffix);
        self.item_end();
    }
}

/// The tokens the tables were built from before `tables_source`, formatted
/// with prettyplease: the reference the direct printer is tested against.
#[cfg(test)]
mod reference {
    use proc_macro2::{Literal, TokenStream};
    use quote::{format_ident, quote};

    use super::{doc, ident};
    use crate::ir::{Family, Ir, Operation, ScalarRef};
    use crate::names::shouty;

    pub fn opt_str(s: &Option<String>) -> TokenStream {
        match s {
            Some(s) => quote!(Some(#s)),
            None => quote!(None),
        }
    }

    fn u32_lit(n: usize) -> Literal {
        Literal::u32_unsuffixed(u32::try_from(n).unwrap_or(u32::MAX))
    }

    fn scalar_tokens(s: ScalarRef, k: &TokenStream) -> TokenStream {
        match s {
            ScalarRef::Constant(v) => {
                let v = Literal::f64_unsuffixed(v);
                quote!(#k::ScalarRef::Constant(#v))
            }
            ScalarRef::Param(i) => {
                let i = u32_lit(i);
                quote!(#k::ScalarRef::Param(#i))
            }
        }
    }

    fn family_tokens(f: &Family, k: &TokenStream) -> TokenStream {
        let (name, summary, identity) = (&f.name, &f.summary, &f.identity);
        let revision = Literal::u32_unsuffixed(f.revision);
        let contract = format_ident!("{}", f.contract.variant_name());
        let torch = f.torch;
        let operation = match &f.operation {
            Operation::ElementwiseBinary { op, lhs, rhs, out } => {
                let op = format_ident!("{}", op.variant_name());
                let (lhs, rhs, out) = (u32_lit(*lhs), u32_lit(*rhs), u32_lit(*out));
                quote!(#k::Operation::ElementwiseBinary { op: #k::BinaryOp::#op, lhs: #lhs, rhs: #rhs, out: #out })
            }
            Operation::Matmul {
                m,
                k: kk,
                n,
                a,
                b,
                c,
                accumulate,
            } => {
                let (a, b, c) = (u32_lit(*a), u32_lit(*b), u32_lit(*c));
                let (m, kk, n) = (
                    Literal::i64_unsuffixed(m.as_i64()),
                    Literal::i64_unsuffixed(kk.as_i64()),
                    Literal::i64_unsuffixed(n.as_i64()),
                );
                quote!(#k::Operation::Matmul { m: #m, k: #kk, n: #n, a: #a, b: #b, c: #c, accumulate: #accumulate })
            }
            Operation::ElementwiseUnary { op, input, out } => {
                let op = format_ident!("{}", op.variant_name());
                let (input, out) = (u32_lit(*input), u32_lit(*out));
                quote!(#k::Operation::ElementwiseUnary { op: #k::UnaryOp::#op, input: #input, out: #out })
            }
            Operation::Reduce {
                op,
                input,
                out,
                axes,
                keepdim,
            } => {
                let op = format_ident!("{}", op.variant_name());
                let (input, out) = (u32_lit(*input), u32_lit(*out));
                let axes = axes.iter().map(|&a| Literal::u32_unsuffixed(a));
                quote!(#k::Operation::Reduce { op: #k::ReduceOp::#op, input: #input, out: #out, axes: &[#(#axes),*], keepdim: #keepdim })
            }
            Operation::Softmax { input, out, axis } => {
                let (input, out, axis) = (
                    u32_lit(*input),
                    u32_lit(*out),
                    Literal::u32_unsuffixed(*axis),
                );
                quote!(#k::Operation::Softmax { input: #input, out: #out, axis: #axis })
            }
            Operation::Norm {
                op,
                input,
                weight,
                bias,
                out,
                axis,
                eps,
            } => {
                let op = format_ident!("{}", op.variant_name());
                let (input, weight, out) = (u32_lit(*input), u32_lit(*weight), u32_lit(*out));
                let bias = match bias {
                    Some(b) => {
                        let b = u32_lit(*b);
                        quote!(Some(#b))
                    }
                    None => quote!(None),
                };
                let axis = Literal::u32_unsuffixed(*axis);
                let eps = scalar_tokens(*eps, k);
                quote!(#k::Operation::Norm { op: #k::NormKind::#op, input: #input, weight: #weight, bias: #bias, out: #out, axis: #axis, eps: #eps })
            }
            Operation::PagedAttentionDecode {
                query,
                key_cache,
                value_cache,
                block_table,
                context_lens,
                out,
                scale,
            } => {
                let [q, kc, vc, bt, cl, out] = [
                    *query,
                    *key_cache,
                    *value_cache,
                    *block_table,
                    *context_lens,
                    *out,
                ]
                .map(u32_lit);
                let scale = scalar_tokens(*scale, k);
                quote!(#k::Operation::PagedAttentionDecode { query: #q, key_cache: #kc, value_cache: #vc, block_table: #bt, context_lens: #cl, out: #out, scale: #scale })
            }
            Operation::Custom { semantics } => {
                quote!(#k::Operation::Custom { semantics: #semantics })
            }
        };
        let params = f.params.iter().map(|p| {
            let pname = &p.name;
            let index = u32_lit(p.index);
            let pool = u32_lit(p.pool_index);
            let kind = format_ident!("{}", p.kind.variant_name());
            let dir = format_ident!("{}", p.direction.variant_name());
            let dtype = format_ident!("{}", p.dtype.variant_name());
            let layout = format_ident!("{}", p.layout.variant_name());
            let shape = p.shape.iter().map(|d| Literal::i64_unsuffixed(*d));
            let lowered = p.lowered_shape.iter().map(|d| Literal::i64_unsuffixed(*d));
            let pdoc = opt_str(&p.doc);
            quote!(#k::Param {
                name: #pname, index: #index, kind: #k::ParamKind::#kind, direction: #k::Direction::#dir,
                dtype: #k::DType::#dtype, shape: &[#(#shape),*], layout: #k::Layout::#layout,
                lowered_shape: &[#(#lowered),*], pool_index: #pool, doc: #pdoc,
            })
        });
        let returns = f.returns.iter().map(|r| u32_lit(*r));
        let profiles = f.profiles.iter().map(|p| {
            let pname = &p.name;
            let platform = format_ident!("{}", p.platform.variant_name());
            let backend = format_ident!("{}", p.backend.variant_name());
            let runtime = format_ident!("{}", p.runtime.variant_name());
            let mode = format_ident!("{}", p.execution_mode.variant_name());
            let bindings = p.bindings.iter().map(|b| {
                let param = u32_lit(b.param);
                let slot = Literal::u32_unsuffixed(b.slot);
                let kind = format_ident!("{}", b.kind.variant_name());
                quote!(#k::Binding { param: #param, slot: #slot, kind: #k::BindingKind::#kind })
            });
            quote!(#k::Profile {
                name: #pname, platform: #k::Platform::#platform, backend: #k::Backend::#backend,
                runtime: #k::Runtime::#runtime, execution_mode: #k::ExecutionMode::#mode,
                bindings: &[#(#bindings),*],
            })
        });
        let receipts = f.receipts.iter().map(|r| {
            let profile = u32_lit(r.profile);
            let (codec, artifact, sha) = (&r.codec, &r.artifact, &r.sha256);
            let (date, hw) = (&r.evidence.date, &r.evidence.hardware);
            let note = opt_str(&r.evidence.note);
            quote!(#k::Receipt {
                profile: #profile, codec: #codec, artifact: #artifact, sha256: #sha,
                evidence: #k::Evidence { date: #date, hardware: #hw, note: #note },
            })
        });
        let (tensors, scalars) = (u32_lit(f.tensor_count), u32_lit(f.scalar_count));
        let torch_schema = opt_str(&f.torch_schema);
        let symbols = f.symbols.iter().map(|s| {
            let name = &s.name;
            let (min, max, multiple_of) = super::symbol_bounds(s);
            let (min, max, multiple_of) = (
                Literal::i64_unsuffixed(min),
                Literal::i64_unsuffixed(max),
                Literal::i64_unsuffixed(multiple_of),
            );
            let uses = s.uses.iter().map(|u| {
                let (param, tensor, axis) = (u32_lit(u.param), u32_lit(u.tensor), u32_lit(u.axis));
                quote!(#k::DimUse { param: #param, tensor: #tensor, axis: #axis })
            });
            quote!(#k::Symbol {
                name: #name, min: #min, max: #max, multiple_of: #multiple_of, uses: &[#(#uses),*],
            })
        });
        quote!(#k::Family {
            name: #name, revision: #revision, summary: #summary, contract: #k::Contract::#contract,
            torch: #torch, operation: #operation, params: &[#(#params),*], returns: &[#(#returns),*],
            profiles: &[#(#profiles),*], receipts: &[#(#receipts),*],
            tensor_count: #tensors, scalar_count: #scalars, identity: #identity,
            torch_schema: #torch_schema, symbols: &[#(#symbols),*],
        })
    }

    /// Per-family named constants: the family itself, parameter indices and
    /// binding slots (per profile, and family-wide when every profile agrees).
    fn family_module(i: usize, f: &Family, k: &TokenStream) -> TokenStream {
        let module = ident(&f.name);
        let index = Literal::usize_unsuffixed(i);
        let summary = doc(&f.summary);
        let params = f.params.iter().map(|p| {
            let c = format_ident!("PARAM_{}", shouty(&p.name));
            let v = u32_lit(p.index);
            quote!(pub const #c: u32 = #v;)
        });
        let mut slots = Vec::new();
        for p in &f.params {
            for pr in &f.profiles {
                if let Some(slot) = pr.slot_of(p.index) {
                    let c = format_ident!("{}_SLOT_{}", shouty(&pr.name), shouty(&p.name));
                    slots.push(quote!(pub const #c: u32 = #slot;));
                }
            }
            if let Some(slot) = f.common_slot(p.index) {
                let c = format_ident!("SLOT_{}", shouty(&p.name));
                slots.push(quote!(pub const #c: u32 = #slot;));
            }
        }
        let identity = &f.identity;
        quote! {
            #summary
            pub mod #module {
                /// The family record.
                pub static FAMILY: &#k::Family = &super::super::FAMILIES[#index];
                /// Identity digest of this revision.
                pub const IDENTITY: &str = #identity;
                #(#params)*
                #(#slots)*
            }
        }
    }

    /// The ABI record, the family table, the artifact index and the per-family
    /// modules, with record types at `krate` (`crate` or `::kfam_runtime`).
    pub fn tables_tokens(ir: &Ir, k: &TokenStream) -> TokenStream {
        let a = &ir.abi;
        let revision = &a.revision;
        let (major, minor) = (
            Literal::u16_unsuffixed(a.major),
            Literal::u16_unsuffixed(a.minor),
        );
        let mt = Literal::u32_unsuffixed(a.max_tensor_args);
        let ms = Literal::u32_unsuffixed(a.max_scalar_args);
        let mr = Literal::u32_unsuffixed(a.max_rank);
        let families = ir.families.iter().map(|f| family_tokens(f, k));
        let mut artifacts: Vec<(&str, usize, usize)> = ir
            .families
            .iter()
            .enumerate()
            .flat_map(|(fi, f)| {
                f.receipts
                    .iter()
                    .enumerate()
                    .map(move |(ri, r)| (r.sha256.as_str(), fi, ri))
            })
            .collect();
        artifacts.sort();
        let artifacts = artifacts.iter().map(|(d, f, r)| {
            let (f, r) = (u32_lit(*f), u32_lit(*r));
            quote!((#d, #f, #r))
        });
        let modules = ir
            .families
            .iter()
            .enumerate()
            .map(|(i, f)| family_module(i, f, k));
        let family_index = super::index_slots(ir.families.iter().map(|f| f.name.as_str()))
            .into_iter()
            .map(Literal::u32_unsuffixed);
        let artifact_index =
            super::index_slots(super::artifact_rows(ir).into_iter().map(|(d, _, _)| d))
                .into_iter()
                .map(Literal::u32_unsuffixed);
        let retired = ir.retired.iter().map(|r| {
            let (name, identity, reason) = (&r.name, &r.identity, &r.reason);
            let revision = Literal::u32_unsuffixed(r.revision);
            let receipts = &r.receipts;
            quote!(#k::Retired {
                name: #name, revision: #revision, identity: #identity, reason: #reason,
                receipts: &[#(#receipts),*],
            })
        });
        let retired_doc = format!(" {}", super::RETIRED_DOC);
        let family_rows_doc = format!(" {}", super::FAMILY_ROWS_DOC);
        let n_families = Literal::usize_unsuffixed(ir.families.len());
        let family_index_doc = format!(" {}", super::FAMILY_INDEX_DOC);
        let artifact_index_doc = format!(" {}", super::ARTIFACT_INDEX_DOC);
        quote! {
            /// The native ABI the artifacts target.
            pub static ABI: #k::Abi = #k::Abi {
                revision: #revision, major: #major, minor: #minor,
                max_tensor_args: #mt, max_scalar_args: #ms, max_rank: #mr,
            };

            /// Every approved family, sorted by name.
            pub static FAMILIES: &[#k::Family] = &FAMILY_ROWS;
            #[doc = #family_rows_doc]
            static FAMILY_ROWS: [#k::Family; #n_families] = [#(#families),*];

            /// `(artifact sha256, family index, receipt index)`, sorted by digest.
            pub static ARTIFACTS: &[(&str, u32, u32)] = &[#(#artifacts),*];

            #[doc = #retired_doc]
            pub static RETIRED: &[#k::Retired] = &[#(#retired),*];

            #[doc = #family_index_doc]
            pub static FAMILY_INDEX: &[u32] = &[#(#family_index),*];

            #[doc = #artifact_index_doc]
            pub static ARTIFACT_INDEX: &[u32] = &[#(#artifact_index),*];

            /// Named constants per family.
            pub mod families {
                #(#modules)*
            }
        }
    }

    pub fn unparse(ir: &Ir) -> String {
        unparse_with(ir, "crate")
    }

    /// The reference for another crate path (the macro's `::kfam_runtime`).
    pub fn unparse_with(ir: &Ir, krate: &str) -> String {
        let k: TokenStream = krate.parse().unwrap();
        let file: syn::File = syn::parse2(tables_tokens(ir, &k)).unwrap();
        prettyplease::unparse(&file)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ir_of(families: Vec<(String, String)>) -> Ir {
        let abi = Some(("m/abi.toml".to_owned(), crate::synth::ABI_TOML.to_owned()));
        let (ir, report) = crate::check_sources(abi, families);
        let rendered = report.render_human(&annotate_snippets::Renderer::plain());
        ir.unwrap_or_else(|| panic!("{rendered}"))
    }

    fn assert_same(ir: &Ir) {
        let want = reference::unparse(ir);
        let got = tables_source(ir, "crate", "");
        if want != got {
            let line = want
                .lines()
                .zip(got.lines())
                .position(|(a, b)| a != b)
                .unwrap_or(0);
            let show = |s: &str| {
                s.lines()
                    .skip(line.saturating_sub(3))
                    .take(8)
                    .collect::<Vec<_>>()
                    .join("\n")
            };
            panic!(
                "differs at line {}:\n--- prettyplease\n{}\n--- direct\n{}",
                line + 1,
                show(&want),
                show(&got)
            );
        }
    }

    #[test]
    fn same_as_prettyplease_for_synthetic_manifests() {
        for (n, seed) in [(0, 1), (1, 2), (60, 3), (400, 4)] {
            let families = crate::synth::manifest(n, seed).sources("m").1;
            assert_same(&ir_of(families));
        }
    }

    #[test]
    fn same_as_prettyplease_with_retired_families() {
        let families = crate::synth::manifest(3, 5).sources("m").1;
        let mut ir = ir_of(families);
        for i in 0..6usize {
            ir.retired.push(crate::ir::Retired {
                name: format!("retired_{}", "r".repeat(i * 9)),
                revision: i as u32 + 1,
                identity: format!("{i:064x}"),
                reason: format!("reason \"{}\" \u{e9}", "w".repeat(i * 13)),
                receipts: (0..i % 3).map(|j| format!("{j:064x}")).collect(),
            });
        }
        assert_same(&ir);
    }

    /// Families with named symbols: constraints (unbounded `max` is
    /// `i64::MAX`), names of varied length and several uses.
    #[test]
    fn same_as_prettyplease_with_symbols() {
        let families = crate::synth::manifest(6, 11).sources("m").1;
        let mut ir = ir_of(families);
        for (n, f) in ir.families.iter_mut().enumerate() {
            let tensors: Vec<(usize, usize)> = f
                .params
                .iter()
                .filter(|p| p.is_tensor())
                .map(|p| (p.index, p.pool_index))
                .collect();
            for k in 0..n % 3 + 1 {
                f.symbols.push(crate::ir::Symbol {
                    name: format!("s{}", "y".repeat(n * 7 + k)),
                    min: (n * k) as u32,
                    max: (k % 2 == 0).then_some(u32::MAX - n as u32),
                    multiple_of: 1 << k,
                    uses: tensors
                        .iter()
                        .map(|&(param, tensor)| crate::ir::DimUse {
                            param,
                            tensor,
                            axis: k % 2,
                        })
                        .collect(),
                });
            }
        }
        assert_same(&ir);
    }

    /// Every length around the two line-fitting decisions of the directly
    /// written `FAMILIES` (`Some("...")` and integer arrays), at each depth
    /// they occur.
    #[test]
    fn same_as_prettyplease_around_the_margin() {
        let families = crate::synth::manifest(12, 9).sources("m").1;
        let mut ir = ir_of(families);
        let mut n = 0usize;
        for f in &mut ir.families {
            for p in &mut f.params {
                n += 1;
                p.doc = Some("d".repeat(40 + n % 40));
                p.shape = (0..n % 24)
                    .map(|i| [7, -1, 4096, 123_456_789][(i + n) % 4])
                    .collect();
                p.lowered_shape = (0..n % 31).map(|i| i as i64 * 10).collect();
            }
            for r in &mut f.receipts {
                n += 1;
                r.evidence.note = Some("n".repeat(30 + n % 45));
            }
            f.returns = (0..n % 40).collect();
            f.torch_schema = Some("t".repeat(50 + n % 30));
        }
        assert_same(&ir);
    }

    /// Every operation kind (the shipped manifest has one family of each
    /// but softmax and reduce; two more cover those), float constants and
    /// scalar-parameter operands, under both crate paths.
    #[test]
    fn same_as_prettyplease_for_every_operation_kind() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../manifest");
        let (ir, report) = crate::check_dir(&dir);
        let mut ir = ir.unwrap_or_else(|| {
            panic!(
                "{}",
                report.render_human(&annotate_snippets::Renderer::plain())
            )
        });
        let extra = ir_of(vec![
            (
                "m/families/softmax_x.toml".to_owned(),
                "name = \"softmax_x\"\nrevision = 1\nsummary = \"s\"\ncontract = \"kernel\"\n\
                 [operation.softmax]\ninput = \"x\"\nout = \"y\"\naxis = 1\n\
                 [[params]]\nname = \"x\"\ndtype = \"fp32\"\nshape = [4, 8]\n\
                 [[params]]\nname = \"y\"\ndirection = \"out\"\ndtype = \"fp32\"\nshape = [4, 8]\n"
                    .to_owned(),
            ),
            (
                "m/families/reduce_x.toml".to_owned(),
                "name = \"reduce_x\"\nrevision = 1\nsummary = \"s\"\ncontract = \"kernel\"\n\
                 [operation.reduce]\nop = \"sum\"\ninput = \"x\"\nout = \"y\"\naxes = [2, 0]\n\
                 [[params]]\nname = \"x\"\ndtype = \"fp32\"\nshape = [4, 8, 16]\n\
                 [[params]]\nname = \"y\"\ndirection = \"out\"\ndtype = \"fp32\"\nshape = [8]\n"
                    .to_owned(),
            ),
        ]);
        ir.families.extend(extra.families);
        let mut kinds: Vec<_> = ir.families.iter().map(|f| f.operation.kind()).collect();
        kinds.sort_unstable();
        kinds.dedup();
        assert_eq!(kinds.len(), crate::vocab::OperationKind::ALL.len());
        assert_same(&ir);
        let want = reference::unparse_with(&ir, "::kfam_runtime");
        assert_eq!(want, tables_source(&ir, "::kfam_runtime", ""));
    }

    #[test]
    fn same_as_prettyplease_for_awkward_text() {
        // Lengths around every line-width decision, escapes, non-ASCII text,
        // long names and deep shapes.
        let mut families = Vec::new();
        for i in 0..120usize {
            let pad = "x".repeat(i);
            let name = format!("f{i}_{}", "long_name_".repeat(i % 6).trim_end_matches('_'));
            let name = name.trim_end_matches('_').to_owned();
            let doc = match i % 5 {
                0 => format!("doc = \"{pad}\""),
                1 => format!("doc = \"tab-free \\\\ backslash \\\" quote ' apostrophe {pad}\""),
                2 => format!("doc = \"caf\u{e9} \u{4e2d}\u{6587} {pad}\""),
                3 => format!("doc = \"\"\"\nline one {pad}\n\nline three\"\"\""),
                _ => String::new(),
            };
            let dims = ["4294967295", "1000000, -1, 4096", "-1, 1, 2, 3, 4"][i % 3];
            // Long return lists wrap inside their array.
            let returns = vec!["\"out\""; i % 45 + 1].join(", ");
            let hw = "h".repeat(i % 40 + 1);
            let note = if i % 3 == 0 {
                String::new()
            } else {
                format!(", note = \"{}\"", "n".repeat(i))
            };
            let text = format!(
                r#"name = "{name}"
revision = 1
summary = """
{pad} summary with "quotes" and \\ backslashes
  indented second line   """
contract = "kernel"
returns = [{returns}]

[operation.elementwise_binary]
op = "add"
lhs = "lhs"
rhs = "rhs"
out = "out"

[[params]]
name = "lhs"
dtype = "fp32"
shape = [{dims}]
{doc}

[[params]]
name = "rhs"
dtype = "fp32"
shape = [{dims}]

[[params]]
name = "out"
direction = "out"
dtype = "fp32"
shape = [{dims}]

[[params]]
name = "scalar_{}"
kind = "scalar"
dtype = "int32"

[[profiles]]
name = "p{}"
platform = "a5"
backend = "cce"
runtime = "host_build_graph"
execution_mode = "onboard"
bindings = [
  {{ param = "lhs", slot = 0, kind = "tensor_arg" }},
  {{ param = "rhs", slot = {}, kind = "tensor_arg" }},
  {{ param = "out", slot = 4294967295, kind = "tensor_arg" }},
  {{ param = "scalar_{}", slot = 3, kind = "scalar_arg" }},
]

[[receipts]]
profile = "p{}"
codec = "c.{}"
artifact = "a/{pad}.so"
sha256 = "{:064x}"
evidence = {{ date = "2026-01-01", hardware = "{hw}"{note} }}
"#,
                "s".repeat(i % 50 + 1),
                "q".repeat(i % 60 + 1),
                1 + i * 1000,
                "s".repeat(i % 50 + 1),
                "q".repeat(i % 60 + 1),
                "c".repeat(i % 60),
                i + 1
            );
            families.push((format!("m/families/{name}.toml"), text));
        }
        assert_same(&ir_of(families));
    }
}
