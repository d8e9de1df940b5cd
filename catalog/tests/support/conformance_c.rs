//! The conformance vectors as a C program over one catalog's C ABI (shared
//! by c_conformance.rs, over this repository's catalog, and
//! two_catalogs.rs, over a second one): every case becomes one function
//! that calls the catalog's exported functions and counts agreements.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use kfam_runtime::vocab::{
    Admission, CallRule, Capability, Contract, DType, ScalarValueKind, Status, StorageFormat,
};
use kfam_runtime::Catalog;
use serde_json::Value;

/// Every case of the `*.json` files of `dir`, in file order.
pub fn cases(dir: &Path) -> Vec<Value> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    files.sort();
    let mut all = Vec::new();
    for f in files {
        let v: Value = serde_json::from_str(&std::fs::read_to_string(&f).unwrap()).unwrap();
        all.extend(
            v["cases"]
                .as_array()
                .unwrap_or_else(|| panic!("{}: no `cases`", f.display()))
                .iter()
                .cloned(),
        );
    }
    assert!(
        !all.is_empty(),
        "no conformance vectors in {}",
        dir.display()
    );
    all
}

/// A C string literal holding exactly `bytes` (octal escapes, so no escape
/// can run into the next character).
fn c_lit(bytes: &[u8]) -> String {
    let mut s = String::from("\"");
    for &b in bytes {
        if b.is_ascii_graphic() && b != b'"' && b != b'\\' && b != b'?' || b == b' ' {
            s.push(b as char);
        } else {
            write!(s, "\\{b:03o}").unwrap();
        }
    }
    s.push('"');
    s
}

fn status(cat: &Catalog, name: &Value) -> i32 {
    cat.abi
        .status_code(Status::parse(name.as_str().expect("status name")).expect("known status"))
}

fn int64(v: &Value) -> String {
    match v.as_i64() {
        Some(i64::MIN) => "(-INT64_C(9223372036854775807) - 1)".to_owned(),
        Some(i) => format!("INT64_C({i})"),
        None => panic!("expected an int64, found {v}"),
    }
}

fn array(name: &str, values: &[Value]) -> String {
    if values.is_empty() {
        return format!("    const int64_t *{name} = NULL;\n");
    }
    let items: Vec<String> = values.iter().map(int64).collect();
    format!(
        "    static const int64_t {name}[] = {{{}}};\n",
        items.join(", ")
    )
}

fn scalar_value(kind: ScalarValueKind, v: &Value) -> String {
    match kind {
        ScalarValueKind::Bool => format!(".i64 = {}", i32::from(v.as_bool().expect("bool value"))),
        ScalarValueKind::Int => format!(".i64 = {}", int64(v)),
        ScalarValueKind::Uint => format!(".u64 = UINT64_C({})", v.as_u64().expect("uint value")),
        ScalarValueKind::Float => {
            let x = match v {
                Value::String(s) if s == "inf" => return ".f64 = INFINITY".to_owned(),
                Value::String(s) if s == "-inf" => return ".f64 = -INFINITY".to_owned(),
                Value::String(s) if s == "nan" => return ".f64 = NAN".to_owned(),
                _ => v.as_f64().expect("float value"),
            };
            // `{:?}` round-trips and always has a `.` or an exponent.
            format!(".f64 = {x:?}")
        }
    }
}

