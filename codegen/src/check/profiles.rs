//! Profiles (where a family may run) and their launch bindings.

use std::collections::{BTreeMap, HashMap, HashSet};

use super::family::{err, FamilyChecker};
use super::targets::Kind as TargetKind;
use super::text::{join_ticks, name_list};
use crate::diag::Code;
use crate::ir;
use crate::model::{self, Spanned};
use crate::vocab::{BindingKind, DType, Layout};

impl<'a> FamilyChecker<'a> {
    pub(super) fn check_profiles(&mut self) -> Vec<ir::Profile> {
        let id = self.id;
        let mut out = Vec::new();
        let mut names = HashSet::new();
        for pr in &self.file.profiles {
            let decl = &pr.value;
            self.check_name(&decl.name, "profile");
            if !names.insert(decl.name.value.as_str()) {
                self.push(
                    err(
                        Code::DuplicateProfile,
                        id,
                        &decl.name.span,
                        format!("profile `{}` is declared twice", decl.name.value),
                    )
                    .label("second declaration")
                    .help("profile names are unique within a family; rename one"),
                );
            }
            // Unresolved, the profile is still named (the family has an
            // error and is not lowered), so its receipts find it.
            let named = |t: &Spanned<String>| ir::TargetRef::named(&t.value);
            let (platform, backend, runtime, execution_mode) =
                self.resolve_target(decl).unwrap_or_else(|| {
                    (
                        named(&decl.platform),
                        named(&decl.backend),
                        named(&decl.runtime),
                        named(&decl.execution_mode),
                    )
                });
            let bindings = self.check_bindings(pr);
            out.push(ir::Profile {
                name: decl.name.value.clone(),
                platform,
                backend,
                runtime,
                execution_mode,
                bindings,
            });
        }
        out
    }

    /// A profile's platform, backend, runtime and execution mode, resolved
    /// against the catalog's declarations, and the platform's rules applied.
    fn resolve_target(
        &mut self,
        decl: &model::Profile,
    ) -> Option<(ir::TargetRef, ir::TargetRef, ir::TargetRef, ir::TargetRef)> {
        let id = self.id;
        let (targets, sources) = (self.targets, self.sources);
        let mut resolve = |kind: TargetKind, name: &Spanned<String>| match targets
            .resolve(sources, id, kind, name)
        {
            Ok(found) => found,
            Err(d) => {
                self.push(*d);
                None
            }
        };
        let platform = resolve(TargetKind::Platform, &decl.platform);
        let backend = resolve(TargetKind::Backend, &decl.backend);
        let runtime = resolve(TargetKind::Runtime, &decl.runtime);
        let execution_mode = resolve(TargetKind::ExecutionMode, &decl.execution_mode);
        let platform = platform?;
        let index = targets
            .targets
            .platforms
            .iter()
            .position(|p| p.target.name == platform.name)?;
        let rules = &targets.targets.platforms[index];
        let name = &platform.name;
        for (member, offered, key, span) in [
            (&backend, &rules.backends, "backends", &decl.backend.span),
            (&runtime, &rules.runtimes, "runtimes", &decl.runtime.span),
        ] {
            let Some(member) = member else { continue };
            if offered.contains(&member.name) || !targets.judges(index, key) {
                continue;
            }
            let what = &key[..key.len() - 1];
            let mut d = err(
                Code::PlatformBackend,
                id,
                span,
                format!("{what} `{member}` is not available on `{name}`"),
            )
            .label(format!("wrong {what}"))
            .help(format!("`{name}` supports: {}", join_ticks(offered)));
            d = targets.at_rule(
                self.sources,
                d,
                index,
                key,
                format!("`{name}` declares its {key}"),
            );
            self.push(d);
        }
        self.check_platform_rules(index, &decl.platform.span);
        Some((platform, backend?, runtime?, execution_mode?))
    }

