//! Extents: static sizes, `-1`, and named symbols with their constraints.

use std::ops::Range;

use super::family::{err, FamilyChecker};
use super::text::MAX_LISTED_NAMES;
use crate::diag::{Code, Diagnostic};
use crate::ir;
use crate::model::{self, Spanned};

impl<'a> FamilyChecker<'a> {
    /// A shape entry as an extent; a symbol is interned, its use recorded.
    pub(super) fn extent(
        &mut self,
        d: &'a Spanned<model::Dim>,
        at: Option<ir::DimUse>,
    ) -> ir::Extent {
        match &d.value {
            model::Dim::Extent(-1) => ir::Extent::Dynamic,
            model::Dim::Extent(v) => ir::Extent::Static(*v),
            model::Dim::Symbol(name) => {
                let i = match self.symbol_index.get(name.as_str()) {
                    Some(&i) => i,
                    None => {
                        self.check_name(
                            &Spanned {
                                span: d.span.clone(),
                                value: name.clone(),
                            },
                            "symbol",
                        );
                        let i = self.symbols.len();
                        self.symbol_index.insert(name, i);
                        self.symbols.push(ir::Symbol {
                            name: name.clone(),
                            min: 0,
                            max: None,
                            multiple_of: 1,
                            uses: Vec::new(),
                        });
                        self.symbol_spans.push(d.span.clone());
                        i
                    }
                };
                if let Some(at) = at {
                    self.symbols[i].uses.push(at);
                }
                ir::Extent::Symbol(i)
            }
        }
    }

    /// A payload extent: a symbol must be one the shapes declare.
    pub(super) fn payload_extent(
        &mut self,
        d: &Spanned<model::Dim>,
        key: &str,
    ) -> Option<ir::Extent> {
        match &d.value {
            model::Dim::Extent(-1) => Some(ir::Extent::Dynamic),
            model::Dim::Extent(v) => Some(ir::Extent::Static(*v)),
            model::Dim::Symbol(name) => match self.symbol_index.get(name.as_str()) {
                Some(&i) => Some(ir::Extent::Symbol(i)),
                None => {
                    let help = self.known_symbols_help();
                    self.push(
                        err(
                            Code::UnknownSymbol,
                            self.id,
                            &d.span,
                            format!("`{key} = \"{name}\"` names a symbol no shape uses"),
                        )
                        .label("unknown symbol")
                        .help(help),
                    );
                    None
                }
            },
        }
    }

    pub(super) fn known_symbols_help(&self) -> String {
        if self.symbols.is_empty() {
            return "no parameter shape uses a symbol; name the extent in the operands' `shape` first".to_owned();
        }
        let names: Vec<String> = self
            .symbols
            .iter()
            .take(MAX_LISTED_NAMES)
            .map(|s| format!("`{}`", s.name))
            .collect();
        format!("symbols used by the shapes: {}", names.join(", "))
    }