/// The C function for one case over `cat`, with kfam's prefix; it calls
/// `check(name, ok)`.
fn case_fn(i: usize, case: &Value, cat: &Catalog) -> String {
    let name = case["name"].as_str().expect("case name");
    let expect = &case["expect"];
    let exp_status = status(cat, &expect["status"]);
    let mut f = format!("static void case_{i}(void)\n{{\n    int32_t st;\n");
    if matches!(
        case["kind"].as_str(),
        Some("call" | "capability" | "admission")
    ) {
        f += "    char message[4096];\n    size_t needed = 0;\n";
    }
    let family = case["family"].as_str().map(|s| c_lit(s.as_bytes()));
    match case["kind"].as_str().expect("case kind") {
        "call" => {
            let tensors = case["tensors"].as_array().expect("tensors");
            let scalars = case["scalars"].as_array().expect("scalars");
            for (k, t) in tensors.iter().enumerate() {
                f += &array(&format!("shape{k}"), t["shape"].as_array().expect("shape"));
                f += &array(
                    &format!("strides{k}"),
                    t["strides"].as_array().expect("strides"),
                );
            }
            writeln!(
                f,
                "    kfam_tensor_arg t[{}];\n    kfam_scalar_arg s[{}];",
                tensors.len().max(1),
                scalars.len().max(1)
            )
            .unwrap();
            f += "    const kfam_family *fam = NULL;\n    kfam_call_error err;\n";
            f += "    memset(t, 0, sizeof t);\n    memset(s, 0, sizeof s);\n";
            f += "    memset(&err, 0, sizeof err);\n    err.struct_size = sizeof err;\n";
            for (k, t) in tensors.iter().enumerate() {
                let dtype = DType::parse(t["dtype"].as_str().unwrap())
                    .expect("dtype")
                    .code();
                let format = StorageFormat::parse(t["format"].as_str().unwrap())
                    .expect("format")
                    .code();
                let rank = t["shape"].as_array().unwrap().len();
                write!(
                    f,
                    "    t[{k}].struct_size = sizeof t[{k}]; t[{k}].dtype = {dtype}; t[{k}].format = {format};\n    \
                     t[{k}].rank = {rank}; t[{k}].shape = shape{k}; t[{k}].strides = strides{k};\n    \
                     t[{k}].storage_offset = {}; t[{k}].storage_bytes = UINT64_C({}); t[{k}].storage = UINT64_C({});\n    \
                     t[{k}].device_index = {};\n",
                    int64(&t["storage_offset"]),
                    t["storage_bytes"].as_u64().expect("storage_bytes"),
                    t["storage"].as_u64().expect("storage"),
                    t["device_index"].as_i64().expect("device_index"),
                )
                .unwrap();
            }
            for (k, s) in scalars.iter().enumerate() {
                let kind =
                    ScalarValueKind::parse(s["kind"].as_str().unwrap()).expect("scalar kind");
                writeln!(
                    f,
                    "    s[{k}].struct_size = sizeof s[{k}]; s[{k}].kind = {}; s[{k}].value.{};",
                    kind.code(),
                    &scalar_value(kind, &s["value"])[1..]
                )
                .unwrap();
            }
            // No rule when the family is not found (the status says it).
            let rule = expect["rule"]
                .as_str()
                .map_or(-1, |r| CallRule::parse(r).expect("call rule").code());
            let param = expect["param"].as_i64().unwrap_or(-1);
            let other = expect["other"].as_i64().unwrap_or(-1);
            // The symbol by name, through the family record's symbol table.
            let symbol = match expect["symbol"].as_str() {
                Some(s) => format!(
                    "err.symbol_index >= 0 && (uint32_t)err.symbol_index < fam->symbol_count && strcmp(fam->symbols[err.symbol_index].name, {}) == 0",
                    c_lit(s.as_bytes())
                ),
                None => "err.symbol_index == -1".to_owned(),
            };
            // The message of the same call, from `kfam_validate_call_message`.
            let message = expect["message"].as_str().expect("message");
            write!(
                f,
                "    st = kfam_find_family({}, &fam);\n    \
                 if (st == KFAM_STATUS_OK) st = kfam_validate_call(fam, t, {n}, s, {m}, &err);\n    \
                 check({name}, st == {exp_status} && (st == KFAM_STATUS_NOT_FOUND || (err.rule == {rule} && err.param_index == {param} && err.other_param_index == {other} && {symbol})));\n    \
                 if (fam != NULL) {{\n        int32_t said = kfam_validate_call_message(fam, t, {n}, s, {m}, message, sizeof message, &needed);\n        \
                 check_message({name}, said, st, needed, message, {});\n    }}\n",
                family.expect("family"),
                c_lit(message.as_bytes()),
                n = tensors.len(),
                m = scalars.len(),
                name = c_lit(name.as_bytes()),
            )
            .unwrap();
        }
        "capability" => {
            let p = cat
                .targets
                .platform(case["platform"].as_str().unwrap())
                .expect("platform")
                .code();
            let m = cat
                .targets
                .execution_mode(case["execution_mode"].as_str().unwrap())
                .expect("mode")
                .code();
            let c = Contract::parse(case["contract"].as_str().unwrap())
                .expect("contract")
                .code();
            let outcome = Capability::parse(expect["outcome"].as_str().unwrap())
                .expect("outcome")
                .code();
            let profile = match expect["profile"].as_str() {
                Some(p) => format!(
                    "r.profile != NULL && strcmp(r.profile->name, {}) == 0",
                    c_lit(p.as_bytes())
                ),
                None => "r.profile == NULL".to_owned(),
            };
            let message = expect["message"].as_str().expect("message");
            write!(
                f,
                "    kfam_capability_result r;\n    memset(&r, 0, sizeof r);\n    r.struct_size = sizeof r;\n    \
                 st = kfam_capability({family}, (kfam_platform){p}, (kfam_execution_mode){m}, (kfam_contract){c}, &r);\n    \
                 check({name}, st == {exp_status} && r.outcome == {outcome} && {profile});\n    \
                 {{\n        int32_t said = kfam_capability_message({family}, (kfam_platform){p}, (kfam_execution_mode){m}, (kfam_contract){c}, message, sizeof message, &needed);\n        \
                 check_message({name}, said, st, needed, message, {});\n    }}\n",
                c_lit(message.as_bytes()),
                family = family.expect("family"),
                name = c_lit(name.as_bytes()),
            )
            .unwrap();
        }
        "admission" => {
            let doc = match (&case["document"], case["document_text"].as_str()) {
                (_, Some(text)) => text.as_bytes().to_vec(),
                (v, None) => serde_json::to_vec(v).unwrap(),
            };
            let outcome = Admission::parse(expect["outcome"].as_str().unwrap())
                .expect("outcome")
                .code();
            let field = match expect["field"].as_str() {
                Some(x) => format!(
                    "a.field != NULL && strcmp(a.field, {}) == 0",
                    c_lit(x.as_bytes())
                ),
                None => "a.field == NULL".to_owned(),
            };
            write!(
                f,
                "    static const char doc[] = {};\n    kfam_admission a;\n    memset(&a, 0, sizeof a);\n    \
                 a.struct_size = sizeof a;\n    st = kfam_admit(doc, {len}, {sha}, &a);\n    \
                 check({name}, st == {exp_status} && a.outcome == {outcome} && {field});\n    \
                 {{\n        int32_t said = kfam_admit_message(doc, {len}, {sha}, message, sizeof message, &needed);\n        \
                 check_message({name}, said, st, needed, message, {});\n    }}\n",
                c_lit(&doc),
                c_lit(expect["message"].as_str().expect("message").as_bytes()),
                len = doc.len(),
                sha = c_lit(case["sha256"].as_str().expect("sha256").as_bytes()),
                name = c_lit(name.as_bytes()),
            )
            .unwrap();
        }
        "torch_schema" => {
            let schema = match expect["schema"].as_str() {
                Some(x) => format!("out != NULL && strcmp(out, {}) == 0", c_lit(x.as_bytes())),
                None => "out == NULL".to_owned(),
            };
            write!(
                f,
                "    const char *out = NULL;\n    st = kfam_torch_schema({}, &out);\n    \
                 check({}, st == {exp_status} && {schema});\n",
                family.expect("family"),
                c_lit(name.as_bytes()),
            )
            .unwrap();
        }
        other => panic!("{name}: unknown kind `{other}`"),
    }
    f += "}\n\n";
    f
}