    /// The family's layouts and dtypes against what platform `index` allows:
    /// the first parameter of each layout or dtype it lacks is reported.
    fn check_platform_rules(&mut self, index: usize, span: &std::ops::Range<usize>) {
        let id = self.id;
        let targets = self.targets;
        let rules = &targets.targets.platforms[index];
        let name = &rules.target.name;
        let mut layouts: Vec<(Layout, &str)> = Vec::new();
        let mut dtypes: Vec<(DType, &str)> = Vec::new();
        for p in &self.params {
            if p.is_tensor()
                && !rules.layouts.contains(&p.layout)
                && !layouts.iter().any(|(l, _)| *l == p.layout)
            {
                layouts.push((p.layout, &p.name));
            }
            if !rules.dtypes.contains(&p.dtype) && !dtypes.iter().any(|(d, _)| *d == p.dtype) {
                dtypes.push((p.dtype, &p.name));
            }
        }
        let mut found = Vec::new();
        for (layout, param) in layouts {
            let on: Vec<&str> = targets
                .targets
                .platforms
                .iter()
                .filter(|q| q.layouts.contains(&layout))
                .map(|q| q.target.name.as_str())
                .collect();
            let help = if on.is_empty() {
                format!("no platform of the catalog accepts `{layout}`; use `nd`, or declare `{layout}` in the platform's `layouts`")
            } else {
                format!(
                    "`{layout}` runs on {}; use `nd` or another platform",
                    join_ticks(&on)
                )
            };
            let upper = if layout == Layout::Nz {
                "NZ".to_owned()
            } else {
                format!("`{layout}`")
            };
            let d = err(
                Code::NzPlatform,
                id,
                span,
                format!("{upper} tensor `{param}` cannot run on `{name}`"),
            )
            .label(format!("platform without {upper} support"))
            .help(help);
            let what = format!("`{name}` declares its layouts");
            found.push(targets.at_rule(self.sources, d, index, "layouts", what));
        }
        for (dtype, param) in dtypes {
            let d = err(
                Code::DtypePlatform,
                id,
                span,
                format!("{dtype} tensor `{param}` cannot run on `{name}`"),
            )
            .label(format!("platform without `{dtype}`"))
            .help(format!(
                "`{name}` takes {}; change the parameter, use another platform, or declare `{dtype}` in its `dtypes`",
                join_ticks(&rules.dtypes)
            ));
            let what = format!("`{name}` declares its dtypes");
            found.push(targets.at_rule(self.sources, d, index, "dtypes", what));
        }
        self.diagnostics.extend(found);
    }
}

