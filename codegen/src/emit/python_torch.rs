//! `python/kfam/torch.py`: the PyTorch integration of the generated package
//! (`docs/torch.md`). The logic is the static source `python_torch.py` next to
//! this file and works from the family records alone; the generator splices
//! in the supported PyTorch releases and the per-dtype spellings of
//! [`DType::torch_dtype`] and [`DType::torch_scalar`], the same functions the
//! IR's `torch_schema` string is built with.

use std::fmt::Write as _;

use super::python::{data_dict, header, member, RUNTIME_DATA_MARKER};
use crate::vocab::DType;

const SOURCE: &str = include_str!("python_torch.py");

/// Lowest PyTorch release `kfam.torch` supports: the first with
/// `torch.library.impl_abstract`, the fallback of `register_fake` (2.4).
pub const MIN_TORCH: &str = "2.2";
/// The release the tests run against (`.ci/run` installs it).
pub const TESTED_TORCH: &str = "2.9.1";

fn data() -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "#: Lowest supported PyTorch release (``torch.library.impl_abstract`` arrived in it).\n\
         MIN_TORCH: Final[str] = \"{MIN_TORCH}\"\n\
         #: The supported PyTorch releases, as the import error names them.\n\
         SUPPORTED_TORCH: Final[str] = \"{MIN_TORCH} or newer\"\n\
         #: The PyTorch release the package's tests run against.\n\
         TESTED_TORCH: Final[str] = \"{TESTED_TORCH}\""
    );
    let dtypes = DType::ALL
        .iter()
        .map(|d| {
            format!(
                "{}: \"{}\"",
                member(DType::NAME, d.as_str()),
                d.torch_dtype()
            )
        })
        .collect();
    data_dict(
        &mut s,
        "The ``torch`` attribute holding each dtype's ``torch.dtype``.",
        "_TORCH_DTYPES: Final[dict[DType, str]] = ",
        dtypes,
    );
    let scalars = DType::ALL
        .iter()
        .filter_map(|d| {
            d.torch_scalar()
                .map(|t| format!("{}: \"{t}\"", member(DType::NAME, d.as_str())))
        })
        .collect();
    data_dict(
        &mut s,
        "The dispatcher type of a scalar of each dtype (none: torch cannot represent it).",
        "_SCALAR_TYPES: Final[dict[DType, str]] = ",
        scalars,
    );
    s
}

pub(super) fn torch_py() -> String {
    assert_eq!(
        SOURCE.matches(RUNTIME_DATA_MARKER).count(),
        1,
        "python_torch.py must hold the data marker exactly once"
    );
    format!(
        "{}{}",
        header(),
        SOURCE.replacen(RUNTIME_DATA_MARKER, &data(), 1)
    )
}
