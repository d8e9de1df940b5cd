//! The runtime library's C functions, printed from their one declaration
//! (`record::C_FUNCTIONS`, `record::LAUNCH_FN`): the header's prototypes
//! with their docs (`kfam.h`, into the prose of `functions.h`), the
//! prebuilt runtime's prototypes (`kfamrt.h`) and the generated unit's
//! definitions (`PREFIX_catalog.c`), each one call of the runtime. See
//! docs/c.md, "The runtime library's declarations".

use std::fmt::Write as _;

use super::out::Out;
use crate::record::{Arg, Base, Function, Pass, Section, CONTEXT_TYPE, C_FUNCTIONS, LAUNCH_FN};

/// The header's prose around the declarations: the library's conventions
/// and the kernel context's section, with a place for each group.
const PROSE: &str = include_str!("functions.h");

/// The declarations of the runtime library, as `kfam.h` carries them, and
/// each name they define for the header's collision check.
pub(super) fn declare(w: &mut Out) {
    let mut rest = PROSE;
    for (place, print) in [
        ("@LIBRARY@", Place::Section(Section::Library)),
        ("@LAUNCH_FN@", Place::Launch),
        ("@CONTEXT@", Place::Section(Section::Context)),
    ] {
        let (before, after) = rest
            .split_once(place)
            .expect("functions.h has a place for each group");
        w.w.raw(before);
        match print {
            Place::Section(section) => {
                for f in C_FUNCTIONS.iter().filter(|f| f.section == section) {
                    w.doc(f.doc);
                    w.line(format_args!("KFAM_API {};", f.c_signature()));
                    w.blank();
                }
            }
            Place::Launch => {
                w.doc(LAUNCH_FN.doc);
                w.line(format_args!(
                    "typedef int32_t (*{})({});",
                    LAUNCH_FN.c_name(),
                    crate::record::c_args(LAUNCH_FN.args)
                ));
                w.blank();
            }
        }
        rest = after.trim_start_matches('\n');
    }
    w.w.raw(rest);
    for name in declared_names() {
        w.record(&name);
    }
}

enum Place {
    Section(Section),
    Launch,
}

/// The names the declarations define, in header order (recorded by
/// `kfam.h`'s collision check).
fn declared_names() -> Vec<String> {
    let library = C_FUNCTIONS.iter().filter(|f| f.section == Section::Library);
    let context = C_FUNCTIONS.iter().filter(|f| f.section == Section::Context);
    library
        .map(Function::c_name)
        .chain([CONTEXT_TYPE.to_owned(), LAUNCH_FN.c_name()])
        .chain(context.map(Function::c_name))
        .collect()
}

/// `kfamrt_NAME(kfamrt_catalog *c, ...)` for every function, one
/// prototype a line: the runtime holds no catalog's types, so a record, a
/// table record and the context are `void`, an enum is `int32_t` and the
/// launcher is `kfamrt_fn`.
pub(super) fn runtime_prototypes() -> String {
    let mut out = String::new();
    for f in C_FUNCTIONS {
        let args: Vec<String> = f.args.iter().map(erased).collect();
        let _ = writeln!(
            out,
            "int32_t kfamrt_{}(kfamrt_catalog *c, {});",
            f.name,
            args.join(", ")
        );
    }
    out.pop();
    out
}

/// The definition of every function in the generated unit: one call of
/// `kfamrt_NAME` with the unit's descriptor.
pub(super) fn unit_definitions() -> String {
    let mut out = String::new();
    for f in C_FUNCTIONS {
        let args: Vec<String> = f.args.iter().map(handed).collect();
        let _ = write!(
            out,
            "KFAM_API {}\n{{\n    return kfamrt_{}(&kfam_gen_catalog, {});\n}}\n\n",
            f.c_signature(),
            f.name,
            args.join(", ")
        );
    }
    out.truncate(out.trim_end().len());
    out
}

/// The C parameter as `kfamrt.h` declares it.
fn erased(a: &Arg) -> String {
    let base = match a.base {
        Base::Enum(_) => "int32_t".to_owned(),
        Base::Call(_) | Base::Table(_) | Base::Context => "void".to_owned(),
        Base::Launch => "kfamrt_fn".to_owned(),
        other => other.c(),
    };
    crate::record::spell(a.pass, &base, a.name)
}

/// The argument as the unit hands it to the runtime: cast where C does not
/// convert it implicitly (a pointer to a typed pointer, a function pointer)
/// or where the cast says what happens (an enum passed as its code).
fn handed(a: &Arg) -> String {
    let cast = match (a.pass, a.base) {
        (_, Base::Enum(_)) => "(int32_t)",
        (_, Base::Launch) => "(kfamrt_fn)",
        (Pass::ConstOut, Base::Call(_) | Base::Table(_) | Base::Context) => "(const void **)",
        (Pass::MutOut, Base::Call(_) | Base::Table(_) | Base::Context) => "(void **)",
        _ => "",
    };
    format!("{cast}{}", a.name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn runtime_and_unit_spell_each_function_once() {
        let prototypes = runtime_prototypes();
        assert_eq!(prototypes.lines().count(), C_FUNCTIONS.len());
        assert!(prototypes.contains(
            "int32_t kfamrt_find_family(kfamrt_catalog *c, const char *name, const void **out);"
        ));
        assert!(prototypes.contains("kfamrt_fn launch, void *user);"));
        let unit = unit_definitions();
        assert!(unit.contains(
            "KFAM_API int32_t kfam_context_new(kfam_context **out)\n{\n    \
             return kfamrt_context_new(&kfam_gen_catalog, (void **)out);\n}\n"
        ));
        assert!(unit.contains("(int32_t)platform, (int32_t)mode, (int32_t)contract, out);"));
        assert_eq!(declared_names().len(), C_FUNCTIONS.len() + 2);
    }
}