impl<'a> FamilyChecker<'a> {
    pub(super) fn check_bindings(&mut self, pr: &Spanned<model::Profile>) -> Vec<ir::Binding> {
        let id = self.id;
        let mut bound: BTreeMap<usize, ()> = BTreeMap::new();
        let mut slots: HashMap<u32, &str> = HashMap::new();
        let mut out = Vec::new();
        let mut unknown = Vec::new();
        for b in &pr.value.bindings {
            let b = &b.value;
            let target = self.param_index.get(b.param.value.as_str()).copied();
            self.refer(&b.param.span, target);
            let Some(i) = target else {
                unknown.push(&b.param);
                continue;
            };
            if bound.insert(i, ()).is_some() {
                self.push(
                    err(
                        Code::BindingDuplicateParam,
                        id,
                        &b.param.span,
                        format!("parameter `{}` is bound twice", b.param.value),
                    )
                    .label("second binding")
                    .help("each parameter sits in exactly one slot"),
                );
            }
            if let Some(other) = slots.insert(b.slot.value, &b.param.value) {
                self.push(
                    err(
                        Code::BindingDuplicateSlot,
                        id,
                        &b.slot.span,
                        format!(
                            "slot {} is bound to `{other}` and `{}`",
                            b.slot.value, b.param.value
                        ),
                    )
                    .label("slot already taken")
                    .help("each parameter sits in its own slot; renumber the slots"),
                );
            }
            let p = &self.params[i];
            let fits = match b.kind.value {
                BindingKind::ScalarArg => !p.is_tensor(),
                BindingKind::TensorArg | BindingKind::BufferObject => p.is_tensor(),
            };
            if !fits {
                let want = if p.is_tensor() {
                    "`tensor_arg` or `buffer_object`"
                } else {
                    "`scalar_arg`"
                };
                self.push(
                    err(
                        Code::BindingKindMismatch,
                        id,
                        &b.kind.span,
                        format!(
                            "{} `{}` cannot bind to a `{}` slot",
                            p.kind, p.name, b.kind.value
                        ),
                    )
                    .label("wrong slot kind")
                    .help(format!("use {want}")),
                );
            }
            out.push(ir::Binding {
                param: i,
                slot: b.slot.value,
                kind: b.kind.value,
            });
        }
        // A parameter declared twice is reported as a duplicate; only its
        // first declaration can be bound by name.
        let missing: Vec<String> = self
            .params
            .iter()
            .filter(|p| {
                !bound.contains_key(&p.index)
                    && self.param_index.get(p.name.as_str()) == Some(&p.index)
            })
            .map(|p| format!("`{}`", p.name))
            .collect();
        // An unknown name in a binding is usually a misspelt or renamed
        // parameter: name the unbound ones there instead of reporting them again.
        for param in &unknown {
            let help = if missing.is_empty() {
                self.known_params_help()
            } else {
                format!("parameters without a binding: {}", name_list(&missing))
            };
            self.push(
                err(
                    Code::BindingUnknownParam,
                    id,
                    &param.span,
                    format!("binding names unknown parameter `{}`", param.value),
                )
                .label("unknown parameter")
                .help(help),
            );
        }
        if !missing.is_empty() && unknown.is_empty() {
            let help = self.missing_bindings_help(pr, &out);
            self.push(
                err(
                    Code::BindingMissing,
                    id,
                    &pr.value.name.span,
                    format!(
                        "profile `{}` binds no slot for {}",
                        pr.value.name.value,
                        name_list(&missing)
                    ),
                )
                .label("incomplete final ABI")
                .help(help),
            );
        }
        out.sort_by_key(|b| b.slot);
        out
    }

    /// KF0604's fix in the form the profile's bindings are written in: an
    /// inline `bindings = [...]` (as `kfam new` writes it, and when there are
    /// none yet) or `[[profiles.bindings]]` tables; each unbound parameter
    /// in the next free slot, with the kind its peers use.
    fn missing_bindings_help(&self, pr: &Spanned<model::Profile>, bound: &[ir::Binding]) -> String {
        let text = &self.sources.get(self.id).text;
        let inline = pr.value.bindings.first().is_none_or(|b| {
            text.get(b.span.start..)
                .is_some_and(|t| t.trim_start().starts_with('{'))
        });
        let tensor_kind = bound
            .iter()
            .find(|b| b.kind != BindingKind::ScalarArg)
            .map_or(BindingKind::TensorArg, |b| b.kind);
        let mut slot = bound.iter().map(|b| b.slot + 1).max().unwrap_or(0);
        let mut entries = Vec::new();
        for p in &self.params {
            let unbound = !bound.iter().any(|b| b.param == p.index)
                && self.param_index.get(p.name.as_str()) == Some(&p.index);
            if !unbound {
                continue;
            }
            let kind = if p.is_tensor() {
                tensor_kind
            } else {
                BindingKind::ScalarArg
            };
            let fields = format!("param = \"{}\", slot = {slot}, kind = \"{kind}\"", p.name);
            entries.push(if inline {
                format!("`{{ {fields} }}`")
            } else {
                format!("`{fields}`")
            });
            slot += 1;
        }
        if inline {
            format!(
                "add {} to the profile's `bindings = [...]`",
                entries.join(", ")
            )
        } else {
            let each = if entries.len() == 1 { "" } else { " for each" };
            format!(
                "add a `[[profiles.bindings]]` table{each}: {}",
                entries.join("; ")
            )
        }
    }
}
