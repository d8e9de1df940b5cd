//! Placeholder until this emitter lands.

use super::GeneratedFile;
use crate::ir::Ir;

pub fn emit(_ir: &Ir) -> Vec<GeneratedFile> {
    Vec::new()
}
