//! The catalog's platforms, backends, runtimes, execution modes and codecs,
//! resolved: declared in `abi.toml`, or kfam's defaults.

use serde::Serialize;

use crate::vocab::{self, DType, Layout, Member, Vocabulary};

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Targets {
    /// In declaration order.
    pub platforms: Vec<Platform>,
    pub backends: Vec<Target>,
    pub runtimes: Vec<Target>,
    pub execution_modes: Vec<Target>,
    /// The codecs receipts may name; `None`: any well-formed codec.
    pub codecs: Option<Vec<Codec>>,
}

/// A member of a declared vocabulary.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Target {
    /// As the manifest spells it (`xdna2`).
    pub name: String,
    /// As Rust and Python type members spell it (`Xdna2`).
    pub variant: String,
    pub code: i32,
    pub doc: String,
}

impl Target {
    pub fn member(&self) -> Member<'_> {
        Member {
            variant: &self.variant,
            spelling: &self.name,
            code: self.code,
            doc: &self.doc,
        }
    }

    /// What a profile holds of it.
    pub fn reference(&self) -> TargetRef {
        TargetRef {
            name: self.name.clone(),
            variant: self.variant.clone(),
            code: self.code,
        }
    }
}

/// A platform and what it allows.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Platform {
    pub target: Target,
    /// Names of backends and runtimes, in declaration order.
    pub backends: Vec<String>,
    pub runtimes: Vec<String>,
    /// In vocabulary order.
    pub layouts: Vec<Layout>,
    pub dtypes: Vec<DType>,
}

/// A profile's platform, backend, runtime or execution mode.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(into = "String")]
pub struct TargetRef {
    pub name: String,
    pub variant: String,
    pub code: i32,
}

impl TargetRef {
    /// A member known by name only, as a canonical form records it (to
    /// compare revisions; its code is unknown, -1, and never emitted).
    pub fn named(name: &str) -> Self {
        TargetRef {
            name: name.to_owned(),
            variant: crate::names::camel(name),
            code: -1,
        }
    }
}

impl From<TargetRef> for String {
    fn from(r: TargetRef) -> String {
        r.name
    }
}

impl std::fmt::Display for TargetRef {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.name)
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Codec {
    pub name: String,
    pub doc: String,
}

impl Targets {
    /// The declared members of `vocab` (one of [`vocab::PLATFORM`],
    /// [`vocab::BACKEND`], [`vocab::RUNTIME`], [`vocab::EXECUTION_MODE`]),
    /// or `None` for a vocabulary kfam fixes.
    pub fn members(&self, vocab: &Vocabulary) -> Option<Vec<Member<'_>>> {
        let list: Vec<Member<'_>> = match vocab.name {
            n if n == vocab::PLATFORM.name => {
                self.platforms.iter().map(|p| p.target.member()).collect()
            }
            n if n == vocab::BACKEND.name => self.backends.iter().map(Target::member).collect(),
            n if n == vocab::RUNTIME.name => self.runtimes.iter().map(Target::member).collect(),
            n if n == vocab::EXECUTION_MODE.name => {
                self.execution_modes.iter().map(Target::member).collect()
            }
            _ => return None,
        };
        Some(list)
    }

    pub fn platform(&self, name: &str) -> Option<&Platform> {
        self.platforms.iter().find(|p| p.target.name == name)
    }
}

/// One of kfam's default platforms.
struct DefaultPlatform {
    name: &'static str,
    code: i32,
    doc: &'static str,
    backends: &'static [&'static str],
    runtimes: &'static [&'static str],
    layouts: &'static [Layout],
}

/// kfam's default platforms: the ones kfam's catalog was first released
/// with, frozen (a catalog that declares none checks and digests as it
/// did; kfam's own catalog declares its lists in its manifest).
const PLATFORMS: &[DefaultPlatform] = &[
    DefaultPlatform {
        name: "a2a3",
        code: 0,
        doc: "Ascend A2/A3.",
        backends: &["cce", "pto"],
        runtimes: &["tensormap_and_ringbuffer", "host_build_graph"],
        layouts: &[Layout::Nd, Layout::Nchw, Layout::Nz],
    },
    DefaultPlatform {
        name: "a5",
        code: 1,
        doc: "Ascend A5.",
        backends: &["cce", "pto"],
        runtimes: &["tensormap_and_ringbuffer", "host_build_graph"],
        layouts: DEFAULT_LAYOUTS,
    },
    DefaultPlatform {
        name: "xdna2",
        code: 2,
        doc: "AMD XDNA2 NPU.",
        backends: &["aie"],
        runtimes: &["xrt_direct"],
        layouts: DEFAULT_LAYOUTS,
    },
];
const BACKENDS: &[(&str, i32, &str)] = &[
    ("cce", 0, "Ascend CCE C compiler."),
    ("pto", 1, "PTO instruction backend."),
    ("aie", 2, "AMD AIE compiler (generated ELF)."),
];
const RUNTIMES: &[(&str, i32, &str)] = &[
    (
        "tensormap_and_ringbuffer",
        0,
        "Tensor map and ring buffer launch runtime.",
    ),
    ("host_build_graph", 1, "Task graph built on the host."),
    (
        "xrt_direct",
        2,
        "XRT buffer objects passed directly to the kernel.",
    ),
];
const EXECUTION_MODES: &[(&str, i32, &str)] = &[
    ("sim", 0, "Runs on the platform's simulator."),
    ("onboard", 1, "Runs on the device."),
];

/// The layouts of a platform that declares none: NZ only by saying so.
pub const DEFAULT_LAYOUTS: &[Layout] = &[Layout::Nd, Layout::Nchw];

impl Target {
    pub fn new(name: &str, code: i32, doc: &str) -> Self {
        Target {
            name: name.to_owned(),
            variant: crate::names::camel(name),
            code,
            doc: doc.to_owned(),
        }
    }
}

fn targets(list: &[(&str, i32, &str)]) -> Vec<Target> {
    list.iter()
        .map(|&(name, code, doc)| Target::new(name, code, doc))
        .collect()
}

impl Targets {
    /// kfam's default platforms (an `abi.toml` that declares no
    /// `[[platforms]]`), each with its rules.
    pub fn default_platforms() -> Vec<Platform> {
        PLATFORMS
            .iter()
            .map(|p| Platform {
                target: Target::new(p.name, p.code, p.doc),
                backends: p.backends.iter().map(|s| (*s).to_owned()).collect(),
                runtimes: p.runtimes.iter().map(|s| (*s).to_owned()).collect(),
                layouts: p.layouts.to_vec(),
                dtypes: DType::ALL.to_vec(),
            })
            .collect()
    }
    pub fn default_backends() -> Vec<Target> {
        targets(BACKENDS)
    }
    pub fn default_runtimes() -> Vec<Target> {
        targets(RUNTIMES)
    }
    pub fn default_execution_modes() -> Vec<Target> {
        targets(EXECUTION_MODES)
    }
}

impl Default for Targets {
    /// What an `abi.toml` that declares none of them has.
    fn default() -> Self {
        Targets {
            platforms: Targets::default_platforms(),
            backends: Targets::default_backends(),
            runtimes: Targets::default_runtimes(),
            execution_modes: Targets::default_execution_modes(),
            codecs: None,
        }
    }
}
