//! Parameters: names, kinds, dtypes, directions, and each tensor's shape,
//! layout and packing.

use super::family::{err, FamilyChecker};
use crate::diag::Code;
use crate::ir::{self, fp4_lowered, nz_lowered, static_byte_size};
use crate::model::{self, Spanned};
use crate::record::PARAM;
use crate::vocab::{DType, Direction, Layout, ParamKind};

impl<'a> FamilyChecker<'a> {
    pub(super) fn check_param(&mut self, p: &'a Spanned<model::Param>) {
        let id = self.id;
        let decl = &p.value;
        let name = &decl.name;
        self.check_name(name, "parameter");
        let index = self.params.len();
        if let Some(&first) = self.param_index.get(name.value.as_str()) {
            let first = self.file.params[first].value.name.span.clone();
            self.push(
                err(
                    Code::DuplicateParam,
                    id,
                    &name.span,
                    format!("parameter `{}` is declared twice", name.value),
                )
                .label("second declaration")
                .related(id, first, "first declared here")
                .help("parameter names are unique within a family"),
            );
        } else {
            self.param_index.insert(&name.value, index);
        }
        if let Some(doc) = &decl.doc {
            self.check_text(doc, "doc", true, false);
        }
        let kind = decl.kind.as_ref().map_or(ParamKind::Tensor, |k| k.value);
        let direction = decl.direction.as_ref().map_or(Direction::In, |d| d.value);
        let dtype = decl.dtype.value;
        let layout = decl.layout.as_ref().map_or(Layout::Nd, |l| l.value);
        let pool_index = self.params.iter().filter(|q| q.kind == kind).count();
        let dims: Vec<ir::Extent> = match (&decl.shape, kind) {
            (Some(s), ParamKind::Tensor) => s
                .value
                .iter()
                .enumerate()
                .map(|(axis, d)| {
                    let at = ir::DimUse {
                        param: index,
                        tensor: pool_index,
                        axis,
                    };
                    self.extent(d, Some(at))
                })
                .collect(),
            _ => Vec::new(),
        };
        let shape: Vec<i64> = dims.iter().map(|e| e.as_i64()).collect();
        let mut lowered = shape.clone();

        match kind {
            ParamKind::Scalar => {
                if let Some(s) = &decl.shape {
                    self.push(
                        err(
                            Code::ScalarShape,
                            id,
                            &s.span,
                            format!("scalar `{}` has a shape", name.value),
                        )
                        .label("scalars have no shape")
                        .help("remove `shape`, or remove `kind = \"scalar\"` to declare a tensor"),
                    );
                }
                if let Some(l) = &decl.layout {
                    self.push(
                        err(
                            Code::ScalarShape,
                            id,
                            &l.span,
                            format!("scalar `{}` has a layout", name.value),
                        )
                        .label("scalars have no layout")
                        .help("remove `layout`"),
                    );
                }
                if let Some(d) = decl.direction.as_ref().filter(|d| d.value != Direction::In) {
                    self.push(
                        err(
                            Code::ScalarDirection,
                            id,
                            &d.span,
                            format!("scalar `{}` is `{}`", name.value, d.value),
                        )
                        .label("scalars are always `in`")
                        .help("write results into an `out` or `inout` tensor"),
                    );
                }
                if !dtype.scalar_allowed() {
                    self.push(
                        err(
                            Code::ScalarDType,
                            id,
                            &decl.dtype.span,
                            format!("scalar `{}` cannot have dtype `{dtype}`", name.value),
                        )
                        .label("no scalar representation")
                        .help("use `fp32` or `fp16`"),
                    );
                }
            }
            ParamKind::Tensor => {
                lowered = self.check_tensor_shape(p, dtype, direction, layout, &dims);
            }
        }
        let attrs = self.param_attrs(decl, kind);
        self.params.push(ir::Param {
            name: name.value.clone(),
            index,
            kind,
            direction,
            dtype,
            shape,
            dims,
            layout,
            lowered_shape: lowered,
            pool_index,
            doc: decl.doc.as_ref().map(|d| d.value.clone()),
            attrs,
        });
    }

    /// The parameter record's declared attributes: each the manifest's
    /// value under the field's name, held to its rule, or its default.
    fn param_attrs(&mut self, decl: &model::Param, kind: ParamKind) -> ir::Attrs {
        let mut attrs = Vec::new();
        for (field, attr) in PARAM.attrs() {
            let name = field.name;
            let Some(v) = decl.attr(name) else {
                attrs.push((name, attr.default));
                continue;
            };
            let rule = attr.rule.describe();
            if attr.tensors_only && kind == ParamKind::Scalar {
                self.push(
                    err(
                        Code::AttrRule,
                        self.id,
                        &v.span,
                        format!("scalar `{}` declares `{name}`", decl.name.value),
                    )
                    .label("a scalar is passed by value")
                    .help(format!("remove `{name}`")),
                );
            } else if !attr.rule.admits(v.value) {
                self.push(
                    err(
                        Code::AttrRule,
                        self.id,
                        &v.span,
                        format!("`{name}` of `{}` is {}", decl.name.value, v.value),
                    )
                    .label(format!("not {rule}"))
                    .help(format!("`{name}` is {rule}")),
                );
            }
            attrs.push((name, v.value));
        }
        ir::Attrs(attrs)
    }

