//! Token helpers shared by the vocabulary enums (`rust.rs`) and the C ABI
//! records (`records.rs`).

use proc_macro2::{Ident, Span, TokenStream};
use quote::quote;

pub(super) fn ident(s: &str) -> Ident {
    Ident::new(s, Span::call_site())
}

pub(super) fn doc(text: &str) -> TokenStream {
    let text = text.trim();
    if text.is_empty() {
        return TokenStream::new();
    }
    // `#[doc]` takes any string: quote escapes it, so free text cannot end it.
    let lines = text.lines().map(|l| format!(" {}", l.trim_end()));
    quote!(#(#[doc = #lines])*)
}
