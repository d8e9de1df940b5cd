//! `abi.toml`: the native ABI the families target, its limits and statuses.

use std::collections::HashMap;

use super::family::err;
use crate::diag::{Code, FileId, Report};
use crate::ir;
use crate::limits::{ARG_CEILING, DEFAULT_MAX_PREPARED, PREPARED_CEILING, RANK_CEILING};
use crate::model;
use crate::vocab::Status;

pub(super) fn check_abi(id: FileId, abi: &model::AbiFile, report: &mut Report) -> Option<ir::Abi> {
    let before = report.error_count();
    let rev = &abi.revision;
    if !is_lower_hex(&rev.value, 40) {
        report.diagnostics.push(
            err(
                Code::BadAbiRevision,
                id,
                &rev.span,
                "ABI revision is not a 40-digit lowercase hex commit",
            )
            .label("expected 40 lowercase hex digits")
            .help("pin the full commit id of the native runtime, e.g. from `git rev-parse HEAD`"),
        );
    }
    let limits = &abi.limits.value;
    const TABLES: &str = "the generated tables hold";
    // `max_prepared` is optional (a later addition): checked when declared.
    for (key, v, ceiling, holder) in [
        (
            "max_tensor_args",
            Some(&limits.max_tensor_args),
            ARG_CEILING,
            TABLES,
        ),
        (
            "max_scalar_args",
            Some(&limits.max_scalar_args),
            ARG_CEILING,
            TABLES,
        ),
        ("max_rank", Some(&limits.max_rank), RANK_CEILING, TABLES),
        (
            "max_prepared",
            limits.max_prepared.as_ref(),
            PREPARED_CEILING,
            "a kernel context holds",
        ),
    ] {
        let Some(v) = v else { continue };
        if v.value == 0 || v.value > ceiling {
            report.diagnostics.push(
                err(
                    Code::OutOfRange,
                    id,
                    &v.span,
                    format!("`limits.{key}` must be between 1 and {ceiling}"),
                )
                .label("out of range")
                .help(format!(
                    "{holder} 1 to {ceiling}; pick a value in that range"
                )),
            );
        }
    }
    let s = &abi.status.value;
    let status = vec![
        (Status::Ok, &s.ok),
        (Status::Internal, &s.internal),
        (Status::Unsupported, &s.unsupported),
        (Status::PreparedIncompatible, &s.prepared_incompatible),
        (Status::InvalidState, &s.invalid_state),
        (Status::InvalidArgument, &s.invalid_argument),
        (Status::NotFound, &s.not_found),
        (Status::RecompileRequired, &s.recompile_required),
        (Status::NotApproved, &s.not_approved),
    ];
    let mut values: HashMap<i32, Status> = HashMap::new();
    for (name, v) in &status {
        if *name == Status::Ok && v.value != 0 {
            report.diagnostics.push(
                err(Code::StatusCodes, id, &v.span, "status `ok` must be 0")
                    .label("expected 0")
                    .help("write `ok = 0`: C callers test `status < 0` for failure"),
            );
        } else if *name != Status::Ok && v.value >= 0 {
            report.diagnostics.push(
                err(
                    Code::StatusCodes,
                    id,
                    &v.span,
                    format!("status `{name}` must be negative"),
                )
                .label("not negative")
                .help("failure codes are negative, so C callers can test `status < 0`"),
            );
        }
        if let Some(other) = values.insert(v.value, *name) {
            report.diagnostics.push(
                err(
                    Code::StatusCodes,
                    id,
                    &v.span,
                    format!("status `{name}` reuses the value of `{other}`"),
                )
                .label("duplicate value")
                .help("give every status its own negative value, so C callers can switch on it"),
            );
        }
    }
    if report.error_count() > before {
        return None;
    }
    Some(ir::Abi {
        revision: rev.value.clone(),
        major: abi.major.value,
        minor: abi.minor.value,
        max_tensor_args: limits.max_tensor_args.value,
        max_scalar_args: limits.max_scalar_args.value,
        max_rank: limits.max_rank.value,
        max_prepared: limits
            .max_prepared
            .as_ref()
            .map_or(DEFAULT_MAX_PREPARED, |v| v.value),
        status: status.into_iter().map(|(k, v)| (k, v.value)).collect(),
    })
}

pub(super) fn is_lower_hex(s: &str, len: usize) -> bool {
    s.len() == len
        && s.bytes()
            .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
}
