//! The words of a refused call, declared once. `CallError::describe` and
//! `CallError::explain` fill these templates in Rust (and so through the C
//! ABI); the Python runtime fills the same ones from
//! `python/kfam_runtime/_shared.py`, which is written from this table
//! (`KFAM_BLESS=1 cargo test -p kfam-runtime --test integration
//! shared::`), so the three say the same bytes. A `{name}` is a value the
//! caller fills; nothing else in a template is special.

use std::fmt::{Display, Write as _};

macro_rules! wording {
    ($($variant:ident = $key:literal => $text:literal,)+) => {
        /// One template.
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        pub enum Words {
            $($variant,)+
        }

        impl Words {
            /// Every template, in declaration order.
            pub const ALL: &'static [Words] = &[$(Words::$variant,)+];

            /// The key Python looks the template up by.
            pub const fn key(self) -> &'static str {
                match self {
                    $(Words::$variant => $key,)+
                }
            }

            /// The template.
            pub const fn text(self) -> &'static str {
                match self {
                    $(Words::$variant => $text,)+
                }
            }
        }
    };
}

wording! {
    Argument = "argument" => "argument {index} (`{name}`): {rule}",
    Symbol = "symbol" => ": symbol `{symbol}`",
    SymbolElsewhere = "symbol_elsewhere" => " differs from its extent in `{other}`",
    AtLeast = "at_least" => " must be at least {min}",
    AtLeastMultiple = "at_least_multiple" => " must be at least {min} and a multiple of {multiple_of}",
    Within = "within" => " must lie in {min}..={max}",
    WithinMultiple = "within_multiple" => " must lie in {min}..={max} and be a multiple of {multiple_of}",
    ExtentsBoth = "extents_both" => " ({here} here, {there} there)",
    ExtentPassed = "extent_passed" => " (passed {here})",
    ArgCount = "arg_count" => "arg_count: `{family}` takes {tensor_count} tensors and {scalar_count} scalars, {tensors} and {scalars} were passed",
    DType = "dtype" => "dtype {dtype}, expected {expected}",
    Rank = "rank" => "rank {rank} (shape {shape}), expected rank {expected_rank} (shape {expected})",
    Shape = "shape" => "shape {shape}{negative}, expected {expected}{anonymous}",
    ShapeNegative = "shape_negative" => " has a negative extent",
    ShapeAnonymous = "shape_anonymous" => " (-1: any extent)",
    Format = "format" => "storage format {format}, not accepted for layout {layout}",
    NotContiguous = "not_contiguous" => "strides {strides} of shape {shape} are not a contiguous row-major view",
    NzOffset = "nz_offset" => "storage offset {offset}, expected 0 for an NZ tensor",
    NegativeOffset = "negative_offset" => "storage offset {offset} is negative",
    StorageBounds = "storage_bounds" => "the view (shape {shape}, strides {strides}, offset {offset} elements of {dtype}) does not fit in {bytes} bytes of storage",
    Alignment = "alignment" => "data address {address} (storage {storage} + {offset} elements of {dtype}) is not a multiple of {alignment} bytes",
    Device = "device" => "device {device}, expected device {expected} (the first tensor's)",
    Overlap = "overlap" => "partially overlaps another argument of the same storage, and one of them is written",
    ScalarType = "scalar_type" => "a {kind} value, expected {dtype}",
    ScalarRange = "scalar_range" => "{value} is outside the range of {dtype}",
    FloatOverflow = "float_overflow" => "{value} is beyond the largest finite {dtype}",
}

impl Words {
    /// The template with each `{name}` replaced by its value in `values`
    /// (a name without a value stays as written).
    pub fn fill(self, values: &[(&str, &dyn Display)]) -> String {
        let mut out = String::new();
        self.fill_into(&mut out, values);
        out
    }

    /// [`fill`](Self::fill), appended to `out`.
    pub fn fill_into(self, out: &mut String, values: &[(&str, &dyn Display)]) {
        // A name without a value is a call site out of step with its
        // template (Python's `format_map` would raise on it).
        debug_assert!(
            self.names().all(|n| values.iter().any(|(v, _)| *v == n)),
            "`{}` fills {:?}",
            self.key(),
            self.names().collect::<Vec<_>>()
        );
        for part in self.parts() {
            match part {
                Part::Text(text) => out.push_str(text),
                Part::Name(name) => match values.iter().find(|(n, _)| *n == name) {
                    Some((_, v)) => {
                        let _ = write!(out, "{v}");
                    }
                    None => {
                        let _ = write!(out, "{{{name}}}");
                    }
                },
            }
        }
    }

    /// The names a template fills, in order.
    pub fn names(self) -> impl Iterator<Item = &'static str> {
        self.parts().filter_map(|p| match p {
            Part::Name(n) => Some(n),
            Part::Text(_) => None,
        })
    }

    /// The template as text and `{name}`s, in order.
    fn parts(self) -> impl Iterator<Item = Part> {
        let mut rest = self.text();
        std::iter::from_fn(move || {
            if rest.is_empty() {
                return None;
            }
            let part = match (rest.find('{'), rest.find('}')) {
                (Some(0), Some(close)) => Part::Name(&rest[1..close]),
                (Some(open), Some(_)) if open > 0 => Part::Text(&rest[..open]),
                _ => Part::Text(rest),
            };
            let len = match part {
                Part::Name(n) => n.len() + 2,
                Part::Text(t) => t.len(),
            };
            rest = &rest[len..];
            Some(part)
        })
    }
}

/// A piece of a template.
#[derive(Clone, Copy)]
enum Part {
    Text(&'static str),
    Name(&'static str),
}