    /// The first axis in `axes` of `decl`'s shape that is a symbol.
    pub(super) fn symbol_axis(
        &self,
        decl: &'a model::Param,
        axes: Range<usize>,
    ) -> Option<&'a Spanned<model::Dim>> {
        let shape = &decl.shape.as_ref()?.value;
        shape
            .get(axes)?
            .iter()
            .find(|d| matches!(d.value, model::Dim::Symbol(_)))
    }

    pub(super) fn static_only(&mut self, d: &Spanned<model::Dim>, why: &str) {
        let symbol = match &d.value {
            model::Dim::Symbol(s) => s.as_str(),
            model::Dim::Extent(_) => "",
        };
        self.push(
            err(
                Code::SymbolStaticOnly,
                self.id,
                &d.span,
                format!("symbol `{}` sits where the extent must be static", symbol),
            )
            .label(why.to_owned())
            .help("write the static extent here; symbols may name the other dimensions"),
        );
    }

    /// Symbols used once (then just `-1`), and the `[dims]` constraints.
    pub(super) fn check_symbols(&mut self) {
        let id = self.id;
        let f = self.file;
        // A symbol with a `[dims]` table names a range even where it ties
        // nothing (the offsets of a packed attention named twice, say).
        let constrained = |name: &str| f.dims.0.iter().any(|(n, _)| n.value == name);
        for (i, s) in self.symbols.iter().enumerate() {
            if s.uses.len() == 1 && !constrained(&s.name) {
                let p = s.uses[0].param;
                let d = Diagnostic::warning(
                    Code::SymbolUsedOnce,
                    id,
                    self.symbol_spans[i].clone(),
                    format!(
                        "symbol `{}` is used only once (by `{}`)",
                        s.name, self.params[p].name
                    ),
                )
                .label("ties nothing: it is just `-1`")
                .help("use the same name for every extent that must be equal, or write -1");
                self.diagnostics.push(d);
            }
        }
        for (name, rule) in &f.dims.0 {
            let Some(&i) = self.symbol_index.get(name.value.as_str()) else {
                let help = self.known_symbols_help();
                self.push(
                    err(
                        Code::UnknownSymbol,
                        id,
                        &name.span,
                        format!("`[dims.{}]` constrains a symbol no shape uses", name.value),
                    )
                    .label("unknown symbol")
                    .help(help),
                );
                continue;
            };
            let r = &rule.value;
            let mut ok = true;
            let mut bounded = |v: &Option<Spanned<i64>>, key: &str, lo: i64| -> Option<u32> {
                let v = v.as_ref()?;
                match u32::try_from(v.value).ok().filter(|&x| i64::from(x) >= lo) {
                    Some(x) => Some(x),
                    None => {
                        ok = false;
                        let label = if key == "multiple_of" && v.value == 0 {
                            "every extent is a multiple of 1; 0 divides nothing".to_owned()
                        } else {
                            format!("expected {lo}..=4294967295")
                        };
                        self.diagnostics.push(
                            err(
                                Code::DimConstraintValue,
                                id,
                                &v.span,
                                format!(
                                    "`{key} = {}` of symbol `{}` is out of bounds",
                                    v.value, name.value
                                ),
                            )
                            .label(label),
                        );
                        None
                    }
                }
            };
            let min = bounded(&r.min, "min", 0);
            let max = bounded(&r.max, "max", 1);
            let multiple_of = bounded(&r.multiple_of, "multiple_of", 1);
            if !ok {
                continue;
            }
            let s = &mut self.symbols[i];
            s.min = min.unwrap_or(0);
            s.max = max;
            s.multiple_of = multiple_of.unwrap_or(1);
            // The smallest accepted extent: the first multiple at or above min.
            let m = u64::from(s.multiple_of);
            let first = u64::from(s.min).div_ceil(m) * m;
            if let Some(hi) = s.max.filter(|&hi| first > u64::from(hi)) {
                let msg = if s.min > hi {
                    format!(
                        "symbol `{}` has `min = {}` above `max = {hi}`",
                        s.name, s.min
                    )
                } else {
                    format!(
                        "no multiple of {} lies in {}..={hi} for symbol `{}`",
                        s.multiple_of, s.min, s.name
                    )
                };
                self.push(
                    err(Code::DimConstraintEmpty, id, &rule.span, msg)
                        .label("no extent satisfies these constraints")
                        .help("widen the range, or fix the bounds"),
                );
            }
        }
    }

    /// `[-1, "rows", 128]`: a shape as the manifest spells it.
    pub(super) fn shape_text(&self, dims: &[ir::Extent]) -> String {
        let items: Vec<String> = dims
            .iter()
            .map(|&e| match e {
                ir::Extent::Symbol(i) => format!("{:?}", self.symbols[i].name),
                e => e.as_i64().to_string(),
            })
            .collect();
        format!("[{}]", items.join(", "))
    }
}

/// Two shapes that may describe equal operands ([`ir::Extent::agrees`]).
pub(super) fn agree(a: &[ir::Extent], b: &[ir::Extent]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x.agrees(*y))
}
