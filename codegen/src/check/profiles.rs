//! Profiles (where a family may run) and their launch bindings.

use std::collections::{BTreeMap, HashMap, HashSet};

use super::family::{err, FamilyChecker};
use super::text::{join_ticks, name_list};
use crate::diag::Code;
use crate::ir;
use crate::model::{self, Spanned};
use crate::vocab::{BindingKind, Layout};

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
            let platform = decl.platform.value;
            if !platform.backends().contains(&decl.backend.value) {
                self.push(
                    err(
                        Code::PlatformBackend,
                        id,
                        &decl.backend.span,
                        format!(
                            "backend `{}` is not available on `{platform}`",
                            decl.backend.value
                        ),
                    )
                    .label("wrong backend")
                    .help(format!(
                        "`{platform}` supports: {}",
                        join_ticks(platform.backends())
                    )),
                );
            }
            if !platform.runtimes().contains(&decl.runtime.value) {
                self.push(
                    err(
                        Code::PlatformBackend,
                        id,
                        &decl.runtime.span,
                        format!(
                            "runtime `{}` is not available on `{platform}`",
                            decl.runtime.value
                        ),
                    )
                    .label("wrong runtime")
                    .help(format!(
                        "`{platform}` supports: {}",
                        join_ticks(platform.runtimes())
                    )),
                );
            }
            if !platform.supports_nz() {
                if let Some(p) = self.params.iter().find(|p| p.layout == Layout::Nz) {
                    let msg = format!("NZ tensor `{}` cannot run on `{platform}`", p.name);
                    self.push(
                        err(Code::NzPlatform, id, &decl.platform.span, msg)
                            .label("platform without NZ support")
                            .help("NZ is supported on `a2a3`; use `nd` or another platform"),
                    );
                }
            }
            let bindings = self.check_bindings(pr);
            out.push(ir::Profile {
                name: decl.name.value.clone(),
                platform,
                backend: decl.backend.value,
                runtime: decl.runtime.value,
                execution_mode: decl.execution_mode.value,
                bindings,
            });
        }
        out
    }

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
                .help("add a `[[profiles.bindings]]` entry for every parameter"),
            );
        }
        out.sort_by_key(|b| b.slot);
        out
    }
}