    /// Shape, layout and packing rules of one tensor; returns its lowered shape.
    pub(super) fn check_tensor_shape(
        &mut self,
        p: &Spanned<model::Param>,
        dtype: DType,
        direction: Direction,
        layout: Layout,
        dims: &[ir::Extent],
    ) -> Vec<i64> {
        let shape: &[i64] = &dims.iter().map(|e| e.as_i64()).collect::<Vec<_>>();
        let id = self.id;
        let decl = &p.value;
        let name = &decl.name.value;
        let max_rank = self.limits.max_rank as usize;
        let shape_span = decl
            .shape
            .as_ref()
            .map_or(p.span.clone(), |s| s.span.clone());
        if shape.is_empty() || shape.len() > max_rank {
            let mut d = err(
                Code::RankOutOfBounds,
                id,
                &shape_span,
                format!(
                    "tensor `{name}` has rank {}, outside 1..={max_rank}",
                    shape.len()
                ),
            )
            .label(if shape.is_empty() {
                "no extents"
            } else {
                "too many extents"
            });
            d = if decl.shape.is_none() {
                d.help("declare `shape = [...]`, or `kind = \"scalar\"` for a scalar")
            } else {
                d.help(format!("`limits.max_rank` in abi.toml is {max_rank}"))
            };
            self.push(d);
        }
        let mut dims_ok = true;
        for d in decl.shape.iter().flat_map(|s| s.value.iter()) {
            let model::Dim::Extent(v) = d.value else {
                continue;
            };
            if v != -1 && !(1..=i64::from(u32::MAX)).contains(&v) {
                dims_ok = false;
                self.push(
                    err(
                        Code::DimOutOfBounds,
                        id,
                        &d.span,
                        format!("dimension {v} of `{name}` is out of bounds"),
                    )
                    .label("expected 1..=4294967295, or -1 for a dynamic extent")
                    .help("write the static extent, or `-1` for an extent the caller chooses"),
                );
            }
        }
        if dims_ok && static_byte_size(shape, dtype).is_none() {
            self.push(
                err(
                    Code::ByteSizeOverflow,
                    id,
                    &shape_span,
                    format!("the byte size of `{name}` overflows 64 bits"),
                )
                .label("product of extents too large")
                .help(
                    "no such tensor can be allocated; use smaller extents or `-1` for dynamic ones",
                ),
            );
        }
        let layout_span = decl
            .layout
            .as_ref()
            .map_or(p.span.clone(), |l| l.span.clone());
        let mut lowered = shape.to_vec();
        match layout {
            Layout::Nd => {}
            Layout::Nchw => {
                if shape.len() != 4 {
                    self.push(
                        err(
                            Code::NchwRank,
                            id,
                            &layout_span,
                            format!("`nchw` tensor `{name}` has rank {}", shape.len()),
                        )
                        .label("needs rank 4")
                        .help("use `nd` for other ranks"),
                    );
                }
            }
            Layout::Nz => {
                if !dtype.nz_allowed() {
                    self.push(
                        err(
                            Code::NzDType,
                            id,
                            &decl.dtype.span,
                            format!("NZ tensor `{name}` has dtype `{dtype}`"),
                        )
                        .label("NZ is defined for fp16, bf16 and int8")
                        .help("use `nd`, or one of fp16, bf16, int8"),
                    );
                } else if direction != Direction::In {
                    let span = decl
                        .direction
                        .as_ref()
                        .map_or(layout_span.clone(), |d| d.span.clone());
                    self.push(
                        err(
                            Code::NzDirection,
                            id,
                            &span,
                            format!("NZ tensor `{name}` is `{direction}`"),
                        )
                        .label("NZ is accepted for read-only inputs only")
                        .help("make it `in`, or use `nd`"),
                    );
                } else if shape.len() < 2 {
                    self.push(
                        err(
                            Code::NzRank,
                            id,
                            &layout_span,
                            format!("NZ tensor `{name}` has rank {}", shape.len()),
                        )
                        .label("NZ blocks the last two dimensions")
                        .help("use `layout = \"nd\"` for a rank-1 tensor"),
                    );
                } else if let Some(axis) = self.symbol_axis(decl, dims.len() - 2..dims.len()) {
                    self.static_only(
                        axis,
                        &format!("NZ tensor `{name}` blocks its last two dimensions"),
                    );
                } else {
                    match nz_lowered(shape, dtype) {
                        Some(l) => lowered = l,
                        None => {
                            let c0 = ir::nz_c0(dtype);
                            self.push(
                                err(Code::NzExtent, id, &shape_span, format!("NZ tensor `{name}` cannot be blocked into 16 x {c0} fractals"))
                                    .label(format!("rows must be a static multiple of 16, columns a static multiple of {c0}"))
                                    .help("only leading dimensions may be dynamic (-1) in NZ"),
                            )
                        }
                    }
                }
            }
        }
        if dtype == DType::Fp4 && !shape.is_empty() {
            if let Some(axis) = self.symbol_axis(decl, dims.len() - 1..dims.len()) {
                self.static_only(
                    axis,
                    &format!("fp4 tensor `{name}` is packed along its last dimension"),
                );
                return lowered;
            }
            match fp4_lowered(&lowered) {
                Some(l) => lowered = l,
                None => self.push(
                    err(
                        Code::Fp4Packing,
                        id,
                        &shape_span,
                        format!("fp4 tensor `{name}` has no static even last dimension"),
                    )
                    .label("packed fp4 halves the last dimension")
                    .help("make the last extent static and even"),
                ),
            }
        }
        lowered
    }
}