/// The C program of `cases` over `cat`, whose C prefix is `prefix`, and the
/// line it prints when every check agrees: one check per case, and one
/// per message (every capability and admission case, and every call case
/// of an approved family).
pub fn program(cases: &[Value], cat: &Catalog, prefix: &str) -> (String, String) {
    let mut src = String::from(
        "/* Generated by catalog/tests/support/conformance_c.rs from the conformance vectors. */\n\
         #include <math.h>\n#include <stdio.h>\n#include <string.h>\n#include \"kfam/kfam.h\"\n\n\
         static int passed, failed;\n\n\
         static void check(const char *name, int ok)\n{\n    if (ok) { ++passed; } else { ++failed; printf(\"MISMATCH %s\\n\", name); }\n}\n\n\
         /* A message accessor's answer: the deciding function's status, the expected words, their length. */\n\
         static void check_message(const char *name, int32_t said, int32_t decided, size_t needed, const char *message, const char *expected)\n{\n    \
         if (said == decided && strcmp(message, expected) == 0 && needed == strlen(expected)) { ++passed; }\n    \
         else { ++failed; printf(\"MISMATCH %s message: %s (status %d, decided %d, needed %d)\\n\", name, message, (int)said, (int)decided, (int)needed); }\n}\n\n",
    );
    for (i, case) in cases.iter().enumerate() {
        src += &case_fn(i, case, cat);
    }
    src += "int main(void)\n{\n";
    for i in 0..cases.len() {
        writeln!(src, "    case_{i}();").unwrap();
    }
    src += "    printf(\"%d passed, %d failed\\n\", passed, failed);\n    return failed != 0;\n}\n";
    if prefix != "kfam" {
        // Written with kfam's names, as the header's own text is: renamed
        // whole, which is exact while no vector's text says `kfam`.
        for case in cases {
            assert!(
                !case.to_string().to_ascii_lowercase().contains("kfam"),
                "a vector of catalog `{prefix}` mentions kfam: {case}"
            );
        }
        src = src
            .replace("kfam/kfam.h", &format!("{prefix}/{prefix}.h"))
            .replace("kfam_", &format!("{prefix}_"))
            .replace("KFAM_", &format!("{}_", prefix.to_ascii_uppercase()));
    }
    let messages = cases
        .iter()
        .filter(|c| match c["kind"].as_str() {
            Some("capability" | "admission") => true,
            Some("call") => c["family"].as_str().is_some_and(|f| cat.find(f).is_some()),
            _ => false,
        })
        .count();
    let expected = format!("{} passed, 0 failed", cases.len() + messages);
    (src, expected)
}
